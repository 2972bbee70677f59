// ptx::block: a `{ ... }` scope whose registers and labels are its own, as Triton and
// CUTLASS write their inline-asm wait loops (`{ .reg .pred P1; waitLoop: ... @!P1 bra waitLoop; }`).
#include <fmt/format.h>

#include "ptxpp/dsl/control.hpp"
#include "trace.hpp"

namespace ptx {

namespace dsl {

std::string Trace::block_name(std::string_view base) {
  const auto seen = [&](const std::string& n) {
    if (used_names_.count(n)) return true;
    for (const BlockScope& b : blocks_)
      if (b.names.count(n)) return true;
    return false;
  };
  std::string name(base);
  for (int k = 2; seen(name); ++k) name = fmt::format("{}_{}", base, k);
  blocks_.back().names.insert(name);
  return name;
}

void Trace::declare_in_block(std::string_view decl_type, const std::string& name, uint32_t count) {
  const ir::ExprId range = count ? m.add_list(ir::Delim::Angle, {m.add_int(count)}) : ir::ExprId{};
  blocks_.back().decls.push_back(ir::Stmt{ir::StmtKind::Decl, m.add_decl({".reg", decl_type}, name, range)});
}

void Trace::open_block(ptx::SourceLocation where) {
  BlockScope b;
  b.serial = ++block_serial_;
  b.where = where;
  b.outer_body = std::move(body);
  b.outer_leads = std::move(leads);
  body.clear();
  leads.clear();
  blocks_.push_back(std::move(b));
  last_instruction = last_dest = 0xFFFFFFFFu;
}

void Trace::close_block(ptx::SourceLocation where) {
  if (blocks_.empty()) throw Error("ptx::block: no block is open", where);
  BlockScope b = std::move(blocks_.back());
  blocks_.pop_back();
  std::vector<ir::Stmt> inner = std::move(b.decls);
  const size_t declared = inner.size();
  inner.insert(inner.end(), body.begin(), body.end());
  const ir::Trivia close = apply_leads(inner, declared);
  body = std::move(b.outer_body);
  leads = std::move(b.outer_leads);
  const uint32_t index = m.add_block();
  m.blocks[index].stmts = std::move(inner);
  m.blocks[index].close = close;
  body.push_back(ir::Stmt{ir::StmtKind::Block, index});
  last_instruction = last_dest = 0xFFFFFFFFu;
  for (uint32_t e : b.regs)
    ended_names_.emplace(e, std::pair("register " + std::string(m.text(ir::Symbol{m.exprs[e].a})), b.where));
  for (LabelInfo& l : labels_)
    if (l.block == b.serial) {
      l.ended = true;
      l.block_where = b.where;
    }
}

void Trace::check_live(std::span<const Operand> ops, const Operand* guard, ptx::SourceLocation where) const {
  for (const Operand& o : ops) check_live_expr(o.expr, where);
  if (guard) check_live_expr(guard->expr, where);
}

void Trace::check_live_expr(ir::ExprId id, ptx::SourceLocation where) const {
  if (!id) return;
  const ir::Expr& e = m.exprs[id.v];
  switch (e.kind) {
    case ir::ExprKind::Name:
      if (auto it = ended_names_.find(id.v); it != ended_names_.end())
        throw Error(fmt::format("{} belongs to the ptx::block at line {}, which has ended: it is not seen outside "
                                "that block",
                                it->second.first, it->second.second.line()),
                    where);
      return;
    case ir::ExprKind::Unary:
    case ir::ExprKind::Suffixed:
      return check_live_expr(ir::ExprId{e.a}, where);
    case ir::ExprKind::Binary:
    case ir::ExprKind::Apply:
      check_live_expr(ir::ExprId{e.a}, where);
      return check_live_expr(ir::ExprId{e.b}, where);
    case ir::ExprKind::List:
      for (uint32_t i = 0; i < e.b; ++i) check_live_expr(ir::ExprId{m.items[e.a + i].node}, where);
      return;
    default:
      return;
  }
}

}  // namespace dsl

void block(const std::function<void()>& body, ptx::SourceLocation where) {
  dsl::Trace& t = dsl::Trace::current(where);
  t.open_block(where);
  body();
  t.close_block(where);
}

}  // namespace ptx
