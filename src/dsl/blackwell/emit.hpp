// Shared by the Blackwell helpers: emitting one instruction with an optional predicate guard,
// and the register checks they all make.
#pragma once

#include <span>
#include <string_view>

#include "ptxpp/dsl/runtime_chain.hpp"
#include "ptxpp/dsl/blackwell/cta_group.hpp"
#include "ptxpp/dsl/operand.hpp"
#include "ptxpp/dsl/reg.hpp"
#include "ptxpp/dsl/source_location.hpp"

namespace ptx::blackwell::detail {

// Emits `mnemonic ops;` (`@guard mnemonic ops;` with a predicate guard); the mnemonic is a chain
// of ptx::inst continued at run time (ptxpp/dsl/runtime_chain.hpp) ...
void emit(const dsl::RuntimeChain& mnemonic, std::span<const Operand> ops, const Reg* guard, ptx::SourceLocation where);
// ... or a complete one, checked when the library is compiled.
template <class C>
void emit(const dsl::detail::Complete<C>& mnemonic, std::span<const Operand> ops, const Reg* guard, ptx::SourceLocation where) {
  emit(dsl::RuntimeChain(mnemonic), ops, guard, where);
}
// ptxas refuses a function that uses both .cta_group::1 and .cta_group::2: the first tcgen05
// helper with a CTA group fixes it for the trace; another is an error at the call's line.
void note_cta_group(CtaGroup g, ptx::SourceLocation where);
// An error unless r belongs to this trace and is an integer register of `width` bits.
void check_int_reg(const Reg& r, int width, std::string_view what, ptx::SourceLocation where);
// An error unless r belongs to this trace and is a predicate.
void check_pred(const Reg& r, std::string_view what, ptx::SourceLocation where);

}  // namespace ptx::blackwell::detail
