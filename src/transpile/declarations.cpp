// Typed module-level declarations for the transpiler (declarations.hpp).
#include "declarations.hpp"

#include <algorithm>

#include "../dsl/listing_text.hpp"
#include "ptxpp/ir/queries.hpp"
#include "ptxpp/text/parser.hpp"
#include "ptxpp/text/printer.hpp"

namespace ptx::transpile {

namespace {

using namespace ir;
namespace lst = ptx::listing;

// `text` (module-level statements) in canonical form; nullopt when it does not parse.
std::optional<std::string> canonical(std::string_view text) {
  std::string src = ".version 9.0\n.target sm_100a\n.address_size 64\n";
  src += text;
  src += '\n';
  auto parsed = text::parse(src, {"<declaration>"});
  if (!parsed) return std::nullopt;
  return text::print(parsed.module(), text::PrintMode::Canonical);
}

// Whether the listing's PTX for a declaration prints as the original does.
bool same_ptx(std::string_view original, std::string_view written) {
  const auto a = canonical(original);
  return a && a == canonical(written);
}

std::optional<DType> dtype_of(std::string_view spelled) {
  for (int i = 0; i < static_cast<int>(DType::none); ++i)
    if (ptx::name(static_cast<DType>(i)) == spelled) return static_cast<DType>(i);
  return std::nullopt;
}

std::optional<lst::Space> space_of(std::string_view w) {
  for (int i = 0; i <= static_cast<int>(lst::Space::local); ++i)
    if (lst::detail::space_name(static_cast<lst::Space>(i)) == w) return static_cast<lst::Space>(i);
  return std::nullopt;
}

std::optional<lst::Linkage> linkage_of(std::string_view w) {
  for (int i = 1; i <= static_cast<int>(lst::Linkage::common); ++i)
    if (lst::detail::linkage_name(static_cast<lst::Linkage>(i)) == w) return static_cast<lst::Linkage>(i);
  return std::nullopt;
}

std::optional<uint32_t> u32_of(const Module& m, ExprId e) {
  if (!e) return std::nullopt;
  const auto v = eval_int(m, e);
  if (!v || *v < 0 || *v > 0xFFFFFFFF) return std::nullopt;
  return static_cast<uint32_t>(*v);
}

// `[16][]`: 0 for `[]`.
std::optional<std::vector<uint64_t>> dims_of(const Module& m, const Declarator& dc) {
  std::vector<uint64_t> dims;
  for (const ListItem& it : m.slice(dc.dims)) {
    const Expr& list = m.expr(ExprId{it.node});
    if (list.kind != ExprKind::List || list.b > 1) return std::nullopt;
    if (list.b == 0) {
      dims.push_back(0);
      continue;
    }
    const auto v = eval_int(m, ExprId{m.items[list.a].node});
    if (!v || *v <= 0) return std::nullopt;
    dims.push_back(static_cast<uint64_t>(*v));
  }
  return dims;
}

// A parameter: `.param [.align N] .T [.ptr [.space] [.align N]] name[dims]` or `.reg .T name`.
std::optional<lst::Param> param_of(const Module& m, const Decl& d, bool entry) {
  const auto specs = m.specs_of(d.specs);
  const auto decls = m.declarators_of(d);
  if (specs.empty() || decls.size() != 1 || decls[0].range || decls[0].init) return std::nullopt;
  lst::Param p;
  const auto space = space_of(m.text(specs[0].word));
  if (!space || specs[0].arg) return std::nullopt;
  p.space = *space;
  bool typed = false;
  for (size_t i = 1; i < specs.size(); ++i) {
    const std::string_view w = m.text(specs[i].word);
    if (w == ".align") {
      const auto n = u32_of(m, specs[i].arg);
      if (!n) return std::nullopt;
      (p.options.ptr ? p.options.ptr->align : p.options.align) = *n;
    } else if (specs[i].arg) {
      return std::nullopt;
    } else if (w == ".ptr" && typed && !p.options.ptr) {
      p.options.ptr = lst::Ptr{};
    } else if (const auto s = space_of(w); s && p.options.ptr) {
      p.options.ptr->space = *s;
    } else if (const auto t = dtype_of(w); t && !typed) {
      p.type = *t;
      typed = true;
    } else {
      return std::nullopt;
    }
  }
  const auto dims = dims_of(m, decls[0]);
  if (!typed || !dims) return std::nullopt;
  p.options.dims = *dims;
  p.name = std::string(m.text(decls[0].name));
  if (!lst::detail::param_problem(p, entry).empty()) return std::nullopt;
  return p;
}

std::optional<std::vector<lst::Param>> params_of(const Module& m, const ParamList& list, bool entry) {
  std::vector<lst::Param> out;
  for (const ListItem& it : m.slice(list.params)) {
    auto p = param_of(m, m.decls[it.node], entry);
    if (!p) return std::nullopt;
    out.push_back(std::move(*p));
  }
  return out;
}

std::optional<lst::FunctionDirective> directive_of(const Module& m, const Directive& d) {
  for (int i = 0; i <= static_cast<int>(lst::DirectiveKind::abi_preserve_control); ++i) {
    const auto kind = static_cast<lst::DirectiveKind>(i);
    if (lst::detail::directive_name(kind) != m.text(d.name)) continue;
    lst::FunctionDirective out{kind, {}};
    for (const ListItem& it : m.slice(d.items)) {
      const auto v = u32_of(m, ExprId{it.node});
      if (!v) return std::nullopt;
      out.values.push_back(*v);
    }
    if (!lst::detail::directive_problem(out).empty()) return std::nullopt;
    return out;
  }
  return std::nullopt;
}

std::optional<int64_t> int_of(const Module& m, ExprId e) {
  const Expr& x = m.expr(e);
  const bool literal = x.kind == ExprKind::Int ||
                       (x.kind == ExprKind::Unary && m.expr(ExprId{x.a}).kind == ExprKind::Int);
  return literal ? eval_int(m, e) : std::nullopt;
}

std::optional<std::vector<int64_t>> init_of(const Module& m, ExprId e, bool array) {
  if (!array) {
    const auto v = int_of(m, e);
    return v ? std::optional(std::vector<int64_t>{*v}) : std::nullopt;
  }
  const Expr& list = m.expr(e);
  if (list.kind != ExprKind::List || list.b == 0) return std::nullopt;
  std::vector<int64_t> out;
  for (const ListItem& it : m.slice(Range{list.a, list.b})) {
    const auto v = int_of(m, ExprId{it.node});
    if (!v) return std::nullopt;
    out.push_back(*v);
  }
  return out;
}

// A one-line directive in canonical form, without the comments before it.
std::string directive_line(const Module& m, const Stmt& s) {
  std::string t = text::print_stmt(m, s, text::PrintMode::Canonical);
  t.erase(0, t.rfind('\n') + 1);  // npos + 1 == 0
  t.erase(0, t.find_first_not_of(" \t"));
  return t;
}

}  // namespace

std::optional<ModuleHeader> typed_header(const Module& m, std::string_view target) {
  const auto& stmts = m.root().stmts;
  if (stmts.size() < 3) return std::nullopt;
  static constexpr std::string_view kNames[] = {".version", ".target", ".address_size"};
  for (size_t i = 0; i < 3; ++i) {
    if (stmts[i].kind != StmtKind::Directive) return std::nullopt;
    const Directive& d = m.directives[stmts[i].index];
    if (m.text(d.name) != kNames[i] || d.items.count != 1 || d.has_semi) return std::nullopt;
    if (!stmts[i].trail.synthesized() && m.text(stmts[i].trail).find_first_not_of(" \t\r") != std::string_view::npos)
      return std::nullopt;
    // nothing between the three lines but one line break
    if (i > 0 && !d.lead.synthesized()) {
      const std::string_view lead = m.text(d.lead);
      if (lead.find_first_not_of(" \t\r\n") != std::string_view::npos || std::count(lead.begin(), lead.end(), '\n') > 1)
        return std::nullopt;
    }
  }
  const Directive& version = m.directives[stmts[0].index];
  ModuleHeader h;
  h.version = text::print_expr(m, ExprId{m.items[version.items.first].node});
  const auto size = u32_of(m, ExprId{m.items[m.directives[stmts[2].index].items.first].node});
  if (!size) return std::nullopt;
  h.address_size = *size;
  if (directive_line(m, stmts[0]) != ".version " + h.version ||
      directive_line(m, stmts[1]) != ".target " + std::string(target) ||
      directive_line(m, stmts[2]) != ".address_size " + std::to_string(h.address_size))
    return std::nullopt;
  return h;
}

std::optional<TypedFunction> typed_function(const Module& m, const Function& f, std::string_view header) {
  TypedFunction out;
  const auto specs = m.specs_of(f.specs);
  size_t i = 0;
  if (!specs.empty() && !specs[0].arg)
    if (const auto l = linkage_of(m.text(specs[0].word))) {
      out.options.linkage = *l;
      i = 1;
    }
  if (specs.size() != i + 1 || specs[i].arg) return std::nullopt;
  const std::string_view kind = m.text(specs[i].word);
  if (kind != ".entry" && kind != ".func") return std::nullopt;
  out.entry = kind == ".entry";
  if (!f.params.present || (f.ret.present && (out.entry || f.ret.params.count == 0))) return std::nullopt;
  out.name = std::string(m.text(f.name));
  auto params = params_of(m, f.params, out.entry);
  auto ret = params_of(m, f.ret, false);
  if (!params || !ret) return std::nullopt;
  out.params = std::move(*params);
  out.ret = std::move(*ret);
  for (const uint32_t d : f.header) {
    const auto dir = directive_of(m, m.directives[d]);
    if (!dir) return std::nullopt;
    out.options.directives.push_back(*dir);
  }
  std::string written = lst::detail::function_header(out.entry, out.name, out.ret.empty() ? nullptr : &out.ret,
                                                     out.params, out.options);
  written += f.has_body() ? "\n{\n}" : ";";
  const std::string original = f.has_body() ? std::string(header) + "{\n}" : std::string(header);
  if (!same_ptx(original, written)) return std::nullopt;
  return out;
}

std::optional<TypedVariable> typed_variable(const Module& m, const Decl& d, std::string_view text) {
  const auto specs = m.specs_of(d.specs);
  const auto decls = m.declarators_of(d);
  if (decls.size() != 1 || decls[0].range || !d.has_semi) return std::nullopt;
  TypedVariable v{lst::Space::global, DType::none, std::string(m.text(decls[0].name)), {}};
  size_t i = 0;
  if (i < specs.size() && !specs[i].arg)
    if (const auto l = linkage_of(m.text(specs[i].word))) {
      v.options.linkage = *l;
      ++i;
    }
  const auto space = i < specs.size() && !specs[i].arg ? space_of(m.text(specs[i].word)) : std::nullopt;
  if (!space || (*space != lst::Space::global && *space != lst::Space::const_ && *space != lst::Space::shared))
    return std::nullopt;
  v.space = *space;
  ++i;
  if (i < specs.size() && m.text(specs[i].word) == ".align") {
    const auto n = u32_of(m, specs[i].arg);
    if (!n || *n == 0) return std::nullopt;
    v.options.align = *n;
    ++i;
  }
  const auto type = i + 1 == specs.size() && !specs[i].arg ? dtype_of(m.text(specs[i].word)) : std::nullopt;
  auto dims = dims_of(m, decls[0]);
  if (!type || !dims) return std::nullopt;
  v.type = *type;
  v.options.dims = std::move(*dims);
  if (decls[0].init) {
    auto init = init_of(m, decls[0].init, !v.options.dims.empty());
    if (!init) return std::nullopt;
    v.options.init = std::move(*init);
  }
  if (!lst::detail::variable_problem(v.space, v.type, v.options).empty()) return std::nullopt;
  if (!same_ptx(text, lst::detail::variable_text(v.space, v.type, v.name, v.options))) return std::nullopt;
  return v;
}

}  // namespace ptx::transpile
