// Module::rename, and the checks that keep it from merging two names into one
// or leaving a use without its declaration.
#include <fmt/format.h>

#include <charconv>
#include <map>
#include <set>

#include "ptxpp/ir/identifier.hpp"
#include "ptxpp/ir/module.hpp"
#include "ptxpp/ir/queries.hpp"

namespace ptx::ir {

namespace {

// Where a name occurs: inside one function (its parameters, header directives and
// body, nested blocks included), or at the module's top level, which every
// function sees.
constexpr uint32_t kTopLevel = 0xFFFFFFFFu;

// `%r<4>`: the declarator named `base` declares base0 .. base{count-1}.
struct RangeDecl {
  Symbol base;
  uint64_t count = 0;  // UINT64_MAX when the count is not a constant
};

// Every name of the module by scope, and the register ranges each scope declares.
class NameScopes {
 public:
  explicit NameScopes(const Module& m) : m_(m) { block(kTopLevel, Module::kRoot); }

  // The scopes `name` occurs in (as a declaration or a use).
  const std::set<uint32_t>& scopes_of(Symbol name) const {
    static const std::set<uint32_t> kNone;
    auto it = names_.find(name.id);
    return it == names_.end() ? kNone : it->second;
  }
  // The range in `scope` that declares `name` as one of its numbered registers, if any.
  const RangeDecl* range_covering(uint32_t scope, std::string_view name) const;
  // The scopes that declare ranges.
  std::vector<uint32_t> scopes_with_ranges() const {
    std::vector<uint32_t> out;
    for (const auto& [scope, ranges] : ranges_) out.push_back(scope);
    return out;
  }
  // The range in `scope` whose base is `name`, if any.
  const RangeDecl* range_named(uint32_t scope, Symbol name) const;

 private:
  void occurs(uint32_t scope, Symbol name) { names_[name.id].insert(scope); }
  void expr(uint32_t scope, ExprId id);
  void decl(uint32_t scope, uint32_t index);
  void params(uint32_t scope, const ParamList& p);
  void directive(uint32_t scope, uint32_t index);
  void block(uint32_t scope, uint32_t index);
  void stmt(uint32_t scope, const Stmt& s);

  const Module& m_;
  std::map<uint32_t, std::set<uint32_t>> names_;       // symbol -> scopes
  std::map<uint32_t, std::vector<RangeDecl>> ranges_;  // scope -> ranges declared there
};

void NameScopes::expr(uint32_t scope, ExprId id) {
  const Expr& e = m_.expr(id);
  switch (e.kind) {
    case ExprKind::Name:
      occurs(scope, Symbol{e.a});
      return;
    case ExprKind::Unary:
    case ExprKind::Suffixed:
      expr(scope, ExprId{e.a});
      return;
    case ExprKind::Binary:
    case ExprKind::Apply:
      expr(scope, ExprId{e.a});
      expr(scope, ExprId{e.b});
      return;
    case ExprKind::Ternary:
      expr(scope, ExprId{e.a});
      expr(scope, ExprId{e.b});
      expr(scope, ExprId{e.aux});
      return;
    case ExprKind::List:
      for (const ListItem& it : m_.slice(Range{e.a, e.b})) expr(scope, ExprId{it.node});
      return;
    case ExprKind::Int:
    case ExprKind::Float:
    case ExprKind::String:
      return;
  }
}

void NameScopes::decl(uint32_t scope, uint32_t index) {
  m_.check(Stmt{StmtKind::Decl, index});
  for (const Declarator& dc : m_.declarators_of(m_.decls[index])) {
    occurs(scope, dc.name);
    if (dc.range) {
      const Expr& list = m_.expr(dc.range);
      const auto n = list.kind == ExprKind::List && list.b == 1
                         ? eval_int(m_, ExprId{m_.slice(Range{list.a, 1})[0].node})
                         : std::nullopt;
      ranges_[scope].push_back({dc.name, n && *n >= 0 ? static_cast<uint64_t>(*n) : UINT64_MAX});
      expr(scope, dc.range);
    }
    for (const ListItem& dim : m_.slice(dc.dims)) expr(scope, ExprId{dim.node});
    if (dc.init) expr(scope, dc.init);
  }
}

void NameScopes::params(uint32_t scope, const ParamList& p) {
  for (const ListItem& it : m_.slice(p.params)) decl(scope, it.node);
}

void NameScopes::directive(uint32_t scope, uint32_t index) {
  m_.check(Stmt{StmtKind::Directive, index});
  for (const ListItem& it : m_.slice(m_.directives[index].items)) expr(scope, ExprId{it.node});
}

void NameScopes::block(uint32_t scope, uint32_t index) {
  m_.check(Stmt{StmtKind::Block, index});
  for (const Stmt& s : m_.blocks[index].stmts) stmt(scope, s);
}

void NameScopes::stmt(uint32_t scope, const Stmt& s) {
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
    case StmtKind::Block:
      block(scope, s.index);
      return;
    case StmtKind::Prototype:
      params(scope, m_.prototypes[s.index].ret);
      params(scope, m_.prototypes[s.index].params);
      return;
    case StmtKind::Function: {
      const Function& f = m_.functions[s.index];
      occurs(kTopLevel, f.name);
      params(s.index, f.ret);
      params(s.index, f.params);
      for (uint32_t d : f.header) directive(s.index, d);
      if (f.has_body()) block(s.index, f.body);
      return;
    }
    case StmtKind::Section:
      block(kTopLevel, m_.sections[s.index].body);
      return;
  }
}

const RangeDecl* NameScopes::range_covering(uint32_t scope, std::string_view name) const {
  auto it = ranges_.find(scope);
  if (it == ranges_.end()) return nullptr;
  const size_t digits = name.find_last_not_of("0123456789") + 1;
  if (digits == name.size() || (name[digits] == '0' && digits + 1 < name.size())) return nullptr;  // %r, %r01
  uint64_t n = 0;
  const auto r = std::from_chars(name.data() + digits, name.data() + name.size(), n);
  if (r.ec != std::errc{}) n = UINT64_MAX;  // too many digits: only an unknown count covers it
  for (const RangeDecl& d : it->second)
    if (m_.text(d.base) == name.substr(0, digits) && n < d.count) return &d;
  return nullptr;
}

const RangeDecl* NameScopes::range_named(uint32_t scope, Symbol name) const {
  auto it = ranges_.find(scope);
  if (it == ranges_.end()) return nullptr;
  for (const RangeDecl& d : it->second)
    if (d.base == name) return &d;
  return nullptr;
}

std::string scope_name(const Module& m, uint32_t scope) {
  return scope == kTopLevel ? "at the module's top level"
                            : fmt::format("in function '{}'", m.text(m.functions[scope].name));
}

std::string range_text(const Module& m, const RangeDecl& r) {
  return r.count == UINT64_MAX ? fmt::format("'{}<...>'", m.text(r.base))
                               : fmt::format("'{}<{}>'", m.text(r.base), r.count);
}

// Why renaming `from` (occurring in `from_scopes`) to `to` would change what a name
// refers to, or "" when it would not.
std::string rename_problem(const Module& m, const NameScopes& scopes, Symbol from, std::string_view to) {
  const std::set<uint32_t>& from_scopes = scopes.scopes_of(from);
  Symbol to_sym;
  const std::set<uint32_t> none;
  const std::set<uint32_t>& to_scopes = m.strings.find(to, to_sym) ? scopes.scopes_of(to_sym) : none;
  const bool from_global = from_scopes.count(kTopLevel) > 0, to_global = to_scopes.count(kTopLevel) > 0;
  for (uint32_t s : from_scopes) {
    if (const RangeDecl* r = scopes.range_named(s, from))
      return fmt::format(
          "'{}' is declared as the range {} {}, whose registers are used by their own names ({}0, ...); "
          "rename cannot change them together",
          m.text(from), range_text(m, *r), scope_name(m, s), m.text(from));
    if (const RangeDecl* r = scopes.range_covering(s, m.text(from)))
      return fmt::format(
          "'{}' is one of the registers the range {} declares {}; renaming it would leave '{}' undeclared",
          m.text(from), range_text(m, *r), scope_name(m, s), to);
  }
  for (uint32_t s : to_scopes)
    if (!from_scopes.empty() && (from_global || to_global || from_scopes.count(s)))
      return fmt::format("'{}' is already a name {}; renaming '{}' to it would merge the two", to, scope_name(m, s),
                         m.text(from));
  // A top-level name is seen in every function: a register range anywhere may declare `to`.
  std::vector<uint32_t> seen(from_scopes.begin(), from_scopes.end());
  if (from_global) seen = scopes.scopes_with_ranges();
  if (!from_scopes.empty()) seen.push_back(kTopLevel);
  for (uint32_t t : seen)
    if (const RangeDecl* r = scopes.range_covering(t, to))
      return fmt::format(
          "'{}' is already a name {} (the range {} declares it); renaming '{}' to it would merge the two", to,
          scope_name(m, t), range_text(m, *r), m.text(from));
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
    const NameScopes scopes(*this);
    if (std::string p = rename_problem(*this, scopes, old_sym, to); !p.empty()) fail(p);
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
