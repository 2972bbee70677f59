// Triton 3.5.1's element-wise kernels of tests/corpus/triton (sources in
// tests/corpus/src-real/triton/kernels.py) on the emulator against a plain C++ reference:
// libdevice math, integer ops, Philox random numbers, fp8 conversions, gathers and layout
// shuffles. Where a kernel uses approximate instructions (ex2/rsqrt/sqrt/rcp/div .approx or
// div.full) the tolerance is derived from their documented error bounds; everything else is
// compared bit for bit.
#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <bit>
#include <cmath>
#include <cstdint>
#include <tuple>
#include <vector>

#include "known_good_util.hpp"

namespace {

using namespace ptx::test::known_good;

// A buffer of n elements and 16 more, all `fill` (the 16 catch a store past the mask).
template <class T>
std::vector<T> guarded(size_t n, T fill) {
  return std::vector<T>(n + 16, fill);
}
template <class T>
void expect_untouched(const std::vector<T>& got, size_t from, T fill, const char* what) {
  for (size_t i = from; i < got.size(); ++i) ASSERT_EQ(got[i], fill) << what << ": masked store at " << i;
}

// ---- vector_add_unaligned: vector_add compiled without 16-byte divisibility (2 warps, BLOCK
// 256: scalar loads), given pointers 4, 8 and 12 bytes past a 16-byte boundary.

TEST(EmuKnownGood, VectorAddUnalignedSm80) {
  const int n = 700;
  TritonKernel k("sm_80", "vector_add_unaligned");
  const auto xs = small_values(n + 3, 56, 1 << 20, 0x1p-12), ys = small_values(n + 3, 57, 1 << 20, 0x1p-7);
  const std::vector<float> x(xs.begin(), xs.end()), y(ys.begin(), ys.end());
  const uint64_t xa = k.allocate(x), ya = k.allocate(y), oa = k.allocate(guarded<float>(n + 3, -1.0f));
  k.pointer_at("x", xa + 4);
  k.pointer_at("y", ya + 8);
  k.pointer_at("out", oa + 12);
  k.scalar("n", int32_t{n});
  k.run({(n + 255) / 256});
  const auto got = k.read<float>(oa, n + 3 + 16);
  for (int i = 0; i < 3; ++i) ASSERT_EQ(got[i], -1.0f) << "store before out at " << i;
  for (int i = 0; i < n; ++i) ASSERT_EQ(got[i + 3], x[i + 1] + y[i + 2]) << i;
  expect_untouched(got, n + 3, -1.0f, "out");
}

// ---- activations: fp16 x, f32 erf-GELU, SiLU (ex2.approx + div.full) and tanh, fp16 out.

void check_activations(const char* arch) {
  const int n = 1008;  // n is specialized as a multiple of 16; the last program is masked
  const uint16_t fill = 0x7E00;
  TritonKernel k(arch, "activations");
  const auto xs = small_values(n, 40, 320, 0x1p-5);  // [-10, 10]: erf and tanh saturate at both ends
  k.pointer("x", as_f16(xs));
  const uint64_t g = k.pointer("g", guarded<uint16_t>(n, fill));
  const uint64_t s = k.pointer("s", guarded<uint16_t>(n, fill));
  const uint64_t t = k.pointer("t", guarded<uint16_t>(n, fill));
  k.scalar("n", int32_t{n});
  k.run({(n + 255) / 256});
  std::vector<double> gelu(n), silu(n), tanh(n);
  for (int i = 0; i < n; ++i) {
    const double x = xs[i];
    gelu[i] = 0.5 * x * (1 + std::erf(x / std::sqrt(2.0)));
    silu[i] = x / (1 + std::exp(-x));
    tanh[i] = std::tanh(x);
  }
  // Rounding to f16 is half an ulp (<= 2^-11 relative); the f32 math adds a few f32 ulps, and
  // 1 + erf(x) cancels for x below -3 (|x| * 2^-23 absolute).
  for (auto [buf, want, what] : {std::tuple{g, &gelu, "gelu"}, {s, &silu, "silu"}, {t, &tanh, "tanh"}}) {
    const auto got = k.read<uint16_t>(buf, n + 16);
    expect_near(decode_f16({got.begin(), got.begin() + n}), *want, 0x1p-10, 1e-6, what);
    expect_untouched(got, n, fill, what);
  }
}
TEST(EmuKnownGood, ActivationsSm80) { check_activations("sm_80"); }
TEST(EmuKnownGood, ActivationsSm90a) { check_activations("sm_90a"); }
TEST(EmuKnownGood, ActivationsSm100a) { check_activations("sm_100a"); }

// ---- math_mix: libdevice sin/cos/pow/atan2/fmod/log, ex2/sqrt/rsqrt/rcp/div .approx, the
// rounding conversions (floor, ceil, rint: half to even), clamps, div.rn, sqrt.rn, fma and an
// f64 multiply. x = k/64 in [-1.5, 3] (d + 7 stays away from 0; rint meets exact halves).

struct MathMix {
  double value, magnitude;  // the result and the sum of its terms' magnitudes (for the error bound)
};

MathMix math_mix_reference(double x) {
  const double a = std::exp(x) + std::log(std::fabs(x) + 1) + std::sqrt(std::fabs(x)) + 1 / std::sqrt(x * x + 1);
  const double b1 = std::sin(x) * std::cos(x), b2 = std::exp2(-x), b3 = std::log2(x * x + 2);
  const double c1 = std::pow(std::fabs(x), 1.5), c2 = std::atan2(x, 2.0), c3 = std::fmod(x, 3.0);
  const double d = std::floor(x) + std::ceil(x) + std::nearbyint(x) + std::clamp(x, -2.0, 2.0);
  const double q = (c1 + c2 + c3) / (d + 7);
  const double e = x * a + (b1 + b2 + b3) + q + std::sqrt(a);
  const double mag = std::fabs(x) * a + std::fabs(b1) + b2 + b3 + (c1 + std::fabs(c2) + std::fabs(c3)) / std::fabs(d + 7) + std::sqrt(a);
  return {e * 1.0000001, mag};
}

void check_math_mix(const char* arch) {
  const int n = 300;
  TritonKernel k(arch, "math_mix");
  Rng rng(41);
  std::vector<float> x(n);
  for (auto& v : x) v = static_cast<float>(rng.uniform(-96, 192) * 0x1p-6);
  k.pointer("x", x);
  const uint64_t o = k.pointer("o", guarded<float>(n, -7.0f));
  k.scalar("n", int32_t{n});
  k.run({(n + 127) / 128});
  std::vector<double> want(n), tol(n);
  for (int i = 0; i < n; ++i) {
    const MathMix r = math_mix_reference(x[i]);
    // ex2/rsqrt/sqrt/rcp/div .approx are within 2^-21 relative, libdevice within 2 ulp (2^-22):
    // 2^-18 of the terms' magnitudes bounds their sum with room for the f32 roundings between.
    want[i] = r.value, tol[i] = 0x1p-18 * r.magnitude;
  }
  const auto got = k.read<float>(o, n + 16);
  expect_within(widen(std::vector<float>(got.begin(), got.begin() + n)), want, tol, "math_mix");
  expect_untouched(got, n, -7.0f, "math_mix");
}
TEST(EmuKnownGood, MathMixSm80) { check_math_mix("sm_80"); }
TEST(EmuKnownGood, MathMixSm90a) { check_math_mix("sm_90a"); }
TEST(EmuKnownGood, MathMixSm100a) { check_math_mix("sm_100a"); }
TEST(EmuKnownGood, MathMixSm120a) { check_math_mix("sm_120a"); }

// ---- int_ops: div/rem (C semantics), shifts, logic, mul.hi, popc, clz, brev, min/max in
// 32-bit wrapping arithmetic, plus a 64-bit product shifted right: exact.

int64_t int_ops_reference(int32_t a, int32_t b) {
  if (b == 0) b = 1;
  const uint32_t ua = static_cast<uint32_t>(a), ub = static_cast<uint32_t>(b);
  uint32_t r = static_cast<uint32_t>(a / b) + static_cast<uint32_t>(a % b) + (ua << 3) + static_cast<uint32_t>(a >> 2) + (ua & ub) +
               (ua | ub) + (ua ^ ub);
  r += static_cast<uint32_t>((uint64_t{ua} * ub) >> 32);
  uint32_t rev = 0;
  for (int i = 0; i < 32; ++i) rev |= ((ua >> i) & 1u) << (31 - i);
  r += static_cast<uint32_t>(std::popcount(ua)) + static_cast<uint32_t>(std::countl_zero(ub)) + rev;
  r += static_cast<uint32_t>(std::max(a, b)) - static_cast<uint32_t>(std::min(a, b));
  return int64_t{static_cast<int32_t>(r)} + ((int64_t{a} * b) >> 7);
}

void check_int_ops(const char* arch) {
  const int n = 300;
  TritonKernel k(arch, "int_ops");
  Rng rng(42);
  std::vector<int32_t> a(n), b(n);
  const int32_t edges[] = {0, 1, -1, 2, -2, 7, -7, INT32_MAX, INT32_MIN + 1, 0x40000000};
  for (int i = 0; i < n; ++i) {
    a[i] = static_cast<int32_t>(i % 3 == 0 ? rng.bits() : rng.bits() >> 20) * (i % 2 ? -1 : 1);
    b[i] = i < 40 ? edges[i % 10] : static_cast<int32_t>(i % 5 == 0 ? rng.bits() : rng.bits() >> 24) * (i % 4 < 2 ? -1 : 1);
    if (a[i] == INT32_MIN) a[i] = INT32_MIN + 1;  // INT32_MIN / -1 has no value
  }
  for (int i = 0; i < 10; ++i) a[i + 100] = edges[i], b[i + 100] = edges[9 - i];
  k.pointer("a", a);
  k.pointer("b", b);
  const uint64_t o = k.pointer("o", guarded<int64_t>(n, -5));
  k.scalar("n", int32_t{n});
  k.run({(n + 127) / 128});
  const auto got = k.read<int64_t>(o, n + 16);
  for (int i = 0; i < n; ++i) ASSERT_EQ(got[i], int_ops_reference(a[i], b[i])) << "a = " << a[i] << ", b = " << b[i];
  expect_untouched(got, n, int64_t{-5}, "int_ops");
}
TEST(EmuKnownGood, IntOpsSm80) { check_int_ops("sm_80"); }
TEST(EmuKnownGood, IntOpsSm90a) { check_int_ops("sm_90a"); }
TEST(EmuKnownGood, IntOpsSm100a) { check_int_ops("sm_100a"); }

// ---- dropout: tl.rand / tl.randn are Philox4x32-10 on (seed, offset) (the PTX's constants),
// made uniform as (i ^ (i >> 31)) * 0x1.fffffep-32 in f32 (bit-exact, so keep/drop is exact);
// randn is Box-Muller with libdevice log/cos.

std::array<uint32_t, 4> philox(int32_t seed, uint32_t counter) {  // the key: the seed sign-extended to 64 bits
  std::array<uint32_t, 4> c{counter, 0, 0, 0};
  uint32_t k0 = static_cast<uint32_t>(seed), k1 = seed < 0 ? ~0u : 0u;
  for (int round = 0; round < 10; ++round) {
    const uint64_t p0 = uint64_t{0xD2511F53u} * c[0], p1 = uint64_t{0xCD9E8D57u} * c[2];
    c = {static_cast<uint32_t>(p1 >> 32) ^ c[1] ^ k0, static_cast<uint32_t>(p1), static_cast<uint32_t>(p0 >> 32) ^ c[3] ^ k1,
         static_cast<uint32_t>(p0)};
    k0 += 0x9E3779B9u, k1 += 0xBB67AE85u;
  }
  return c;
}
float uniform_of(uint32_t bits) {
  const int32_t i = static_cast<int32_t>(bits);
  return static_cast<float>(i ^ (i >> 31)) * 0x1.fffffep-32f;
}

void check_dropout(const char* arch, int32_t seed) {
  const int n = 1000;
  const float p = 0.3f;
  TritonKernel k(arch, "dropout");
  const auto xs = small_values(n, 43, 256, 0x1p-6);
  k.pointer("x", std::vector<float>(xs.begin(), xs.end()));
  const uint64_t o = k.pointer("o", guarded<float>(2 * n, -9.0f));
  k.scalar("n", int32_t{n});
  k.scalar("p", p);
  k.scalar("seed", seed);
  k.run({(n + 255) / 256});
  const auto got = k.read<float>(o, 2 * n + 16);
  int kept = 0;
  for (int i = 0; i < n; ++i) {
    const float x = static_cast<float>(xs[i]);
    if (uniform_of(philox(seed, i)[0]) > p) {
      ++kept;
      EXPECT_NEAR(got[i], x / (1 - p), 0x1p-21 * std::fabs(x / (1 - p))) << i;  // div.full: 2 ulp
    } else {
      EXPECT_EQ(got[i], 0.0f) << i;
    }
    const auto r = philox(seed + 1, i);
    const float u1 = std::max(uniform_of(r[0]), 1e-7f), theta = 6.28318530718f * uniform_of(r[1]);
    const double noise = std::sqrt(-2 * std::log(double{u1})) * std::cos(double{theta});
    // libdevice log/cos and sqrt: a few ulp of the noise; the sum rounds once
    EXPECT_NEAR(got[n + i], x + 0.01 * noise, 0x1p-20 * (std::fabs(x) + 0.01 * std::fabs(noise))) << n + i;
  }
  EXPECT_GT(kept, n / 2);
  EXPECT_LT(kept, n * 9 / 10);
  expect_untouched(got, 2 * n, -9.0f, "dropout");
}
TEST(EmuKnownGood, DropoutSm80) { check_dropout("sm_80", 1234); }
TEST(EmuKnownGood, DropoutSm90a) { check_dropout("sm_90a", 1234); }
TEST(EmuKnownGood, DropoutSm100a) { check_dropout("sm_100a", 1234); }
TEST(EmuKnownGood, DropoutNegativeSeedSm80) { check_dropout("sm_80", -77); }  // the key's high word is all ones

// ---- fp8_quantize: per-program absmax scale 448/amax, cvt.rn.satfinite to e4m3 and e5m2
// (round to nearest even, here computed on the host), and back through f16 to bf16.

// The fp8 code of v rounded to nearest even, saturated at the largest finite value
// (e4m3: 3 mantissa bits, bias 7, max 448; e5m2: 2 bits, bias 15, max 57344).
uint8_t fp8_round(double v, int mant, int bias, double max) {
  const uint8_t sign = std::signbit(v) ? 0x80 : 0;
  const double a = std::min(std::fabs(v), max);
  const int emin = 1 - bias;
  int e = a == 0 ? emin : std::max(std::ilogb(a), emin);
  const double quantum = std::ldexp(1.0, e - mant);
  const double q = std::min(std::nearbyint(a / quantum) * quantum, max);
  if (q < std::ldexp(1.0, emin)) return sign | static_cast<uint8_t>(q / std::ldexp(1.0, emin - mant));  // subnormal
  e = std::ilogb(q);
  return sign | static_cast<uint8_t>((e + bias) << mant) | static_cast<uint8_t>(q / std::ldexp(1.0, e - mant) - (1 << mant));
}
double from_e4m3(uint8_t b) {
  const int e = (b >> 3) & 15, m = b & 7;
  const double mag = e == 0 ? std::ldexp(m, -9) : std::ldexp(8 + m, e - 10);
  return b & 0x80 ? -mag : mag;
}

void check_fp8_quantize(const char* arch) {
  // Three programs of 512: amax 448 (scale 1), amax 4 and amax 0.5 (scales 112 and 896; amax a
  // power of two keeps div.full's 448 / amax exact), the last one masked after 376 elements.
  const int n = 1400;
  TritonKernel k(arch, "fp8_quantize");
  Rng rng(44);
  std::vector<float> x(n);
  const double unit[3] = {0x1p-2, 0x1p-6, 0x1p-9}, amax[3] = {448, 4, 0.5};
  for (int i = 0; i < n; ++i) x[i] = static_cast<float>(rng.uniform(-int(amax[i / 512] / unit[i / 512]), int(amax[i / 512] / unit[i / 512])) * unit[i / 512]);
  for (int b = 0; b < 3; ++b) x[b * 512 + 77] = static_cast<float>(b == 1 ? -amax[b] : amax[b]);
  // e4m3 subnormals (steps of 2^-9) and e5m2 subnormals (steps of 2^-16), ties included, at scale 1
  for (int i = 100; i < 140; ++i) x[i] = static_cast<float>((i - 120) * (i < 130 ? 0x1p-11 : 0x1p-17));
  const uint64_t xa = k.pointer("x", x);
  const uint64_t q = k.pointer("q", guarded<uint8_t>(2 * n, 0x5A));
  const uint64_t s = k.pointer("s", guarded<float>(3, -1.0f));
  k.scalar("n", int32_t{n});
  k.run({3});
  const auto got_q = k.read<uint8_t>(q, 2 * n + 16);
  const auto got_x = k.read<float>(xa, n);
  const auto got_s = k.read<float>(s, 3 + 16);
  for (int i = 0; i < n; ++i) {
    const double scale = 448 / amax[i / 512];
    const uint8_t e4m3 = fp8_round(x[i] * scale, 3, 7, 448);
    ASSERT_EQ(got_q[i], e4m3) << "e4m3 of " << x[i] << " * " << scale;
    ASSERT_EQ(got_q[n + i], fp8_round(x[i], 2, 15, 57344)) << "e5m2 of " << x[i];
    // q / scale by div.full (2 ulp), then bf16: within one bf16 ulp (exact when scale = 1)
    const double back = from_e4m3(e4m3) / scale;
    ASSERT_NEAR(got_x[i], back, scale == 1 ? 0 : 0x1p-8 * std::fabs(back)) << i;
  }
  for (int b = 0; b < 3; ++b) EXPECT_NEAR(got_s[b], amax[b] / 448, 0x1p-22 * amax[b] / 448) << b;
  expect_untouched(got_q, 2 * n, uint8_t{0x5A}, "q");
  expect_untouched(got_s, 3, -1.0f, "scale");
}
TEST(EmuKnownGood, Fp8QuantizeSm90a) { check_fp8_quantize("sm_90a"); }
TEST(EmuKnownGood, Fp8QuantizeSm100a) { check_fp8_quantize("sm_100a"); }

// ---- gather_embedding: out[t] = table[ids[t]] + pos[t % 512] (f32 adds: exact as on the host).

void check_gather_embedding(const char* arch) {
  const int tokens = 530, dim = 96, vocab = 50;  // 34 programs of 16 tokens; t % 512 wraps
  TritonKernel k(arch, "gather_embedding");
  Rng rng(45);
  std::vector<int32_t> ids(tokens);
  for (auto& id : ids) id = rng.uniform(0, vocab - 1);
  const auto ts = small_values(size_t(vocab) * dim, 46, 1 << 20, 0x1p-12), ps = small_values(size_t(512) * dim, 47, 1 << 20, 0x1p-15);
  const std::vector<float> table(ts.begin(), ts.end()), pos(ps.begin(), ps.end());
  k.pointer("ids", ids);
  k.pointer("t", table);
  const uint64_t o = k.pointer("o", guarded<float>(size_t(tokens) * dim, -3.0f));
  k.pointer("p", pos);
  k.scalar("n", int32_t{tokens});
  k.scalar("dim", int32_t{dim});
  k.run({(tokens + 15) / 16});
  const auto got = k.read<float>(o, size_t(tokens) * dim + 16);
  for (int t = 0; t < tokens; ++t)
    for (int d = 0; d < dim; ++d)
      ASSERT_EQ(got[t * dim + d], table[ids[t] * dim + d] + pos[(t % 512) * dim + d]) << "token " << t << ", " << d;
  expect_untouched(got, size_t(tokens) * dim, -3.0f, "out");
}
TEST(EmuKnownGood, GatherEmbeddingSm80) { check_gather_embedding("sm_80"); }
TEST(EmuKnownGood, GatherEmbeddingSm90a) { check_gather_embedding("sm_90a"); }
TEST(EmuKnownGood, GatherEmbeddingSm100a) { check_gather_embedding("sm_100a"); }

// ---- rope: out[s] = (x1 c - x2 sn, x1 sn + x2 c) over the two halves of each row (split,
// join, permutes). Inputs k/64: the products and sums are exact, fused or not.

void check_rope(const char* arch) {
  const int seq = 50, half = 32;
  TritonKernel k(arch, "rope");
  const auto xs = small_values(seq * 2 * half, 48, 64, 0x1p-6), cs = small_values(seq * half, 49, 64, 0x1p-6),
             ss = small_values(seq * half, 50, 64, 0x1p-6);
  k.pointer("x", std::vector<float>(xs.begin(), xs.end()));
  k.pointer("c", std::vector<float>(cs.begin(), cs.end()));
  k.pointer("s", std::vector<float>(ss.begin(), ss.end()));
  const uint64_t o = k.pointer("o", guarded<float>(seq * 2 * half, -3.0f));
  k.scalar("seq", int32_t{seq});
  k.run({(seq + 31) / 32});
  const auto got = k.read<float>(o, seq * 2 * half + 16);
  for (int s = 0; s < seq; ++s)
    for (int h = 0; h < half; ++h) {
      const double x1 = xs[s * 2 * half + h], x2 = xs[s * 2 * half + half + h], c = cs[s * half + h], sn = ss[s * half + h];
      ASSERT_EQ(got[s * 2 * half + h], x1 * c - x2 * sn) << s << ", " << h;
      ASSERT_EQ(got[s * 2 * half + half + h], x1 * sn + x2 * c) << s << ", " << half + h;
    }
  expect_untouched(got, seq * 2 * half, -3.0f, "out");
}
TEST(EmuKnownGood, RopeSm80) { check_rope("sm_80"); }
TEST(EmuKnownGood, RopeSm90a) { check_rope("sm_90a"); }
TEST(EmuKnownGood, RopeSm100a) { check_rope("sm_100a"); }

// ---- transpose2d: the tile stored transposed twice (by addressing, and through tl.trans in
// shared memory). M = 96, N = 80: 64 x 64 tiles, masked at both edges.

void check_transpose(const char* arch) {
  const int m = 96, n = 80;
  TritonKernel k(arch, "transpose2d");
  std::vector<uint16_t> in(m * n);
  for (int i = 0; i < m * n; ++i) in[i] = static_cast<uint16_t>((i * 7 + 1) % 0x7C00);  // distinct finite bit patterns
  k.pointer("i", in);
  const uint64_t o = k.pointer("o", guarded<uint16_t>(2 * m * n, 0xFFFF));
  k.scalar("M", int32_t{m});
  k.scalar("N", int32_t{n});
  k.run({(m + 63) / 64, (n + 63) / 64});
  const auto got = k.read<uint16_t>(o, 2 * m * n + 16);
  for (int r = 0; r < m; ++r)
    for (int c = 0; c < n; ++c) {
      ASSERT_EQ(got[c * m + r], in[r * n + c]) << "out[" << c << "][" << r << "]";
      ASSERT_EQ(got[m * n + c * m + r], in[r * n + c]) << "tl.trans out[" << c << "][" << r << "]";
    }
  expect_untouched(got, 2 * m * n, uint16_t{0xFFFF}, "out");
}
TEST(EmuKnownGood, Transpose2dSm80) { check_transpose("sm_80"); }
TEST(EmuKnownGood, Transpose2dSm90a) { check_transpose("sm_90a"); }
TEST(EmuKnownGood, Transpose2dSm100a) { check_transpose("sm_100a"); }

}  // namespace
