// Real-GPU tests (ctest label "gpu"): the example kernels on GPU 0 against CPU
// references; each test skips with a message when there is no GPU.
#include <gtest/gtest.h>

#include <cmath>

#include <ptxpp/runtime.hpp>

#include "../../examples/kernels/elementwise.hpp"
#include "../../examples/kernels/rows.hpp"

namespace {

std::vector<float> randoms(size_t n, uint32_t seed) {
  std::vector<float> v(n);
  for (auto& x : v) {
    seed = seed * 1664525u + 1013904223u;
    x = static_cast<float>(seed >> 8) / static_cast<float>(1u << 24) * 4.0f - 2.0f;
  }
  return v;
}

#define NEED_GPU()                                                                          \
  if (ptx::device::gpu_count() == 0) GTEST_SKIP() << "no GPU (or no CUDA driver) on this machine"

TEST(Gpu, ElementwiseExamples) {
  NEED_GPU();
  const ptx::Device dev = ptx::device::gpu(0);
  const int n = 1 << 20;
  auto x = randoms(n, 1), y = randoms(n, 2);
  ptx::DevicePtr dx = dev.alloc(n * 4), dy = dev.alloc(n * 4), dz = dev.alloc(n * 4);
  dev.copy_to_device(dx, x.data(), n * 4);
  dev.copy_to_device(dy, y.data(), n * 4);
  std::vector<float> got(n);
  ptx::launch(dev, examples::identity(dev.arch()), {{"N", n}}, dx, dz);
  dev.copy_to_host(got.data(), dz, n * 4);
  EXPECT_EQ(got, x);
  ptx::launch(dev, examples::vector_add(dev.arch()), {{"N", n}}, dx, dy, dz);
  dev.copy_to_host(got.data(), dz, n * 4);
  for (int i = 0; i < n; ++i) ASSERT_EQ(got[i], x[i] + y[i]) << i;
  ptx::launch(dev, examples::swiglu(dev.arch()), {{"N", n}}, dx, dy, dz);
  dev.copy_to_host(got.data(), dz, n * 4);
  for (int i = 0; i < n; i += 7) {
    const double ref = x[i] / (1.0 + std::exp(-static_cast<double>(x[i]))) * y[i];
    ASSERT_NEAR(got[i], ref, 1e-5 + 1e-5 * std::fabs(ref)) << i;
  }
}

TEST(Gpu, RowExamples) {
  NEED_GPU();
  const ptx::Device dev = ptx::device::gpu(0);
  const int m = 64, n = 1000;
  auto x = randoms(static_cast<size_t>(m) * n, 3), w = randoms(n, 4);
  ptx::DevicePtr dx = dev.alloc(m * n * 4), dw = dev.alloc(n * 4), dy = dev.alloc(m * n * 4);
  dev.copy_to_device(dx, x.data(), m * n * 4);
  dev.copy_to_device(dw, w.data(), n * 4);
  ptx::launch(dev, examples::rmsnorm(dev.arch()), {{"M", m}, {"N", n}}, dx, dw, dy, 1e-5f);
  std::vector<float> got(static_cast<size_t>(m) * n);
  dev.copy_to_host(got.data(), dy, m * n * 4);
  for (int r = 0; r < m; ++r) {
    double ss = 0;
    for (int c = 0; c < n; ++c) ss += static_cast<double>(x[r * n + c]) * x[r * n + c];
    const double inv = 1.0 / std::sqrt(ss / n + 1e-5);
    for (int c = 0; c < n; ++c) ASSERT_NEAR(got[r * n + c], x[r * n + c] * inv * w[c], 1e-4) << r << "," << c;
  }
  ptx::launch(dev, examples::softmax(dev.arch()), {{"M", m}, {"N", n}}, dx, dy);
  dev.copy_to_host(got.data(), dy, m * n * 4);
  for (int r = 0; r < m; ++r) {
    double mx = -1e30, s = 0;
    for (int c = 0; c < n; ++c) mx = std::max<double>(mx, x[r * n + c]);
    for (int c = 0; c < n; ++c) s += std::exp(x[r * n + c] - mx);
    for (int c = 0; c < n; ++c) ASSERT_NEAR(got[r * n + c], std::exp(x[r * n + c] - mx) / s, 1e-6) << r << "," << c;
  }
}

}  // namespace
