// The initializer of a .global or .const variable, as ptxas 13 checks it: its shape follows
// the declared array and vector, its values the element type, and its names are variables of
// .global or .const, or functions.
#include <string>
#include <string_view>

#include "decl_checks.hpp"
#include "ptxpp/ir/queries.hpp"
#include "quoted.hpp"
#include "type_rules.hpp"

namespace ptx::spec::detail {

namespace {

using namespace ptx::ir;

class InitializerChecker {
 public:
  InitializerChecker(const Module& m, const Scopes& scopes, const Decl& d, const DeclInfo& info,
                     std::vector<Diagnostic>& out)
      : m_(m), scopes_(scopes), d_(d), info_(info), out_(out) {}

  // Level i < dims: a brace list of at most dims[i] items (any count for `[]`); then, for a
  // vector, a brace list of exactly its count; then a value.
  void check(const Declarator& dc) {
    const auto t = type_info(info_.type);
    if (!t || t->cls == TypeClass::Opaque) return;  // .texref/.samplerref: `{ filter_mode = ... }`, other rules
    const auto dims = m_.slice(dc.dims);
    for (const ListItem& it : dims) {
      const Expr& dim = m_.expr(ExprId{it.node});
      sizes_.push_back(dim.b ? eval_int(m_, ExprId{m_.items[dim.a].node}).value_or(-1) : -1);
    }
    shape(dc.init, 0);
  }

 private:
  void error(const Expr& e, std::string msg) {
    out_.push_back({e.loc ? e.loc : d_.loc, Severity::Error, std::move(msg)});
  }

  bool is_brace(const Expr& e) const { return e.kind == ExprKind::List && static_cast<Delim>(e.sub) == Delim::Brace; }

  // Returns false after an error, so that one initializer gets one.
  bool shape(ExprId id, size_t level) {
    const Expr& e = m_.expr(id);
    const bool vector_level = level == sizes_.size() && info_.vector > 1;
    if (level == sizes_.size() + (info_.vector > 1)) {
      if (!is_brace(e)) return value(e);
      error(e, "a value of " + std::string(info_.type) +
                   " was expected here, not a brace list (ptxas: \"Initial value type mismatch\")");
      return false;
    }
    if (!is_brace(e)) {
      error(e, std::string(vector_level ? "a vector" : "an array") + " is initialized with a brace list {...}");
      return false;
    }
    if (vector_level && e.b != info_.vector) {
      error(e, "a .v" + std::to_string(info_.vector) + " vector takes " + std::to_string(info_.vector) +
                   " values, found " + std::to_string(e.b));
      return false;
    }
    if (!vector_level && sizes_[level] >= 0 && e.b > static_cast<uint64_t>(sizes_[level])) {
      error(e, "too many initializers: " + std::to_string(e.b) + " for an array of " + std::to_string(sizes_[level]));
      return false;
    }
    for (const ListItem& it : m_.slice(Range{e.a, e.b}))
      if (!shape(ExprId{it.node}, level + 1)) return false;
    return true;
  }

  // A value: integer types take no float literal; .f32/.f64 take a float literal only; names
  // are checked by symbol().
  bool value(const Expr& e) {
    const auto t = type_info(info_.type);
    bool has_float = false;
    if (!names(e, has_float)) return false;
    const bool is_float = t->cls == TypeClass::Float;
    const bool is_integer = t->cls == TypeClass::Signed || t->cls == TypeClass::Unsigned;
    if ((is_integer && has_float) || (is_float && !float_literal(e))) {
      error(e, "the initial value does not fit " + std::string(info_.type) + ": " +
                   (is_float ? "write a floating-point literal" : "write an integer") +
                   " (ptxas: \"Initial value type mismatch\")");
      return false;
    }
    return true;
  }

  // 0f3F800000, 1.5, -1.5 (ptxas 13: -0f3F800000 is a syntax error).
  bool float_literal(const Expr& e) const {
    if (e.kind == ExprKind::Float) return true;
    if (e.kind != ExprKind::Unary || static_cast<Op>(e.sub) != Op::Neg) return false;
    const Expr& x = m_.expr(ExprId{e.a});
    return x.kind == ExprKind::Float && static_cast<Notation>(x.sub) == Notation::Spelled;
  }

  // Walks a value's names (not generic's own name) and notes float literals.
  bool names(const Expr& e, bool& has_float) {
    switch (e.kind) {
      case ExprKind::Float:
        has_float = true;
        return true;
      case ExprKind::Name:
        return symbol(e);
      case ExprKind::Unary:
        return names(m_.expr(ExprId{e.a}), has_float);
      case ExprKind::Binary:
        return names(m_.expr(ExprId{e.a}), has_float) && names(m_.expr(ExprId{e.b}), has_float);
      case ExprKind::Ternary:
        return names(m_.expr(ExprId{e.a}), has_float) && names(m_.expr(ExprId{e.b}), has_float) &&
               names(m_.expr(ExprId{e.aux}), has_float);
      case ExprKind::Apply:
        return names(m_.expr(ExprId{e.b}), has_float);
      case ExprKind::List:
        for (const ListItem& it : m_.slice(Range{e.a, e.b}))
          if (!names(m_.expr(ExprId{it.node}), has_float)) return false;
        return true;
      default:
        return true;
    }
  }

  // A name in an initializer: a module variable of .global or .const, or a function (ptxas 13:
  // "Invalid initial value symbol", "Variable used as initial value not in .global or .const
  // state space"). One declared later is reported by declared_before_use.
  bool symbol(const Expr& e) {
    const Symbol name{e.a};
    if (m_.text(name) == "WARP_SZ") return true;
    const Resolved r = scopes_.lookup(Scopes::kModule, Scopes::kAnywhere, name);
    if (!r) {
      error(e, "undeclared symbol " + quoted(m_.text(name)) + " in an initializer");
      return false;
    }
    const Declaration& d = scopes_.declaration(r.declaration);
    if (d.kind == Declaration::Function) return true;
    const StateSpace space = d.decl == Declaration::kNone ? StateSpace::None : decl_info(m_, m_.decls[d.decl]).space;
    if (d.kind == Declaration::Variable && (space == StateSpace::Global || space == StateSpace::Const)) return true;
    error(e, quoted(m_.text(name)) + " is in " + std::string(to_string(space)) +
                 ": an initializer takes the address of .global and .const variables and functions only");
    return false;
  }

  const Module& m_;
  const Scopes& scopes_;
  const Decl& d_;
  const DeclInfo& info_;
  std::vector<Diagnostic>& out_;
  std::vector<int64_t> sizes_;  // the declared array dimensions, -1 for `[]`
};

}  // namespace

void check_initializer(const Module& m, const Scopes& scopes, const Decl& d, const Declarator& dc, const DeclInfo& info,
                       std::vector<Diagnostic>& out) {
  InitializerChecker(m, scopes, d, info, out).check(dc);
}

}  // namespace ptx::spec::detail
