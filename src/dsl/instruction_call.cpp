#include "ptxpp/dsl/instruction_call.hpp"

#include <string>

#include <fmt/format.h>

#include "ptxpp/dsl/inst.hpp"
#include "trace.hpp"

namespace ptx::dsl::detail {

uint32_t chain_key(std::span<const uint16_t> tokens) {
  std::string text;
  for (uint16_t t : tokens) text += kTokens[t];
  return mnemonic_key(text);
}

std::string_view key_text(uint32_t key) { return mnemonic_info(key).text; }

void emit_call(uint32_t key, std::span<const Operand> ops, ptx::SourceLocation where, const Operand* guard) {
  Trace::current(where).emit(key, ops, where, guard);
}

Operand guard_operand(const Reg& p, bool negated) {
  Trace& t = Trace::current({});
  t.check_reg(p, {});
  if (p.type() != DType::pred) throw Error(fmt::format("a guard must be a predicate, not a {} register", name(p.type())), {});
  ir::ExprId e = p.expr();
  if (negated) e = t.m.add_unary(ir::Op::Not, e);
  return Operand(negated ? OperandKind::NegPred : OperandKind::Pred, DType::pred, e, 0, p.id());
}

}  // namespace ptx::dsl::detail

namespace ptx {
// `!p` as an operand (setp's second destination, selp, ...): no instruction.
Operand to_operand(NotPred p) { return dsl::detail::guard_operand(*p.p, true); }
}  // namespace ptx
