// Compiled by the dsl.compile_fail tests: with -DPTXPP_LEGAL it must compile,
// with each -DPTXPP_CASE=N it must not (an illegal modifier chain).
#include <ptxpp/dsl.hpp>

void f(ptx::Reg& a, ptx::Reg& b) {
#if defined(PTXPP_LEGAL)
  ptx::inst::ld.global.f32(a, ptx::addr(b));
  ptx::inst::add.s32(a, a, b);
  ptx::inst::and_.b32(a, a, b);
  ptx::dsl::RuntimeChain(ptx::inst::ldmatrix.sync.aligned.m8n8).then(".x4.shared.b16")(ptx::vec(a, b), ptx::addr(b));
#elif PTXPP_CASE == 1
  ptx::inst::ld.f32.global(a, ptx::addr(b));  // modifiers out of the manual's order
#elif PTXPP_CASE == 2
  ptx::inst::add.f33(a, a, b);  // no such type
#elif PTXPP_CASE == 3
  ptx::inst::ld.global(a, ptx::addr(b));  // incomplete: no type
#elif PTXPP_CASE == 4
  ptx::inst::mma.sync.aligned.m16n8k16.row.row.f32.bf16.bf16.f32(a, a, b, b);  // bf16 mma is .row.col only
#elif PTXPP_CASE == 5
  // a helper's fixed part, misspelled: .m8n9 (the run-time modifiers are checked when added)
  ptx::dsl::RuntimeChain(ptx::inst::ldmatrix.sync.aligned.m8n9).then(".x4.shared.b16")(ptx::vec(a, b), ptx::addr(b));
#endif
}
