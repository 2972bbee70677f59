// A PTX module: the node pools, the top-level block, and helpers to read,
// build and edit nodes. Nodes refer to each other by index; strings are interned.
#pragma once

#include <cstdint>
#include <initializer_list>
#include <span>
#include <string_view>
#include <vector>

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
  Block& root() { return blocks[kRoot]; }
  const Block& root() const { return blocks[kRoot]; }
  Expr& expr(ExprId id) { return exprs[id.v]; }
  const Expr& expr(ExprId id) const { return exprs[id.v]; }
  std::string_view text(Symbol s) const { return strings.view(s); }
  std::string_view text(Trivia t) const { return strings.view(t); }

  std::span<ListItem> slice(Range r) { return {items.data() + r.first, r.count}; }
  std::span<const ListItem> slice(Range r) const { return {items.data() + r.first, r.count}; }
  std::span<const Modifier> modifiers_of(const Instruction& i) const {
    return {modifiers.data() + i.modifiers.first, i.modifiers.count};
  }
  std::span<const ListItem> operands_of(const Instruction& i) const { return slice(i.operands); }
  std::span<const Spec> specs_of(Range r) const { return {specs.data() + r.first, r.count}; }
  std::span<const Declarator> declarators_of(const Decl& d) const {
    return {declarators.data() + d.declarators.first, d.declarators.count};
  }
  ExprId operand(const Instruction& i, uint32_t n) const { return ExprId{items[i.operands.first + n].node}; }
  // Name of a Name expression ("" for other kinds).
  std::string_view name_of(ExprId id) const;

  // The full opcode with modifiers, e.g. "ld.global.v4.f32".
  std::string mnemonic(const Instruction& i) const;

  // ---- building (nodes get synthesized trivia: the printer lays them out) ----
  Symbol intern(std::string_view s) { return strings.intern(s); }
  ExprId add_expr(const Expr& e);
  ExprId add_name(std::string_view name, std::string_view component = {});
  ExprId add_int(uint64_t value, Notation notation = Notation::Dec);
  ExprId add_f32(float value);
  ExprId add_f64(double value);
  ExprId add_string(std::string_view quoted);  // the text between the quotes, escapes kept
  ExprId add_unary(Op op, ExprId a);
  ExprId add_binary(Op op, ExprId a, ExprId b);
  ExprId add_list(Delim delim, std::span<const ExprId> elems);
  ExprId add_list(Delim delim, std::initializer_list<ExprId> elems) {
    return add_list(delim, std::span<const ExprId>(elems.begin(), elems.size()));
  }
  ExprId add_apply(ExprId callee, ExprId paren_list);
  // Comma-separated items in Module::items.
  Range add_items(std::span<const ExprId> elems);

  // `opcode` may carry modifiers: "ld.global.f32".
  Instruction make_instruction(std::string_view mnemonic, std::span<const ExprId> operands,
                               ExprId guard = {});
  Instruction make_instruction(std::string_view mnemonic, std::initializer_list<ExprId> operands,
                               ExprId guard = {}) {
    return make_instruction(mnemonic, std::span<const ExprId>(operands.begin(), operands.size()), guard);
  }
  Stmt add_instruction(const Instruction& inst);
  Stmt add_label(std::string_view name);
  Stmt add_directive(std::string_view name, std::span<const ExprId> operands, bool semicolon = false);
  Stmt add_directive(std::string_view name, std::initializer_list<ExprId> operands, bool semicolon = false) {
    return add_directive(name, std::span<const ExprId>(operands.begin(), operands.size()), semicolon);
  }
  // Leading words (".param", ".u64", ...) without arguments, in Module::specs.
  Range add_specs(std::initializer_list<std::string_view> words);
  // A decimal float kept as written, e.g. the "9.0" of `.version 9.0`.
  ExprId add_float_spelled(double value, std::string_view spelling);
  // `words name<range>[dims] = init` as a Decl; returns its index. Parameters: semicolon = false.
  uint32_t add_decl(std::initializer_list<std::string_view> words, std::string_view name, ExprId range = {},
                    std::span<const ExprId> dims = {}, ExprId init = {}, bool semicolon = true);
  // `words name(params) { body }`; params are Decl indices (add_decl with semicolon = false).
  Stmt add_function(std::initializer_list<std::string_view> words, std::string_view name,
                    std::span<const uint32_t> params, uint32_t body_block);
  uint32_t add_block();  // an empty block with braces; returns its index

  // ---- editing ---------------------------------------------------------
  // Gives an Int literal a new value, keeping its notation where it can.
  void set_int(ExprId id, uint64_t value);
  // Renames every Name expression and declarator called `from` (registers, labels, symbols).
  size_t rename(std::string_view from, std::string_view to);
};

}  // namespace ptx::ir
