// libFuzzer target for the emulator: each input is a stream of choices from which
// kernel_generator.hpp builds a small valid kernel and its launch; emu_launch_property.hpp says
// what must hold. An input that is a recorded case (a NAME.case file, emu_case_text.hpp) runs as
// written, so that a finding reproduces under the sanitizers and -timeout after the generator
// changed. With PTXPP_EMU_FUZZ_CASE=PATH in the environment, each case is written to PATH before
// it runs: what an input stands for, even when it crashes.
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <optional>
#include <string_view>

#include "emu_case_text.hpp"
#include "emu_launch_property.hpp"
#include "kernel_generator.hpp"

namespace {
const char* g_case_path = nullptr;

ptx::fuzz::EmuCase case_of(const uint8_t* data, size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  if (text.starts_with("// launch: "))
    if (std::optional<ptx::fuzz::EmuCase> recorded = ptx::fuzz::read_case(std::string(text))) return *recorded;
  return ptx::fuzz::generate_case(data, size);
}
}  // namespace

extern "C" int LLVMFuzzerInitialize(int*, char***) {
  g_case_path = std::getenv("PTXPP_EMU_FUZZ_CASE");
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const ptx::fuzz::EmuCase c = case_of(data, size);
  if (g_case_path != nullptr) std::ofstream(g_case_path, std::ios::binary) << ptx::fuzz::case_text(c) << std::flush;
  const std::string failure = ptx::fuzz::check_launch_property(c);
  if (!failure.empty()) {
    std::fprintf(stderr, "emu_fuzzer: %s\n%s\n", failure.c_str(), ptx::fuzz::case_text(c).c_str());
    std::abort();
  }
  return 0;
}
