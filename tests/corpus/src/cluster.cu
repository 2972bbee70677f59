// ptxpp corpus: thread-block clusters and distributed shared memory: cluster
// special registers, barrier.cluster, mapa/getctarank, ld/st/atom on
// shared::cluster, cooperative_groups::cluster_group, cluster launch bounds
// (.maxclusterrank / .reqnctapercluster), cluster-scope fences, and
// clusterlaunchcontrol on sm_100a.
// nvcc corpus (see scripts/gen-corpus): archs: sm_90a sm_100a sm_120a   variants: lineinfo:sm_90a
#include <cooperative_groups.h>
#include <cuda/ptx>
#include "corpus.h"

namespace cg = cooperative_groups;

struct ClusterInfo {
  uint32_t ctaid[3], nctaid[3], clusterid[3], nclusterid[3];
  uint32_t rank, nrank, explicit_cluster;
  uint64_t smem_window;
};

__global__ void __cluster_dims__(4, 1, 1) cluster_sregs(ClusterInfo* out) {
  ClusterInfo ci;
  asm("mov.u32 %0, %%cluster_ctaid.x;" : "=r"(ci.ctaid[0]));
  asm("mov.u32 %0, %%cluster_ctaid.y;" : "=r"(ci.ctaid[1]));
  asm("mov.u32 %0, %%cluster_ctaid.z;" : "=r"(ci.ctaid[2]));
  asm("mov.u32 %0, %%cluster_nctaid.x;" : "=r"(ci.nctaid[0]));
  asm("mov.u32 %0, %%cluster_nctaid.y;" : "=r"(ci.nctaid[1]));
  asm("mov.u32 %0, %%cluster_nctaid.z;" : "=r"(ci.nctaid[2]));
  asm("mov.u32 %0, %%clusterid.x;" : "=r"(ci.clusterid[0]));
  asm("mov.u32 %0, %%clusterid.y;" : "=r"(ci.clusterid[1]));
  asm("mov.u32 %0, %%clusterid.z;" : "=r"(ci.clusterid[2]));
  asm("mov.u32 %0, %%nclusterid.x;" : "=r"(ci.nclusterid[0]));
  asm("mov.u32 %0, %%nclusterid.y;" : "=r"(ci.nclusterid[1]));
  asm("mov.u32 %0, %%nclusterid.z;" : "=r"(ci.nclusterid[2]));
  asm("mov.u32 %0, %%cluster_ctarank;" : "=r"(ci.rank));
  asm("mov.u32 %0, %%cluster_nctarank;" : "=r"(ci.nrank));
  asm(
      "{\n\t.reg .pred p;\n\t"
      "mov.pred p, %%is_explicit_cluster;\n\t"
      "selp.u32 %0, 1, 0, p;\n\t}"
      : "=r"(ci.explicit_cluster));
  uint32_t lo, hi;
  asm("mov.u32 %0, %%total_smem_size;" : "=r"(lo));
  asm("mov.u32 %0, %%dynamic_smem_size;" : "=r"(hi));
  ci.smem_window = ((uint64_t)hi << 32) | lo;
  // the same values through cuda::ptx
  ci.rank ^= cuda::ptx::get_sreg_cluster_ctarank() ^ cuda::ptx::get_sreg_cluster_nctarank();
  ci.ctaid[0] += cuda::ptx::get_sreg_cluster_ctaid_x() + cuda::ptx::get_sreg_clusterid_x();
  ci.nctaid[0] += cuda::ptx::get_sreg_cluster_nctaid_x() + cuda::ptx::get_sreg_nclusterid_x();
  if (threadIdx.x == 0) out[blockIdx.x] = ci;
}

// Distributed-shared-memory histogram: each CTA owns a slice of the bins.
__global__ void __cluster_dims__(2, 1, 1) __launch_bounds__(256)
    dsmem_histogram(const int* __restrict__ in, int* __restrict__ bins, int n, int nbins) {
  extern __shared__ int smem_bins[];
  cg::cluster_group cluster = cg::this_cluster();
  const unsigned rank = cluster.block_rank();
  const int per_cta = nbins / cluster.num_blocks();
  for (int i = threadIdx.x; i < per_cta; i += blockDim.x) smem_bins[i] = 0;
  cluster.sync();
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) {
    const int v = in[i] % nbins;
    const unsigned dst = v / per_cta;
    int* remote = cluster.map_shared_rank(smem_bins, dst);
    atomicAdd(remote + v % per_cta, 1);
  }
  cluster.sync();
  for (int i = threadIdx.x; i < per_cta; i += blockDim.x) atomicAdd(&bins[rank * per_cta + i], smem_bins[i]);
  (void)cluster.dim_blocks();
  (void)cluster.block_index();
}

// Ring exchange with raw shared::cluster accesses.
__global__ void __cluster_dims__(4, 1, 1) dsmem_ring(float* out) {
  __shared__ float buf[128];
  __shared__ unsigned long long cnt;
  const uint32_t rank = cuda::ptx::get_sreg_cluster_ctarank();
  const uint32_t n = cuda::ptx::get_sreg_cluster_nctarank();
  buf[threadIdx.x] = rank * 1000.f + threadIdx.x;
  if (threadIdx.x == 0) cnt = 0;
  asm volatile("barrier.cluster.arrive.aligned;\n\tbarrier.cluster.wait.aligned;" ::: "memory");
  const uint32_t next = (rank + 1) % n;
  uint32_t raddr, rcnt;
  asm("mapa.shared::cluster.u32 %0, %1, %2;" : "=r"(raddr) : "r"(corpus_smem_addr(buf)), "r"(next));
  asm("mapa.shared::cluster.u32 %0, %1, %2;" : "=r"(rcnt) : "r"(corpus_smem_addr(&cnt)), "r"(next));
  float v;
  asm volatile("ld.shared::cluster.f32 %0, [%1];" : "=f"(v) : "r"(raddr + threadIdx.x * 4) : "memory");
  float2 v2;
  asm volatile("ld.shared::cluster.v2.f32 {%0, %1}, [%2];"
               : "=f"(v2.x), "=f"(v2.y)
               : "r"(raddr + (threadIdx.x & ~1) * 4)
               : "memory");
  asm volatile("ld.relaxed.cluster.shared::cluster.f32 %0, [%1+4];" : "=f"(v2.x) : "r"(raddr) : "memory");
  asm volatile("ld.acquire.cluster.shared::cluster.u64 %0, [%1];"
               : "=l"(*reinterpret_cast<unsigned long long*>(&v2))
               : "r"(rcnt)
               : "memory");
  unsigned long long old;
  asm volatile("atom.shared::cluster.add.u64 %0, [%1], 1;" : "=l"(old) : "r"(rcnt) : "memory");
  asm volatile("red.shared::cluster.add.u64 [%0], 2;" ::"r"(rcnt) : "memory");
  asm volatile("atom.release.cluster.shared::cluster.cas.b64 %0, [%1], %2, %3;"
               : "=l"(old)
               : "r"(rcnt), "l"(old), "l"(old + 5)
               : "memory");
  asm volatile("fence.acq_rel.cluster;" ::: "memory");
  asm volatile("barrier.cluster.arrive.release.aligned;\n\tbarrier.cluster.wait.acquire.aligned;" ::: "memory");
  asm volatile("st.shared::cluster.f32 [%0], %1;" ::"r"(raddr + threadIdx.x * 4), "f"(v + 1.f) : "memory");
  asm volatile("st.release.cluster.shared::cluster.u32 [%0], %1;" ::"r"(raddr), "r"(rank) : "memory");
  asm volatile("fence.sc.cluster;" ::: "memory");
  // generic-address variants
  uint64_t gaddr;
  asm("mapa.u64 %0, %1, %2;" : "=l"(gaddr) : "l"(reinterpret_cast<uint64_t>(buf)), "r"(next));
  uint32_t owner;
  asm("getctarank.u64 %0, %1;" : "=r"(owner) : "l"(gaddr));
  uint32_t owner2;
  asm("getctarank.shared::cluster.u32 %0, %1;" : "=r"(owner2) : "r"(raddr));
  uint32_t is_cluster_addr;
  asm(
      "{\n\t.reg .pred p;\n\t"
      "isspacep.shared::cluster p, %1;\n\t"
      "selp.u32 %0, 1, 0, p;\n\t}"
      : "=r"(is_cluster_addr)
      : "l"(gaddr));
  cg::this_cluster().sync();
  out[(blockIdx.x) * 128 + threadIdx.x] =
      v + v2.x + v2.y + buf[threadIdx.x] + (float)(old + owner + owner2 + is_cluster_addr);
}

// Launch bounds with a maximum cluster size -> .maxclusterrank; explicit
// required cluster dims -> .reqnctapercluster.
__global__ void __launch_bounds__(128, 2, 8) cluster_bounds(float* p) {
  cg::cluster_group c = cg::this_cluster();
  p[blockIdx.x * 128 + threadIdx.x] = (float)c.block_rank() + (float)c.num_threads();
  c.sync();
}
__global__ void __cluster_dims__(2, 2, 1) cluster_2d(float* p) {
  cg::cluster_group c = cg::this_cluster();
  const dim3 ci = c.block_index();
  p[(blockIdx.y * gridDim.x + blockIdx.x) * blockDim.x + threadIdx.x] = ci.x * 10 + ci.y;
  c.barrier_arrive();
  c.barrier_wait();
}
__global__ void __cluster_dims__(1, 1, 8) cluster_z(int* p) {
  p[blockIdx.z] = cuda::ptx::get_sreg_cluster_ctaid_z();
  cuda::ptx::barrier_cluster_arrive(cuda::ptx::sem_relaxed);
  cuda::ptx::barrier_cluster_wait();
}

// Cluster launch control: work-stealing persistent kernel (sm_100a).
__global__ void clc_persistent(float* data, int ntiles) {
#if CORPUS_SM100A
  __shared__ __align__(16) uint64_t resp[2];
  __shared__ uint64_t bar;
  __shared__ int next_tile;
  if (threadIdx.x == 0) {
    cuda::ptx::mbarrier_init(&bar, 1);
    next_tile = blockIdx.x;
  }
  __syncthreads();
  uint32_t phase = 0;
  while (next_tile < ntiles) {
    const int tile = next_tile;
    data[tile * blockDim.x + threadIdx.x] *= 2.0f;
    __syncthreads();
    if (threadIdx.x == 0) {
      asm volatile(
          "clusterlaunchcontrol.try_cancel.async.shared::cta.mbarrier::complete_tx::bytes.b128 [%0], [%1];" ::"r"(
              corpus_smem_addr(resp)),
          "r"(corpus_smem_addr(&bar))
          : "memory");
      cuda::ptx::mbarrier_arrive_expect_tx(cuda::ptx::sem_relaxed, cuda::ptx::scope_cta, cuda::ptx::space_shared,
                                           &bar, 16u);
      while (!cuda::ptx::mbarrier_try_wait_parity(&bar, phase)) {
      }
      uint32_t ok, x;
      asm volatile(
          "{\n\t.reg .b128 r;\n\t.reg .pred p;\n\t"
          "ld.shared.b128 r, [%2];\n\t"
          "clusterlaunchcontrol.query_cancel.is_canceled.pred.b128 p, r;\n\t"
          "selp.u32 %0, 1, 0, p;\n\t"
          "@p clusterlaunchcontrol.query_cancel.get_first_ctaid::x.b32.b128 %1, r;\n\t}"
          : "=r"(ok), "=r"(x)
          : "r"(corpus_smem_addr(resp))
          : "memory");
      next_tile = ok ? (int)x : ntiles;
    }
    phase ^= 1;
    __syncthreads();
  }
#endif
}
