// ptxpp corpus: Hopper warpgroup MMA (wgmma.*) with shared-memory descriptors,
// register A operands, sparse variants, integer/fp8/tf32/b1 kinds, plus a
// warp-specialized producer/consumer pipeline (TMA + mbarrier + setmaxnreg).
// nvcc corpus (see scripts/gen-corpus): archs: sm_90a   variants: G:sm_90a
#include <cuda_fp16.h>
#include <cuda_bf16.h>
#include <cuda/ptx>
#include <cuda.h>
#include "corpus.h"

#if CORPUS_SM90A

// Build a wgmma matrix descriptor for a shared-memory tile.
CORPUS_DEV uint64_t make_desc(const void* smem, uint32_t lbo, uint32_t sbo, uint32_t swizzle) {
  uint64_t addr = corpus_smem_addr(smem);
  uint64_t d = 0;
  d |= (addr & 0x3FFFFull) >> 4;
  d |= (uint64_t)((lbo & 0x3FFFFu) >> 4) << 16;
  d |= (uint64_t)((sbo & 0x3FFFFu) >> 4) << 32;
  d |= (uint64_t)(swizzle & 3u) << 62;
  return d;
}

CORPUS_DEV void wg_fence() { asm volatile("wgmma.fence.sync.aligned;" ::: "memory"); }
CORPUS_DEV void wg_commit() { asm volatile("wgmma.commit_group.sync.aligned;" ::: "memory"); }
template <int N>
CORPUS_DEV void wg_wait() {
  asm volatile("wgmma.wait_group.sync.aligned %0;" ::"n"(N) : "memory");
}
template <int N>
CORPUS_DEV void wg_fence_operand(float (&d)[N]) {
#pragma unroll
  for (int i = 0; i < N; ++i) asm volatile("" : "+f"(d[i])::"memory");
}

// ---- f16 x f16 -> f32, both operands from shared memory -------------------
CORPUS_DEV void mma_m64n8k16_f32_f16(float (&d)[4], uint64_t da, uint64_t db, int scale_d) {
  asm volatile(
      "{\n"
      ".reg .pred p;\n"
      "setp.ne.b32 p, %6, 0;\n"
      "wgmma.mma_async.sync.aligned.m64n8k16.f32.f16.f16 {" CP_LIST4 "}, %4, %5, p, 1, 1, 0, 0;\n"
      "}\n"
      : CP_F4(d, 0)
      : "l"(da), "l"(db), "r"(scale_d));
}

CORPUS_DEV void mma_m64n16k16_f32_f16(float (&d)[8], uint64_t da, uint64_t db, int scale_d) {
  asm volatile(
      "{\n"
      ".reg .pred p;\n"
      "setp.ne.b32 p, %10, 0;\n"
      "wgmma.mma_async.sync.aligned.m64n16k16.f32.f16.f16 {" CP_LIST8 "}, %8, %9, p, -1, 1, 1, 0;\n"
      "}\n"
      : CP_F8(d, 0)
      : "l"(da), "l"(db), "r"(scale_d));
}

CORPUS_DEV void mma_m64n64k16_f32_f16(float (&d)[32], uint64_t da, uint64_t db, int scale_d) {
  asm volatile(
      "{\n"
      ".reg .pred p;\n"
      "setp.ne.b32 p, %34, 0;\n"
      "wgmma.mma_async.sync.aligned.m64n64k16.f32.f16.f16 {" CP_LIST32 "}, %32, %33, p, 1, 1, 0, 1;\n"
      "}\n"
      : CP_F32(d, 0)
      : "l"(da), "l"(db), "r"(scale_d));
}

CORPUS_DEV void mma_m64n128k16_f32_f16(float (&d)[64], uint64_t da, uint64_t db, int scale_d) {
  asm volatile(
      "{\n"
      ".reg .pred p;\n"
      "setp.ne.b32 p, %66, 0;\n"
      "wgmma.mma_async.sync.aligned.m64n128k16.f32.f16.f16 {" CP_LIST64 "}, %64, %65, p, 1, 1, 0, 0;\n"
      "}\n"
      : CP_F64(d, 0)
      : "l"(da), "l"(db), "r"(scale_d));
}

CORPUS_DEV void mma_m64n256k16_f32_bf16(float (&d)[128], uint64_t da, uint64_t db, int scale_d) {
  asm volatile(
      "{\n"
      ".reg .pred p;\n"
      "setp.ne.b32 p, %130, 0;\n"
      "wgmma.mma_async.sync.aligned.m64n256k16.f32.bf16.bf16 {" CP_LIST128 "}, %128, %129, p, 1, 1, 0, 0;\n"
      "}\n"
      : CP_F128(d, 0)
      : "l"(da), "l"(db), "r"(scale_d));
}

// ---- f16 accumulators (packed half2 in .b32) --------------------------------
CORPUS_DEV void mma_m64n64k16_f16_f16(uint32_t (&d)[16], uint64_t da, uint64_t db, int scale_d) {
  asm volatile(
      "{\n"
      ".reg .pred p;\n"
      "setp.ne.b32 p, %18, 0;\n"
      "wgmma.mma_async.sync.aligned.m64n64k16.f16.f16.f16 {" CP_LIST16 "}, %16, %17, p, 1, 1, 0, 0;\n"
      "}\n"
      : CP_R16(d, 0)
      : "l"(da), "l"(db), "r"(scale_d));
}

// ---- A from registers (RS form) -------------------------------------------
CORPUS_DEV void mma_m64n32k16_f32_bf16_rs(float (&d)[16], const uint32_t (&a)[4], uint64_t db, int scale_d) {
  asm volatile(
      "{\n"
      ".reg .pred p;\n"
      "setp.ne.b32 p, %21, 0;\n"
      "wgmma.mma_async.sync.aligned.m64n32k16.f32.bf16.bf16 {" CP_LIST16 "}, {%16, %17, %18, %19}, %20, p, 1, 1, 1;\n"
      "}\n"
      : CP_F16(d, 0)
      : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "l"(db), "r"(scale_d));
}

// ---- tf32 ------------------------------------------------------------------
CORPUS_DEV void mma_m64n64k8_f32_tf32(float (&d)[32], uint64_t da, uint64_t db, int scale_d) {
  asm volatile(
      "{\n"
      ".reg .pred p;\n"
      "setp.ne.b32 p, %34, 0;\n"
      "wgmma.mma_async.sync.aligned.m64n64k8.f32.tf32.tf32 {" CP_LIST32 "}, %32, %33, p, 1, 1;\n"
      "}\n"
      : CP_F32(d, 0)
      : "l"(da), "l"(db), "r"(scale_d));
}

// ---- fp8 -------------------------------------------------------------------
CORPUS_DEV void mma_m64n64k32_f32_e4m3_e5m2(float (&d)[32], uint64_t da, uint64_t db, int scale_d) {
  asm volatile(
      "{\n"
      ".reg .pred p;\n"
      "setp.ne.b32 p, %34, 0;\n"
      "wgmma.mma_async.sync.aligned.m64n64k32.f32.e4m3.e5m2 {" CP_LIST32 "}, %32, %33, p, 1, -1;\n"
      "}\n"
      : CP_F32(d, 0)
      : "l"(da), "l"(db), "r"(scale_d));
}

CORPUS_DEV void mma_m64n32k32_f16_e5m2_e4m3(uint32_t (&d)[8], uint64_t da, uint64_t db, int scale_d) {
  asm volatile(
      "{\n"
      ".reg .pred p;\n"
      "setp.ne.b32 p, %10, 0;\n"
      "wgmma.mma_async.sync.aligned.m64n32k32.f16.e5m2.e4m3 {" CP_LIST8 "}, %8, %9, p, 1, 1;\n"
      "}\n"
      : CP_R8(d, 0)
      : "l"(da), "l"(db), "r"(scale_d));
}

// ---- integer ----------------------------------------------------------------
CORPUS_DEV void mma_m64n64k32_s32_s8_u8(uint32_t (&d)[32], uint64_t da, uint64_t db, int scale_d) {
  asm volatile(
      "{\n"
      ".reg .pred p;\n"
      "setp.ne.b32 p, %34, 0;\n"
      "wgmma.mma_async.sync.aligned.m64n64k32.s32.s8.u8.satfinite {" CP_LIST32 "}, %32, %33, p;\n"
      "}\n"
      : CP_R32(d, 0)
      : "l"(da), "l"(db), "r"(scale_d));
}

CORPUS_DEV void mma_m64n16k32_s32_u8_u8(uint32_t (&d)[8], uint64_t da, uint64_t db, int scale_d) {
  asm volatile(
      "{\n"
      ".reg .pred p;\n"
      "setp.ne.b32 p, %10, 0;\n"
      "wgmma.mma_async.sync.aligned.m64n16k32.s32.u8.u8 {" CP_LIST8 "}, %8, %9, p;\n"
      "}\n"
      : CP_R8(d, 0)
      : "l"(da), "l"(db), "r"(scale_d));
}

CORPUS_DEV void mma_m64n32k256_s32_b1(uint32_t (&d)[16], uint64_t da, uint64_t db, int scale_d) {
  asm volatile(
      "{\n"
      ".reg .pred p;\n"
      "setp.ne.b32 p, %18, 0;\n"
      "wgmma.mma_async.sync.aligned.m64n32k256.s32.b1.b1.and.popc {" CP_LIST16 "}, %16, %17, p;\n"
      "}\n"
      : CP_R16(d, 0)
      : "l"(da), "l"(db), "r"(scale_d));
}

// ---- sparse ----------------------------------------------------------------
CORPUS_DEV void mma_sp_m64n32k32_f32_f16(float (&d)[16], uint64_t da, uint64_t db, uint32_t meta, int scale_d) {
  asm volatile(
      "{\n"
      ".reg .pred p;\n"
      "setp.ne.b32 p, %19, 0;\n"
      "wgmma.mma_async.sp.sync.aligned.m64n32k32.f32.f16.f16 {" CP_LIST16 "}, %16, %17, %18, 0, p, 1, 1, 0, 0;\n"
      "}\n"
      : CP_F16(d, 0)
      : "l"(da), "l"(db), "r"(meta), "r"(scale_d));
}

CORPUS_DEV void mma_sp_m64n16k64_f32_e4m3(float (&d)[8], uint64_t da, uint64_t db, uint32_t meta, int scale_d) {
  asm volatile(
      "{\n"
      ".reg .pred p;\n"
      "setp.ne.b32 p, %11, 0;\n"
      "wgmma.mma_async.sp.sync.aligned.m64n16k64.f32.e4m3.e4m3 {" CP_LIST8 "}, %8, %9, %10, 0, p, 1, 1;\n"
      "}\n"
      : CP_F8(d, 0)
      : "l"(da), "l"(db), "r"(meta), "r"(scale_d));
}

#endif  // CORPUS_SM90A

// ---------------------------------------------------------------------------
// Kernels
// ---------------------------------------------------------------------------

__global__ void __launch_bounds__(128) wgmma_shapes_f16(const half* __restrict__ ga, const half* __restrict__ gb,
                                                        float* __restrict__ out, int ktiles) {
#if CORPUS_SM90A
  __shared__ __align__(128) half sa[64 * 64];
  __shared__ __align__(128) half sb[256 * 64];
  float acc8[4] = {}, acc16[8] = {}, acc64[32] = {}, acc128[64] = {};
  for (int kt = 0; kt < ktiles; ++kt) {
    for (int i = threadIdx.x; i < 64 * 64; i += blockDim.x) sa[i] = ga[kt * 64 * 64 + i];
    for (int i = threadIdx.x; i < 256 * 64; i += blockDim.x) sb[i] = gb[kt * 256 * 64 + i];
    __syncthreads();
    cuda::ptx::fence_proxy_async(cuda::ptx::space_shared);
    wg_fence();
#pragma unroll
    for (int k = 0; k < 4; ++k) {
      uint64_t da = make_desc(sa + k * 16, 128, 1024, 1);
      uint64_t db = make_desc(sb + k * 16, 128, 1024, 1);
      mma_m64n8k16_f32_f16(acc8, da, db, kt | k);
      mma_m64n16k16_f32_f16(acc16, da, db, 1);
      mma_m64n64k16_f32_f16(acc64, da, db, 1);
      mma_m64n128k16_f32_f16(acc128, da, db, (kt + k) != 0);
    }
    wg_commit();
    wg_wait<0>();
    __syncthreads();
  }
  float* o = out + threadIdx.x * (4 + 8 + 32 + 64);
#pragma unroll
  for (int i = 0; i < 4; ++i) o[i] = acc8[i];
#pragma unroll
  for (int i = 0; i < 8; ++i) o[4 + i] = acc16[i];
#pragma unroll
  for (int i = 0; i < 32; ++i) o[12 + i] = acc64[i];
#pragma unroll
  for (int i = 0; i < 64; ++i) o[44 + i] = acc128[i];
#endif
}

__global__ void __launch_bounds__(128) wgmma_bf16_n256(const __nv_bfloat16* ga, const __nv_bfloat16* gb, float* out,
                                                       int ktiles) {
#if CORPUS_SM90A
  extern __shared__ __align__(1024) unsigned char dyn[];
  __nv_bfloat16* sa = reinterpret_cast<__nv_bfloat16*>(dyn);
  __nv_bfloat16* sb = sa + 64 * 64;
  float acc[128];
#pragma unroll
  for (int i = 0; i < 128; ++i) acc[i] = 0.f;
  for (int kt = 0; kt < ktiles; ++kt) {
    for (int i = threadIdx.x; i < 64 * 64; i += 128) sa[i] = ga[kt * 4096 + i];
    for (int i = threadIdx.x; i < 256 * 64; i += 128) sb[i] = gb[kt * 16384 + i];
    asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
    __syncthreads();
    wg_fence();
#pragma unroll
    for (int k = 0; k < 4; ++k) {
      mma_m64n256k16_f32_bf16(acc, make_desc(sa + k * 16, 16, 1024, 1), make_desc(sb + k * 16, 16, 1024, 1),
                              kt + k);
    }
    wg_commit();
    wg_wait<0>();
    wg_fence_operand(acc);
    __syncthreads();
  }
#pragma unroll
  for (int i = 0; i < 128; i += 2) {
    *reinterpret_cast<float2*>(out + (blockIdx.x * 128 + threadIdx.x) * 128 + i) = make_float2(acc[i], acc[i + 1]);
  }
#endif
}

__global__ void __launch_bounds__(128) wgmma_mixed_kinds(const uint8_t* g8, uint32_t* out_i, float* out_f,
                                                         uint32_t meta) {
#if CORPUS_SM90A
  __shared__ __align__(128) uint8_t sa[64 * 128];
  __shared__ __align__(128) uint8_t sb[64 * 128];
  for (int i = threadIdx.x; i < 64 * 128; i += 128) {
    sa[i] = g8[i];
    sb[i] = g8[8192 + i];
  }
  __syncthreads();
  asm volatile("fence.proxy.async;" ::: "memory");
  uint64_t da = make_desc(sa, 64, 512, 0);
  uint64_t db = make_desc(sb, 64, 512, 2);
  uint64_t db3 = make_desc(sb, 64, 512, 3);

  uint32_t accH16[16] = {}, accS32[32] = {}, accU8[8] = {}, accB1[16] = {}, accH8[8] = {};
  float accT[32] = {}, accE[32] = {}, accSp[16] = {}, accSp8[8] = {}, accRS[16] = {};
  uint32_t areg[4] = {g8[threadIdx.x], g8[threadIdx.x + 1], g8[threadIdx.x + 2], g8[threadIdx.x + 3]};

  wg_fence();
  mma_m64n64k16_f16_f16(accH16, da, db, 0);
  mma_m64n64k8_f32_tf32(accT, da, db3, 0);
  mma_m64n64k32_f32_e4m3_e5m2(accE, da, db, 0);
  mma_m64n32k32_f16_e5m2_e4m3(accH8, da, db, 0);
  wg_commit();
  mma_m64n64k32_s32_s8_u8(accS32, da, db, 0);
  mma_m64n16k32_s32_u8_u8(accU8, da, db, 0);
  mma_m64n32k256_s32_b1(accB1, da, db, 0);
  wg_commit();
  mma_sp_m64n32k32_f32_f16(accSp, da, db, meta, 0);
  mma_sp_m64n16k64_f32_e4m3(accSp8, da, db, meta ^ 0x5555u, 1);
  mma_m64n32k16_f32_bf16_rs(accRS, areg, db, 0);
  wg_commit();
  wg_wait<2>();
  wg_wait<1>();
  wg_wait<0>();

  uint32_t* oi = out_i + threadIdx.x * 80;
  float* of = out_f + threadIdx.x * 104;
#pragma unroll
  for (int i = 0; i < 16; ++i) oi[i] = accH16[i] ^ accB1[i];
#pragma unroll
  for (int i = 0; i < 32; ++i) oi[16 + i] = accS32[i];
#pragma unroll
  for (int i = 0; i < 8; ++i) oi[48 + i] = accU8[i] + accH8[i];
#pragma unroll
  for (int i = 0; i < 32; ++i) of[i] = accT[i] + accE[i];
#pragma unroll
  for (int i = 0; i < 16; ++i) of[32 + i] = accSp[i] * accRS[i];
#pragma unroll
  for (int i = 0; i < 8; ++i) of[48 + i] = accSp8[i];
#endif
}

// Warp-specialized pipeline: one producer warpgroup issues TMA loads and
// arrives on "full" barriers; two consumer warpgroups run wgmma and arrive on
// "empty" barriers.  Register budget is rebalanced with setmaxnreg.
constexpr int kStages = 4;

__global__ void __launch_bounds__(384, 1)
    wgmma_ws_pipeline(const __grid_constant__ CUtensorMap tmap_a, const __grid_constant__ CUtensorMap tmap_b,
                      float* out, int ktiles) {
#if CORPUS_SM90A
  extern __shared__ __align__(1024) unsigned char smem[];
  half* sa = reinterpret_cast<half*>(smem);                  // kStages x 128x64
  half* sb = sa + kStages * 128 * 64;                         // kStages x 128x64
  uint64_t* full = reinterpret_cast<uint64_t*>(sb + kStages * 128 * 64);
  uint64_t* empty = full + kStages;
  const int wg = threadIdx.x / 128;
  if (threadIdx.x == 0) {
    for (int s = 0; s < kStages; ++s) {
      cuda::ptx::mbarrier_init(&full[s], 1);
      cuda::ptx::mbarrier_init(&empty[s], 2);
    }
    cuda::ptx::fence_mbarrier_init(cuda::ptx::sem_release, cuda::ptx::scope_cluster);
  }
  __syncthreads();
  if (wg == 0) {
    asm volatile("setmaxnreg.dec.sync.aligned.u32 40;");
    if (threadIdx.x == 0) {
      for (int kt = 0; kt < ktiles; ++kt) {
        int s = kt % kStages;
        uint32_t parity = ((kt / kStages) & 1) ^ 1;
        while (!cuda::ptx::mbarrier_try_wait_parity(&empty[s], parity)) {
        }
        cuda::ptx::mbarrier_arrive_expect_tx(cuda::ptx::sem_release, cuda::ptx::scope_cta, cuda::ptx::space_shared,
                                             &full[s], 2 * 128 * 64 * 2);
        int32_t ca[2] = {kt * 64, (int)blockIdx.y * 128};
        int32_t cb[2] = {kt * 64, (int)blockIdx.x * 128};
        cuda::ptx::cp_async_bulk_tensor(cuda::ptx::space_cluster, cuda::ptx::space_global, sa + s * 8192, &tmap_a, ca,
                                        &full[s]);
        cuda::ptx::cp_async_bulk_tensor(cuda::ptx::space_cluster, cuda::ptx::space_global, sb + s * 8192, &tmap_b, cb,
                                        &full[s]);
      }
    }
  } else {
    asm volatile("setmaxnreg.inc.sync.aligned.u32 232;");
    float acc[64];
#pragma unroll
    for (int i = 0; i < 64; ++i) acc[i] = 0.f;
    const int half_m = wg - 1;
    for (int kt = 0; kt < ktiles; ++kt) {
      int s = kt % kStages;
      uint32_t parity = (kt / kStages) & 1;
      while (!cuda::ptx::mbarrier_try_wait_parity(cuda::ptx::sem_acquire, cuda::ptx::scope_cta, &full[s], parity)) {
      }
      wg_fence();
#pragma unroll
      for (int k = 0; k < 4; ++k) {
        uint64_t da = make_desc(sa + s * 8192 + half_m * 64 * 64 + k * 16, 16, 1024, 1);
        uint64_t db = make_desc(sb + s * 8192 + k * 16, 16, 1024, 1);
        mma_m64n128k16_f32_f16(acc, da, db, (kt | k) != 0);
      }
      wg_commit();
      wg_wait<0>();
      if (threadIdx.x % 128 == 0) cuda::ptx::mbarrier_arrive(&empty[s]);
    }
    float* o = out + ((blockIdx.y * 2 + half_m) * gridDim.x + blockIdx.x) * 128 * 64;
#pragma unroll
    for (int i = 0; i < 64; i += 4) {
      __stcs(reinterpret_cast<float4*>(o + (threadIdx.x % 128) * 64 + i),
             make_float4(acc[i], acc[i + 1], acc[i + 2], acc[i + 3]));
    }
  }
#endif
}
