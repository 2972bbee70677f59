// mul24/mad24, prmt's modes (.f4e .b4e .rc8 .ecl .ecr .rc16), bmsk and szext on the emulator.
// Expected values are computed here from the ISA manual's definitions (9.7.1), written
// differently from the emulator (bit loops, the manual's mode table as digit strings);
// scripts/emu-vs-gpu runs the same kernel on a GPU.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "../unit/ptxas_util.hpp"
#include "emu_test_util.hpp"

namespace ptx::test {
namespace {

int64_t sext24(uint32_t x) { return (x & 0x800000) ? static_cast<int64_t>(x & 0xFFFFFF) - 0x1000000 : static_cast<int64_t>(x & 0xFFFFFF); }

// The manual's prmt mode table: for each selector value, the source bytes of d.b3 d.b2 d.b1 d.b0.
uint32_t prmt_mode(const char* const table[4], uint32_t a, uint32_t b, uint32_t c) {
  const uint64_t src = uint64_t{b} << 32 | a;
  const char* row = table[c & 3];
  uint32_t d = 0;
  for (int i = 0; i < 4; ++i) d = d << 8 | static_cast<uint32_t>((src >> (8 * (row[i] - '0'))) & 0xFF);
  return d;
}
const char* const kF4e[4] = {"3210", "4321", "5432", "6543"};
const char* const kB4e[4] = {"5670", "6701", "7012", "0123"};
const char* const kRc8[4] = {"0000", "1111", "2222", "3333"};
const char* const kEcl[4] = {"3210", "3211", "3222", "3333"};
const char* const kEcr[4] = {"0000", "1110", "2210", "3210"};
const char* const kRc16[4] = {"1010", "3232", "1010", "3232"};

// bmsk: bits [start, start + width) of 32; .clamp: a start past 31 gives no bits, a width past 31 all bits from start
uint32_t bmsk(uint32_t a, uint32_t b, bool clamp) {
  uint64_t start = a & 31, width = b & 31;
  if (clamp) {
    if (a >= 32) return 0;
    start = a;
    width = b >= 32 ? 64 : b;
  }
  uint32_t d = 0;
  for (uint64_t i = 0; i < 32; ++i)
    if (i >= start && i < start + width) d |= 1u << i;
  return d;
}

// szext: the low n bits of a, sign- or zero-extended; .clamp: n past 31 keeps a whole
uint32_t szext(uint32_t a, uint32_t b, bool clamp, bool is_signed) {
  if (clamp && b >= 32) return a;
  const uint32_t n = b & 31;
  uint32_t d = 0;
  for (uint32_t i = 0; i < 32; ++i) {
    const uint32_t bit = i < n ? (a >> i) & 1 : (is_signed && n > 0 ? (a >> (n - 1)) & 1 : 0);
    d |= bit << i;
  }
  return d;
}

std::vector<uint32_t> expected(uint32_t a, uint32_t b, uint32_t c) {
  const int64_t sp = sext24(a) * sext24(b);
  const uint64_t up = uint64_t{a & 0xFFFFFF} * (b & 0xFFFFFF);
  return {static_cast<uint32_t>(sp),
          static_cast<uint32_t>(static_cast<uint64_t>(sp) >> 16),
          static_cast<uint32_t>(up),
          static_cast<uint32_t>(up >> 16),
          static_cast<uint32_t>(up) + c,
          static_cast<uint32_t>(static_cast<uint64_t>(sp) >> 16) + c,
          prmt_mode(kF4e, a, b, c),
          prmt_mode(kB4e, a, b, c),
          prmt_mode(kRc8, a, b, c),
          prmt_mode(kEcl, a, b, c),
          prmt_mode(kEcr, a, b, c),
          prmt_mode(kRc16, a, b, c),
          bmsk(a & 63, b & 63, true),
          bmsk(a, b, false),
          szext(a, b & 63, true, true),
          szext(a, b, false, false)};
}

TEST(EmuIntegerExtras, Mul24PrmtModesBmskSzext) {
  const std::string text = emu_kernel("int_extras.ptx");
  const uint32_t n = 128;
  std::vector<uint32_t> in(4 * n);
  uint32_t s = 99;
  for (auto& x : in) {
    s = s * 1664525u + 1013904223u;
    x = s ^ (s >> 15);
  }
  // edges: widths and positions at and past 31, 24-bit sign bits, every prmt selector
  const uint32_t edges[][3] = {{0x00800000, 0x00800000, 0}, {0xFF7FFFFF, 0x00FFFFFF, 1}, {31, 1, 2},  {32, 0, 3},
                               {0x80000000, 32, 4},         {0x7FFFFFFF, 31, 5},         {5, 33, 6}, {40, 63, 7}};
  for (size_t i = 0; i < std::size(edges); ++i)
    for (int k = 0; k < 3; ++k) in[4 * i + static_cast<size_t>(k)] = edges[i][k];
  EmuRun r;
  r.buffer(in, "in");
  const uint64_t out = r.buffer(std::vector<uint32_t>(16 * n), "out");
  r.launch(text, "int_extras", {1, 1, 1}, {n, 1, 1});
  const auto got = r.read<uint32_t>(out, 16 * n);
  static const char* const kNames[16] = {"mul24.lo.s32", "mul24.hi.s32", "mul24.lo.u32", "mul24.hi.u32", "mad24.lo.u32", "mad24.hi.s32",
                                         "prmt.f4e",     "prmt.b4e",     "prmt.rc8",     "prmt.ecl",     "prmt.ecr",     "prmt.rc16",
                                         "bmsk.clamp",   "bmsk.wrap",    "szext.clamp.s32", "szext.wrap.u32"};
  for (uint32_t t = 0; t < n; ++t) {
    const auto want = expected(in[4 * t], in[4 * t + 1], in[4 * t + 2]);
    for (int k = 0; k < 16; ++k)
      EXPECT_EQ(got[16 * t + static_cast<uint32_t>(k)], want[static_cast<size_t>(k)])
          << kNames[k] << std::hex << " a=" << in[4 * t] << " b=" << in[4 * t + 1] << " c=" << in[4 * t + 2];
  }
  if (have_ptxas()) {
    const auto as = run_ptxas(text, "sm_90");
    EXPECT_TRUE(as.ok) << as.log;
  }
}

}  // namespace
}  // namespace ptx::test
