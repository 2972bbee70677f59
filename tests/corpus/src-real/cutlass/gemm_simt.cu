// CUTLASS 2.x SIMT GEMMs (no tensor cores): an fp32 SGEMM and a batched strided
// DGEMM, as built for Turing and Ampere.
#include <cutlass/gemm/device/gemm.h>
#include <cutlass/gemm/device/gemm_batched.h>

using namespace cutlass;

using Sgemm = gemm::device::Gemm<float, layout::ColumnMajor, float, layout::ColumnMajor, float, layout::ColumnMajor,
                                 float, arch::OpClassSimt, arch::Sm75, gemm::GemmShape<128, 128, 8>,
                                 gemm::GemmShape<32, 64, 8>, gemm::GemmShape<1, 1, 1>,
                                 epilogue::thread::LinearCombination<float, 1, float, float>,
                                 gemm::threadblock::GemmIdentityThreadblockSwizzle<>, 2>;
using DgemmBatched = gemm::device::GemmBatched<double, layout::RowMajor, double, layout::RowMajor, double,
                                               layout::RowMajor>;

template __global__ void cutlass::Kernel<Sgemm::GemmKernel>(Sgemm::GemmKernel::Params);
template __global__ void cutlass::Kernel<DgemmBatched::GemmKernel>(DgemmBatched::GemmKernel::Params);
