// The argument checks of Module's entry points: ids, indices and ranges that do
// not name nodes of the module are reported (ptx::Error at the caller's line)
// instead of reading another node or memory outside the pools.
#include <fmt/format.h>

#include "ptxpp/ir/module.hpp"

namespace ptx::ir {

namespace {

size_t pool_size(const Module& m, StmtKind k) {
  switch (k) {
    case StmtKind::Instruction:
      return m.instructions.size();
    case StmtKind::Label:
      return m.labels.size();
    case StmtKind::Decl:
      return m.decls.size();
    case StmtKind::Directive:
      return m.directives.size();
    case StmtKind::Block:
      return m.blocks.size();
    case StmtKind::Prototype:
      return m.prototypes.size();
    case StmtKind::Function:
      return m.functions.size();
    case StmtKind::Section:
      return m.sections.size();
  }
  return 0;
}

const char* pool_name(StmtKind k) {
  switch (k) {
    case StmtKind::Instruction:
      return "instructions";
    case StmtKind::Label:
      return "labels";
    case StmtKind::Decl:
      return "declarations";
    case StmtKind::Directive:
      return "directives";
    case StmtKind::Block:
      return "blocks";
    case StmtKind::Prototype:
      return "call prototypes";
    case StmtKind::Function:
      return "functions";
    case StmtKind::Section:
      return "sections";
  }
  return "?";
}

}  // namespace

void Module::bad_expr(ExprId id, Where where) const {
  if (id.none()) throw Error("expression id none (ExprId{}) does not name an expression", where);
  throw Error(fmt::format("expression id {} is out of range: the module has {} expressions", id.v, exprs.size()),
              where);
}

void Module::bad_symbol(Symbol s, Where where) const {
  throw Error(fmt::format("string id {} is out of range: the module has {} strings", s.id, strings.size()), where);
}

void Module::bad_operand(const Instruction& i, uint32_t n, Where where) const {
  throw Error(fmt::format("operand {} of '{}' does not exist: the instruction has {} operand{}", n, mnemonic(i, where),
                          i.operands.count, i.operands.count == 1 ? "" : "s"),
              where);
}

void Module::bad_range(Range r, size_t pool_size, const char* pool, Where where) {
  throw Error(fmt::format("{} {} from index {} are out of range: the module has {} {}", r.count, pool, r.first,
                          pool_size, pool),
              where);
}

void Module::check(Stmt s, Where where) const {
  if (static_cast<uint8_t>(s.kind) > static_cast<uint8_t>(StmtKind::Section))
    throw Error(fmt::format("statement kind {} is not a StmtKind", static_cast<unsigned>(s.kind)), where);
  const size_t n = pool_size(*this, s.kind);
  if (s.index >= n)
    throw Error(fmt::format("statement index {} is out of range: the module has {} {}", s.index, n, pool_name(s.kind)),
                where);
}

void Module::check_expr_children(const Expr& e, Where where) const {
  auto symbol = [&](uint32_t id) { text(Symbol{id}, where); };
  switch (e.kind) {
    case ExprKind::Name:
      symbol(e.a);
      symbol(e.b);
      return;
    case ExprKind::String:
      symbol(e.a);
      return;
    case ExprKind::Int:
      return;
    case ExprKind::Float:
      if (static_cast<Notation>(e.sub) == Notation::Spelled) symbol(e.aux);
      return;
    case ExprKind::Unary:
      check(ExprId{e.a}, where);
      return;
    case ExprKind::Binary:
    case ExprKind::Apply:
      check(ExprId{e.a}, where);
      check(ExprId{e.b}, where);
      return;
    case ExprKind::Ternary:
      check(ExprId{e.a}, where);
      check(ExprId{e.b}, where);
      check(ExprId{e.aux}, where);
      return;
    case ExprKind::List:
      for (const ListItem& it : slice(Range{e.a, e.b}, where)) check(ExprId{it.node}, where);
      return;
    case ExprKind::Suffixed:
      check(ExprId{e.a}, where);
      symbol(e.b);
      return;
  }
  throw Error(fmt::format("expression kind {} is not an ExprKind", static_cast<unsigned>(e.kind)), where);
}

}  // namespace ptx::ir
