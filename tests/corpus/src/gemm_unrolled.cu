// ptxpp corpus: large, heavily unrolled GEMM kernels that produce big PTX
// bodies: a register-blocked SIMT GEMM templated on tile sizes and element
// type, and a tensor-core GEMM built from ldmatrix + mma.sync m16n8k16 with a
// multi-stage cp.async pipeline and swizzled shared memory.
// nvcc corpus (see scripts/gen-corpus): archs: sm_80
#include <cuda_fp16.h>
#include <cuda_bf16.h>
#include "corpus.h"

// ---------------------------------------------------------------- SIMT GEMM
template <typename T, typename Acc, int BM, int BN, int BK, int TM, int TN>
__global__ void __launch_bounds__((BM / TM) * (BN / TN))
    simt_gemm(const T* __restrict__ A, const T* __restrict__ B, T* __restrict__ C, int M, int N, int K, Acc alpha,
              Acc beta) {
  constexpr int NT = (BM / TM) * (BN / TN);
  __shared__ T As[2][BK][BM];
  __shared__ T Bs[2][BK][BN];
  const int tid = threadIdx.x;
  const int tx = tid % (BN / TN), ty = tid / (BN / TN);
  const int bm = blockIdx.y * BM, bn = blockIdx.x * BN;
  Acc acc[TM][TN];
#pragma unroll
  for (int i = 0; i < TM; ++i)
#pragma unroll
    for (int j = 0; j < TN; ++j) acc[i][j] = Acc(0);

  auto load_tile = [&](int buf, int k0) {
#pragma unroll
    for (int e = tid; e < BM * BK; e += NT) {
      const int r = e / BK, c = e % BK;
      As[buf][c][r] = A[(size_t)(bm + r) * K + k0 + c];
    }
#pragma unroll
    for (int e = tid; e < BK * BN; e += NT) {
      const int r = e / BN, c = e % BN;
      Bs[buf][r][c] = B[(size_t)(k0 + r) * N + bn + c];
    }
  };

  load_tile(0, 0);
  __syncthreads();
  int buf = 0;
  for (int k0 = 0; k0 < K; k0 += BK) {
    if (k0 + BK < K) load_tile(buf ^ 1, k0 + BK);
#pragma unroll
    for (int k = 0; k < BK; ++k) {
      T a[TM], b[TN];
#pragma unroll
      for (int i = 0; i < TM; ++i) a[i] = As[buf][k][ty * TM + i];
#pragma unroll
      for (int j = 0; j < TN; ++j) b[j] = Bs[buf][k][tx * TN + j];
#pragma unroll
      for (int i = 0; i < TM; ++i)
#pragma unroll
        for (int j = 0; j < TN; ++j) acc[i][j] += static_cast<Acc>(a[i]) * static_cast<Acc>(b[j]);
    }
    __syncthreads();
    buf ^= 1;
  }
#pragma unroll
  for (int i = 0; i < TM; ++i)
#pragma unroll
    for (int j = 0; j < TN; ++j) {
      const size_t idx = (size_t)(bm + ty * TM + i) * N + bn + tx * TN + j;
      C[idx] = static_cast<T>(alpha * acc[i][j] + beta * static_cast<Acc>(C[idx]));
    }
}

template __global__ void simt_gemm<float, float, 128, 128, 8, 8, 8>(const float*, const float*, float*, int, int,
                                                                    int, float, float);
template __global__ void simt_gemm<double, double, 64, 64, 8, 4, 4>(const double*, const double*, double*, int, int,
                                                                     int, double, double);
template __global__ void simt_gemm<int, int, 64, 128, 16, 4, 8>(const int*, const int*, int*, int, int, int, int,
                                                                  int);
template __global__ void simt_gemm<__half, float, 128, 64, 16, 8, 4>(const __half*, const __half*, __half*, int, int,
                                                                      int, float, float);

// ---------------------------------------------------------------- tensor-core GEMM
// Block tile 128x128x32, 8 warps (2x4), warp tile 64x32, mma m16n8k16.
template <typename T>
struct MmaTraits;
template <>
struct MmaTraits<__half> {
  static CORPUS_DEV void mma(float (&d)[4], const uint32_t (&a)[4], const uint32_t (&b)[2]) {
    asm volatile(
        "mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, {%0,%1,%2,%3};"
        : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
        : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]));
  }
};
template <>
struct MmaTraits<__nv_bfloat16> {
  static CORPUS_DEV void mma(float (&d)[4], const uint32_t (&a)[4], const uint32_t (&b)[2]) {
    asm volatile(
        "mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, {%0,%1,%2,%3};"
        : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
        : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]));
  }
};

CORPUS_DEV uint32_t swz(int row, int col_chunk) {  // 16-byte chunk XOR swizzle over 4 chunks per 64B row
  return row * 64 + ((col_chunk ^ (row & 3)) * 16);
}

template <typename T, int STAGES>
__global__ void __launch_bounds__(256) tc_gemm(const T* __restrict__ A, const T* __restrict__ B, float* __restrict__ C,
                                              int M, int N, int K) {
  extern __shared__ __align__(128) unsigned char smem[];
  // per stage: A 128x32 T (8 KB), B 128x32 T (8 KB), both K-contiguous
  const int tid = threadIdx.x, warp = tid / 32, lane = tid % 32;
  const int wm = warp / 4, wn = warp % 4;
  const int bm = blockIdx.y * 128, bn = blockIdx.x * 128;
  const uint32_t sbase = corpus_smem_addr(smem);
  float acc[4][4][4];
#pragma unroll
  for (int i = 0; i < 4; ++i)
#pragma unroll
    for (int j = 0; j < 4; ++j)
#pragma unroll
      for (int e = 0; e < 4; ++e) acc[i][j][e] = 0.f;

  auto issue = [&](int stage, int k0) {
    const uint32_t sa = sbase + stage * 16384, sb = sa + 8192;
#pragma unroll
    for (int r = 0; r < 2; ++r) {
      const int idx = tid + r * 256;  // 512 chunks of 16B per operand
      const int row = idx / 4, ch = idx % 4;
      asm volatile("cp.async.cg.shared.global [%0], [%1], 16;" ::"r"(sa + swz(row, ch)),
                   "l"(A + (size_t)(bm + row) * K + k0 + ch * 8)
                   : "memory");
      asm volatile("cp.async.cg.shared.global [%0], [%1], 16;" ::"r"(sb + swz(row, ch)),
                   "l"(B + (size_t)(bn + row) * K + k0 + ch * 8)
                   : "memory");
    }
    asm volatile("cp.async.commit_group;" ::: "memory");
  };

  const int ktiles = K / 32;
#pragma unroll
  for (int s = 0; s < STAGES - 1; ++s) issue(s, s * 32);

  for (int kt = 0; kt < ktiles; ++kt) {
    asm volatile("cp.async.wait_group %0;" ::"n"(STAGES - 2) : "memory");
    __syncthreads();
    const int stage = kt % STAGES;
    const uint32_t sa = sbase + stage * 16384, sb = sa + 8192;
#pragma unroll
    for (int kk = 0; kk < 2; ++kk) {
      uint32_t af[4][4], bf[4][2];
#pragma unroll
      for (int i = 0; i < 4; ++i) {
        const int row = wm * 64 + i * 16 + (lane % 16);
        const int ch = kk * 2 + lane / 16;
        asm volatile("ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%0, %1, %2, %3}, [%4];"
                     : "=r"(af[i][0]), "=r"(af[i][1]), "=r"(af[i][2]), "=r"(af[i][3])
                     : "r"(sa + swz(row, ch)));
      }
#pragma unroll
      for (int j = 0; j < 4; ++j) {
        const int row = wn * 32 + j * 8 + (lane % 8);
        const int ch = kk * 2 + (lane / 8) % 2;
        asm volatile("ldmatrix.sync.aligned.m8n8.x2.shared.b16 {%0, %1}, [%2];"
                     : "=r"(bf[j][0]), "=r"(bf[j][1])
                     : "r"(sb + swz(row, ch)));
      }
#pragma unroll
      for (int i = 0; i < 4; ++i)
#pragma unroll
        for (int j = 0; j < 4; ++j) MmaTraits<T>::mma(acc[i][j], af[i], bf[j]);
    }
    const int nk = kt + STAGES - 1;
    if (nk < ktiles) issue(nk % STAGES, nk * 32);
    else asm volatile("cp.async.commit_group;" ::: "memory");
  }
  asm volatile("cp.async.wait_all;" ::: "memory");
#pragma unroll
  for (int i = 0; i < 4; ++i)
#pragma unroll
    for (int j = 0; j < 4; ++j) {
      const int r0 = bm + wm * 64 + i * 16 + lane / 4;
      const int c0 = bn + wn * 32 + j * 8 + (lane % 4) * 2;
      *reinterpret_cast<float2*>(C + (size_t)r0 * N + c0) = make_float2(acc[i][j][0], acc[i][j][1]);
      *reinterpret_cast<float2*>(C + (size_t)(r0 + 8) * N + c0) = make_float2(acc[i][j][2], acc[i][j][3]);
    }
}
template __global__ void tc_gemm<__half, 3>(const __half*, const __half*, float*, int, int, int);
template __global__ void tc_gemm<__nv_bfloat16, 4>(const __nv_bfloat16*, const __nv_bfloat16*, float*, int, int,
                                                   int);

// ---------------------------------------------------------------- batched small GEMM, fully unrolled
template <int M, int N, int K>
__global__ void batched_tiny_gemm(const float* __restrict__ A, const float* __restrict__ B, float* __restrict__ C,
                                  int batch) {
  const int b = blockIdx.x * blockDim.x + threadIdx.x;
  if (b >= batch) return;
  float a[M][K], bb[K][N];
#pragma unroll
  for (int i = 0; i < M; ++i)
#pragma unroll
    for (int k = 0; k < K; ++k) a[i][k] = A[(size_t)b * M * K + i * K + k];
#pragma unroll
  for (int k = 0; k < K; ++k)
#pragma unroll
    for (int j = 0; j < N; ++j) bb[k][j] = B[(size_t)b * K * N + k * N + j];
#pragma unroll
  for (int i = 0; i < M; ++i)
#pragma unroll
    for (int j = 0; j < N; ++j) {
      float s = 0.f;
#pragma unroll
      for (int k = 0; k < K; ++k) s = fmaf(a[i][k], bb[k][j], s);
      C[(size_t)b * M * N + i * N + j] = s;
    }
}
template __global__ void batched_tiny_gemm<4, 4, 4>(const float*, const float*, float*, int);
template __global__ void batched_tiny_gemm<6, 6, 6>(const float*, const float*, float*, int);
template __global__ void batched_tiny_gemm<8, 8, 8>(const float*, const float*, float*, int);
