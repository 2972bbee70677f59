// The emulator fuzzer's generator (fuzz/kernel_generator.hpp) writes valid PTX, so that fuzzing
// reaches execution rather than the parser's or the validator's error paths: kernels from fixed
// seeds parse, pass the validator, assemble with ptxas for their target, and most of them run.
#include <gtest/gtest.h>

#include <random>
#include <vector>

#include "../unit/ptxas_util.hpp"
#include "emu_case_text.hpp"
#include "emu_launch_property.hpp"
#include "kernel_generator.hpp"

namespace ptx::test {
namespace {

constexpr unsigned kSeeds = 200;

// The case that `seed`'s pseudo-random bytes stand for.
fuzz::EmuCase seeded_case(unsigned seed) {
  std::mt19937 bits(seed);
  std::vector<uint8_t> input(512);
  for (uint8_t& b : input) b = static_cast<uint8_t>(bits());
  return fuzz::generate_case(input.data(), input.size());
}

TEST(EmuFuzzGenerator, KernelsFromFixedSeedsAreValidPtx) {
  for (unsigned seed = 1; seed <= kSeeds; ++seed) {
    const fuzz::EmuCase c = seeded_case(seed);
    SCOPED_TRACE(fmt::format("seed {}:\n{}", seed, c.ptx));
    auto parsed = text::parse(c.ptx);
    ASSERT_TRUE(bool(parsed)) << parsed.error().format();
    EXPECT_NO_THROW(emu::Emulator::require_valid(parsed.module(), "k"));
    if (!have_ptxas()) continue;
    const PtxasResult as = run_ptxas(c.ptx, c.target);
    EXPECT_TRUE(as.ok) << as.log;
  }
}

// Most cases get past the launch checks and run instructions (a handful to the end); none breaks
// the property.
TEST(EmuFuzzGenerator, MostKernelsRun) {
  constexpr unsigned kRuns = kSeeds / 2;  // the fuzz step of scripts/test runs many more
  unsigned ran = 0, completed = 0;
  for (unsigned seed = 1; seed <= kRuns; ++seed) {
    const fuzz::EmuCase c = seeded_case(seed);
    EXPECT_EQ(fuzz::check_launch_property(c), "") << fuzz::case_text(c);
    auto parsed = text::parse(c.ptx);
    ASSERT_TRUE(bool(parsed));
    emu::Emulator e(fuzz::fuzz_options(c));
    try {
      fuzz::launch_case(e, parsed.module(), c);
      ++completed;
    } catch (const emu::Error&) {
    }
    ran += e.stats().warp_instructions > 0;
  }
  EXPECT_GE(ran, kRuns * 3 / 4);
  EXPECT_GE(completed, kRuns / 20);
}

TEST(EmuFuzzGenerator, ACaseReadsBackFromItsText) {
  for (unsigned seed = 1; seed <= 20; ++seed) {
    const std::string text = fuzz::case_text(seeded_case(seed));
    const std::optional<fuzz::EmuCase> back = fuzz::read_case(text);
    ASSERT_TRUE(back.has_value()) << text;
    EXPECT_EQ(fuzz::case_text(*back), text);
  }
  EXPECT_FALSE(fuzz::read_case("// launch: grid 1 1 1\n.version 8.7\n").has_value());
  EXPECT_FALSE(fuzz::read_case("// launch: grid 1 1 1, block 1 1 1, cluster 1 1 1, dynamic shared 0\n// buffers: 4\n"
                               "// arguments: buf0 = buffer 1 + 0x0, buf1 = 0x0, off = 0x0, n = 0\n// checks: all\n")
                   .has_value());  // buffer 1 of one
}

}  // namespace
}  // namespace ptx::test
