// Every example kernel runs in the emulator on reduced shapes and matches a CPU
// reference computed here.
#include <cmath>

#include "../../examples/kernels/elementwise.hpp"
#include "../../examples/kernels/rows.hpp"
#include "emu_test_util.hpp"

namespace ptx::test {
namespace {

class ExamplesOnEmulator : public ::testing::TestWithParam<const char*> {};

TEST_P(ExamplesOnEmulator, Identity) {
  const int n = 1000;
  auto t = examples::identity(GetParam()).trace({{"N", n}});
  EmuRun r;
  auto x = random_floats(n, 1);
  r.buffer(x, "x");
  const uint64_t y = r.buffer(std::vector<float>(n, -7.0f), "y");
  r.launch(*t);
  EXPECT_EQ(r.read<float>(y, n), x);
}

TEST_P(ExamplesOnEmulator, VectorAdd) {
  const int n = 4096 + 64;
  auto t = examples::vector_add(GetParam()).trace({{"N", n}});
  EmuRun r;
  auto a = random_floats(n, 2), b = random_floats(n, 3);
  r.buffer(a, "a");
  r.buffer(b, "b");
  const uint64_t z = r.buffer(std::vector<float>(n), "z");
  r.launch(*t);
  const auto got = r.read<float>(z, n);
  for (int i = 0; i < n; ++i) ASSERT_EQ(got[i], a[i] + b[i]) << i;
}

TEST_P(ExamplesOnEmulator, SwiGLU) {
  const int n = 777;
  auto t = examples::swiglu(GetParam()).trace({{"N", n}});
  EmuRun r;
  auto g = random_floats(n, 4, -6, 6), u = random_floats(n, 5);
  r.buffer(g, "gate");
  r.buffer(u, "up");
  const uint64_t o = r.buffer(std::vector<float>(n), "out");
  r.launch(*t);
  const auto got = r.read<float>(o, n);
  for (int i = 0; i < n; ++i) {
    const double ref = g[i] / (1.0 + std::exp(-static_cast<double>(g[i]))) * u[i];
    ASSERT_NEAR(got[i], ref, 1e-5 + 1e-5 * std::fabs(ref)) << i;
  }
}

TEST_P(ExamplesOnEmulator, RmsNorm) {
  const int m = 5, n = 100;
  auto t = examples::rmsnorm(GetParam()).trace({{"M", m}, {"N", n}});
  EmuRun r;
  auto x = random_floats(m * n, 6), w = random_floats(n, 7);
  r.buffer(x, "x");
  r.buffer(w, "w");
  const uint64_t y = r.buffer(std::vector<float>(m * n), "y");
  r.scalar(1e-5f);
  r.launch(*t);
  const auto got = r.read<float>(y, m * n);
  for (int i = 0; i < m; ++i) {
    double ss = 0;
    for (int j = 0; j < n; ++j) ss += static_cast<double>(x[i * n + j]) * x[i * n + j];
    const double inv = 1.0 / std::sqrt(ss / n + 1e-5);
    for (int j = 0; j < n; ++j) ASSERT_NEAR(got[i * n + j], x[i * n + j] * inv * w[j], 1e-4) << i << "," << j;
  }
}

TEST_P(ExamplesOnEmulator, LayerNorm) {
  const int m = 4, n = 70;
  auto t = examples::layernorm(GetParam()).trace({{"M", m}, {"N", n}});
  EmuRun r;
  auto x = random_floats(m * n, 8), w = random_floats(n, 9), b = random_floats(n, 10);
  r.buffer(x, "x");
  r.buffer(w, "w");
  r.buffer(b, "b");
  const uint64_t y = r.buffer(std::vector<float>(m * n), "y");
  r.scalar(1e-5f);
  r.launch(*t);
  const auto got = r.read<float>(y, m * n);
  for (int i = 0; i < m; ++i) {
    double s = 0, sq = 0;
    for (int j = 0; j < n; ++j) s += x[i * n + j], sq += static_cast<double>(x[i * n + j]) * x[i * n + j];
    const double mean = s / n, var = sq / n - mean * mean, inv = 1.0 / std::sqrt(var + 1e-5);
    for (int j = 0; j < n; ++j) ASSERT_NEAR(got[i * n + j], (x[i * n + j] - mean) * inv * w[j] + b[j], 1e-4) << i << "," << j;
  }
}

TEST_P(ExamplesOnEmulator, Softmax) {
  const int m = 3, n = 100;
  auto t = examples::softmax(GetParam()).trace({{"M", m}, {"N", n}});
  EmuRun r;
  auto x = random_floats(m * n, 11, -5, 5);
  r.buffer(x, "x");
  const uint64_t y = r.buffer(std::vector<float>(m * n), "y");
  r.launch(*t);
  const auto got = r.read<float>(y, m * n);
  for (int i = 0; i < m; ++i) {
    double mx = -1e30, s = 0;
    for (int j = 0; j < n; ++j) mx = std::max<double>(mx, x[i * n + j]);
    for (int j = 0; j < n; ++j) s += std::exp(x[i * n + j] - mx);
    for (int j = 0; j < n; ++j) ASSERT_NEAR(got[i * n + j], std::exp(x[i * n + j] - mx) / s, 1e-6) << i << "," << j;
  }
}

INSTANTIATE_TEST_SUITE_P(Targets, ExamplesOnEmulator, ::testing::Values("sm_80", "sm_90a", "sm_100a"));

}  // namespace
}  // namespace ptx::test
