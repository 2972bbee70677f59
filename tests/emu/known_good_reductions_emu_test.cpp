// Triton 3.5.1's reductions, scans and sorts of tests/corpus/triton (sources in
// tests/corpus/src-real/triton/kernels.py) on the emulator against a plain C++ reference: warp
// shuffles and shared-memory trees, custom combine functions, argmax ties, bitonic sorts and an
// online log-sum-exp. Inputs are chosen so that every sum is exact in f32 whatever the order;
// where exp/log/div are approximate the tolerance says why.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <vector>

#include "known_good_util.hpp"

namespace {

using namespace ptx::test::known_good;

template <class T>
std::vector<T> guarded(size_t n, T fill) {  // n elements and 16 more (a store past the mask shows)
  return std::vector<T>(n + 16, fill);
}
template <class T>
void expect_untouched(const std::vector<T>& got, size_t from, T fill, const char* what) {
  for (size_t i = from; i < got.size(); ++i) ASSERT_EQ(got[i], fill) << what << ": masked store at " << i;
}

// ---- row_reductions: sum, max, argmax (first index of the maximum), min and a product over
// rows of 50 values of +-2^e (|e| <= 2: sums and products exact). Columns 50..63 are the
// kernel's padding: zero for sum/max/argmax, excluded from min and prod. Row 3 is all negative
// (its max is a padding zero, its argmax column 50).

void check_row_reductions(const char* arch) {
  const int m = 10, n = 50;
  TritonKernel k(arch, "row_reductions");
  Rng rng(51);
  std::vector<float> x(m * n);
  for (int i = 0; i < m * n; ++i) {
    const bool negative = i / n == 3 || rng.uniform(0, 1);
    x[i] = std::ldexp(negative ? -1.0f : 1.0f, rng.uniform(-2, 2));
  }
  k.pointer("x", x);
  const uint64_t s = k.pointer("s", guarded<float>(m, -1)), mx = k.pointer("mx", guarded<float>(m, -1)),
                 am = k.pointer("am", guarded<int32_t>(m, -1)), mn = k.pointer("mn", guarded<float>(m, -1)),
                 p = k.pointer("p", guarded<float>(m, -1));
  k.scalar("M", int32_t{m});
  k.scalar("N", int32_t{n});
  k.run({(m + 3) / 4});
  const auto got_s = k.read<float>(s, m + 16), got_mx = k.read<float>(mx, m + 16), got_mn = k.read<float>(mn, m + 16),
             got_p = k.read<float>(p, m + 16);
  const auto got_am = k.read<int32_t>(am, m + 16);
  for (int r = 0; r < m; ++r) {
    double sum = 0, prod = 1, lo = INFINITY, hi = 0;  // hi starts at the padding's zero
    int arg = n;
    for (int c = 0; c < n; ++c) {
      const double v = x[r * n + c];
      sum += v, prod *= v, lo = std::min(lo, v);
      if (v > hi || (v == hi && c < arg)) hi = v, arg = c;
    }
    EXPECT_EQ(got_s[r], sum) << "sum of row " << r;
    EXPECT_EQ(got_mx[r], hi) << "max of row " << r;
    EXPECT_EQ(got_am[r], arg) << "argmax of row " << r;
    EXPECT_EQ(got_mn[r], lo) << "min of row " << r;
    EXPECT_EQ(got_p[r], prod) << "product of row " << r;
  }
  expect_untouched(got_s, m, -1.0f, "sum");
  expect_untouched(got_am, m, -1, "argmax");
}
TEST(EmuKnownGood, RowReductionsSm80) { check_row_reductions("sm_80"); }
TEST(EmuKnownGood, RowReductionsSm90a) { check_row_reductions("sm_90a"); }
TEST(EmuKnownGood, RowReductionsSm100a) { check_row_reductions("sm_100a"); }

// ---- welford_col_stats: column mean and population variance by a three-value Welford
// reduction over 16 x 32 tiles; M = 40 (a masked row tail), N = 70 (masked columns).

void check_welford(const char* arch) {
  const int m = 40, n = 70;
  TritonKernel k(arch, "welford_col_stats");
  const auto xs = small_values(m * n, 52, 64, 0x1p-4);  // [-4, 4]
  k.pointer("x", std::vector<float>(xs.begin(), xs.end()));
  const uint64_t mean = k.pointer("mean", guarded<float>(n, -1)), var = k.pointer("var", guarded<float>(n, -1));
  k.scalar("M", int32_t{m});
  k.scalar("N", int32_t{n});
  k.run({(n + 31) / 32});
  std::vector<double> want_mean(n, 0), want_var(n, 0);
  for (int c = 0; c < n; ++c) {
    for (int r = 0; r < m; ++r) want_mean[c] += xs[r * n + c] / m;
    for (int r = 0; r < m; ++r) want_var[c] += (xs[r * n + c] - want_mean[c]) * (xs[r * n + c] - want_mean[c]) / m;
  }
  // Welford's updates round at each of ~45 steps (a division each): a few f32 ulps of |x| <= 4
  const auto got_mean = k.read<float>(mean, n + 16), got_var = k.read<float>(var, n + 16);
  expect_near(widen(std::vector<float>(got_mean.begin(), got_mean.begin() + n)), want_mean, 0, 4 * 0x1p-18, "mean");
  expect_near(widen(std::vector<float>(got_var.begin(), got_var.begin() + n)), want_var, 0x1p-17, 0, "var");
  expect_untouched(got_mean, n, -1.0f, "mean");
  expect_untouched(got_var, n, -1.0f, "var");
}
TEST(EmuKnownGood, WelfordColStatsSm80) { check_welford("sm_80"); }
TEST(EmuKnownGood, WelfordColStatsSm90a) { check_welford("sm_90a"); }
TEST(EmuKnownGood, WelfordColStatsSm100a) { check_welford("sm_100a"); }

// ---- scans: inclusive cumsum, cumprod(x | 1) and cummax of int32 rows (wrapping: exact),
// one program per row of n = 200 (BLOCK 256, masked).

void check_scans(const char* arch) {
  const int rows = 3, n = 200;
  TritonKernel k(arch, "scans");
  Rng rng(53);
  std::vector<int32_t> x(rows * n);
  for (int i = 0; i < rows * n; ++i) x[i] = static_cast<int32_t>(i % 7 == 0 ? rng.bits() : rng.bits() >> 22) - (i % 3 ? 0 : 500);
  k.pointer("x", x);
  const uint64_t cs = k.pointer("cs", guarded<int32_t>(rows * n, 77)), cp = k.pointer("cp", guarded<int32_t>(rows * n, 77)),
                 cm = k.pointer("cm", guarded<int32_t>(rows * n, 77));
  k.scalar("n", int32_t{n});
  k.run({rows});
  const auto got_s = k.read<int32_t>(cs, rows * n + 16), got_p = k.read<int32_t>(cp, rows * n + 16),
             got_m = k.read<int32_t>(cm, rows * n + 16);
  for (int r = 0; r < rows; ++r) {
    uint32_t sum = 0, prod = 1;
    int32_t hi = INT32_MIN;
    for (int i = r * n; i < (r + 1) * n; ++i) {
      sum += static_cast<uint32_t>(x[i]), prod *= static_cast<uint32_t>(x[i] | 1), hi = std::max(hi, x[i]);
      ASSERT_EQ(got_s[i], static_cast<int32_t>(sum)) << "cumsum at " << i;
      ASSERT_EQ(got_p[i], static_cast<int32_t>(prod)) << "cumprod at " << i;
      ASSERT_EQ(got_m[i], hi) << "cummax at " << i;
    }
  }
  expect_untouched(got_s, rows * n, 77, "cumsum");
  expect_untouched(got_m, rows * n, 77, "cummax");
}
TEST(EmuKnownGood, ScansSm80) { check_scans("sm_80"); }
TEST(EmuKnownGood, ScansSm90a) { check_scans("sm_90a"); }
TEST(EmuKnownGood, ScansSm100a) { check_scans("sm_100a"); }
TEST(EmuKnownGood, ScansSm120a) { check_scans("sm_120a"); }

// ---- sort_topk: each row of 64 sorted ascending, and its 8 largest in descending order
// (values k/16 with repeats).

void check_sort_topk(const char* arch) {
  const int rows = 4, n = 64, top = 8;
  TritonKernel k(arch, "sort_topk");
  const auto xs = small_values(rows * n, 54, 40, 0x1p-4);
  const std::vector<float> x(xs.begin(), xs.end());
  k.pointer("x", x);
  const uint64_t s = k.pointer("s", guarded<float>(rows * n, -99)), t = k.pointer("t", guarded<float>(rows * top, -99));
  k.run({rows});
  const auto got_s = k.read<float>(s, rows * n + 16), got_t = k.read<float>(t, rows * top + 16);
  for (int r = 0; r < rows; ++r) {
    std::vector<float> row(x.begin() + r * n, x.begin() + (r + 1) * n);
    std::sort(row.begin(), row.end());
    for (int i = 0; i < n; ++i) ASSERT_EQ(got_s[r * n + i], row[i]) << "sorted row " << r << " at " << i;
    for (int i = 0; i < top; ++i) ASSERT_EQ(got_t[r * top + i], row[n - 1 - i]) << "top row " << r << " at " << i;
  }
  expect_untouched(got_s, rows * n, -99.0f, "sorted");
  expect_untouched(got_t, rows * top, -99.0f, "top");
}
TEST(EmuKnownGood, SortTopkSm80) { check_sort_topk("sm_80"); }
TEST(EmuKnownGood, SortTopkSm90a) { check_sort_topk("sm_90a"); }
TEST(EmuKnownGood, SortTopkSm100a) { check_sort_topk("sm_100a"); }

// ---- cross_entropy: an online log-sum-exp over 4096-column blocks (16 warps), the loss per
// row and its gradient softmax - onehot in f16; row 1's label is the ignore index (loss 0,
// gradient 0). 5000 columns: two blocks, the second masked.

void check_cross_entropy(const char* arch) {
  const int rows = 3, cols = 5000, stride = 5008, ignore = -100;
  const int64_t labels[rows] = {17, ignore, cols - 1};
  TritonKernel k(arch, "cross_entropy");
  const auto xs = small_values(rows * stride, 55, 1024, 0x1p-8);  // [-4, 4], exact in f16
  k.pointer("l", as_f16(xs));
  k.pointer("y", std::vector<int64_t>(labels, labels + rows));
  const uint64_t loss = k.pointer("loss", guarded<float>(rows, -1));
  const uint16_t fill = 0x7E00;
  const uint64_t dl = k.pointer("dl", std::vector<uint16_t>(rows * stride, fill));
  k.scalar("n", int32_t{cols});
  k.scalar("stride", int32_t{stride});
  k.scalar("ign", int32_t{ignore});
  k.run({rows});
  std::vector<double> want_loss(rows), want_dl(rows * cols), got_dl(rows * cols);
  const auto dl_bits = k.read<uint16_t>(dl, rows * stride);
  for (int r = 0; r < rows; ++r) {
    double sum = 0;
    for (int c = 0; c < cols; ++c) sum += std::exp(xs[r * stride + c]);
    const double lse = std::log(sum);
    const bool ignored = labels[r] == ignore;
    want_loss[r] = ignored ? 0 : lse - xs[r * stride + labels[r]];
    for (int c = 0; c < cols; ++c) {
      got_dl[r * cols + c] = from_f16(dl_bits[r * stride + c]);
      want_dl[r * cols + c] = ignored ? 0 : std::exp(xs[r * stride + c] - lse) - (c == labels[r]);
    }
    for (int c = cols; c < stride; ++c) ASSERT_EQ(dl_bits[r * stride + c], fill) << "masked store at " << r << ", " << c;
  }
  // ex2.approx / lg2.approx (2^-22 relative) over a sum of 5000 terms: lse within 4e-6 (|lse| ~ 8.5)
  expect_near(widen(k.read<float>(loss, rows)), want_loss, 0, 4e-6, "loss");
  // then f16 rounding: half an ulp; values down to 1e-7 are f16 subnormals (steps of 2^-24)
  expect_near(got_dl, want_dl, 0x1p-10, 0x1p-24, "dlogits");
  expect_untouched(k.read<float>(loss, rows + 16), rows, -1.0f, "loss");
}
TEST(EmuKnownGood, CrossEntropySm80) { check_cross_entropy("sm_80"); }
TEST(EmuKnownGood, CrossEntropySm90a) { check_cross_entropy("sm_90a"); }
TEST(EmuKnownGood, CrossEntropySm100a) { check_cross_entropy("sm_100a"); }

}  // namespace
