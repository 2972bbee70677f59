// Video instructions on the emulator: the scalar forms (selected bytes and half-words,
// saturation, secondary operation, data merge, immediates) and the SIMD forms on half-words and
// bytes (selectors, masks, accumulate). Expected values are computed here, operation by
// operation, from the ISA manual's pseudocode (9.7.18); the kernel is assembled by ptxas.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>
#include <string>
#include <vector>

#include "../unit/ptxas_util.hpp"
#include "emu_test_util.hpp"

namespace ptx::test {
namespace {

__extension__ typedef __int128 Int128;  // the manual's 128-bit vmad intermediate

const std::string kVideo = emu_kernel("video.ptx");

int64_t s8(uint32_t x, int byte) { return static_cast<int8_t>(x >> (8 * byte)); }
int64_t u8(uint32_t x, int byte) { return (x >> (8 * byte)) & 0xFF; }
int64_t s16(uint32_t x, int half) { return static_cast<int16_t>(x >> (16 * half)); }
int64_t u16(uint32_t x, int half) { return (x >> (16 * half)) & 0xFFFF; }
int64_t clamp(int64_t v, int64_t lo, int64_t hi) { return std::min(std::max(v, lo), hi); }
uint32_t lo32(int64_t v) { return static_cast<uint32_t>(static_cast<uint64_t>(v)); }
// half-word k (0-3) or byte k (0-7) of the pair {b, a}
uint32_t half_of(uint32_t a, uint32_t b, int k) { return static_cast<uint32_t>(((uint64_t{b} << 32 | a) >> (16 * k)) & 0xFFFF); }
uint32_t byte_of(uint32_t a, uint32_t b, int k) { return static_cast<uint32_t>(((uint64_t{b} << 32 | a) >> (8 * k)) & 0xFF); }
int64_t avrg(int64_t x, int64_t y) { return x + y >= 0 ? (x + y + 1) >> 1 : (x + y) >> 1; }

std::vector<uint32_t> expected(uint32_t a, uint32_t b, uint32_t c) {
  std::vector<uint32_t> d(20);
  d[0] = lo32(u8(a, 1) + u16(b, 0));
  d[1] = lo32(static_cast<int64_t>(static_cast<int32_t>(a)) - static_cast<int64_t>(b));
  d[2] = lo32(std::abs(s16(a, 1) - s16(b, 0)) + static_cast<int32_t>(c));
  d[3] = lo32(std::max(std::min(s8(a, 2), s8(b, 3)), static_cast<int64_t>(static_cast<int32_t>(c))));
  d[4] = lo32(clamp(std::max(static_cast<int64_t>(a), s8(b, 0)), INT32_MIN, INT32_MAX));
  d[5] = lo32(clamp(std::max(static_cast<int64_t>(a), s8(b, 0)), 0, 0xFFFF) << 16) | (c & 0xFFFF);
  d[6] = s8(a, 0) < u8(b, 1);
  d[7] = (a != b) + c;
  {  // vadd2.s32 .sat, a.h01 (element 1 <- half 0, element 0 <- half 1), b.h32
    const int64_t t0 = clamp(static_cast<int16_t>(half_of(a, b, 1)) + static_cast<int16_t>(half_of(a, b, 2)), -32768, 32767);
    const int64_t t1 = clamp(static_cast<int16_t>(half_of(a, b, 0)) + static_cast<int16_t>(half_of(a, b, 3)), -32768, 32767);
    d[8] = (lo32(t0) & 0xFFFF) | (lo32(t1) & 0xFFFF) << 16;
  }
  d[9] = (c & 0xFFFF) | (lo32(u16(a, 1) - u16(b, 1)) & 0xFFFF) << 16;
  {  // vavrg2.s32, a.h21, b.h03
    const int64_t t0 = avrg(static_cast<int16_t>(half_of(a, b, 1)), static_cast<int16_t>(half_of(a, b, 3)));
    const int64_t t1 = avrg(static_cast<int16_t>(half_of(a, b, 2)), static_cast<int16_t>(half_of(a, b, 0)));
    d[10] = (lo32(t0) & 0xFFFF) | (lo32(t1) & 0xFFFF) << 16;
  }
  d[11] = lo32(static_cast<int64_t>(c) + std::abs(u16(a, 0) - u16(b, 0)) + std::abs(u16(a, 1) - u16(b, 1)));
  d[12] = static_cast<uint32_t>(s16(a, 0) > s16(b, 0)) | static_cast<uint32_t>(s16(a, 1) > s16(b, 1)) << 16;
  d[13] = (lo32(std::min(u16(a, 0), s16(b, 0))) & 0xFFFF) | (c & 0xFFFF0000u);
  d[14] = 0;
  for (int i = 0; i < 4; ++i) d[14] |= lo32(clamp(byte_of(a, b, 4 + i) + byte_of(a, b, 3 - i), 0, 255)) << (8 * i);
  int64_t sad = c;
  for (int i = 0; i < 4; ++i) sad += std::abs(u8(a, i) - u8(b, i));
  d[15] = lo32(sad);
  d[16] = c & 0xFF00FF00u;
  for (int i : {0, 2}) d[16] |= (lo32(avrg(s8(a, i), s8(b, i))) & 0xFF) << (8 * i);
  d[17] = 0;
  const int asel[4] = {0, 2, 1, 3};  // .b3120: element 3 <- byte 3, 2 <- 1, 1 <- 2, 0 <- 0
  for (int i = 0; i < 4; ++i) d[17] |= (lo32(std::max(s8(a, asel[i]), s8(b, i))) & 0xFF) << (8 * i);
  d[18] = c;
  for (int i = 0; i < 4; ++i) d[18] += u8(a, i) <= u8(b, i);
  d[19] = lo32(s16(a, 1) - 5);
  return d;
}

TEST(EmuVideo, ScalarAndSimdFormsMatchTheManualsPseudocode) {
  const uint32_t n = 96;
  std::vector<uint32_t> in(3 * n);
  uint32_t s = 12345;
  for (auto& x : in) {
    s = s * 1664525u + 1013904223u;
    x = s ^ (s >> 13);
  }
  // edges: equal operands, extremes of each part
  in[0] = in[1] = 0x80007FFF, in[2] = 0xFFFFFFFF;
  in[3] = 0x7F80FF00, in[4] = 0x807F00FF, in[5] = 0;
  in[6] = 0xFFFFFFFF, in[7] = 0x00000000, in[8] = 0x80000000;
  EmuRun r;
  r.buffer(in, "in");
  const uint64_t out = r.buffer(std::vector<uint32_t>(20 * n), "out");
  r.launch(kVideo, "video", {1, 1, 1}, {n, 1, 1});
  const auto got = r.read<uint32_t>(out, 20 * n);
  for (uint32_t t = 0; t < n; ++t) {
    const auto want = expected(in[3 * t], in[3 * t + 1], in[3 * t + 2]);
    for (int k = 0; k < 20; ++k)
      EXPECT_EQ(got[20 * t + k], want[static_cast<size_t>(k)]) << "thread " << t << " result " << k << std::hex << " a=" << in[3 * t]
                                                               << " b=" << in[3 * t + 1] << " c=" << in[3 * t + 2];
  }
  if (have_ptxas()) {
    const auto as = run_ptxas(kVideo, "sm_90");
    EXPECT_TRUE(as.ok) << as.log;
  }
}

// The video shifts and multiply-add: .clamp/.wrap shift counts, saturation (to the merged byte
// with d.b2), the secondary add, vmad's negations (of the product, of c), .po and the scales.
const std::string kVideoShiftMad = emu_kernel("video_shift_mad.ptx");

int64_t sat_s32(int64_t v) { return clamp(v, INT32_MIN, INT32_MAX); }

std::vector<uint32_t> expected_shift_mad(uint32_t a, uint32_t b, uint32_t c) {
  std::vector<uint32_t> d(10);
  const uint32_t t2 = b & 63;
  const int64_t clamped = std::min<uint32_t>(t2, 32);
  d[0] = lo32(static_cast<int64_t>(uint64_t{a} << clamped));
  d[1] = lo32(s16(a, 1) >> (b & 31));
  d[2] = lo32(sat_s32(static_cast<int64_t>(static_cast<uint64_t>(s8(a, 0)) << clamped)) + static_cast<int32_t>(c));
  d[3] = (lo32(clamp(static_cast<int64_t>(uint64_t{a} >> clamped), 0, 255)) << 16) | (c & 0xFF00FFFFu);
  d[4] = lo32(s16(a, 0) * s16(b, 1) + static_cast<int32_t>(c));
  const Int128 unsigned_sum = static_cast<Int128>(uint64_t{a} * uint64_t{b}) + c;
  d[5] = unsigned_sum > 0xFFFFFFFF ? 0xFFFFFFFFu : static_cast<uint32_t>(unsigned_sum);
  // -(a*b) + c as the manual writes it: ~(a*b) + c + 1, then >> 15
  d[6] = lo32(static_cast<int64_t>((~(static_cast<Int128>(u16(a, 1)) * s16(b, 0)) + static_cast<int32_t>(c) + 1) >> 15));
  // a*b - c: ~c + 1 sign-extended, then >> 7, clamped as signed (a negation makes the result signed)
  d[7] = lo32(sat_s32(static_cast<int64_t>((static_cast<Int128>(u8(a, 1)) * u8(b, 2) - static_cast<int32_t>(c)) >> 7)));
  d[8] = lo32(static_cast<int64_t>((static_cast<Int128>(s8(a, 3)) * s8(b, 0) + static_cast<int32_t>(c) + 1) >> 7));
  d[9] = lo32(sat_s32(static_cast<int64_t>(static_cast<int64_t>(static_cast<int32_t>(a)) * static_cast<int32_t>(b) + static_cast<int32_t>(c))));
  return d;
}

TEST(EmuVideo, ShiftsAndMultiplyAddMatchTheManualsPseudocode) {
  const uint32_t n = 96;
  std::vector<uint32_t> in(3 * n);
  uint32_t s = 777;
  for (auto& x : in) {
    s = s * 1664525u + 1013904223u;
    x = s ^ (s >> 11);
  }
  in[0] = 0xFFFFFFFF, in[1] = 32, in[2] = 0x80000000;  // shift by 32, extreme c
  in[3] = 0x7FFF8000, in[4] = 0x1F, in[5] = 0x7FFFFFFF;
  in[6] = 0x80808080, in[7] = 0xFFFFFFFF, in[8] = 1;
  EmuRun r;
  r.buffer(in, "in");
  const uint64_t out = r.buffer(std::vector<uint32_t>(12 * n), "out");
  r.launch(kVideoShiftMad, "video2", {1, 1, 1}, {n, 1, 1});
  const auto got = r.read<uint32_t>(out, 12 * n);
  for (uint32_t t = 0; t < n; ++t) {
    const auto want = expected_shift_mad(in[3 * t], in[3 * t + 1], in[3 * t + 2]);
    for (int k = 0; k < 10; ++k)
      EXPECT_EQ(got[12 * t + k], want[static_cast<size_t>(k)]) << "thread " << t << " result " << k << std::hex << " a=" << in[3 * t]
                                                               << " b=" << in[3 * t + 1] << " c=" << in[3 * t + 2];
  }
  if (have_ptxas()) {
    const auto as = run_ptxas(kVideoShiftMad, "sm_90");
    EXPECT_TRUE(as.ok) << as.log;
  }
}

TEST(EmuVideo, UnsupportedAndMalformedFormsAreReported) {
  auto run = [](const std::string& body) {
    const std::string text = ".version 8.0\n.target sm_90\n.address_size 64\n.visible .entry k()\n{\n\t.reg .b32 %r<4>;\n\t" + body + "\n\tret;\n}\n";
    emu::Options opt;
    opt.validate = false;
    EmuRun r{emu::Emulator(opt), {}};
    try {
      r.launch(text, "k", {1, 1, 1}, {32, 1, 1});
    } catch (const emu::Error& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  EXPECT_NE(run("vavrg.u32.u32.u32 %r1, %r2, %r3;").find("does not support the instruction vavrg"), std::string::npos);
  EXPECT_NE(run("vmad2.u32.u32.u32 %r1, %r2, %r3, %r0;").find("the instruction vmad2"), std::string::npos);
  EXPECT_NE(run("vadd2.u32.u32.u32 %r1, %r2.h7, %r3, %r0;").find("'h7' is not a selector of vadd2's operand 1"), std::string::npos);
  EXPECT_NE(run("vadd4.u32.u32.u32 %r1, %r2.b01, %r3, %r0;").find("'b01' is not a selector"), std::string::npos);
  EXPECT_NE(run("vadd.u32.u32 %r1, %r2, %r3;").find("without its 3 types"), std::string::npos);
}

}  // namespace
}  // namespace ptx::test
