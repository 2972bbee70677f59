// ptxpp corpus: Blackwell 5th-generation tensor core instructions (tcgen05.*):
// tensor-memory allocation, MMA of several kinds (f16, tf32, f8f6f4, i8,
// block-scaled mx formats, weight-stationary .ws, A from tensor memory,
// collector buffers, cta_group::2), tcgen05.ld/st/cp/shift, commit and fences.
// nvcc corpus (see scripts/gen-corpus): archs: sm_100a   variants: lineinfo:sm_100a
#include <cuda_fp16.h>
#include <cuda/ptx>
#include <cuda.h>
#include "corpus.h"

#if CORPUS_SM100A

CORPUS_DEV uint64_t smem_desc(const void* p, uint32_t lbo, uint32_t sbo, uint32_t layout) {
  uint64_t a = corpus_smem_addr(p);
  return ((a & 0x3FFFFull) >> 4) | ((uint64_t)(lbo >> 4) << 16) | ((uint64_t)(sbo >> 4) << 32) |
         (1ull << 46) | ((uint64_t)layout << 61);
}

// Instruction descriptor for kind::f16 / tf32 / f8f6f4 (fields per PTX ISA).
CORPUS_DEV constexpr uint32_t idesc(uint32_t dfmt, uint32_t afmt, uint32_t bfmt, uint32_t n, uint32_t m,
                                    bool ta = false, bool tb = false) {
  return (dfmt << 4) | (afmt << 7) | (bfmt << 10) | ((uint32_t)ta << 15) | ((uint32_t)tb << 16) |
         ((n >> 3) << 17) | ((m >> 4) << 24);
}

CORPUS_DEV void tc_alloc(uint32_t* dst_smem, uint32_t ncols) {
  asm volatile("tcgen05.alloc.cta_group::1.sync.aligned.shared::cta.b32 [%0], %1;" ::"r"(corpus_smem_addr(dst_smem)),
               "r"(ncols)
               : "memory");
}
CORPUS_DEV void tc_dealloc(uint32_t taddr, uint32_t ncols) {
  asm volatile("tcgen05.dealloc.cta_group::1.sync.aligned.b32 %0, %1;" ::"r"(taddr), "r"(ncols) : "memory");
}

CORPUS_DEV void mma_f16_ss(uint32_t d, uint64_t a, uint64_t b, uint32_t id, bool acc) {
  asm volatile(
      "{\n\t.reg .pred p;\n\tsetp.ne.b32 p, %4, 0;\n\t"
      "tcgen05.mma.cta_group::1.kind::f16 [%0], %1, %2, %3, p;\n\t}" ::"r"(d),
      "l"(a), "l"(b), "r"(id), "r"((uint32_t)acc)
      : "memory");
}
CORPUS_DEV void mma_tf32_ts(uint32_t d, uint32_t a_tmem, uint64_t b, uint32_t id, bool acc) {
  asm volatile(
      "{\n\t.reg .pred p;\n\tsetp.ne.b32 p, %4, 0;\n\t"
      "tcgen05.mma.cta_group::1.kind::tf32 [%0], [%1], %2, %3, p;\n\t}" ::"r"(d),
      "r"(a_tmem), "l"(b), "r"(id), "r"((uint32_t)acc)
      : "memory");
}
CORPUS_DEV void mma_f8f6f4_mask(uint32_t d, uint64_t a, uint64_t b, uint32_t id, const uint32_t (&mask)[4],
                                bool acc) {
  asm volatile(
      "{\n\t.reg .pred p;\n\tsetp.ne.b32 p, %8, 0;\n\t"
      "tcgen05.mma.cta_group::1.kind::f8f6f4 [%0], %1, %2, %3, {%4, %5, %6, %7}, p;\n\t}" ::"r"(d),
      "l"(a), "l"(b), "r"(id), "r"(mask[0]), "r"(mask[1]), "r"(mask[2]), "r"(mask[3]), "r"((uint32_t)acc)
      : "memory");
}
CORPUS_DEV void mma_i8(uint32_t d, uint64_t a, uint64_t b, uint32_t id, bool acc) {
  asm volatile(
      "{\n\t.reg .pred p;\n\tsetp.ne.b32 p, %4, 0;\n\t"
      "tcgen05.mma.cta_group::1.kind::i8 [%0], %1, %2, %3, p;\n\t}" ::"r"(d),
      "l"(a), "l"(b), "r"(id), "r"((uint32_t)acc)
      : "memory");
}
CORPUS_DEV void mma_mxf8f6f4(uint32_t d, uint64_t a, uint64_t b, uint32_t id, uint32_t sfa, uint32_t sfb, bool acc) {
  asm volatile(
      "{\n\t.reg .pred p;\n\tsetp.ne.b32 p, %6, 0;\n\t"
      "tcgen05.mma.cta_group::1.kind::mxf8f6f4.block_scale.scale_vec::1X [%0], %1, %2, %3, [%4], [%5], p;\n\t}" ::"r"(
          d),
      "l"(a), "l"(b), "r"(id), "r"(sfa), "r"(sfb), "r"((uint32_t)acc)
      : "memory");
}
CORPUS_DEV void mma_mxf4(uint32_t d, uint64_t a, uint64_t b, uint32_t id, uint32_t sfa, uint32_t sfb, bool acc) {
  asm volatile(
      "{\n\t.reg .pred p;\n\tsetp.ne.b32 p, %6, 0;\n\t"
      "tcgen05.mma.cta_group::1.kind::mxf4.block_scale.scale_vec::2X.collector::a::fill [%0], %1, %2, %3, [%4], [%5], "
      "p;\n\t}" ::"r"(d),
      "l"(a), "l"(b), "r"(id), "r"(sfa), "r"(sfb), "r"((uint32_t)acc)
      : "memory");
}
CORPUS_DEV void mma_mxf4nvf4(uint32_t d, uint64_t a, uint64_t b, uint32_t id, uint32_t sfa, uint32_t sfb, bool acc) {
  asm volatile(
      "{\n\t.reg .pred p;\n\tsetp.ne.b32 p, %6, 0;\n\t"
      "tcgen05.mma.cta_group::1.kind::mxf4nvf4.block_scale.scale_vec::4X.collector::a::lastuse [%0], %1, %2, %3, [%4], "
      "[%5], p;\n\t}" ::"r"(d),
      "l"(a), "l"(b), "r"(id), "r"(sfa), "r"(sfb), "r"((uint32_t)acc)
      : "memory");
}
CORPUS_DEV void mma_ws_f16(uint32_t d, uint64_t a, uint64_t b, uint32_t id, bool acc) {
  asm volatile(
      "{\n\t.reg .pred p;\n\tsetp.ne.b32 p, %4, 0;\n\t"
      "tcgen05.mma.ws.cta_group::1.kind::f16.collector::b0::fill [%0], %1, %2, %3, p;\n\t"
      "tcgen05.mma.ws.cta_group::1.kind::f16.collector::b0::use [%0], %1, %2, %3, p;\n\t"
      "tcgen05.mma.ws.cta_group::1.kind::f16.collector::b0::lastuse [%0], %1, %2, %3, p;\n\t"
      "tcgen05.mma.ws.cta_group::1.kind::f16.collector::b1::discard [%0], %1, %2, %3, p;\n\t}" ::"r"(d),
      "l"(a), "l"(b), "r"(id), "r"((uint32_t)acc)
      : "memory");
}
CORPUS_DEV void mma_ws_i8_zero_col(uint32_t d, uint32_t a_tmem, uint64_t b, uint32_t id, uint64_t zero_mask) {
  asm volatile(
      "{\n\t.reg .pred p;\n\tsetp.ne.b32 p, %4, 0;\n\t"
      "tcgen05.mma.ws.cta_group::1.kind::i8.collector::b2::use [%0], [%1], %2, %3, p, %5;\n\t}" ::"r"(d),
      "r"(a_tmem), "l"(b), "r"(id), "r"(0u), "l"(zero_mask)
      : "memory");
}

CORPUS_DEV void tc_commit(uint64_t* bar) {
  asm volatile("tcgen05.commit.cta_group::1.mbarrier::arrive::one.shared::cluster.b64 [%0];" ::"r"(
                   corpus_smem_addr(bar))
               : "memory");
}
CORPUS_DEV void tc_wait_bar(uint64_t* bar, uint32_t parity) {
  asm volatile(
      "{\n\t.reg .pred done;\n"
      "WAIT_%=:\n\t"
      "mbarrier.try_wait.parity.shared::cta.b64 done, [%0], %1;\n\t"
      "@!done bra WAIT_%=;\n\t}" ::"r"(corpus_smem_addr(bar)),
      "r"(parity)
      : "memory");
}

#endif

// A single-CTA GEMM tile: TMA -> smem, tcgen05.mma into TMEM, tcgen05.ld to
// registers, epilogue stores.
__global__ void __launch_bounds__(128) tc_gemm_f16(const __grid_constant__ CUtensorMap ta,
                                                   const __grid_constant__ CUtensorMap tb, float* out, int ktiles) {
#if CORPUS_SM100A
  __shared__ __align__(1024) half sa[128 * 64];
  __shared__ __align__(1024) half sb[128 * 64];
  __shared__ uint64_t tma_bar, mma_bar;
  __shared__ uint32_t tmem_base;
  const int warp = threadIdx.x / 32;
  if (warp == 0) tc_alloc(&tmem_base, 128);
  if (threadIdx.x == 32) {
    cuda::ptx::mbarrier_init(&tma_bar, 1);
    cuda::ptx::mbarrier_init(&mma_bar, 1);
    cuda::ptx::fence_mbarrier_init(cuda::ptx::sem_release, cuda::ptx::scope_cluster);
  }
  asm volatile("tcgen05.fence::before_thread_sync;" ::: "memory");
  __syncthreads();
  asm volatile("tcgen05.fence::after_thread_sync;" ::: "memory");
  const uint32_t tmem = tmem_base;
  constexpr uint32_t id = idesc(1, 0, 0, 128, 128);
  for (int kt = 0; kt < ktiles; ++kt) {
    if (threadIdx.x == 0) {
      cuda::ptx::mbarrier_arrive_expect_tx(cuda::ptx::sem_release, cuda::ptx::scope_cta, cuda::ptx::space_shared,
                                           &tma_bar, 2 * 128 * 64 * 2);
      int32_t ca[2] = {kt * 64, (int)blockIdx.y * 128};
      int32_t cb[2] = {kt * 64, (int)blockIdx.x * 128};
      cuda::ptx::cp_async_bulk_tensor(cuda::ptx::space_shared, cuda::ptx::space_global, sa, &ta, ca, &tma_bar);
      cuda::ptx::cp_async_bulk_tensor(cuda::ptx::space_shared, cuda::ptx::space_global, sb, &tb, cb, &tma_bar);
    }
    tc_wait_bar(&tma_bar, kt & 1);
    asm volatile("tcgen05.fence::after_thread_sync;" ::: "memory");
    if (threadIdx.x == 0) {
#pragma unroll
      for (int k = 0; k < 4; ++k) {
        mma_f16_ss(tmem, smem_desc(sa + k * 16, 16, 1024, 2), smem_desc(sb + k * 16, 16, 1024, 2), id,
                   (kt | k) != 0);
      }
      tc_commit(&mma_bar);
    }
    tc_wait_bar(&mma_bar, kt & 1);
  }
  asm volatile("tcgen05.fence::after_thread_sync;" ::: "memory");
  uint32_t r[32];
  const uint32_t lane_base = tmem + ((warp * 32) << 16);
#pragma unroll
  for (int chunk = 0; chunk < 4; ++chunk) {
    asm volatile("tcgen05.ld.sync.aligned.32x32b.x32.b32 {" CP_LIST32 "}, [%32];"
                 : CP_OR32(r, 0)
                 : "r"(lane_base + chunk * 32));
    asm volatile("tcgen05.wait::ld.sync.aligned;" ::: "memory");
    float* o = out + ((blockIdx.y * 128 + threadIdx.x) * gridDim.x + blockIdx.x) * 128 + chunk * 32;
#pragma unroll
    for (int i = 0; i < 32; i += 4)
      *reinterpret_cast<float4*>(o + i) =
          make_float4(__uint_as_float(r[i]), __uint_as_float(r[i + 1]), __uint_as_float(r[i + 2]),
                      __uint_as_float(r[i + 3]));
  }
  asm volatile("tcgen05.fence::before_thread_sync;" ::: "memory");
  __syncthreads();
  if (warp == 0) {
    tc_dealloc(tmem, 128);
    asm volatile("tcgen05.relinquish_alloc_permit.cta_group::1.sync.aligned;" ::: "memory");
  }
#endif
}

// Many MMA kinds and TMEM data movement forms in one kernel.
__global__ void __launch_bounds__(128) tc_kinds(const uint4* g, uint32_t* out, uint64_t zmask) {
#if CORPUS_SM100A
  __shared__ __align__(1024) uint8_t sa[16384];
  __shared__ __align__(1024) uint8_t sb[16384];
  __shared__ __align__(128) uint8_t sf[4096];
  __shared__ uint64_t bar;
  __shared__ uint32_t base;
  for (int i = threadIdx.x; i < 1024; i += 128) {
    reinterpret_cast<uint4*>(sa)[i] = g[i];
    reinterpret_cast<uint4*>(sb)[i] = g[1024 + i];
  }
  for (int i = threadIdx.x; i < 256; i += 128) reinterpret_cast<uint4*>(sf)[i] = g[2048 + i];
  if (threadIdx.x < 32) cuda::ptx::tcgen05_alloc(cuda::ptx::cta_group_1, &base, 512u);
  if (threadIdx.x == 0) cuda::ptx::mbarrier_init(&bar, 1);
  cuda::ptx::fence_proxy_async(cuda::ptx::space_shared);
  cuda::ptx::tcgen05_fence_before_thread_sync();
  __syncthreads();
  cuda::ptx::tcgen05_fence_after_thread_sync();
  const uint32_t t = base;
  const uint64_t da = smem_desc(sa, 128, 1024, 0), db = smem_desc(sb, 128, 1024, 0);
  const uint64_t dsf = smem_desc(sf, 16, 128, 0);
  if (threadIdx.x == 0) {
    // Copy scale factors and an A tile from shared memory into tensor memory.
    asm volatile("tcgen05.cp.cta_group::1.128x256b [%0], %1;" ::"r"(t + 256), "l"(da) : "memory");
    asm volatile("tcgen05.cp.cta_group::1.4x256b [%0], %1;" ::"r"(t + 384), "l"(dsf) : "memory");
    asm volatile("tcgen05.cp.cta_group::1.128x128b [%0], %1;" ::"r"(t + 392), "l"(dsf) : "memory");
    asm volatile("tcgen05.cp.cta_group::1.64x128b.warpx2::02_13 [%0], %1;" ::"r"(t + 400), "l"(dsf) : "memory");
    asm volatile("tcgen05.cp.cta_group::1.64x128b.warpx2::01_23 [%0], %1;" ::"r"(t + 404), "l"(dsf) : "memory");
    asm volatile("tcgen05.cp.cta_group::1.32x128b.warpx4 [%0], %1;" ::"r"(t + 408), "l"(dsf) : "memory");
    asm volatile("tcgen05.cp.cta_group::1.128x256b.b8x16.b6x16_p32 [%0], %1;" ::"r"(t + 416), "l"(da) : "memory");
    asm volatile("tcgen05.cp.cta_group::1.128x128b.b8x16.b4x16_p64 [%0], %1;" ::"r"(t + 448), "l"(db) : "memory");
    cuda::ptx::tcgen05_cp_128x256b(cuda::ptx::cta_group_1, t + 464, db);

    mma_f16_ss(t, da, db, idesc(1, 1, 1, 64, 128), false);
    mma_tf32_ts(t + 64, t + 256, db, idesc(1, 2, 2, 64, 128), false);
    const uint32_t all_on[4] = {0, 0, 0, 0};
    mma_f8f6f4_mask(t + 128, da, db, idesc(1, 0, 1, 64, 128), all_on, false);
    mma_i8(t + 192, da, db, idesc(2, 1, 0, 64, 128), false);
    mma_mxf8f6f4(t + 128, da, db, (idesc(1, 0, 0, 64, 128)), t + 384, t + 392, true);
    mma_mxf4(t + 192, da, db, idesc(1, 1, 1, 64, 128) | (1u << 23), t + 400, t + 408, true);
    mma_mxf4nvf4(t + 64, da, db, idesc(1, 1, 1, 64, 128), t + 400, t + 404, true);
    mma_ws_f16(t + 224, da, db, idesc(1, 0, 0, 32, 64), true);
    mma_ws_i8_zero_col(t + 232, t + 256, db, idesc(2, 0, 0, 32, 64), zmask);
    const uint32_t lanes[4] = {0xffffffffu, 0, 0, 0};
    cuda::ptx::tcgen05_mma(cuda::ptx::kind_f16, cuda::ptx::cta_group_1, t + 240, da, db, idesc(1, 0, 0, 64, 128),
                           lanes, true, cuda::ptx::n32_t<0>());
    cuda::ptx::tcgen05_mma(cuda::ptx::kind_tf32, cuda::ptx::cta_group_1, t + 320, t + 256, db,
                           idesc(1, 2, 2, 64, 128), true);
    cuda::ptx::tcgen05_commit(cuda::ptx::cta_group_1, &bar);
  }
  while (!cuda::ptx::mbarrier_try_wait_parity(&bar, 0)) {
  }
  cuda::ptx::tcgen05_fence_after_thread_sync();
  const uint32_t lane = t + (((threadIdx.x / 32) * 32) << 16);
  uint32_t v[64];
  asm volatile("tcgen05.ld.sync.aligned.32x32b.x1.b32 {%0}, [%1];" : "=r"(v[0]) : "r"(lane));
  asm volatile("tcgen05.ld.sync.aligned.32x32b.x2.b32 {%0, %1}, [%2];" : "=r"(v[1]), "=r"(v[2]) : "r"(lane + 2));
  asm volatile("tcgen05.ld.sync.aligned.16x64b.x4.b32 {%0, %1, %2, %3}, [%4];"
               : "=r"(v[3]), "=r"(v[4]), "=r"(v[5]), "=r"(v[6])
               : "r"(lane + 8));
  asm volatile("tcgen05.ld.sync.aligned.16x128b.x2.pack::16b.b32 {%0, %1, %2, %3}, [%4];"
               : "=r"(v[7]), "=r"(v[8]), "=r"(v[9]), "=r"(v[10])
               : "r"(lane + 16));
  asm volatile("tcgen05.ld.sync.aligned.16x256b.x1.b32 {%0, %1, %2, %3}, [%4];"
               : "=r"(v[11]), "=r"(v[12]), "=r"(v[13]), "=r"(v[14])
               : "r"(lane + 24));
  asm volatile("tcgen05.ld.sync.aligned.16x32bx2.x2.b32 {%0, %1}, [%2], 16;" : "=r"(v[15]), "=r"(v[16]) : "r"(lane + 32));
  asm volatile("tcgen05.ld.sync.aligned.32x32b.x16.b32 {" CP_LIST16 "}, [%16];" : CP_OR16(v, 17) : "r"(lane + 64));
  uint32_t w[64];
  asm volatile("tcgen05.ld.sync.aligned.32x32b.x64.b32 {" CP_LIST64 "}, [%64];" : CP_OR64(w, 0) : "r"(lane + 128));
  cuda::ptx::tcgen05_wait_ld();
#pragma unroll
  for (int i = 0; i < 33; ++i) w[i] += v[i];
  asm volatile("tcgen05.st.sync.aligned.32x32b.x4.b32 [%0], {%1, %2, %3, %4};" ::"r"(lane + 256), "r"(w[0]),
               "r"(w[1]), "r"(w[2]), "r"(w[3])
               : "memory");
  asm volatile("tcgen05.st.sync.aligned.16x64b.x2.unpack::16b.b32 [%0], {%1, %2};" ::"r"(lane + 260), "r"(w[4]),
               "r"(w[5])
               : "memory");
  asm volatile("tcgen05.st.sync.aligned.16x32bx2.x1.b32 [%0], 8, {%1};" ::"r"(lane + 264), "r"(w[6]) : "memory");
  asm volatile("tcgen05.st.sync.aligned.32x32b.x64.b32 [%64], {" CP_LIST64 "};" ::CP_IR64(w, 0), "r"(lane + 320)
               : "memory");
  uint32_t s4[4] = {w[7], w[8], w[9], w[10]};
  cuda::ptx::tcgen05_st_16x128b(lane + 272, s4);
  cuda::ptx::tcgen05_wait_st();
  asm volatile("tcgen05.wait::st.sync.aligned;" ::: "memory");
  if (threadIdx.x == 0) {
    asm volatile("tcgen05.shift.cta_group::1.down [%0];" ::"r"(t + 256) : "memory");
    cuda::ptx::tcgen05_shift_down(cuda::ptx::cta_group_1, t + 288);
  }
  uint32_t acc = 0;
#pragma unroll
  for (int i = 0; i < 64; ++i) acc = acc * 31u + w[i];
  out[blockIdx.x * 128 + threadIdx.x] = acc;
  cuda::ptx::tcgen05_fence_before_thread_sync();
  __syncthreads();
  if (threadIdx.x < 32) {
    cuda::ptx::tcgen05_dealloc(cuda::ptx::cta_group_1, t, 512u);
    cuda::ptx::tcgen05_relinquish_alloc_permit(cuda::ptx::cta_group_1);
  }
#endif
}

// Two-CTA (cta_group::2) MMA with multicast commit.
__global__ void __cluster_dims__(2, 1, 1) __launch_bounds__(128) tc_pair(const uint4* g, float* out) {
#if CORPUS_SM100A
  __shared__ __align__(1024) uint8_t sa[16384];
  __shared__ __align__(1024) uint8_t sb[16384];
  __shared__ uint64_t bar;
  __shared__ uint32_t base;
  const uint32_t rank = cuda::ptx::get_sreg_cluster_ctarank();
  for (int i = threadIdx.x; i < 1024; i += 128) {
    reinterpret_cast<uint4*>(sa)[i] = g[rank * 2048 + i];
    reinterpret_cast<uint4*>(sb)[i] = g[rank * 2048 + 1024 + i];
  }
  if (threadIdx.x < 32)
    asm volatile("tcgen05.alloc.cta_group::2.sync.aligned.shared::cta.b32 [%0], 256;" ::"r"(corpus_smem_addr(&base))
                 : "memory");
  if (threadIdx.x == 0) {
    cuda::ptx::mbarrier_init(&bar, 1);
    cuda::ptx::fence_mbarrier_init(cuda::ptx::sem_release, cuda::ptx::scope_cluster);
  }
  cuda::ptx::fence_proxy_async(cuda::ptx::space_shared);
  asm volatile("tcgen05.fence::before_thread_sync;" ::: "memory");
  cuda::ptx::barrier_cluster_arrive();
  cuda::ptx::barrier_cluster_wait();
  asm volatile("tcgen05.fence::after_thread_sync;" ::: "memory");
  const uint32_t t = base;
  if (rank == 0 && threadIdx.x == 0) {
    uint64_t da = smem_desc(sa, 128, 1024, 0), db = smem_desc(sb, 128, 1024, 0);
    asm volatile(
        "{\n\t.reg .pred p;\n\tsetp.ne.b32 p, %4, 0;\n\t"
        "tcgen05.mma.cta_group::2.kind::f16 [%0], %1, %2, %3, p;\n\t"
        "tcgen05.mma.cta_group::2.kind::f16.collector::a::fill [%0], %1, %2, %3, p;\n\t"
        "tcgen05.mma.cta_group::2.kind::f16.collector::a::lastuse [%0], %1, %2, %3, p;\n\t}" ::"r"(t),
        "l"(da), "l"(db), "r"(idesc(1, 0, 0, 128, 256)), "r"(1u)
        : "memory");
    asm volatile("tcgen05.cp.cta_group::2.128x256b [%0], %1;" ::"r"(t + 128), "l"(da) : "memory");
    asm volatile(
        "tcgen05.commit.cta_group::2.mbarrier::arrive::one.shared::cluster.multicast::cluster.b64 [%0], %1;" ::"r"(
            corpus_smem_addr(&bar)),
        "h"((uint16_t)3)
        : "memory");
  }
  while (!cuda::ptx::mbarrier_try_wait_parity(cuda::ptx::sem_acquire, cuda::ptx::scope_cluster, &bar, 0)) {
  }
  asm volatile("tcgen05.fence::after_thread_sync;" ::: "memory");
  uint32_t r[8];
  asm volatile("tcgen05.ld.sync.aligned.32x32b.x8.b32 {" CP_LIST8 "}, [%8];"
               : CP_OR8(r, 0)
               : "r"(t + (((threadIdx.x / 32) * 32) << 16)));
  asm volatile("tcgen05.wait::ld.sync.aligned;" ::: "memory");
  float s = 0.f;
#pragma unroll
  for (int i = 0; i < 8; ++i) s += __uint_as_float(r[i]);
  out[rank * 128 + threadIdx.x] = s;
  if (threadIdx.x == 0) asm volatile("tcgen05.shift.cta_group::2.down [%0];" ::"r"(t) : "memory");
  asm volatile("tcgen05.fence::before_thread_sync;" ::: "memory");
  cuda::ptx::barrier_cluster_arrive(cuda::ptx::sem_release);
  cuda::ptx::barrier_cluster_wait(cuda::ptx::sem_acquire);
  if (threadIdx.x < 32) {
    asm volatile("tcgen05.dealloc.cta_group::2.sync.aligned.b32 %0, 256;" ::"r"(t) : "memory");
    asm volatile("tcgen05.relinquish_alloc_permit.cta_group::2.sync.aligned;" ::: "memory");
  }
#endif
}
