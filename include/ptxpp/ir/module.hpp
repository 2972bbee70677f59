// A PTX module: the node pools, the top-level block, and helpers to read,
// build and edit nodes. Nodes refer to each other by index; strings are interned.
//
// Every member function below that takes a node id, an index or a range checks it
// and throws ptx::Error, located at the caller's line, saying what was out of range
// (the pools themselves are public and unchecked).
#pragma once

#include <cstdint>
#include <initializer_list>
#include <span>
#include <string_view>
#include <vector>

#include "ptxpp/error.hpp"
#include "ptxpp/ir/block.hpp"
#include "ptxpp/ir/declaration.hpp"
#include "ptxpp/ir/directive.hpp"
#include "ptxpp/ir/expr.hpp"
#include "ptxpp/ir/function.hpp"
#include "ptxpp/ir/instruction.hpp"
#include "ptxpp/ir/source_map.hpp"
#include "ptxpp/ir/string_pool.hpp"

namespace ptx::ir {

class Module {
 public:
  Module();
  Module(Module&&) noexcept = default;
  Module& operator=(Module&&) noexcept = default;

  // ---- pools -----------------------------------------------------------
  StringPool strings;
  std::vector<Expr> exprs;
  std::vector<ListItem> items;
  std::vector<Modifier> modifiers;
  std::vector<Spec> specs;
  std::vector<Declarator> declarators;
  std::vector<Instruction> instructions;
  std::vector<Label> labels;
  std::vector<Decl> decls;
  std::vector<Directive> directives;
  std::vector<Block> blocks;
  std::vector<Function> functions;
  std::vector<Prototype> prototypes;
  std::vector<Section> sections;

  static constexpr uint32_t kRoot = 0;  // blocks[kRoot]: the top level, no braces
  Trivia eof;                           // after the last statement
  SourceMap source;                     // where parsed text came from

  // ---- reading ---------------------------------------------------------
  using Where = ptx::SourceLocation;
  Block& root() { return blocks[kRoot]; }
  const Block& root() const { return blocks[kRoot]; }
  Expr& expr(ExprId id, Where where = Where::current()) {
    check(id, where);
    return exprs[id.v];
  }
  const Expr& expr(ExprId id, Where where = Where::current()) const {
    check(id, where);
    return exprs[id.v];
  }
  std::string_view text(Symbol s, Where where = Where::current()) const {
    if (s.id >= strings.size()) [[unlikely]]
      bad_symbol(s, where);
    return strings.view(s);
  }
  std::string_view text(Trivia t, Where where = Where::current()) const {
    if (!t.synthesized() && t.id >= strings.size()) [[unlikely]]
      bad_symbol(Symbol{t.id}, where);
    return strings.view(t);
  }

  std::span<ListItem> slice(Range r, Where where = Where::current()) {
    check_range(r, items.size(), "items", where);
    return {items.data() + r.first, r.count};
  }
  std::span<const ListItem> slice(Range r, Where where = Where::current()) const {
    check_range(r, items.size(), "items", where);
    return {items.data() + r.first, r.count};
  }
  std::span<const Modifier> modifiers_of(const Instruction& i, Where where = Where::current()) const {
    check_range(i.modifiers, modifiers.size(), "modifiers", where);
    return {modifiers.data() + i.modifiers.first, i.modifiers.count};
  }
  std::span<const ListItem> operands_of(const Instruction& i, Where where = Where::current()) const {
    return slice(i.operands, where);
  }
  std::span<const Spec> specs_of(Range r, Where where = Where::current()) const {
    check_range(r, specs.size(), "specs", where);
    return {specs.data() + r.first, r.count};
  }
  std::span<const Declarator> declarators_of(const Decl& d, Where where = Where::current()) const {
    check_range(d.declarators, declarators.size(), "declarators", where);
    return {declarators.data() + d.declarators.first, d.declarators.count};
  }
  // Operand `n` (0-based) of the instruction.
  ExprId operand(const Instruction& i, uint32_t n, Where where = Where::current()) const {
    if (n >= i.operands.count) [[unlikely]]
      bad_operand(i, n, where);
    return ExprId{slice(i.operands, where)[n].node};
  }
  // Name of a Name expression ("" for other kinds).
  std::string_view name_of(ExprId id, Where where = Where::current()) const;

  // The full opcode with modifiers, e.g. "ld.global.v4.f32".
  std::string mnemonic(const Instruction& i, Where where = Where::current()) const;

  // Throw ptx::Error unless the id names a node of this module.
  void check(ExprId id, Where where = Where::current()) const {
    if (id.v >= exprs.size()) [[unlikely]]
      bad_expr(id, where);
  }
  void check(Stmt s, Where where = Where::current()) const;

  // ---- building (nodes get synthesized trivia: the printer lays them out) ----
  // The ids, indices and ranges given must name nodes of this module.
  Symbol intern(std::string_view s) { return strings.intern(s); }
  ExprId add_expr(const Expr& e, Where where = Where::current());
  ExprId add_name(std::string_view name, std::string_view component = {});
  ExprId add_int(uint64_t value, Notation notation = Notation::Dec);
  ExprId add_f32(float value);
  ExprId add_f64(double value);
  ExprId add_string(std::string_view quoted);  // the text between the quotes, escapes kept
  ExprId add_unary(Op op, ExprId a, Where where = Where::current());
  ExprId add_binary(Op op, ExprId a, ExprId b, Where where = Where::current());
  ExprId add_list(Delim delim, std::span<const ExprId> elems, Where where = Where::current());
  ExprId add_list(Delim delim, std::initializer_list<ExprId> elems, Where where = Where::current()) {
    return add_list(delim, std::span<const ExprId>(elems.begin(), elems.size()), where);
  }
  ExprId add_apply(ExprId callee, ExprId paren_list, Where where = Where::current());
  // Comma-separated items in Module::items.
  Range add_items(std::span<const ExprId> elems, Where where = Where::current());

  // `opcode` may carry modifiers: "ld.global.f32".
  Instruction make_instruction(std::string_view mnemonic, std::span<const ExprId> operands, ExprId guard = {},
                               Where where = Where::current());
  Instruction make_instruction(std::string_view mnemonic, std::initializer_list<ExprId> operands, ExprId guard = {},
                               Where where = Where::current()) {
    return make_instruction(mnemonic, std::span<const ExprId>(operands.begin(), operands.size()), guard, where);
  }
  Stmt add_instruction(const Instruction& inst, Where where = Where::current());
  Stmt add_label(std::string_view name);
  Stmt add_directive(std::string_view name, std::span<const ExprId> operands, bool semicolon = false,
                     Where where = Where::current());
  Stmt add_directive(std::string_view name, std::initializer_list<ExprId> operands, bool semicolon = false,
                     Where where = Where::current()) {
    return add_directive(name, std::span<const ExprId>(operands.begin(), operands.size()), semicolon, where);
  }
  // Leading words (".param", ".u64", ...) without arguments, in Module::specs.
  Range add_specs(std::initializer_list<std::string_view> words);
  // A decimal float kept as written, e.g. the "9.0" of `.version 9.0`.
  ExprId add_float_spelled(double value, std::string_view spelling);
  // `words name<range>[dims] = init` as a Decl; returns its index. Parameters: semicolon = false.
  uint32_t add_decl(std::initializer_list<std::string_view> words, std::string_view name, ExprId range = {},
                    std::span<const ExprId> dims = {}, ExprId init = {}, bool semicolon = true,
                    Where where = Where::current());
  // `words name(params) { body }`; params are Decl indices (add_decl with semicolon = false);
  // body_block is a block index, or Function::kNoBody for a declaration.
  Stmt add_function(std::initializer_list<std::string_view> words, std::string_view name,
                    std::span<const uint32_t> params, uint32_t body_block, Where where = Where::current());
  uint32_t add_block();  // an empty block with braces; returns its index

  // ---- editing ---------------------------------------------------------
  // Gives an Int literal a new value, keeping its notation where it can.
  // Any other kind of expression is an error.
  void set_int(ExprId id, uint64_t value, Where where = Where::current());
  // Renames every Name expression, declarator, label and function called `from`;
  // returns how many (0 when the module has no `from`). Both names must be PTX
  // identifiers, and no name may come to refer to something else (rename never
  // merges two things into one): wherever `from` occurs, `to` must not be declared
  // as deep or deeper in the scopes it sees (ir::Scopes: a scope per `{ }` block),
  // and the same the other way round. So `from` in one block may take a name of a
  // sibling block. A register declared as part of a range (`%r<4>` declares
  // %r0..%r3) cannot be renamed on its own, nor can the range.
  size_t rename(std::string_view from, std::string_view to, Where where = Where::current());

 private:
  [[noreturn]] void bad_expr(ExprId id, Where where) const;
  [[noreturn]] void bad_symbol(Symbol s, Where where) const;
  [[noreturn]] void bad_operand(const Instruction& i, uint32_t n, Where where) const;
  void check_range(Range r, size_t pool_size, const char* pool, Where where) const {
    if (r.first > pool_size || r.count > pool_size - r.first) [[unlikely]]
      bad_range(r, pool_size, pool, where);
  }
  [[noreturn]] static void bad_range(Range r, size_t pool_size, const char* pool, Where where);
  void check_expr_children(const Expr& e, Where where) const;
};

}  // namespace ptx::ir
