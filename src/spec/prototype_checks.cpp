// The declarations and the definition of a function agree on its prototype (ptxas 13:
// "Inconsistent prototypes of 'f', number of parameters differ", "... parameter types differ",
// "... parameter state space differ", "... parameter alignment differ"); parameter names may differ.
#include <optional>
#include <string>
#include <unordered_map>

#include "decl_checks.hpp"
#include "ptxpp/ir/queries.hpp"
#include "quoted.hpp"
#include "type_rules.hpp"

namespace ptx::spec::detail {

namespace {

using namespace ptx::ir;

// A parameter as ptxas compares it: state space, type, vector, array dimensions (0 for `[]`)
// and alignment (the type's own when none is written).
struct ParamShape {
  StateSpace space = StateSpace::None;
  std::string_view type;
  uint32_t vector = 1;
  std::vector<int64_t> dims;
  uint64_t align = 0;
};

ParamShape shape_of(const Module& m, const Decl& d) {
  const DeclInfo info = decl_info(m, d);
  ParamShape p{info.space, info.type, info.vector, {}, 0};
  for (const Declarator& dc : m.declarators_of(d))
    for (const ListItem& it : m.slice(dc.dims)) {
      const Expr& dim = m.expr(ExprId{it.node});
      p.dims.push_back(dim.b ? eval_int(m, ExprId{m.items[dim.a].node}).value_or(-1) : 0);
    }
  const auto t = type_info(info.type);
  p.align = info.align ? *info.align : t ? (t->bits + 7) / 8 * info.vector : 0;
  return p;
}

// What differs between two parameters, in ptxas's words; nullopt when they agree.
std::optional<std::string> difference(const ParamShape& a, const ParamShape& b) {
  if (a.space != b.space) return "parameter state space differ";
  if (a.type != b.type || a.vector != b.vector || a.dims != b.dims) return "parameter types differ";
  if (a.align != b.align) return "parameter alignment differ";
  return std::nullopt;
}

std::optional<std::string> difference(const Module& m, const Function& a, const Function& b) {
  for (auto list : {&Function::ret, &Function::params}) {
    const auto pa = m.slice((a.*list).params), pb = m.slice((b.*list).params);
    if (pa.size() != pb.size()) return "number of parameters differ";
    for (size_t i = 0; i < pa.size(); ++i)
      if (auto why = difference(shape_of(m, m.decls[pa[i].node]), shape_of(m, m.decls[pb[i].node]))) return why;
  }
  return std::nullopt;
}

}  // namespace

void check_prototypes(const Module& m, std::vector<Diagnostic>& out) {
  std::unordered_map<uint32_t, const Function*> first;  // by name
  for (const Stmt& s : m.root().stmts) {
    if (s.kind != StmtKind::Function) continue;
    const Function& f = m.functions[s.index];
    const auto [it, fresh] = first.emplace(f.name.id, &f);
    if (fresh) continue;
    if (auto why = difference(m, *it->second, f))
      out.push_back({f.loc, Severity::Error, "inconsistent prototypes of " + quoted(m.text(f.name)) + ": " + *why});
  }
}

}  // namespace ptx::spec::detail
