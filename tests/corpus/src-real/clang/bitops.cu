// Integer and float bit manipulation through clang builtins: popc/clz/brev/prmt/bfe
// style code, funnel shifts, mulhi/mul24/sad, explicit rounding-mode conversions.
#include "nvptx.h"

extern "C" __global__ void bit_ops(const unsigned* a, const unsigned* b, unsigned* out) {
  unsigned i = global_x(), x = a[i], y = b[i];
  unsigned r = __builtin_popcount(x) + __builtin_clz(y | 1) + __builtin_bitreverse32(x);
  r ^= __nvvm_prmt(x, y, 0x3210 + (i & 0x7));
  r += (x >> (y & 31)) | (x << (32 - (y & 31)));  // rotate: funnel shift
  r += (x >> 5) & 0x3ff;                          // field extract
  r += __nvvm_mulhi_ui(x, y) + unsigned(__nvvm_mul24_i(int(x), int(y)));
  r += __nvvm_sad_ui(x, y, 7);
  r += unsigned(__builtin_ffs(int(x)));
  unsigned long long w = (unsigned long long)x * y;
  r += unsigned(__builtin_popcountll(w)) + unsigned(__builtin_bitreverse64(w) >> 40) + unsigned(__nvvm_mulhi_ull(w, w));
  out[i] = r;
}

extern "C" __global__ void float_conversions(const float* f, const double* d, int* oi, float* of, long long* ol) {
  unsigned i = global_x();
  float x = f[i];
  double y = d[i];
  oi[i * 4 + 0] = __nvvm_f2i_rn(x);
  oi[i * 4 + 1] = __nvvm_f2i_rz(x);
  oi[i * 4 + 2] = __nvvm_f2i_rm(x);
  oi[i * 4 + 3] = int(__nvvm_f2ui_rp(x));
  of[i * 4 + 0] = __nvvm_d2f_rn(y);
  of[i * 4 + 1] = __nvvm_d2f_rz(y);
  of[i * 4 + 2] = __nvvm_fmin_f(x, float(y)) + __nvvm_fmax_ftz_f(x, 1.f);
  of[i * 4 + 3] = __nvvm_fma_rn_f(x, x, 1.f) + __nvvm_div_approx_f(x, 3.f) + __nvvm_sqrt_rn_f(x) +
                  __nvvm_rsqrt_approx_f(x) + __nvvm_ex2_approx_f(x) + __nvvm_lg2_approx_f(x) +
                  __nvvm_sin_approx_f(x) + __nvvm_rcp_rn_f(x);
  ol[i * 2 + 0] = __nvvm_d2ll_rz(y) + __nvvm_f2ll_rn(x);
  ol[i * 2 + 1] = (long long)(__nvvm_ll2d_rn(ol[i]) + __nvvm_ui2d_rn(i) + __nvvm_fma_rn_d(y, y, 1.0) +
                              __nvvm_rcp_rn_d(y) + __nvvm_sqrt_rn_d(y));
}

extern "C" __global__ void saturate_and_video(const float* f, int* o) {
  unsigned i = global_x();
  float s = __nvvm_saturate_f(f[i]);
  int d = int(i) - 100;
  o[i] = __builtin_bit_cast(int, s) + __builtin_abs(d) + (d < 7 ? d : 7) + int(i > 3u ? i : 3u);
}
