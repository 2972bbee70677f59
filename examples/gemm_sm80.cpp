// The bf16 mma.sync GEMM example (examples/kernels/gemm_sm80.hpp): prints its PTX with --ptx.
#include "kernels/gemm_sm80.hpp"
#include "example_main.hpp"

int main(int argc, char** argv) {
  return examples::example_main(argc, argv, "gemm_sm80: a bf16 mma.sync GEMM (ptxpp DSL example)", examples::gemm_sm80,
                                {{"M", 4096}, {"N", 4096}, {"K", 4096}}, "sm_80");
}
