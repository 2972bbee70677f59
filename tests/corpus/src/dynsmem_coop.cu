// ptxpp corpus: dynamic shared memory (extern arrays of several types and
// alignments, carved into sub-buffers), static shared arrays of many shapes,
// and cooperative groups: grid-wide sync, block/tile groups, grid reductions.
// nvcc corpus (see scripts/gen-corpus): archs: sm_80 sm_90a sm_100a sm_120a   variants: lineinfo:sm_120a
#include <cooperative_groups.h>
#include <cooperative_groups/reduce.h>
#include "corpus.h"

namespace cg = cooperative_groups;

extern __shared__ float4 dyn_f4[];

__global__ void dynamic_carve(const float* in, float* out, int n, int nint) {
  // one dynamic allocation carved into float4 / int / char regions
  float4* a = dyn_f4;
  int* b = reinterpret_cast<int*>(a + blockDim.x);
  unsigned char* c = reinterpret_cast<unsigned char*>(b + nint);
  const int t = threadIdx.x;
  a[t] = make_float4(in[t], in[t + n], in[t + 2 * n], in[t + 3 * n]);
  for (int k = t; k < nint; k += blockDim.x) b[k] = k * 3;
  c[t] = (unsigned char)t;
  __syncthreads();
  float4 v = a[(t + 1) % blockDim.x];
  out[blockIdx.x * blockDim.x + t] = v.x + v.y + v.z + v.w + b[t % nint] + c[(t + 7) % blockDim.x];
}

template <typename T>
__global__ void dynamic_typed(const T* in, T* out) {
  extern __shared__ __align__(16) unsigned char raw[];
  T* s = reinterpret_cast<T*>(raw);
  s[threadIdx.x] = in[blockIdx.x * blockDim.x + threadIdx.x];
  __syncthreads();
  for (int stride = blockDim.x / 2; stride > 0; stride >>= 1) {
    if (threadIdx.x < stride) s[threadIdx.x] += s[threadIdx.x + stride];
    __syncthreads();
  }
  if (threadIdx.x == 0) out[blockIdx.x] = s[0];
}
template __global__ void dynamic_typed<double>(const double*, double*);
template __global__ void dynamic_typed<int>(const int*, int*);
template __global__ void dynamic_typed<unsigned long long>(const unsigned long long*, unsigned long long*);
template __global__ void dynamic_typed<short>(const short*, short*);

__global__ void static_shapes(int* out) {
  __shared__ int s1[7];
  __shared__ float s2[3][5];
  __shared__ double s3[2][2][2];
  __shared__ __align__(64) char s4[33];
  __shared__ short2 s5[9];
  __shared__ unsigned long long s6;
  const int t = threadIdx.x;
  if (t < 7) s1[t] = t;
  if (t < 15) s2[t / 5][t % 5] = t * 0.5f;
  if (t < 8) s3[t / 4][(t / 2) % 2][t % 2] = t * 0.25;
  if (t < 33) s4[t] = (char)t;
  if (t < 9) s5[t] = make_short2(t, -t);
  if (t == 0) s6 = 0xDEADBEEFCAFEull;
  __syncthreads();
  out[t] = s1[t % 7] + (int)s2[t % 3][t % 5] + (int)s3[t & 1][(t >> 1) & 1][0] + s4[t % 33] + s5[t % 9].y + (int)s6;
}

// Grid-wide synchronization: two-phase reduction in one launch.
__global__ void grid_reduce(const float* in, float* partial, float* result, int n) {
  cg::grid_group grid = cg::this_grid();
  cg::thread_block block = cg::this_thread_block();
  auto warp = cg::tiled_partition<32>(block);
  __shared__ float warp_sums[32];
  float v = 0.f;
  for (unsigned long long i = grid.thread_rank(); i < (unsigned long long)n; i += grid.size()) v += in[i];
  v = cg::reduce(warp, v, cg::plus<float>());
  if (warp.thread_rank() == 0) warp_sums[warp.meta_group_rank()] = v;
  block.sync();
  if (warp.meta_group_rank() == 0) {
    v = warp.thread_rank() < warp.meta_group_size() ? warp_sums[warp.thread_rank()] : 0.f;
    v = cg::reduce(warp, v, cg::plus<float>());
    if (warp.thread_rank() == 0) partial[grid.block_rank()] = v;
  }
  grid.sync();
  if (grid.block_rank() == 0) {
    float s = 0.f;
    for (unsigned i = block.thread_rank(); i < grid.num_blocks(); i += block.size()) s += partial[i];
    s = cg::reduce(warp, s, cg::plus<float>());
    if (warp.thread_rank() == 0) atomicAdd(result, s);
  }
  grid.sync();
  (void)grid.is_valid();
  (void)grid.dim_blocks();
  (void)grid.block_index();
}

// Iterative Jacobi solver that syncs the whole grid between sweeps.
__global__ void jacobi_persistent(float* a, float* b, const float* rhs, int nx, int ny, int iters) {
  cg::grid_group grid = cg::this_grid();
  for (int it = 0; it < iters; ++it) {
    for (unsigned long long idx = grid.thread_rank(); idx < (unsigned long long)nx * ny; idx += grid.size()) {
      const int x = idx % nx, y = idx / nx;
      if (x == 0 || y == 0 || x == nx - 1 || y == ny - 1) continue;
      b[idx] = 0.25f * (a[idx - 1] + a[idx + 1] + a[idx - nx] + a[idx + nx] - rhs[idx]);
    }
    grid.sync();
    float* t = a;
    a = b;
    b = t;
  }
}
