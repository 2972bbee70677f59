// The persistent bf16 TMA + wgmma GEMM example (examples/kernels/gemm_sm90_persistent.hpp): prints
// its PTX with --ptx; --dim SMS=... sets the grid (the device's SM count).
#include "example_main.hpp"
#include "kernels/gemm_sm90_persistent.hpp"

int main(int argc, char** argv) {
  return examples::example_main(argc, argv, "gemm_sm90_persistent: a persistent bf16 TMA + wgmma GEMM (ptxpp DSL example)",
                                [](const std::string& arch) { return examples::gemm_sm90_persistent(arch); },
                                {{"M", 8192}, {"N", 8192}, {"K", 8192}, {"SMS", examples::kGemm90DefaultSms}});
}
