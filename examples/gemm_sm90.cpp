// The bf16 TMA + wgmma GEMM example (examples/kernels/gemm_sm90.hpp): prints its PTX with --ptx.
#include "example_main.hpp"
#include "kernels/gemm_sm90.hpp"

int main(int argc, char** argv) {
  return examples::example_main(argc, argv, "gemm_sm90: a bf16 TMA + wgmma GEMM (ptxpp DSL example)",
                                [](const std::string& arch) { return examples::gemm_sm90(arch); },
                                {{"M", 8192}, {"N", 8192}, {"K", 8192}});
}
