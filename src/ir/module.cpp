#include "ptxpp/ir/module.hpp"

#include <fmt/format.h>

#include <bit>
#include <string>

namespace ptx::ir {

namespace {

const char* kind_phrase(ExprKind k) {
  switch (k) {
    case ExprKind::Name:
      return "a name";
    case ExprKind::Int:
      return "an integer literal";
    case ExprKind::Float:
      return "a floating-point literal";
    case ExprKind::String:
      return "a string literal";
    case ExprKind::Unary:
      return "a unary expression";
    case ExprKind::Binary:
      return "a binary expression";
    case ExprKind::Ternary:
      return "a conditional expression";
    case ExprKind::List:
      return "a list";
    case ExprKind::Apply:
      return "an application";
    case ExprKind::Suffixed:
      return "an operand with a suffix";
  }
  return "an expression of an unknown kind";
}

std::string not_an_int(const Module& m, ExprId id) {
  const std::string_view name = m.name_of(id);
  return fmt::format("set_int: expression {} is {}{}, not an integer literal", id.v, kind_phrase(m.expr(id).kind),
                     name.empty() ? std::string() : fmt::format(" ('{}')", name));
}

}  // namespace

Module::Module() {
  blocks.emplace_back();  // kRoot
  blocks[kRoot].open = Trivia::none();
  blocks[kRoot].close = Trivia::none();
}

std::string_view Module::name_of(ExprId id, Where where) const {
  const Expr& e = expr(id, where);
  return e.kind == ExprKind::Name ? strings.view(Symbol{e.a}) : std::string_view{};
}

std::string Module::mnemonic(const Instruction& i, Where where) const {
  std::string out{text(i.opcode, where)};
  for (const Modifier& m : modifiers_of(i, where)) out += text(m.name, where);
  return out;
}

ExprId Module::add_expr(const Expr& e, Where where) {
  check_expr_children(e, where);
  exprs.push_back(e);
  return ExprId{static_cast<uint32_t>(exprs.size() - 1)};
}

ExprId Module::add_name(std::string_view name, std::string_view component) {
  Expr e;
  e.kind = ExprKind::Name;
  e.a = strings.intern_id(name);
  e.b = component.empty() ? 0 : strings.intern_id(component);
  return add_expr(e);
}

ExprId Module::add_int(uint64_t value, Notation notation) {
  Expr e;
  e.kind = ExprKind::Int;
  e.sub = static_cast<uint8_t>(notation);
  e.value = value;
  e.aux = 1;  // minimum digit count
  return add_expr(e);
}

ExprId Module::add_f32(float value) {
  Expr e;
  e.kind = ExprKind::Float;
  e.sub = static_cast<uint8_t>(Notation::F32Hex);
  e.flags = kUpperDigits;
  e.value = std::bit_cast<uint32_t>(value);
  e.aux = 8;
  return add_expr(e);
}

ExprId Module::add_f64(double value) {
  Expr e;
  e.kind = ExprKind::Float;
  e.sub = static_cast<uint8_t>(Notation::F64Hex);
  e.flags = kUpperDigits;
  e.value = std::bit_cast<uint64_t>(value);
  e.aux = 16;
  return add_expr(e);
}

ExprId Module::add_string(std::string_view quoted) {
  Expr e;
  e.kind = ExprKind::String;
  e.a = strings.intern_id(quoted);
  return add_expr(e);
}

ExprId Module::add_unary(Op op, ExprId a, Where where) {
  check(a, where);
  Expr e;
  e.kind = ExprKind::Unary;
  e.sub = static_cast<uint8_t>(op);
  e.a = a.v;
  return add_expr(e);
}

ExprId Module::add_binary(Op op, ExprId a, ExprId b, Where where) {
  check(a, where);
  check(b, where);
  Expr e;
  e.kind = ExprKind::Binary;
  e.sub = static_cast<uint8_t>(op);
  e.a = a.v;
  e.b = b.v;
  return add_expr(e);
}

Range Module::add_items(std::span<const ExprId> elems, Where where) {
  for (ExprId id : elems) check(id, where);
  Range r{static_cast<uint32_t>(items.size()), static_cast<uint32_t>(elems.size())};
  for (size_t i = 0; i < elems.size(); ++i) {
    ListItem it;
    it.node = elems[i].v;
    it.comma = i + 1 < elems.size();
    items.push_back(it);
  }
  return r;
}

ExprId Module::add_list(Delim delim, std::span<const ExprId> elems, Where where) {
  const Range r = add_items(elems, where);
  Expr e;
  e.kind = ExprKind::List;
  e.sub = static_cast<uint8_t>(delim);
  e.a = r.first;
  e.b = r.count;
  return add_expr(e);
}

ExprId Module::add_apply(ExprId callee, ExprId paren_list, Where where) {
  check(callee, where);
  check(paren_list, where);
  Expr e;
  e.kind = ExprKind::Apply;
  e.a = callee.v;
  e.b = paren_list.v;
  return add_expr(e);
}

Instruction Module::make_instruction(std::string_view mnemonic, std::span<const ExprId> operands, ExprId guard,
                                     Where where) {
  if (guard) check(guard, where);
  for (ExprId id : operands) check(id, where);
  Instruction inst;
  const size_t dot = mnemonic.find('.');
  inst.opcode = strings.intern(mnemonic.substr(0, dot));
  inst.modifiers.first = static_cast<uint32_t>(modifiers.size());
  size_t pos = dot;
  while (pos != std::string_view::npos) {
    // Modifiers may contain "::" but never a lone '.', so split on '.'.
    size_t next = mnemonic.find('.', pos + 1);
    modifiers.push_back(Modifier{strings.intern(mnemonic.substr(pos, next - pos)), Trivia{}});
    ++inst.modifiers.count;
    pos = next;
  }
  inst.operands = add_items(operands, where);
  inst.guard = guard;
  return inst;
}

Stmt Module::add_instruction(const Instruction& inst, Where where) {
  text(inst.opcode, where);
  for (const Modifier& mod : modifiers_of(inst, where)) text(mod.name, where);
  for (const ListItem& it : operands_of(inst, where)) check(ExprId{it.node}, where);
  if (inst.guard) check(inst.guard, where);
  instructions.push_back(inst);
  return Stmt{StmtKind::Instruction, static_cast<uint32_t>(instructions.size() - 1)};
}

Stmt Module::add_label(std::string_view name) {
  Label l;
  l.name = strings.intern(name);
  labels.push_back(l);
  return Stmt{StmtKind::Label, static_cast<uint32_t>(labels.size() - 1)};
}

Stmt Module::add_directive(std::string_view name, std::span<const ExprId> elems, bool semicolon, Where where) {
  Directive d;
  d.items = add_items(elems, where);
  d.name = strings.intern(name);
  d.has_semi = semicolon;
  directives.push_back(d);
  return Stmt{StmtKind::Directive, static_cast<uint32_t>(directives.size() - 1)};
}

ExprId Module::add_float_spelled(double value, std::string_view spelling) {
  Expr e;
  e.kind = ExprKind::Float;
  e.sub = static_cast<uint8_t>(Notation::Spelled);
  e.value = std::bit_cast<uint64_t>(value);
  e.aux = strings.intern_id(spelling);
  return add_expr(e);
}

Range Module::add_specs(std::initializer_list<std::string_view> words) {
  Range r{static_cast<uint32_t>(specs.size()), static_cast<uint32_t>(words.size())};
  for (std::string_view w : words) {
    Spec s;
    s.word = strings.intern(w);
    specs.push_back(s);
  }
  return r;
}

uint32_t Module::add_decl(std::initializer_list<std::string_view> words, std::string_view name, ExprId range,
                          std::span<const ExprId> dims, ExprId init, bool semicolon, Where where) {
  if (range) check(range, where);
  for (ExprId dim : dims) check(dim, where);
  if (init) check(init, where);
  Decl d;
  d.specs = add_specs(words);
  Declarator dc;
  dc.name = strings.intern(name);
  dc.range = range;
  dc.dims.first = static_cast<uint32_t>(items.size());
  for (ExprId dim : dims) items.push_back(ListItem{dim.v, Trivia{}, false});
  dc.dims.count = static_cast<uint32_t>(dims.size());
  dc.init = init;
  d.declarators = Range{static_cast<uint32_t>(declarators.size()), 1};
  declarators.push_back(dc);
  d.has_semi = semicolon;
  decls.push_back(d);
  return static_cast<uint32_t>(decls.size() - 1);
}

Stmt Module::add_function(std::initializer_list<std::string_view> words, std::string_view name,
                          std::span<const uint32_t> params, uint32_t body_block, Where where) {
  for (uint32_t p : params) check(Stmt{StmtKind::Decl, p}, where);
  if (body_block != Function::kNoBody) check(Stmt{StmtKind::Block, body_block}, where);
  Function f;
  f.specs = add_specs(words);
  f.name = strings.intern(name);
  f.params.present = true;
  f.params.params.first = static_cast<uint32_t>(items.size());
  for (size_t i = 0; i < params.size(); ++i) items.push_back(ListItem{params[i], Trivia{}, i + 1 < params.size()});
  f.params.params.count = static_cast<uint32_t>(params.size());
  f.body = body_block;
  functions.push_back(std::move(f));
  return Stmt{StmtKind::Function, static_cast<uint32_t>(functions.size() - 1)};
}

uint32_t Module::add_block() {
  blocks.emplace_back();
  return static_cast<uint32_t>(blocks.size() - 1);
}

void Module::set_int(ExprId id, uint64_t value, Where where) {
  Expr& e = expr(id, where);
  if (e.kind != ExprKind::Int) throw Error(not_an_int(*this, id), where);
  e.value = value;
  e.aux = 1;  // no zero padding for the new value
  if (static_cast<Notation>(e.sub) == Notation::Spelled) e.sub = static_cast<uint8_t>(Notation::Dec);
}

}  // namespace ptx::ir
