// SIMT matrix multiplies: a shared-memory tiled SGEMM, a register-blocked variant
// with 4x4 outputs per thread, and a DGEMM instantiated from the same template.
#include "nvptx.h"

template <typename T, int TILE>
__device__ void tiled_gemm(const T* A, const T* B, T* C, int M, int N, int K, T alpha, T beta) {
  __shared__ T As[TILE][TILE];
  __shared__ T Bs[TILE][TILE + 1];
  int row = ctaid_y() * TILE + tid_y(), col = ctaid_x() * TILE + tid_x();
  T acc = 0;
  for (int k0 = 0; k0 < K; k0 += TILE) {
    As[tid_y()][tid_x()] = (row < M && k0 + int(tid_x()) < K) ? A[row * K + k0 + tid_x()] : T(0);
    Bs[tid_y()][tid_x()] = (col < N && k0 + int(tid_y()) < K) ? B[(k0 + tid_y()) * N + col] : T(0);
    sync_block();
#pragma unroll
    for (int k = 0; k < TILE; ++k) acc += As[tid_y()][k] * Bs[k][tid_x()];
    sync_block();
  }
  if (row < M && col < N) C[row * N + col] = alpha * acc + beta * C[row * N + col];
}

extern "C" __global__ void sgemm_tiled16(const float* A, const float* B, float* C, int M, int N, int K, float alpha,
                                        float beta) {
  tiled_gemm<float, 16>(A, B, C, M, N, K, alpha, beta);
}
extern "C" __global__ void dgemm_tiled8(const double* A, const double* B, double* C, int M, int N, int K, double alpha,
                                       double beta) {
  tiled_gemm<double, 8>(A, B, C, M, N, K, alpha, beta);
}

// 64x64 block tile, 16x16 threads, 4x4 outputs each; K multiple of 8
extern "C" __global__ void __launch_bounds__(256, 1) sgemm_reg4x4(const float* A, const float* B, float* C, int M,
                                                                   int N, int K) {
  __shared__ float As[8][64];
  __shared__ float Bs[8][64];
  float acc[4][4] = {};
  int tx = tid_x(), ty = tid_y(), t = ty * 16 + tx;
  int bm = ctaid_y() * 64, bn = ctaid_x() * 64;
  for (int k0 = 0; k0 < K; k0 += 8) {
    for (int e = t; e < 512; e += 256) {
      int r = e / 8, c = e % 8;
      As[c][r] = A[(bm + r) * K + k0 + c];
      Bs[e / 64][e % 64] = B[(k0 + e / 64) * N + bn + e % 64];
    }
    sync_block();
#pragma unroll
    for (int k = 0; k < 8; ++k) {
      float a[4], b[4];
#pragma unroll
      for (int i = 0; i < 4; ++i) a[i] = As[k][ty * 4 + i], b[i] = Bs[k][tx * 4 + i];
#pragma unroll
      for (int i = 0; i < 4; ++i)
#pragma unroll
        for (int j = 0; j < 4; ++j) acc[i][j] = __builtin_fmaf(a[i], b[j], acc[i][j]);
    }
    sync_block();
  }
  for (int i = 0; i < 4; ++i)
    for (int j = 0; j < 4; ++j)
      if (bm + ty * 4 + i < M && bn + tx * 4 + j < N) C[(bm + ty * 4 + i) * N + bn + tx * 4 + j] = acc[i][j];
}
