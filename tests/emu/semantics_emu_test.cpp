// Instruction semantics the emulator had wrong, each checked against the manual's definition
// computed here in plain C++ (independently of the emulator's code): saturating integer add/sub,
// directed rounding of f32/f64 arithmetic, cvt into a register wider than a signed destination
// type, set/setp on packed halves, cvt.pack.sat, mad/madc carry chains, .shared variables of
// device functions and one dynamic window for every extern array, and cp.async from a kernel
// parameter's generic address. Also carry chains that mix additions and subtractions, as the
// manual's text defines them (for a GPU to confirm: see the test).
#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <bit>
#include <cmath>
#include <cstring>
#include <limits>

#include "../unit/ptxas_util.hpp"
#include "emu_test_util.hpp"

namespace ptx::test {
namespace {

const char* kHeader = ".version 8.0\n.target sm_80\n.address_size 64\n\n";

void expect_assembles(const std::string& text) {
  if (!have_ptxas()) return;
  const auto as = run_ptxas(text, "sm_80");
  EXPECT_TRUE(as.ok) << as.log;
}

// Thread i applies `body` to in[2i], in[2i+1] (%r1, %r2; 32-bit) and stores %r3..%r(2+outs) at out[outs * i].
std::vector<uint32_t> run_pairs(const std::string& body, const std::vector<uint32_t>& in, unsigned outs,
                                const std::string& regs = "") {
  const std::string text = std::string(kHeader) + fmt::format(R"(.visible .entry t(.param .u64 in, .param .u64 out)
{{
	.reg .b32 %r<16>;
	.reg .f32 %f<16>;
	.reg .f64 %fd<8>;
	.reg .b64 %rd<8>;
	.reg .pred %p<4>;
{}
	ld.param.u64 %rd1, [in];
	ld.param.u64 %rd2, [out];
	mov.u32 %r15, %tid.x;
	mul.wide.u32 %rd3, %r15, 8;
	add.u64 %rd3, %rd1, %rd3;
	ld.global.v2.u32 {{%r1, %r2}}, [%rd3];
	mul.wide.u32 %rd4, %r15, {};
	add.u64 %rd4, %rd2, %rd4;
{}
	ret;
}}
)",
                                                              regs, outs * 4, body);
  expect_assembles(text);
  EmuRun r;
  r.buffer(in, "in");
  const uint64_t out = r.buffer(std::vector<uint32_t>(in.size() / 2 * outs), "out");
  r.launch(text, "t", {1, 1, 1}, {static_cast<uint32_t>(in.size() / 2), 1, 1});
  return r.read<uint32_t>(out, in.size() / 2 * outs);
}

std::string stores(unsigned n) {
  std::string s;
  for (unsigned i = 0; i < n; ++i) s += fmt::format("\tst.global.u32 [%rd4+{}], %r{};\n", 4 * i, 3 + i);
  return s;
}

// add.sat.s32 / sub.sat.s32: the exact sum clamped to [INT_MIN, INT_MAX] (it wrapped, both ways).
TEST(EmuSemantics, SaturatingAddAndSubClampBothWays) {
  const std::vector<int32_t> a = {INT32_MAX, INT32_MIN, INT32_MIN + 100, -5, 7, INT32_MAX - 1, 0, INT32_MIN};
  const std::vector<int32_t> b = {1, -1, -100, -7, 9, 5, INT32_MIN, INT32_MIN};
  std::vector<uint32_t> in;
  for (size_t i = 0; i < a.size(); ++i)
    in.push_back(static_cast<uint32_t>(a[i])), in.push_back(static_cast<uint32_t>(b[i]));
  const auto got = run_pairs("\tadd.sat.s32 %r3, %r1, %r2;\n\tsub.sat.s32 %r4, %r1, %r2;\n" + stores(2), in, 2);
  auto clamp = [](int64_t x) {
    return static_cast<uint32_t>(static_cast<int32_t>(std::clamp<int64_t>(x, INT32_MIN, INT32_MAX)));
  };
  for (size_t i = 0; i < a.size(); ++i) {
    EXPECT_EQ(got[2 * i], clamp(int64_t{a[i]} + b[i])) << a[i] << " + " << b[i];
    EXPECT_EQ(got[2 * i + 1], clamp(int64_t{a[i]} - b[i])) << a[i] << " - " << b[i];
  }
}

// The float nearest to `exact` in the direction `mode` (+1 up, -1 down, 0 toward zero), from an
// exact double: the manual's rounding, with no help from the host's rounding modes.
float directed(double exact, int mode) {
  const float n = static_cast<float>(exact);  // to nearest
  if (static_cast<double>(n) == exact) return n;
  const bool up = mode > 0 || (mode == 0 && exact < 0);
  if (up) return static_cast<double>(n) > exact ? n : std::nextafter(n, std::numeric_limits<float>::infinity());
  return static_cast<double>(n) < exact ? n : std::nextafter(n, -std::numeric_limits<float>::infinity());
}

// add/sub/mul/fma .rz/.rm/.rp on f32: results rounded in the asked direction (all were to nearest).
TEST(EmuSemantics, DirectedRoundingOfF32Arithmetic) {
  const std::vector<std::pair<float, float>> pairs = {{1.0f, 0x1p-24f},
                                                      {1.0f, -0x1p-25f},
                                                      {-1.0f, -0x1p-24f},
                                                      {3.0f, 0x1.8p-23f},
                                                      {0x1.fffffep127f, 0x1p104f},
                                                      {1.0f / 3.0f, 3.0f},
                                                      {-7.0f, 0x1.000002p-30f},
                                                      {0.1f, 0.2f}};
  std::vector<uint32_t> in;
  for (auto [x, y] : pairs) in.push_back(std::bit_cast<uint32_t>(x)), in.push_back(std::bit_cast<uint32_t>(y));
  const std::string body = R"(	mov.b32 %f1, %r1;
	mov.b32 %f2, %r2;
	add.rz.f32 %f3, %f1, %f2;
	add.rm.f32 %f4, %f1, %f2;
	add.rp.f32 %f5, %f1, %f2;
	sub.rp.f32 %f6, %f1, %f2;
	mul.rz.f32 %f7, %f1, %f2;
	mul.rm.f32 %f8, %f1, %f2;
	mul.rp.f32 %f9, %f1, %f2;
	fma.rp.f32 %f10, %f1, %f2, %f1;
	fma.rm.f32 %f11, %f1, %f2, %f1;
	mov.b32 %r3, %f3;
	mov.b32 %r4, %f4;
	mov.b32 %r5, %f5;
	mov.b32 %r6, %f6;
	mov.b32 %r7, %f7;
	mov.b32 %r8, %f8;
	mov.b32 %r9, %f9;
	mov.b32 %r10, %f10;
	mov.b32 %r11, %f11;
)" + stores(9);
  const auto got = run_pairs(body, in, 9);
  for (size_t i = 0; i < pairs.size(); ++i) {
    const double x = pairs[i].first, y = pairs[i].second;
    const float want[9] = {directed(x + y, 0),
                           directed(x + y, -1),
                           directed(x + y, 1),
                           directed(x - y, 1),
                           directed(x * y, 0),
                           directed(x * y, -1),
                           directed(x * y, 1),
                           directed(std::fma(x, y, x), 1),
                           directed(std::fma(x, y, x), -1)};
    for (int k = 0; k < 9; ++k)
      EXPECT_EQ(got[9 * i + static_cast<size_t>(k)], std::bit_cast<uint32_t>(want[k]))
          << "pair " << i << " result " << k;
  }
}

// div, rcp and sqrt .rm/.rp bracket the exact value: down <= exact <= up, one ulp apart when
// inexact (checked with exact double products, which hold a float times a float exactly).
TEST(EmuSemantics, DirectedRoundingOfF32DivisionAndRoots) {
  const std::vector<std::pair<float, float>> pairs = {{1.0f, 3.0f}, {2.0f, 7.0f}, {-5.0f, 3.0f}, {10.0f, 4.0f}};
  std::vector<uint32_t> in;
  for (auto [x, y] : pairs) in.push_back(std::bit_cast<uint32_t>(x)), in.push_back(std::bit_cast<uint32_t>(y));
  const std::string body = R"(	mov.b32 %f1, %r1;
	mov.b32 %f2, %r2;
	div.rm.f32 %f3, %f1, %f2;
	div.rp.f32 %f4, %f1, %f2;
	sqrt.rm.f32 %f5, %f2;
	sqrt.rp.f32 %f6, %f2;
	rcp.rz.f32 %f7, %f2;
	mov.b32 %r3, %f3;
	mov.b32 %r4, %f4;
	mov.b32 %r5, %f5;
	mov.b32 %r6, %f6;
	mov.b32 %r7, %f7;
)" + stores(5);
  const auto got = run_pairs(body, in, 5);
  for (size_t i = 0; i < pairs.size(); ++i) {
    const double x = pairs[i].first, y = pairs[i].second;
    const float down = std::bit_cast<float>(got[5 * i]), up = std::bit_cast<float>(got[5 * i + 1]);
    EXPECT_LE(double{down} * y, x) << i;  // (every y here is positive)
    EXPECT_GE(double{up} * y, x) << i;
    if (double{down} * y != x) {
      EXPECT_EQ(std::nextafter(down, std::numeric_limits<float>::infinity()), up) << i;
    }
    const float root_down = std::bit_cast<float>(got[5 * i + 2]), root_up = std::bit_cast<float>(got[5 * i + 3]);
    EXPECT_LE(double{root_down} * root_down, y) << i;
    EXPECT_GE(double{root_up} * root_up, y) << i;
    const float rcp = std::bit_cast<float>(got[5 * i + 4]);
    EXPECT_LE(double{rcp} * y, 1.0) << i;  // toward zero: 1/y not overshot, and the next float up would
    EXPECT_GT(double{std::nextafter(rcp, 2.0f)} * y, 1.0) << i;
  }
}

// cvt to a signed type into a wider register sign-extends to the register (as ld does): cvt.s16.s8
// into a 32-bit register gave 0x0000ff81 for -127.
TEST(EmuSemantics, CvtIntoAWiderRegisterExtendsBySign) {
  const std::vector<uint32_t> in = {0x12348081, 0, 0x7f, 0, 0x00017fff, 0};
  const std::string body = R"(	cvt.s16.s8 %r3, %r1;
	cvt.u16.u8 %r4, %r1;
	cvt.s32.s8 %r5, %r1;
	cvt.s16.s32 %r6, %r1;
	cvt.sat.s16.s32 %r7, %r1;
)" + stores(5);
  const auto got = run_pairs(body, in, 5);
  for (size_t i = 0; i < in.size() / 2; ++i) {
    const uint32_t a = in[2 * i];
    EXPECT_EQ(got[5 * i], static_cast<uint32_t>(static_cast<int32_t>(static_cast<int8_t>(a & 0xff)))) << i;
    EXPECT_EQ(got[5 * i + 1], a & 0xff) << i;
    EXPECT_EQ(got[5 * i + 2], static_cast<uint32_t>(static_cast<int32_t>(static_cast<int8_t>(a & 0xff)))) << i;
    EXPECT_EQ(got[5 * i + 3], static_cast<uint32_t>(static_cast<int32_t>(static_cast<int16_t>(a & 0xffff)))) << i;
    EXPECT_EQ(
        got[5 * i + 4],
        static_cast<uint32_t>(static_cast<int32_t>(std::clamp<int64_t>(static_cast<int32_t>(a), INT16_MIN, INT16_MAX))))
        << i;
  }
}

// An IEEE binary16 value as a double, decoded here from its fields.
double half(uint16_t h) {
  const int e = h >> 10 & 0x1f, m = h & 0x3ff;
  const double s = (h & 0x8000) ? -1.0 : 1.0;
  if (e == 0x1f) return m ? std::numeric_limits<double>::quiet_NaN() : s * std::numeric_limits<double>::infinity();
  return s * (e ? std::ldexp(1024 + m, e - 25) : std::ldexp(m, -24));
}

// set and setp on .f16x2 compare each half on their own: set gives 0xffff (integer) or 1.0 (.f16x2)
// per half; setp's p is the low halves, q the high ones. Both halves came out as one answer.
TEST(EmuSemantics, PackedHalfComparisonsAnswerPerHalf) {
  // halves: 1.0 0x3c00, 0.5 0x3800, 2.0 0x4000, NaN 0x7e00, -0.0 0x8000, 0.0 0x0000, inf 0x7c00
  const std::vector<uint32_t> in = {0x40003c00, 0x7e003800, 0x38003c00, 0x40004000,
                                    0x80007c00, 0x00003800, 0x7e007e00, 0x3c003c00};
  const std::string body = R"(	set.gt.u32.f16x2 %r3, %r1, %r2;
	set.gt.f16x2.f16x2 %r4, %r1, %r2;
	set.gtu.s32.f16x2 %r5, %r1, %r2;
	set.eq.and.u32.f16x2 %r6, %r1, %r2, %p1;
	setp.lt.f16x2 %p2|%p3, %r1, %r2;
	selp.u32 %r7, 1, 0, %p2;
	selp.u32 %r8, 1, 0, %p3;
)" + stores(6);
  // %p1 is true: set.eq.and is set.eq
  const auto got = run_pairs("\tsetp.eq.u32 %p1, %r15, %r15;\n" + body, in, 6);
  for (size_t i = 0; i < in.size() / 2; ++i) {
    uint32_t gt = 0, gt_f16 = 0, gtu = 0, eq = 0;
    bool lt[2];
    for (int k = 0; k < 2; ++k) {
      const double x = half(static_cast<uint16_t>(in[2 * i] >> (16 * k))),
                   y = half(static_cast<uint16_t>(in[2 * i + 1] >> (16 * k)));
      const bool unordered = std::isnan(x) || std::isnan(y);
      if (x > y) gt |= 0xffffu << (16 * k), gt_f16 |= 0x3c00u << (16 * k);
      if (x > y || unordered) gtu |= 0xffffu << (16 * k);
      if (x == y) eq |= 0xffffu << (16 * k);
      lt[k] = x < y;
    }
    EXPECT_EQ(got[6 * i], gt) << i;
    EXPECT_EQ(got[6 * i + 1], gt_f16) << i;
    EXPECT_EQ(got[6 * i + 2], gtu) << i;
    EXPECT_EQ(got[6 * i + 3], eq) << i;
    EXPECT_EQ(got[6 * i + 4], uint32_t{lt[0]}) << i;
    EXPECT_EQ(got[6 * i + 5], uint32_t{lt[1]}) << i;
  }
}

// cvt.pack.sat: a and b saturated to the convert type, a above b; the narrow forms put c's low
// bits above them (the emulator refused .pack).
TEST(EmuSemantics, CvtPackSaturatesAndPacks) {
  const std::vector<int32_t> a = {300, -300, 5, -1, 70000, 2};
  const std::vector<int32_t> b = {-5, 100, -200, 127, -70000, 1};
  std::vector<uint32_t> in;
  for (size_t i = 0; i < a.size(); ++i)
    in.push_back(static_cast<uint32_t>(a[i])), in.push_back(static_cast<uint32_t>(b[i]));
  const std::string body = R"(	cvt.pack.sat.u8.s32.b32 %r3, %r1, %r2, 0x12345678;
	cvt.pack.sat.s8.s32.b32 %r4, %r1, %r2, 0x9abcdef0;
	cvt.pack.sat.s16.s32 %r5, %r1, %r2;
	cvt.pack.sat.u16.s32 %r6, %r1, %r2;
	cvt.pack.sat.s4.s32.b32 %r7, %r1, %r2, 0x0abcdef1;
	cvt.pack.sat.u2.s32.b32 %r8, %r1, %r2, 0x0fffffff;
)" + stores(6);
  const auto got = run_pairs(body, in, 6);
  auto sat = [](int64_t x, bool sgn, unsigned n) {
    const int64_t lo = sgn ? -(int64_t{1} << (n - 1)) : 0,
                  hi = sgn ? (int64_t{1} << (n - 1)) - 1 : (int64_t{1} << n) - 1;
    return static_cast<uint32_t>(std::clamp(x, lo, hi)) & ((1u << n) - 1);
  };
  auto pack = [&](size_t i, bool sgn, unsigned n, uint32_t c) {
    uint32_t d = sat(a[i], sgn, n) << n | sat(b[i], sgn, n);
    if (n < 16) d |= c << (2 * n);
    return d;
  };
  for (size_t i = 0; i < a.size(); ++i) {
    EXPECT_EQ(got[6 * i], pack(i, false, 8, 0x12345678)) << i;
    EXPECT_EQ(got[6 * i + 1], pack(i, true, 8, 0x9abcdef0)) << i;
    EXPECT_EQ(got[6 * i + 2], pack(i, true, 16, 0)) << i;
    EXPECT_EQ(got[6 * i + 3], pack(i, false, 16, 0)) << i;
    EXPECT_EQ(got[6 * i + 4], pack(i, true, 4, 0x0abcdef1)) << i;
    EXPECT_EQ(got[6 * i + 5], pack(i, false, 2, 0x0fffffff)) << i;
  }
}

// mad.lo.cc sets CC.CF from its addition and madc adds it in (madc ignored the carry; mad.cc set none).
TEST(EmuSemantics, MadCarryChains) {
  const std::vector<uint32_t> in = {0x80000000, 3, 5, 3, 0xffffffff, 0xffffffff, 0x10000, 0x10000};
  const std::string body = R"(	mad.lo.cc.u32 %r3, %r1, %r2, %r1;
	madc.lo.u32 %r4, %r1, %r2, 0;
	mad.hi.cc.u32 %r5, %r1, %r2, %r2;
	madc.hi.cc.u32 %r6, %r1, %r2, %r1;
	addc.u32 %r7, 0, 0;
)" + stores(5);
  const auto got = run_pairs(body, in, 5);
  for (size_t i = 0; i < in.size() / 2; ++i) {
    const uint64_t a = in[2 * i], b = in[2 * i + 1], prod = a * b;
    uint64_t s = (prod & 0xffffffff) + a;
    EXPECT_EQ(got[5 * i], static_cast<uint32_t>(s)) << i;
    EXPECT_EQ(got[5 * i + 1], static_cast<uint32_t>((prod & 0xffffffff) + (s >> 32))) << i;
    s = (prod >> 32) + b;
    EXPECT_EQ(got[5 * i + 2], static_cast<uint32_t>(s)) << i;
    s = (prod >> 32) + a + (s >> 32);
    EXPECT_EQ(got[5 * i + 3], static_cast<uint32_t>(s)) << i;
    EXPECT_EQ(got[5 * i + 4], static_cast<uint32_t>(s >> 32)) << i;
  }
}

// tests/emu/kernels/carry_chains.ptx (scripts/emu-vs-gpu compares it with a GPU): carry chains
// mixing add.cc/addc with sub.cc/subc, as the manual's text defines them: CC.CF after sub.cc and
// subc.cc is the borrow, which subc subtracts (d = a - (b + CF)). Not yet confirmed on hardware:
// another reading makes CF the carry-out of a + ~b + 1 (docs/emulator.md); the GPU will tell.
TEST(EmuSemantics, CarryChainsMixingAdditionsAndSubtractions) {
  const std::string text = emu_kernel("carry_chains.ptx");
  if (have_ptxas()) {
    const auto as = run_ptxas(text, "sm_90");
    EXPECT_TRUE(as.ok) << as.log;
  }
  const uint32_t special[] = {0, 1, 2, 0x7fffffff, 0x80000000, 0xfffffffe, 0xffffffff, 0x12345678, 0xedcba987};
  std::vector<uint32_t> in;
  for (uint32_t i = 0; i < 9 * 9 * 4; ++i) in.push_back(special[(i * 7 + i / 9 + i / 81) % 9]);  // a spread of extremes
  const size_t threads = in.size() / 4;
  EmuRun r;
  r.buffer(in, "in");
  const uint64_t out = r.buffer(std::vector<uint32_t>(threads * 12), "out");
  r.launch(text, "carry_chains", {1, 1, 1}, {static_cast<uint32_t>(threads), 1, 1});
  const auto got = r.read<uint32_t>(out, threads * 12);
  // x < y + cf, exactly
  auto borrow = [](uint64_t x, uint64_t y, uint64_t cf) { return (cf ? x <= y : x < y) ? 1u : 0u; };
  auto carry32 = [](uint64_t x, uint64_t y, uint64_t cf) { return static_cast<uint32_t>((x + y + cf) >> 32); };
  for (size_t t = 0; t < threads; ++t) {
    const uint32_t a = in[4 * t], b = in[4 * t + 1], c = in[4 * t + 2], d = in[4 * t + 3];
    const uint64_t ab = uint64_t{b} << 32 | a, cd = uint64_t{d} << 32 | c;
    const uint32_t bw1 = borrow(d, a, 0), bw2 = borrow(c, b, bw1), y = c - b - bw1, cr3 = carry32(a, c, bw2);
    const uint64_t ab_cd_carry = ab + cd < ab;
    const uint64_t want[12] = {uint32_t(c + d + borrow(a, b, 0)),
                               borrow(a, b, 0),
                               uint32_t(c - d - carry32(a, b, 0)),
                               uint32_t(b - d - borrow(a, c, 0)),
                               borrow(c, d, borrow(a, b, 0)),
                               uint32_t(0 - carry32(c, d, carry32(a, b, 0))),
                               uint32_t(a + c + bw2 + y + (d - a) + cr3),
                               uint32_t(d - c),
                               uint32_t(cd + ab + borrow(ab, cd, 0)),
                               uint32_t((cd + ab + borrow(ab, cd, 0)) >> 32),
                               uint32_t(ab - cd - ab_cd_carry),
                               uint32_t((ab - cd - ab_cd_carry) >> 32)};
    for (size_t k = 0; k < 12; ++k)
      EXPECT_EQ(got[12 * t + k], want[k])
          << "thread " << t << " word " << k << ": " << a << " " << b << " " << c << " " << d;
  }
}

// Shared memory of a kernel and the function it calls: static variables at module scope, in the
// kernel and in the function, each its own; the extern arrays (`[]`) of the module, whichever
// function names them, one dynamic window after all of them. Thread t writes word t of the window
// through kdyn; the function reads word t + 1 through fdyn. (Each extern array had its own offset,
// where the static variables declared after it lay too.)
TEST(EmuSemantics, SharedVariablesOfFunctionsAndOneDynamicWindow) {
  const std::string text = std::string(kHeader) + R"(.extern .shared .align 16 .b8 fdyn[];
.shared .align 4 .u32 ms[4];
.extern .shared .align 8 .b8 kdyn[];

.func (.reg .u32 r, .reg .u32 at) f(.reg .u32 a, .reg .u32 t)
{
	.shared .align 4 .u32 fs[32];
	.reg .u32 %x, %y;
	mov.u32 at, fs;
	shl.b32 %x, t, 2;
	add.u32 %x, at, %x;
	st.shared.u32 [%x], a;
	add.u32 %y, t, 1;
	and.b32 %y, %y, 31;
	shl.b32 %y, %y, 2;
	mov.u32 %x, fdyn;
	add.u32 %x, %x, %y;
	ld.shared.u32 r, [%x];
	ret;
}

.visible .entry t(.param .u64 out)
{
	.shared .align 4 .u32 ks[32];
	.reg .pred %p;
	.reg .u32 %t, %a, %b, %k, %r<10>;
	.reg .u64 %rd<3>;
	ld.param.u64 %rd1, [out];
	mov.u32 %t, %tid.x;
	shl.b32 %a, %t, 2;
	mov.u32 %k, kdyn;
	add.u32 %k, %k, %a;
	mad.lo.u32 %r1, %t, 3, 1;
	st.shared.u32 [%k], %r1;
	mov.u32 %b, ks;
	add.u32 %b, %b, %a;
	st.shared.u32 [%b], 1000;
	setp.eq.u32 %p, %t, 0;
	@%p st.shared.u32 [ms], 11;
	bar.sync 0;
	mul.lo.u32 %r2, %t, 5;
	call (%r3, %r4), f, (%r2, %t);
	bar.sync 0;
	ld.shared.u32 %r5, [%b];
	ld.shared.u32 %r6, [ms];
	ld.shared.u32 %r7, [%k];
	mov.u32 %r8, kdyn;
	mov.u32 %r9, fdyn;
	mov.u32 %r0, ks;
	mov.u32 %r1, ms;
	mov.u32 %r2, %dynamic_smem_size;
	mul.wide.u32 %rd2, %t, 48;
	add.u64 %rd2, %rd1, %rd2;
	st.global.v4.u32 [%rd2], {%r3, %r5, %r6, %r7};
	st.global.v4.u32 [%rd2+16], {%r8, %r9, %r4, %r0};
	st.global.v2.u32 [%rd2+32], {%r1, %r2};
	ret;
}
)";
  expect_assembles(text);
  EmuRun r;
  const uint64_t out = r.buffer(std::vector<uint32_t>(32 * 12), "out");
  r.launch(text, "t", {1, 1, 1}, {32, 1, 1}, 128);
  const auto got = r.read<uint32_t>(out, 32 * 12);
  for (uint32_t t = 0; t < 32; ++t) {
    const uint32_t* w = &got[12 * t];
    EXPECT_EQ(w[0], 3 * ((t + 1) % 32) + 1) << t;  // fdyn is kdyn
    EXPECT_EQ(w[1], 1000u) << t;                   // ks, ms and the window's words unchanged by fs and by each other
    EXPECT_EQ(w[2], 11u) << t;
    EXPECT_EQ(w[3], 3 * t + 1) << t;
    const uint32_t window = w[4], fs = w[6], ks = w[7], ms = w[8];
    EXPECT_EQ(w[5], window) << t;
    EXPECT_EQ(window % 16, 0u) << t;  // and after the static ones:
    for (auto [at, bytes] : {std::pair{fs, 128u}, {ks, 128u}, {ms, 16u}}) EXPECT_GE(window, at + bytes) << t;
    EXPECT_TRUE(fs + 128 <= ks || ks + 128 <= fs) << t;
    EXPECT_EQ(w[9], 128u) << t;
  }
}

// cp.async from a kernel parameter's generic address (cvta.param, which ptxas takes as cp.async's
// .global source), as a generic ld reads it; isspacep.param and cvta.to.param agree. (The address
// was the parameter's offset: an out-of-bounds global read.) ptxas refuses the parameter's name
// itself as the source ("state space mismatch"), and so does the validator.
TEST(EmuSemantics, CpAsyncFromAKernelParameter) {
  const std::string text = std::string(kHeader) + R"(.visible .entry t(.param .align 16 .b8 p[32], .param .u64 out)
{
	.shared .align 16 .b8 s[48];
	.reg .pred %q;
	.reg .b32 %r<16>;
	.reg .b64 %rd<6>;
	ld.param.u64 %rd1, [out];
	mov.u64 %rd2, p;
	cvta.param.u64 %rd3, %rd2;
	cp.async.ca.shared.global [s], [%rd3+16], 16;
	cp.async.cg.shared.global [s+16], [%rd3], 16;
	cp.async.ca.shared.global [s+32], [%rd3+8], 8;
	cp.async.ca.shared.global [s+40], [%rd3+4], 4, 2;
	cp.async.ca.shared.global [s+44], [%rd3+20], 4;
	cp.async.wait_all;
	ld.shared.v4.u32 {%r0, %r1, %r2, %r3}, [s];
	ld.shared.v4.u32 {%r4, %r5, %r6, %r7}, [s+16];
	ld.shared.v4.u32 {%r8, %r9, %r10, %r11}, [s+32];
	ld.u32 %r12, [%rd3+28];
	isspacep.param %q, %rd3;
	selp.u32 %r13, 1, 0, %q;
	cvta.to.param.u64 %rd4, %rd3;
	ld.param.u32 %r14, [%rd4+12];
	st.global.v4.u32 [%rd1], {%r0, %r1, %r2, %r3};
	st.global.v4.u32 [%rd1+16], {%r4, %r5, %r6, %r7};
	st.global.v4.u32 [%rd1+32], {%r8, %r9, %r10, %r11};
	st.global.v4.u32 [%rd1+48], {%r12, %r13, %r14, %r14};
	ret;
}
)";
  expect_assembles(text);
  std::array<uint32_t, 8> p{};
  for (uint32_t i = 0; i < 8; ++i) p[i] = 0x11111111u * (i + 1) + 0x01020304u;
  EmuRun r;
  r.args.push_back(emu::Arg::of(p));
  const uint64_t out = r.buffer(std::vector<uint32_t>(16), "out");
  r.launch(text, "t", {1, 1, 1}, {1, 1, 1});
  const auto got = r.read<uint32_t>(out, 16);
  const uint32_t want[16] = {p[4], p[5], p[6],          p[7], p[0], p[1], p[2], p[3],
                             p[2], p[3], p[1] & 0xffff, p[5], p[7], 1,    p[3], p[3]};
  for (size_t i = 0; i < 16; ++i) EXPECT_EQ(got[i], want[i]) << "word " << i;
}

// cp.async with a src-size below the copy's size reads src-size bytes from a source aligned to the
// copy's size (it was reported as a "misaligned 3-byte load"), and zero-fills the rest.
TEST(EmuSemantics, CpAsyncWithASmallerSourceSize) {
  const std::string text = std::string(kHeader) + R"(.shared .align 16 .b8 s[16];

.visible .entry t(.param .u64 p, .param .u64 out)
{
	.reg .b64 %rd<4>;
	.reg .b32 %r<3>;
	ld.param.u64 %rd1, [p];
	cvta.to.global.u64 %rd2, %rd1;
	mov.u32 %r1, 0xffffffff;
	st.shared.u32 [s], %r1;
	cp.async.ca.shared.global [s], [%rd2], 4, 3;
	cp.async.wait_all;
	ld.shared.u32 %r2, [s];
	ld.param.u64 %rd3, [out];
	st.global.u32 [%rd3], %r2;
	ret;
}
)";
  expect_assembles(text);
  EmuRun r;
  r.buffer(std::vector<uint8_t>{0x11, 0x22, 0x33, 0x44}, "p");
  const uint64_t out = r.buffer(std::vector<uint32_t>{0}, "out");
  r.launch(text, "t", {1, 1, 1}, {1, 1, 1});
  EXPECT_EQ(r.read<uint32_t>(out, 1)[0], 0x00332211u);  // three bytes copied, the fourth zero-filled
}

}  // namespace
}  // namespace ptx::test
