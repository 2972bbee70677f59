// Statements and blocks. A module's top level is a Block without braces.
#pragma once

#include <vector>

#include "ptxpp/ir/string_pool.hpp"

namespace ptx::ir {

enum class StmtKind : uint8_t {
  Instruction,
  Label,
  Decl,
  Directive,
  Block,
  Prototype,  // .callprototype
  Function,
  Section,
};

// A reference to a node of the given kind in the module's pool for that kind,
// with the comment that ends its line: `ret;  // done` keeps "  // done" here,
// so the comment moves and disappears with its statement.
struct Stmt {
  StmtKind kind{};
  uint32_t index = 0;
  Trivia trail;  // spaces and comments after the statement, up to its newline

  Stmt() = default;
  Stmt(StmtKind k, uint32_t i, Trivia t = {}) : kind(k), index(i), trail(t) {}
};

struct Label {
  Symbol name;
  Trivia lead;
  Trivia colon;  // before ':'
  uint32_t loc = 0;
};

struct Block {
  Trivia open;   // before '{'
  std::vector<Stmt> stmts;
  Trivia close;  // before '}'
  uint32_t loc = 0;
};

}  // namespace ptx::ir
