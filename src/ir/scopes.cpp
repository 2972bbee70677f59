#include "ptxpp/ir/scopes.hpp"

#include <algorithm>
#include <charconv>

#include "ptxpp/ir/queries.hpp"

namespace ptx::ir {

namespace {

// "%r17" -> ("%r", 17): the register `name` would be in a `%r<N>` range. A name without
// trailing digits, or with a leading zero (%r01), is no range's register.
struct RangeName {
  std::string_view base;
  uint64_t index = 0;
  bool valid = false;
};

RangeName split_range_name(std::string_view s) {
  size_t digits = s.size();
  while (digits > 0 && s[digits - 1] >= '0' && s[digits - 1] <= '9') --digits;
  if (digits == s.size() || digits == 0 || (s[digits] == '0' && s.size() - digits > 1)) return {};
  RangeName r;
  r.base = s.substr(0, digits);
  const auto res = std::from_chars(s.data() + digits, s.data() + s.size(), r.index);
  if (res.ec != std::errc{}) r.index = UINT64_MAX;  // too many digits: only a range of unknown size covers it
  r.valid = true;
  return r;
}

bool covers(const Declaration& d, uint64_t index) {
  return d.kind == Declaration::RegisterRange && (d.count == Declaration::kUnknownCount || index < d.count);
}

}  // namespace

Scopes::Scopes(const Module& m)
    : m_(m),
      of_block_(m.blocks.size(), kNone),
      of_function_(m.functions.size(), kNone),
      of_declarator_(m.declarators.size(), kNone),
      of_label_(m.labels.size(), kNone) {
  add_scope(kNone, Module::kRoot, kNone, 0);
  const auto& stmts = m.root().stmts;
  // The module's top level: everything is seen everywhere (order 0), functions included.
  for (uint32_t i = 0; i < stmts.size(); ++i) {
    const Stmt& s = stmts[i];
    if (s.kind == StmtKind::Decl) {
      declare_decl(kModule, s.index, 0);
    } else if (s.kind == StmtKind::Function) {
      const Function& f = m.functions[s.index];
      Declaration d;
      d.kind = Declaration::Function;
      d.name = f.name;
      d.node = s.index;
      d.loc = f.loc;
      declare(d);
    } else if (s.kind == StmtKind::Label) {
      Declaration d;
      d.kind = Declaration::Label;
      d.name = m.labels[s.index].name;
      d.node = s.index;
      d.loc = m.labels[s.index].loc;
      declare(d);
    }
  }
  for (uint32_t i = 0; i < stmts.size(); ++i) {
    const Stmt& s = stmts[i];
    if (s.kind == StmtKind::Function && m.functions[s.index].has_body()) build_function(s.index, i);
    if (s.kind == StmtKind::Section) build_block(add_scope(kModule, m.sections[s.index].body, kNone, i));
  }
  range_conflicts();
}

uint32_t Scopes::add_scope(uint32_t parent, uint32_t block, uint32_t function, uint32_t position) {
  m_.check(Stmt{StmtKind::Block, block});
  const uint32_t s = static_cast<uint32_t>(scopes_.size());
  scopes_.push_back({parent, block, function, position});
  by_scope_.emplace_back();
  has_ranges_.push_back(false);
  of_block_[block] = s;
  return s;
}

void Scopes::build_function(uint32_t function, uint32_t position) {
  const Function& f = m_.functions[function];
  const uint32_t s = add_scope(kModule, f.body, function, position);
  of_function_[function] = s;
  for (const ParamList* pl : {&f.ret, &f.params})
    for (const ListItem& it : m_.slice(pl->params)) declare_decl(s, it.node, 0);
  build_block(s);
}

void Scopes::build_block(uint32_t s) {
  const std::vector<Stmt>& stmts = m_.blocks[scopes_[s].block].stmts;
  for (uint32_t i = 0; i < stmts.size(); ++i) {
    const Stmt& st = stmts[i];
    m_.check(st);
    switch (st.kind) {
      case StmtKind::Decl:
        declare_decl(s, st.index, i + 1);
        break;
      case StmtKind::Label: {
        const Label& l = m_.labels[st.index];
        Declaration d;
        d.kind = Declaration::Label;
        d.name = l.name;
        d.scope = s;
        d.node = st.index;
        d.loc = l.loc;
        declare(d);
        break;
      }
      case StmtKind::Block:
        build_block(add_scope(s, st.index, scopes_[s].function, i));
        break;
      default:
        break;
    }
  }
}

void Scopes::declare_decl(uint32_t s, uint32_t decl, uint32_t order) {
  m_.check(Stmt{StmtKind::Decl, decl});
  const Decl& dl = m_.decls[decl];
  for (uint32_t i = 0; i < dl.declarators.count; ++i) {
    const uint32_t index = dl.declarators.first + i;
    const Declarator& dc = m_.declarators_of(dl)[i];
    Declaration d;
    d.name = dc.name;
    d.scope = s;
    d.order = order;
    d.node = index;
    d.decl = decl;
    d.loc = dl.loc;
    if (dc.range) {
      d.kind = Declaration::RegisterRange;
      const Expr& list = m_.expr(dc.range);
      const auto n = list.kind == ExprKind::List && list.b == 1
                         ? eval_int(m_, ExprId{m_.slice(Range{list.a, 1})[0].node})
                         : std::nullopt;
      d.count = n && *n >= 0 ? static_cast<uint64_t>(*n) : Declaration::kUnknownCount;
      has_ranges_[s] = true;
    }
    declare(d);
  }
}

void Scopes::declare(Declaration d) {
  const uint32_t id = static_cast<uint32_t>(decls_.size());
  if (d.kind == Declaration::Label)
    of_label_[d.node] = id;
  else if (d.kind != Declaration::Function)
    of_declarator_[d.node] = id;
  const auto [it, fresh] = index_.try_emplace(key(d.scope, d.name.id), id);
  if (!fresh && !(d.kind == Declaration::Function && decls_[it->second].kind == Declaration::Function))
    conflicts_.emplace_back(it->second, id);
  by_scope_[d.scope].push_back(id);
  decls_.push_back(d);
}

// A register declared on its own in the scope of a range that already names it (`%r<4>`
// and `%r1`) is declared twice.
void Scopes::range_conflicts() {
  for (uint32_t s = 0; s < scopes_.size(); ++s) {
    if (!has_ranges_[s]) continue;
    for (uint32_t id : by_scope_[s]) {
      const Declaration& d = decls_[id];
      if (d.kind != Declaration::Variable && d.kind != Declaration::Label) continue;
      const RangeName rn = split_range_name(m_.text(d.name));
      Symbol base;
      if (!rn.valid || !m_.strings.find(rn.base, base)) continue;
      const uint32_t r = find(s, base.id);
      if (r != kNone && covers(decls_[r], rn.index)) conflicts_.emplace_back(std::min(r, id), std::max(r, id));
    }
  }
  std::sort(conflicts_.begin(), conflicts_.end());
}

uint32_t Scopes::find(uint32_t s, uint32_t symbol) const {
  const auto it = index_.find(key(s, symbol));
  return it == index_.end() ? kNone : it->second;
}

Resolved Scopes::lookup(uint32_t s, uint32_t at, Symbol name) const { return lookup(s, at, &name, m_.text(name)); }

Resolved Scopes::lookup(uint32_t s, uint32_t at, std::string_view name) const {
  Symbol sym;
  return lookup(s, at, m_.strings.find(name, sym) ? &sym : nullptr, name);
}

// `name` may be a string the module does not hold (no declaration has it, though a range may cover it).
Resolved Scopes::lookup(uint32_t s, uint32_t at, const Symbol* name, std::string_view text) const {
  RangeName rn;
  bool split = false;
  Symbol base;
  for (; s != kNone && s < scopes_.size(); at = scopes_[s].position, s = scopes_[s].parent) {
    const uint32_t d = name ? find(s, name->id) : kNone;
    // a range's base (%r of %r<4>) names no register
    if (d != kNone && decls_[d].order <= at && decls_[d].kind != Declaration::RegisterRange) return {d, 0};
    if (!has_ranges_[s]) continue;
    if (!split) {
      split = true;
      rn = split_range_name(text);
      rn.valid = rn.valid && m_.strings.find(rn.base, base);
    }
    if (!rn.valid) continue;
    const uint32_t r = find(s, base.id);
    if (r != kNone && decls_[r].order <= at && covers(decls_[r], rn.index)) return {r, rn.index};
  }
  return {};
}

}  // namespace ptx::ir
