// ptxpp corpus: warp-level matrix multiply (mma.sync / mma.sp.sync of many
// shapes and types), ldmatrix/stmatrix/movmatrix, and the nvcuda::wmma API
// (which lowers to wmma.load/mma/store).
// nvcc corpus (see scripts/gen-corpus): archs: sm_80 sm_90a sm_120a
#include <mma.h>
#include <cuda_fp16.h>
#include <cuda_bf16.h>
#include "corpus.h"

using namespace nvcuda;

struct Frag {
  uint32_t a[4];
  uint32_t b[2];
  float c[4];
};

CORPUS_DEV void mma_f16_family(const uint32_t* a, const uint32_t* b, float* d, uint32_t* h) {
  // m16n8k16 f32 += f16*f16
  asm volatile("mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, "
               "{%0,%1,%2,%3};"
               : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
               : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]));
  // m16n8k16 f16 += f16*f16
  asm volatile("mma.sync.aligned.m16n8k16.row.col.f16.f16.f16.f16 {%0,%1}, {%2,%3,%4,%5}, {%6,%7}, {%0,%1};"
               : "+r"(h[0]), "+r"(h[1])
               : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]));
  // m16n8k8 f16
  asm volatile("mma.sync.aligned.m16n8k8.row.col.f32.f16.f16.f32 {%0,%1,%2,%3}, {%4,%5}, {%6}, {%0,%1,%2,%3};"
               : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
               : "r"(a[0]), "r"(a[1]), "r"(b[0]));
  asm volatile("mma.sync.aligned.m16n8k8.row.col.f16.f16.f16.f16 {%0,%1}, {%2,%3}, {%4}, {%0,%1};"
               : "+r"(h[2]), "+r"(h[3])
               : "r"(a[2]), "r"(a[3]), "r"(b[1]));
  // m8n8k4 (Volta-style quad-pair) f16
  asm volatile("mma.sync.aligned.m8n8k4.row.col.f32.f16.f16.f32 {%0,%1,%2,%3,%4,%5,%6,%7}, {%8,%9}, {%10,%11}, "
               "{%0,%1,%2,%3,%4,%5,%6,%7};"
               : "+f"(d[4]), "+f"(d[5]), "+f"(d[6]), "+f"(d[7]), "+f"(d[8]), "+f"(d[9]), "+f"(d[10]), "+f"(d[11])
               : "r"(a[0]), "r"(a[1]), "r"(b[0]), "r"(b[1]));
  asm volatile("mma.sync.aligned.m8n8k4.col.row.f16.f16.f16.f16 {%0,%1,%2,%3}, {%4,%5}, {%6,%7}, {%0,%1,%2,%3};"
               : "+r"(h[4]), "+r"(h[5]), "+r"(h[6]), "+r"(h[7])
               : "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]));
}

CORPUS_DEV void mma_bf16_tf32(const uint32_t* a, const uint32_t* b, float* d) {
  asm volatile("mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, "
               "{%0,%1,%2,%3};"
               : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
               : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]));
  asm volatile("mma.sync.aligned.m16n8k8.row.col.f32.bf16.bf16.f32 {%0,%1,%2,%3}, {%4,%5}, {%6}, {%0,%1,%2,%3};"
               : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
               : "r"(a[0]), "r"(a[1]), "r"(b[0]));
  asm volatile("mma.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, "
               "{%0,%1,%2,%3};"
               : "+f"(d[4]), "+f"(d[5]), "+f"(d[6]), "+f"(d[7])
               : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]));
  asm volatile("mma.sync.aligned.m16n8k4.row.col.f32.tf32.tf32.f32 {%0,%1,%2,%3}, {%4,%5}, {%6}, {%0,%1,%2,%3};"
               : "+f"(d[4]), "+f"(d[5]), "+f"(d[6]), "+f"(d[7])
               : "r"(a[0]), "r"(a[1]), "r"(b[0]));
}

CORPUS_DEV void mma_f64(const double* a, const double* b, double* d) {
  asm volatile("mma.sync.aligned.m8n8k4.row.col.f64.f64.f64.f64 {%0,%1}, {%2}, {%3}, {%0,%1};"
               : "+d"(d[0]), "+d"(d[1])
               : "d"(a[0]), "d"(b[0]));
#if __CUDA_ARCH__ >= 900 && __CUDA_ARCH__ < 1200
  asm volatile("mma.sync.aligned.m16n8k4.row.col.f64.f64.f64.f64 {%0,%1,%2,%3}, {%4,%5}, {%6}, {%0,%1,%2,%3};"
               : "+d"(d[0]), "+d"(d[1]), "+d"(d[2]), "+d"(d[3])
               : "d"(a[0]), "d"(a[1]), "d"(b[0]));
  asm volatile("mma.sync.aligned.m16n8k8.row.col.f64.f64.f64.f64 {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, "
               "{%0,%1,%2,%3};"
               : "+d"(d[0]), "+d"(d[1]), "+d"(d[2]), "+d"(d[3])
               : "d"(a[0]), "d"(a[1]), "d"(a[2]), "d"(a[3]), "d"(b[0]), "d"(b[1]));
  asm volatile("mma.sync.aligned.m16n8k16.row.col.f64.f64.f64.f64 {%0,%1,%2,%3}, {%4,%5,%6,%7,%8,%9,%10,%11}, "
               "{%12,%13,%14,%15}, {%0,%1,%2,%3};"
               : "+d"(d[0]), "+d"(d[1]), "+d"(d[2]), "+d"(d[3])
               : "d"(a[0]), "d"(a[1]), "d"(a[2]), "d"(a[3]), "d"(a[4]), "d"(a[5]), "d"(a[6]), "d"(a[7]), "d"(b[0]),
                 "d"(b[1]), "d"(b[2]), "d"(b[3]));
#endif
}

CORPUS_DEV void mma_int(const uint32_t* a, const uint32_t* b, int* d) {
  asm volatile("mma.sync.aligned.m8n8k16.row.col.s32.s8.s8.s32 {%0,%1}, {%2}, {%3}, {%0,%1};"
               : "+r"(d[0]), "+r"(d[1])
               : "r"(a[0]), "r"(b[0]));
  asm volatile("mma.sync.aligned.m8n8k16.row.col.satfinite.s32.u8.s8.s32 {%0,%1}, {%2}, {%3}, {%0,%1};"
               : "+r"(d[0]), "+r"(d[1])
               : "r"(a[1]), "r"(b[1]));
  asm volatile("mma.sync.aligned.m16n8k16.row.col.s32.s8.u8.s32 {%0,%1,%2,%3}, {%4,%5}, {%6}, {%0,%1,%2,%3};"
               : "+r"(d[0]), "+r"(d[1]), "+r"(d[2]), "+r"(d[3])
               : "r"(a[0]), "r"(a[1]), "r"(b[0]));
  asm volatile("mma.sync.aligned.m16n8k32.row.col.satfinite.s32.u8.u8.s32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, "
               "{%0,%1,%2,%3};"
               : "+r"(d[0]), "+r"(d[1]), "+r"(d[2]), "+r"(d[3])
               : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]));
#if __CUDA_ARCH__ < 1000
  // sub-byte integer and single-bit MMA
  asm volatile("mma.sync.aligned.m8n8k32.row.col.s32.s4.s4.s32 {%0,%1}, {%2}, {%3}, {%0,%1};"
               : "+r"(d[4]), "+r"(d[5])
               : "r"(a[2]), "r"(b[0]));
  asm volatile("mma.sync.aligned.m16n8k32.row.col.s32.u4.s4.s32 {%0,%1,%2,%3}, {%4,%5}, {%6}, {%0,%1,%2,%3};"
               : "+r"(d[4]), "+r"(d[5]), "+r"(d[6]), "+r"(d[7])
               : "r"(a[0]), "r"(a[1]), "r"(b[1]));
  asm volatile("mma.sync.aligned.m16n8k64.row.col.satfinite.s32.s4.s4.s32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, "
               "{%0,%1,%2,%3};"
               : "+r"(d[4]), "+r"(d[5]), "+r"(d[6]), "+r"(d[7])
               : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]));
  asm volatile("mma.sync.aligned.m8n8k128.row.col.s32.b1.b1.s32.xor.popc {%0,%1}, {%2}, {%3}, {%0,%1};"
               : "+r"(d[0]), "+r"(d[1])
               : "r"(a[3]), "r"(b[1]));
  asm volatile("mma.sync.aligned.m16n8k128.row.col.s32.b1.b1.s32.and.popc {%0,%1,%2,%3}, {%4,%5}, {%6}, "
               "{%0,%1,%2,%3};"
               : "+r"(d[0]), "+r"(d[1]), "+r"(d[2]), "+r"(d[3])
               : "r"(a[0]), "r"(a[1]), "r"(b[0]));
  asm volatile("mma.sync.aligned.m16n8k256.row.col.s32.b1.b1.s32.xor.popc {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, "
               "{%0,%1,%2,%3};"
               : "+r"(d[0]), "+r"(d[1]), "+r"(d[2]), "+r"(d[3])
               : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]));
#endif
}

CORPUS_DEV void mma_sparse(const uint32_t* a, const uint32_t* b, float* d, int* di, uint32_t meta) {
  asm volatile("mma.sp::ordered_metadata.sync.aligned.m16n8k32.row.col.f32.f16.f16.f32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9,%10,%11}, "
               "{%0,%1,%2,%3}, %12, 0x0;"
               : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
               : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]), "r"(b[0]), "r"(b[1]),
                 "r"(meta));
  asm volatile("mma.sp::ordered_metadata.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32 {%0,%1,%2,%3}, {%4,%5}, "
               "{%6,%7}, {%0,%1,%2,%3}, %8, 0x1;"
               : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
               : "r"(a[0]), "r"(a[1]), "r"(b[0]), "r"(b[1]), "r"(meta));
  asm volatile("mma.sp::ordered_metadata.sync.aligned.m16n8k16.row.col.f32.tf32.tf32.f32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, "
               "{%8,%9,%10,%11}, {%0,%1,%2,%3}, %12, 0x0;"
               : "+f"(d[4]), "+f"(d[5]), "+f"(d[6]), "+f"(d[7])
               : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]), "r"(b[0]), "r"(b[1]),
                 "r"(meta));
  asm volatile("mma.sp::ordered_metadata.sync.aligned.m16n8k64.row.col.satfinite.s32.s8.s8.s32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, "
               "{%8,%9,%10,%11}, {%0,%1,%2,%3}, %12, 0x0;"
               : "+r"(di[0]), "+r"(di[1]), "+r"(di[2]), "+r"(di[3])
               : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]), "r"(b[0]), "r"(b[1]),
                 "r"(meta));
}

CORPUS_DEV void mma_fp8(const uint32_t* a, const uint32_t* b, float* d, uint32_t* h) {
#if __CUDA_ARCH__ >= 890
  asm volatile("mma.sync.aligned.m16n8k32.row.col.f32.e4m3.e4m3.f32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, "
               "{%0,%1,%2,%3};"
               : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
               : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]));
  asm volatile("mma.sync.aligned.m16n8k32.row.col.f32.e5m2.e4m3.f32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, "
               "{%0,%1,%2,%3};"
               : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
               : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]));
  asm volatile("mma.sync.aligned.m16n8k16.row.col.f32.e4m3.e5m2.f32 {%0,%1,%2,%3}, {%4,%5}, {%6}, {%0,%1,%2,%3};"
               : "+f"(d[4]), "+f"(d[5]), "+f"(d[6]), "+f"(d[7])
               : "r"(a[0]), "r"(a[1]), "r"(b[0]));
  asm volatile("mma.sync.aligned.m16n8k32.row.col.f16.e5m2.e5m2.f16 {%0,%1}, {%2,%3,%4,%5}, {%6,%7}, {%0,%1};"
               : "+r"(h[0]), "+r"(h[1])
               : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]));
  asm volatile("mma.sp::ordered_metadata.sync.aligned.m16n8k64.row.col.f32.e4m3.e4m3.f32 {%0,%1,%2,%3}, "
               "{%4,%5,%6,%7}, {%8,%9,%10,%11}, {%0,%1,%2,%3}, %12, 0x0;"
               : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
               : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]), "r"(b[0]), "r"(b[1]),
                 "r"(h[2]));
#endif
#if CORPUS_SM120A
  // sm_120a: kind::f8f6f4 and block-scaled MMA
  asm volatile("mma.sync.aligned.m16n8k32.row.col.kind::f8f6f4.f32.e2m1.e3m2.f32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, "
               "{%8,%9}, {%0,%1,%2,%3};"
               : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
               : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]));
  asm volatile("mma.sync.aligned.m16n8k32.row.col.kind::f8f6f4.f16.e2m3.e4m3.f16 {%0,%1}, {%2,%3,%4,%5}, {%6,%7}, "
               "{%0,%1};"
               : "+r"(h[0]), "+r"(h[1])
               : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]));
  asm volatile("mma.sync.aligned.m16n8k32.row.col.kind::mxf8f6f4.block_scale.scale_vec::1X.f32.e4m3.e2m1.f32.ue8m0 "
               "{%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, {%0,%1,%2,%3}, %10, {0, 0}, %11, {0, 1};"
               : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
               : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]), "r"(h[2]), "r"(h[3]));
  asm volatile("mma.sync.aligned.m16n8k64.row.col.kind::mxf4.block_scale.scale_vec::2X.f32.e2m1.e2m1.f32.ue8m0 "
               "{%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, {%0,%1,%2,%3}, %10, {2, 1}, %11, {0, 0};"
               : "+f"(d[4]), "+f"(d[5]), "+f"(d[6]), "+f"(d[7])
               : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]), "r"(h[2]), "r"(h[3]));
  asm volatile("mma.sync.aligned.m16n8k64.row.col.kind::mxf4nvf4.block_scale.scale_vec::4X.f32.e2m1.e2m1.f32.ue4m3 "
               "{%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, {%0,%1,%2,%3}, %10, {0, 0}, %11, {0, 0};"
               : "+f"(d[4]), "+f"(d[5]), "+f"(d[6]), "+f"(d[7])
               : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]), "r"(h[2]), "r"(h[3]));
#endif
}

// ldmatrix / stmatrix / movmatrix
CORPUS_DEV void ldst_matrix(const uint16_t* smem, uint16_t* smem_out, uint32_t* r) {
  const uint32_t addr = corpus_smem_addr(smem + (threadIdx.x % 32) * 8);
  asm volatile("ldmatrix.sync.aligned.m8n8.x1.shared.b16 {%0}, [%1];" : "=r"(r[0]) : "r"(addr));
  asm volatile("ldmatrix.sync.aligned.m8n8.x2.trans.shared.b16 {%0, %1}, [%2];" : "=r"(r[1]), "=r"(r[2]) : "r"(addr));
  asm volatile("ldmatrix.sync.aligned.m8n8.x4.shared::cta.b16 {%0, %1, %2, %3}, [%4];"
               : "=r"(r[3]), "=r"(r[4]), "=r"(r[5]), "=r"(r[6])
               : "r"(addr));
  asm volatile("ldmatrix.sync.aligned.x4.trans.m8n8.shared.b16 {%0, %1, %2, %3}, [%4+256];"
               : "=r"(r[7]), "=r"(r[8]), "=r"(r[9]), "=r"(r[10])
               : "r"(addr));
  asm volatile("movmatrix.sync.aligned.m8n8.trans.b16 %0, %1;" : "=r"(r[11]) : "r"(r[0]));
#if __CUDA_ARCH__ >= 900
  const uint32_t oaddr = corpus_smem_addr(smem_out + (threadIdx.x % 32) * 8);
  asm volatile("stmatrix.sync.aligned.m8n8.x1.shared.b16 [%0], {%1};" ::"r"(oaddr), "r"(r[1]) : "memory");
  asm volatile("stmatrix.sync.aligned.m8n8.x2.trans.shared.b16 [%0], {%1, %2};" ::"r"(oaddr), "r"(r[3]), "r"(r[4])
               : "memory");
  asm volatile("stmatrix.sync.aligned.m8n8.x4.shared::cta.b16 [%0], {%1, %2, %3, %4};" ::"r"(oaddr), "r"(r[5]),
               "r"(r[6]), "r"(r[7]), "r"(r[8])
               : "memory");
  asm volatile("stmatrix.sync.aligned.x4.trans.m8n8.shared.b16 [%0+512], {%1, %2, %3, %4};" ::"r"(oaddr), "r"(r[9]),
               "r"(r[10]), "r"(r[11]), "r"(r[0])
               : "memory");
#endif
#if CORPUS_SM100A || CORPUS_SM120A
  asm volatile("ldmatrix.sync.aligned.m8n16.x1.b8x16.b6x16_p32.shared {%0}, [%1];" : "=r"(r[12]) : "r"(addr));
  asm volatile("ldmatrix.sync.aligned.m16n16.x2.trans.shared.b8 {%0, %1, %2, %3}, [%4];"
               : "=r"(r[13]), "=r"(r[14]), "=r"(r[15]), "=r"(r[16])
               : "r"(addr));
  asm volatile("ldmatrix.sync.aligned.m8n16.x4.b8x16.b4x16_p64.shared {%0, %1, %2, %3}, [%4];"
               : "=r"(r[17]), "=r"(r[18]), "=r"(r[19]), "=r"(r[20])
               : "r"(addr));
  asm volatile("stmatrix.sync.aligned.m16n8.x2.trans.shared.b8 [%0], {%1, %2};" ::"r"(oaddr), "r"(r[13]), "r"(r[14])
               : "memory");
#endif
}

__global__ void __launch_bounds__(128) mma_zoo(const uint4* __restrict__ in, float* __restrict__ outf,
                                               int* __restrict__ outi, double* __restrict__ outd, int iters) {
  __shared__ __align__(128) uint16_t sm_in[64 * 64];
  __shared__ __align__(128) uint16_t sm_out[64 * 64];
  for (int i = threadIdx.x; i < 64 * 64 / 8; i += blockDim.x) reinterpret_cast<uint4*>(sm_in)[i] = in[i];
  __syncthreads();
  uint32_t r[24] = {};
  float d[12] = {};
  uint32_t h[8] = {};
  int di[8] = {};
  double dd[4] = {}, da[8], db[4];
#pragma unroll
  for (int i = 0; i < 8; ++i) da[i] = (double)(threadIdx.x + i);
#pragma unroll
  for (int i = 0; i < 4; ++i) db[i] = 1.0 / (threadIdx.x + i + 1);
#pragma unroll 1
  for (int it = 0; it < iters; ++it) {
    ldst_matrix(sm_in + (it % 4) * 512, sm_out, r);
    mma_f16_family(r + 3, r + 1, d, h);
    mma_bf16_tf32(r + 7, r + 11, d);
    mma_int(r + 3, r + 7, di);
    mma_sparse(r + 3, r + 7, d, di, r[0]);
    mma_fp8(r + 5, r + 9, d, h);
    mma_f64(da, db, dd);
    __syncwarp();
  }
  __syncthreads();
  const int t = blockIdx.x * blockDim.x + threadIdx.x;
#pragma unroll
  for (int i = 0; i < 12; ++i) outf[t * 12 + i] = d[i] + (float)sm_out[(threadIdx.x * 12 + i) % 4096];
#pragma unroll
  for (int i = 0; i < 8; ++i) outi[t * 8 + i] = di[i] ^ (int)h[i] ^ (int)r[16 + i];
#pragma unroll
  for (int i = 0; i < 4; ++i) outd[t * 4 + i] = dd[i];
}

// WMMA API: lowers to wmma.load/wmma.mma/wmma.store of several geometries.
template <typename T, int M, int N, int K, typename Acc>
__device__ void wmma_tile(const T* a, const T* b, Acc* c, int lda, int ldb, int ldc, int ksteps) {
  wmma::fragment<wmma::matrix_a, M, N, K, T, wmma::row_major> fa;
  wmma::fragment<wmma::matrix_b, M, N, K, T, wmma::col_major> fb;
  wmma::fragment<wmma::accumulator, M, N, K, Acc> fc;
  wmma::fill_fragment(fc, Acc(0));
  for (int k = 0; k < ksteps; ++k) {
    wmma::load_matrix_sync(fa, a + k * K, lda);
    wmma::load_matrix_sync(fb, b + k * K, ldb);
    wmma::mma_sync(fc, fa, fb, fc);
  }
  wmma::store_matrix_sync(c, fc, ldc, wmma::mem_row_major);
}

__global__ void wmma_half(const half* a, const half* b, float* c, half* ch, int ksteps) {
  wmma_tile<half, 16, 16, 16, float>(a, b, c, 256, 256, 16, ksteps);
  wmma_tile<half, 32, 8, 16, float>(a, b, c + 256, 256, 256, 8, ksteps);
  wmma_tile<half, 8, 32, 16, half>(a, b, ch, 256, 256, 32, ksteps);
}

__global__ void wmma_bf16_tf32_f64(const __nv_bfloat16* a, const __nv_bfloat16* b, const float* fa,
                                   const float* fb, const double* xa, const double* xb, float* c, double* cd,
                                   int ksteps) {
  wmma_tile<__nv_bfloat16, 16, 16, 16, float>(a, b, c, 256, 256, 16, ksteps);
  wmma::fragment<wmma::matrix_a, 16, 16, 8, wmma::precision::tf32, wmma::row_major> ta;
  wmma::fragment<wmma::matrix_b, 16, 16, 8, wmma::precision::tf32, wmma::col_major> tb;
  wmma::fragment<wmma::accumulator, 16, 16, 8, float> tc;
  wmma::fill_fragment(tc, 0.0f);
  for (int k = 0; k < ksteps; ++k) {
    wmma::load_matrix_sync(ta, fa + k * 8, 256);
    wmma::load_matrix_sync(tb, fb + k * 8, 256);
#pragma unroll
    for (int i = 0; i < ta.num_elements; ++i) ta.x[i] = wmma::__float_to_tf32(ta.x[i]);
    wmma::mma_sync(tc, ta, tb, tc);
  }
  wmma::store_matrix_sync(c + 256, tc, 16, wmma::mem_col_major);
  wmma::fragment<wmma::matrix_a, 8, 8, 4, double, wmma::row_major> da;
  wmma::fragment<wmma::matrix_b, 8, 8, 4, double, wmma::row_major> db;
  wmma::fragment<wmma::accumulator, 8, 8, 4, double> dc;
  wmma::load_matrix_sync(dc, cd, 8, wmma::mem_row_major);
  for (int k = 0; k < ksteps; ++k) {
    wmma::load_matrix_sync(da, xa + k * 4, 64);
    wmma::load_matrix_sync(db, xb + k * 4 * 8, 8);
    wmma::mma_sync(dc, da, db, dc);
  }
  wmma::store_matrix_sync(cd, dc, 8, wmma::mem_row_major);
}

__global__ void wmma_int8(const signed char* a, const signed char* b, int* c, const unsigned char* ua,
                          const unsigned char* ub, int ksteps) {
  wmma_tile<signed char, 16, 16, 16, int>(a, b, c, 256, 256, 16, ksteps);
  wmma_tile<unsigned char, 8, 32, 16, int>(ua, ub, c + 256, 256, 256, 32, ksteps);
#if __CUDA_ARCH__ < 1000
  wmma::fragment<wmma::matrix_a, 8, 8, 32, wmma::experimental::precision::s4, wmma::row_major> s4a;
  wmma::fragment<wmma::matrix_b, 8, 8, 32, wmma::experimental::precision::s4, wmma::col_major> s4b;
  wmma::fragment<wmma::accumulator, 8, 8, 32, int> s4c;
  wmma::fill_fragment(s4c, 0);
  wmma::load_matrix_sync(s4a, a, 256);
  wmma::load_matrix_sync(s4b, b, 256);
  wmma::mma_sync(s4c, s4a, s4b, s4c, true);
  wmma::store_matrix_sync(c + 512, s4c, 8, wmma::mem_row_major);
  wmma::fragment<wmma::matrix_a, 8, 8, 128, wmma::experimental::precision::b1, wmma::row_major> b1a;
  wmma::fragment<wmma::matrix_b, 8, 8, 128, wmma::experimental::precision::b1, wmma::col_major> b1b;
  wmma::fragment<wmma::accumulator, 8, 8, 128, int> b1c;
  wmma::fill_fragment(b1c, 0);
  wmma::load_matrix_sync(b1a, a, 256);
  wmma::load_matrix_sync(b1b, b, 256);
  wmma::bmma_sync(b1c, b1a, b1b, b1c, wmma::experimental::bmmaBitOpAND);
  wmma::store_matrix_sync(c + 576, b1c, 8, wmma::mem_col_major);
#endif
}
