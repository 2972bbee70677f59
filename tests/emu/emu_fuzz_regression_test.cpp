// What the emulator fuzzer once found (fuzz/emu_regressions): each NAME.bin input replayed through
// the generator, and each NAME.case (the kernel and launch it stood for when found, emu_case_text.hpp)
// replayed as recorded; the property (fuzz/emu_launch_property.hpp) holds on every one. The ASan
// suite runs this too, which is where a wrap-around into the host's memory shows.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <iterator>
#include <vector>

#include "emu_case_text.hpp"
#include "emu_launch_property.hpp"
#include "kernel_generator.hpp"

namespace ptx::test {
namespace {

namespace fs = std::filesystem;

std::string contents(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

std::vector<fs::path> recorded(const std::string& extension) {
  std::vector<fs::path> paths;
  for (const auto& e : fs::directory_iterator(PTXPP_EMU_FUZZ_REGRESSIONS))
    if (e.path().extension() == extension) paths.push_back(e.path());
  return paths;
}

TEST(EmuFuzzRegressions, PropertyHoldsOnEveryRecordedInput) {
  const std::vector<fs::path> inputs = recorded(".bin");
  for (const fs::path& p : inputs) {
    const std::string bytes = contents(p);
    const fuzz::EmuCase c = fuzz::generate_case(reinterpret_cast<const uint8_t*>(bytes.data()), bytes.size());
    EXPECT_EQ(fuzz::check_launch_property(c), "") << p << "\n" << fuzz::case_text(c);
  }
  EXPECT_GT(inputs.size(), 0u);
}

TEST(EmuFuzzRegressions, PropertyHoldsOnEveryRecordedCase) {
  const std::vector<fs::path> cases = recorded(".case");
  for (const fs::path& p : cases) {
    const std::optional<fuzz::EmuCase> c = fuzz::read_case(contents(p));
    ASSERT_TRUE(c.has_value()) << p << ": not a case (emu_case_text.hpp)";
    EXPECT_EQ(fuzz::check_launch_property(*c), "") << p;
  }
  EXPECT_GT(cases.size(), 0u);
}

}  // namespace
}  // namespace ptx::test
