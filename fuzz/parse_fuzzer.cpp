// libFuzzer target for the text layer, the validator, the transpiler and the
// emulator; see roundtrip_property.hpp, validator_property.hpp,
// transpile_property.hpp and emulator_property.hpp.
#include <cstdint>
#include <cstdio>
#include <cstdlib>

#include "roundtrip_property.hpp"
#include "emulator_property.hpp"
#include "transpile_property.hpp"
#include "validator_property.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  std::string failure = ptx::fuzz::check_roundtrip_property(text);
  if (failure.empty()) failure = ptx::fuzz::check_validator_property(text);
  if (failure.empty()) failure = ptx::fuzz::check_transpile_property(text);
  if (failure.empty()) failure = ptx::fuzz::check_emulator_property(text);
  if (!failure.empty()) {
    std::fprintf(stderr, "parse_fuzzer: %s\n", failure.c_str());
    std::abort();
  }
  return 0;
}
