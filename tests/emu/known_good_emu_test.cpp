// Kernels whose authors validated them on GPUs run on the emulator and agree with a plain C++
// reference: Triton 3.5.1's output in tests/corpus/triton, launched as Triton's launcher would
// (the <name>.launch sidecars: block = num_warps * 32, dynamic shared memory, cluster, scratch
// pointers). The emulator and the DSL read the PTX manual the same way, so a shared misreading
// passes their own tests; these kernels were written by a compiler that was checked on hardware.
// The matmul inputs are small multiples of 1/64, so every product and sum is exact in f32 and
// the results must match bit for bit whatever the accumulation order.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <vector>

#include "known_good_util.hpp"

namespace {

using namespace ptx::test::known_good;

// ---- vector_add: out = x + y over n = 3000 (three 1024-element programs, the last masked).

void check_vector_add(const char* arch) {
  const int n = 3000;
  TritonKernel k(arch, "vector_add");
  std::vector<float> x(n), y(n);
  const auto xs = small_values(n, 1, 1 << 20, 0x1p-12), ys = small_values(n, 2, 1 << 20, 0x1p-7);
  std::copy(xs.begin(), xs.end(), x.begin());
  std::copy(ys.begin(), ys.end(), y.begin());
  k.pointer("x", x);
  k.pointer("y", y);
  const uint64_t out = k.pointer("out", std::vector<float>(n + 16, -1.0f));
  k.scalar("n", int32_t{n});
  k.run({(n + 1023) / 1024});
  const auto got = k.read<float>(out, n + 16);
  for (int i = 0; i < n; ++i) ASSERT_EQ(got[i], x[i] + y[i]) << i;
  for (int i = n; i < n + 16; ++i) ASSERT_EQ(got[i], -1.0f) << "masked store at " << i;
}

TEST(EmuKnownGood, VectorAddSm80) { check_vector_add("sm_80"); }
TEST(EmuKnownGood, VectorAddSm90a) { check_vector_add("sm_90a"); }
TEST(EmuKnownGood, VectorAddSm100a) { check_vector_add("sm_100a"); }

// ---- softmax over rows (a grid-stride loop over rows: fewer programs than rows).

std::vector<double> softmax_rows(const std::vector<double>& x, int rows, int cols, int stride) {
  std::vector<double> y(x.size(), 0.0);
  for (int r = 0; r < rows; ++r) {
    double mx = -INFINITY, sum = 0;
    for (int c = 0; c < cols; ++c) mx = std::max(mx, x[r * stride + c]);
    for (int c = 0; c < cols; ++c) sum += std::exp(x[r * stride + c] - mx);
    for (int c = 0; c < cols; ++c) y[r * stride + c] = std::exp(x[r * stride + c] - mx) / sum;
  }
  return y;
}

TEST(EmuKnownGood, SoftmaxF32Sm80) {
  const int rows = 7, cols = 200, stride = 208;
  TritonKernel k("sm_80", "softmax_f32");
  const auto xs = small_values(rows * stride, 3, 4096, 0x1p-10);
  std::vector<float> x(xs.begin(), xs.end());
  const uint64_t o = k.pointer("o", std::vector<float>(rows * stride, 0.0f));
  k.pointer("i", x);
  k.scalar("si", int32_t{stride});
  k.scalar("so", int32_t{stride});
  k.scalar("rows", int32_t{rows});
  k.scalar("cols", int32_t{cols});
  k.run({3});
  // ex2.approx and div.full: within a few ulp of f32
  expect_near(widen(k.read<float>(o, rows * stride)), softmax_rows(xs, rows, cols, stride), 1e-5, 1e-9, "softmax");
}

void check_softmax_f16(const char* arch) {
  const int rows = 5, cols = 1000, stride = 1008;
  TritonKernel k(arch, "softmax_f16");
  const auto xs = small_values(rows * stride, 4, 1024, 0x1p-8);
  const uint64_t o = k.pointer("o", std::vector<uint16_t>(rows * stride, 0));
  k.pointer("i", as_f16(xs));
  k.scalar("si", int32_t{stride});
  k.scalar("so", int32_t{stride});
  k.scalar("rows", int32_t{rows});
  k.scalar("cols", int32_t{cols});
  k.run({2});
  // f32 math rounded once to f16: within one f16 ulp
  expect_near(decode_f16(k.read<uint16_t>(o, rows * stride)), softmax_rows(xs, rows, cols, stride), 0x1p-10, 0x1p-24,
              "softmax");
}

TEST(EmuKnownGood, SoftmaxF16Sm80) { check_softmax_f16("sm_80"); }
TEST(EmuKnownGood, SoftmaxF16Sm90a) { check_softmax_f16("sm_90a"); }
TEST(EmuKnownGood, SoftmaxF16Sm100a) { check_softmax_f16("sm_100a"); }

// ---- layernorm forward: two passes of 1024 columns over n = 1500, one program per row.

void check_layernorm(const char* arch) {
  const int rows = 3, n = 1500, stride = 1504;
  const float eps = 1e-5f;
  TritonKernel k(arch, "layernorm_fwd");
  const auto xs = small_values(rows * stride, 5, 1024, 0x1p-8), ws = small_values(n, 6, 512, 0x1p-8),
             bs = small_values(n, 7, 512, 0x1p-9);
  k.pointer("x", as_f16(xs));
  const uint64_t y = k.pointer("y", std::vector<uint16_t>(rows * stride, 0));
  k.pointer("w", as_f16(ws));
  k.pointer("b", as_f16(bs));
  const uint64_t mean = k.pointer("mean", std::vector<float>(rows, 0.0f));
  const uint64_t rstd = k.pointer("rstd", std::vector<float>(rows, 0.0f));
  k.scalar("stride", int32_t{stride});
  k.scalar("n", int32_t{n});
  k.scalar("eps", eps);
  k.run({rows});
  std::vector<double> want_y(rows * stride, 0.0), want_mean(rows), want_rstd(rows);
  for (int r = 0; r < rows; ++r) {
    double s = 0, s2 = 0;
    for (int c = 0; c < n; ++c) s += xs[r * stride + c];
    want_mean[r] = s / n;
    for (int c = 0; c < n; ++c) s2 += (xs[r * stride + c] - want_mean[r]) * (xs[r * stride + c] - want_mean[r]);
    want_rstd[r] = 1 / std::sqrt(s2 / n + eps);
    for (int c = 0; c < n; ++c) want_y[r * stride + c] = (xs[r * stride + c] - want_mean[r]) * want_rstd[r] * ws[c] + bs[c];
  }
  expect_near(widen(k.read<float>(mean, rows)), want_mean, 1e-5, 1e-7, "mean");
  expect_near(widen(k.read<float>(rstd, rows)), want_rstd, 1e-5, 0, "rstd");
  expect_near(decode_f16(k.read<uint16_t>(y, rows * stride)), want_y, 0x1p-10, 1e-6, "y");
}

TEST(EmuKnownGood, LayernormSm80) { check_layernorm("sm_80"); }
TEST(EmuKnownGood, LayernormSm90a) { check_layernorm("sm_90a"); }
TEST(EmuKnownGood, LayernormSm100a) { check_layernorm("sm_100a"); }  // add.f32x2

// ---- RMSNorm in bf16: y = x * rsqrt(mean(x^2) + eps) * w.

void check_rmsnorm(const char* arch) {
  const int rows = 3, n = 1000, stride = 1008;
  const float eps = 1e-6f;
  TritonKernel k(arch, "rmsnorm");
  const auto xs = small_values(rows * stride, 8, 128, 0x1p-6), ws = small_values(n, 9, 128, 0x1p-7);
  k.pointer("x", as_bf16(xs));
  k.pointer("w", as_bf16(ws));
  const uint64_t y = k.pointer("y", std::vector<uint16_t>(rows * stride, 0));
  k.scalar("stride", int32_t{stride});
  k.scalar("n", int32_t{n});
  k.scalar("eps", eps);
  k.run({rows});
  std::vector<double> want(rows * stride, 0.0);
  for (int r = 0; r < rows; ++r) {
    double s2 = 0;
    for (int c = 0; c < n; ++c) s2 += xs[r * stride + c] * xs[r * stride + c];
    const double rms = 1 / std::sqrt(s2 / n + eps);
    for (int c = 0; c < n; ++c) want[r * stride + c] = xs[r * stride + c] * rms * ws[c];
  }
  expect_near(decode_bf16(k.read<uint16_t>(y, rows * stride)), want, 0x1p-7, 0x1p-126, "y");  // one bf16 ulp
}

TEST(EmuKnownGood, RmsnormSm80) { check_rmsnorm("sm_80"); }
TEST(EmuKnownGood, RmsnormSm90a) { check_rmsnorm("sm_90a"); }
TEST(EmuKnownGood, RmsnormSm100a) { check_rmsnorm("sm_100a"); }

// ---- tl.dot matmuls: C[M,N] = A[M,K] B[K,N], row-major, M = N = 128, K = 64. The inputs are
// k/64 with |k| <= 64 (exact in f16, bf16 and tf32), so C is exact in f32 and its rounding to
// the output type is the reference's; int8 is exact anyway.

constexpr int kM = 128, kN = 128, kK = 64;

// A: m x k, B: k x n (or n x k with b_nk), row-major.
std::vector<double> matmul_reference(const std::vector<double>& a, const std::vector<double>& b, int m = kM, int n = kN, int k = kK,
                                     bool b_nk = false) {
  std::vector<double> c(size_t(m) * n, 0.0);
  for (int i = 0; i < m; ++i)
    for (int j = 0; j < n; ++j)
      for (int p = 0; p < k; ++p) c[i * n + j] += a[i * k + p] * (b_nk ? b[j * k + p] : b[p * n + j]);
  return c;
}

// The e4m3 code of a value it holds exactly (|v| = k/8, k <= 15 here).
uint8_t e4m3_bits(double v) {
  const uint8_t sign = std::signbit(v) ? 0x80 : 0;
  if (v == 0) return sign;
  int e = 0;
  const double m = std::frexp(std::fabs(v), &e);  // |v| = 2m * 2^(e-1), 2m in [1, 2)
  return sign | static_cast<uint8_t>((e - 1 + 7) << 3) | static_cast<uint8_t>((2 * m - 1) * 8);
}
// The e5m2 code of a value it holds exactly (|v| = k/4, k <= 7 here).
uint8_t e5m2_bits(double v) {
  const uint8_t sign = std::signbit(v) ? 0x80 : 0;
  if (v == 0) return sign;
  int e = 0;
  const double m = std::frexp(std::fabs(v), &e);
  return sign | static_cast<uint8_t>((e - 1 + 15) << 2) | static_cast<uint8_t>((2 * m - 1) * 4);
}

// Launches `name` (the matmul kernel) on A, B in the element type `In` that `encode` makes,
// and returns C as `Out`. The grid is one program per BLOCK_M x BLOCK_N tile.
template <class In, class Out, class Encode>
std::vector<Out> run_matmul(const char* arch, const char* name, const std::vector<double>& a, const std::vector<double>& b,
                            Encode encode, int n = kN) {
  TritonKernel k(arch, name);
  std::vector<In> ea(a.size()), eb(b.size());
  for (size_t i = 0; i < a.size(); ++i) ea[i] = encode(a[i]);
  for (size_t i = 0; i < b.size(); ++i) eb[i] = encode(b[i]);
  k.pointer("a", ea);
  k.pointer("b", eb);
  const uint64_t c = k.pointer("c", std::vector<Out>(size_t(kM) * n, Out{}));
  k.scalar("M", int32_t{kM});
  k.scalar("N", int32_t{n});
  k.scalar("K", int32_t{kK});
  k.scalar("stride_am", int32_t{kK});
  k.scalar("stride_ak", int32_t{1});
  k.scalar("stride_bk", int32_t{n});
  k.scalar("stride_bn", int32_t{1});
  k.scalar("stride_cm", int32_t{n});
  k.scalar("stride_cn", int32_t{1});
  k.run({(kM / k.launch().constant("BLOCK_M")) * (n / k.launch().constant("BLOCK_N"))});
  return k.read<Out>(c, size_t(kM) * n);
}

template <class Out, class Encode, class Decode>
void expect_matmul_bits(const std::vector<Out>& got, const std::vector<double>& want, Encode encode, Decode decode) {
  for (size_t i = 0; i < want.size(); ++i)
    ASSERT_EQ(got[i], encode(want[i])) << "C[" << i / kN << "][" << i % kN << "] = " << decode(got[i]) << ", want " << want[i];
}

void check_matmul_f16(const char* arch) {
  const auto a = small_values(kM * kK, 10, 64, 0x1p-6), b = small_values(kK * kN, 11, 64, 0x1p-6);
  const auto want = matmul_reference(a, b);
  const auto got = run_matmul<uint16_t, uint16_t>(arch, "matmul_f16", a, b, f16_bits);
  for (int i = 0; i < kM * kN; ++i)
    ASSERT_EQ(got[i], f16_bits(want[i])) << "C[" << i / kN << "][" << i % kN << "] = " << from_f16(got[i]) << ", want " << want[i];
}

void check_matmul_bf16(const char* arch) {
  const auto a = small_values(kM * kK, 12, 64, 0x1p-6), b = small_values(kK * kN, 13, 64, 0x1p-6);
  const auto want = matmul_reference(a, b);
  const auto got = run_matmul<uint16_t, uint16_t>(arch, "matmul_bf16", a, b, [](double v) { return bf16_bits(float(v)); });
  for (int i = 0; i < kM * kN; ++i)
    ASSERT_EQ(got[i], bf16_bits(float(want[i]))) << "C[" << i / kN << "][" << i % kN << "] = " << from_bf16(got[i])
                                                 << ", want " << want[i];
}

void check_matmul_f32(const char* arch, const char* name) {  // tf32, tf32x3 (3 tf32 products) and ieee
  const auto a = small_values(kM * kK, 14, 64, 0x1p-6), b = small_values(kK * kN, 15, 64, 0x1p-6);
  const auto want = matmul_reference(a, b);
  const auto got = run_matmul<float, float>(arch, name, a, b, [](double v) { return float(v); });
  for (int i = 0; i < kM * kN; ++i) ASSERT_EQ(got[i], float(want[i])) << "C[" << i / kN << "][" << i % kN << "]";
}

void check_matmul_i8(const char* arch) {
  const auto a = small_values(kM * kK, 16, 127, 1), b = small_values(kK * kN, 17, 127, 1);
  const auto want = matmul_reference(a, b);
  const auto got = run_matmul<int8_t, int32_t>(arch, "matmul_i8", a, b, [](double v) { return int8_t(v); });
  for (int i = 0; i < kM * kN; ++i) ASSERT_EQ(got[i], int32_t(want[i])) << "C[" << i / kN << "][" << i % kN << "]";
}

TEST(EmuKnownGood, MatmulF16Sm80) { check_matmul_f16("sm_80"); }
TEST(EmuKnownGood, MatmulF16Sm90a) { check_matmul_f16("sm_90a"); }
TEST(EmuKnownGood, MatmulF16Sm100a) { check_matmul_f16("sm_100a"); }
TEST(EmuKnownGood, MatmulF16Sm120a) { check_matmul_f16("sm_120a"); }

// f16 accumulators: inputs k/4 with |k| <= 4 keep every partial sum exact in f16 (|C| <= 64 in
// steps of 1/16: 11 significant bits).
void check_matmul_f16_acc16(const char* arch) {
  const auto a = small_values(kM * kK, 21, 4, 0.25), b = small_values(kK * kN, 22, 4, 0.25);
  const auto got = run_matmul<uint16_t, uint16_t>(arch, "matmul_f16_acc16", a, b, f16_bits);
  expect_matmul_bits(got, matmul_reference(a, b), f16_bits, from_f16);
}
TEST(EmuKnownGood, MatmulF16Acc16Sm80) { check_matmul_f16_acc16("sm_80"); }
TEST(EmuKnownGood, MatmulF16Acc16Sm90a) { check_matmul_f16_acc16("sm_90a"); }

// e4m3 inputs k/8 (|k| <= 15, exact), f32 accumulation (exact), bf16 C.
void check_matmul_fp8(const char* arch) {
  const auto a = small_values(kM * kK, 23, 15, 0.125), b = small_values(kK * kN, 24, 15, 0.125);
  const auto got = run_matmul<uint8_t, uint16_t>(arch, "matmul_fp8", a, b, e4m3_bits);
  expect_matmul_bits(got, matmul_reference(a, b), [](double v) { return bf16_bits(float(v)); }, from_bf16);
}
TEST(EmuKnownGood, MatmulFp8Sm90a) { check_matmul_fp8("sm_90a"); }
TEST(EmuKnownGood, MatmulFp8Sm100a) { check_matmul_fp8("sm_100a"); }
TEST(EmuKnownGood, MatmulFp8Sm120a) { check_matmul_fp8("sm_120a"); }

// A in e5m2 (k/4, |k| <= 7), B in e4m3, f16 C (exact: |C| < 2^8 in steps of 1/32).
TEST(EmuKnownGood, MatmulFp8E5m2Sm90a) {
  const auto a = small_values(kM * kK, 33, 7, 0.25), b = small_values(kK * kN, 34, 15, 0.125);
  TritonKernel k("sm_90a", "matmul_fp8_e5m2");
  std::vector<uint8_t> ea(a.size()), eb(b.size());
  for (size_t i = 0; i < a.size(); ++i) ea[i] = e5m2_bits(a[i]);
  for (size_t i = 0; i < b.size(); ++i) eb[i] = e4m3_bits(b[i]);
  k.pointer("a", ea);
  k.pointer("b", eb);
  const uint64_t c = k.pointer("c", std::vector<uint16_t>(kM * kN, 0));
  for (const auto& [name, v] : std::vector<std::pair<const char*, int>>{
           {"M", kM}, {"N", kN}, {"K", kK}, {"stride_am", kK}, {"stride_ak", 1}, {"stride_bk", kN}, {"stride_bn", 1}, {"stride_cm", kN}, {"stride_cn", 1}})
    k.scalar(name, int32_t{v});
  k.run({(kM / k.launch().constant("BLOCK_M")) * (kN / k.launch().constant("BLOCK_N"))});
  expect_matmul_bits(k.read<uint16_t>(c, kM * kN), matmul_reference(a, b), f16_bits, from_f16);
}

// tl.dot_scaled on mxfp8 (tcgen05.mma.kind::mxf8f6f4.block_scale): e4m3 A (M x K) and B (K x N),
// one e8m0 scale per 32 elements of K for each row of A and each column of B (2^-2 .. 2^2);
// every product and sum is exact in f32, C is bf16. M = N = K = 128.
TEST(EmuKnownGood, MatmulMxfp8Sm100a) {
  const int m = 128, n = 128, k_dim = 128, groups = k_dim / 32;
  const auto a = small_values(size_t(m) * k_dim, 35, 15, 0.125), b = small_values(size_t(k_dim) * n, 36, 15, 0.125);
  const auto sa = small_values(size_t(m) * groups, 37, 2, 1), sb = small_values(size_t(n) * groups, 38, 2, 1);
  std::vector<uint8_t> ea(a.size()), eb(b.size()), esa(sa.size()), esb(sb.size());
  for (size_t i = 0; i < a.size(); ++i) ea[i] = e4m3_bits(a[i]);
  for (size_t i = 0; i < b.size(); ++i) eb[i] = e4m3_bits(b[i]);
  for (size_t i = 0; i < sa.size(); ++i) esa[i] = static_cast<uint8_t>(127 + sa[i]);
  for (size_t i = 0; i < sb.size(); ++i) esb[i] = static_cast<uint8_t>(127 + sb[i]);
  TritonKernel k("sm_100a", "matmul_mxfp8");
  k.pointer("a", ea);
  k.pointer("sa", esa);
  k.pointer("b", eb);
  k.pointer("sb", esb);
  const uint64_t c = k.pointer("c", std::vector<uint16_t>(size_t(m) * n, 0));
  k.scalar("M", int32_t{m});
  k.scalar("N", int32_t{n});
  k.scalar("K", int32_t{k_dim});
  k.run({uint32_t(m / 128), uint32_t(n / 128)});
  std::vector<double> want(size_t(m) * n, 0.0);
  for (int i = 0; i < m; ++i)
    for (int j = 0; j < n; ++j)
      for (int p = 0; p < k_dim; ++p)
        want[i * n + j] += a[i * k_dim + p] * std::ldexp(1.0, int(sa[i * groups + p / 32])) * b[p * n + j] *
                           std::ldexp(1.0, int(sb[j * groups + p / 32]));
  expect_matmul_bits(k.read<uint16_t>(c, size_t(m) * n), want, [](double v) { return bf16_bits(float(v)); }, from_bf16);
}

// 8 warps, BLOCK_N = 256 (wgmma N = 256), the fused ReLU: C = max(A B, 0) in f16; N = 256.
TEST(EmuKnownGood, MatmulF16ReluW8Sm90a) {
  const int n = 256;
  const auto a = small_values(kM * kK, 25, 64, 0x1p-6), b = small_values(kK * n, 26, 64, 0x1p-6);
  const auto got = run_matmul<uint16_t, uint16_t>("sm_90a", "matmul_f16_relu_w8", a, b, f16_bits, n);
  auto want = matmul_reference(a, b, kM, n, kK);
  for (auto& x : want) x = std::max(x, 0.0);
  for (int i = 0; i < kM * n; ++i) ASSERT_EQ(got[i], f16_bits(want[i])) << "C[" << i / n << "][" << i % n << "]";
}

// Split-K: program_id(1) takes every fourth K block, the partial tiles are added with f32 atomics
// (exact here, so in any order). M = N = 128, K = 256.
void check_matmul_splitk(const char* arch) {
  const int k_dim = 256;
  const auto a = small_values(kM * k_dim, 27, 64, 0x1p-6), b = small_values(k_dim * kN, 28, 64, 0x1p-6);
  TritonKernel k(arch, "matmul_splitk");
  k.pointer("a", as_f16(a));
  k.pointer("b", as_f16(b));
  const uint64_t c = k.pointer("c", std::vector<float>(kM * kN, 0.0f));
  k.scalar("M", int32_t{kM});
  k.scalar("N", int32_t{kN});
  k.scalar("K", int32_t{k_dim});
  k.run({(kM / 64) * (kN / 64), k.launch().constant("SPLIT_K")});
  const auto want = matmul_reference(a, b, kM, kN, k_dim);
  const auto got = k.read<float>(c, kM * kN);
  for (int i = 0; i < kM * kN; ++i) ASSERT_EQ(got[i], float(want[i])) << "C[" << i / kN << "][" << i % kN << "]";
}
TEST(EmuKnownGood, MatmulSplitKSm80) { check_matmul_splitk("sm_80"); }
TEST(EmuKnownGood, MatmulSplitKSm90a) { check_matmul_splitk("sm_90a"); }

// Host tensor descriptors (TMA loads and stores), a persistent loop over 128 x 128 tiles, B given
// as N x K (the kernel takes b.T): M = N = 256, K = 128, one program per tile.
void check_matmul_tma_persistent(const char* arch) {
  const int m = 256, n = 256, k_dim = 128;
  const auto a = small_values(size_t(m) * k_dim, 29, 64, 0x1p-6), b = small_values(size_t(n) * k_dim, 30, 64, 0x1p-6);
  TritonKernel k(arch, "matmul_tma_persistent");
  const uint64_t da = k.allocate(as_f16(a)), db = k.allocate(as_f16(b)), dc = k.allocate(std::vector<uint16_t>(size_t(m) * n, 0));
  k.tensor_desc("a", da, {uint64_t(m), uint64_t(k_dim)}, {uint64_t(k_dim), 1});
  k.tensor_desc("b", db, {uint64_t(n), uint64_t(k_dim)}, {uint64_t(k_dim), 1});
  k.tensor_desc("c", dc, {uint64_t(m), uint64_t(n)}, {uint64_t(n), 1});
  k.scalar("M", int32_t{m});
  k.scalar("N", int32_t{n});
  k.scalar("K", int32_t{k_dim});
  k.run({uint32_t(m / 128 * (n / 128))});
  const auto want = matmul_reference(a, b, m, n, k_dim, true);
  const auto got = k.read<uint16_t>(dc, size_t(m) * n);
  for (int i = 0; i < m * n; ++i) ASSERT_EQ(got[i], f16_bits(want[i])) << "C[" << i / n << "][" << i % n << "]";
}
// Device tensor descriptors: each program builds its three tensor maps from zero bytes with
// tensormap.replace in the global scratch Triton's launcher allocates (384 bytes per program),
// then TMA-loads A (M x K) and B (K x N) and TMA-stores C. M = N = 256, K = 128: a 2 x 2 grid.
void check_matmul_device_desc(const char* arch) {
  const int m = 256, n = 256, k_dim = 128;
  const auto a = small_values(size_t(m) * k_dim, 31, 64, 0x1p-6), b = small_values(size_t(k_dim) * n, 32, 64, 0x1p-6);
  TritonKernel k(arch, "matmul_device_desc");
  k.pointer("a", as_f16(a));
  k.pointer("b", as_f16(b));
  const uint64_t c = k.pointer("c", std::vector<uint16_t>(size_t(m) * n, 0));
  k.scalar("M", int32_t{m});
  k.scalar("N", int32_t{n});
  k.scalar("K", int32_t{k_dim});
  k.run({uint32_t(m / 128), uint32_t(n / 128)});
  const auto want = matmul_reference(a, b, m, n, k_dim);
  const auto got = k.read<uint16_t>(c, size_t(m) * n);
  for (int i = 0; i < m * n; ++i) ASSERT_EQ(got[i], f16_bits(want[i])) << "C[" << i / n << "][" << i % n << "]";
}
TEST(EmuKnownGood, MatmulDeviceDescSm90a) { check_matmul_device_desc("sm_90a"); }
TEST(EmuKnownGood, MatmulDeviceDescSm100a) { check_matmul_device_desc("sm_100a"); }

TEST(EmuKnownGood, MatmulTmaPersistentSm90a) { check_matmul_tma_persistent("sm_90a"); }
TEST(EmuKnownGood, MatmulTmaPersistentSm100a) { check_matmul_tma_persistent("sm_100a"); }
TEST(EmuKnownGood, MatmulBf16Sm80) { check_matmul_bf16("sm_80"); }
TEST(EmuKnownGood, MatmulBf16Sm90a) { check_matmul_bf16("sm_90a"); }
TEST(EmuKnownGood, MatmulBf16Sm100a) { check_matmul_bf16("sm_100a"); }
TEST(EmuKnownGood, MatmulTf32Sm80) { check_matmul_f32("sm_80", "matmul_tf32"); }
TEST(EmuKnownGood, MatmulTf32Sm90a) { check_matmul_f32("sm_90a", "matmul_tf32"); }
TEST(EmuKnownGood, MatmulTf32Sm100a) { check_matmul_f32("sm_100a", "matmul_tf32"); }
TEST(EmuKnownGood, MatmulTf32x3Sm80) { check_matmul_f32("sm_80", "matmul_tf32x3"); }
TEST(EmuKnownGood, MatmulF32IeeeSm80) { check_matmul_f32("sm_80", "matmul_f32_ieee"); }
TEST(EmuKnownGood, MatmulI8Sm80) { check_matmul_i8("sm_80"); }
TEST(EmuKnownGood, MatmulI8Sm90a) { check_matmul_i8("sm_90a"); }
TEST(EmuKnownGood, MatmulI8Sm100a) { check_matmul_i8("sm_100a"); }

// ---- causal flash attention (online softmax in base 2): one head, seq = 128, HEAD_DIM = 64.

// One head, seq = 128 (HEAD_DIM from the kernel's constants); bf16: q, k, v and o in bf16.
void check_attention(const char* arch, const char* name, bool bf16, bool causal) {
  const int seq = 128;
  TritonKernel k(arch, name);
  const int dim = static_cast<int>(k.launch().constant("HEAD_DIM")), block_m = static_cast<int>(k.launch().constant("BLOCK_M"));
  const float scale = 1.0f / std::sqrt(float(dim));
  const auto q = small_values(seq * dim, 18, 64, 0x1p-6), kk = small_values(seq * dim, 19, 64, 0x1p-6),
             v = small_values(seq * dim, 20, 64, 0x1p-5);
  const auto encode = bf16 ? as_bf16 : as_f16;
  k.pointer("q", encode(q));
  k.pointer("k", encode(kk));
  k.pointer("v", encode(v));
  const uint64_t o = k.pointer("o", std::vector<uint16_t>(seq * dim, 0));
  const uint64_t lse = k.pointer("lse", std::vector<float>(seq, 0.0f));
  k.scalar("seq", int32_t{seq});
  k.scalar("scale", scale);
  k.scalar("sh", int32_t{seq * dim});
  k.scalar("ss", int32_t{dim});
  k.run({uint32_t(seq / block_m), 1});
  std::vector<double> want_o(seq * dim, 0.0), want_lse(seq);
  for (int i = 0; i < seq; ++i) {
    const int keys = causal ? i + 1 : seq;
    std::vector<double> s(keys);
    double mx = -INFINITY, sum = 0;
    for (int j = 0; j < keys; ++j) {
      for (int d = 0; d < dim; ++d) s[j] += q[i * dim + d] * kk[j * dim + d];
      s[j] *= scale;
      mx = std::max(mx, s[j]);
    }
    for (int j = 0; j < keys; ++j) sum += std::exp(s[j] - mx);
    for (int j = 0; j < keys; ++j)
      for (int d = 0; d < dim; ++d) want_o[i * dim + d] += std::exp(s[j] - mx) / sum * v[j * dim + d];
    want_lse[i] = (mx + std::log(sum)) / std::log(2.0);
  }
  // P is rounded to f16 (bf16) before P.V, O too: a few ulps of |v| <= 2
  const auto got_o = k.read<uint16_t>(o, seq * dim);
  if (bf16) expect_near(decode_bf16(got_o), want_o, 0x1p-7, 0x1p-6, "o");
  else expect_near(decode_f16(got_o), want_o, 0x1p-10, 0x1p-9, "o");
  expect_near(widen(k.read<float>(lse, seq)), want_lse, 1e-5, 1e-5, "lse");
}

TEST(EmuKnownGood, AttentionCausalSm80) { check_attention("sm_80", "attention_causal", false, true); }
TEST(EmuKnownGood, AttentionCausalSm90a) { check_attention("sm_90a", "attention_causal", false, true); }
TEST(EmuKnownGood, AttentionCausalSm100a) { check_attention("sm_100a", "attention_causal", false, true); }
TEST(EmuKnownGood, AttentionBf16Sm90a) { check_attention("sm_90a", "attention_bf16", true, false); }

}  // namespace
