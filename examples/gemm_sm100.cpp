// The bf16 TMA + tcgen05 GEMM example (examples/kernels/gemm_sm100.hpp): prints its PTX with --ptx.
//   --cta-group 2: the 2-SM variant (clusters of two CTAs, tcgen05.mma.cta_group::2); --bf16-out: C in bf16;
//   --grouped: the grouped GEMM (dims G groups, T tiles in all).
#include "kernels/gemm_sm100.hpp"
#include "example_main.hpp"
#include "kernels/gemm_sm100_grouped.hpp"

int main(int argc, char** argv) {
  int cta_group = 1;
  bool bf16_out = false, grouped = false;
  return examples::example_main(
      argc, argv,
      {.what = "gemm_sm100: a bf16 TMA + tcgen05 GEMM for sm_100a (ptxpp DSL example)",
       .default_arch = "sm_100a",
       .add_options =
           [&](CLI::App& app) {
             app.add_option("--cta-group", cta_group, "1, or 2 for the 2-SM variant (clusters of two CTAs)")
                 ->check(CLI::IsMember({1, 2}))
                 ->capture_default_str();
             app.add_flag("--bf16-out", bf16_out, "C in bf16 (else f32)");
             app.add_flag("--grouped", grouped, "the grouped GEMM (dims G groups, T tiles in all)");
           },
       .make =
           [&](const std::string& arch) {
             if (grouped) return examples::gemm_sm100_grouped(arch);
             return examples::gemm_sm100(arch, cta_group, bf16_out ? ptx::DType::bf16 : ptx::DType::f32);
           },
       .dims = [&]() -> ptx::Bindings {
         if (grouped) return {{"G", 4}, {"T", 256}};
         return {{"M", 8192}, {"N", 8192}, {"K", 8192}};
       }});
}
