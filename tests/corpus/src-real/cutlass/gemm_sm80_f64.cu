// CUTLASS 2.x double-precision GEMM on Ampere's f64 tensor cores (mma.sync m8n8k4).
#include <cutlass/gemm/device/gemm.h>

using namespace cutlass;

using GemmF64 = gemm::device::Gemm<
    double, layout::ColumnMajor, double, layout::RowMajor, double, layout::ColumnMajor, double,
    arch::OpClassTensorOp, arch::Sm80, gemm::GemmShape<64, 64, 16>, gemm::GemmShape<32, 32, 16>,
    gemm::GemmShape<8, 8, 4>, epilogue::thread::LinearCombination<double, 1, double, double>,
    gemm::threadblock::GemmIdentityThreadblockSwizzle<>, 4>;

template __global__ void cutlass::Kernel<GemmF64::GemmKernel>(GemmF64::GemmKernel::Params);
