// ptxpp corpus: tensor memory accelerator (cp.async.bulk.tensor 1D-5D, tile and
// im2col modes, multicast, L2 cache hints, stores, reductions, prefetch),
// non-tensor bulk copies (cp.async.bulk, cp.reduce.async.bulk), bulk groups,
// tensormap.replace and tensormap proxy fences.
// nvcc corpus (see scripts/gen-corpus): archs: sm_90a sm_100a sm_120a   variants: lineinfo:sm_90a
#include <cuda.h>
#include <cuda/ptx>
#include "corpus.h"

#if __CUDA_ARCH__ >= 900
#define TMA_OK 1
#else
#define TMA_OK 0
#endif
#if CORPUS_SM90A || CORPUS_SM100A
#define TMA_MC 1
#else
#define TMA_MC 0
#endif

#if TMA_OK
CORPUS_DEV uint64_t policy_evict_last() {
  uint64_t p;
  asm volatile("createpolicy.fractional.L2::evict_last.b64 %0, 1.0;" : "=l"(p));
  return p;
}
CORPUS_DEV uint64_t policy_evict_first_frac(float f) {
  uint64_t p;
  asm volatile("createpolicy.fractional.L2::evict_first.L2::evict_unchanged.b64 %0, %1;" : "=l"(p) : "f"(f));
  return p;
}

CORPUS_DEV void load_1d(void* dst, const CUtensorMap* m, int c0, uint64_t* bar) {
  asm volatile(
      "cp.async.bulk.tensor.1d.shared::cluster.global.tile.mbarrier::complete_tx::bytes [%0], [%1, {%2}], [%3];" ::"r"(
          corpus_smem_addr(dst)),
      "l"(m), "r"(c0), "r"(corpus_smem_addr(bar))
      : "memory");
}
CORPUS_DEV void load_2d_hint(void* dst, const CUtensorMap* m, int c0, int c1, uint64_t* bar, uint64_t pol) {
  asm volatile(
      "cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes.L2::cache_hint"
      " [%0], [%1, {%2, %3}], [%4], %5;" ::"r"(corpus_smem_addr(dst)),
      "l"(m), "r"(c0), "r"(c1), "r"(corpus_smem_addr(bar)), "l"(pol)
      : "memory");
}
CORPUS_DEV void load_3d(void* dst, const CUtensorMap* m, int c0, int c1, int c2, uint64_t* bar) {
  asm volatile(
      "cp.async.bulk.tensor.3d.shared::cluster.global.tile.mbarrier::complete_tx::bytes"
      " [%0], [%1, {%2, %3, %4}], [%5];" ::"r"(corpus_smem_addr(dst)),
      "l"(m), "r"(c0), "r"(c1), "r"(c2), "r"(corpus_smem_addr(bar))
      : "memory");
}
CORPUS_DEV void load_4d(void* dst, const CUtensorMap* m, const int (&c)[4], uint64_t* bar) {
  asm volatile(
      "cp.async.bulk.tensor.4d.shared::cluster.global.tile.mbarrier::complete_tx::bytes"
      " [%0], [%1, {%2, %3, %4, %5}], [%6];" ::"r"(corpus_smem_addr(dst)),
      "l"(m), "r"(c[0]), "r"(c[1]), "r"(c[2]), "r"(c[3]), "r"(corpus_smem_addr(bar))
      : "memory");
}
CORPUS_DEV void load_5d(void* dst, const CUtensorMap* m, const int (&c)[5], uint64_t* bar) {
  asm volatile(
      "cp.async.bulk.tensor.5d.shared::cluster.global.tile.mbarrier::complete_tx::bytes"
      " [%0], [%1, {%2, %3, %4, %5, %6}], [%7];" ::"r"(corpus_smem_addr(dst)),
      "l"(m), "r"(c[0]), "r"(c[1]), "r"(c[2]), "r"(c[3]), "r"(c[4]), "r"(corpus_smem_addr(bar))
      : "memory");
}
CORPUS_DEV void load_im2col_3d(void* dst, const CUtensorMap* m, int c0, int c1, int c2, uint16_t off,
                               uint64_t* bar) {
  asm volatile(
      "cp.async.bulk.tensor.3d.shared::cluster.global.im2col.mbarrier::complete_tx::bytes"
      " [%0], [%1, {%2, %3, %4}], [%5], {%6};" ::"r"(corpus_smem_addr(dst)),
      "l"(m), "r"(c0), "r"(c1), "r"(c2), "r"(corpus_smem_addr(bar)), "h"(off)
      : "memory");
}
CORPUS_DEV void load_im2col_4d(void* dst, const CUtensorMap* m, const int (&c)[4], uint16_t o0, uint16_t o1,
                               uint64_t* bar) {
  asm volatile(
      "cp.async.bulk.tensor.4d.shared::cluster.global.im2col.mbarrier::complete_tx::bytes"
      " [%0], [%1, {%2, %3, %4, %5}], [%6], {%7, %8};" ::"r"(corpus_smem_addr(dst)),
      "l"(m), "r"(c[0]), "r"(c[1]), "r"(c[2]), "r"(c[3]), "r"(corpus_smem_addr(bar)), "h"(o0), "h"(o1)
      : "memory");
}
CORPUS_DEV void load_im2col_5d_hint(void* dst, const CUtensorMap* m, const int (&c)[5], uint16_t o0, uint16_t o1,
                                    uint16_t o2, uint64_t* bar, uint64_t pol) {
  asm volatile(
      "cp.async.bulk.tensor.5d.shared::cluster.global.im2col.mbarrier::complete_tx::bytes.L2::cache_hint"
      " [%0], [%1, {%2, %3, %4, %5, %6}], [%7], {%8, %9, %10}, %11;" ::"r"(corpus_smem_addr(dst)),
      "l"(m), "r"(c[0]), "r"(c[1]), "r"(c[2]), "r"(c[3]), "r"(c[4]), "r"(corpus_smem_addr(bar)), "h"(o0), "h"(o1),
      "h"(o2), "l"(pol)
      : "memory");
}

#if TMA_MC
CORPUS_DEV void load_2d_multicast(void* dst, const CUtensorMap* m, int c0, int c1, uint64_t* bar, uint16_t mask) {
  asm volatile(
      "cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes.multicast::cluster"
      " [%0], [%1, {%2, %3}], [%4], %5;" ::"r"(corpus_smem_addr(dst)),
      "l"(m), "r"(c0), "r"(c1), "r"(corpus_smem_addr(bar)), "h"(mask)
      : "memory");
}
CORPUS_DEV void load_3d_multicast_hint(void* dst, const CUtensorMap* m, int c0, int c1, int c2, uint64_t* bar,
                                       uint16_t mask, uint64_t pol) {
  asm volatile(
      "cp.async.bulk.tensor.3d.shared::cluster.global.tile.mbarrier::complete_tx::bytes.multicast::cluster"
      ".L2::cache_hint [%0], [%1, {%2, %3, %4}], [%5], %6, %7;" ::"r"(corpus_smem_addr(dst)),
      "l"(m), "r"(c0), "r"(c1), "r"(c2), "r"(corpus_smem_addr(bar)), "h"(mask), "l"(pol)
      : "memory");
}
CORPUS_DEV void load_im2col_4d_multicast(void* dst, const CUtensorMap* m, const int (&c)[4], uint16_t o0,
                                         uint16_t o1, uint64_t* bar, uint16_t mask) {
  asm volatile(
      "cp.async.bulk.tensor.4d.shared::cluster.global.im2col.mbarrier::complete_tx::bytes.multicast::cluster"
      " [%0], [%1, {%2, %3, %4, %5}], [%6], {%7, %8}, %9;" ::"r"(corpus_smem_addr(dst)),
      "l"(m), "r"(c[0]), "r"(c[1]), "r"(c[2]), "r"(c[3]), "r"(corpus_smem_addr(bar)), "h"(o0), "h"(o1), "h"(mask)
      : "memory");
}
#endif

CORPUS_DEV void store_2d(const CUtensorMap* m, int c0, int c1, const void* src) {
  asm volatile("cp.async.bulk.tensor.2d.global.shared::cta.tile.bulk_group [%0, {%1, %2}], [%3];" ::"l"(m), "r"(c0),
               "r"(c1), "r"(corpus_smem_addr(src))
               : "memory");
}
CORPUS_DEV void store_5d_hint(const CUtensorMap* m, const int (&c)[5], const void* src, uint64_t pol) {
  asm volatile(
      "cp.async.bulk.tensor.5d.global.shared::cta.tile.bulk_group.L2::cache_hint"
      " [%0, {%1, %2, %3, %4, %5}], [%6], %7;" ::"l"(m),
      "r"(c[0]), "r"(c[1]), "r"(c[2]), "r"(c[3]), "r"(c[4]), "r"(corpus_smem_addr(src)), "l"(pol)
      : "memory");
}
CORPUS_DEV void store_im2col_3d(const CUtensorMap* m, int c0, int c1, int c2, const void* src) {
  asm volatile("cp.async.bulk.tensor.3d.global.shared::cta.im2col_no_offs.bulk_group [%0, {%1, %2, %3}], [%4];" ::"l"(
                   m),
               "r"(c0), "r"(c1), "r"(c2), "r"(corpus_smem_addr(src))
               : "memory");
}

#define TMA_RED(OP, DIM, COORDS, ...)                                                                         \
  asm volatile("cp.reduce.async.bulk.tensor." #DIM ".global.shared::cta." #OP ".tile.bulk_group [%0, " COORDS \
               "], [%1];" ::"l"(m),                                                                           \
               "r"(corpus_smem_addr(src)), __VA_ARGS__                                                        \
               : "memory")

CORPUS_DEV void reduce_all_ops(const CUtensorMap* m, const void* src, int x, int y, int z, int w, int v) {
  TMA_RED(add, 1d, "{%2}", "r"(x));
  TMA_RED(min, 2d, "{%2, %3}", "r"(x), "r"(y));
  TMA_RED(max, 3d, "{%2, %3, %4}", "r"(x), "r"(y), "r"(z));
  TMA_RED(inc, 4d, "{%2, %3, %4, %5}", "r"(x), "r"(y), "r"(z), "r"(w));
  TMA_RED(dec, 5d, "{%2, %3, %4, %5, %6}", "r"(x), "r"(y), "r"(z), "r"(w), "r"(v));
  TMA_RED(and, 2d, "{%2, %3}", "r"(y), "r"(x));
  TMA_RED(or, 3d, "{%2, %3, %4}", "r"(z), "r"(y), "r"(x));
  TMA_RED(xor, 1d, "{%2}", "r"(v));
  asm volatile(
      "cp.reduce.async.bulk.tensor.3d.global.shared::cta.add.im2col_no_offs.bulk_group [%0, {%1, %2, %3}], "
      "[%4];" ::"l"(m),
      "r"(x), "r"(y), "r"(z), "r"(corpus_smem_addr(src))
      : "memory");
}

CORPUS_DEV void prefetch_tensors(const CUtensorMap* m, int x, int y, int z, int w, int v, uint64_t pol) {
  asm volatile("cp.async.bulk.prefetch.tensor.1d.L2.global.tile [%0, {%1}];" ::"l"(m), "r"(x) : "memory");
  asm volatile("cp.async.bulk.prefetch.tensor.2d.L2.global.tile [%0, {%1, %2}];" ::"l"(m), "r"(x), "r"(y)
               : "memory");
  asm volatile("cp.async.bulk.prefetch.tensor.3d.L2.global.tile.L2::cache_hint [%0, {%1, %2, %3}], %4;" ::"l"(m),
               "r"(x), "r"(y), "r"(z), "l"(pol)
               : "memory");
  asm volatile("cp.async.bulk.prefetch.tensor.4d.L2.global.im2col [%0, {%1, %2, %3, %4}], {%5, %6};" ::"l"(m),
               "r"(x), "r"(y), "r"(z), "r"(w), "h"((uint16_t)1), "h"((uint16_t)2)
               : "memory");
  asm volatile("cp.async.bulk.prefetch.tensor.5d.L2.global.tile [%0, {%1, %2, %3, %4, %5}];" ::"l"(m), "r"(x),
               "r"(y), "r"(z), "r"(w), "r"(v)
               : "memory");
  asm volatile("prefetch.tensormap [%0];" ::"l"(m) : "memory");
}
#endif  // TMA_OK

__global__ void __launch_bounds__(128) tma_loads(const __grid_constant__ CUtensorMap m1,
                                                 const __grid_constant__ CUtensorMap m2,
                                                 const __grid_constant__ CUtensorMap m3,
                                                 const __grid_constant__ CUtensorMap m4,
                                                 const __grid_constant__ CUtensorMap m5, float* out) {
#if TMA_OK
  __shared__ __align__(128) float buf[5][1024];
  __shared__ uint64_t bar[2];
  if (threadIdx.x == 0) {
    asm volatile("mbarrier.init.shared::cta.b64 [%0], %1;" ::"r"(corpus_smem_addr(&bar[0])), "r"(1));
    asm volatile("mbarrier.init.shared::cta.b64 [%0], %1;" ::"r"(corpus_smem_addr(&bar[1])), "r"(1));
    asm volatile("fence.mbarrier_init.release.cluster;" ::: "memory");
    prefetch_tensors(&m4, 1, 2, 3, 4, 5, policy_evict_last());
  }
  __syncthreads();
  int bx = blockIdx.x, by = blockIdx.y;
  if (threadIdx.x == 0) {
    uint64_t pol = policy_evict_first_frac(0.5f);
    cuda::ptx::mbarrier_arrive_expect_tx(cuda::ptx::sem_release, cuda::ptx::scope_cta, cuda::ptx::space_shared,
                                         &bar[0], 5 * 4096);
    load_1d(buf[0], &m1, bx * 1024, &bar[0]);
    load_2d_hint(buf[1], &m2, bx * 32, by * 32, &bar[0], pol);
    load_3d(buf[2], &m3, bx * 16, by * 8, 3, &bar[0]);
    int c4[4] = {bx * 8, by * 8, 4, 1};
    load_4d(buf[3], &m4, c4, &bar[0]);
    int c5[5] = {bx * 4, by * 4, 4, 2, 1};
    load_5d(buf[4], &m5, c5, &bar[0]);
  }
  uint32_t phase = 0;
  while (!cuda::ptx::mbarrier_try_wait_parity(&bar[0], phase)) {
  }
  float acc = 0.f;
#pragma unroll
  for (int t = 0; t < 5; ++t)
    for (int i = threadIdx.x; i < 1024; i += 128) acc += buf[t][i] * (t + 1);
  __syncthreads();
  if (threadIdx.x == 0) {
    uint64_t pol = policy_evict_last();
    cuda::ptx::mbarrier_arrive_expect_tx(cuda::ptx::sem_release, cuda::ptx::scope_cta, cuda::ptx::space_shared,
                                         &bar[1], 3 * 4096);
    load_im2col_3d(buf[0], &m3, bx, by, 0, (uint16_t)3, &bar[1]);
    int c4[4] = {bx, by, 1, 0};
    load_im2col_4d(buf[1], &m4, c4, 1, 1, &bar[1]);
    int c5[5] = {bx, by, 2, 1, 0};
    load_im2col_5d_hint(buf[2], &m5, c5, 1, 0, 1, &bar[1], pol);
  }
  while (!cuda::ptx::mbarrier_try_wait_parity(cuda::ptx::sem_acquire, cuda::ptx::scope_cta, &bar[1], 0)) {
  }
  for (int i = threadIdx.x; i < 1024; i += 128) acc += buf[0][i] - buf[1][i] + buf[2][i];
  out[(by * gridDim.x + bx) * 128 + threadIdx.x] = acc;
#endif
}

__global__ void __cluster_dims__(2, 1, 1) __launch_bounds__(128)
    tma_multicast(const __grid_constant__ CUtensorMap m2, const __grid_constant__ CUtensorMap m3,
                  const __grid_constant__ CUtensorMap m4, float* out) {
#if TMA_MC
  __shared__ __align__(128) float buf[3][2048];
  __shared__ uint64_t bar;
  uint32_t rank;
  asm volatile("mov.u32 %0, %%cluster_ctarank;" : "=r"(rank));
  if (threadIdx.x == 0) {
    cuda::ptx::mbarrier_init(&bar, 1);
    cuda::ptx::fence_mbarrier_init(cuda::ptx::sem_release, cuda::ptx::scope_cluster);
  }
  cuda::ptx::barrier_cluster_arrive(cuda::ptx::sem_relaxed);
  cuda::ptx::barrier_cluster_wait();
  if (threadIdx.x == 0) {
    cuda::ptx::mbarrier_arrive_expect_tx(cuda::ptx::sem_release, cuda::ptx::scope_cluster, cuda::ptx::space_shared,
                                         &bar, 3 * 8192);
    uint16_t mask = 0x3;
    // each CTA loads half of the tiles and multicasts them to both CTAs
    float* dst = buf[0] + rank * 1024;
    load_2d_multicast(dst, &m2, rank * 32, blockIdx.y * 32, &bar, mask);
    load_3d_multicast_hint(buf[1] + rank * 1024, &m3, rank * 16, blockIdx.y * 16, 0, &bar, mask,
                           policy_evict_last());
    int c4[4] = {(int)rank * 8, (int)blockIdx.y, 0, 0};
    load_im2col_4d_multicast(buf[2] + rank * 1024, &m4, c4, 0, 1, &bar, mask);
    int32_t cc[2] = {(int)rank * 64, (int)blockIdx.y * 64};
    cuda::ptx::cp_async_bulk_tensor(cuda::ptx::space_cluster, cuda::ptx::space_global, buf[0] + 512, &m2, cc, &bar,
                                    mask);
  }
  while (!cuda::ptx::mbarrier_try_wait_parity(cuda::ptx::sem_acquire, cuda::ptx::scope_cluster, &bar, 0)) {
  }
  float s = 0.f;
  for (int i = threadIdx.x; i < 2048; i += 128) s += buf[0][i] * buf[1][i] + buf[2][i];
  out[blockIdx.y * 256 + rank * 128 + threadIdx.x] = s;
  cuda::ptx::barrier_cluster_arrive(cuda::ptx::sem_release);
  cuda::ptx::barrier_cluster_wait(cuda::ptx::sem_acquire);
#endif
}

__global__ void __launch_bounds__(256) tma_store_reduce(const __grid_constant__ CUtensorMap m2,
                                                        const __grid_constant__ CUtensorMap m3,
                                                        const __grid_constant__ CUtensorMap m5, const float* in) {
#if TMA_OK
  __shared__ __align__(128) float tile[4096];
  for (int i = threadIdx.x; i < 4096; i += 256) tile[i] = in[blockIdx.x * 4096 + i] * 2.0f;
  cuda::ptx::fence_proxy_async(cuda::ptx::space_shared);
  __syncthreads();
  if (threadIdx.x == 0) {
    store_2d(&m2, blockIdx.x * 64, 0, tile);
    int c5[5] = {0, 1, 2, 3, (int)blockIdx.x};
    store_5d_hint(&m5, c5, tile, policy_evict_last());
    store_im2col_3d(&m3, 0, (int)blockIdx.x, 0, tile);
    asm volatile("cp.async.bulk.commit_group;" ::: "memory");
    reduce_all_ops(&m5, tile, blockIdx.x, 1, 2, 3, 4);
    int32_t cr[2] = {(int)blockIdx.x * 64, 64};
    cuda::ptx::cp_reduce_async_bulk_tensor(cuda::ptx::space_global, cuda::ptx::space_shared, cuda::ptx::op_add,
                                           &m2, cr, tile);
    cuda::ptx::cp_async_bulk_commit_group();
    cuda::ptx::cp_async_bulk_wait_group_read(cuda::ptx::n32_t<1>());
    asm volatile("cp.async.bulk.wait_group 0;" ::: "memory");
  }
  __syncthreads();
#endif
}

// Non-tensor bulk copies and bulk reductions.
__global__ void __launch_bounds__(256) bulk_copies(const float4* __restrict__ src, float* __restrict__ dst,
                                                   uint32_t* __restrict__ cnt, uint64_t* __restrict__ big,
                                                   int nbytes) {
#if TMA_OK
  __shared__ __align__(128) float4 s[2048];
  __shared__ __align__(16) uint32_t su[256];
  __shared__ uint64_t bar;
  if (threadIdx.x == 0) {
    cuda::ptx::mbarrier_init(&bar, 1);
    asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
    asm volatile("cp.async.bulk.prefetch.L2.global [%0], %1;" ::"l"(src + 2048), "r"(nbytes) : "memory");
    asm volatile("cp.async.bulk.prefetch.L2.global.L2::cache_hint [%0], %1, %2;" ::"l"(src + 4096), "r"(nbytes),
                 "l"(policy_evict_last())
                 : "memory");
  }
  __syncthreads();
  if (threadIdx.x == 0) {
    cuda::ptx::mbarrier_arrive_expect_tx(cuda::ptx::sem_release, cuda::ptx::scope_cta, cuda::ptx::space_shared,
                                         &bar, nbytes + 1024);
    asm volatile(
        "cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes [%0], [%1], %2, [%3];" ::"r"(
            corpus_smem_addr(s)),
        "l"(src), "r"(nbytes), "r"(corpus_smem_addr(&bar))
        : "memory");
    asm volatile(
        "cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes.L2::cache_hint [%0], [%1], 1024, [%2], "
        "%3;" ::"r"(corpus_smem_addr(su)),
        "l"(cnt), "r"(corpus_smem_addr(&bar)), "l"(policy_evict_last())
        : "memory");
  }
  while (!cuda::ptx::mbarrier_try_wait_parity(&bar, 0)) {
  }
  for (int i = threadIdx.x; i < nbytes / 16; i += 256) {
    float4 v = s[i];
    s[i] = make_float4(v.x * 2, v.y + 1, v.z - 1, v.w * v.w);
  }
  su[threadIdx.x] += threadIdx.x;
  asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
  __syncthreads();
  if (threadIdx.x == 0) {
    asm volatile("cp.async.bulk.global.shared::cta.bulk_group [%0], [%1], %2;" ::"l"(dst), "r"(corpus_smem_addr(s)),
                 "r"(nbytes)
                 : "memory");
    asm volatile("cp.async.bulk.global.shared::cta.bulk_group.L2::cache_hint [%0], [%1], %2, %3;" ::"l"(dst + 8192),
                 "r"(corpus_smem_addr(s)), "r"(nbytes), "l"(policy_evict_first_frac(0.25f))
                 : "memory");
    asm volatile("cp.reduce.async.bulk.global.shared::cta.bulk_group.add.f32 [%0], [%1], %2;" ::"l"(dst + 16384),
                 "r"(corpus_smem_addr(s)), "r"(nbytes)
                 : "memory");
    asm volatile("cp.reduce.async.bulk.global.shared::cta.bulk_group.min.u32 [%0], [%1], 1024;" ::"l"(cnt),
                 "r"(corpus_smem_addr(su))
                 : "memory");
    asm volatile("cp.reduce.async.bulk.global.shared::cta.bulk_group.max.s32 [%0], [%1], 1024;" ::"l"(cnt + 256),
                 "r"(corpus_smem_addr(su))
                 : "memory");
    asm volatile("cp.reduce.async.bulk.global.shared::cta.bulk_group.add.u64 [%0], [%1], 1024;" ::"l"(big),
                 "r"(corpus_smem_addr(su))
                 : "memory");
    asm volatile("cp.reduce.async.bulk.global.shared::cta.bulk_group.and.b32 [%0], [%1], 1024;" ::"l"(cnt + 512),
                 "r"(corpus_smem_addr(su))
                 : "memory");
    asm volatile("cp.reduce.async.bulk.global.shared::cta.bulk_group.xor.b64 [%0], [%1], 1024;" ::"l"(big + 128),
                 "r"(corpus_smem_addr(su))
                 : "memory");
    asm volatile("cp.reduce.async.bulk.global.shared::cta.bulk_group.inc.u32 [%0], [%1], 1024;" ::"l"(cnt + 768),
                 "r"(corpus_smem_addr(su))
                 : "memory");
    cuda::ptx::cp_reduce_async_bulk(cuda::ptx::space_global, cuda::ptx::space_shared, cuda::ptx::op_add,
                                    reinterpret_cast<float*>(dst + 24576), reinterpret_cast<const float*>(s), 4096u);
    cuda::ptx::cp_async_bulk(cuda::ptx::space_global, cuda::ptx::space_shared, dst + 32768, s, 4096u);
    cuda::ptx::cp_async_bulk_commit_group();
    cuda::ptx::cp_async_bulk_wait_group(cuda::ptx::n32_t<0>());
  }
#endif
}

// Shared-to-distributed-shared bulk copies within a cluster.
__global__ void __cluster_dims__(2, 1, 1) __launch_bounds__(128) bulk_dsmem(uint32_t* out) {
#if TMA_OK
  __shared__ __align__(128) uint32_t src[512];
  __shared__ __align__(128) uint32_t dst[512];
  __shared__ uint64_t bar;
  uint32_t rank = cuda::ptx::get_sreg_cluster_ctarank();
  for (int i = threadIdx.x; i < 512; i += 128) src[i] = i * (rank + 1);
  if (threadIdx.x == 0) {
    cuda::ptx::mbarrier_init(&bar, 1);
    cuda::ptx::fence_mbarrier_init(cuda::ptx::sem_release, cuda::ptx::scope_cluster);
    cuda::ptx::mbarrier_arrive_expect_tx(cuda::ptx::sem_release, cuda::ptx::scope_cluster, cuda::ptx::space_shared,
                                         &bar, 2048);
  }
  cuda::ptx::fence_proxy_async(cuda::ptx::space_shared);
  asm volatile("barrier.cluster.arrive.release.aligned;\n\tbarrier.cluster.wait.acquire.aligned;" ::: "memory");
  if (threadIdx.x == 0) {
    uint32_t peer = rank ^ 1;
    uint32_t rdst, rbar;
    asm("mapa.shared::cluster.u32 %0, %1, %2;" : "=r"(rdst) : "r"(corpus_smem_addr(dst)), "r"(peer));
    asm("mapa.shared::cluster.u32 %0, %1, %2;" : "=r"(rbar) : "r"(corpus_smem_addr(&bar)), "r"(peer));
    asm volatile(
        "cp.async.bulk.shared::cluster.shared::cta.mbarrier::complete_tx::bytes [%0], [%1], 2048, [%2];" ::"r"(rdst),
        "r"(corpus_smem_addr(src)), "r"(rbar)
        : "memory");
  }
  while (!cuda::ptx::mbarrier_try_wait_parity(cuda::ptx::sem_acquire, cuda::ptx::scope_cluster, &bar, 0)) {
  }
  for (int i = threadIdx.x; i < 512; i += 128) out[rank * 512 + i] = dst[i];
  asm volatile("barrier.cluster.arrive;\n\tbarrier.cluster.wait;" ::: "memory");
#endif
}

// Rewriting a tensor map in global memory and publishing it to the async proxy.
__global__ void tensormap_update(CUtensorMap* maps, void* new_base, int dim0, int stride1) {
#if CORPUS_SM90A || CORPUS_SM100A
  __shared__ __align__(128) CUtensorMap sm;
  if (threadIdx.x < 16) reinterpret_cast<uint64_t*>(&sm)[threadIdx.x] = reinterpret_cast<uint64_t*>(maps)[threadIdx.x];
  __syncwarp();
  if (threadIdx.x == 0) {
    asm volatile("tensormap.replace.tile.global_address.shared::cta.b1024.b64 [%0], %1;" ::"r"(
                     corpus_smem_addr(&sm)),
                 "l"(new_base)
                 : "memory");
    asm volatile("tensormap.replace.tile.global_dim.shared::cta.b1024.b32 [%0], 0, %1;" ::"r"(corpus_smem_addr(&sm)),
                 "r"(dim0)
                 : "memory");
    asm volatile("tensormap.replace.tile.global_stride.shared::cta.b1024.b64 [%0], 0, %1;" ::"r"(
                     corpus_smem_addr(&sm)),
                 "l"((uint64_t)stride1)
                 : "memory");
    asm volatile("tensormap.replace.tile.rank.shared::cta.b1024.b32 [%0], 2;" ::"r"(corpus_smem_addr(&sm))
                 : "memory");
    asm volatile("tensormap.replace.tile.global_address.global.b1024.b64 [%0], %1;" ::"l"(maps + 1), "l"(new_base)
                 : "memory");
    asm volatile("tensormap.replace.tile.box_dim.global.b1024.b32 [%0], 1, 64;" ::"l"(maps + 1) : "memory");
    asm volatile("tensormap.replace.tile.element_stride.global.b1024.b32 [%0], 1, 2;" ::"l"(maps + 1) : "memory");
    asm volatile("tensormap.replace.tile.swizzle_mode.global.b1024.b32 [%0], 3;" ::"l"(maps + 1) : "memory");
    asm volatile("tensormap.replace.tile.interleave_layout.global.b1024.b32 [%0], 0;" ::"l"(maps + 1) : "memory");
    asm volatile("tensormap.replace.tile.fill_mode.global.b1024.b32 [%0], 1;" ::"l"(maps + 1) : "memory");
    asm volatile("tensormap.replace.tile.elemtype.global.b1024.b32 [%0], 7;" ::"l"(maps + 1) : "memory");
  }
  __syncwarp();
  if (threadIdx.x < 32) {
    asm volatile(
        "tensormap.cp_fenceproxy.global.shared::cta.tensormap::generic.release.gpu.sync.aligned [%0], [%1], 128;" ::"l"(
            maps),
        "r"(corpus_smem_addr(&sm))
        : "memory");
  }
  asm volatile("fence.proxy.tensormap::generic.release.gpu;" ::: "memory");
  asm volatile("fence.proxy.tensormap::generic.acquire.gpu [%0], 128;" ::"l"(maps) : "memory");
  asm volatile("fence.proxy.tensormap::generic.acquire.sys [%0], 128;" ::"l"(maps + 1) : "memory");
#endif
}
