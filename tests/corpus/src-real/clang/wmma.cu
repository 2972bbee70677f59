// Warp matrix multiply through clang's WMMA builtins (wmma.load/mma/store): f16 with
// f32 and f16 accumulators, s8, and on sm_80+ bf16, tf32 and f64.
#include "nvptx.h"

extern "C" __global__ void wmma_f16_f32(const int* a, const int* b, float* c, unsigned lda, unsigned ldb,
                                       unsigned ldc, int k_tiles) {
  int fa[8], fb[8];
  float acc[8];
  __hmma_m16n16k16_ld_c_f32(acc, c, ldc, 0);
  for (int k = 0; k < k_tiles; ++k) {
    __hmma_m16n16k16_ld_a(fa, a + k * 8, lda, 0);
    __hmma_m16n16k16_ld_b(fb, b + k * 8 * ldb, ldb, 1);
    __hmma_m16n16k16_mma_f32f32(acc, fa, fb, acc, 1, 0);
  }
  __hmma_m16n16k16_st_c_f32(c, acc, ldc, 0);
}

extern "C" __global__ void wmma_f16_f16_32x8(const int* a, const int* b, int* c, unsigned ld) {
  int fa[8], fb[8], acc[4];
  __hmma_m32n8k16_ld_a(fa, a, ld, 0);
  __hmma_m32n8k16_ld_b(fb, b, ld, 0);
  __hmma_m32n8k16_ld_c_f16(acc, c, ld, 0);
  __hmma_m32n8k16_mma_f16f16(acc, fa, fb, acc, 0, 0);
  __hmma_m32n8k16_st_c_f16(c, acc, ld, 0);
}

extern "C" __global__ void wmma_s8(const int* a, const int* b, int* c, unsigned ld) {
  int fa[2], fb[2], acc[8];
  __imma_m16n16k16_ld_a_s8(fa, a, ld, 0);
  __imma_m16n16k16_ld_b_s8(fb, b, ld, 1);
  __imma_m16n16k16_ld_c(acc, c, ld, 0);
  __imma_m16n16k16_mma_s8(acc, fa, fb, acc, 1, 1);
  __imma_m16n16k16_st_c_i32(c, acc, ld, 0);
}

#if __CUDA_ARCH__ >= 800
extern "C" __global__ void wmma_bf16(const int* a, const int* b, float* c, unsigned ld) {
  int fa[4], fb[4];
  float acc[8] = {};
  __mma_bf16_m16n16k16_ld_a(fa, a, ld, 0);
  __mma_bf16_m16n16k16_ld_b(fb, b, ld, 0);
  __mma_bf16_m16n16k16_mma_f32(acc, fa, fb, acc, 0, 0);
  __hmma_m16n16k16_st_c_f32(c, acc, ld, 0);
}

extern "C" __global__ void wmma_tf32(const int* a, const int* b, float* c, unsigned ld) {
  int fa[4], fb[4];
  float acc[8] = {};
  __mma_tf32_m16n16k8_ld_a(fa, a, ld, 0);
  __mma_tf32_m16n16k8_ld_b(fb, b, ld, 1);
  __mma_tf32_m16n16k8_mma_f32(acc, fa, fb, acc, 1, 0);
  __mma_m16n16k8_st_c_f32(c, acc, ld, 0);
}

extern "C" __global__ void wmma_f64(const double* a, const double* b, double* c, unsigned ld) {
  double fa[1], fb[1], acc[2];
  __dmma_m8n8k4_ld_a(fa, a, ld, 0);
  __dmma_m8n8k4_ld_b(fb, b, ld, 0);
  __dmma_m8n8k4_ld_c(acc, c, ld, 0);
  __dmma_m8n8k4_mma_f64(acc, fa, fb, acc, 0, 0);
  __dmma_m8n8k4_st_c_f64(c, acc, ld, 0);
}
#endif
