// ptxpp corpus: warp-level primitives: shfl.sync (idx/up/down/bfly, widths,
// 64-bit and struct payloads), vote.sync, match.sync, redux.sync, elect.sync,
// activemask, bar.warp.sync, cooperative-groups tiles, warp scans/reductions.
// nvcc corpus (see scripts/gen-corpus): archs: sm_80 sm_90a sm_100a sm_120a
#include <cooperative_groups.h>
#include <cooperative_groups/reduce.h>
#include <cooperative_groups/scan.h>
#include <cuda_fp16.h>
#include <cuda_bf16.h>
#include "corpus.h"

namespace cg = cooperative_groups;

template <typename T>
__device__ T warp_sum(T v) {
#pragma unroll
  for (int o = 16; o > 0; o >>= 1) v += __shfl_xor_sync(0xffffffffu, v, o);
  return v;
}
template <typename T>
__device__ T warp_inclusive_scan(T v) {
  const int lane = threadIdx.x & 31;
#pragma unroll
  for (int o = 1; o < 32; o <<= 1) {
    T n = __shfl_up_sync(0xffffffffu, v, o);
    if (lane >= o) v += n;
  }
  return v;
}
template <typename T>
__device__ T warp_max_down(T v) {
#pragma unroll
  for (int o = 16; o > 0; o >>= 1) {
    T n = __shfl_down_sync(0xffffffffu, v, o);
    v = n > v ? n : v;
  }
  return __shfl_sync(0xffffffffu, v, 0);
}

struct Payload {
  int a;
  float b;
  double c;
};

__global__ void shuffles(int* i, unsigned long long* u, float* f, double* d, __half2* h, Payload* p) {
  const int t = blockIdx.x * blockDim.x + threadIdx.x;
  i[t] = warp_sum(i[t]) + warp_inclusive_scan(i[t]) + warp_max_down(i[t]);
  u[t] = warp_sum(u[t]) ^ warp_inclusive_scan(u[t]);
  f[t] = warp_sum(f[t]) + warp_max_down(f[t]);
  d[t] = warp_sum(d[t]) + warp_inclusive_scan(d[t]);
  __half2 hv = h[t];
#pragma unroll
  for (int o = 1; o < 32; o <<= 1) hv = __hadd2(hv, __shfl_xor_sync(0xffffffffu, hv, o));
  h[t] = hv;
  // width-limited shuffles
  int x = i[t];
  x += __shfl_sync(0xffffffffu, x, 3, 8);
  x += __shfl_up_sync(0xffffffffu, x, 1, 16);
  x += __shfl_down_sync(0xffffffffu, x, 2, 4);
  x += __shfl_xor_sync(0x0000ffffu, x, 1, 2);
  i[t + 1024] = x;
  // struct payload through a cg tile
  auto tile = cg::tiled_partition<32>(cg::this_thread_block());
  Payload pl = p[t];
  Payload other = tile.shfl(pl, (tile.thread_rank() + 5) % 32);
  p[t] = Payload{pl.a + other.a, pl.b * other.b, pl.c - other.c};
  // raw PTX shuffles with predicate output
  int r, src = t;
  asm volatile(
      "{\n\t.reg .pred valid;\n\t"
      "shfl.sync.bfly.b32 %0|valid, %1, 0x1f, 0x1f, 0xffffffff;\n\t"
      "@!valid mov.b32 %0, -1;\n\t}"
      : "=r"(r)
      : "r"(src));
  asm volatile("shfl.sync.idx.b32 %0, %0, %1, 0x1f, %2;" : "+r"(r) : "r"(t & 7), "r"(0xffffffffu));
  asm volatile("shfl.sync.up.b32 %0, %0, 4, 0, 0xffffffff;" : "+r"(r));
  asm volatile("shfl.sync.down.b32 %0, %0, 4, 0x1f, 0xffffffff;" : "+r"(r));
  i[t + 2048] = r;
}

__global__ void votes_and_matches(const int* keys, const float* vals, unsigned* out, int n) {
  const int t = blockIdx.x * blockDim.x + threadIdx.x;
  const int k = t < n ? keys[t] : -1;
  const unsigned active = __activemask();
  const unsigned ball = __ballot_sync(0xffffffffu, k > 0);
  const int any = __any_sync(0xffffffffu, k == 7);
  const int all = __all_sync(0xffffffffu, k >= 0);
  const unsigned uni = __uni_sync(0xffffffffu, k);
  const unsigned peers = __match_any_sync(0xffffffffu, k);
  int pred;
  const unsigned allm = __match_all_sync(0xffffffffu, (unsigned long long)k * 3, &pred);
  const unsigned peersf = __match_any_sync(active, __float_as_uint(t < n ? vals[t] : 0.f));
  // leader-based aggregation
  const int leader = __ffs(peers) - 1;
  const int cnt = __popc(peers);
  unsigned result = ball ^ (any << 1) ^ (all << 2) ^ (uni << 3) ^ allm ^ (pred << 4) ^ peersf;
  if ((threadIdx.x & 31) == leader) result += cnt;
  __syncwarp();
  __syncwarp(peers);
  unsigned vb;
  asm volatile(
      "{\n\t.reg .pred p, q;\n\t"
      "setp.gt.s32 p, %1, 3;\n\t"
      "vote.sync.any.pred q, p, 0xffffffff;\n\t"
      "vote.sync.ballot.b32 %0, !p, 0xffffffff;\n\t"
      "@q not.b32 %0, %0;\n\t"
      "vote.sync.all.pred q, !q, 0xffffffff;\n\t"
      "vote.sync.uni.pred p, q, 0xffffffff;\n\t"
      "@p add.u32 %0, %0, 1;\n\t}"
      : "=r"(vb)
      : "r"(k));
  asm volatile("bar.warp.sync 0xffffffff;");
  out[t] = result + vb;
}

__global__ void redux_elect(const int* in, unsigned* out, float* fout) {
  const int t = blockIdx.x * blockDim.x + threadIdx.x;
  const int v = in[t];
  unsigned r = __reduce_add_sync(0xffffffffu, (unsigned)v);
  r ^= __reduce_min_sync(0xffffffffu, (unsigned)v);
  r ^= __reduce_max_sync(0xffffffffu, (unsigned)v);
  r ^= (unsigned)__reduce_min_sync(0xffffffffu, v);
  r ^= (unsigned)__reduce_max_sync(0xffffffffu, v);
  r ^= __reduce_and_sync(0xffffffffu, (unsigned)v);
  r ^= __reduce_or_sync(0xffffffffu, (unsigned)v);
  r ^= __reduce_xor_sync(0xffffffffu, (unsigned)v);
  unsigned rr;
  asm("redux.sync.add.s32 %0, %1, 0xffffffff;" : "=r"(rr) : "r"(v));
  r += rr;
#if __CUDA_ARCH__ >= 900
  unsigned is_elected, leader;
  asm volatile(
      "{\n\t.reg .pred e;\n\t"
      "elect.sync %1|e, 0xffffffff;\n\t"
      "selp.u32 %0, 1, 0, e;\n\t}"
      : "=r"(is_elected), "=r"(leader));
  unsigned lead2;
  asm volatile(
      "{\n\t.reg .pred e;\n\t"
      "elect.sync _|e, %1;\n\t"
      "@e mov.u32 %0, %%laneid;\n\t"
      "@!e mov.u32 %0, 0;\n\t}"
      : "=r"(lead2)
      : "r"(0xffffffffu)
      : "memory");
  r ^= lead2;
  r += is_elected * 100 + leader;
#endif
#if CORPUS_SM100A
  float fv = __int_as_float(v), fr, fa;
  asm("redux.sync.min.f32 %0, %1, 0xffffffff;" : "=f"(fr) : "f"(fv));
  asm("redux.sync.max.abs.NaN.f32 %0, %1, 0xffffffff;" : "=f"(fa) : "f"(fv));
  fout[t] = fr + fa;
#endif
  out[t] = r;
}

// Cooperative-groups tiles of several sizes, reductions and scans.
template <unsigned TILE, typename P>
__device__ int tile_work(cg::thread_block_tile<TILE, P> g, int v) {
  int s = cg::reduce(g, v, cg::plus<int>());
  int m = cg::reduce(g, v, cg::greater<int>());
  int sc = cg::inclusive_scan(g, v);
  int ex = cg::exclusive_scan(g, v, cg::bit_xor<int>());
  int any = g.any(v > 10), all = g.all(v > 0);
  unsigned bal = g.ballot(v & 1);
  int mine = g.shfl_down(v, 1) + g.shfl_up(v, 1) + g.shfl_xor(v, 1) + g.shfl(v, 0);
  g.sync();
  return s + m + sc + ex + any + all + (int)bal + mine + g.meta_group_rank() * 1000 + g.meta_group_size();
}

__global__ void coop_tiles(const int* in, int* out) {
  cg::thread_block block = cg::this_thread_block();
  const int v = in[block.group_index().x * block.size() + block.thread_rank()];
  int r = tile_work(cg::tiled_partition<32>(block), v);
  r += tile_work(cg::tiled_partition<16>(block), v);
  r += tile_work(cg::tiled_partition<8>(block), v);
  r += tile_work(cg::tiled_partition<4>(block), v);
  r += tile_work(cg::tiled_partition<2>(block), v);
  if (v & 1) {
    cg::coalesced_group active = cg::coalesced_threads();
    r += cg::reduce(active, v, cg::plus<int>()) + active.thread_rank() + active.num_threads();
    auto sub = cg::labeled_partition(active, v & 6);
    r += cg::reduce(sub, v, cg::less<int>());
  }
  auto bin = cg::binary_partition(cg::tiled_partition<32>(block), v > 5);
  r += bin.size();
  block.sync();
  out[block.group_index().x * block.size() + block.thread_rank()] = r + block.dim_threads().x;
}

// Warp-synchronous segmented reduction on bf16 and half.
__global__ void half_warp_reduce(const __nv_bfloat16* b, const __half* h, float* out) {
  const int t = blockIdx.x * blockDim.x + threadIdx.x;
  __nv_bfloat16 bv = b[t];
  __half hv = h[t];
#pragma unroll
  for (int o = 16; o > 0; o >>= 1) {
    bv = __hmax(bv, __shfl_xor_sync(0xffffffffu, bv, o));
    hv = __hadd(hv, __shfl_down_sync(0xffffffffu, hv, o));
  }
  out[t] = __bfloat162float(bv) + __half2float(hv);
}
