// CUTLASS 3.x/4.x Blackwell GEMM: tcgen05.mma with the accumulator in tensor memory,
// TMA loads, a 1-SM 128x128 tile and automatic schedules.
#include "gemm3x.h"

using namespace cute;
using G = corpus::Gemm3x<cutlass::arch::Sm100, cutlass::half_t, cutlass::layout::RowMajor, cutlass::half_t,
                         cutlass::layout::ColumnMajor, cutlass::half_t, cutlass::layout::RowMajor, float,
                         Shape<_128, _128, _64>, Shape<_1, _1, _1>, cutlass::gemm::collective::KernelScheduleAuto,
                         cutlass::epilogue::collective::EpilogueScheduleAuto>;
CORPUS_INSTANTIATE_GEMM3X(G);
