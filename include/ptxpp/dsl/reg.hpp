// Run-time values: registers and predicates. A Reg is a PTX register of the
// running trace; C++ values (int, float) are trace-time constants and become
// immediates. Operators emit exactly one instruction each (see docs/dsl.md):
//   a + b  add.s32 / add.rn.f32 ...      a < b   setp.lt.s32 into a fresh predicate
//   a += b add.s32 a, a, b               ~a      not.b32;   -a  neg.s32
//   x = a + b  renames the add's destination to x (no mov); x = y  emits mov.
#pragma once

#include <cstdint>
#include "ptxpp/dsl/source_location.hpp"
#include <string_view>
#include <vector>

#include "ptxpp/dsl/operand.hpp"
#include "ptxpp/dsl/types.hpp"

namespace ptx {

class Reg;

// `!p`: a negated predicate, as a guard or an operand (no instruction).
struct NotPred {
  const Reg* p;
};

class Reg {
 public:
  Reg() = default;
  // A fresh register of type t: auto-named (%r7, %f3, %p2, ...) or named (%name).
  explicit Reg(DType t, std::string_view name = {}, ptx::SourceLocation where = ptx::SourceLocation::current());
  // Copying a register is a mov into a fresh one; moving hands the register over.
  Reg(const Reg& other);
  Reg(Reg&& other) noexcept : id_(other.id_), type_(other.type_), expr_(other.expr_), trace_(other.trace_) {
    other.id_ = kInvalid;
  }
  // mov into this register; from the result of the instruction just emitted: that
  // instruction's destination becomes this register instead (no mov).
  Reg& operator=(const Reg& src);
  Reg& operator=(Reg&& src);
  Reg& operator=(const Operand& src);  // mov from an immediate, special register, ...
  template <std::integral T>
  Reg& operator=(T v) { return *this = Operand(v); }
  Reg& operator=(float v) { return *this = Operand(v); }
  Reg& operator=(double v) { return *this = Operand(v); }
  ~Reg() = default;

  DType type() const { return type_; }
  bool valid() const { return id_ != kInvalid; }
  ir::ExprId expr() const { return expr_; }
  uint32_t id() const { return id_; }
  uint32_t trace() const { return trace_; }
  NotPred operator!() const { return NotPred{this}; }

  // Makes this handle refer to other's register, emitting nothing (for helpers that
  // keep a running value: `acc.rebind(std::move(next))`).
  void rebind(Reg&& other) noexcept {
    id_ = other.id_;
    type_ = other.type_;
    expr_ = other.expr_;
    trace_ = other.trace_;
    other.id_ = kInvalid;
  }
  // For the library: a register handle without emitting anything.
  static Reg adopt(uint32_t id, DType t, ir::ExprId e, uint32_t trace) {
    Reg r;
    r.id_ = id;
    r.type_ = t;
    r.expr_ = e;
    r.trace_ = trace;
    return r;
  }

 private:
  static constexpr uint32_t kInvalid = 0xFFFFFFFFu;
  uint32_t id_ = kInvalid;
  DType type_ = DType::none;
  ir::ExprId expr_;
  uint32_t trace_ = 0;
};

using Pred = Reg;

// `!p` as an operand (no instruction).
Operand to_operand(NotPred p);
inline Operand as_operand(NotPred p) { return to_operand(p); }

// A run of registers declared together: `.reg .f32 %acc<8>;`, elements %acc0..%acc7.
class RegArray {
 public:
  RegArray(DType t, uint32_t count, std::string_view name = {},
           ptx::SourceLocation where = ptx::SourceLocation::current());
  // Registers declared elsewhere (ptx::listing::regs), as one array.
  explicit RegArray(std::vector<Reg> regs) : regs_(std::move(regs)) {}
  Reg& operator[](size_t i);
  const Reg& operator[](size_t i) const;
  size_t size() const { return regs_.size(); }
  // Elements first .. first+count-1 as operands, for ptx::vec.
  std::vector<Operand> range(size_t first, size_t count) const;
  auto begin() { return regs_.begin(); }
  auto end() { return regs_.end(); }
  auto begin() const { return regs_.begin(); }
  auto end() const { return regs_.end(); }

 private:
  std::vector<Reg> regs_;
};

// A register operand that remembers where it was written (for operator errors and .loc).
struct RegAt {
  RegAt(const Reg& r, ptx::SourceLocation l = ptx::SourceLocation::current()) : reg(r), where(l) {}  // NOLINT
  const Reg& reg;
  ptx::SourceLocation where;
};

enum class BinOp : uint8_t { Add, Sub, Mul, Div, Rem, Shl, Shr, And, Or, Xor, Lt, Le, Gt, Ge, Eq, Ne };

namespace detail {
Reg binary(BinOp op, const Reg& a, const Operand& b, ptx::SourceLocation where);
Reg binary_rev(BinOp op, const Operand& a, const Reg& b, ptx::SourceLocation where);
void compound(BinOp op, Reg& a, const Operand& b, ptx::SourceLocation where);
Reg unary_not(const Reg& a, ptx::SourceLocation where);
Reg unary_neg(const Reg& a, ptx::SourceLocation where);
}  // namespace detail

#define PTXPP_BINARY_OPERATOR(SYM, OP)                                                              \
  inline Reg operator SYM(RegAt a, const Reg& b) { return detail::binary(OP, a.reg, b, a.where); } \
  template <class T>                                                                                \
    requires std::is_arithmetic_v<T>                                                                \
  inline Reg operator SYM(RegAt a, T b) {                                                           \
    return detail::binary(OP, a.reg, Operand(b), a.where);                                          \
  }                                                                                                 \
  template <class T>                                                                                \
    requires std::is_arithmetic_v<T>                                                                \
  inline Reg operator SYM(T a, RegAt b) {                                                           \
    return detail::binary_rev(OP, Operand(a), b.reg, b.where);                                      \
  }
PTXPP_BINARY_OPERATOR(+, BinOp::Add)
PTXPP_BINARY_OPERATOR(-, BinOp::Sub)
PTXPP_BINARY_OPERATOR(*, BinOp::Mul)
PTXPP_BINARY_OPERATOR(/, BinOp::Div)
PTXPP_BINARY_OPERATOR(%, BinOp::Rem)
PTXPP_BINARY_OPERATOR(<<, BinOp::Shl)
PTXPP_BINARY_OPERATOR(>>, BinOp::Shr)
PTXPP_BINARY_OPERATOR(&, BinOp::And)
PTXPP_BINARY_OPERATOR(|, BinOp::Or)
PTXPP_BINARY_OPERATOR(^, BinOp::Xor)
PTXPP_BINARY_OPERATOR(<, BinOp::Lt)
PTXPP_BINARY_OPERATOR(<=, BinOp::Le)
PTXPP_BINARY_OPERATOR(>, BinOp::Gt)
PTXPP_BINARY_OPERATOR(>=, BinOp::Ge)
#undef PTXPP_BINARY_OPERATOR
// == and != take the same parameter type on both sides, so C++20's reversed
// candidates tie with the written ones and are not considered.
inline Reg operator==(RegAt a, RegAt b) { return detail::binary(BinOp::Eq, a.reg, b.reg, a.where); }
inline Reg operator!=(RegAt a, RegAt b) { return detail::binary(BinOp::Ne, a.reg, b.reg, a.where); }
template <class T>
  requires std::is_arithmetic_v<T>
inline Reg operator==(RegAt a, T b) {
  return detail::binary(BinOp::Eq, a.reg, Operand(b), a.where);
}
template <class T>
  requires std::is_arithmetic_v<T>
inline Reg operator!=(RegAt a, T b) {
  return detail::binary(BinOp::Ne, a.reg, Operand(b), a.where);
}

#define PTXPP_COMPOUND_OPERATOR(SYM, OP)                                                               \
  inline Reg& operator SYM(Reg& a, const Reg& b) { return detail::compound(OP, a, b, {}), a; }         \
  template <class T>                                                                                   \
    requires std::is_arithmetic_v<T>                                                                   \
  inline Reg& operator SYM(Reg& a, T b) {                                                              \
    return detail::compound(OP, a, Operand(b), {}), a;                                                 \
  }
PTXPP_COMPOUND_OPERATOR(+=, BinOp::Add)
PTXPP_COMPOUND_OPERATOR(-=, BinOp::Sub)
PTXPP_COMPOUND_OPERATOR(*=, BinOp::Mul)
PTXPP_COMPOUND_OPERATOR(/=, BinOp::Div)
PTXPP_COMPOUND_OPERATOR(%=, BinOp::Rem)
PTXPP_COMPOUND_OPERATOR(<<=, BinOp::Shl)
PTXPP_COMPOUND_OPERATOR(>>=, BinOp::Shr)
PTXPP_COMPOUND_OPERATOR(&=, BinOp::And)
PTXPP_COMPOUND_OPERATOR(|=, BinOp::Or)
PTXPP_COMPOUND_OPERATOR(^=, BinOp::Xor)
#undef PTXPP_COMPOUND_OPERATOR

inline Reg operator~(RegAt a) { return detail::unary_not(a.reg, a.where); }
inline Reg operator-(RegAt a) { return detail::unary_neg(a.reg, a.where); }

}  // namespace ptx
