// Module::rename, and the checks that keep it from merging two names into one
// or leaving a use without its declaration.
#include <fmt/format.h>

#include <map>
#include <set>

#include "ptxpp/ir/identifier.hpp"
#include "ptxpp/ir/module.hpp"
#include "ptxpp/ir/queries.hpp"
#include "ptxpp/ir/scopes.hpp"
#include "ptxpp/ir/walk.hpp"

namespace ptx::ir {

namespace {

// The scopes (ir::Scopes) each name occurs in, as a declaration or a use.
class Occurrences {
 public:
  Occurrences(const Module& m, const Scopes& scopes) : m_(m) {
    for (const Stmt& s : m.root().stmts) stmt(Scopes::kModule, s);
    for (uint32_t sc = 1; sc < scopes.size(); ++sc) {
      for (const Stmt& s : m.blocks[scopes.scope(sc).block].stmts) stmt(sc, s);
      const uint32_t f = scopes.scope(sc).function;
      if (f == Scopes::kNone || scopes.of_function(f) != sc) continue;
      for (uint32_t d : m.functions[f].header) directive(sc, d);
      for (const ParamList* p : {&m.functions[f].ret, &m.functions[f].params}) params(sc, *p);
    }
  }
  const std::set<uint32_t>& of(Symbol name) const {
    static const std::set<uint32_t> kNone;
    auto it = names_.find(name.id);
    return it == names_.end() ? kNone : it->second;
  }

 private:
  void occurs(uint32_t scope, Symbol name) { names_[name.id].insert(scope); }
  void expr(uint32_t scope, ExprId id);
  void decl(uint32_t scope, uint32_t index);
  void params(uint32_t scope, const ParamList& p) {
    for (const ListItem& it : m_.slice(p.params)) decl(scope, it.node);
  }
  void directive(uint32_t scope, uint32_t index) {
    m_.check(Stmt{StmtKind::Directive, index});
    for (const ListItem& it : m_.slice(m_.directives[index].items)) expr(scope, ExprId{it.node});
  }
  void stmt(uint32_t scope, const Stmt& s);

  const Module& m_;
  std::map<uint32_t, std::set<uint32_t>> names_;  // symbol -> scopes
};

void Occurrences::expr(uint32_t scope, ExprId id) {
  for_each_name(m_, id, [&](const Expr& e) { occurs(scope, Symbol{e.a}); });
}

void Occurrences::decl(uint32_t scope, uint32_t index) {
  m_.check(Stmt{StmtKind::Decl, index});
  for (const Declarator& dc : m_.declarators_of(m_.decls[index])) {
    occurs(scope, dc.name);
    if (dc.range) expr(scope, dc.range);
    for (const ListItem& dim : m_.slice(dc.dims)) expr(scope, ExprId{dim.node});
    if (dc.init) expr(scope, dc.init);
  }
}

// One statement of a scope's own block (nested blocks are scopes of their own).
void Occurrences::stmt(uint32_t scope, const Stmt& s) {
  m_.check(s);
  switch (s.kind) {
    case StmtKind::Instruction: {
      const Instruction& in = m_.instructions[s.index];
      if (in.guard) expr(scope, in.guard);
      for (const ListItem& it : m_.operands_of(in)) expr(scope, ExprId{it.node});
      return;
    }
    case StmtKind::Label:
      occurs(scope, m_.labels[s.index].name);
      return;
    case StmtKind::Decl:
      decl(scope, s.index);
      return;
    case StmtKind::Directive:
      directive(scope, s.index);
      return;
    case StmtKind::Prototype:
      params(scope, m_.prototypes[s.index].ret);
      params(scope, m_.prototypes[s.index].params);
      return;
    case StmtKind::Function: {
      const Function& f = m_.functions[s.index];
      occurs(Scopes::kModule, f.name);
      if (f.has_body()) return;  // its own scope
      params(scope, f.ret);
      params(scope, f.params);
      for (uint32_t d : f.header) directive(scope, d);
      return;
    }
    case StmtKind::Block:
    case StmtKind::Section:
      return;  // scopes of their own
  }
}

std::string scope_name(const Module& m, const Scopes& scopes, uint32_t scope) {
  const ScopeInfo& s = scopes.scope(scope);
  if (s.function == Scopes::kNone) return scope == Scopes::kModule ? "at the module's top level" : "in a section";
  return fmt::format("{} function '{}'", scopes.of_function(s.function) == scope ? "in" : "in a block of",
                     m.text(m.functions[s.function].name));
}

std::string range_text(const Module& m, const Declaration& r) {
  return r.count == Declaration::kUnknownCount ? fmt::format("'{}<...>'", m.text(r.name))
                                               : fmt::format("'{}<{}>'", m.text(r.name), r.count);
}

// Whether scope `a` is `b` or inside it.
bool within(const Scopes& scopes, uint32_t a, uint32_t b) {
  for (; a != Scopes::kNone; a = scopes.scope(a).parent)
    if (a == b) return true;
  return false;
}

// Why renaming `from` to `to` would change what a name refers to, or "" when it would not.
// Every `from` becomes `to`: a use of either name then refers to the innermost of the two
// declarations it sees, so wherever one occurs, the other must not be declared as deep or deeper.
std::string rename_problem(const Module& m, Symbol from, std::string_view to) {
  const Scopes scopes(m);
  const Occurrences occurrences(m, scopes);
  for (const Declaration& d : scopes.declarations())
    if (d.kind == Declaration::RegisterRange && d.name == from)
      return fmt::format(
          "'{}' is declared as the range {} {}, whose registers are used by their own names ({}0, ...); "
          "rename cannot change them together",
          m.text(from), range_text(m, d), scope_name(m, scopes, d.scope), m.text(from));
  const std::set<uint32_t>& from_scopes = occurrences.of(from);
  for (uint32_t s : from_scopes) {
    const Resolved r = scopes.lookup(s, Scopes::kAnywhere, from);
    if (r && scopes.declaration(r.declaration).kind == Declaration::RegisterRange) {
      const Declaration& d = scopes.declaration(r.declaration);
      return fmt::format(
          "'{}' is one of the registers the range {} declares {}; renaming it would leave '{}' undeclared",
          m.text(from), range_text(m, d), scope_name(m, scopes, d.scope), to);
    }
  }
  // whether `inner` is declared at least as deep as `outer` (both seen from one place)
  const auto shadows = [&](Resolved inner, Resolved outer) {
    return inner && (!outer || within(scopes, scopes.declaration(inner.declaration).scope,
                                      scopes.declaration(outer.declaration).scope));
  };
  for (uint32_t s : from_scopes) {
    const Resolved t = scopes.lookup(s, Scopes::kAnywhere, to), f = scopes.lookup(s, Scopes::kAnywhere, from);
    if (!shadows(t, f)) continue;
    const Declaration& d = scopes.declaration(t.declaration);
    return fmt::format(
        "'{}' is already a name {}{}; renaming '{}' to it would merge the two", to, scope_name(m, scopes, d.scope),
        d.kind == Declaration::RegisterRange ? fmt::format(" (the range {} declares it)", range_text(m, d))
                                             : std::string(),
        m.text(from));
  }
  Symbol to_sym;
  if (!m.strings.find(to, to_sym)) return "";
  for (uint32_t s : occurrences.of(to_sym)) {
    const Resolved f = scopes.lookup(s, Scopes::kAnywhere, from), t = scopes.lookup(s, Scopes::kAnywhere, to_sym);
    if (!shadows(f, t)) continue;
    return fmt::format(
        "'{}' is named {}, where it would then refer to the '{}' declared {}; renaming '{}' to it "
        "would merge the two",
        to, scope_name(m, scopes, s), m.text(from), scope_name(m, scopes, scopes.declaration(f.declaration).scope),
        m.text(from));
  }
  return "";
}

}  // namespace

size_t Module::rename(std::string_view from, std::string_view to, Where where) {
  auto fail = [&](const std::string& why) { throw Error(fmt::format("rename('{}', '{}'): {}", from, to, why), where); };
  if (std::string p = identifier_problem(from); !p.empty()) fail("the old name is not a PTX identifier: " + p);
  if (std::string p = identifier_problem(to); !p.empty()) fail("the new name is not a PTX identifier: " + p);
  Symbol old_sym;
  if (!strings.find(from, old_sym)) return 0;
  if (from != to) {
    if (std::string p = rename_problem(*this, old_sym, to); !p.empty()) fail(p);
  }
  const Symbol new_sym = strings.intern(to);
  size_t n = 0;
  for (Expr& e : exprs) {
    if (e.kind == ExprKind::Name && e.a == old_sym.id) {
      e.a = new_sym.id;
      ++n;
    }
  }
  for (Declarator& d : declarators) {
    if (d.name == old_sym) {
      d.name = new_sym;
      ++n;
    }
  }
  for (Label& l : labels) {
    if (l.name == old_sym) {
      l.name = new_sym;
      ++n;
    }
  }
  for (Function& f : functions) {
    if (f.name == old_sym) {
      f.name = new_sym;
      ++n;
    }
  }
  return n;
}

}  // namespace ptx::ir
