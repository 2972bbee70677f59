// CUTLASS Blackwell GEMM across a CTA pair: tcgen05.mma.cta_group::2 on a 256x128
// tile in a 2x1 cluster, bf16 operands, f32 output.
#include "gemm3x.h"

using namespace cute;
using G = corpus::Gemm3x<cutlass::arch::Sm100, cutlass::bfloat16_t, cutlass::layout::ColumnMajor,
                         cutlass::bfloat16_t, cutlass::layout::RowMajor, float, cutlass::layout::RowMajor, float,
                         Shape<_256, _128, _64>, Shape<_2, _1, _1>, cutlass::gemm::KernelTmaWarpSpecialized2SmSm100,
                         cutlass::epilogue::TmaWarpSpecialized2Sm>;
CORPUS_INSTANTIATE_GEMM3X(G);
