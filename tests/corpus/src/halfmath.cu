// ptxpp corpus: reduced-precision arithmetic and conversions: half/half2,
// bfloat16/bfloat162 math, fp8 (e4m3/e5m2/e8m0), fp6, fp4 conversions,
// and raw cvt forms (rounding modes, saturation, relu, packed conversions).
// nvcc corpus (see scripts/gen-corpus): archs: sm_80 sm_90a sm_120a
#include <cuda_fp16.h>
#include <cuda_bf16.h>
#include <cuda_fp8.h>
#include <cuda_fp6.h>
#include <cuda_fp4.h>
#include "corpus.h"

__global__ void half_math(const __half* a, const __half* b, __half* o, const __half2* a2, const __half2* b2,
                          __half2* o2, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  __half x = a[i], y = b[i];
  __half r = __hadd(x, y);
  r = __hfma(r, __hsub(x, y), __hmul(x, y));
  r = __hadd(r, __hdiv(x, __hadd(y, __float2half(1.0f))));
  r = __hadd(r, hsqrt(__habs(x)));
  r = __hadd(r, hrsqrt(__hadd(__habs(y), __float2half(0.5f))));
  r = __hadd(r, hexp(x) + hexp2(y) + hexp10(x));
  r = __hadd(r, hlog(__habs(x)) + hlog2(__habs(y)) + hlog10(__habs(x)));
  r = __hadd(r, hsin(x) + hcos(y) + htanh_approx(x));
  r = __hadd(r, hceil(x) + hfloor(y) + htrunc(x) + hrint(y));
  r = __hadd(r, __hmax(x, y) + __hmin(x, y) + __hmax_nan(x, y) + __hmin_nan(x, y));
  r = __hadd(r, __hfma_relu(x, y, r));
  r = __hadd_sat(r, __hmul_sat(x, y));
  r = __hneg(r);
  if (__hisnan(r) || __hisinf(r)) r = __float2half_rz(0.0f);
  if (__hlt(x, y) && __hge(x, y) == false) r = __hadd(r, __ushort2half_rn(3));
  r = __hadd(r, __int2half_rn(i) + __uint2half_rd(i) + __short2half_ru((short)i) + __ll2half_rz(i));
  o[i] = r;
  const int hi = __half2int_rn(r) + __half2int_rz(x) + __half2uint_rd(y) + (int)__half2ll_ru(r) +
                 (int)__half2short_rn(x) + (int)__half_as_ushort(y);
  __half2 p = a2[i], q = b2[i];
  __half2 s = __hfma2(p, q, __hadd2(p, q));
  s = __hmul2(s, __hsub2(p, q));
  s = __h2div(s, __hadd2(q, __float2half2_rn(2.0f)));
  s = __hadd2(s, h2sqrt(__habs2(p)));
  s = __hadd2(s, h2exp(p) + h2log(__habs2(q)) + h2sin(p) + h2cos(q) + h2exp2(p) + h2rcp(q));
  s = __hadd2(s, __hmax2(p, q) + __hmin2(p, q));
  s = __hcmadd(p, q, s);
  s = __hfma2_relu(p, q, s);
  s = __hadd2(s, __lowhigh2highlow(p));
  s = __hadd2(s, __halves2half2(__low2half(p), __high2half(q)));
  s = __hadd2(s, __floats2half2_rn(__low2float(p), __high2float(q)));
  s = __hadd2(s, __hbeq2(p, q) ? p : q);
  s = __hadd2(s, __hgt2(p, q));
  s = __hadd2(s, __hisnan2(s));
  const unsigned mask = __hle2_mask(p, q) ^ __hne2_mask(p, q);
  o2[i] = __hadd2(s, __float22half2_rn(make_float2((float)hi, (float)mask)));
}

__global__ void bf16_math(const __nv_bfloat16* a, const __nv_bfloat162* a2, __nv_bfloat16* o, __nv_bfloat162* o2,
                          float* f, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  __nv_bfloat16 x = a[i], y = a[i + 1];
  __nv_bfloat16 r = __hfma(x, y, __hadd(x, y));
  r = __hadd(r, __hdiv(x, __hadd(y, __float2bfloat16(1.0f))));
  r = __hadd(r, hsqrt(__habs(x)) + hexp(y) + hlog(__habs(x)) + hsin(x) + hcos(y) + htanh(x));
  r = __hadd(r, hceil(x) + hfloor(y) + htrunc(x) + hrint(y));
  r = __hadd(r, __hmax(x, y) + __hmin_nan(x, y));
  r = __hfma_relu(r, x, y);
  r = __hmul_rn(r, __hsub_rn(x, y));
  o[i] = r;
  __nv_bfloat162 p = a2[i], q = a2[i + 1];
  __nv_bfloat162 s = __hfma2(p, q, __hadd2(p, q));
  s = __h2div(s, __hadd2(q, __float2bfloat162_rn(2.0f)));
  s = __hadd2(s, h2sqrt(__habs2(p)) + h2exp(q) + h2log(__habs2(p)) + h2tanh(q));
  s = __hmax2(s, __hmin2(p, q));
  s = __hcmadd(p, q, s);
  o2[i] = s;
  f[i] = __bfloat162float(r) + __low2float(s) + __high2float(s) + (float)__bfloat162int_rn(x) +
         (float)__bfloat162uint_rz(y) + __bfloat162float(__int2bfloat16_rn(i)) +
         __bfloat162float(__float2bfloat16_rz(f[i])) + __bfloat162float(__float2bfloat16_ru(f[i])) +
         __bfloat162float(__double2bfloat16(1.0 / (i + 1)));
  __half h = __float2half(__bfloat162float(r));
  f[i + n] = __half2float(h);
}

__global__ void fp8_fp6_fp4(const float* in, unsigned char* o8, unsigned short* o16, float* back, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  const float x = in[i], y = in[i + 1];
  // fp8 class API
  __nv_fp8_e4m3 e4(x);
  __nv_fp8_e5m2 e5(y);
  __nv_fp8x2_e4m3 e4x2(make_float2(x, y));
  __nv_fp8x4_e5m2 e5x4(make_float4(x, y, x * 2, y * 2));
  float acc = float(e4) + float(e5);
  float2 f2 = float2(e4x2);
  float4 f4 = float4(e5x4);
  acc += f2.x + f2.y + f4.x + f4.y + f4.z + f4.w;
  // fp8 C API
  __nv_fp8_storage_t s8 = __nv_cvt_float_to_fp8(x, __NV_SATFINITE, __NV_E4M3);
  __nv_fp8x2_storage_t s8x2 = __nv_cvt_float2_to_fp8x2(make_float2(x, y), __NV_NOSAT, __NV_E5M2);
  __nv_fp8x2_storage_t s8h = __nv_cvt_halfraw2_to_fp8x2(__float22half2_rn(make_float2(x, y)), __NV_SATFINITE,
                                                          __NV_E4M3);
  __nv_fp8x2_storage_t s8b = __nv_cvt_bfloat16raw2_to_fp8x2(__floats2bfloat162_rn(x, y), __NV_SATFINITE, __NV_E5M2);
  __half2_raw back2 = __nv_cvt_fp8x2_to_halfraw2(s8x2, __NV_E5M2);
  __half_raw back1 = __nv_cvt_fp8_to_halfraw(s8, __NV_E4M3);
  acc += __half2float(__half(back1)) + __low2float(__half2(back2));
  // e8m0 scale factors
  __nv_fp8_storage_t sc = __nv_cvt_float_to_e8m0(x, __NV_SATFINITE, cudaRoundPosInf);
  __nv_fp8x2_storage_t sc2 = __nv_cvt_float2_to_e8m0x2(make_float2(x, y), __NV_NOSAT, cudaRoundZero);
  acc += __bfloat162float(__nv_bfloat16(__nv_cvt_e8m0_to_bf16raw(sc)));
  // fp6 / fp4
  __nv_fp6_storage_t s6 = __nv_cvt_float_to_fp6(x, __NV_E2M3, cudaRoundNearest);
  __nv_fp6x2_storage_t s6x2 = __nv_cvt_float2_to_fp6x2(make_float2(x, y), __NV_E3M2, cudaRoundNearest);
  __nv_fp4_storage_t s4 = __nv_cvt_float_to_fp4(x, __NV_E2M1, cudaRoundNearest);
  __nv_fp4x2_storage_t s4x2 = __nv_cvt_float2_to_fp4x2(make_float2(x, y), __NV_E2M1, cudaRoundNearest);
  __nv_fp6_e2m3 c6(x);
  __nv_fp4_e2m1 c4(y);
  __nv_fp4x4_e2m1 c44(make_float4(x, y, -x, -y));
  acc += float(c6) + float(c4) + __low2float(__half2(__nv_cvt_fp4x2_to_halfraw2(s4x2, __NV_E2M1))) +
         __low2float(__half2(__nv_cvt_fp6x2_to_halfraw2(s6x2, __NV_E3M2)));
  float4 q4 = float4(c44);
  acc += q4.x + q4.w;
  o8[i] = s8 ^ s6 ^ s4 ^ sc;
  o16[i] = s8x2 ^ s8h ^ s8b ^ sc2 ^ s6x2 ^ s4x2 ^ e4x2.__x;
  back[i] = acc;
}

// Raw cvt forms not reachable through the headers on every arch.
__global__ void raw_cvt(const float* in, unsigned* out, float* fout) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  const float x = in[i], y = in[i + 32];
  unsigned r = 0, t;
  unsigned short h;
  asm("cvt.rn.f16x2.f32 %0, %1, %2;" : "=r"(t) : "f"(x), "f"(y));
  r ^= t;
  asm("cvt.rz.relu.bf16x2.f32 %0, %1, %2;" : "=r"(t) : "f"(x), "f"(y));
  r ^= t;
  asm("cvt.rna.tf32.f32 %0, %1;" : "=r"(t) : "f"(x));
  r ^= t;
  asm("cvt.rn.relu.f16.f32 %0, %1;" : "=h"(h) : "f"(x));
  r ^= h;
  asm("cvt.rn.bf16.f32 %0, %1;" : "=h"(h) : "f"(y));
  r ^= h;
#if __CUDA_ARCH__ >= 890
  asm("cvt.rn.satfinite.e4m3x2.f32 %0, %1, %2;" : "=h"(h) : "f"(x), "f"(y));
  r ^= h;
  asm("cvt.rn.satfinite.relu.e5m2x2.f32 %0, %1, %2;" : "=h"(h) : "f"(x), "f"(y));
  r ^= h;
  asm("cvt.rn.f16x2.e4m3x2 %0, %1;" : "=r"(t) : "h"(h));
  r ^= t;
  asm("cvt.rn.relu.f16x2.e5m2x2 %0, %1;" : "=r"(t) : "h"(h));
  r ^= t;
  asm("cvt.rn.satfinite.e4m3x2.f16x2 %0, %1;" : "=h"(h) : "r"(t));
  r ^= h;
#endif
#if CORPUS_SM100A || CORPUS_SM120A
  asm("cvt.rn.satfinite.tf32.f32 %0, %1;" : "=r"(t) : "f"(x));
  r ^= t;
  asm("{\n\t.reg .b8 b;\n\tcvt.rn.satfinite.e2m1x2.f32 b, %1, %2;\n\tcvt.u16.u8 %0, b;\n\t}"
      : "=h"(h)
      : "f"(x), "f"(y));
  r ^= h;
  asm("cvt.rn.satfinite.e3m2x2.f32 %0, %1, %2;" : "=h"(h) : "f"(x), "f"(y));
  r ^= h;
  asm("cvt.rn.satfinite.relu.e2m3x2.f32 %0, %1, %2;" : "=h"(h) : "f"(x), "f"(y));
  r ^= h;
  asm("cvt.rn.f16x2.e2m3x2 %0, %1;" : "=r"(t) : "h"(h));
  r ^= t;
  asm("cvt.rz.satfinite.ue8m0x2.f32 %0, %1, %2;" : "=h"(h) : "f"(x), "f"(y));
  r ^= h;
  asm("cvt.rn.bf16x2.ue8m0x2 %0, %1;" : "=r"(t) : "h"(h));
  r ^= t;
  asm("{\n\t.reg .b8 b;\n\tcvt.u8.u16 b, %1;\n\tcvt.rn.f16x2.e2m1x2 %0, b;\n\t}" : "=r"(t) : "h"(h));
  r ^= t;
#endif
  // integer <-> float with all rounding modes and saturation
  int ir;
  asm("cvt.rni.s32.f32 %0, %1;" : "=r"(ir) : "f"(x));
  r += ir;
  asm("cvt.rzi.sat.u32.f32 %0, %1;" : "=r"(ir) : "f"(x));
  r += ir;
  asm("cvt.rmi.ftz.s32.f32 %0, %1;" : "=r"(ir) : "f"(x));
  r += ir;
  asm("cvt.rpi.s32.f64 %0, %1;" : "=r"(ir) : "d"((double)y));
  r += ir;
  float fr;
  asm("cvt.rz.f32.s32 %0, %1;" : "=f"(fr) : "r"((int)r));
  asm("cvt.rmi.ftz.sat.f32.f32 %0, %0;" : "+f"(fr));
  asm("cvt.rn.f32.f64 %0, %1;" : "=f"(fr) : "d"((double)fr + 0.5));
  out[i] = r;
  fout[i] = fr;
}
