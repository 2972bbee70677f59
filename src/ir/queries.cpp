#include "ptxpp/ir/queries.hpp"

namespace ptx::ir {

namespace {

const Directive* find_directive(const Module& m, std::string_view name) {
  for (const Stmt& s : m.root().stmts)
    if (s.kind == StmtKind::Directive && m.text(m.directives[s.index].name) == name) return &m.directives[s.index];
  return nullptr;
}

StateSpace space_of(std::string_view w) {
  if (w == ".reg") return StateSpace::Reg;
  if (w == ".sreg") return StateSpace::SReg;
  if (w == ".const") return StateSpace::Const;
  if (w == ".global") return StateSpace::Global;
  if (w == ".local") return StateSpace::Local;
  if (w == ".param") return StateSpace::Param;
  if (w == ".shared") return StateSpace::Shared;
  if (w == ".tex") return StateSpace::Tex;
  return StateSpace::None;
}

}  // namespace

std::string_view to_string(StateSpace s) {
  switch (s) {
    case StateSpace::None: return "";
    case StateSpace::Reg: return ".reg";
    case StateSpace::SReg: return ".sreg";
    case StateSpace::Const: return ".const";
    case StateSpace::Global: return ".global";
    case StateSpace::Local: return ".local";
    case StateSpace::Param: return ".param";
    case StateSpace::Shared: return ".shared";
    case StateSpace::Tex: return ".tex";
  }
  return "";
}

std::optional<PtxVersion> ptx_version(const Module& m) {
  const Directive* d = find_directive(m, ".version");
  if (!d || d->items.count != 1) return std::nullopt;
  const Expr& e = m.expr(ExprId{m.items[d->items.first].node});
  if (e.kind != ExprKind::Float || static_cast<Notation>(e.sub) != Notation::Spelled) return std::nullopt;
  return PtxVersion::parse(m.strings.view_id(e.aux));
}

std::vector<std::string_view> target_words(const Module& m) {
  std::vector<std::string_view> out;
  if (const Directive* d = find_directive(m, ".target"))
    for (const ListItem& it : m.slice(d->items)) out.push_back(m.name_of(ExprId{it.node}));
  return out;
}

std::optional<uint64_t> address_size(const Module& m) {
  const Directive* d = find_directive(m, ".address_size");
  if (!d || d->items.count != 1) return std::nullopt;
  const Expr& e = m.expr(ExprId{m.items[d->items.first].node});
  if (e.kind != ExprKind::Int) return std::nullopt;
  return e.value;
}

DeclInfo decl_info(const Module& m, const Decl& d) {
  DeclInfo info;
  bool after_ptr = false;
  for (const Spec& s : m.specs_of(d.specs)) {
    const std::string_view w = m.text(s.word);
    if (w == ".ptr") {
      info.ptr = after_ptr = true;
    } else if (w == ".align") {
      std::optional<uint64_t> a;
      if (s.arg) a = m.expr(s.arg).value;
      (after_ptr ? info.ptr_align : info.align) = a;
    } else if (w == ".visible" || w == ".extern" || w == ".weak" || w == ".common") {
      info.linkage = w;
    } else if (w == ".v2" || w == ".v4" || w == ".v8") {
      info.vector = static_cast<uint32_t>(w[2] - '0');
    } else if (w == ".attribute") {
      if (s.arg)
        for (const ListItem& it : m.slice(Range{m.expr(s.arg).a, m.expr(s.arg).b}))
          if (m.name_of(ExprId{it.node}) == ".managed") info.managed = true;
    } else if (StateSpace sp = space_of(w); sp != StateSpace::None) {
      (after_ptr ? info.ptr_space : info.space) = sp;
    } else {
      info.type = w;
    }
  }
  return info;
}

std::optional<int64_t> eval_int(const Module& m, ExprId id) {
  const Expr& e = m.expr(id);
  switch (e.kind) {
    case ExprKind::Int: return static_cast<int64_t>(e.value);
    case ExprKind::List:
      // A parenthesized expression.
      if (static_cast<Delim>(e.sub) == Delim::Paren && e.b == 1) return eval_int(m, ExprId{m.items[e.a].node});
      return std::nullopt;
    case ExprKind::Unary: {
      auto a = eval_int(m, ExprId{e.a});
      if (!a) return std::nullopt;
      const uint64_t u = static_cast<uint64_t>(*a);
      switch (static_cast<Op>(e.sub)) {
        case Op::Neg: return static_cast<int64_t>(0 - u);
        case Op::Plus: return *a;
        case Op::Not: return *a == 0 ? 1 : 0;
        case Op::BitNot: return static_cast<int64_t>(~u);
        default: return std::nullopt;
      }
    }
    case ExprKind::Binary: {
      auto a = eval_int(m, ExprId{e.a});
      auto b = eval_int(m, ExprId{e.b});
      if (!a || !b) return std::nullopt;
      const auto ua = static_cast<uint64_t>(*a), ub = static_cast<uint64_t>(*b);
      switch (static_cast<Op>(e.sub)) {
        case Op::Mul: return static_cast<int64_t>(ua * ub);
        case Op::Div:
          if (*b == 0 || (*a == INT64_MIN && *b == -1)) return std::nullopt;
          return *a / *b;
        case Op::Rem:
          if (*b == 0 || (*a == INT64_MIN && *b == -1)) return std::nullopt;
          return *a % *b;
        case Op::Add: return static_cast<int64_t>(ua + ub);
        case Op::Sub: return static_cast<int64_t>(ua - ub);
        case Op::Shl: return ub >= 64 ? std::nullopt : std::optional<int64_t>(static_cast<int64_t>(ua << ub));
        case Op::Shr: return ub >= 64 ? std::nullopt : std::optional<int64_t>(*a >> ub);
        case Op::Lt: return *a < *b;
        case Op::Gt: return *a > *b;
        case Op::Le: return *a <= *b;
        case Op::Ge: return *a >= *b;
        case Op::Eq: return *a == *b;
        case Op::Ne: return *a != *b;
        case Op::BitAnd: return static_cast<int64_t>(ua & ub);
        case Op::BitXor: return static_cast<int64_t>(ua ^ ub);
        case Op::BitOr: return static_cast<int64_t>(ua | ub);
        case Op::LogAnd: return *a && *b;
        case Op::LogOr: return *a || *b;
        default: return std::nullopt;
      }
    }
    case ExprKind::Ternary: {
      auto c = eval_int(m, ExprId{e.a});
      if (!c) return std::nullopt;
      return eval_int(m, ExprId{*c ? e.b : e.aux});
    }
    default: return std::nullopt;
  }
}

}  // namespace ptx::ir
