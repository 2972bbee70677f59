// The grouped (MoE) bf16 GEMM example (examples/kernels/gemm_sm90_grouped.hpp) for 8 experts of
// N = 4096, K = 7168: prints its PTX with --ptx.
//   --contiguous: the variant whose group sizes are read on the device
//   (examples/kernels/gemm_sm90_grouped_contiguous.hpp; dims M routed tokens, SMS).
#include "kernels/gemm_sm90_grouped.hpp"
#include "example_main.hpp"
#include "kernels/gemm_sm90_grouped_contiguous.hpp"

int main(int argc, char** argv) {
  bool contiguous = false;
  return examples::example_main(
      argc, argv,
      {.what = "gemm_sm90_grouped: a grouped (MoE) bf16 TMA + wgmma GEMM (ptxpp DSL example)",
       .default_arch = "sm_90a",
       .add_options =
           [&](CLI::App& app) {
             app.add_flag("--contiguous", contiguous,
                          "the variant whose group sizes are read on the device (dims M routed tokens, SMS)");
           },
       .make =
           [&](const std::string& arch) {
             if (contiguous) return examples::gemm_sm90_grouped_contiguous(arch, 8, 4096, 7168);
             return examples::gemm_sm90_grouped(arch, 4096, 7168);
           },
       .dims = [&]() -> ptx::Bindings {
         if (contiguous) return {{"M", 8192}, {"SMS", examples::kGemm90DefaultSms}};
         return {{"G", 8}, {"SMS", examples::kGemm90DefaultSms}};
       }});
}
