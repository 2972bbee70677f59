// CUTLASS 2.x GEMM on fp32 data through tf32 tensor cores (m16n8k8), and the same
// problem with the 3xTF32 fast-accurate split (OpMultiplyAddFastF32).
#include <cutlass/gemm/device/gemm.h>

using namespace cutlass;

template <typename Op>
using GemmTf32 = gemm::device::Gemm<
    float, layout::RowMajor, float, layout::RowMajor, float, layout::RowMajor, float, arch::OpClassTensorOp,
    arch::Sm80, gemm::GemmShape<128, 128, 16>, gemm::GemmShape<64, 64, 16>, gemm::GemmShape<16, 8, 8>,
    epilogue::thread::LinearCombination<float, 4, float, float>, gemm::threadblock::GemmIdentityThreadblockSwizzle<>,
    3, 4, 4, false, Op>;

using Fast = GemmTf32<arch::OpMultiplyAdd>;
using Accurate = GemmTf32<arch::OpMultiplyAddFastF32>;
template __global__ void cutlass::Kernel<Fast::GemmKernel>(Fast::GemmKernel::Params);
template __global__ void cutlass::Kernel<Accurate::GemmKernel>(Accurate::GemmKernel::Params);
