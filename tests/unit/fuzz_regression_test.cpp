// Inputs the parse fuzzer once failed on, replayed against the same property.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "roundtrip_property.hpp"
#include "emulator_property.hpp"
#include "validator_property.hpp"

namespace fs = std::filesystem;

TEST(FuzzRegressions, PropertyHoldsOnEveryRecordedInput) {
  size_t n = 0;
  for (const auto& e : fs::directory_iterator(PTXPP_FUZZ_REGRESSIONS)) {
    std::ifstream in(e.path(), std::ios::binary);
    std::ostringstream ss;
    ss << in.rdbuf();
    EXPECT_EQ(ptx::fuzz::check_roundtrip_property(ss.str()), "") << e.path();
    EXPECT_EQ(ptx::fuzz::check_validator_property(ss.str()), "") << e.path();
    EXPECT_EQ(ptx::fuzz::check_emulator_property(ss.str()), "") << e.path();
    ++n;
  }
  EXPECT_GT(n, 0u);
}

TEST(FuzzRegressions, RemainderBeforeAName) {
  // Canonical `B % c` once printed as `B%c`, which reads as the identifier `%c`.
  EXPECT_EQ(ptx::fuzz::check_roundtrip_property(".target a, B % c, 1"), "");
  EXPECT_EQ(ptx::fuzz::check_roundtrip_property(".global .u32 g = 7 % x;"), "");
}

TEST(FuzzRegressions, CarriageReturnsEndingALineComment) {
  EXPECT_EQ(ptx::fuzz::check_roundtrip_property("// a\r\r\r\n.version 9.0 // b\r\r\n.target sm_90a\r\n"), "");
}

TEST(FuzzRegressions, VeryLongZeroPaddedLiterals) {
  // 86 leading zeros once printed as 65: the padding is capped, so such literals keep their spelling.
  const std::string zeros(86, '0');
  EXPECT_EQ(ptx::fuzz::check_roundtrip_property(".global .u32 g = " + zeros + ";"), "");
  EXPECT_EQ(ptx::fuzz::check_roundtrip_property(".global .u32 g = 0x" + zeros + "1;"), "");
  EXPECT_EQ(ptx::fuzz::check_roundtrip_property(".global .u32 g = 0b" + zeros + "1U;"), "");
}
