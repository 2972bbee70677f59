// One PTX instruction: `@!%p opcode.mod1.mod2 op1, op2;`
#pragma once

#include "ptxpp/ir/expr.hpp"
#include "ptxpp/ir/range.hpp"

namespace ptx::ir {

// A `.modifier` after the opcode. The name keeps its leading dot (".global").
struct Modifier {
  Symbol name;
  Trivia lead;
};

struct Instruction {
  Trivia lead;         // before '@' when guarded, else before the opcode
  ExprId guard;        // Name or Unary('!', Name); none when unguarded
  Trivia opcode_lead;  // before the opcode when guarded
  Symbol opcode;       // "ld"
  Range modifiers;     // Module::modifiers
  Range operands;      // Module::items (ListItem::node is an ExprId)
  Trivia semi;         // before ';'
  uint32_t loc = 0;
};

}  // namespace ptx::ir
