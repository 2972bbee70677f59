// Reductions: saxpy, a shared-memory tree reduction, a warp-shuffle reduction with
// one atomic per warp, and a two-pass grid reduction over doubles.
#include "nvptx.h"

extern "C" __global__ void saxpy(float a, const float* __restrict__ x, float* __restrict__ y, int n) {
  unsigned i = global_x();
  if (i < unsigned(n)) y[i] = a * x[i] + y[i];
}

extern "C" __global__ void __launch_bounds__(256, 2) block_sum_tree(const float* in, float* out, int n) {
  __shared__ float buf[256];
  unsigned t = tid_x(), i = ctaid_x() * 512 + t;
  float v = 0.f;
  if (i < unsigned(n)) v = in[i];
  if (i + 256 < unsigned(n)) v += in[i + 256];
  buf[t] = v;
  sync_block();
  for (unsigned s = 128; s > 0; s >>= 1) {
    if (t < s) buf[t] += buf[t + s];
    sync_block();
  }
  if (t == 0) out[ctaid_x()] = buf[0];
}

extern "C" __global__ void warp_sum_atomic(const float* in, float* total, int n) {
  float v = 0.f;
  for (unsigned i = global_x(); i < unsigned(n); i += ntid_x() * nctaid_x()) v += in[i];
  for (int d = 16; d > 0; d >>= 1) v += shfl_down(v, d);
  if (lane_id() == 0) __nvvm_atom_add_gen_f(total, v);
}

extern "C" __global__ void grid_sum_f64(const double* in, double* partial, unsigned* done, double* result, int n) {
  __shared__ double warp_sums[32];
  __shared__ bool last;
  double v = 0;
  for (unsigned i = global_x(); i < unsigned(n); i += ntid_x() * nctaid_x()) v += in[i];
  for (int d = 16; d > 0; d >>= 1) v += __nvvm_shfl_sync_down_f32(0xffffffffu, float(v), d, 0x1f);
  if (lane_id() == 0) warp_sums[tid_x() / 32] = v;
  sync_block();
  if (tid_x() == 0) {
    double s = 0;
    for (unsigned w = 0; w < ntid_x() / 32; ++w) s += warp_sums[w];
    partial[ctaid_x()] = s;
    __nvvm_membar_gl();
    last = __nvvm_atom_inc_gen_ui(done, nctaid_x() - 1) == nctaid_x() - 1;
  }
  sync_block();
  if (last && tid_x() == 0) {
    double s = 0;
    for (unsigned b = 0; b < nctaid_x(); ++b) s += ((volatile double*)partial)[b];
    *result = s;
  }
}
