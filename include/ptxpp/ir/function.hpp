// Kernels (.entry), device functions (.func) and call prototypes.
#pragma once

#include <cstdint>
#include <vector>

#include "ptxpp/ir/range.hpp"
#include "ptxpp/ir/string_pool.hpp"

namespace ptx::ir {

// `( .param .b32 a, .param .b64 b )`
struct ParamList {
  bool present = false;
  Trivia open;   // before '('
  Range params;  // Module::items; ListItem::node is a Decl index
  Trivia close;  // before ')'
};

struct Function {
  Range specs;                   // Module::specs: linkage, .entry/.func, attributes, in order
  ParamList ret;                 // .func return parameters
  Symbol name;
  Trivia name_lead;
  ParamList params;
  std::vector<uint32_t> header;  // Module::directives: .maxntid, .noreturn, ...
  static constexpr uint32_t kNoBody = 0xFFFFFFFFu;
  uint32_t body = kNoBody;       // Module::blocks; kNoBody for a declaration ending in ';'
  Trivia semi;                   // before ';' of a declaration
  uint32_t loc = 0;

  bool has_body() const { return body != kNoBody; }
};

// `proto: .callprototype (.param .b32 _) _ (.param .b32 _) .noreturn;` (the label is a Label statement)
struct Prototype {
  Trivia lead;  // before .callprototype
  ParamList ret;
  Symbol name;  // `_`
  Trivia name_lead;
  ParamList params;
  std::vector<uint32_t> header;  // Module::directives: .noreturn, .abi_preserve, ...
  Trivia semi;
  uint32_t loc = 0;
};

// `.section .debug_info { ... }`: the body holds labels and data directives.
struct Section {
  Trivia lead;
  Symbol name;
  Trivia name_lead;
  uint32_t body = 0;  // Module::blocks
  uint32_t loc = 0;
};

}  // namespace ptx::ir
