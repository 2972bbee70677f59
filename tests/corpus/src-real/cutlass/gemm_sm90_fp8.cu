// CUTLASS 3.x Hopper FP8 GEMM: e4m3 x e5m2 -> f32 accumulators (wgmma .e4m3.e5m2),
// fast-accumulation ping-pong schedule, bf16 output.
#include "gemm3x.h"

using namespace cute;
using G = corpus::Gemm3x<cutlass::arch::Sm90, cutlass::float_e4m3_t, cutlass::layout::RowMajor,
                         cutlass::float_e5m2_t, cutlass::layout::ColumnMajor, cutlass::bfloat16_t,
                         cutlass::layout::RowMajor, float, Shape<_64, _128, _128>, Shape<_1, _1, _1>,
                         cutlass::gemm::KernelTmaWarpSpecializedPingpongFP8FastAccum,
                         cutlass::epilogue::TmaWarpSpecialized>;
CORPUS_INSTANTIATE_GEMM3X(G);
