// ptxpp corpus: sm_90+ odds and ends: setmaxnreg, programmatic dependent launch
// (griddepcontrol), fence.proxy.* variants, memory-consistency fences and
// ordered loads/stores, multimem.*, st.async, L2 cache-policy instructions,
// prefetch/discard/applypriority, st.bulk and 256-bit loads on sm_100a.
// nvcc corpus (see scripts/gen-corpus): archs: sm_90a sm_100a sm_120a   variants: G:sm_90a
#include <cuda/ptx>
#include <cooperative_groups.h>
#include "corpus.h"

__global__ void __launch_bounds__(384, 1) regalloc_roles(const float4* in, float4* out, int n) {
#if CORPUS_SM90A || CORPUS_SM100A || CORPUS_SM120A
  const int wg = threadIdx.x / 128;
  if (wg == 0) {
    asm volatile("setmaxnreg.dec.sync.aligned.u32 24;" ::: "memory");
    for (int i = threadIdx.x; i < n; i += 128) out[i] = in[i];
  } else {
    asm volatile("setmaxnreg.inc.sync.aligned.u32 240;" ::: "memory");
    float4 acc = make_float4(0, 0, 0, 0);
    for (int i = threadIdx.x - 128; i < n; i += 256) {
      float4 v = in[i];
      acc.x = fmaf(v.x, v.y, acc.x);
      acc.y = fmaf(v.y, v.z, acc.y);
      acc.z = fmaf(v.z, v.w, acc.z);
      acc.w = fmaf(v.w, v.x, acc.w);
    }
    out[n + threadIdx.x] = acc;
  }
#endif
}

// Programmatic dependent launch: primary signals, secondary waits.
__global__ void pdl_primary(float* buf, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) buf[i] = buf[i] * 2.0f + 1.0f;
  cudaTriggerProgrammaticLaunchCompletion();
  asm volatile("griddepcontrol.launch_dependents;" ::: "memory");
}
__global__ void pdl_secondary(const float* buf, float* out, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  float pre = (float)i * 0.5f;  // independent prologue
  cudaGridDependencySynchronize();
  asm volatile("griddepcontrol.wait;" ::: "memory");
  if (i < n) out[i] = buf[i] + pre;
}

__global__ void fences_and_proxies(int* g, int* flag, float* tmap_like) {
  __shared__ int s[128];
  s[threadIdx.x] = g[threadIdx.x];
  asm volatile("fence.proxy.alias;" ::: "memory");
  asm volatile("fence.proxy.async;" ::: "memory");
  asm volatile("fence.proxy.async.global;" ::: "memory");
  asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
  asm volatile("fence.proxy.async.shared::cluster;" ::: "memory");
  cuda::ptx::fence_proxy_async(cuda::ptx::space_global);
  cuda::ptx::fence_proxy_alias();
  asm volatile("fence.sc.cta;" ::: "memory");
  asm volatile("fence.sc.gpu;" ::: "memory");
  asm volatile("fence.sc.sys;" ::: "memory");
  asm volatile("fence.acq_rel.cta;" ::: "memory");
  asm volatile("fence.acq_rel.gpu;" ::: "memory");
  asm volatile("fence.acq_rel.sys;" ::: "memory");
  asm volatile("fence.acq_rel.cluster;" ::: "memory");
  asm volatile("membar.cta;\n\tmembar.gl;\n\tmembar.sys;" ::: "memory");
  asm volatile("fence.mbarrier_init.release.cluster;" ::: "memory");
  cuda::ptx::fence(cuda::ptx::sem_sc, cuda::ptx::scope_cluster);
  cuda::ptx::fence(cuda::ptx::sem_acq_rel, cuda::ptx::scope_gpu);
#if __CUDA_ARCH__ >= 900
  asm volatile("fence.proxy.tensormap::generic.release.cta;" ::: "memory");
  asm volatile("fence.proxy.tensormap::generic.acquire.cta [%0], 128;" ::"l"(tmap_like) : "memory");
#endif
#if CORPUS_SM100A || CORPUS_SM120A || CORPUS_SM90A
  asm volatile("fence.acquire.sync_restrict::shared::cluster.cluster;" ::: "memory");
  asm volatile("fence.release.sync_restrict::shared::cta.cluster;" ::: "memory");
  asm volatile("fence.proxy.async::generic.acquire.sync_restrict::shared::cluster.cluster;" ::: "memory");
  asm volatile("fence.proxy.async::generic.release.sync_restrict::shared::cta.cluster;" ::: "memory");
#endif
  // ordered loads and stores
  int v0, v1, v2, v3;
  asm volatile("ld.relaxed.gpu.global.b32 %0, [%1];" : "=r"(v0) : "l"(flag) : "memory");
  asm volatile("ld.acquire.sys.global.b32 %0, [%1];" : "=r"(v1) : "l"(flag + 1) : "memory");
  asm volatile("ld.volatile.global.b32 %0, [%1];" : "=r"(v2) : "l"(flag + 2) : "memory");
  asm volatile("ld.acquire.cta.shared.b32 %0, [%1];" : "=r"(v3) : "r"(corpus_smem_addr(s)) : "memory");
  asm volatile("st.release.gpu.global.b32 [%0], %1;" ::"l"(flag + 3), "r"(v0 + v1) : "memory");
  asm volatile("st.relaxed.sys.global.b32 [%0], %1;" ::"l"(flag + 4), "r"(v2) : "memory");
  asm volatile("st.volatile.shared.b32 [%0], %1;" ::"r"(corpus_smem_addr(s + 1)), "r"(v3) : "memory");
  asm volatile("st.mmio.relaxed.sys.global.u32 [%0], %1;" ::"l"(flag + 5), "r"(v3) : "memory");
  asm volatile("ld.mmio.relaxed.sys.global.u32 %0, [%1];" : "=r"(v3) : "l"(flag + 5) : "memory");
  cuda::ptx::st(cuda::ptx::space_global, flag + 6, v3);
  g[threadIdx.x] = s[(threadIdx.x + 1) % 128] + v3;
}

// Cache-policy and prefetch instructions.
__global__ void cache_control(const float* __restrict__ in, float* __restrict__ out, int n) {
  uint64_t pol_frac, pol_range, pol_conv;
  asm volatile("createpolicy.fractional.L2::evict_last.L2::evict_unchanged.b64 %0, 0.75;" : "=l"(pol_frac));
  asm volatile("createpolicy.range.L2::evict_last.L2::evict_first.b64 %0, [%1], %2, %3;"
               : "=l"(pol_range)
               : "l"(in), "r"(n * 4), "r"(n * 8));
  asm volatile("createpolicy.cvt.L2.b64 %0, %1;" : "=l"(pol_conv) : "l"(0x1234ull));
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  float a, b, c;
  asm volatile("ld.global.L2::cache_hint.f32 %0, [%1], %2;" : "=f"(a) : "l"(in + i), "l"(pol_frac));
  asm volatile("ld.global.nc.L1::no_allocate.L2::256B.f32 %0, [%1];" : "=f"(b) : "l"(in + i + n));
  asm volatile("ld.global.L1::evict_last.f32 %0, [%1];" : "=f"(c) : "l"(in + i + 2 * n));
  asm volatile("prefetch.global.L2::evict_last [%0];" ::"l"(in + i + 4096));
  asm volatile("prefetch.global.L2::evict_normal [%0];" ::"l"(in + i + 8192));
  asm volatile("prefetch.global.L1 [%0];" ::"l"(in + i + 1024));
  asm volatile("prefetch.L2 [%0];" ::"l"(in + i + 2048));
  asm volatile("prefetchu.L1 [%0];" ::"l"(in + i + 512));
  asm volatile("st.global.L1::no_allocate.L2::cache_hint.f32 [%0], %1, %2;" ::"l"(out + i), "f"(a + b + c),
               "l"(pol_range)
               : "memory");
  asm volatile("applypriority.global.L2::evict_normal [%0], 128;" ::"l"(out + (i & ~31)) : "memory");
  if ((i & 31) == 0) asm volatile("discard.global.L2 [%0], 128;" ::"l"(out + n + i) : "memory");
  asm volatile("ld.global.L1::evict_unchanged.L2::64B.v4.f32 {%0, %1, %2, %3}, [%4];"
               : "=f"(a), "=f"(b), "=f"(c), "=f"(a)
               : "l"(in + (i & ~3))
               : "memory");
#if CORPUS_SM100A || CORPUS_SM120A
  // 256-bit loads/stores (sm_100+)
  float r[8];
  asm volatile("ld.global.v8.f32 {%0, %1, %2, %3, %4, %5, %6, %7}, [%8];"
               : "=f"(r[0]), "=f"(r[1]), "=f"(r[2]), "=f"(r[3]), "=f"(r[4]), "=f"(r[5]), "=f"(r[6]), "=f"(r[7])
               : "l"(in + (i & ~7)));
  asm volatile("st.global.L2::cache_hint.v8.f32 [%0], {%1, %2, %3, %4, %5, %6, %7, %8}, %9;" ::"l"(out + 2 * n + (i & ~7)),
               "f"(r[7]), "f"(r[6]), "f"(r[5]), "f"(r[4]), "f"(r[3]), "f"(r[2]), "f"(r[1]), "f"(r[0]), "l"(pol_conv)
               : "memory");
  unsigned long long q[4];
  asm volatile("ld.global.nc.v4.u64 {%0, %1, %2, %3}, [%4];"
               : "=l"(q[0]), "=l"(q[1]), "=l"(q[2]), "=l"(q[3])
               : "l"(in + (i & ~7)));
  a += (float)(q[0] ^ q[3]);
#endif
  out[i + 3 * n] = a + b + c + (float)(pol_conv & 1);
}

// Bulk zero-initialization of shared memory (sm_100+).
__global__ void st_bulk_zero(float* out) {
#if CORPUS_SM100A
  __shared__ __align__(128) float s[2048];
  if (threadIdx.x == 0) {
    asm volatile("st.bulk.weak.shared::cta [%0], 8192, 0;" ::"r"(corpus_smem_addr(s)) : "memory");
    cuda::ptx::st_bulk(s, 4096ull, cuda::ptx::n32_t<0>());
  }
  __syncthreads();
  out[threadIdx.x] = s[threadIdx.x];
#endif
}

// multimem: multicast objects across NVLink-connected GPUs.
__global__ void multimem_ops(float* mc_f, unsigned* mc_u, unsigned long long* mc_q, __half2* mc_h, float* out) {
#if __CUDA_ARCH__ >= 900
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  float f;
  asm volatile("multimem.ld_reduce.relaxed.sys.global.add.f32 %0, [%1];" : "=f"(f) : "l"(mc_f + i) : "memory");
  float4 f4;
  asm volatile("multimem.ld_reduce.weak.global.add.v4.f32 {%0, %1, %2, %3}, [%4];"
               : "=f"(f4.x), "=f"(f4.y), "=f"(f4.z), "=f"(f4.w)
               : "l"(mc_f + 4 * i)
               : "memory");
  unsigned u, h;
  asm volatile("multimem.ld_reduce.acquire.gpu.global.min.u32 %0, [%1];" : "=r"(u) : "l"(mc_u + i) : "memory");
  asm volatile("multimem.ld_reduce.relaxed.cta.global.add.acc::f32.v2.f16x2 {%0, %1}, [%2];"
               : "=r"(h), "=r"(u)
               : "l"(mc_h + 2 * i)
               : "memory");
  asm volatile("multimem.st.relaxed.sys.global.f32 [%0], %1;" ::"l"(mc_f + i), "f"(f + f4.x) : "memory");
  asm volatile("multimem.st.release.gpu.global.v2.f32 [%0], {%1, %2};" ::"l"(mc_f + 2 * i), "f"(f4.y), "f"(f4.z)
               : "memory");
  asm volatile("multimem.red.relaxed.sys.global.add.u32 [%0], %1;" ::"l"(mc_u + i), "r"(u) : "memory");
  asm volatile("multimem.red.release.gpu.global.add.u64 [%0], %1;" ::"l"(mc_q + i), "l"(1ull) : "memory");
  asm volatile("multimem.red.relaxed.gpu.global.add.v4.f32 [%0], {%1, %2, %3, %4};" ::"l"(mc_f + 4 * i), "f"(1.f),
               "f"(2.f), "f"(3.f), "f"(4.f)
               : "memory");
  asm volatile("multimem.red.relaxed.sys.global.add.bf16x2 [%0], %1;" ::"l"(mc_h + i), "r"(h) : "memory");
  cuda::ptx::multimem_red(cuda::ptx::sem_relaxed, cuda::ptx::scope_sys, cuda::ptx::op_add, mc_u + i + 1, 3u);
  cuda::ptx::multimem_st(cuda::ptx::sem_relaxed, cuda::ptx::scope_gpu, mc_u + i + 2, u);
  out[i] = f + f4.w + (float)u + (float)h;
#endif
}

// st.async into peer CTA shared memory with remote mbarrier completion.
__global__ void CORPUS_CLUSTER(2, 1, 1) st_async_peer(unsigned* out) {
#if __CUDA_ARCH__ >= 900
  __shared__ __align__(16) unsigned box[64];
  __shared__ uint64_t bar;
  const uint32_t rank = cuda::ptx::get_sreg_cluster_ctarank();
  if (threadIdx.x == 0) {
    cuda::ptx::mbarrier_init(&bar, 1);
    cuda::ptx::mbarrier_arrive_expect_tx(cuda::ptx::sem_release, cuda::ptx::scope_cluster, cuda::ptx::space_shared,
                                         &bar, 32 * 4 + 16 * 8 + 8 * 16);
  }
  cuda::ptx::barrier_cluster_arrive(cuda::ptx::sem_release);
  cuda::ptx::barrier_cluster_wait(cuda::ptx::sem_acquire);
  uint32_t rbox, rbar;
  asm("mapa.shared::cluster.u32 %0, %1, %2;" : "=r"(rbox) : "r"(corpus_smem_addr(box)), "r"(rank ^ 1));
  asm("mapa.shared::cluster.u32 %0, %1, %2;" : "=r"(rbar) : "r"(corpus_smem_addr(&bar)), "r"(rank ^ 1));
  if (threadIdx.x < 32)
    asm volatile("st.async.shared::cluster.mbarrier::complete_tx::bytes.u32 [%0], %1, [%2];" ::"r"(
                     rbox + threadIdx.x * 4),
                 "r"(threadIdx.x * 3), "r"(rbar)
                 : "memory");
  else if (threadIdx.x < 48)
    asm volatile("st.async.shared::cluster.mbarrier::complete_tx::bytes.v2.s32 [%0], {%1, %2}, [%3];" ::"r"(
                     rbox + 128 + (threadIdx.x - 32) * 8),
                 "r"(1), "r"(2), "r"(rbar)
                 : "memory");
  else if (threadIdx.x < 56)
    asm volatile("st.async.shared::cluster.mbarrier::complete_tx::bytes.v4.b32 [%0], {%1, %2, %3, %4}, [%5];" ::"r"(
                     rbox + 256 + (threadIdx.x - 48) * 16),
                 "r"(threadIdx.x), "r"(rank), "r"(7u), "r"(9u), "r"(rbar)
                 : "memory");
  while (!cuda::ptx::mbarrier_try_wait_parity(cuda::ptx::sem_acquire, cuda::ptx::scope_cluster, &bar, 0)) {
  }
  out[rank * 64 + threadIdx.x % 64] = box[threadIdx.x % 64];
  cuda::ptx::barrier_cluster_arrive();
  cuda::ptx::barrier_cluster_wait();
#endif
}

// Misc special registers and timers.
__global__ void sregs(unsigned long long* out) {
  unsigned long long c64, gt, smid, warpid, nsmid, lanemask, gridid, reserved;
  unsigned c32, hi, wid, nwarp;
  asm volatile("mov.u64 %0, %%clock64;" : "=l"(c64));
  asm volatile("mov.u32 %0, %%clock;" : "=r"(c32));
  asm volatile("mov.u32 %0, %%clock_hi;" : "=r"(hi));
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(gt));
  asm volatile("{\n\t.reg .u32 t;\n\tmov.u32 t, %%globaltimer_lo;\n\tcvt.u64.u32 %0, t;\n\t}" : "=l"(reserved));
  asm("{\n\t.reg .u32 t;\n\tmov.u32 t, %%smid;\n\tcvt.u64.u32 %0, t;\n\t}" : "=l"(smid));
  asm("{\n\t.reg .u32 t;\n\tmov.u32 t, %%nsmid;\n\tcvt.u64.u32 %0, t;\n\t}" : "=l"(nsmid));
  asm("{\n\t.reg .u32 t;\n\tmov.u32 t, %%warpid;\n\tcvt.u64.u32 %0, t;\n\t}" : "=l"(warpid));
  asm("mov.u32 %0, %%nwarpid;" : "=r"(nwarp));
  asm("mov.u32 %0, %%laneid;" : "=r"(wid));
  asm("{\n\t.reg .u32 t;\n\tmov.u32 t, %%lanemask_lt;\n\tcvt.u64.u32 %0, t;\n\t}" : "=l"(lanemask));
  asm("mov.u64 %0, %%gridid;" : "=l"(gridid));
  unsigned e0, e1, le, lg, ge, pm0;
  asm("mov.u32 %0, %%envreg0;" : "=r"(e0));
  asm("mov.u32 %0, %%envreg31;" : "=r"(e1));
  asm("mov.u32 %0, %%lanemask_le;" : "=r"(le));
  asm("mov.u32 %0, %%lanemask_gt;" : "=r"(lg));
  asm("mov.u32 %0, %%lanemask_ge;" : "=r"(ge));
  asm volatile("mov.u32 %0, %%pm0;" : "=r"(pm0));
  unsigned aggr;
  asm("mov.u32 %0, %%aggr_smem_size;" : "=r"(aggr));
  out[threadIdx.x] = c64 ^ c32 ^ hi ^ gt ^ reserved ^ smid ^ nsmid ^ warpid ^ nwarp ^ wid ^ lanemask ^ gridid ^ e0 ^
                     e1 ^ le ^ lg ^ ge ^ pm0 ^ aggr;
  __nanosleep(100);
  asm volatile("nanosleep.u32 %0;" ::"r"(c32 & 1023));
  asm volatile("pmevent 1;\n\tpmevent.mask 0x3;");
}
