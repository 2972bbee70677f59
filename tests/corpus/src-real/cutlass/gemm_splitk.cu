// CUTLASS 2.x universal GEMM in its split-K modes: serial split-K (semaphore between
// slices) and parallel split-K (partials, then a separate reduction kernel).
#include <cutlass/gemm/device/gemm_universal.h>
#include <cutlass/gemm/device/gemm_splitk_parallel.h>

using namespace cutlass;

using Universal = gemm::device::GemmUniversal<
    half_t, layout::RowMajor, half_t, layout::RowMajor, float, layout::RowMajor, float, arch::OpClassTensorOp,
    arch::Sm80, gemm::GemmShape<128, 64, 32>, gemm::GemmShape<64, 32, 32>, gemm::GemmShape<16, 8, 16>,
    epilogue::thread::LinearCombination<float, 4, float, float>,
    gemm::threadblock::GemmSplitKIdentityThreadblockSwizzle<>, 4, 8, 8>;
using Parallel = gemm::device::GemmSplitKParallel<
    half_t, layout::ColumnMajor, half_t, layout::ColumnMajor, float, layout::ColumnMajor, float,
    arch::OpClassTensorOp, arch::Sm80, gemm::GemmShape<128, 128, 32>, gemm::GemmShape<64, 64, 32>,
    gemm::GemmShape<16, 8, 16>>;

template __global__ void cutlass::Kernel2<Universal::GemmKernel>(Universal::GemmKernel::Params);
template __global__ void cutlass::Kernel<Parallel::GemmKernel>(Parallel::GemmKernel::Params);
template __global__ void cutlass::Kernel<Parallel::ReductionKernel>(Parallel::ReductionKernel::Params);
