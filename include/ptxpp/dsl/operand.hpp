// Operands of instruction calls: registers, predicates (and !p), immediates,
// vectors {a, b}, addresses [r+imm], symbols, labels, the sink `_`, special
// registers. An Operand is built in the module of the trace that is running.
#pragma once

#include <bit>
#include <concepts>
#include <cstdint>
#include <initializer_list>
#include "ptxpp/dsl/source_location.hpp"
#include <span>
#include <string_view>
#include <vector>

#include "ptxpp/dsl/types.hpp"
#include "ptxpp/ir/expr.hpp"

namespace ptx {

class Reg;
class Label;

enum class OperandKind : uint8_t { Reg, Pred, NegPred, Imm, Vec, Addr, Label, Symbol, Sink, Special, Args };

struct Operand {
  OperandKind kind = OperandKind::Sink;
  DType type = DType::none;  // registers, immediates (u64/s64/f32/f64), vector elements, special registers
  uint8_t count = 0;         // vector elements
  ir::ExprId expr;
  uint32_t reg = 0xFFFFFFFFu;  // the register's id (registers)

  Operand(const Reg& r);  // NOLINT: registers are operands
  Operand(const Label& l);  // NOLINT
  template <std::integral T>
  Operand(T v) : Operand(make_int(static_cast<int64_t>(v), is_negative(v))) {}  // NOLINT
  Operand(float v);   // NOLINT: written 0fXXXXXXXX
  Operand(double v);  // NOLINT: written 0dXXXXXXXXXXXXXXXX
  Operand(OperandKind k, DType t, ir::ExprId e, uint8_t n = 0, uint32_t r = 0xFFFFFFFFu)
      : kind(k), type(t), count(n), expr(e), reg(r) {}

 private:
  static Operand make_int(int64_t v, bool negative);
  template <class T>
  static constexpr bool is_negative(T v) {
    if constexpr (std::is_signed_v<T>) return v < 0;
    else return false;
  }
};

// The sink `_`.
struct Sink {};
inline constexpr Sink _{};
Operand to_operand(Sink);

// An operand together with where the call that uses it was written: the first
// operand of every instruction call, so that errors and .loc name the user's line.
struct Located {
  template <class T>
    requires std::constructible_from<Operand, const T&>
  Located(const T& v, ptx::SourceLocation l = ptx::SourceLocation::current())  // NOLINT
      : op(v), where(l) {}
  Located(Sink, ptx::SourceLocation l = ptx::SourceLocation::current())  // NOLINT
      : op(to_operand(Sink{})), where(l) {}
  Operand op;
  ptx::SourceLocation where;
};

// [base], [base+offset], [symbol+offset]; a zero offset is left out.
Operand addr(const Reg& base, int64_t offset = 0);
Operand addr(std::string_view symbol, int64_t offset = 0);
// An offset written even when it is zero: addr(p, ptx::offset(0)) is [p+0] (as nvcc writes [param0+0]).
struct Offset {
  int64_t bytes = 0;
};
constexpr Offset offset(int64_t bytes) { return Offset{bytes}; }
Operand addr(const Reg& base, Offset offset);
Operand addr(std::string_view symbol, Offset offset);
// A named symbol (a module variable, a parameter, a function).
Operand symbol(std::string_view name);
// (a, b, c): a call's argument or return-value list, by the names of its .param variables.
Operand args(std::initializer_list<std::string_view> names);
Operand args(std::span<const std::string_view> names);
inline Operand as_operand(const Operand& o) { return o; }
inline Operand as_operand(Sink s) { return to_operand(s); }
// {a, b, c, d}: a vector operand; elements may be `_`.
Operand vec(std::span<const Operand> elems);
// {r[a], ..., r[a+n-1]}: `ptx::vec(acc.range(0, 64))` (wgmma's accumulators).
Operand vec(const std::vector<Operand>& elems);
template <class... T>
Operand vec(const T&... elems) {
  const Operand ops[] = {as_operand(elems)...};
  return vec(std::span<const Operand>(ops, sizeof...(T)));
}
// `d|p`: the destination pair of setp, elect.sync, shfl.sync, ...
Operand pair(const Reg& d, const Reg& p);
// An immediate of an explicit type (the exact bits of `value`).
Operand imm(DType type, uint64_t bits);

namespace dsl {
// The id of the trace running on this thread, 0 when none is (Reg::trace() is its
// register's): front ends that keep operands check with it that one is still usable.
uint32_t running_trace_id();
}  // namespace dsl

}  // namespace ptx
