#include "emit.hpp"

#include <fmt/format.h>

#include "../trace.hpp"
#include "ptxpp/dsl/error.hpp"
#include "ptxpp/dsl/instruction_call.hpp"

namespace ptx::blackwell::detail {

using dsl::Trace;

void emit(const dsl::RuntimeChain& mnemonic, std::span<const Operand> ops, const Reg* guard, ptx::SourceLocation where) {
  Trace& t = Trace::current(where);
  if (!guard) {
    t.emit(mnemonic, ops, where);
    return;
  }
  check_pred(*guard, mnemonic.text(), where);
  const Operand g = dsl::detail::guard_operand(*guard, false);
  t.emit(mnemonic, ops, where, &g);
}

void note_cta_group(CtaGroup g, ptx::SourceLocation where) {
  // the trace's serial and its group; traces are per thread (a nested trace only overwrites it)
  thread_local uint32_t serial = 0;
  thread_local CtaGroup group = CtaGroup::One;
  thread_local bool known = false;
  const Trace& t = Trace::current(where);
  if (known && serial == t.serial && group != g)
    throw Error(fmt::format("tcgen05: this kernel already uses {}; ptxas refuses a function that mixes .cta_group::1 and "
                            ".cta_group::2",
                            cta_group_modifier(group)),
                where);
  serial = t.serial;
  group = g;
  known = true;
}

void check_int_reg(const Reg& r, int width, std::string_view what, ptx::SourceLocation where) {
  Trace::current(where).check_reg(r, where);
  if (bits(r.type()) != width || is_float(r.type()) || r.type() == DType::pred)
    throw Error(fmt::format("{} is a {}-bit integer register, not {}", what, width, name(r.type())), where);
}

void check_pred(const Reg& r, std::string_view what, ptx::SourceLocation where) {
  Trace::current(where).check_reg(r, where);
  if (r.type() != DType::pred) throw Error(fmt::format("{}: a predicate register is needed here", what), where);
}

}  // namespace ptx::blackwell::detail
