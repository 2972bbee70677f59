// Triton 3.5.1's atomic kernels of tests/corpus/triton (sources in
// tests/corpus/src-real/triton/kernels.py) on the emulator against a plain C++ reference:
// integer atomics with every semantics and scope, f16/f32/f64 atomic adds, exchanges and a
// spin lock built from atom.cas. The inputs make every result independent of the order in
// which programs and threads reach the atomics (exact sums; exchanges checked as multisets).
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <vector>

#include "known_good_util.hpp"

namespace {

using namespace ptx::test::known_good;

// ---- histogram_atomics: a 32-bin histogram of x % 32 added with relaxed atomics, then
// atomic max/min/or of the block's reductions and masked and/xor per element. The kernel's
// masked lanes load 0: they count in bin 0 and take part in max/min/or (tl.histogram and the
// reductions get no mask), not in and/xor.

void check_histogram(const char* arch, int n) {
  const int programs = (n + 255) / 256, masked = programs * 256 - n;
  TritonKernel k(arch, "histogram_atomics");
  Rng rng(60 + n);
  std::vector<int32_t> x(n);
  for (auto& v : x) v = static_cast<int32_t>(0x50000000u | (rng.bits() & 0x0FFFFFFFu));
  const std::vector<int32_t> init = {INT32_MIN, INT32_MAX, 0, -1, -1, -1, -1, 0, 0};
  std::vector<int32_t> want_h(32, 0), want = init;
  for (int i = 0; i < n; ++i) {
    ++want_h[x[i] % 32];
    want[0] = std::max(want[0], x[i]), want[1] = std::min(want[1], x[i]), want[2] |= x[i];
    want[3 + i % 4] &= x[i], want[7 + i % 2] ^= x[i];
  }
  if (masked) want_h[0] += masked, want[1] = std::min(want[1], 0);
  k.pointer("x", x);
  const uint64_t h = k.pointer("h", std::vector<int32_t>(32 + 16, 0));
  auto st_init = init;
  st_init.resize(init.size() + 16, 5);
  const uint64_t st = k.pointer("st", st_init);
  k.scalar("n", int32_t{n});
  k.run({uint32_t(programs)});
  const auto got_h = k.read<int32_t>(h, 32 + 16), got = k.read<int32_t>(st, init.size() + 16);
  for (int b = 0; b < 32; ++b) EXPECT_EQ(got_h[b], want_h[b]) << "bin " << b;
  for (size_t i = 0; i < init.size(); ++i) EXPECT_EQ(got[i], want[i]) << "stats[" << i << "]";
  for (size_t i = 32; i < got_h.size(); ++i) EXPECT_EQ(got_h[i], 0) << "past the histogram at " << i;
  for (size_t i = init.size(); i < got.size(); ++i) EXPECT_EQ(got[i], 5) << "past the stats at " << i;
}
TEST(EmuKnownGood, HistogramAtomicsSm80) {
  check_histogram("sm_80", 1024);
  check_histogram("sm_80", 1000);
}
TEST(EmuKnownGood, HistogramAtomicsSm90a) {
  check_histogram("sm_90a", 1024);
  check_histogram("sm_90a", 1000);
}
TEST(EmuKnownGood, HistogramAtomicsSm100a) {
  check_histogram("sm_100a", 1024);
  check_histogram("sm_100a", 1000);
}

// ---- atomic_float_scatter: v[i] added at idx[i] in f32, f16 and f64 (values k/8, at most a
// few dozen per slot: every sum exact), then exchanged into slot n + idx[i], the old value
// written back to v[i]. The exchanges' order is the scheduler's, so per slot the multiset
// {olds returned} + {final value} must equal {initial value} + {values exchanged in}.

void check_atomic_scatter(const char* arch) {
  const int n = 600, slots = 37;
  TritonKernel k(arch, "atomic_float_scatter");
  Rng rng(61);
  std::vector<int32_t> idx(n);
  for (auto& i : idx) i = rng.uniform(0, slots - 1);
  const auto vs = small_values(n, 62, 16, 0.125);
  const std::vector<float> v(vs.begin(), vs.end());
  std::vector<float> o32(n + slots + 16, 0.0f);
  for (int j = 0; j < slots; ++j) o32[n + j] = -100.0f - j;  // distinct initial values of the exchanged slots
  k.pointer("idx", idx);
  const uint64_t va = k.pointer("v", v);
  const uint64_t a32 = k.pointer("o32", o32);
  const uint64_t a16 = k.pointer("o16", std::vector<uint16_t>(slots + 16, 0));
  const uint64_t a64 = k.pointer("o64", std::vector<double>(slots + 16, 0.0));
  k.scalar("n", int32_t{n});
  k.run({(n + 255) / 256});
  const auto got32 = k.read<float>(a32, n + slots + 16), olds = k.read<float>(va, n);
  const auto got16 = k.read<uint16_t>(a16, slots + 16);
  const auto got64 = k.read<double>(a64, slots + 16);
  for (int j = 0; j < slots; ++j) {
    double sum = 0;
    std::vector<float> in = {o32[n + j]}, out = {got32[n + j]};
    for (int i = 0; i < n; ++i)
      if (idx[i] == j) sum += v[i], in.push_back(v[i]), out.push_back(olds[i]);
    EXPECT_EQ(got32[j], sum) << "f32 sum at " << j;
    EXPECT_EQ(from_f16(got16[j]), sum) << "f16 sum at " << j;
    EXPECT_EQ(got64[j], sum) << "f64 sum at " << j;
    std::sort(in.begin(), in.end());
    std::sort(out.begin(), out.end());
    EXPECT_EQ(out, in) << "exchanges at slot " << j;
  }
  for (int i = slots; i < n; ++i) ASSERT_EQ(got32[i], 0.0f) << "o32 at " << i;
  for (int i = n + slots; i < n + slots + 16; ++i) ASSERT_EQ(got32[i], 0.0f) << "o32 at " << i;
  for (int i = slots; i < slots + 16; ++i) ASSERT_EQ(got16[i], 0) << "o16 at " << i;
  for (int i = slots; i < slots + 16; ++i) ASSERT_EQ(got64[i], 0.0) << "o64 at " << i;
}
TEST(EmuKnownGood, AtomicFloatScatterSm80) { check_atomic_scatter("sm_80"); }
TEST(EmuKnownGood, AtomicFloatScatterSm90a) { check_atomic_scatter("sm_90a"); }
TEST(EmuKnownGood, AtomicFloatScatterSm100a) { check_atomic_scatter("sm_100a"); }

// ---- layernorm_bwd_dx: dx per row; dw per group of rows (row % 32) accumulated in f16 under a
// spin lock (atom.cas to take it, atom.exch to give it back; a counter marks the first row).
// 40 rows: groups 0..7 get two rows, contending for their lock. x, dy, w = k/16, mean = k/16
// and rstd a power of two: xhat, w*dy and their products are exact, and so are the sums of
// xhat*wdy and wdy (|sum| < 2^24 quanta), so dw is exact and dx only meets the division by n.

void check_layernorm_bwd(const char* arch) {
  const int rows = 40, n = 1000, stride = 1008, group = 32;
  TritonKernel k(arch, "layernorm_bwd_dx");
  const auto xs = small_values(rows * stride, 63, 16, 0x1p-4), dys = small_values(rows * stride, 64, 16, 0x1p-4),
             ws = small_values(n, 65, 16, 0x1p-4), means = small_values(rows, 66, 8, 0x1p-4);
  std::vector<float> mean(rows), rstd(rows);
  for (int r = 0; r < rows; ++r) mean[r] = static_cast<float>(means[r]), rstd[r] = std::ldexp(1.0f, r % 3 - 1);
  k.pointer("dy", as_f16(dys));
  k.pointer("x", as_f16(xs));
  k.pointer("w", as_f16(ws));
  k.pointer("mean", mean);
  k.pointer("rstd", rstd);
  const uint64_t dx = k.pointer("dx", std::vector<uint16_t>(rows * stride, 0x7E00));
  const uint64_t dw = k.pointer("dw", std::vector<uint16_t>(group * n + 16, 0x7E00));
  const uint64_t lock = k.pointer("lock", std::vector<int32_t>(2 * group + 16, 0));
  k.scalar("stride", int32_t{stride});
  k.scalar("n", int32_t{n});
  k.run({rows});
  const auto dx_bits = k.read<uint16_t>(dx, rows * stride);
  std::vector<double> got_dx(rows * n), want_dx(rows * n), tol(rows * n), want_dw(group * n, -0.0);  // -0: the first row's product keeps its sign
  for (int r = 0; r < rows; ++r) {
    double c1 = 0, c2 = 0;
    for (int c = 0; c < n; ++c) {
      const double xhat = (xs[r * stride + c] - mean[r]) * rstd[r], wdy = ws[c] * dys[r * stride + c];
      c1 += xhat * wdy / n, c2 += wdy / n;
      want_dw[(r % group) * n + c] += dys[r * stride + c] * xhat;
    }
    for (int c = 0; c < n; ++c) {
      const double xhat = (xs[r * stride + c] - mean[r]) * rstd[r], wdy = ws[c] * dys[r * stride + c];
      const double v = (wdy - (xhat * c1 + c2)) * rstd[r];
      // c1, c2 are within 2 ulp (div.full), the f32 sums round on |terms|, then f16 half an ulp
      got_dx[r * n + c] = from_f16(dx_bits[r * stride + c]), want_dx[r * n + c] = v;
      tol[r * n + c] = 0x1p-11 * std::fabs(v) + 0x1p-20 * rstd[r] * (std::fabs(wdy) + std::fabs(xhat * c1) + std::fabs(c2)) + 0x1p-25;
    }
    for (int c = n; c < stride; ++c) ASSERT_EQ(dx_bits[r * stride + c], 0x7E00) << "masked dx store at " << r << ", " << c;
  }
  expect_within(got_dx, want_dx, tol, "dx");
  const auto dw_bits = k.read<uint16_t>(dw, group * n + 16);
  for (int i = 0; i < group * n; ++i) ASSERT_EQ(dw_bits[i], f16_bits(want_dw[i])) << "dw[" << i / n << "][" << i % n << "]";
  for (int i = group * n; i < group * n + 16; ++i) ASSERT_EQ(dw_bits[i], 0x7E00) << "past dw at " << i;
  const auto locks = k.read<int32_t>(lock, 2 * group + 16);
  for (int g = 0; g < group; ++g) EXPECT_EQ(locks[g], 0) << "lock " << g << " released";
  for (int g = 0; g < group; ++g) EXPECT_EQ(locks[group + g], 1) << "count " << g;
}
TEST(EmuKnownGood, LayernormBwdDxSm80) { check_layernorm_bwd("sm_80"); }
TEST(EmuKnownGood, LayernormBwdDxSm90a) { check_layernorm_bwd("sm_90a"); }
TEST(EmuKnownGood, LayernormBwdDxSm100a) { check_layernorm_bwd("sm_100a"); }

}  // namespace
