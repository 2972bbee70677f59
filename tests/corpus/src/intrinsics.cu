// ptxpp corpus: integer and bit-manipulation intrinsics (popc, clz, brev, ffs,
// byte_perm/prmt, funnel shifts, bfe/bfi, dp4a/dp2a, mul24/mulhi/sad, SIMD
// video intrinsics), cache-qualified loads/stores (__ldg/__ldcs/__stcs/...),
// address-space predicates and conversions, 128-bit integers, and cuda::ptx
// wrappers for bmsk/bfind/prmt/shl/shr/get_sreg.
// nvcc corpus (see scripts/gen-corpus): archs: sm_80 sm_90a sm_100a sm_120a
#include <cuda/ptx>
#include "corpus.h"

__device__ __forceinline__ unsigned long long bswap64(unsigned long long v) {
  unsigned lo = (unsigned)v, hi = (unsigned)(v >> 32);
  return ((unsigned long long)__byte_perm(lo, 0, 0x0123) << 32) | __byte_perm(hi, 0, 0x0123);
}

__global__ void bit_ops(const unsigned* a, const unsigned long long* b, unsigned* o, unsigned long long* o64, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  const unsigned x = a[i], y = a[i + 1];
  const unsigned long long X = b[i], Y = b[i + 1];
  unsigned r = __popc(x) + __clz(y) + __ffs(x) + __brev(y);
  r += __byte_perm(x, y, 0x5140) + __byte_perm(x, y, i & 0x7777);
  r += __funnelshift_l(x, y, i & 31) + __funnelshift_r(x, y, 7) + __funnelshift_lc(x, y, 40) +
       __funnelshift_rc(x, y, i);
  r += __mul24(x, y) + __umul24(x, y) + __mulhi(x, y) + __umulhi(x, y) + __sad(x, y, 3) + __usad(x, y, r);
  r += __hadd(x, y) + __rhadd(x, y) + __uhadd(x, y) + __urhadd(x, y);
  r += (unsigned)__dp4a((int)x, (int)y, (int)r) + __dp4a(x, y, r) + (unsigned)__dp2a_lo((int)x, (int)y, 1) + __dp2a_hi(x, y, 2u);
  r += __vabs2(x) + __vabsdiffs2(x, y) + __vadd2(x, y) + __vaddss2(x, y) + __vavgu2(x, y) + __vcmpeq2(x, y);
  r += __vabs4(x) + __vabsdiffu4(x, y) + __vadd4(x, y) + __vaddus4(x, y) + __vcmpgtu4(x, y) + __vmaxs4(x, y) +
       __vminu4(x, y) + __vsads4(x, y) + __vsub4(x, y) + __vsetleu4(x, y) + __vneg4(x) + __vnegss2(x);
  bool pred;
  r += __vimax_s32_relu((int)x, (int)y) + __vimin3_u32(x, y, r) + __viaddmax_s32((int)x, (int)y, 5) +
       __vibmax_u32(x, y, &pred) + pred;
  unsigned long long q = __popcll(X) + __clzll(Y) + __ffsll(X) + __brevll(Y) + __mul64hi(X, Y) + __umul64hi(X, Y);
  q ^= bswap64(X);
  o[i] = r;
  o64[i] = q;
}


__global__ void raw_bitfield(const unsigned* a, unsigned* o) {
  const unsigned x = a[threadIdx.x], y = a[threadIdx.x + 32];
  unsigned r, t;
  int s;
  unsigned long long q;
  asm("bfe.u32 %0, %1, 4, 8;" : "=r"(r) : "r"(x));
  asm("bfe.s32 %0, %1, %2, %3;" : "=r"(s) : "r"(y), "r"(x & 31), "r"(5));
  asm("bfi.b32 %0, %1, %2, 8, 4;" : "=r"(t) : "r"(x), "r"(y));
  r ^= t + s;
  asm("bfind.u32 %0, %1;" : "=r"(t) : "r"(x));
  r ^= t;
  asm("bfind.shiftamt.s32 %0, %1;" : "=r"(t) : "r"(y));
  r ^= t;
  asm("fns.b32 %0, %1, %2, %3;" : "=r"(t) : "r"(x), "r"(3u), "r"(2));
  r ^= t;
  asm("bmsk.clamp.b32 %0, %1, %2;" : "=r"(t) : "r"(x & 63), "r"(y & 63));
  r ^= t;
  asm("bmsk.wrap.b32 %0, 4, 8;" : "=r"(t));
  r ^= t;
  asm("szext.clamp.s32 %0, %1, %2;" : "=r"(t) : "r"(x), "r"(12));
  r ^= t;
  asm("szext.wrap.u32 %0, %1, 7;" : "=r"(t) : "r"(y));
  r ^= t;
  asm("prmt.b32 %0, %1, %2, 0x3210;" : "=r"(t) : "r"(x), "r"(y));
  r ^= t;
  asm("prmt.b32.f4e %0, %1, %2, %3;" : "=r"(t) : "r"(x), "r"(y), "r"(r));
  r ^= t;
  asm("prmt.b32.b4e %0, %1, %2, 1;" : "=r"(t) : "r"(x), "r"(y));
  r ^= t;
  asm("prmt.b32.ecl %0, %1, %2, %3;" : "=r"(t) : "r"(x), "r"(y), "r"(r));
  r ^= t;
  asm("prmt.b32.rc16 %0, %1, %2, 0;" : "=r"(t) : "r"(x), "r"(y));
  r ^= t;
  asm("shf.l.wrap.b32 %0, %1, %2, %3;" : "=r"(t) : "r"(x), "r"(y), "r"(r));
  r ^= t;
  asm("shf.r.clamp.b32 %0, %1, %2, 33;" : "=r"(t) : "r"(x), "r"(y));
  r ^= t;
  asm("lop3.b32 %0, %1, %2, %3, 0x96;" : "=r"(t) : "r"(x), "r"(y), "r"(r));
  r ^= t;
  asm("{\n\t.reg .pred p;\n\tlop3.or.b32 %0|p, %1, %2, %3, 0xe8, 1;\n\t}" : "=r"(t) : "r"(x), "r"(y), "r"(r));
  r ^= t;
  asm("mul.wide.u32 %0, %1, %2;" : "=l"(q) : "r"(x), "r"(y));
  asm("mad.wide.s32 %0, %1, %2, %0;" : "+l"(q) : "r"(x), "r"((int)y));
  asm("mad.hi.cc.u32 %0, %1, %2, %0;\n\taddc.u32 %0, %0, 0;" : "+r"(r) : "r"(x), "r"(y));
  asm("add.cc.u32 %0, %0, %1;\n\taddc.cc.u32 %0, %0, %2;\n\taddc.u32 %0, %0, 0;" : "+r"(r) : "r"(x), "r"(y));
  asm("sub.cc.u32 %0, %0, %1;\n\tsubc.cc.u32 %0, %0, %2;\n\tsubc.u32 %0, %0, 0;" : "+r"(r) : "r"(x), "r"(y));
  asm("mad.lo.cc.u32 %0, %1, %2, %0;\n\tmadc.hi.u32 %0, %1, %2, %0;" : "+r"(r) : "r"(x), "r"(y));
  asm("mul24.hi.s32 %0, %0, %1;\n\tmad24.lo.u32 %0, %0, %1, %2;" : "+r"(r) : "r"(x), "r"(y));
  asm("sad.u32 %0, %1, %2, %0;" : "+r"(r) : "r"(x), "r"(y));
  asm("popc.b64 %0, %1;" : "=r"(t) : "l"(q));
  r ^= t;
  asm("clz.b64 %0, %1;" : "=r"(t) : "l"(q));
  r ^= t;
  asm("brev.b64 %0, %0;" : "+l"(q));
  asm("dp4a.s32.u32 %0, %1, %2, %0;" : "+r"(r) : "r"(x), "r"(y));
  asm("dp2a.hi.u32.s32 %0, %1, %2, %0;" : "+r"(r) : "r"(x), "r"(y));
  asm("min.s32 %0, %0, %1;\n\tmax.u32 %0, %0, %2;" : "+r"(r) : "r"(x), "r"(y));
#if __CUDA_ARCH__ >= 900
  asm("min.relu.s32 %0, %0, %1;\n\tmax.s16x2 %0, %0, %2;" : "+r"(r) : "r"(x), "r"(y));
#endif
  asm("abs.s32 %0, %0;\n\tneg.s32 %0, %0;\n\tnot.b32 %0, %0;\n\tcnot.b32 %0, %0;" : "+r"(r));
  asm("rem.u32 %0, %0, %1;\n\tdiv.s32 %0, %0, %2;" : "+r"(r) : "r"(x | 1), "r"((int)(y | 1)));
  asm("shl.b32 %0, %0, 3;\n\tshr.s32 %0, %0, 1;\n\tshr.u32 %0, %0, %1;" : "+r"(r) : "r"(x & 7));
  asm("copysign.f32 %0, %1, %0;" : "+r"(r) : "r"(x));
  r += cuda::ptx::bmsk_clamp(x & 31, y & 31) + cuda::ptx::bmsk_wrap(x, y) + cuda::ptx::bfind(x) +
       cuda::ptx::bfind_shiftamt((int)y) + cuda::ptx::prmt(x, y, 0x7531u) + cuda::ptx::prmt_f4e(x, y, r) +
       cuda::ptx::shl(x, 3u) + cuda::ptx::shr(y, 2u);
  o[threadIdx.x] = r ^ (unsigned)q;
}

__global__ void cache_qualified(const float4* __restrict__ a, const int2* __restrict__ b, const double* c,
                                float4* o, int2* ob, double* oc, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  float4 v = __ldg(a + i);
  float4 w = __ldcg(a + i + n);
  float4 x = __ldca(a + i + 2 * n);
  float4 y = __ldcs(a + i + 3 * n);
  float4 z = __ldlu(a + i + 4 * n);
  float4 u = __ldcv(a + i + 5 * n);
  int2 bi = __ldg(b + i);
  double cd = __ldcs(c + i);
  float4 s = make_float4(v.x + w.x + x.x + y.x + z.x + u.x, v.y + w.y + x.y, v.z + y.z + z.z, v.w + u.w);
  __stwb(o + i, s);
  __stcg(o + i + n, v);
  __stcs(o + i + 2 * n, w);
  __stwt(o + i + 3 * n, x);
  __stcs(ob + i, bi);
  __stwt(oc + i, cd);
  const unsigned char* bytes = reinterpret_cast<const unsigned char*>(b);
  oc[i + n] = __ldg(bytes + i) + __ldg(reinterpret_cast<const short*>(b) + i) +
              __ldg(reinterpret_cast<const long long*>(c) + i) + __ldg(reinterpret_cast<const double2*>(c) + i).y;
}

__device__ int g_probe;
__constant__ int c_probe[4] = {1, 2, 3, 4};
__global__ void address_spaces(int* gp, int* out) {
  __shared__ int sp[32];
  int lp[4] = {gp[0], gp[1], gp[2], gp[3]};
  int* ptrs[5] = {gp, sp, lp + (threadIdx.x & 3), &g_probe, const_cast<int*>(c_probe)};
  int r = 0;
#pragma unroll
  for (int k = 0; k < 5; ++k) {
    int* p = ptrs[(k + threadIdx.x) % 5];
    r += __isGlobal(p) * 1 + __isShared(p) * 2 + __isLocal(p) * 4 + __isConstant(p) * 8;
#if __CUDA_ARCH__ >= 900
    r += __isClusterShared(p) * 16;
#endif
  }
  size_t sa = __cvta_generic_to_shared(sp);
  size_t ca = __cvta_generic_to_constant(c_probe);
  size_t ga = __cvta_generic_to_global(gp);
  size_t la = __cvta_generic_to_local(lp);
  int* back = static_cast<int*>(__cvta_shared_to_generic(sa));
  back[threadIdx.x & 31] = r;
  unsigned long long conv;
  asm("cvta.to.global.u64 %0, %1;" : "=l"(conv) : "l"(gp));
  asm("cvta.global.u64 %0, %0;" : "+l"(conv));
  unsigned s32;
  asm("{\n\t.reg .u64 t;\n\tcvta.to.shared.u64 t, %1;\n\tcvt.u32.u64 %0, t;\n\t}" : "=r"(s32) : "l"(sp));
  unsigned long long s64;
  asm("cvta.shared.u64 %0, %1;" : "=l"(s64) : "l"((unsigned long long)s32));
  asm("cvta.const.u64 %0, c_probe;" : "=l"(conv));
  __syncthreads();
  out[threadIdx.x] = r + sp[(threadIdx.x + 1) & 31] + (int)(sa + ca + ga + la + conv + s64);
}

// 128-bit integer arithmetic and mov.b128 packing (sm_90+ for .b128 regs).
__global__ void int128_ops(const unsigned __int128* a, unsigned __int128* o, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  unsigned __int128 x = a[i], y = a[i + 1];
  unsigned __int128 r = x * y + (x >> 17) - (y << 3);
  r ^= x / (y | 1);
  r += (__int128)x % 1000000007;
#if __CUDA_ARCH__ >= 900
  unsigned long long lo, hi;
  asm(
      "{\n\t.reg .b128 t;\n\t"
      "mov.b128 t, {%2, %3};\n\t"
      "mov.b128 {%0, %1}, t;\n\t}"
      : "=l"(lo), "=l"(hi)
      : "l"((unsigned long long)r), "l"((unsigned long long)(r >> 64)));
  r = ((unsigned __int128)hi << 64) | lo;
#endif
  o[i] = r;
}

__global__ void sreg_wrappers(unsigned* out) {
  unsigned v = cuda::ptx::get_sreg_tid_x() + cuda::ptx::get_sreg_tid_y() * 3 + cuda::ptx::get_sreg_ntid_x() +
               cuda::ptx::get_sreg_ctaid_x() + cuda::ptx::get_sreg_nctaid_y() + cuda::ptx::get_sreg_laneid() +
               cuda::ptx::get_sreg_warpid() + cuda::ptx::get_sreg_nwarpid() + cuda::ptx::get_sreg_smid() +
               cuda::ptx::get_sreg_nsmid() + cuda::ptx::get_sreg_lanemask_eq() + cuda::ptx::get_sreg_lanemask_le() +
               cuda::ptx::get_sreg_lanemask_lt() + cuda::ptx::get_sreg_lanemask_ge() +
               cuda::ptx::get_sreg_lanemask_gt() + cuda::ptx::get_sreg_clock() + cuda::ptx::get_sreg_total_smem_size() +
               cuda::ptx::get_sreg_dynamic_smem_size() + (unsigned)cuda::ptx::get_sreg_gridid() +
               (unsigned)cuda::ptx::get_sreg_clock64() + (unsigned)cuda::ptx::get_sreg_globaltimer();
  out[threadIdx.x] = v;
}
