// ptxpp corpus: the CUDA math library and fast-math intrinsics: float and
// double elementary/special functions, rounding-mode intrinsics (__fadd_rz,
// __fmaf_ru, __ddiv_rd, ...), approximate intrinsics (__expf, __sinf, ...),
// conversions between integer and floating types. Built with and without
// -use_fast_math.
// nvcc corpus (see scripts/gen-corpus): archs: sm_80   variants: fastmath:sm_90a
#include "corpus.h"

// Fast-math and rounding intrinsics (float and double).
__global__ void fast_math(const float* a, const double* d, float* o, double* od, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  const float x = a[i], y = a[i + 1] + 1.0f;
  float r = __expf(x) + __exp10f(x) + __logf(y) + __log2f(y) + __log10f(y);
  r += __powf(y, 1.5f) + __sinf(x) + __cosf(x) + __tanf(x);
  float s, c;
  int ex;
  __sincosf(x, &s, &c);
  r += s * c + __fdividef(x, y) + __frcp_rn(y) + __frcp_rz(y) + __frcp_ru(y) + __frcp_rd(y);
  r += __fsqrt_rn(y) + __fsqrt_rz(y) + __fsqrt_ru(y) + __fsqrt_rd(y) + __frsqrt_rn(y);
  r += __fadd_rn(x, y) + __fadd_rz(x, y) + __fadd_ru(x, y) + __fadd_rd(x, y);
  r += __fsub_rn(x, y) + __fmul_rz(x, y) + __fmul_ru(x, y) + __fdiv_rd(x, y) + __fdiv_ru(x, y);
  r += __fmaf_rn(x, y, r) + __fmaf_rz(x, y, r) + __fmaf_ru(x, y, r) + __fmaf_rd(x, y, r);
  r += __fmaf_ieee_rn(x, y, 1.0f) + __saturatef(x) + __fdiv_rn(y, x);
  r += sqrtf(y) + rsqrtf(y) + cbrtf(y) + rcbrtf(y) + expf(x) + exp2f(x) + exp10f(x) + expm1f(x);
  r += logf(y) + log2f(y) + log10f(y) + log1pf(y) + sinf(x) + cosf(x) + tanf(x) + sinpif(x) + cospif(x);
  r += asinf(x * 0.1f) + acosf(x * 0.1f) + atanf(x) + atan2f(x, y) + sinhf(x) + coshf(x) + tanhf(x);
  r += asinhf(x) + acoshf(y + 1) + atanhf(x * 0.1f) + powf(y, x) + hypotf(x, y) + rhypotf(x, y) + erff(x) +
       erfcf(x) + erfinvf(x * 0.1f) + lgammaf(y) + tgammaf(y) + normcdff(x) + normcdfinvf(0.3f) + j0f(x) + y1f(y);
  r += fminf(x, y) + fmaxf(x, y) + fabsf(x) + copysignf(x, y) + floorf(x) + ceilf(x) + truncf(x) + roundf(x) +
       rintf(x) + nearbyintf(x) + fmodf(x, y) + remainderf(x, y) + ldexpf(x, 3) + scalbnf(x, 2) + logbf(y) +
       (float)ilogbf(y) + frexpf(y, &ex) + (float)ex + modff(x, &s) + fdimf(x, y) + nextafterf(x, y);
  o[i] = r;
  const double u = d[i], v = d[i + 1] + 1.0;
  double q = __dadd_rn(u, v) + __dadd_rz(u, v) + __dadd_ru(u, v) + __dadd_rd(u, v);
  q += __dmul_rn(u, v) + __dmul_rz(u, v) + __ddiv_rn(u, v) + __ddiv_ru(u, v) + __drcp_rn(v) + __drcp_rd(v);
  q += __dsqrt_rn(v) + __dsqrt_ru(v) + __fma_rn(u, v, q) + __fma_rz(u, v, q) + __fma_rd(u, v, q);
  q += sqrt(v) + rsqrt(v) + exp(u) + log(v) + sin(u) + cos(u) + tan(u) + pow(v, u) + atan2(u, v) + cbrt(v) +
       erf(u) + lgamma(v) + fma(u, v, q) + fmod(u, v) + floor(u) + ceil(u) + trunc(u) + round(u) + rint(u);
  q += (double)__double2float_rn(u) + (double)__double2int_rz(u) + (double)__double2uint_ru(v) +
       (double)__double2ll_rd(u) + (double)__double2ull_rn(v) + __int2double_rn(i) + __ll2double_rz(i) +
       __longlong_as_double(__double_as_longlong(u) ^ 1) + __hiloint2double(__double2hiint(u), __double2loint(v));
  od[i] = q;
}
