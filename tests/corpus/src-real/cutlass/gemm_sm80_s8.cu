// CUTLASS 2.x integer GEMM: s8 x s8 -> s32 accumulators (mma.sync m16n8k32 with
// saturation), clamped back to s8 in the epilogue; TN layouts, 128-bit accesses.
#include <cutlass/gemm/device/gemm.h>
#include <cutlass/epilogue/thread/linear_combination_clamp.h>

using namespace cutlass;

using GemmS8 = gemm::device::Gemm<
    int8_t, layout::RowMajor, int8_t, layout::ColumnMajor, int8_t, layout::RowMajor, int32_t,
    arch::OpClassTensorOp, arch::Sm80, gemm::GemmShape<128, 128, 64>, gemm::GemmShape<64, 64, 64>,
    gemm::GemmShape<16, 8, 32>, epilogue::thread::LinearCombinationClamp<int8_t, 16, int32_t, float>,
    gemm::threadblock::GemmIdentityThreadblockSwizzle<>, 3, 16, 16, false, arch::OpMultiplyAddSaturate>;

template __global__ void cutlass::Kernel<GemmS8::GemmKernel>(GemmS8::GemmKernel::Params);
