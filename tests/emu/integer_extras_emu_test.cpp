// mul24/mad24, prmt's modes (.f4e .b4e .rc8 .ecl .ecr .rc16), bmsk and szext on the emulator.
// Expected values are computed here from the ISA manual's definitions (9.7.1), written
// differently from the emulator (bit loops, the manual's mode table as digit strings);
// scripts/emu-vs-gpu runs the same kernel on a GPU.
#include <gtest/gtest.h>

#include <cstring>
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

// fns: the manual's definition (9.7.1.26), walking the mask bit by bit from base.
uint32_t fns(uint32_t mask, uint32_t base, int32_t offset) {
  if (offset == 0) return base < 32 && ((mask >> base) & 1) ? base : 0xFFFFFFFFu;
  int64_t remaining = offset > 0 ? offset : -static_cast<int64_t>(offset);
  for (int64_t pos = base; pos >= 0 && pos <= 31; pos += offset > 0 ? 1 : -1)
    if ((mask >> pos) & 1 && --remaining == 0) return static_cast<uint32_t>(pos);
  return 0xFFFFFFFFu;
}

uint32_t halves(uint32_t a, uint32_t b, bool is_signed, bool relu, int64_t (*op)(int64_t, int64_t)) {
  uint32_t r = 0;
  for (int h = 0; h < 2; ++h) {
    const uint32_t x = (a >> (16 * h)) & 0xFFFF, y = (b >> (16 * h)) & 0xFFFF;
    const int64_t vx = is_signed ? static_cast<int16_t>(x) : static_cast<int64_t>(x), vy = is_signed ? static_cast<int16_t>(y) : static_cast<int64_t>(y);
    int64_t v = op(vx, vy);
    if (relu && v < 0) v = 0;
    r |= (static_cast<uint32_t>(v) & 0xFFFF) << (16 * h);
  }
  return r;
}

TEST(EmuIntegerExtras, FnsSlctPairsLduImmediates) {
  const std::string text = emu_kernel("int_extras2.ptx");
  const uint32_t n = 96;
  std::vector<uint32_t> in(4 * n);
  uint32_t s = 4242;
  for (auto& x : in) {
    s = s * 1664525u + 1013904223u;
    x = s ^ (s >> 13);
  }
  // d as a float: zeros of both signs, a subnormal, a NaN; offsets 0 and small ones
  const uint32_t ds[] = {0x80000000u, 0, 0x80000001u, 0x7FC00000u, 0xFFC00000u, 3, 0xFFFFFFFDu, 0x00000001u};
  for (size_t i = 0; i < std::size(ds); ++i) in[4 * i + 3] = ds[i];
  EmuRun r;
  r.buffer(in, "in");
  const uint64_t out = r.buffer(std::vector<uint32_t>(16 * n), "out");
  r.launch(text, "int_extras2", {1, 1, 1}, {n, 1, 1});
  const auto got = r.read<uint32_t>(out, 16 * n);
  auto add = [](int64_t x, int64_t y) { return x + y; };
  auto mn = [](int64_t x, int64_t y) { return x < y ? x : y; };
  auto mx = [](int64_t x, int64_t y) { return x > y ? x : y; };
  for (uint32_t t = 0; t < n; ++t) {
    const uint32_t a = in[4 * t], b = in[4 * t + 1], c = in[4 * t + 2], d = in[4 * t + 3];
    float fd;
    std::memcpy(&fd, &d, 4);
    const bool sub = (d & 0x7F800000u) == 0 && (d & 0x7FFFFF);
    const uint32_t want[14] = {fns(a, c & 31, static_cast<int32_t>(d)),
                               static_cast<int32_t>(c) >= 0 ? a : b,
                               fd >= 0.0f ? a : b,                       // -0 >= 0; a NaN is not
                               (sub ? 0.0f : fd) >= 0.0f ? a : b,         // .ftz: a subnormal c is 0
                               halves(a, b, true, false, add),
                               halves(a, b, false, false, add),
                               halves(a, b, true, false, mn),
                               halves(a, b, false, false, mx),
                               halves(a, b, true, true, mn),
                               halves(a, b, true, true, mx),
                               (c & 0xFFFF) << 16,                        // {0, h}: the first element is the low half
                               0xFFFE0000u | (c & 0xFFFF),                // {h, -2}
                               a * 7 + 3,                                 // mix(a, 7) through .reg parameters
                               fns(b, c & 31, static_cast<int32_t>(d & 7) - 4)};
    for (int k = 0; k < 14; ++k)
      EXPECT_EQ(got[16 * t + static_cast<uint32_t>(k)], want[k]) << "result " << k << std::hex << " a=" << a << " b=" << b << " c=" << c
                                                                  << " d=" << d;
  }
  if (have_ptxas()) {
    const auto as = run_ptxas(text, "sm_90");
    EXPECT_TRUE(as.ok) << as.log;
  }
}

}  // namespace
}  // namespace ptx::test
