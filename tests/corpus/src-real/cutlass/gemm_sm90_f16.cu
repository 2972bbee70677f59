// CUTLASS 3.x Hopper GEMM, f16 -> f32 accumulators: TMA loads multicast across a
// 2x1 cluster, wgmma from shared memory, the builder's automatic kernel schedule.
#include "gemm3x.h"

using namespace cute;
using G = corpus::Gemm3x<cutlass::arch::Sm90, cutlass::half_t, cutlass::layout::RowMajor, cutlass::half_t,
                         cutlass::layout::ColumnMajor, cutlass::half_t, cutlass::layout::RowMajor, float,
                         Shape<_128, _128, _64>, Shape<_2, _1, _1>, cutlass::gemm::collective::KernelScheduleAuto,
                         cutlass::epilogue::collective::EpilogueScheduleAuto>;
CORPUS_INSTANTIATE_GEMM3X(G);
