// libFuzzer target for the text layer; see roundtrip_property.hpp.
#include <cstdint>
#include <cstdio>
#include <cstdlib>

#include "roundtrip_property.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string failure =
      ptx::fuzz::check_roundtrip_property(std::string_view(reinterpret_cast<const char*>(data), size));
  if (!failure.empty()) {
    std::fprintf(stderr, "parse_fuzzer: %s\n", failure.c_str());
    std::abort();
  }
  return 0;
}
