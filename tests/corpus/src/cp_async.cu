// ptxpp corpus: Ampere-style asynchronous copies: cp.async.ca/cg with 4/8/16
// bytes, zero-fill (src-size), cache hints, commit_group/wait_group/wait_all,
// cp.async.mbarrier.arrive(.noinc), the pipeline primitives, cuda::pipeline,
// cuda::memcpy_async with cuda::barrier, cooperative_groups::memcpy_async, and a
// multi-stage double-buffered GEMM.
// nvcc corpus (see scripts/gen-corpus): archs: sm_80
#include <cuda_pipeline.h>
#include <cuda/pipeline>
#include <cuda/barrier>
#include <cooperative_groups.h>
#include <cooperative_groups/memcpy_async.h>
#include "corpus.h"

#pragma nv_diag_suppress static_var_with_dynamic_init

namespace cg = cooperative_groups;

__global__ void raw_cp_async(const float* __restrict__ g, float* __restrict__ out, int valid) {
  __shared__ __align__(16) float s[4 * 256];
  const int t = threadIdx.x;
  const uint32_t base = corpus_smem_addr(s);
  asm volatile("cp.async.ca.shared.global [%0], [%1], 4;" ::"r"(base + t * 4), "l"(g + t) : "memory");
  asm volatile("cp.async.ca.shared.global [%0], [%1], 8;" ::"r"(base + 1024 + t * 8 % 1024), "l"(g + 256 + t * 2)
               : "memory");
  asm volatile("cp.async.commit_group;" ::: "memory");
  asm volatile("cp.async.cg.shared.global [%0], [%1], 16;" ::"r"(base + 2048 + (t % 64) * 16), "l"(g + 512 + t * 4)
               : "memory");
  asm volatile("cp.async.cg.shared.global.L2::128B [%0], [%1], 16, %2;" ::"r"(base + 3072 + (t % 64) * 16),
               "l"(g + 1024 + t * 4), "r"(valid)
               : "memory");
  asm volatile("cp.async.ca.shared.global.L2::64B [%0], [%1], 16, 8;" ::"r"(base + (t % 64) * 16), "l"(g + t * 4)
               : "memory");
  asm volatile("cp.async.ca.shared.global.L2::256B [%0], [%1], 4, 0;" ::"r"(base + t * 4), "l"(g + t) : "memory");
  asm volatile("cp.async.commit_group;" ::: "memory");
  asm volatile("cp.async.wait_group 1;" ::: "memory");
  asm volatile("cp.async.wait_group 0;" ::: "memory");
  asm volatile("cp.async.wait_all;" ::: "memory");
  {
    uint64_t pol;
    asm volatile("createpolicy.fractional.L2::evict_first.b64 %0, 0.5;" : "=l"(pol));
    asm volatile("cp.async.cg.shared.global.L2::cache_hint [%0], [%1], 16, %2;" ::"r"(base + (t % 64) * 16),
                 "l"(g + 2048 + t * 4), "l"(pol)
                 : "memory");
    asm volatile("cp.async.ca.shared.global.L2::cache_hint.L2::128B [%0], [%1], 8, 4, %2;" ::"r"(base + 8 * (t % 128)),
                 "l"(g + 4096 + t * 2), "l"(pol)
                 : "memory");
    asm volatile("cp.async.commit_group;\n\tcp.async.wait_group 0;" ::: "memory");
  }
  __syncthreads();
  out[blockIdx.x * 256 + t] = s[t] + s[256 + t] + s[512 + t] + s[768 + t];
}

__global__ void cp_async_mbarrier(const int4* __restrict__ g, int4* __restrict__ out) {
  __shared__ __align__(16) int4 s[512];
  __shared__ uint64_t bar;
  const uint32_t b = corpus_smem_addr(&bar);
  if (threadIdx.x == 0) asm volatile("mbarrier.init.shared.b64 [%0], %1;" ::"r"(b), "r"((int)blockDim.x));
  __syncthreads();
  for (int i = threadIdx.x; i < 512; i += blockDim.x)
    asm volatile("cp.async.cg.shared.global [%0], [%1], 16;" ::"r"(corpus_smem_addr(&s[i])), "l"(g + i) : "memory");
  if (threadIdx.x & 1)
    asm volatile("cp.async.mbarrier.arrive.shared.b64 [%0];" ::"r"(b) : "memory");
  else
    asm volatile(
        "cp.async.mbarrier.arrive.noinc.shared::cta.b64 [%0];\n\t"
        "mbarrier.arrive.shared.b64 _, [%0];" ::"r"(b)
        : "memory");
  uint64_t state;
  asm volatile("mbarrier.arrive.shared.b64 %0, [%1];" : "=l"(state) : "r"(b) : "memory");
  asm volatile(
      "{\n\t.reg .pred done;\n"
      "LOOP_%=:\n\t"
      "mbarrier.test_wait.shared.b64 done, [%0], %1;\n\t"
      "@!done bra.uni LOOP_%=;\n\t}" ::"r"(b),
      "l"(state)
      : "memory");
  for (int i = threadIdx.x; i < 512; i += blockDim.x) out[blockIdx.x * 512 + i] = s[511 - i];
}

__global__ void pipeline_primitives(const float4* g, float4* out, int nchunks) {
  __shared__ float4 buf[2][128];
  const int t = threadIdx.x;
  __pipeline_memcpy_async(&buf[0][t], &g[t], sizeof(float4));
  __pipeline_commit();
  float4 acc = make_float4(0, 0, 0, 0);
  for (int c = 1; c <= nchunks; ++c) {
    if (c < nchunks) __pipeline_memcpy_async(&buf[c & 1][t], &g[c * 128 + t], sizeof(float4), 0);
    __pipeline_commit();
    __pipeline_wait_prior(1);
    __syncthreads();
    const float4 v = buf[(c - 1) & 1][(t + 1) % 128];
    acc.x += v.x;
    acc.y += v.y;
    acc.z += v.z;
    acc.w += v.w;
    __syncthreads();
  }
  __pipeline_wait_prior(0);
  out[blockIdx.x * 128 + t] = acc;
}

__global__ void cuda_pipeline_stages(const float* g, float* out, int n) {
  constexpr int stages = 3;
  constexpr int tile = 256;
  __shared__ float s[stages][tile];
  __shared__ cuda::pipeline_shared_state<cuda::thread_scope_block, stages> state;
  auto block = cg::this_thread_block();
  auto pipe = cuda::make_pipeline(block, &state);
  float acc = 0.f;
  const int ntiles = n / tile;
  int fetch = 0;
  for (int compute = 0; compute < ntiles; ++compute) {
    for (; fetch < ntiles && fetch < compute + stages; ++fetch) {
      pipe.producer_acquire();
      cuda::memcpy_async(block, s[fetch % stages], g + fetch * tile, sizeof(float) * tile, pipe);
      pipe.producer_commit();
    }
    pipe.consumer_wait();
    acc += s[compute % stages][threadIdx.x] * s[compute % stages][(threadIdx.x + 1) % tile];
    pipe.consumer_release();
  }
  out[blockIdx.x * blockDim.x + threadIdx.x] = acc;
}

__global__ void barrier_memcpy(const double* g, double* out) {
  __shared__ double s[1024];
  __shared__ cuda::barrier<cuda::thread_scope_block> bar;
  auto block = cg::this_thread_block();
  if (block.thread_rank() == 0) init(&bar, block.size());
  block.sync();
  cuda::memcpy_async(block, s, g + blockIdx.x * 1024, cuda::aligned_size_t<16>(sizeof(double) * 1024), bar);
  bar.arrive_and_wait();
  double v = 0;
  for (int i = threadIdx.x; i < 1024; i += blockDim.x) v += s[i] * s[1023 - i];
  auto token = bar.arrive();
  bar.wait(std::move(token));
  cg::memcpy_async(block, s, g + (blockIdx.x + 1) * 1024, sizeof(double) * 512);
  cg::wait(block);
  out[blockIdx.x * blockDim.x + threadIdx.x] = v + s[threadIdx.x];
}

// Multi-stage cp.async SGEMM tile (128x128x8, 256 threads, 8x8 per thread).
template <int STAGES>
__global__ void __launch_bounds__(256) sgemm_cp_async(const float* __restrict__ A, const float* __restrict__ B,
                                                      float* __restrict__ C, int M, int N, int K) {
  __shared__ __align__(16) float As[STAGES][8][128];
  __shared__ __align__(16) float Bs[STAGES][8][128];
  const int tid = threadIdx.x;
  const int bm = blockIdx.y * 128, bn = blockIdx.x * 128;
  const int tm = (tid / 16) * 8, tn = (tid % 16) * 8;
  float acc[8][8] = {};
  auto load = [&](int stage, int k0) {
    // A tile: 128x8 -> transposed into As[k][m]; 4 floats per thread
    const int ar = tid / 2, ac = (tid % 2) * 4;
#pragma unroll
    for (int j = 0; j < 4; ++j)
      asm volatile("cp.async.ca.shared.global [%0], [%1], 4;" ::"r"(corpus_smem_addr(&As[stage][ac + j][ar])),
                   "l"(A + (size_t)(bm + ar) * K + k0 + ac + j)
                   : "memory");
    const int br = tid / 32, bc = (tid % 32) * 4;
    asm volatile("cp.async.cg.shared.global [%0], [%1], 16;" ::"r"(corpus_smem_addr(&Bs[stage][br][bc])),
                 "l"(B + (size_t)(k0 + br) * N + bn + bc)
                 : "memory");
    asm volatile("cp.async.commit_group;" ::: "memory");
  };
  const int ktiles = K / 8;
#pragma unroll
  for (int s = 0; s < STAGES - 1; ++s)
    if (s < ktiles) load(s, s * 8);
  for (int kt = 0; kt < ktiles; ++kt) {
    asm volatile("cp.async.wait_group %0;" ::"n"(STAGES - 2) : "memory");
    __syncthreads();
    const int st = kt % STAGES;
#pragma unroll
    for (int k = 0; k < 8; ++k) {
      float a[8], b[8];
      *reinterpret_cast<float4*>(a) = *reinterpret_cast<const float4*>(&As[st][k][tm]);
      *reinterpret_cast<float4*>(a + 4) = *reinterpret_cast<const float4*>(&As[st][k][tm + 4]);
      *reinterpret_cast<float4*>(b) = *reinterpret_cast<const float4*>(&Bs[st][k][tn]);
      *reinterpret_cast<float4*>(b + 4) = *reinterpret_cast<const float4*>(&Bs[st][k][tn + 4]);
#pragma unroll
      for (int i = 0; i < 8; ++i)
#pragma unroll
        for (int j = 0; j < 8; ++j) acc[i][j] = fmaf(a[i], b[j], acc[i][j]);
    }
    const int nk = kt + STAGES - 1;
    if (nk < ktiles) load(nk % STAGES, nk * 8);
    else asm volatile("cp.async.commit_group;" ::: "memory");
  }
#pragma unroll
  for (int i = 0; i < 8; ++i) {
    float* c = C + (size_t)(bm + tm + i) * N + bn + tn;
    *reinterpret_cast<float4*>(c) = make_float4(acc[i][0], acc[i][1], acc[i][2], acc[i][3]);
    *reinterpret_cast<float4*>(c + 4) = make_float4(acc[i][4], acc[i][5], acc[i][6], acc[i][7]);
  }
}
template __global__ void sgemm_cp_async<2>(const float*, const float*, float*, int, int, int);
template __global__ void sgemm_cp_async<3>(const float*, const float*, float*, int, int, int);
