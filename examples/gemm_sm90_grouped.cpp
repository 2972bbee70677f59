// The grouped (MoE) bf16 GEMM example (examples/kernels/gemm_sm90_grouped.hpp) for 8 experts of
// N = 4096, K = 7168: prints its PTX with --ptx.
//   --contiguous: the variant whose group sizes are read on the device
//   (examples/kernels/gemm_sm90_grouped_contiguous.hpp; dims M routed tokens, SMS).
#include "example_main.hpp"
#include "kernels/gemm_sm90_grouped.hpp"
#include "kernels/gemm_sm90_grouped_contiguous.hpp"

int main(int argc, char** argv) {
  // example_main owns the command line; --contiguous is read (and removed) first
  bool contiguous = false;
  std::vector<char*> rest;
  for (int i = 0; i < argc; ++i) {
    if (std::string(argv[i]) == "--contiguous") contiguous = true;
    else rest.push_back(argv[i]);
  }
  if (contiguous)
    return examples::example_main(static_cast<int>(rest.size()), rest.data(),
                                  "gemm_sm90_grouped_contiguous: a grouped (MoE) bf16 GEMM, group sizes on the device",
                                  [](const std::string& arch) { return examples::gemm_sm90_grouped_contiguous(arch, 8, 4096, 7168); },
                                  {{"M", 8192}, {"SMS", examples::kGemm90DefaultSms}});
  return examples::example_main(static_cast<int>(rest.size()), rest.data(),
                                "gemm_sm90_grouped: a grouped (MoE) bf16 TMA + wgmma GEMM (ptxpp DSL example); --contiguous",
                                [](const std::string& arch) { return examples::gemm_sm90_grouped(arch, 4096, 7168); },
                                {{"G", 8}, {"SMS", examples::kGemm90DefaultSms}});
}
