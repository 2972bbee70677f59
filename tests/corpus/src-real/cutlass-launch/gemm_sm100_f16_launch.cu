// Host program: how CUTLASS 3.x's GemmUniversalAdapter would launch gemm_sm100_f16.cu's kernel
// for one problem, written as a launch sidecar (tests/corpus/cutlass/sm_100a/gemm_sm100_f16.launch);
// gemm3x_launch.h says how (Params from to_underlying_arguments, TMA descriptors recorded).
//   scripts/gen-corpus-real cutlass (nvcc -arch=sm_100a -std=c++17 --expt-relaxed-constexpr -DNDEBUG
//   -DCUTLASS_ENABLE_DIRECT_CUDA_DRIVER_CALL, then runs it)
#include "../cutlass/gemm_sm100_f16.cu"
#include "gemm3x_launch.h"

// Two 128 x 128 CTA tiles along M (1 x 1 clusters), one SM per tile; two K tiles of 64.
int main() { return print_gemm3x_launch<G>("gemm_sm100_f16", 256, 128, 128, 2); }
