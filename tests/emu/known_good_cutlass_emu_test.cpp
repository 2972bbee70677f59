// CUTLASS/CuTe kernels of tests/corpus/cutlass (nvcc's PTX of tests/corpus/src-real/cutlass)
// on the emulator against a plain C++ reference, launched as their sources say.
//
// cute_gemm_sm80.cu: cute_gemm_tn(A, B, C, M, N, K), A M x K and B N x K (K contiguous), C
// M x N row-major f32; 64 x 64 x 32 CTA tiles without predication (M, N multiples of 64, K
// of 32), grid (M / 64, N / 64), 128 threads (__launch_bounds__ and the 2 x 2 warp MMA), static
// shared memory only: cp.async into a Swizzle<2,3,3> layout, ldmatrix, mma.sync m16n8k16.
// The CUTLASS 2.x/3.x device GEMMs take a kernel Params struct built by host code (iterator
// strides, swizzle, TMA descriptors), which these tests do not rebuild.
#include <gtest/gtest.h>

#include <cstdint>
#include <string>
#include <vector>

#include "known_good_util.hpp"

namespace {

using namespace ptx::test::known_good;

void check_cute_gemm(const char* arch) {
  const int m = 128, n = 192, k = 96;  // a 2 x 3 grid, three K tiles
  const auto a = small_values(size_t(m) * k, 70, 64, 0x1p-6), b = small_values(size_t(n) * k, 71, 64, 0x1p-6);
  ptx::test::EmuRun run;
  run.buffer(as_f16(a), "A");
  run.buffer(as_f16(b), "B");
  const uint64_t c = run.buffer(std::vector<float>(size_t(m) * n + 16, -1.0f), "C");
  run.scalar(int32_t{m});
  run.scalar(int32_t{n});
  run.scalar(int32_t{k});
  const std::string ptx = ptx::test::read_text(std::string(PTXPP_CORPUS_DIR) + "/cutlass/" + arch + "/cute_gemm_sm80.ptx");
  run.launch(ptx, "_Z12cute_gemm_tnPKN7cutlass6half_tES2_Pfiii", {m / 64, n / 64, 1}, {128, 1, 1});
  const auto got = run.read<float>(c, size_t(m) * n + 16);
  // k/64 inputs: every product and sum is exact in f32, whatever the order
  for (int i = 0; i < m; ++i)
    for (int j = 0; j < n; ++j) {
      double want = 0;
      for (int p = 0; p < k; ++p) want += a[i * k + p] * b[j * k + p];
      ASSERT_EQ(got[i * n + j], want) << "C[" << i << "][" << j << "]";
    }
  for (int i = m * n; i < m * n + 16; ++i) ASSERT_EQ(got[i], -1.0f) << "store past C at " << i;
}
TEST(EmuKnownGood, CuteGemmSm80) { check_cute_gemm("sm_80"); }
TEST(EmuKnownGood, CuteGemmSm86) { check_cute_gemm("sm_86"); }

}  // namespace
