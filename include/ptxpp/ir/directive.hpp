// Directives with a list of operands: .version, .target, .address_size, .file,
// .loc, .pragma, .alias, .maxntid and the other performance directives,
// .branchtargets/.calltargets, and data directives (.b8 .b16 .b32 .b64) in sections.
#pragma once

#include "ptxpp/ir/expr.hpp"
#include "ptxpp/ir/range.hpp"

namespace ptx::ir {

struct Directive {
  Symbol name;   // with its dot: ".loc"
  Trivia lead;
  Range items;   // Module::items; ListItem::comma tells ',' from whitespace
  bool has_semi = false;
  Trivia semi;
  uint32_t loc = 0;
};

}  // namespace ptx::ir
