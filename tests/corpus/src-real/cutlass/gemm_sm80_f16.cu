// CUTLASS 2.x device-level GEMM, f16 inputs with f32 accumulation on Ampere tensor
// cores (mma.sync m16n8k16), a 3-stage cp.async pipeline, and a bias+ReLU epilogue.
#include <cutlass/gemm/device/gemm.h>
#include <cutlass/epilogue/thread/linear_combination_relu.h>

using namespace cutlass;

using GemmF16 = gemm::device::Gemm<
    half_t, layout::RowMajor, half_t, layout::ColumnMajor, half_t, layout::RowMajor, float,
    arch::OpClassTensorOp, arch::Sm80, gemm::GemmShape<128, 128, 32>, gemm::GemmShape<64, 64, 32>,
    gemm::GemmShape<16, 8, 16>, epilogue::thread::LinearCombinationRelu<half_t, 8, float, float>,
    gemm::threadblock::GemmIdentityThreadblockSwizzle<>, 3>;

template __global__ void cutlass::Kernel<GemmF16::GemmKernel>(GemmF16::GemmKernel::Params);
