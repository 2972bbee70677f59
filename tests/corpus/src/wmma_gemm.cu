// ptxpp corpus: small GEMMs through the nvcuda::wmma API (wmma.load/mma/store), which the
// emulator tests (tests/emu/wmma_emu_test.cpp) run and compare with a host product.
// nvcc corpus (see scripts/gen-corpus): archs: sm_80
#include <mma.h>
#include <cuda_fp16.h>
#include "corpus.h"

using namespace nvcuda;

// D = A * B + C: A M x K row-major f16, B K x N column-major f16, C and D M x N row-major f32.
// One warp per block and per 16 x 16 tile of D: block (x, y) computes rows 16 y.., columns 16 x..
__global__ void wmma_gemm_f16(const half* a, const half* b, const float* c, float* d, int M, int N, int K) {
  const int row = blockIdx.y * 16, col = blockIdx.x * 16;
  if (row >= M || col >= N) return;
  wmma::fragment<wmma::matrix_a, 16, 16, 16, half, wmma::row_major> fa;
  wmma::fragment<wmma::matrix_b, 16, 16, 16, half, wmma::col_major> fb;
  wmma::fragment<wmma::accumulator, 16, 16, 16, float> acc;
  wmma::load_matrix_sync(acc, c + row * N + col, N, wmma::mem_row_major);
  for (int k = 0; k < K; k += 16) {
    wmma::load_matrix_sync(fa, a + row * K + k, K);
    wmma::load_matrix_sync(fb, b + col * K + k, K);
    wmma::mma_sync(acc, fa, fb, acc);
  }
  wmma::store_matrix_sync(d + row * N + col, acc, N, wmma::mem_row_major);
}

// The same in s8 with s32 accumulators, each 16 x 16 tile of A and B staged through shared
// memory (the block is one warp, so __syncthreads orders the warp's copies and loads).
__global__ void wmma_gemm_s8(const signed char* a, const signed char* b, const int* c, int* d, int M, int N, int K) {
  __shared__ __align__(128) signed char sa[16 * 16];
  __shared__ __align__(128) signed char sb[16 * 16];
  const int row = blockIdx.y * 16, col = blockIdx.x * 16;
  if (row >= M || col >= N) return;
  wmma::fragment<wmma::matrix_a, 16, 16, 16, signed char, wmma::row_major> fa;
  wmma::fragment<wmma::matrix_b, 16, 16, 16, signed char, wmma::col_major> fb;
  wmma::fragment<wmma::accumulator, 16, 16, 16, int> acc;
  wmma::load_matrix_sync(acc, c + row * N + col, N, wmma::mem_row_major);
  for (int k = 0; k < K; k += 16) {
    for (int i = threadIdx.x; i < 256; i += 32) {
      sa[i] = a[(row + i / 16) * K + k + i % 16];
      sb[i] = b[(col + i / 16) * K + k + i % 16];
    }
    __syncthreads();
    wmma::load_matrix_sync(fa, sa, 16);
    wmma::load_matrix_sync(fb, sb, 16);
    __syncthreads();
    wmma::mma_sync(acc, fa, fb, acc);
  }
  wmma::store_matrix_sync(d + row * N + col, acc, N, wmma::mem_row_major);
}

// tf32: D = A * B, A and B f32 rounded to tf32 in the fragments (what the API asks for:
// __float_to_tf32 on each element), D stored column-major.
__global__ void wmma_gemm_tf32(const float* a, const float* b, float* d, int M, int N, int K) {
  const int row = blockIdx.y * 16, col = blockIdx.x * 16;
  if (row >= M || col >= N) return;
  wmma::fragment<wmma::matrix_a, 16, 16, 8, wmma::precision::tf32, wmma::row_major> fa;
  wmma::fragment<wmma::matrix_b, 16, 16, 8, wmma::precision::tf32, wmma::col_major> fb;
  wmma::fragment<wmma::accumulator, 16, 16, 8, float> acc;
  wmma::fill_fragment(acc, 0.0f);
  for (int k = 0; k < K; k += 8) {
    wmma::load_matrix_sync(fa, a + row * K + k, K);
    wmma::load_matrix_sync(fb, b + col * K + k, K);
    for (int i = 0; i < fa.num_elements; ++i) fa.x[i] = wmma::__float_to_tf32(fa.x[i]);
    for (int i = 0; i < fb.num_elements; ++i) fb.x[i] = wmma::__float_to_tf32(fb.x[i]);
    wmma::mma_sync(acc, fa, fb, acc);
  }
  wmma::store_matrix_sync(d + col * M + row, acc, M, wmma::mem_col_major);
}
