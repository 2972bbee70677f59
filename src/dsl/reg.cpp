// Registers and the operators: one instruction per operator (docs in reg.hpp).
#include "ptxpp/dsl/reg.hpp"

#include <array>
#include <atomic>
#include <cmath>

#include <fmt/format.h>

#include "ptxpp/dsl/inst.hpp"
#include "ptxpp/dsl/label.hpp"
#include "trace.hpp"

namespace ptx {

using dsl::Trace;

namespace {

// The type suffix of an arithmetic instruction on values of type t (.b32 registers do unsigned arithmetic).
std::string_view arith_type(DType t) {
  switch (t) {
    case DType::b8: return ".u8";
    case DType::b16: return ".u16";
    case DType::b32: return ".u32";
    case DType::b64: return ".u64";
    default: return name(t);
  }
}
std::string_view bits_type(DType t) {
  switch (bits(t)) {
    case 1: return ".pred";
    case 8: return ".b8";
    case 16: return ".b16";
    case 32: return ".b32";
    case 64: return ".b64";
    default: return ".b128";
  }
}

std::string_view op_symbol(BinOp op) {
  static constexpr std::string_view kSym[] = {"+", "-", "*", "/", "%", "<<", ">>", "&", "|", "^", "<", "<=", ">", ">=", "==", "!="};
  return kSym[static_cast<size_t>(op)];
}

bool is_compare(BinOp op) { return op >= BinOp::Lt; }

// The mnemonic of `a op b` for values of type t.
dsl::RuntimeChain mnemonic(BinOp op, DType t, ptx::SourceLocation where) {
  using dsl::RuntimeChain;
  const bool f = is_float(t);
  const bool p = t == DType::pred;
  auto fail = [&]() -> RuntimeChain {
    throw Error(fmt::format("operator {} is not defined for {} registers", op_symbol(op), name(t)), where);
  };
  if (p && op != BinOp::And && op != BinOp::Or && op != BinOp::Xor) fail();
  if (t == DType::b128 || t == DType::tf32 || t == DType::e4m3 || t == DType::e5m2) fail();
  const std::string_view at = arith_type(t);
  switch (op) {
    case BinOp::Add: return (f ? RuntimeChain(inst::add.rn) : RuntimeChain(inst::add)).then(at, where);
    case BinOp::Sub: return (f ? RuntimeChain(inst::sub.rn) : RuntimeChain(inst::sub)).then(at, where);
    case BinOp::Mul: return (f ? RuntimeChain(inst::mul.rn) : RuntimeChain(inst::mul.lo)).then(at, where);
    case BinOp::Div:
      if (f && (t == DType::f32 || t == DType::f64)) return RuntimeChain(inst::div.rn).then(at, where);
      if (f) fail();
      return RuntimeChain(inst::div).then(at, where);
    case BinOp::Rem: return f ? fail() : RuntimeChain(inst::rem).then(at, where);
    case BinOp::Shl: return f ? fail() : RuntimeChain(inst::shl).then(bits_type(t), where);
    case BinOp::Shr: return f ? fail() : RuntimeChain(inst::shr).then(at, where);
    case BinOp::And: return f ? fail() : RuntimeChain(inst::and_).then(bits_type(t), where);
    case BinOp::Or: return f ? fail() : RuntimeChain(inst::or_).then(bits_type(t), where);
    case BinOp::Xor: return f ? fail() : RuntimeChain(inst::xor_).then(bits_type(t), where);
    case BinOp::Lt: return RuntimeChain(inst::setp.lt).then(at, where);
    case BinOp::Le: return RuntimeChain(inst::setp.le).then(at, where);
    case BinOp::Gt: return RuntimeChain(inst::setp.gt).then(at, where);
    case BinOp::Ge: return RuntimeChain(inst::setp.ge).then(at, where);
    case BinOp::Eq: return RuntimeChain(inst::setp.eq).then(at, where);
    case BinOp::Ne: return RuntimeChain(inst::setp.ne).then(at, where);
  }
  return fail();
}

// The registry key of `op` on values of type t, built once per process (no string
// formatting on the hot path); throws like mnemonic() for undefined combinations.
uint32_t mnemonic_key(BinOp op, DType t, ptx::SourceLocation where) {
  constexpr size_t kOps = static_cast<size_t>(BinOp::Ne) + 1, kTypes = static_cast<size_t>(DType::none) + 1;
  static std::array<std::atomic<uint32_t>, kOps * kTypes> keys{};  // 0: not yet known (keys are +1)
  std::atomic<uint32_t>& slot = keys[static_cast<size_t>(op) * kTypes + static_cast<size_t>(t)];
  uint32_t k = slot.load(std::memory_order_acquire);
  if (k == 0) {
    k = dsl::detail::mnemonic_key(mnemonic(op, t, where), where) + 1;
    slot.store(k, std::memory_order_release);
  }
  return k - 1;
}

// The right-hand operand, made to fit values of type t: C++ integers become float
// immediates for float registers (exactly, or an error); register types must agree.
Operand fit_operand(const Operand& b, DType t, BinOp op, ptx::SourceLocation where) {
  Trace& tr = Trace::current(where);
  if (b.kind == OperandKind::Imm) {
    if (op == BinOp::Shl || op == BinOp::Shr) return b;
    const ir::Expr& e = tr.m.expr(b.expr);
    if (is_float(t) && !is_float(b.type)) {
      const bool neg = e.kind == ir::ExprKind::Unary;
      const uint64_t mag = neg ? tr.m.expr(ir::ExprId{e.a}).value : e.value;
      const double v = neg ? -static_cast<double>(mag) : static_cast<double>(mag);
      if (static_cast<uint64_t>(std::fabs(v)) != mag || (t != DType::f64 && static_cast<double>(static_cast<float>(v)) != v))
        throw Error(fmt::format("the integer {} has no exact {} value", v, name(t)), where);
      if (t == DType::f32) return Operand(static_cast<float>(v));
      if (t == DType::f64) return Operand(v);
      throw Error(fmt::format("{} registers take no immediates here; use a register", name(t)), where);
    }
    if (is_float(t) && b.type == DType::f64 && t == DType::f32) {
      const double v = std::bit_cast<double>(e.value);
      if (static_cast<double>(static_cast<float>(v)) != v && !std::isnan(v))
        throw Error(fmt::format("the double {} has no exact .f32 value; write it as a float", v), where);
      return Operand(static_cast<float>(v));
    }
    if (!is_float(t) && is_float(b.type))
      throw Error(fmt::format("a floating-point immediate with a {} register", name(t)), where);
    return b;
  }
  if (b.kind == OperandKind::Reg || b.kind == OperandKind::Pred) {
    if (op == BinOp::Shl || op == BinOp::Shr) {
      if (!is_integer(b.type) || bits(b.type) != 32)
        throw Error(fmt::format("a shift amount register must be 32-bit, not {}", name(b.type)), where);
      return b;
    }
    if (b.type == t) return b;
    if (is_integer(b.type) && is_integer(t) && bits(b.type) == bits(t)) return b;
    throw Error(fmt::format("operator {}: operand types differ ({} and {}); convert one with ptx::inst::cvt",
                            op_symbol(op), name(t), name(b.type)),
                where);
  }
  if (b.kind == OperandKind::Special) return b;
  throw Error(fmt::format("operator {} takes a register or an immediate, not {}", op_symbol(op), dsl::describe(b)), where);
}

void check(const Reg& a, ptx::SourceLocation where) { Trace::current(where).check_reg(a, where); }

}  // namespace

Reg::Reg(DType t, std::string_view name, ptx::SourceLocation where) {
  *this = Trace::current(where).new_reg(t, name, where);
}

Reg::Reg(const Reg& other) {
  if (!other.valid()) return;
  Trace& t = Trace::current({});
  t.check_reg(other, {});
  Reg fresh = t.new_reg(other.type(), {}, {});
  fresh = static_cast<const Reg&>(other);  // mov
  *this = std::move(fresh);
}

Reg& Reg::operator=(const Reg& src) {
  if (this == &src) return *this;
  if (!valid()) {  // an empty handle takes a fresh register first
    Trace& t = Trace::current({});
    t.check_reg(src, {});
    *this = t.new_reg(src.type(), {}, {});
  }
  Trace& t = Trace::current({});
  t.check_reg(src, {});
  if (bits(src.type()) != bits(type_) || (src.type() == DType::pred) != (type_ == DType::pred))
    throw Error(fmt::format("assigning a {} register to a {} register; convert with ptx::inst::cvt", name(src.type()), name(type_)), {});
  const Operand ops[] = {Operand(*this), Operand(src)};
  t.emit_key(dsl::mov_key(type_, {}), ops, {});
  return *this;
}

Reg& Reg::operator=(Reg&& src) {
  if (this == &src) return *this;
  if (!valid()) {
    id_ = src.id_;
    type_ = src.type_;
    expr_ = src.expr_;
    trace_ = src.trace_;
    src.id_ = kInvalid;
    return *this;
  }
  Trace& t = Trace::current({});
  t.check_reg(src, {});
  t.check_reg(*this, {});
  // The rename rule: the value was just computed into src; compute it into this register instead.
  if (t.last_dest == src.id_ && t.last_instruction != 0xFFFFFFFFu && facts(src.type_).decl == facts(type_).decl) {
    ir::Instruction& in = t.m.instructions[t.last_instruction];
    t.m.items[in.operands.first].node = expr_.v;
    t.last_dest = id_;
    src.id_ = kInvalid;
    return *this;
  }
  *this = static_cast<const Reg&>(src);
  return *this;
}

Reg& Reg::operator=(const Operand& src) {
  Trace& t = Trace::current({});
  t.check_reg(*this, {});
  Operand value = src;
  if (src.kind == OperandKind::Imm) value = fit_operand(src, type_, BinOp::Add, {});
  const Operand ops[] = {Operand(*this), value};
  t.emit_key(dsl::mov_key(type_, {}), ops, {});
  return *this;
}

RegArray::RegArray(DType t, uint32_t count, std::string_view name, ptx::SourceLocation where)
    : regs_(Trace::current(where).new_array(t, count, name, where)) {}

std::vector<Operand> RegArray::range(size_t first, size_t count) const {
  if (first > regs_.size() || count > regs_.size() - first)
    throw Error(fmt::format("register range {}..{} out of range (size {})", first, first + count, regs_.size()), {});
  return std::vector<Operand>(regs_.begin() + static_cast<ptrdiff_t>(first),
                              regs_.begin() + static_cast<ptrdiff_t>(first + count));
}

Reg& RegArray::operator[](size_t i) {
  if (i >= regs_.size()) throw Error(fmt::format("register array index {} out of range (size {})", i, regs_.size()), {});
  return regs_[i];
}
const Reg& RegArray::operator[](size_t i) const {
  if (i >= regs_.size()) throw Error(fmt::format("register array index {} out of range (size {})", i, regs_.size()), {});
  return regs_[i];
}

namespace detail {

Reg binary(BinOp op, const Reg& a, const Operand& b, ptx::SourceLocation where) {
  check(a, where);
  Trace& t = Trace::current(where);
  // 64-bit integer + 32-bit integer register: mad.wide (d = b * 1 + a), one instruction.
  if ((op == BinOp::Add) && (b.kind == OperandKind::Reg) && is_integer(a.type()) && bits(a.type()) == 64 &&
      is_integer(b.type) && bits(b.type) == 32) {
    Reg d = t.new_reg(a.type(), {}, where);
    const Operand ops[] = {Operand(d), b, Operand(1), Operand(a)};
    if (is_signed(b.type))
      t.emit(inst::mad.wide.s32, ops, where);
    else
      t.emit(inst::mad.wide.u32, ops, where);
    return d;
  }
  const Operand rhs = fit_operand(b, a.type(), op, where);
  const uint32_t key = mnemonic_key(op, a.type(), where);
  Reg d = t.new_reg(is_compare(op) ? DType::pred : a.type(), {}, where);
  const Operand ops[] = {Operand(d), Operand(a), rhs};
  t.emit_key(key, ops, where);
  return d;
}

Reg binary_rev(BinOp op, const Operand& a, const Reg& b, ptx::SourceLocation where) {
  check(b, where);
  Trace& t = Trace::current(where);
  const Operand lhs = fit_operand(a, b.type(), op, where);
  const uint32_t key = mnemonic_key(op, b.type(), where);
  Reg d = t.new_reg(is_compare(op) ? DType::pred : b.type(), {}, where);
  const Operand ops[] = {Operand(d), lhs, Operand(b)};
  t.emit_key(key, ops, where);
  return d;
}

void compound(BinOp op, Reg& a, const Operand& b, ptx::SourceLocation where) {
  check(a, where);
  Trace& t = Trace::current(where);
  const Operand rhs = fit_operand(b, a.type(), op, where);
  const Operand ops[] = {Operand(a), Operand(a), rhs};
  t.emit_key(mnemonic_key(op, a.type(), where), ops, where);
}

Reg unary_not(const Reg& a, ptx::SourceLocation where) {
  check(a, where);
  if (is_float(a.type())) throw Error(fmt::format("operator ~ is not defined for {} registers", name(a.type())), where);
  Trace& t = Trace::current(where);
  Reg d = t.new_reg(a.type(), {}, where);
  const Operand ops[] = {Operand(d), Operand(a)};
  t.emit(dsl::RuntimeChain(inst::not_).then(bits_type(a.type()), where), ops, where);
  return d;
}

Reg unary_neg(const Reg& a, ptx::SourceLocation where) {
  check(a, where);
  if (a.type() == DType::pred || bits(a.type()) < 16 || a.type() == DType::b128)
    throw Error(fmt::format("unary - is not defined for {} registers", name(a.type())), where);
  Trace& t = Trace::current(where);
  Reg d = t.new_reg(a.type(), {}, where);
  const Operand ops[] = {Operand(d), Operand(a)};
  const std::string ty = is_integer(a.type()) ? fmt::format(".s{}", bits(a.type()))
                        : std::string(is_float(a.type()) ? name(a.type()) : name(integer_like(a.type())));
  t.emit(dsl::RuntimeChain(inst::neg).then(ty, where), ops, where);
  return d;
}

}  // namespace detail

Label::Label(std::string_view hint, ptx::SourceLocation where)
    : id_(Trace::current(where).new_label(hint, where)), where_(where) {}

void place(const Label& l, ptx::SourceLocation where) { Trace::current(where).place_label(l.id(), where); }

}  // namespace ptx
