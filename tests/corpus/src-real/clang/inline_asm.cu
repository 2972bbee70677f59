// Inline PTX as clang passes it through: mma.sync with ldmatrix operands, cp.async
// (sm_80+), a 64-bit carry chain, predicates and lop3, as libraries write them.
#include "nvptx.h"

// a shared-memory address as the 32-bit offset that ldmatrix and cp.async take
__device__ __forceinline__ unsigned smem_u32(const void* p) {
  unsigned a;
  asm("{ .reg .u64 t; cvta.to.shared.u64 t, %1; cvt.u32.u64 %0, t; }" : "=r"(a) : "l"(p));
  return a;
}

extern "C" __global__ void mma_m16n8k8(const unsigned* a, const unsigned* b, float* d) {
  __shared__ unsigned tile[16 * 8];
  unsigned t = tid_x();
  for (unsigned i = t; i < 128; i += 32) tile[i] = a[i];
  sync_block();
  unsigned r0, r1, s = smem_u32(&tile[(t % 16) * 4]);
  asm volatile("ldmatrix.sync.aligned.m8n8.x2.shared.b16 {%0, %1}, [%2];" : "=r"(r0), "=r"(r1) : "r"(s));
  float c0 = 0, c1 = 0, c2 = 0, c3 = 0;
  unsigned bb = b[t];
  asm volatile(
      "mma.sync.aligned.m16n8k8.row.col.f32.f16.f16.f32 {%0, %1, %2, %3}, {%4, %5}, {%6}, {%0, %1, %2, %3};"
      : "+f"(c0), "+f"(c1), "+f"(c2), "+f"(c3)
      : "r"(r0), "r"(r1), "r"(bb));
  d[t * 4 + 0] = c0;
  d[t * 4 + 1] = c1;
  d[t * 4 + 2] = c2;
  d[t * 4 + 3] = c3;
}

#if __CUDA_ARCH__ >= 800
extern "C" __global__ void cp_async_copy(const float4* src, float4* dst, int n) {
  __shared__ float4 stage[2][128];
  unsigned t = tid_x();
  for (int base = 0, buf = 0; base < n; base += 128, buf ^= 1) {
    unsigned s = smem_u32(&stage[buf][t]);
    asm volatile("cp.async.cg.shared.global [%0], [%1], 16, %2;" ::"r"(s), "l"(src + base + t),
                 "r"(base + int(t) < n ? 16 : 0));
    asm volatile("cp.async.commit_group;");
    asm volatile("cp.async.wait_group 0;" ::: "memory");
    sync_block();
    if (base + int(t) < n) dst[base + t] = stage[buf][t];
  }
}
#endif

extern "C" __global__ void carry_chain(const unsigned long long* a, const unsigned long long* b, unsigned* out) {
  unsigned i = global_x();
  unsigned long long x = a[i], y = b[i];
  unsigned lo, mid, hi;
  asm("{\n\t"
      ".reg .u32 t0, t1;\n\t"
      "mov.b64 {t0, t1}, %3;\n\t"
      "add.cc.u32 %0, t0, %4;\n\t"
      "addc.cc.u32 %1, t1, 0;\n\t"
      "addc.u32 %2, 0, 0;\n\t"
      "}"
      : "=r"(lo), "=r"(mid), "=r"(hi)
      : "l"(x), "r"((unsigned)y));
  unsigned sel;
  asm("lop3.b32 %0, %1, %2, %3, 0xe8;" : "=r"(sel) : "r"(lo), "r"(mid), "r"(hi));
  unsigned pred_out;
  asm("{\n\t"
      ".reg .pred p;\n\t"
      "setp.gt.u32 p, %1, %2;\n\t"
      "selp.u32 %0, 1, 0, p;\n\t"
      "}"
      : "=r"(pred_out)
      : "r"(lo), "r"(mid));
  out[i * 4 + 0] = lo;
  out[i * 4 + 1] = mid;
  out[i * 4 + 2] = hi ^ sel;
  out[i * 4 + 3] = pred_out;
}
