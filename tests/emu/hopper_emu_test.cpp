// The sm_90 GEMM example (examples/kernels/gemm_sm90.hpp) on the CPU device: TMA tile loads
// with the 128-byte swizzle, the 4-stage mbarrier pipeline and wgmma, against a CPU reference.
#include <chrono>
#include <cmath>
#include <cstring>
#include <iostream>
#include <random>
#include <vector>

#include <gtest/gtest.h>
#include <ptxpp/runtime.hpp>

#include "../../examples/kernels/gemm_sm90.hpp"
#include "../../examples/kernels/bf16_host.hpp"

namespace ptx::test {
namespace {

using examples::from_bf16;
using examples::to_bf16;

std::vector<uint16_t> random_bf16(size_t n, unsigned seed) {
  std::mt19937 g(seed);
  std::uniform_real_distribution<float> d(-1.0f, 1.0f);
  std::vector<uint16_t> v(n);
  for (auto& x : v) x = to_bf16(d(g));
  return v;
}

// Runs the GEMM on the CPU device and compares every element with a double-precision reference.
void check_gemm(int64_t M, int64_t N, int64_t K, int cluster_m = 1) {
  const auto a = random_bf16(static_cast<size_t>(M * K), 31), b = random_bf16(static_cast<size_t>(N * K), 32);
  Device cpu = device::cpu();
  DevicePtr da = cpu.alloc(a.size() * 2, "A"), db = cpu.alloc(b.size() * 2, "B"), dc = cpu.alloc(static_cast<size_t>(M * N) * 4, "C");
  cpu.copy_to_device(da, a.data(), a.size() * 2);
  cpu.copy_to_device(db, b.data(), b.size() * 2);
  cpu.fill(dc, 0xff, static_cast<size_t>(M * N) * 4);  // NaN: every element must be written
  const auto [ma, mb] = examples::gemm_sm90_tensor_maps(cpu, da, db, M, N, K, cluster_m);
  auto k = bind(cpu, examples::gemm_sm90("sm_90a", cluster_m), {{"M", M}, {"N", N}, {"K", K}});
  const auto start = std::chrono::steady_clock::now();
  k(ma, mb, dc);
  cpu.synchronize();
  const double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  std::cout << "[ gemm_sm90" << (cluster_m > 1 ? "_c2 " : " ") << M << "x" << N << "x" << K << " ] emulator: " << secs << " s\n";
  std::vector<float> got(static_cast<size_t>(M * N));
  cpu.copy_to_host(got.data(), dc, got.size() * 4);
  for (int64_t i = 0; i < M; ++i)
    for (int64_t j = 0; j < N; ++j) {
      double ref = 0;
      for (int64_t kk = 0; kk < K; ++kk)
        ref += static_cast<double>(from_bf16(a[static_cast<size_t>(i * K + kk)])) * from_bf16(b[static_cast<size_t>(j * K + kk)]);
      ASSERT_NEAR(got[static_cast<size_t>(i * N + j)], ref, 1e-3 * (1 + std::fabs(ref))) << i << "," << j;
    }
  cpu.free(da);
  cpu.free(db);
  cpu.free(dc);
}

// 256 x 512 x 640: four CTAs, 10 K tiles: the producer runs two rounds of its 4-stage run-time
// loop (each stage's barriers go through phases 0, 1 and 0 again) and two unrolled tiles; the
// consumers one peeled tile, two rounds and one unrolled tile.
TEST(HopperOnEmulator, GemmSm90MatchesTheCpuReference) { check_gemm(256, 512, 640); }

// Clusters of two CTAs along M, B multicast: 512 x 256 x 640 is two clusters, 10 K tiles.
TEST(HopperOnEmulator, GemmSm90ClusterMulticastMatchesTheCpuReference) { check_gemm(512, 256, 640, 2); }

// Fewer K tiles than stages: no run-time loop.
TEST(HopperOnEmulator, GemmSm90WithOneKTile) { check_gemm(128, 256, 64); }

}  // namespace
}  // namespace ptx::test
