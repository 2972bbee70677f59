// Walking the IR. Passes visit expressions, operands and nested blocks through these, so that
// every node kind (a Ternary inside an operand, a Suffixed address, a block nested in a block)
// is handled in one place instead of in each pass's own recursion.
#pragma once

#include "ptxpp/ir/module.hpp"

namespace ptx::ir {

// f(id, expr) for `id` and every expression inside it, outer before inner, left to right.
template <class F>
void for_each_expr(const Module& m, ExprId id, F&& f) {
  const Expr& e = m.expr(id);
  f(id, e);
  switch (e.kind) {
    case ExprKind::Unary:
    case ExprKind::Suffixed:
      for_each_expr(m, ExprId{e.a}, f);
      return;
    case ExprKind::Binary:
    case ExprKind::Apply:
      for_each_expr(m, ExprId{e.a}, f);
      for_each_expr(m, ExprId{e.b}, f);
      return;
    case ExprKind::Ternary:
      for_each_expr(m, ExprId{e.a}, f);
      for_each_expr(m, ExprId{e.b}, f);
      for_each_expr(m, ExprId{e.aux}, f);
      return;
    case ExprKind::List:
      for (const ListItem& it : m.slice(Range{e.a, e.b})) for_each_expr(m, ExprId{it.node}, f);
      return;
    case ExprKind::Name:
    case ExprKind::Int:
    case ExprKind::Float:
    case ExprKind::String:
      return;
  }
}

// f(expr) for every Name in the expression (registers, symbols, labels, special registers).
template <class F>
void for_each_name(const Module& m, ExprId id, F&& f) {
  for_each_expr(m, id, [&](ExprId, const Expr& e) {
    if (e.kind == ExprKind::Name) f(e);
  });
}

// f(id) for the guard (`@p`, `@!p`) and then each operand of an instruction.
template <class F>
void for_each_operand(const Module& m, const Instruction& in, F&& f) {
  if (in.guard) f(in.guard);
  for (const ListItem& it : m.operands_of(in)) f(ExprId{it.node});
}

// f(stmt) for every statement of `b` and of the blocks nested in it, in program order (a nested
// block's Block statement comes before its own statements).
template <class F>
void for_each_stmt(const Module& m, const Block& b, F&& f) {
  for (const Stmt& s : b.stmts) {
    f(s);
    if (s.kind == StmtKind::Block) for_each_stmt(m, m.blocks[s.index], f);
  }
}

}  // namespace ptx::ir
