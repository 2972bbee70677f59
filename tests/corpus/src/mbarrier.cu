// ptxpp corpus: mbarrier objects: init/inval, arrive (count, noComplete, drop,
// release/relaxed, cta/cluster scope, remote), expect_tx/complete_tx,
// test_wait/try_wait (with parity, suspend-time hints, acquire/relaxed),
// pending_count, cuda::barrier and a producer/consumer ring built on them.
// nvcc corpus (see scripts/gen-corpus): archs: sm_80 sm_90a sm_100a sm_120a   variants: lineinfo:sm_90a
#include <cuda/barrier>
#include <cuda/ptx>
#include "corpus.h"

#pragma nv_diag_suppress static_var_with_dynamic_init

CORPUS_DEV void bar_init(uint64_t* b, uint32_t count) {
  asm volatile("mbarrier.init.shared::cta.b64 [%0], %1;" ::"r"(corpus_smem_addr(b)), "r"(count) : "memory");
}
CORPUS_DEV uint64_t bar_arrive(uint64_t* b) {
  uint64_t st;
  asm volatile("mbarrier.arrive.shared.b64 %0, [%1];" : "=l"(st) : "r"(corpus_smem_addr(b)) : "memory");
  return st;
}
CORPUS_DEV bool bar_test(uint64_t* b, uint64_t st) {
  uint32_t ok;
  asm volatile(
      "{\n\t.reg .pred p;\n\t"
      "mbarrier.test_wait.shared.b64 p, [%1], %2;\n\t"
      "selp.b32 %0, 1, 0, p;\n\t}"
      : "=r"(ok)
      : "r"(corpus_smem_addr(b)), "l"(st)
      : "memory");
  return ok != 0;
}
CORPUS_DEV bool bar_test_parity(uint64_t* b, uint32_t parity) {
  uint32_t ok;
  asm volatile(
      "{\n\t.reg .pred p;\n\t"
      "mbarrier.test_wait.parity.shared::cta.b64 p, [%1], %2;\n\t"
      "selp.b32 %0, 1, 0, p;\n\t}"
      : "=r"(ok)
      : "r"(corpus_smem_addr(b)), "r"(parity)
      : "memory");
  return ok != 0;
}

__global__ void mbarrier_basic(int* out, int rounds) {
  __shared__ uint64_t bars[4];
  __shared__ int data[256];
  const int t = threadIdx.x;
  if (t == 0) {
    bar_init(&bars[0], blockDim.x);
    bar_init(&bars[1], blockDim.x / 2);
    asm volatile("mbarrier.init.shared.b64 [%0], 1;" ::"r"(corpus_smem_addr(&bars[2])) : "memory");
    cuda::ptx::mbarrier_init(&bars[3], 32);
  }
  __syncthreads();
  int acc = 0;
  for (int r = 0; r < rounds; ++r) {
    data[t] = t * r;
    uint64_t st = bar_arrive(&bars[0]);
    while (!bar_test(&bars[0], st)) {
    }
    acc += data[(t + 1) % blockDim.x];
    if (t < blockDim.x / 2) {
      uint64_t s2;
      asm volatile("mbarrier.arrive.noComplete.shared.b64 %0, [%1], 1;"
                   : "=l"(s2)
                   : "r"(corpus_smem_addr(&bars[1]))
                   : "memory");
      acc += (int)(s2 & 1);
    }
    while (!bar_test_parity(&bars[3], r & 1)) {
      if (t < 32) {
        cuda::ptx::mbarrier_arrive(&bars[3]);
        break;
      }
    }
  }
  uint32_t pending;
  uint64_t st2 = bar_arrive(&bars[2]);
  asm volatile("mbarrier.pending_count.b64 %0, %1;" : "=r"(pending) : "l"(st2));
  asm volatile("mbarrier.arrive_drop.shared.b64 _, [%0];" ::"r"(corpus_smem_addr(&bars[0])) : "memory");
  asm volatile("mbarrier.arrive_drop.noComplete.shared.b64 %0, [%1], 1;"
               : "=l"(st2)
               : "r"(corpus_smem_addr(&bars[1]))
               : "memory");
  __syncthreads();
  if (t == 0) {
    asm volatile("mbarrier.inval.shared.b64 [%0];" ::"r"(corpus_smem_addr(&bars[0])) : "memory");
    asm volatile("mbarrier.inval.shared::cta.b64 [%0];" ::"r"(corpus_smem_addr(&bars[1])) : "memory");
  }
  out[blockIdx.x * blockDim.x + t] = acc + (int)pending;
}

#if __CUDA_ARCH__ >= 900
CORPUS_DEV void bar_wait_parity_hint(uint64_t* b, uint32_t parity) {
  asm volatile(
      "{\n\t.reg .pred p;\n"
      "W_%=:\n\t"
      "mbarrier.try_wait.parity.shared::cta.b64 p, [%0], %1, %2;\n\t"
      "@p bra D_%=;\n\t"
      "bra.uni W_%=;\n"
      "D_%=:\n\t}" ::"r"(corpus_smem_addr(b)),
      "r"(parity), "r"(1000000)
      : "memory");
}
CORPUS_DEV void bar_wait_acquire_cluster(uint64_t* b, uint32_t parity) {
  asm volatile(
      "{\n\t.reg .pred p;\n"
      "W_%=:\n\t"
      "mbarrier.try_wait.parity.acquire.cluster.shared::cta.b64 p, [%0], %1;\n\t"
      "@!p bra W_%=;\n\t}" ::"r"(corpus_smem_addr(b)),
      "r"(parity)
      : "memory");
}
#endif

// Producer/consumer ring with full/empty barriers (sm_90 forms).
__global__ void __launch_bounds__(256) mbarrier_ring(const float* __restrict__ in, float* __restrict__ out,
                                                     int nitems) {
#if __CUDA_ARCH__ >= 900
  constexpr int kSlots = 4;
  __shared__ float slots[kSlots][128];
  __shared__ uint64_t full[kSlots], empty[kSlots];
  const int t = threadIdx.x;
  const bool producer = t < 128;
  if (t == 0) {
    for (int s = 0; s < kSlots; ++s) {
      bar_init(&full[s], 128);
      bar_init(&empty[s], 128);
    }
    asm volatile("fence.mbarrier_init.release.cluster;" ::: "memory");
  }
  __syncthreads();
  float acc = 0.f;
  for (int i = 0; i < nitems; ++i) {
    const int s = i % kSlots;
    const uint32_t ph = (i / kSlots) & 1;
    if (producer) {
      if (i >= kSlots) bar_wait_parity_hint(&empty[s], ph ^ 1);
      slots[s][t] = in[i * 128 + t];
      asm volatile("mbarrier.arrive.release.cta.shared::cta.b64 _, [%0];" ::"r"(corpus_smem_addr(&full[s]))
                   : "memory");
    } else {
      uint32_t ok = 0;
      while (!ok) {
        ok = cuda::ptx::mbarrier_try_wait_parity(cuda::ptx::sem_acquire, cuda::ptx::scope_cta, &full[s], ph);
      }
      acc += slots[s][t - 128];
      asm volatile("mbarrier.arrive.relaxed.cta.shared::cta.b64 _, [%0], 1;" ::"r"(corpus_smem_addr(&empty[s]))
                   : "memory");
    }
  }
  if (!producer) out[blockIdx.x * 128 + t - 128] = acc;
#endif
}

// Transaction counts and cluster-scope remote arrivals.
__global__ void CORPUS_CLUSTER(2, 1, 1) mbarrier_tx_cluster(uint32_t* out) {
#if __CUDA_ARCH__ >= 900
  __shared__ uint64_t bar;
  __shared__ uint32_t cell[64];
  uint32_t rank;
  asm("mov.u32 %0, %%cluster_ctarank;" : "=r"(rank));
  if (threadIdx.x == 0) {
    bar_init(&bar, 2);
    asm volatile("fence.mbarrier_init.release.cluster;" ::: "memory");
  }
  asm volatile("barrier.cluster.arrive.relaxed.aligned;\n\tbarrier.cluster.wait.aligned;" ::: "memory");
  if (threadIdx.x == 0) {
    const uint32_t local = corpus_smem_addr(&bar);
    uint32_t remote;
    asm("mapa.shared::cluster.u32 %0, %1, %2;" : "=r"(remote) : "r"(local), "r"(rank ^ 1));
    asm volatile("mbarrier.expect_tx.relaxed.cta.shared::cta.b64 [%0], 256;" ::"r"(local) : "memory");
    asm volatile("mbarrier.complete_tx.relaxed.cta.shared::cta.b64 [%0], 128;" ::"r"(local) : "memory");
    asm volatile("mbarrier.complete_tx.shared::cta.b64 [%0], 128;" ::"r"(local) : "memory");
    uint64_t st;
    asm volatile("mbarrier.arrive.expect_tx.release.cta.shared::cta.b64 %0, [%1], 0;"
                 : "=l"(st)
                 : "r"(local)
                 : "memory");
    asm volatile("mbarrier.arrive.release.cluster.shared::cluster.b64 _, [%0];" ::"r"(remote) : "memory");
    asm volatile("mbarrier.arrive.expect_tx.relaxed.cluster.shared::cluster.b64 _, [%0], 0;" ::"r"(remote)
                 : "memory");
    cuda::ptx::mbarrier_expect_tx(cuda::ptx::sem_relaxed, cuda::ptx::scope_cluster, cuda::ptx::space_shared, &bar,
                                  0u);
    uint32_t ok;
    asm volatile(
        "{\n\t.reg .pred p;\n\t"
        "mbarrier.try_wait.shared::cta.b64 p, [%1], %2;\n\t"
        "selp.u32 %0, 1, 0, p;\n\t}"
        : "=r"(ok)
        : "r"(local), "l"(st)
        : "memory");
    asm volatile(
        "{\n\t.reg .pred p;\n\t"
        "mbarrier.try_wait.relaxed.cluster.shared::cta.b64 p, [%1], %2, 100;\n\t"
        "selp.u32 %0, 1, %0, p;\n\t}"
        : "+r"(ok)
        : "r"(local), "l"(st)
        : "memory");
    asm volatile(
        "{\n\t.reg .pred p;\n\t"
        "mbarrier.test_wait.acquire.cluster.shared::cta.b64 p, [%1], %2;\n\t"
        "selp.u32 %0, 2, %0, p;\n\t}"
        : "+r"(ok)
        : "r"(local), "l"(st)
        : "memory");
    cell[0] = ok;
  }
  bar_wait_acquire_cluster(&bar, 0);
  cuda::ptx::mbarrier_try_wait(&bar, 0ull);
  out[rank * 64 + threadIdx.x % 64] = cell[threadIdx.x % 64];
  asm volatile("barrier.cluster.arrive.release;\n\tbarrier.cluster.wait.acquire;" ::: "memory");
#endif
}

// cuda::barrier arrive/wait including arrive_and_drop and split tokens.
__global__ void libcu_barrier(float* data, int iters) {
  __shared__ cuda::barrier<cuda::thread_scope_block> bar;
  if (threadIdx.x == 0) init(&bar, blockDim.x);
  __syncthreads();
  float v = data[threadIdx.x];
  for (int i = 0; i < iters; ++i) {
    v = v * 0.5f + 1.0f;
    auto tok = bar.arrive();
    data[threadIdx.x] = v;
    bar.wait(std::move(tok));
    bar.arrive_and_wait();
  }
  if (threadIdx.x >= blockDim.x / 2) bar.arrive_and_drop();
  else
    bar.arrive_and_wait();
}
