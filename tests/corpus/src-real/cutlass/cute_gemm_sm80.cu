// A GEMM written directly in CuTe (no CUTLASS collectives): 64x64x32 CTA tiles,
// cp.async global->shared copies into a swizzled layout, ldmatrix shared->register
// copies retiled for the MMA, and mma.sync m16n8k16 (f16 in, f32 accumulate) on a
// 2x2 warp arrangement. A is MxK and B is NxK, both K-contiguous ("TN").
#include <cute/tensor.hpp>

using namespace cute;

using TiledMma = decltype(make_tiled_mma(MMA_Atom<SM80_16x8x16_F32F16F16F32_TN>{}, Layout<Shape<_2, _2, _1>>{},
                                         Tile<_32, _32, _16>{}));
using G2S = decltype(make_tiled_copy(Copy_Atom<SM80_CP_ASYNC_CACHEGLOBAL<uint128_t>, half_t>{},
                                     Layout<Shape<_32, _4>, Stride<_4, _1>>{}, Layout<Shape<_1, _8>>{}));
using SmemLayout = decltype(composition(Swizzle<2, 3, 3>{}, Layout<Shape<_64, _32>, Stride<_32, _1>>{}));

__global__ void __launch_bounds__(128) cute_gemm_tn(half_t const* A, half_t const* B, float* C, int M, int N, int K) {
  __shared__ alignas(128) half_t smem_a[64 * 32];
  __shared__ alignas(128) half_t smem_b[64 * 32];
  Tensor mA = make_tensor(make_gmem_ptr(A), make_shape(M, K), make_stride(K, _1{}));
  Tensor mB = make_tensor(make_gmem_ptr(B), make_shape(N, K), make_stride(K, _1{}));
  Tensor mC = make_tensor(make_gmem_ptr(C), make_shape(M, N), make_stride(N, _1{}));
  auto tiler = make_shape(_64{}, _64{}, _32{});
  auto coord = make_coord(blockIdx.x, blockIdx.y, _);
  Tensor gA = local_tile(mA, tiler, coord, Step<_1, X, _1>{});  // (64,32,k)
  Tensor gB = local_tile(mB, tiler, coord, Step<X, _1, _1>{});  // (64,32,k)
  Tensor gC = local_tile(mC, tiler, coord, Step<_1, _1, X>{});  // (64,64)
  Tensor sA = make_tensor(make_smem_ptr(smem_a), SmemLayout{});
  Tensor sB = make_tensor(make_smem_ptr(smem_b), SmemLayout{});

  G2S g2s;
  auto g2s_thr = g2s.get_slice(threadIdx.x);
  Tensor tAgA = g2s_thr.partition_S(gA);
  Tensor tAsA = g2s_thr.partition_D(sA);
  Tensor tBgB = g2s_thr.partition_S(gB);
  Tensor tBsB = g2s_thr.partition_D(sB);

  TiledMma mma;
  auto thr_mma = mma.get_slice(threadIdx.x);
  Tensor tCrA = thr_mma.partition_fragment_A(sA);
  Tensor tCrB = thr_mma.partition_fragment_B(sB);
  Tensor tCgC = thr_mma.partition_C(gC);
  Tensor tCrC = thr_mma.make_fragment_C(tCgC);
  clear(tCrC);

  auto s2r_a = make_tiled_copy_A(Copy_Atom<SM75_U32x4_LDSM_N, half_t>{}, mma);
  auto s2r_b = make_tiled_copy_B(Copy_Atom<SM75_U32x4_LDSM_N, half_t>{}, mma);
  auto s2r_a_thr = s2r_a.get_slice(threadIdx.x);
  auto s2r_b_thr = s2r_b.get_slice(threadIdx.x);
  Tensor tXsA = s2r_a_thr.partition_S(sA);
  Tensor tXrA = s2r_a_thr.retile_D(tCrA);
  Tensor tXsB = s2r_b_thr.partition_S(sB);
  Tensor tXrB = s2r_b_thr.retile_D(tCrB);

  int k_tiles = size<3>(tAgA);
  for (int k = 0; k < k_tiles; ++k) {
    copy(g2s, tAgA(_, _, _, k), tAsA);
    copy(g2s, tBgB(_, _, _, k), tBsB);
    cp_async_fence();
    cp_async_wait<0>();
    __syncthreads();
    CUTE_UNROLL
    for (int kb = 0; kb < size<2>(tCrA); ++kb) {
      copy(s2r_a, tXsA(_, _, kb), tXrA(_, _, kb));
      copy(s2r_b, tXsB(_, _, kb), tXrB(_, _, kb));
      gemm(mma, tCrA(_, _, kb), tCrB(_, _, kb), tCrC);
    }
    __syncthreads();
  }
  copy(tCrC, tCgC);
}
