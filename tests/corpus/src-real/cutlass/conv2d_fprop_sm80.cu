// CUTLASS 2.x implicit-GEMM 2D convolution, forward propagation, NHWC f16 with the
// optimized iterator algorithm on Ampere tensor cores.
#include <cutlass/conv/kernel/default_conv2d_fprop.h>
#include <cutlass/conv/device/implicit_gemm_convolution.h>

using namespace cutlass;

using Fprop = conv::kernel::DefaultConv2dFprop<
    half_t, layout::TensorNHWC, half_t, layout::TensorNHWC, float, layout::TensorNHWC, float,
    arch::OpClassTensorOp, arch::Sm80, gemm::GemmShape<128, 128, 64>, gemm::GemmShape<64, 64, 64>,
    gemm::GemmShape<16, 8, 16>, epilogue::thread::LinearCombination<float, 4, float, float>,
    gemm::threadblock::GemmIdentityThreadblockSwizzle<>, 3, arch::OpMultiplyAdd,
    conv::IteratorAlgorithm::kOptimized>::Kernel;

template __global__ void cutlass::Kernel<Fprop>(Fprop::Params);
