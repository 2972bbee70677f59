#include "ptxpp/dsl/operand.hpp"

#include <bit>
#include <cmath>

#include "ptxpp/dsl/label.hpp"
#include "ptxpp/dsl/reg.hpp"
#include "trace.hpp"

namespace ptx {

using dsl::Trace;

Operand::Operand(const Reg& r) {
  Trace& t = Trace::current({});
  t.check_reg(r, {});
  kind = r.type() == DType::pred ? OperandKind::Pred : OperandKind::Reg;
  type = r.type();
  expr = r.expr();
  reg = r.id();
}

Operand::Operand(const Label& l) {
  Trace& t = Trace::current(l.where());
  kind = OperandKind::Label;
  expr = t.use_label(l.id(), l.where());
}

Operand Operand::make_int(int64_t v, bool negative) {
  Trace& t = Trace::current({});
  if (negative)
    return Operand(OperandKind::Imm, DType::s64, t.m.add_unary(ir::Op::Neg, t.small_int(0 - static_cast<uint64_t>(v))));
  return Operand(OperandKind::Imm, DType::u64, t.small_int(static_cast<uint64_t>(v)));
}

Operand::Operand(float v) {
  ir::Module& m = Trace::current({}).m;
  kind = OperandKind::Imm;
  type = DType::f32;
  expr = m.add_f32(v);
}

Operand::Operand(double v) {
  ir::Module& m = Trace::current({}).m;
  kind = OperandKind::Imm;
  type = DType::f64;
  expr = m.add_f64(v);
}

Operand to_operand(Sink) {
  return Operand(OperandKind::Sink, DType::none, Trace::current({}).m.add_name("_"));
}

Operand imm(DType type, uint64_t bits) {
  ir::Module& m = Trace::current({}).m;
  if (type == DType::f32) return Operand(OperandKind::Imm, type, m.add_f32(std::bit_cast<float>(static_cast<uint32_t>(bits))));
  if (type == DType::f64) return Operand(OperandKind::Imm, type, m.add_f64(std::bit_cast<double>(bits)));
  return Operand(OperandKind::Imm, type, m.add_int(bits, ir::Notation::Hex));
}

namespace {
ir::ExprId with_offset(ir::Module& m, ir::ExprId base, int64_t offset, bool keep_zero = false) {
  if (offset == 0 && !keep_zero) return base;
  if (offset >= 0) return m.add_binary(ir::Op::Add, base, Trace::current({}).small_int(static_cast<uint64_t>(offset)));
  return m.add_binary(ir::Op::Add, base, m.add_unary(ir::Op::Neg, m.add_int(0 - static_cast<uint64_t>(offset))));
}
}  // namespace

namespace {
Operand reg_address(const Reg& base, int64_t offset, bool keep_zero) {
  Trace& t = Trace::current({});
  t.check_reg(base, {});
  if (base.type() == DType::pred || (bits(base.type()) != 32 && bits(base.type()) != 64))
    throw Error("an address register must be 32 or 64 bits wide", {});
  ir::Module& m = t.m;
  return Operand(OperandKind::Addr, base.type(),
                 m.add_list(ir::Delim::Bracket, {with_offset(m, base.expr(), offset, keep_zero)}));
}

Operand symbol_address(std::string_view symbol, int64_t offset, bool keep_zero) {
  ir::Module& m = Trace::current({}).m;
  return Operand(OperandKind::Addr, DType::none,
                 m.add_list(ir::Delim::Bracket, {with_offset(m, m.add_name(symbol), offset, keep_zero)}));
}
}  // namespace

Operand addr(const Reg& base, int64_t offset) { return reg_address(base, offset, false); }
Operand addr(std::string_view symbol, int64_t offset) { return symbol_address(symbol, offset, false); }
Operand addr(const Reg& base, Offset offset) { return reg_address(base, offset.bytes, true); }
Operand addr(std::string_view symbol, Offset offset) { return symbol_address(symbol, offset.bytes, true); }

Operand pair(const Reg& d, const Reg& p) {
  Trace& t = Trace::current({});
  t.check_reg(d, {});
  t.check_reg(p, {});
  if (p.type() != DType::pred) throw Error("the second register of a pair d|p must be a predicate", {});
  return Operand(OperandKind::Pred, d.type(), t.m.add_binary(ir::Op::BitOr, d.expr(), p.expr()), 0, d.id());
}

Operand args(std::initializer_list<std::string_view> names) {
  return args(std::span<const std::string_view>(names.begin(), names.size()));
}

Operand args(std::span<const std::string_view> names) {
  ir::Module& m = Trace::current({}).m;
  std::vector<ir::ExprId> items;
  for (std::string_view n : names) items.push_back(m.add_name(n));
  return Operand(OperandKind::Args, DType::none, m.add_list(ir::Delim::Paren, items));
}

Operand symbol(std::string_view name) {
  return Operand(OperandKind::Symbol, DType::none, Trace::current({}).m.add_name(name));
}

Operand vec(const std::vector<Operand>& elems) { return vec(std::span<const Operand>(elems)); }

Operand vec(std::span<const Operand> elems) {
  ir::Module& m = Trace::current({}).m;
  if (elems.empty() || elems.size() > 255) throw Error("a vector operand has 1 to 255 elements", {});
  std::vector<ir::ExprId> ids;
  ids.reserve(elems.size());
  DType t = DType::none;
  for (const Operand& e : elems) {
    ids.push_back(e.expr);
    if (t == DType::none && e.kind != OperandKind::Sink) t = e.type;
  }
  return Operand(OperandKind::Vec, t, m.add_list(ir::Delim::Brace, ids), static_cast<uint8_t>(elems.size()));
}

namespace dsl {
uint32_t running_trace_id() {
  const Trace* t = Trace::running();
  return t ? t->serial : 0;
}
}  // namespace dsl

}  // namespace ptx
