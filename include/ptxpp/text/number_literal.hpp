// Reading and writing PTX numeric literals in every notation: 42, 0x2A, 052,
// 0b101, 42U, 1.5, 1e-3, 0f3FC00000, 0d3FF8000000000000.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "ptxpp/ir/expr.hpp"

namespace ptx::text {

struct NumberLiteral {
  ir::ExprKind kind = ir::ExprKind::Int;  // Int or Float
  ir::Notation notation = ir::Notation::Dec;
  uint16_t flags = 0;   // ir::NumFlags
  uint32_t digits = 0;  // digits written (leading zeros included)
  uint64_t value = 0;   // integer value, or IEEE bits (see ir::Expr::value)
  bool spelled = false; // the notation cannot reproduce the text; keep the spelling
};

// Length of the literal starting at `s[0]` (a digit), or 0 with `error` set.
size_t scan_number(std::string_view s, NumberLiteral& out, const char*& error);

// Writes the text of a literal in a reproducible notation (not Spelled) to
// `buf` (kMaxNumberLength bytes); returns its length.
constexpr size_t kMaxNumberLength = 96;
constexpr uint32_t kMaxPaddedDigits = 64;  // longer zero-padded literals are stored as spelled
size_t format_number(char* buf, ir::Notation notation, uint16_t flags, uint32_t digits, uint64_t value);

// The same, appended to a string.
void append_number(std::string& out, ir::Notation notation, uint16_t flags, uint32_t digits, uint64_t value);

}  // namespace ptx::text
