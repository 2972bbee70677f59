// CUTLASS 3.x Hopper GEMMs with explicit warp-specialized schedules: a cooperative
// bf16 kernel with a TMA epilogue (persistent tile scheduler), and a ping-pong one.
#include "gemm3x.h"

using namespace cute;
using Cooperative = corpus::Gemm3x<
    cutlass::arch::Sm90, cutlass::bfloat16_t, cutlass::layout::RowMajor, cutlass::bfloat16_t,
    cutlass::layout::ColumnMajor, cutlass::bfloat16_t, cutlass::layout::ColumnMajor, float, Shape<_256, _128, _64>,
    Shape<_1, _2, _1>, cutlass::gemm::KernelTmaWarpSpecializedCooperative,
    cutlass::epilogue::TmaWarpSpecializedCooperative>;
using Pingpong = corpus::Gemm3x<
    cutlass::arch::Sm90, cutlass::half_t, cutlass::layout::ColumnMajor, cutlass::half_t, cutlass::layout::RowMajor,
    float, cutlass::layout::RowMajor, float, Shape<_64, _128, _64>, Shape<_1, _1, _1>,
    cutlass::gemm::KernelTmaWarpSpecializedPingpong, cutlass::epilogue::TmaWarpSpecialized>;
CORPUS_INSTANTIATE_GEMM3X(Cooperative);
CORPUS_INSTANTIATE_GEMM3X(Pingpong);
