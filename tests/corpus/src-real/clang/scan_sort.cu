// Block-level prefix sums (Hillis-Steele and warp-shuffle based) and a bitonic sort
// of one block's keys in shared memory.
#include "nvptx.h"

extern "C" __global__ void scan_hillis_steele(const int* in, int* out, int n) {
  __shared__ int buf[2][512];
  int t = tid_x(), p = 0;
  buf[0][t] = t < n ? in[t] : 0;
  sync_block();
  for (int off = 1; off < 512; off <<= 1) {
    buf[1 - p][t] = buf[p][t] + (t >= off ? buf[p][t - off] : 0);
    p = 1 - p;
    sync_block();
  }
  if (t < n) out[t] = buf[p][t];
}

extern "C" __global__ void scan_warp_shuffle(const unsigned* in, unsigned* out, unsigned* block_totals) {
  __shared__ unsigned warp_tot[32];
  unsigned i = global_x(), v = in[i], lane = lane_id(), w = tid_x() / 32;
  for (int d = 1; d < 32; d <<= 1) {
    unsigned u = __nvvm_shfl_sync_up_i32(0xffffffffu, v, d, 0);
    if (lane >= unsigned(d)) v += u;
  }
  if (lane == 31) warp_tot[w] = v;
  sync_block();
  if (w == 0) {
    unsigned s = lane < ntid_x() / 32 ? warp_tot[lane] : 0;
    for (int d = 1; d < 32; d <<= 1) {
      unsigned u = __nvvm_shfl_sync_up_i32(0xffffffffu, s, d, 0);
      if (lane >= unsigned(d)) s += u;
    }
    warp_tot[lane] = s;
  }
  sync_block();
  if (w > 0) v += warp_tot[w - 1];
  out[i] = v;
  if (tid_x() == ntid_x() - 1) block_totals[ctaid_x()] = v;
}

extern "C" __global__ void bitonic_sort_1024(float* keys, int* vals) {
  __shared__ float k[1024];
  __shared__ int v[1024];
  unsigned base = ctaid_x() * 1024;
  for (unsigned i = tid_x(); i < 1024; i += ntid_x()) {
    k[i] = keys[base + i];
    v[i] = vals[base + i];
  }
  sync_block();
  for (unsigned size = 2; size <= 1024; size <<= 1)
    for (unsigned stride = size / 2; stride > 0; stride >>= 1) {
      for (unsigned i = tid_x(); i < 1024; i += ntid_x()) {
        unsigned j = i ^ stride;
        if (j > i) {
          bool up = (i & size) == 0;
          if ((k[i] > k[j]) == up) {
            float tk = k[i]; k[i] = k[j]; k[j] = tk;
            int tv = v[i]; v[i] = v[j]; v[j] = tv;
          }
        }
      }
      sync_block();
    }
  for (unsigned i = tid_x(); i < 1024; i += ntid_x()) {
    keys[base + i] = k[i];
    vals[base + i] = v[i];
  }
}
