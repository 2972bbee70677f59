// Operands and constant expressions. Every operand form of PTX is an Expr:
// registers, symbols and labels (Name), literals, vectors `{a, _, b}` (List with
// braces), addresses `[r+4]` / `[tex, {x, y}]` (List with brackets), call
// argument lists `(a, b)` (List with parens), `%p|%q` (Binary '|'), `!p`
// (Unary '!'), `generic(v)` and byte masks `0xff00(v)` (Apply).
#pragma once

#include <cstdint>

#include "ptxpp/ir/string_pool.hpp"

namespace ptx::ir {

struct ExprId {
  static constexpr uint32_t kNone = 0xFFFFFFFFu;
  uint32_t v = kNone;
  constexpr bool none() const { return v == kNone; }
  constexpr explicit operator bool() const { return v != kNone; }
  friend constexpr bool operator==(ExprId, ExprId) = default;
};

enum class ExprKind : uint8_t {
  Name,     // identifier, register, label, special register, sink `_`, dot-word (`.debug_info`)
  Int,      // integer literal
  Float,    // floating-point literal
  String,   // "string literal"
  Unary,    // op a
  Binary,   // a op b
  Ternary,  // a ? b : c
  List,     // delimited, comma-separated list
  Apply,    // callee(list): generic(x), 0xff(x), .unified(a, b)
  Suffixed, // operand followed by a modifier: [a].unified (a = the operand, b = the modifier Symbol)
};

enum class Delim : uint8_t { Paren, Brace, Bracket, Angle };

// Operators of constant expressions (and of a few operand forms).
enum class Op : uint8_t {
  Neg, Plus, Not, BitNot,                         // unary - + ! ~
  Mul, Div, Rem, Add, Sub, Shl, Shr,              // * / % + - << >>
  Lt, Gt, Le, Ge, Eq, Ne, BitAnd, BitXor, BitOr,  // < > <= >= == != & ^ |
  LogAnd, LogOr,                                  // && ||
  Assign,                                         // = (sampler initializers: { filter_mode = linear })
};

// How a numeric literal was written, so the printer can write it back.
enum class Notation : uint8_t {
  Dec,        // 42
  Hex,        // 0x2a
  Oct,        // 052
  Bin,        // 0b101010
  F32Hex,     // 0f3F800000
  F64Hex,     // 0d3FF0000000000000
  Spelled,    // kept verbatim (decimal floats, mixed-case hex digits): aux = Symbol
};

enum NumFlags : uint16_t {
  kUpperPrefix = 1,  // 0X, 0B, 0F, 0D
  kUpperDigits = 2,  // hex digits A-F
  kUnsigned = 4,     // trailing U
};

struct Expr {
  ExprKind kind{};
  uint8_t sub = 0;     // Op for Unary/Binary, Delim for List, Notation for Int/Float
  uint16_t flags = 0;  // NumFlags for literals
  Trivia lead;         // before the node's first own token (Binary/Ternary: before the operator / '?'; Suffixed: before the modifier)
  Trivia close;        // List: before the closing delimiter; Ternary: before ':'
  uint32_t a = 0;      // Name/String: Symbol; Unary: operand; Binary/Ternary/Apply: first child; List: first item
  uint32_t b = 0;      // Name: component Symbol (`.x` of %tid.x, 0 if none); Binary/Ternary/Apply: second child; List: item count
  uint32_t aux = 0;    // Int/Float: digit count (leading zeros kept) or spelling Symbol; Ternary: third child
  uint64_t value = 0;  // Int: the value; Float: the IEEE bits (double for Spelled/F64Hex, float for F32Hex)
  uint32_t loc = 0;    // byte offset of the first token in the source (0 when synthesized)
};

// An element of a List expression, a directive's item list or a parameter list.
struct ListItem {
  uint32_t node = 0;  // ExprId for expression lists, Decl index for parameter lists
  Trivia sep;         // before the ',' that follows this item
  bool comma = true;  // the item is followed by ',' (false: by whitespace, or it is last)
};

}  // namespace ptx::ir
