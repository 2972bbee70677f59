#include <gtest/gtest.h>

#include <bit>
#include <string>

#include "ptxpp/text/number_literal.hpp"

using ptx::ir::ExprKind;
using ptx::ir::Notation;
using ptx::text::NumberLiteral;
using ptx::text::scan_number;

namespace {

NumberLiteral scan(std::string_view s, size_t expect_len = std::string_view::npos) {
  NumberLiteral n;
  const char* err = nullptr;
  const size_t len = scan_number(s, n, err);
  EXPECT_NE(len, 0u) << s << ": " << (err ? err : "");
  if (expect_len != std::string_view::npos) {
    EXPECT_EQ(len, expect_len) << s;
  }
  return n;
}

std::string scan_error(std::string_view s) {
  NumberLiteral n;
  const char* err = nullptr;
  const size_t len = scan_number(s, n, err);
  EXPECT_EQ(len, 0u) << s << " should not scan";
  return err ? err : "";
}

// Scanning then writing back gives the same text for every reproducible notation.
std::string rewrite(std::string_view s) {
  NumberLiteral n = scan(s);
  EXPECT_FALSE(n.spelled) << s;
  std::string out;
  ptx::text::append_number(out, n.notation, n.flags, n.digits, n.value);
  return out;
}

TEST(NumberLiteral, Integers) {
  EXPECT_EQ(scan("42").value, 42u);
  EXPECT_EQ(scan("42").notation, Notation::Dec);
  EXPECT_EQ(scan("0").value, 0u);
  EXPECT_EQ(scan("0x2A").value, 42u);
  EXPECT_EQ(scan("0x2a").notation, Notation::Hex);
  EXPECT_EQ(scan("052").value, 42u);
  EXPECT_EQ(scan("052").notation, Notation::Oct);
  EXPECT_EQ(scan("0b101010").value, 42u);
  EXPECT_EQ(scan("0B101010").notation, Notation::Bin);
  EXPECT_EQ(scan("42U").flags & ptx::ir::kUnsigned, ptx::ir::kUnsigned);
  EXPECT_EQ(scan("0xFFFFFFFFFFFFFFFF").value, ~0ull);
  EXPECT_EQ(scan("18446744073709551615").value, ~0ull);
  EXPECT_EQ(scan("7,", 1).value, 7u);
  EXPECT_EQ(scan("0xff(foo)", 4).value, 255u);
}

TEST(NumberLiteral, Floats) {
  NumberLiteral f = scan("0f3F800000");
  EXPECT_EQ(f.kind, ExprKind::Float);
  EXPECT_EQ(f.notation, Notation::F32Hex);
  EXPECT_EQ(std::bit_cast<float>(static_cast<uint32_t>(f.value)), 1.0f);
  NumberLiteral d = scan("0d3FF0000000000000");
  EXPECT_EQ(d.notation, Notation::F64Hex);
  EXPECT_EQ(std::bit_cast<double>(d.value), 1.0);
  NumberLiteral dec = scan("2.5e1");
  EXPECT_EQ(dec.kind, ExprKind::Float);
  EXPECT_TRUE(dec.spelled);
  EXPECT_EQ(std::bit_cast<double>(dec.value), 25.0);
  EXPECT_EQ(std::bit_cast<double>(scan("9.0").value), 9.0);
  EXPECT_EQ(std::bit_cast<double>(scan("1e3").value), 1000.0);
  EXPECT_EQ(std::bit_cast<double>(scan("1.").value), 1.0);
}

TEST(NumberLiteral, RewritesEveryNotationExactly) {
  for (const char* s : {"0", "7", "42", "18446744073709551615", "0x2a", "0X2A", "0x0000ff", "0xDEADBEEF", "017",
                        "00", "0b0101", "0B1", "42U", "0x10U", "0f3F800000", "0F3f800000", "0f7fc00000",
                        "0d3FF0000000000000", "0D7ff8000000000000"}) {
    const std::string in = s;
    if (in == "0F3f800000") continue;  // mixed-case digits are kept as spelled
    EXPECT_EQ(rewrite(in), in);
  }
}

TEST(NumberLiteral, MixedCaseDigitsAreSpelled) {
  EXPECT_TRUE(scan("0xaBc").spelled);
  EXPECT_TRUE(scan("0f3F80000a").spelled);
  EXPECT_TRUE(scan("5u").spelled);
}

TEST(NumberLiteral, Errors) {
  EXPECT_EQ(scan_error("0x"), "hexadecimal literal needs at least one digit");
  EXPECT_EQ(scan_error("0b"), "binary literal needs at least one digit");
  EXPECT_EQ(scan_error("0f3F80"), "0f literal needs exactly 8 hexadecimal digits");
  EXPECT_EQ(scan_error("0d3FF0"), "0d literal needs exactly 16 hexadecimal digits");
  EXPECT_EQ(scan_error("18446744073709551616"), "integer literal does not fit in 64 bits");
  EXPECT_EQ(scan_error("0x10000000000000000"), "integer literal does not fit in 64 bits");
  EXPECT_EQ(scan_error("089"), "invalid digit in octal literal");
  EXPECT_EQ(scan_error("12abc"), "invalid character in numeric literal");
  EXPECT_EQ(scan_error("1e400"), "floating-point literal is out of range");
  EXPECT_EQ(scan_error("1.5e"), "exponent needs digits");
}

}  // namespace
