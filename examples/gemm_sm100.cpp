// The bf16 TMA + tcgen05 GEMM example (examples/kernels/gemm_sm100.hpp): prints its PTX with --ptx.
//   --cta-group=2: the 2-SM variant (clusters of two CTAs, tcgen05.mma.cta_group::2); --bf16-out: C in bf16;
//   --grouped: the grouped GEMM (dims G groups, T tiles in all).
#include "example_main.hpp"
#include "kernels/gemm_sm100.hpp"
#include "kernels/gemm_sm100_grouped.hpp"

int main(int argc, char** argv) {
  // example_main owns the command line; these two flags are read (and removed) first
  int cta_group = 1;
  ptx::DType out = ptx::DType::f32;
  bool grouped = false;
  std::vector<char*> rest;
  for (int i = 0; i < argc; ++i) {
    const std::string a = argv[i];
    if (a == "--cta-group=2") cta_group = 2;
    else if (a == "--bf16-out") out = ptx::DType::bf16;
    else if (a == "--grouped") grouped = true;
    else rest.push_back(argv[i]);
  }
  if (grouped)
    return examples::example_main(static_cast<int>(rest.size()), rest.data(), "gemm_sm100_grouped: a grouped bf16 tcgen05 GEMM",
                                  [](const std::string& arch) { return examples::gemm_sm100_grouped(arch); },
                                  {{"G", 4}, {"T", 256}});
  return examples::example_main(static_cast<int>(rest.size()), rest.data(),
                                "gemm_sm100: a bf16 TMA + tcgen05 GEMM (ptxpp DSL example); --cta-group=2, --bf16-out, --grouped",
                                [&](const std::string& arch) { return examples::gemm_sm100(arch, cta_group, out); },
                                {{"M", 8192}, {"N", 8192}, {"K", 8192}});
}
