// Block scoping (PTX ISA, "Scope of identifiers"), as ptxas applies it. The
// module's top level is the outermost scope; a function with a body is a scope
// (its parameters and the statements of its body); every nested `{ }` block is a
// scope inside the one around it, and so is a `.section` body. A name is looked
// up where it is used, then in each enclosing scope outward.
//
//   * Labels, registers, variables and functions share one namespace per scope.
//   * A label is seen in its whole block, before its definition; so the same
//     label in two sibling blocks names two places (compilers' inline-asm wait
//     loops: `{ .reg .pred P1; waitLoop: ... @!P1 bra waitLoop; }` repeated).
//   * Any other declaration in a function is seen from the statement after it
//     on; at the module's top level, everywhere.
//   * `%r<4>` declares %r0 .. %r3, one name each: an inner `.reg .u64 %r1;`
//     shadows %r1 only, and an inner `%r<2>` leaves the outer %r2, %r3 visible.
//
// Built once from a module; every walker (validator, rename, transpiler,
// emulator) asks it what a name refers to instead of keeping its own tables.
#pragma once

#include <cstdint>
#include <span>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

#include "ptxpp/ir/module.hpp"

namespace ptx::ir {

// A name declared in a scope.
struct Declaration {
  enum Kind : uint8_t {
    Variable,       // a register, parameter or variable of any state space (one declarator)
    RegisterRange,  // `%r<N>`: `name` is the base "%r"
    Label,
    Function,
  };
  static constexpr uint32_t kNone = 0xFFFFFFFFu;
  static constexpr uint64_t kUnknownCount = UINT64_MAX;

  Kind kind = Variable;
  Symbol name;
  uint32_t scope = 0;
  // Seen by statements at index >= order of the scope's block (0: the whole block).
  uint32_t order = 0;
  uint32_t node = 0;      // Declarator index (Variable, RegisterRange), Label index, Function index
  uint32_t decl = kNone;  // Decl index (Variable, RegisterRange)
  uint64_t count = 0;     // RegisterRange: N, or kUnknownCount when N is not a non-negative constant
  uint32_t loc = 0;
};

struct ScopeInfo {
  uint32_t parent = Declaration::kNone;    // kNone: the module
  uint32_t block = 0;                      // Module::blocks index
  uint32_t function = Declaration::kNone;  // the function whose body it is part of; kNone outside functions
  uint32_t position = 0;                   // the statement index of this block in the parent's block
};

// What a name refers to: a declaration, and for a register of a range its index.
struct Resolved {
  uint32_t declaration = Declaration::kNone;
  uint64_t element = 0;
  explicit operator bool() const { return declaration != Declaration::kNone; }
};

class Scopes {
 public:
  static constexpr uint32_t kNone = Declaration::kNone;
  static constexpr uint32_t kModule = 0;
  static constexpr uint32_t kAnywhere = 0xFFFFFFFFu;  // a position after every statement of a block

  explicit Scopes(const Module& m);

  size_t size() const { return scopes_.size(); }
  const ScopeInfo& scope(uint32_t s) const { return scopes_.at(s); }
  // The scope a block opens (a function's body: the function's scope); kNone for a block outside the module's tree.
  uint32_t of_block(uint32_t block) const { return block < of_block_.size() ? of_block_[block] : kNone; }
  // A function's scope; kNone for a declaration without a body.
  uint32_t of_function(uint32_t function) const {
    return function < of_function_.size() ? of_function_[function] : kNone;
  }

  const std::vector<Declaration>& declarations() const { return decls_; }
  const Declaration& declaration(uint32_t d) const { return decls_.at(d); }
  // The declaration a declarator or a label statement makes; kNone for nodes outside the tree.
  uint32_t of_declarator(uint32_t declarator) const {
    return declarator < of_declarator_.size() ? of_declarator_[declarator] : kNone;
  }
  uint32_t of_label(uint32_t label) const { return label < of_label_.size() ? of_label_[label] : kNone; }
  // The declarations of one scope, in source order.
  std::span<const uint32_t> declared_in(uint32_t s) const { return by_scope_.at(s); }

  // What `name` refers to when used at statement `at` of scope `s`'s block (kAnywhere: ignore
  // the order of declarations); looked up there, then in each enclosing scope. `name` need not
  // be a string of the module: a range may declare it.
  Resolved lookup(uint32_t s, uint32_t at, Symbol name) const;
  Resolved lookup(uint32_t s, uint32_t at, std::string_view name) const;

  // Two declarations of one name in one scope (earlier, later); a function declared
  // and then defined is one function, not a conflict.
  const std::vector<std::pair<uint32_t, uint32_t>>& conflicts() const { return conflicts_; }

 private:
  void build_block(uint32_t s);
  void build_function(uint32_t function, uint32_t position);
  uint32_t add_scope(uint32_t parent, uint32_t block, uint32_t function, uint32_t position);
  void declare(Declaration d);
  void declare_decl(uint32_t s, uint32_t decl, uint32_t order);
  uint32_t find(uint32_t s, uint32_t symbol) const;
  Resolved lookup(uint32_t s, uint32_t at, const Symbol* name, std::string_view text) const;
  void range_conflicts();

  static uint64_t key(uint32_t s, uint32_t symbol) { return (uint64_t{s} << 32) | symbol; }

  const Module& m_;
  std::vector<ScopeInfo> scopes_;
  std::vector<std::vector<uint32_t>> by_scope_;
  std::vector<bool> has_ranges_;
  std::vector<Declaration> decls_;
  std::unordered_map<uint64_t, uint32_t> index_;  // (scope, symbol) -> the first declaration
  std::vector<uint32_t> of_block_, of_function_, of_declarator_, of_label_;
  std::vector<std::pair<uint32_t, uint32_t>> conflicts_;
};

}  // namespace ptx::ir
