// Declarations of variables, registers and parameters:
//   .global .align 4 .b8 gv[16] = {1, 2};   .reg .b32 %r<45>;   .param .u64 .ptr .global p
// and the leading words of a function header (.visible .entry).
#pragma once

#include "ptxpp/ir/expr.hpp"
#include "ptxpp/ir/range.hpp"

namespace ptx::ir {

// One leading word, in source order: a state space, linkage, type, vector width,
// `.ptr`, `.align N` (arg = N) or `.attribute(...)` (arg = the paren List).
struct Spec {
  Symbol word;  // with its dot: ".align"
  Trivia lead;
  ExprId arg;
};

struct Declarator {
  Symbol name;
  Trivia lead;
  ExprId range;      // `<N>` as a List with angle delimiters; none if absent
  Range dims;        // `[16][]`: Module::items, each a List with brackets
  Trivia eq;         // before '='
  ExprId init;       // initializer; none if absent
  Trivia sep;        // before the ',' that follows this declarator
};

struct Decl {
  Range specs;        // Module::specs
  Range declarators;  // Module::declarators
  bool has_semi = true;  // false for parameters
  Trivia semi;
  uint32_t loc = 0;
};

}  // namespace ptx::ir
