// CUTLASS 2.x GEMM with bf16 operands (both column-major), a 128x256 threadblock tile,
// 4 pipeline stages and a swizzled raster order over the output.
#include <cutlass/gemm/device/gemm.h>

using namespace cutlass;

using GemmBf16 = gemm::device::Gemm<
    bfloat16_t, layout::ColumnMajor, bfloat16_t, layout::ColumnMajor, float, layout::ColumnMajor, float,
    arch::OpClassTensorOp, arch::Sm80, gemm::GemmShape<128, 256, 32>, gemm::GemmShape<64, 64, 32>,
    gemm::GemmShape<16, 8, 16>, epilogue::thread::LinearCombination<float, 4, float, float>,
    gemm::threadblock::GemmIdentityThreadblockSwizzle<8>, 4>;

template __global__ void cutlass::Kernel<GemmBf16::GemmKernel>(GemmBf16::GemmKernel::Params);
