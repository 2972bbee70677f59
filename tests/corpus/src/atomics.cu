// ptxpp corpus: atomics and reductions of all types, operations, scopes and
// memory orders: CUDA atomic intrinsics, cuda::atomic_ref, cuda::ptx::red_async,
// inline atom/red with vector types, and lock-free data structures.
// nvcc corpus (see scripts/gen-corpus): archs: sm_80 sm_90a sm_100a sm_120a
#include <cuda_fp16.h>
#include <cuda_bf16.h>
#include <cuda/atomic>
#include <cuda/ptx>
#include "corpus.h"

__device__ unsigned long long g_ticket;
__device__ int g_lock;
__device__ float g_hist[256];
__managed__ int g_managed_counter;

__global__ void atomic_intrinsics(int* i32, unsigned* u32, unsigned long long* u64, long long* s64, float* f32,
                                  double* f64, __half2* h2, __half* h1, __nv_bfloat16* b1, __nv_bfloat162* b2,
                                  int n) {
  const int t = blockIdx.x * blockDim.x + threadIdx.x;
  if (t >= n) return;
  atomicAdd(&i32[0], t);
  atomicAdd(&u32[0], 1u);
  atomicAdd(&u64[0], 1ull);
  atomicAdd(&f32[0], 0.5f * t);
  atomicAdd(&f64[0], 0.25 * t);
  atomicAdd(&h2[0], __floats2half2_rn(1.0f, -1.0f));
  atomicAdd(&h1[t & 7], __float2half(0.125f));
  atomicAdd(&b1[t & 7], __float2bfloat16(2.0f));
  atomicAdd(&b2[0], __floats2bfloat162_rn(3.0f, 4.0f));
  atomicSub(&i32[1], t);
  atomicSub(&u32[1], 2u);
  atomicExch(&i32[2], t);
  atomicExch(&u32[2], (unsigned)t);
  atomicExch(&u64[2], (unsigned long long)t);
  atomicExch(&f32[2], (float)t);
  atomicMin(&i32[3], -t);
  atomicMin(&u32[3], (unsigned)t);
  atomicMin(&u64[3], (unsigned long long)t);
  atomicMin(&s64[3], -(long long)t);
  atomicMax(&i32[4], t);
  atomicMax(&u32[4], (unsigned)t);
  atomicMax(&u64[4], (unsigned long long)t);
  atomicMax(&s64[4], (long long)t);
  atomicInc(&u32[5], 100u);
  atomicDec(&u32[6], 100u);
  atomicAnd(&i32[7], ~(1 << (t & 31)));
  atomicOr(&i32[8], 1 << (t & 31));
  atomicXor(&i32[9], t);
  atomicAnd(&u64[7], ~(1ull << (t & 63)));
  atomicOr(&u64[8], 1ull << (t & 63));
  atomicXor(&u64[9], (unsigned long long)t * 0x9E3779B97F4A7C15ull);
  int old = i32[10];
  int assumed;
  do {
    assumed = old;
    old = atomicCAS(&i32[10], assumed, assumed * 3 + t);
  } while (old != assumed);
  unsigned long long o64 = atomicCAS(&u64[10], 0ull, (unsigned long long)t);
  unsigned short o16 = atomicCAS(reinterpret_cast<unsigned short*>(&u32[11]), (unsigned short)0, (unsigned short)t);
  // scoped variants
  atomicAdd_block(&i32[12], 1);
  atomicAdd_system(&i32[13], 1);
  atomicAdd_block(&f32[12], 1.0f);
  atomicAdd_system(&f64[13], 1.0);
  atomicCAS_block(&u32[14], 0u, 1u);
  atomicCAS_system(&u64[14], 0ull, 1ull);
  atomicExch_system(&u32[15], 7u);
  atomicMax_block(&i32[16], t);
  atomicMin_system(&u32[16], (unsigned)t);
  atomicOr_block(&u32[17], 4u);
  atomicXor_system(&u32[18], 5u);
  atomicInc_system(&u32[19], 9u);
  atomicDec_block(&u32[20], 9u);
  if ((o64 ^ o16) == 0x1234) i32[21] = old;
  atomicAdd(&g_managed_counter, 1);
  atomicAdd(&g_hist[t & 255], 1.0f);
}

// Atomics on shared memory, including float CAS loops for min/max.
__device__ float atomic_max_float(float* addr, float v) {
  int* ai = reinterpret_cast<int*>(addr);
  int old = *ai, assumed;
  while (__int_as_float(old) < v) {
    assumed = old;
    old = atomicCAS(ai, assumed, __float_as_int(v));
    if (old == assumed) break;
  }
  return __int_as_float(old);
}

__global__ void shared_histogram(const unsigned char* data, unsigned* hist, float* fmax, int n) {
  __shared__ unsigned local[256];
  __shared__ float smax;
  __shared__ unsigned long long s64;
  for (int i = threadIdx.x; i < 256; i += blockDim.x) local[i] = 0;
  if (threadIdx.x == 0) {
    smax = -1e30f;
    s64 = 0;
  }
  __syncthreads();
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) {
    unsigned char v = data[i];
    atomicAdd(&local[v], 1u);
    atomic_max_float(&smax, (float)v * 0.5f);
    atomicAdd(&s64, (unsigned long long)v);
    atomicMax(&local[0], (unsigned)v);
    atomicOr(&local[1], 1u << (v & 31));
  }
  __syncthreads();
  for (int i = threadIdx.x; i < 256; i += blockDim.x) atomicAdd(&hist[i], local[i]);
  if (threadIdx.x == 0) {
    atomic_max_float(fmax, smax);
    atomicAdd(reinterpret_cast<unsigned long long*>(hist + 256), s64);
  }
}

// cuda::atomic_ref with every scope and memory order.
template <cuda::thread_scope S>
__device__ int scoped_ops(int* p, unsigned long long* q, float* f, int v) {
  cuda::atomic_ref<int, S> a(*p);
  cuda::atomic_ref<unsigned long long, S> b(*q);
  cuda::atomic_ref<float, S> c(*f);
  int r = a.fetch_add(v, cuda::memory_order_relaxed);
  r += a.fetch_sub(1, cuda::memory_order_acquire);
  r ^= a.fetch_and(0xff, cuda::memory_order_release);
  r ^= a.fetch_or(0x100, cuda::memory_order_acq_rel);
  r ^= a.fetch_xor(v, cuda::memory_order_seq_cst);
  r += a.fetch_min(-v, cuda::memory_order_relaxed);
  r += a.fetch_max(v, cuda::memory_order_relaxed);
  a.store(r, cuda::memory_order_release);
  r += a.load(cuda::memory_order_acquire);
  r += a.load(cuda::memory_order_relaxed);
  r += a.load(cuda::memory_order_seq_cst);
  r += a.exchange(v, cuda::memory_order_acq_rel);
  int expected = v;
  a.compare_exchange_strong(expected, v + 1, cuda::memory_order_acq_rel, cuda::memory_order_acquire);
  a.compare_exchange_weak(expected, v + 2, cuda::memory_order_relaxed);
  unsigned long long e64 = b.load(cuda::memory_order_relaxed);
  b.compare_exchange_strong(e64, e64 + 1);
  b.fetch_add(3ull, cuda::memory_order_release);
  c.fetch_add(1.5f, cuda::memory_order_relaxed);
  c.store(c.load() * 2.0f, cuda::memory_order_seq_cst);
  cuda::atomic_thread_fence(cuda::memory_order_seq_cst, S);
  cuda::atomic_thread_fence(cuda::memory_order_acq_rel, S);
  return r + expected + (int)e64;
}

__global__ void atomic_ref_scopes(int* p, unsigned long long* q, float* f, int* out) {
  int v = threadIdx.x;
  int r = scoped_ops<cuda::thread_scope_thread>(p, q, f, v);
  r += scoped_ops<cuda::thread_scope_block>(p + 1, q + 1, f + 1, v);
  r += scoped_ops<cuda::thread_scope_device>(p + 2, q + 2, f + 2, v);
  r += scoped_ops<cuda::thread_scope_system>(p + 3, q + 3, f + 3, v);
  out[blockIdx.x * blockDim.x + threadIdx.x] = r;
}

// Raw atom/red PTX: every scope, semantic, vector and packed-float form.
__global__ void raw_atom_red(float* f, double* d, unsigned* u, unsigned long long* u64, __half2* h2,
                             __nv_bfloat162* b2, float4* f4, int* out) {
  unsigned r0, r1, r2;
  unsigned long long q0;
  float x0;
  asm volatile("atom.global.add.u32 %0, [%1], 1;" : "=r"(r0) : "l"(u) : "memory");
  asm volatile("atom.relaxed.gpu.global.add.u32 %0, [%1], 1;" : "=r"(r1) : "l"(u + 1) : "memory");
  asm volatile("atom.acquire.sys.global.or.b32 %0, [%1], 2;" : "=r"(r2) : "l"(u + 2) : "memory");
  asm volatile("atom.release.cta.global.and.b32 %0, [%1], %2;" : "=r"(r0) : "l"(u + 3), "r"(r1) : "memory");
  asm volatile("atom.acq_rel.gpu.xor.b32 %0, [%1], %2;" : "=r"(r1) : "l"(u + 4), "r"(r2) : "memory");
  asm volatile("atom.global.cas.b32 %0, [%1], %2, %3;" : "=r"(r2) : "l"(u + 5), "r"(r0), "r"(r1) : "memory");
  asm volatile("atom.global.exch.b64 %0, [%1], %2;" : "=l"(q0) : "l"(u64), "l"((unsigned long long)r2) : "memory");
  asm volatile("atom.global.inc.u32 %0, [%1], 17;" : "=r"(r0) : "l"(u + 6) : "memory");
  asm volatile("atom.global.dec.u32 %0, [%1], 17;" : "=r"(r1) : "l"(u + 7) : "memory");
  asm volatile("atom.global.min.s32 %0, [%1], -5;" : "=r"(r2) : "l"(u + 8) : "memory");
  asm volatile("atom.global.max.u64 %0, [%1], %2;" : "=l"(q0) : "l"(u64 + 1), "l"(q0) : "memory");
  asm volatile("atom.global.min.s64 %0, [%1], %2;" : "=l"(q0) : "l"(u64 + 2), "l"(q0) : "memory");
  asm volatile("atom.global.add.f32 %0, [%1], 0f3F800000;" : "=f"(x0) : "l"(f) : "memory");
  asm volatile("atom.global.add.f64 %0, [%1], %2;" : "=d"(d[2]) : "l"(d), "d"(1.0) : "memory");
  asm volatile("atom.global.add.noftz.f16x2 %0, [%1], %2;"
               : "=r"(r0)
               : "l"(h2), "r"(0x3C003C00u)
               : "memory");
  asm volatile("red.global.add.u32 [%0], %1;" ::"l"(u + 9), "r"(r0) : "memory");
  asm volatile("red.relaxed.sys.global.add.u64 [%0], %1;" ::"l"(u64 + 3), "l"(q0) : "memory");
  asm volatile("red.release.gpu.global.max.s32 [%0], %1;" ::"l"(u + 10), "r"(r2) : "memory");
  asm volatile("red.global.and.b64 [%0], %1;" ::"l"(u64 + 4), "l"(q0) : "memory");
  asm volatile("red.global.add.f32 [%0], %1;" ::"l"(f + 1), "f"(x0) : "memory");
  asm volatile("red.global.add.noftz.f16 [%0], %1;" ::"l"(h2 + 1), "h"((unsigned short)0x3C00) : "memory");
  asm volatile("red.cta.shared::cta.add.u32 [%0], 1;" ::"r"(0u) : "memory");
#if __CUDA_ARCH__ >= 900
  // bf16 and vector atomics/reductions (sm_90+)
  asm volatile("atom.global.add.noftz.bf16x2 %0, [%1], %2;" : "=r"(r1) : "l"(b2), "r"(0x3F803F80u) : "memory");
  asm volatile("red.global.add.noftz.bf16 [%0], %1;" ::"l"(b2 + 1), "h"((unsigned short)0x3F80) : "memory");
  float4 v4;
  asm volatile("red.global.v4.f32.add [%0], {%1, %2, %3, %4};" ::"l"(f4 + 1), "f"(1.f), "f"(2.f), "f"(3.f), "f"(4.f)
               : "memory");
  asm volatile("atom.global.v4.f32.add {%0, %1, %2, %3}, [%4], {%5, %6, %7, %8};"
               : "=f"(v4.x), "=f"(v4.y), "=f"(v4.z), "=f"(v4.w)
               : "l"(f4 + 2), "f"(1.f), "f"(1.f), "f"(1.f), "f"(1.f)
               : "memory");
  asm volatile("red.global.v2.f16x2.add.noftz [%0], {%1, %2};" ::"l"(h2 + 2), "r"(r0), "r"(r1) : "memory");
  asm volatile("red.global.v4.bf16x2.add.noftz [%0], {%1, %2, %3, %4};" ::"l"(b2 + 8), "r"(r0),
               "r"(r1), "r"(r2), "r"(r0)
               : "memory");
  asm volatile("atom.global.v2.f32.add {%0, %1}, [%2], {%3, %4};"
               : "=f"(v4.x), "=f"(v4.y)
               : "l"(f4 + 3), "f"(0.5f), "f"(0.25f)
               : "memory");
  asm volatile("atom.acq_rel.cluster.global.add.u32 %0, [%1], 1;" : "=r"(r2) : "l"(u + 11) : "memory");
  asm volatile("red.relaxed.cluster.shared::cluster.add.u32 [%0], 1;" ::"r"(0u) : "memory");
  x0 += v4.x + v4.y + v4.z + v4.w;
#endif
#if __CUDA_ARCH__ >= 1000
  // 128-bit exchange and compare-and-swap (sm_90+ in PTX 8.3; use 100+ here)
  asm volatile(
      "{\n\t.reg .b128 cmp, nv, old;\n\t"
      "mov.b128 cmp, {%1, %2};\n\t"
      "mov.b128 nv, {%3, %4};\n\t"
      "atom.global.cas.b128 old, [%5], cmp, nv;\n\t"
      "mov.b128 {%0, %1}, old;\n\t}"
      : "=l"(q0)
      : "l"(q0), "l"(0ull), "l"(1ull), "l"(2ull), "l"(u64 + 8)
      : "memory");
  asm volatile(
      "{\n\t.reg .b128 nv, old;\n\t"
      "mov.b128 nv, {%1, %1};\n\t"
      "atom.exch.b128 old, [%2], nv;\n\t"
      "mov.b128 {%0, _}, old;\n\t}"
      : "=l"(q0)
      : "l"(q0), "l"(u64 + 10)
      : "memory");
#endif
  out[threadIdx.x] = (int)(r0 + r1 + r2 + (unsigned)q0 + (unsigned)x0);
}

// Spin lock / ticket lock with fences.
__global__ void ticket_lock(int* shared_counter) {
  if (threadIdx.x != 0) return;
  unsigned long long my = atomicAdd(&g_ticket, 1ull);
  while (true) {
    int turn = *((volatile int*)&g_lock);
    if ((unsigned long long)turn == my) break;
    __nanosleep(32);
  }
  __threadfence();
  *shared_counter += 1;
  __threadfence_system();
  atomicExch(&g_lock, (int)(my + 1));
}

#if __CUDA_ARCH__ >= 900
__device__ void cluster_red_async(uint32_t* remote, uint64_t* rbar, uint32_t v, uint64_t v64) {
  cuda::ptx::red_async(cuda::ptx::op_inc, remote, v, rbar);
  cuda::ptx::red_async(cuda::ptx::op_dec, remote + 1, v, rbar);
  cuda::ptx::red_async(cuda::ptx::op_min, remote + 2, v, rbar);
  cuda::ptx::red_async(cuda::ptx::op_max, remote + 3, v, rbar);
  cuda::ptx::red_async(cuda::ptx::op_add, remote + 4, v, rbar);
  cuda::ptx::red_async(cuda::ptx::op_and_op, reinterpret_cast<int32_t*>(remote + 5), (int32_t)v, rbar);
  cuda::ptx::red_async(cuda::ptx::op_or_op, reinterpret_cast<int32_t*>(remote + 6), (int32_t)v, rbar);
  cuda::ptx::red_async(cuda::ptx::op_xor_op, reinterpret_cast<int32_t*>(remote + 7), (int32_t)v, rbar);
  cuda::ptx::red_async(cuda::ptx::op_add, reinterpret_cast<uint64_t*>(remote + 8), v64, rbar);
  cuda::ptx::red_async(cuda::ptx::op_min, reinterpret_cast<int32_t*>(remote + 10), -(int32_t)v, rbar);
}
#endif

__global__ void CORPUS_CLUSTER(2, 1, 1) red_async_cluster(uint32_t* out) {
#if __CUDA_ARCH__ >= 900
  __shared__ __align__(16) uint32_t cells[16];
  __shared__ uint64_t bar;
  const uint32_t rank = cuda::ptx::get_sreg_cluster_ctarank();
  if (threadIdx.x < 16) cells[threadIdx.x] = 0;
  if (threadIdx.x == 0) {
    cuda::ptx::mbarrier_init(&bar, 1);
    cuda::ptx::mbarrier_expect_tx(cuda::ptx::sem_relaxed, cuda::ptx::scope_cluster, cuda::ptx::space_shared, &bar,
                                  44u * 32u);
  }
  cuda::ptx::barrier_cluster_arrive(cuda::ptx::sem_release);
  cuda::ptx::barrier_cluster_wait(cuda::ptx::sem_acquire);
  if (threadIdx.x < 32) {
    uint32_t* remote = reinterpret_cast<uint32_t*>(__cluster_map_shared_rank(cells, rank ^ 1));
    uint64_t* rbar = reinterpret_cast<uint64_t*>(__cluster_map_shared_rank(&bar, rank ^ 1));
    cluster_red_async(remote, rbar, threadIdx.x + 1, 1ull << threadIdx.x);
    cuda::ptx::st_async(remote + 12, threadIdx.x, rbar);
  }
  if (threadIdx.x == 0) {
    cuda::ptx::mbarrier_arrive(&bar);
    while (!cuda::ptx::mbarrier_try_wait_parity(cuda::ptx::sem_acquire, cuda::ptx::scope_cluster, &bar, 0)) {
    }
  }
  __syncthreads();
  if (threadIdx.x < 16) out[rank * 16 + threadIdx.x] = cells[threadIdx.x];
  cuda::ptx::barrier_cluster_arrive();
  cuda::ptx::barrier_cluster_wait();
#endif
}
