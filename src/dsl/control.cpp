#include "ptxpp/dsl/control.hpp"

#include <fmt/format.h>

#include "ptxpp/dsl/inst.hpp"
#include "ptxpp/dsl/special.hpp"
#include "ptxpp/ir/queries.hpp"
#include "ptxpp/text/parser.hpp"
#include "trace.hpp"

namespace ptx {

using dsl::Trace;

namespace {
// mn: a chain of ptx::inst, complete or continued at run time (ptxpp/dsl/runtime_chain.hpp)
template <class Mnemonic>
void emit(const Mnemonic& mn, std::initializer_list<Operand> ops, ptx::SourceLocation where,
          const Operand* guard = nullptr) {
  Trace::current(where).emit(mn, std::span<const Operand>(ops.begin(), ops.size()), where, guard);
}
Operand guard_of(const Reg& p, bool negated, ptx::SourceLocation where) {
  Trace& t = Trace::current(where);
  t.check_reg(p, where);
  if (p.type() != DType::pred) throw Error(fmt::format("a branch condition must be a predicate, not {}", name(p.type())), where);
  ir::ExprId e = p.expr();
  if (negated) e = t.m.add_unary(ir::Op::Not, e);
  return Operand(negated ? OperandKind::NegPred : OperandKind::Pred, DType::pred, e, 0, p.id());
}
}  // namespace

void bra(const Label& target, ptx::SourceLocation where) { emit(inst::bra.uni, {Operand(target)}, where); }
void bra_if(const Reg& p, const Label& target, ptx::SourceLocation where) {
  const Operand g = guard_of(p, false, where);
  emit(inst::bra, {Operand(target)}, where, &g);
}
void bra_unless(const Reg& p, const Label& target, ptx::SourceLocation where) {
  const Operand g = guard_of(p, true, where);
  emit(inst::bra, {Operand(target)}, where, &g);
}
void ret(ptx::SourceLocation where) { emit(inst::ret, {}, where); }
void exit(ptx::SourceLocation where) { emit(inst::exit, {}, where); }

void if_(const Reg& p, const std::function<void()>& then, ptx::SourceLocation where) {
  Label end("endif", where);
  bra_unless(p, end, where);
  then();
  place(end, where);
}

void if_(const Reg& p, const std::function<void()>& then, const std::function<void()>& els, ptx::SourceLocation where) {
  Label other("else", where), end("endif", where);
  bra_unless(p, other, where);
  then();
  bra(end, where);
  place(other, where);
  els();
  place(end, where);
}

void loop(const Operand& begin, const Operand& end, int64_t step, const std::function<void(const Reg& i)>& body,
          ptx::SourceLocation where) {
  Trace& t = Trace::current(where);
  if (step <= 0) throw Error("ptx::loop counts up: step must be positive", where);
  const DType ty = end.kind == OperandKind::Reg ? end.type : DType::u32;
  if (!is_integer(ty)) throw Error(fmt::format("ptx::loop needs an integer bound, not {}", name(ty)), where);
  Reg i = t.new_reg(ty, {}, where);
  i = begin;
  Label top("loop", where), done("loop_end", where);
  Reg p = t.new_reg(DType::pred, {}, where);
  emit(dsl::RuntimeChain(inst::setp.ge).then(name(integer_like(ty)), where), {Operand(p), Operand(i), end}, where);
  bra_if(p, done, where);
  place(top, where);
  body(i);
  emit(dsl::RuntimeChain(inst::add).then(name(integer_like(ty)), where), {Operand(i), Operand(i), Operand(step)}, where);
  emit(dsl::RuntimeChain(inst::setp.lt).then(name(integer_like(ty)), where), {Operand(p), Operand(i), end}, where);
  bra_if(p, top, where);
  place(done, where);
}

void while_(const std::function<Reg()>& cond, const std::function<void()>& body, ptx::SourceLocation where) {
  Label top("while", where), done("while_end", where);
  place(top, where);
  Reg p = cond();
  bra_unless(p, done, where);
  body();
  bra(top, where);
  place(done, where);
}

Reg read(const Operand& src, DType type, ptx::SourceLocation where) {
  Trace& t = Trace::current(where);
  Reg r = t.new_reg(type, {}, where);
  const Operand ops[] = {Operand(r), src};
  t.emit_key(dsl::mov_key(type, where), ops, where);
  return r;
}

Reg read(const Operand& src, ptx::SourceLocation where) {
  if (src.type == DType::none) throw Error("ptx::read: give the type of this operand", where);
  return read(src, src.type, where);
}

namespace {

// Copies a parsed expression into the trace's module and says what kind of operand it is.
ir::ExprId import_expr(const ir::Module& from, ir::ExprId id, ir::Module& to) {
  const ir::Expr& e = from.expr(id);
  ir::Expr c = e;
  c.lead = {};
  c.close = {};
  c.loc = 0;
  switch (e.kind) {
    case ir::ExprKind::Name:
    case ir::ExprKind::String:
      c.a = to.intern(from.text(ir::Symbol{e.a})).id;
      if (e.kind == ir::ExprKind::Name && e.b) c.b = to.intern(from.text(ir::Symbol{e.b})).id;
      break;
    case ir::ExprKind::Int:
    case ir::ExprKind::Float:
      if (e.sub == static_cast<uint8_t>(ir::Notation::Spelled)) c.aux = to.intern(from.text(ir::Symbol{e.aux})).id;
      break;
    case ir::ExprKind::Unary: c.a = import_expr(from, ir::ExprId{e.a}, to).v; break;
    case ir::ExprKind::Binary:
    case ir::ExprKind::Apply:
      c.a = import_expr(from, ir::ExprId{e.a}, to).v;
      c.b = import_expr(from, ir::ExprId{e.b}, to).v;
      break;
    case ir::ExprKind::Suffixed:
      c.a = import_expr(from, ir::ExprId{e.a}, to).v;
      c.b = to.intern(from.text(ir::Symbol{e.b})).id;
      break;
    case ir::ExprKind::Ternary:
      c.a = import_expr(from, ir::ExprId{e.a}, to).v;
      c.b = import_expr(from, ir::ExprId{e.b}, to).v;
      c.aux = import_expr(from, ir::ExprId{e.aux}, to).v;
      break;
    case ir::ExprKind::List: {
      std::vector<ir::ExprId> elems;
      for (uint32_t i = 0; i < e.b; ++i) elems.push_back(import_expr(from, ir::ExprId{from.items[e.a + i].node}, to));
      return to.add_list(static_cast<ir::Delim>(e.sub), elems);
    }
  }
  return to.add_expr(c);
}

}  // namespace

Operand dsl::import_operand(const ir::Module& from, ir::ExprId id, ir::Module& to) {
  const ir::Expr& e = from.expr(id);
  const ir::ExprId c = import_expr(from, id, to);
  switch (e.kind) {
    case ir::ExprKind::Name: {
      const std::string_view n = from.text(ir::Symbol{e.a});
      if (n == "_") return Operand(OperandKind::Sink, DType::none, c);
      if (!n.empty() && n[0] == '%') {
        if (const spec::SpecialRegister* r = spec::find_special_register(n))
          return Operand(OperandKind::Special, DType::none, c, 0, static_cast<uint32_t>(r - spec::special_registers().data()));
        return Operand(OperandKind::Reg, DType::none, c, 0, 0);  // type unknown: any register kind
      }
      return Operand(OperandKind::Symbol, DType::none, c);
    }
    case ir::ExprKind::Int: return Operand(OperandKind::Imm, DType::u64, c);
    case ir::ExprKind::Float: return Operand(OperandKind::Imm, e.sub == static_cast<uint8_t>(ir::Notation::F32Hex) ? DType::f32 : DType::f64, c);
    case ir::ExprKind::Unary:
      if (e.sub == static_cast<uint8_t>(ir::Op::Not)) return Operand(OperandKind::NegPred, DType::pred, c, 0, 0);
      return Operand(OperandKind::Imm, from.expr(ir::ExprId{e.a}).kind == ir::ExprKind::Float ? DType::f64 : DType::s64, c);
    case ir::ExprKind::Binary: {
      if (e.sub == static_cast<uint8_t>(ir::Op::BitOr)) return Operand(OperandKind::Pred, DType::pred, c, 0, 0);
      // %r2+1: a register plus a constant, which ptxas folds
      const ir::Expr& left = from.expr(ir::ExprId{e.a});
      if (e.sub == static_cast<uint8_t>(ir::Op::Add) && left.kind == ir::ExprKind::Name &&
          from.text(ir::Symbol{left.a}).starts_with('%') && !spec::find_special_register(from.text(ir::Symbol{left.a})))
        return Operand(OperandKind::Reg, DType::none, c, 0, 0);
      return Operand(OperandKind::Imm, DType::s64, c);
    }
    case ir::ExprKind::List:
      if (e.sub == static_cast<uint8_t>(ir::Delim::Brace)) return Operand(OperandKind::Vec, DType::none, c, static_cast<uint8_t>(e.b));
      if (e.sub == static_cast<uint8_t>(ir::Delim::Bracket)) return Operand(OperandKind::Addr, DType::none, c);
      // ((128 >> 4) << 16): a parenthesized constant expression; (a, b): a call's argument list
      if (e.b == 1 && ir::eval_int(from, id)) return Operand(OperandKind::Imm, DType::s64, c);
      return Operand(OperandKind::Args, DType::none, c);
    case ir::ExprKind::Suffixed: return Operand(OperandKind::Addr, DType::none, c);
    default: return Operand(OperandKind::Imm, DType::s64, c);
  }
}

void asm_(std::string_view text, ptx::SourceLocation where) {
  Trace& t = Trace::current(where);
  std::string src = ".version 9.0\n.target sm_100a\n.address_size 64\n.entry _asm_()\n{\n";
  src += text;
  src += "\n}\n";
  auto parsed = text::parse(src, {"<asm>"});
  if (!parsed) throw Error(fmt::format("ptx::asm_: {}", parsed.error().message), where);
  const ir::Module& pm = parsed.module();
  if (pm.instructions.size() != 1 || pm.labels.size() != 0 || pm.decls.size() != 0)
    throw Error("ptx::asm_ takes exactly one instruction", where);
  const ir::Instruction& in = pm.instructions[0];
  std::vector<Operand> ops;
  for (const ir::ListItem& it : pm.operands_of(in)) ops.push_back(dsl::import_operand(pm, ir::ExprId{it.node}, t.m));
  std::optional<Operand> guard;
  if (in.guard) guard = dsl::import_operand(pm, in.guard, t.m);
  t.emit_text(pm.mnemonic(in), ops, where, guard ? &*guard : nullptr);
}

}  // namespace ptx

namespace ptx::dsl::detail {

Operand special_operand(std::string_view name, std::string_view component, DType type, ptx::SourceLocation where) {
  Trace& t = Trace::current(where);
  // the register's requirements are checked where an instruction uses it (Trace::emit)
  uint32_t index = 0xFFFFFFFFu;
  if (const spec::SpecialRegister* r = spec::find_special_register(name))
    index = static_cast<uint32_t>(r - spec::special_registers().data());
  return Operand(OperandKind::Special, type, t.m.add_name(name, component), 0, index);
}

}  // namespace ptx::dsl::detail

namespace ptx::special {
Operand Numbered::operator()(uint32_t n, ptx::SourceLocation w) const {
  if (n >= count) throw Error(fmt::format("{}{}: the ISA has {}0..{}{}", name, n, name, name, count - 1), w);
  Trace& t = Trace::current(w);
  const std::string full = fmt::format("{}{}", name, n);
  const Operand o = dsl::detail::special_operand(name, {}, type, w);
  return Operand(OperandKind::Special, type, t.m.add_name(full), 0, o.reg);  // o.reg: the family's table entry
}
}  // namespace ptx::special
