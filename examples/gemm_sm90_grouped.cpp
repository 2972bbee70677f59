// The grouped (MoE) bf16 GEMM example (examples/kernels/gemm_sm90_grouped.hpp) for 8 experts of
// N = 4096, K = 7168: prints its PTX with --ptx.
#include "example_main.hpp"
#include "kernels/gemm_sm90_grouped.hpp"

int main(int argc, char** argv) {
  return examples::example_main(argc, argv, "gemm_sm90_grouped: a grouped (MoE) bf16 TMA + wgmma GEMM (ptxpp DSL example)",
                                [](const std::string& arch) { return examples::gemm_sm90_grouped(arch, 4096, 7168); },
                                {{"G", 8}, {"SMS", examples::kGemm90DefaultSms}});
}
