// CUTLASS 2.x GEMM on Turing tensor cores (mma.sync m16n8k8, ldmatrix), 2 stages
// with register-staged global loads (no cp.async on sm_75).
#include <cutlass/gemm/device/gemm.h>

using namespace cutlass;

using GemmTuring = gemm::device::Gemm<
    half_t, layout::ColumnMajor, half_t, layout::RowMajor, float, layout::ColumnMajor, float,
    arch::OpClassTensorOp, arch::Sm75, gemm::GemmShape<128, 128, 32>, gemm::GemmShape<64, 64, 32>,
    gemm::GemmShape<16, 8, 8>, epilogue::thread::LinearCombination<float, 4, float, float>,
    gemm::threadblock::GemmIdentityThreadblockSwizzle<>, 2>;

template __global__ void cutlass::Kernel<GemmTuring::GemmKernel>(GemmTuring::GemmKernel::Params);
