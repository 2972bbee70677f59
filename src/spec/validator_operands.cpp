// Checker: an instruction's operands against the operand kinds of its form.
#include "checker.hpp"

namespace ptx::spec::validation {

// How many operands form f takes with the chosen values (choices_): at least `first`, at most `second`.
std::pair<size_t, size_t> Checker::operand_counts(const Form& f) const {
  // An operand tied to a group (`x: KIND if .group`) is written exactly when the group has a value.
  auto tied = [&](const Operand& o) { return o.if_group != Operand::kNoGroup; };
  auto present = [&](const Operand& o) { return chosen(o.if_group) != nullptr; };
  size_t required = 0, possible = 0;
  for (const Operand& o : operands(f)) {
    required += tied(o) ? present(o) : !o.optional;
    possible += !tied(o) || present(o);
  }
  return {required, possible};
}

bool Checker::takes_count(const Form& f, size_t n) const {
  const auto [required, possible] = operand_counts(f);
  return n >= required && n <= possible;
}

bool Checker::operands_fit(const Form& f, const Instruction& in, Why& why, uint32_t& where) {
  const auto ops = operands(f);
  const auto counts = operand_counts(f);  // not a structured binding: clang 14 cannot capture those
  const size_t required = counts.first, possible = counts.second;
  const size_t n = in.operands.count;
  if (n < required || n > possible) {
    why.set([&] { return std::string(quoted(m_.mnemonic(in)) + " takes " +
          (required == possible ? std::to_string(required) : std::to_string(required) + " to " + std::to_string(possible)) +
          " operands, found " + std::to_string(n)); });
    where = in.loc;
    return false;
  }
  written_.clear();
  why.clear();
  if (!assign(ops, 0, in, 0, n - required, why, where)) {
    if (why.empty()) {
      why.set([&] { return std::string("the operands of " + quoted(m_.mnemonic(in)) + " do not fit " + quoted(f.syntax)); });
      where = in.loc;
    }
    return false;
  }
  return call_arity_fits(ops, in, why, where);
}

// Assigns the written operands to the form's operands in order: required ones (and tied ones whose
// group is present) always, optional ones where they fit, earlier ones first; backtracks so that
// `tex d, [a, c], f` can skip the optional e before f. Records the operands written in written_.
bool Checker::assign(std::span<const Operand> ops, size_t i, const Instruction& in, size_t next, size_t optional_left,
            Why& why, uint32_t& where) {
  if (i == ops.size()) return next == in.operands.count;
  const Operand& o = ops[i];
  const bool tied = o.if_group != Operand::kNoGroup;
  if (tied && !chosen(o.if_group)) return assign(ops, i + 1, in, next, optional_left, why, where);
  const bool optional = o.optional && !tied;
  if (!optional || optional_left > 0) {
    const ExprId e = m_.operand(in, static_cast<uint32_t>(next));
    operand_index_ = static_cast<uint32_t>(next);
    Why reason = why.child();
    const size_t mark = written_.size();
    if (operand_fits(o, e, reason)) {
      const Expr& ex = m_.expr(e);
      written_.push_back({&o, ex.kind == ExprKind::Binary && static_cast<Op>(ex.sub) == Op::BitOr && !o.pair.empty()});
      if (assign(ops, i + 1, in, next + 1, optional_left - optional, why, where)) return true;
    }
    written_.resize(mark);
    if (!reason.empty() && why.empty()) {
      why.take(reason);
      where = m_.expr(e).loc;
    }
  }
  return optional && assign(ops, i + 1, in, next, optional_left, why, where);
}

// A direct call: its return and argument lists (the `args` operands before
// and after the function name) have as many items as the callee declares.
bool Checker::call_arity_fits(std::span<const Operand> ops, const Instruction& in, Why& why, uint32_t& where) {
  if (ops.size() != in.operands.count) return true;  // optional operands: no call form has them
  for (size_t i = 0; i < ops.size(); ++i) {
    if (ops[i].kind_count != 1 || kinds(ops[i])[0].tag != KindTag::Func) continue;
    const Expr& fe = m_.expr(m_.operand(in, static_cast<uint32_t>(i)));
    const Entity* callee = fe.kind == ExprKind::Name ? lookup(Symbol{fe.a}) : nullptr;
    if (!callee || callee->kind != Entity::Function || callee->rets < 0) return true;
    auto list_size = [&](size_t j) -> int32_t {
      if (j >= ops.size() || ops[j].kind_count != 1 || kinds(ops[j])[0].tag != KindTag::Args) return 0;
      return static_cast<int32_t>(m_.expr(m_.operand(in, static_cast<uint32_t>(j))).b);
    };
    const int32_t rets = i > 0 ? list_size(0) : 0, params = list_size(i + 1);
    if (rets == callee->rets && params == callee->params) return true;
    why.set([&] { return std::string("call of " + quoted(m_.text(Symbol{fe.a})) + " with " + std::to_string(rets) + " return and " +
          std::to_string(params) + " argument values; it declares " + std::to_string(callee->rets) + " and " +
          std::to_string(callee->params)); });
    where = in.loc;
    return false;
  }
  return true;
}

bool Checker::operand_fits(const Operand& o, ExprId id, Why& why) {
  const Expr& e = m_.expr(id);
  if (o.member_count) return members_fit(o, e, why);
  if (o.address && o.kind_count && kinds(o)[0].tag != KindTag::Addr) {
    // [a] of a texture, sampler or surface reference (or a register holding one)
    if (e.kind != ExprKind::List || static_cast<Delim>(e.sub) != Delim::Bracket || e.b != 1) {
      why.set([&] { return std::string("operand " + quoted(o.name) + ": expected [" + std::string(o.name) + "]"); });
      return false;
    }
    return any_kind(kinds(o), ExprId{m_.items[e.a].node}, o.name, why);
  }
  if (!o.pair.empty() && e.kind == ExprKind::Binary && static_cast<Op>(e.sub) == Op::BitOr)
    return any_kind(kinds(o), ExprId{e.a}, o.name, why) && any_kind(pair_kinds(o), ExprId{e.b}, o.pair, why);
  if (!o.pair.empty() && !o.pair_optional) {
    why.set([&] { return std::string("operand " + quoted(o.name) + " must be a pair " + std::string(o.name) + "|" + std::string(o.pair)); });
    return false;
  }
  return any_kind(kinds(o), id, o.name, why);
}

// [a, b, c]: the bracketed members in order; optional members are filled first to last.
bool Checker::members_fit(const Operand& o, const Expr& e, Why& why) {
  const auto ms = members(o);
  size_t required = 0;
  for (const Operand& m : ms) required += !m.optional;
  if (e.kind != ExprKind::List || static_cast<Delim>(e.sub) != Delim::Bracket || e.b < required || e.b > ms.size()) {
    why.set([&] { return std::string("operand " + quoted(o.name) + ": expected " + std::string(o.name)); });
    return false;
  }
  size_t optional_left = e.b - required;
  uint32_t next = 0;
  for (const Operand& m : ms) {
    if (m.optional) {
      if (optional_left == 0) continue;
      --optional_left;
    }
    if (!operand_fits(m, ExprId{m_.items[e.a + next++].node}, why)) return false;
    written_.push_back({&m, false});
  }
  return true;
}

bool Checker::any_kind(std::span<const Kind> ks, ExprId id, std::string_view name, Why& why) {
  // Explain with the alternative of the operand's own shape (an immediate's with imm).
  const bool immediate = is_immediate(m_.expr(id));
  Why first = why.child(), same_shape = why.child();
  for (const Kind& k : ks) {
    Why reason = why.child();
    if (kind_fits(k, id, reason)) return true;
    if (first.empty()) first.take(reason);
    if (same_shape.empty() && (k.tag == KindTag::Imm) == immediate) same_shape.take(reason);
  }
  why.set([&] { return std::string("operand " + quoted(name) + ": " + (same_shape.empty() ? first.text() : same_shape.text())); });
  return false;
}

// A register of a type the instruction type accepts.
// reg(T, .sel) / reg(T, {.sel}): the component written after the register (%r1.b0).
bool Checker::component_fits(const Kind& k, ExprId id, Why& why) {
  const Expr& e = m_.expr(id);
  if (e.kind != ExprKind::Name) return true;  // register_fits explains
  const Group& g = group(k.component.group);
  if (!e.b) {
    if (k.component_optional) return true;
    why.set([&] { return std::string(quoted(m_.text(Symbol{e.a})) + " needs a " + std::string(g.name) + " component"); });
    return false;
  }
  const std::string_view comp = m_.text(Symbol{e.b});
  for (const Value& v : values(g))
    if (value_matches(v, comp)) return true;
  why.set([&] { return std::string(quoted(comp) + " is not a " + std::string(g.name) + " component"); });
  return false;
}

// component_checked: a component after the register was checked by component_fits.
bool Checker::register_fits(ExprId id, std::string_view type, bool wide, Why& why, bool component_checked) {
  const Expr& e = m_.expr(id);
  if (e.kind != ExprKind::Name) {
    why.set([&] { return std::string("expected a " + std::string(type) + " register"); });
    return false;
  }
  std::string_view reg_type;
  const Symbol name{e.a};
  if (const Entity* ent = lookup(name)) {
    if (ent->kind != Entity::Register && ent->kind != Entity::RegisterRange) {
      why.set([&] { return std::string(quoted(m_.text(name)) + " is not a register"); });
      return false;
    }
    reg_type = ent->type;
    if (e.b && ent->vector == 1 && !component_checked) {
      why.set([&] { return std::string(quoted(m_.text(name)) + " is not a vector register"); });
      return false;
    }
    if (e.b && ent->vector > 1 && !vector_component_fits(*ent, name, Symbol{e.b}, why)) return false;
  } else if (const SpecialRegister* sr = find_special_register(m_.text(name))) {
    if (opcode_ != "mov" && opcode_ != "cvt") {
      why.set([&] { return std::string("special register " + quoted(m_.text(name)) + " can only be read by mov or cvt"); });
      return false;
    }
    // ".u32|.u16": the register's type, then narrower legacy types mov/cvt may read it with
    reg_type = sr->type.substr(0, sr->type.find('|'));
    for (std::string_view alt = sr->type; !type.empty() && !alt.empty();) {
      const size_t bar = alt.find('|');
      if (register_matches(alt.substr(0, bar), type, wide)) reg_type = alt.substr(0, bar);
      alt = bar == std::string_view::npos ? std::string_view{} : alt.substr(bar + 1);
    }
    const std::string_view comp = e.b ? m_.text(Symbol{e.b}) : std::string_view{};
    if (!sr->components.empty() && (comp.empty() || sr->components.find(comp) == std::string_view::npos)) {
      why.set([&] { return std::string(quoted(m_.text(name)) + " needs one of the components " + std::string(sr->components)); });
      return false;
    }
    if (sr->components.empty() && !comp.empty()) {
      why.set([&] { return std::string(quoted(m_.text(name)) + " has no component " + quoted(comp)); });
      return false;
    }
  } else {
    why.set([&] { return std::string("undeclared register " + quoted(m_.text(name))); });
    return false;
  }
  if (type.empty() || register_matches(reg_type, type, wide)) return true;
  why.set([&] { return std::string(quoted(m_.text(name)) + " is a " + std::string(reg_type) + " register, expected " + std::string(type)); });
  return false;
}

// %v.x of a vector register: one of .x .y .z .w (or .r .g .b .a) within its width. ptxas 13
// rejects other letters ("Unknown vector selector") and crashes on `mov` from %v.z of a .v2; it
// takes %v.z of a .v2 elsewhere, reading past the vector: ptxpp rejects it everywhere.
bool Checker::vector_component_fits(const Entity& ent, Symbol name, Symbol component, Why& why) const {
  const std::string_view comp = m_.text(component);
  const char letter = comp.size() == 2 && comp[0] == '.' ? comp[1] : '?';
  size_t at = std::string_view("xyzw").find(letter);
  if (at == std::string_view::npos) at = std::string_view("rgba").find(letter);
  if (at != std::string_view::npos && at < ent.vector) return true;
  why.set([&] {
    return std::string(quoted(comp) + " is not a component of " + quoted(m_.text(name)) + ", a vector of " +
                       std::to_string(ent.vector));
  });
  return false;
}

// A source register plus an integer constant, `%r2+1`: ptxas folds it (the register's value
// plus the constant), in any operand but the first (a destination there: "Result register
// required"); the register, else none.
ExprId Checker::register_plus_constant(const Expr& e) const {
  if (operand_index_ == 0 || e.kind != ExprKind::Binary || static_cast<Op>(e.sub) != Op::Add) return {};
  const Expr& left = m_.expr(ExprId{e.a});
  const Expr& right = m_.expr(ExprId{e.b});
  if (left.kind != ExprKind::Name || !is_immediate(right) || has_float(right)) return {};
  return ExprId{e.a};
}

bool Checker::is_immediate(const Expr& e) const {
  switch (e.kind) {
    case ExprKind::Int:
    case ExprKind::Float: return true;
    case ExprKind::Name: return m_.text(Symbol{e.a}) == "WARP_SZ";  // PTX's one predefined constant
    case ExprKind::Unary: return is_immediate(m_.expr(ExprId{e.a}));
    case ExprKind::Binary:  // ptxas 13: a float literal is no operand of an operator (`0f3F800000 + 1` is a syntax error)
      return is_immediate(m_.expr(ExprId{e.a})) && is_immediate(m_.expr(ExprId{e.b})) &&
             !has_float(m_.expr(ExprId{e.a})) && !has_float(m_.expr(ExprId{e.b}));
    case ExprKind::Ternary:
      return is_immediate(m_.expr(ExprId{e.a})) && is_immediate(m_.expr(ExprId{e.b})) && is_immediate(m_.expr(ExprId{e.aux}));
    case ExprKind::List:
      return static_cast<Delim>(e.sub) == Delim::Paren && e.b == 1 && is_immediate(m_.expr(ExprId{m_.items[e.a].node}));
    default: return false;
  }
}

bool Checker::has_float(const Expr& e) const {
  if (e.kind == ExprKind::Float) return true;
  if (e.kind == ExprKind::Unary) return has_float(m_.expr(ExprId{e.a}));
  if (e.kind == ExprKind::Binary) return has_float(m_.expr(ExprId{e.a})) || has_float(m_.expr(ExprId{e.b}));
  if (e.kind == ExprKind::Ternary) return has_float(m_.expr(ExprId{e.b})) || has_float(m_.expr(ExprId{e.aux}));
  if (e.kind == ExprKind::List && e.b == 1) return has_float(m_.expr(ExprId{m_.items[e.a].node}));
  return false;
}

bool Checker::divides_by_zero(const Expr& e) const {
  switch (e.kind) {
    case ExprKind::Unary: return divides_by_zero(m_.expr(ExprId{e.a}));
    case ExprKind::Binary: {
      const Op op = static_cast<Op>(e.sub);
      const auto right = eval_int(m_, ExprId{e.b});
      return ((op == Op::Div || op == Op::Rem) && right && *right == 0) || divides_by_zero(m_.expr(ExprId{e.a})) ||
             divides_by_zero(m_.expr(ExprId{e.b}));
    }
    case ExprKind::Ternary:
      return divides_by_zero(m_.expr(ExprId{e.a})) || divides_by_zero(m_.expr(ExprId{e.b})) ||
             divides_by_zero(m_.expr(ExprId{e.aux}));
    case ExprKind::List: return e.b == 1 && divides_by_zero(m_.expr(ExprId{m_.items[e.a].node}));
    default: return false;
  }
}

// Whether operand `id` is of kind k; if not, `why` says what was expected.
bool Checker::kind_fits(const Kind& k, ExprId id, Why& why) {
  const Expr& e = m_.expr(id);
  switch (k.tag) {
    case KindTag::Reg: return reg_kind_fits(k, id, why);
    case KindTag::Pred: return pred_kind_fits(k, e, why);
    case KindTag::Imm: return imm_kind_fits(k, id, why);
    case KindTag::Vec: return vec_kind_fits(k, id, why);
    case KindTag::Addr: return address_fits(k, e, why);
    case KindTag::Label:
      if (e.kind == ExprKind::Name && is_label(Symbol{e.a})) return true;
      why.set([&] { return std::string(e.kind == ExprKind::Name ? "undefined label " + quoted(m_.text(Symbol{e.a})) : "expected a label"); });
      return false;
    case KindTag::Func: return func_kind_fits(e, why);
    case KindTag::Symbol: return symbol_kind_fits(k, e, why);
    case KindTag::Args:
      if (e.kind == ExprKind::List && static_cast<Delim>(e.sub) == Delim::Paren) return true;
      why.set([&] { return std::string("expected an argument list (a, b)"); });
      return false;
    case KindTag::Sink:
      if (m_.name_of(id) == "_") return true;
      why.set([&] { return std::string("expected '_'"); });
      return false;
    case KindTag::TexRef:
    case KindTag::SamplerRef:
    case KindTag::SurfRef: return ref_kind_fits(k, e, why);
  }
  return false;
}

// reg(T, neg): a register (-r with neg), or a register plus a constant; of type T, and of T
// itself with `exact`.
bool Checker::reg_kind_fits(const Kind& k, ExprId id, Why& why) {
  const Expr& e = m_.expr(id);
  ExprId r = id;
  if (k.negate && e.kind == ExprKind::Unary && static_cast<Op>(e.sub) == Op::Neg) r = ExprId{e.a};
  if (const ExprId base = register_plus_constant(e)) r = base;
  if (k.component.present() && !component_fits(k, r, why)) return false;
  return register_fits(r, resolve(k.type), k.wide, why, k.component.present()) && (!k.exact || exact_register(r, resolve(k.type), why));
}

// pred(neg): a predicate register (!p with neg).
bool Checker::pred_kind_fits(const Kind& k, const Expr& e, Why& why) {
  const Expr* p = &e;
  if (k.negate && e.kind == ExprKind::Unary && static_cast<Op>(e.sub) == Op::Not) p = &m_.expr(ExprId{e.a});
  if (p->kind != ExprKind::Name) {
    why.set([&] { return std::string("expected a predicate"); });
    return false;
  }
  return register_fits(ExprId{static_cast<uint32_t>(p - m_.exprs.data())}, ".pred", false, why);
}

// imm(T): a constant expression of T's sort (integer or float), within the values the kind allows.
bool Checker::imm_kind_fits(const Kind& k, ExprId id, Why& why) {
  const Expr& e = m_.expr(id);
  if (!is_immediate(e)) {
    why.set([&] { return std::string("expected an immediate"); });
    return false;
  }
  if (divides_by_zero(e)) {  // ptxas 13: "Constant expression has division by zero"
    why.set([&] { return std::string("the constant expression divides by zero"); });
    return false;
  }
  const std::string_view t = k.type.present() ? resolve(k.type) : ".u32";
  if (integer_immediates(t) == has_float(e)) {
    why.set([&] { return std::string(integer_immediates(t) ? "expected an integer immediate" : "expected a floating-point immediate"); });
    return false;
  }
  const auto allowed = imm_values(k);
  if (allowed.empty()) return true;
  const auto v = eval_int(m_, id);
  if (v && std::any_of(allowed.begin(), allowed.end(), [&](const ImmRange& r) { return r.contains(*v); })) return true;
  why.set([&] {
    std::string msg = "expected one of";
    for (size_t i = 0; i < allowed.size(); ++i) {
      const ImmRange& r = allowed[i];
      msg += (i ? ", " : " ") + std::to_string(r.low);
      if (r.high != r.low) msg += ".." + std::to_string(r.high) + (r.step != 1 ? " step " + std::to_string(r.step) : "");
    }
    return msg;
  });
  return false;
}

namespace {

// The element count of vec(...) from the value v of its count modifier: its first number
// (".v4" -> 4, ".3d" -> 3) or the number after count_letter (".m64n96k16" with 'n' -> 96), then
// the factor: vec(.cta_group*4, ...), vec(.num:x*2, ...), vec(.dim-2, ...).
uint32_t vector_count(const Kind& k, std::string_view v) {
  uint32_t n = 0;
  if (!k.count_letter) {
    const size_t at = v.find_first_of("0123456789");
    if (at != std::string_view::npos) std::from_chars(v.data() + at, v.data() + v.size(), n);
  } else {
    size_t at = 0;
    while (at < v.size() && !(v[at] == k.count_letter && at + 1 < v.size() && v[at + 1] >= '0' && v[at + 1] <= '9')) ++at;
    if (at < v.size()) std::from_chars(v.data() + at + 1, v.data() + v.size(), n);
  }
  if (k.count_op == '*') n *= k.count_factor;
  else if (k.count_op == '/' && k.count_factor) n /= k.count_factor;
  else if (k.count_op == '-') n = n > k.count_factor ? n - k.count_factor : 0;
  return n;
}

}  // namespace

// vec(.count, T): a brace list of n registers of T (immediates too with `imm`), or a vector
// register of n; without its vector modifier, a scalar.
bool Checker::vec_kind_fits(const Kind& k, ExprId id, Why& why) {
  const Expr& e = m_.expr(id);
  const std::string_view t = resolve(k.type);
  uint32_t n = k.count_literal;
  if (k.count.present()) {
    const std::string_view v = resolve(k.count);
    if (v.empty()) return vec_scalar_fits(k, id, t, why);
    n = vector_count(k, v);
  }
  if (e.kind == ExprKind::Name && !e.b)
    if (const std::optional<bool> fits = vector_register_fits(k, id, t, n, why)) return *fits;
  if (e.kind != ExprKind::List || static_cast<Delim>(e.sub) != Delim::Brace) {
    why.set([&] { return std::string("expected a vector of " + std::to_string(n) + " registers {a, b, ...}"); });
    return false;
  }
  if (e.b != n) {
    why.set([&] { return std::string("expected a vector of " + std::to_string(n) + " registers, found " + std::to_string(e.b)); });
    return false;
  }
  if (!vector_sizes_agree(e, why)) return false;
  for (const ListItem& it : m_.slice(Range{e.a, e.b})) {
    const Expr& elem = m_.expr(ExprId{it.node});
    if (k.imm && is_immediate(elem)) {
      // integer literals for integer and bit-size elements, float literals for float ones
      if (integer_immediates(t) == has_float(elem)) {
        why.set([&] { return std::string(integer_immediates(t) ? "expected an integer immediate in the vector"
                                                                : "expected a floating-point immediate in the vector"); });
        return false;
      }
      continue;
    }
    if (m_.name_of(ExprId{it.node}) != "_" && !register_fits(ExprId{it.node}, t, k.wide, why)) return false;
  }
  return true;
}

// The registers of a brace list are all of one size: ptxas 13 rejects {%r1, %rd1} ("Incompatible
// elements of vector expression") before it matches the types (predicates, immediates and
// sinks aside).
bool Checker::vector_sizes_agree(const Expr& list, Why& why) const {
  uint32_t bits = 0;
  for (const ListItem& it : m_.slice(Range{list.a, list.b})) {
    const Expr& elem = m_.expr(ExprId{it.node});
    const Entity* ent = elem.kind == ExprKind::Name ? lookup(Symbol{elem.a}) : nullptr;
    if (!ent || (ent->kind != Entity::Register && ent->kind != Entity::RegisterRange)) continue;
    const auto info = type_info(ent->type);
    if (!info || ent->type == ".pred") continue;
    if (!bits) bits = info->bits;
    if (info->bits == bits) continue;
    why.set([&] {
      return std::string("the registers of a vector differ in size: " + quoted(m_.text(Symbol{elem.a})) + " is a " +
                         std::string(ent->type) + " register, the first one has " + std::to_string(bits) + " bits");
    });
    return false;
  }
  return true;
}

// vec(...) without its vector modifier: a scalar register, also written as a one-element vector
// {r} (ptxas); with `imm` an immediate scalar too.
bool Checker::vec_scalar_fits(const Kind& k, ExprId id, std::string_view t, Why& why) {
  const Expr& e = m_.expr(id);
  if (e.kind == ExprKind::List && static_cast<Delim>(e.sub) == Delim::Brace && e.b == 1) return register_fits(ExprId{m_.items[e.a].node}, t, k.wide, why);
  if (k.imm && is_immediate(e)) {
    if (integer_immediates(t) != has_float(e)) return true;
    why.set([&] { return std::string(integer_immediates(t) ? "expected an integer immediate" : "expected a floating-point immediate"); });
    return false;
  }
  const ExprId base = register_plus_constant(e);
  return register_fits(base ? base : id, t, k.wide, why);
}

// A name as a whole vector: a vector register of n (.reg .v4 .f32 %v), or a vector special
// register (%tid) for n = 4. nullopt when the name is neither.
std::optional<bool> Checker::vector_register_fits(const Kind& k, ExprId id, std::string_view t, uint32_t n, Why& why) {
  const Expr& e = m_.expr(id);
  const Entity* ent = lookup(Symbol{e.a});
  if (ent && (ent->kind == Entity::Register || ent->kind == Entity::RegisterRange) && ent->vector == n) return register_fits(id, t, k.wide, why);
  const SpecialRegister* sr = ent ? nullptr : find_special_register(m_.text(Symbol{e.a}));
  if (!sr || sr->components.empty() || n != 4) return std::nullopt;
  const std::string_view sr_type = sr->type.substr(0, sr->type.find('|'));  // ".u32|.u16": .u32
  if (t.empty() || register_matches(sr_type, t, k.wide)) return true;
  why.set([&] { return std::string(quoted(m_.text(Symbol{e.a})) + " is a " + std::string(sr_type) + " register, expected " + std::string(t)); });
  return false;
}

// func: a declared function's name.
bool Checker::func_kind_fits(const Expr& e, Why& why) {
  if (e.kind == ExprKind::Name)
    if (const Entity* ent = lookup(Symbol{e.a})) {
      if (ent->kind == Entity::Function) return true;
      why.set([&] { return std::string(quoted(m_.text(Symbol{e.a})) + " is not a function"); });
      return false;
    }
  why.set([&] { return std::string(e.kind == ExprKind::Name ? "undeclared function " + quoted(m_.text(Symbol{e.a})) : "expected a function name"); });
  return false;
}

// symbol(S): a variable (of state space S when given) or function name, optionally plus or
// minus an immediate offset (avar+8).
bool Checker::symbol_kind_fits(const Kind& k, const Expr& e, Why& why) {
  bool minus = false;
  const Expr* base = offset_base(e, minus);
  if (!base) base = &e;
  if (minus_after_name(base, minus, why)) return false;
  const Entity* ent = base->kind == ExprKind::Name ? lookup(Symbol{base->a}) : nullptr;
  if (!ent) {
    why.set([&] { return std::string(base->kind == ExprKind::Name ? "undeclared symbol " + quoted(m_.text(Symbol{base->a})) : "expected a symbol"); });
    return false;
  }
  if (ent->kind != Entity::Variable && ent->kind != Entity::Function) {
    why.set([&] { return std::string(quoted(m_.text(Symbol{base->a})) + " is not a variable or function"); });
    return false;
  }
  const std::string_view space = resolve(k.space);
  const std::string_view want = space.substr(0, space.find("::"));
  if (!want.empty() && want != "generic" && (ent->kind != Entity::Variable || to_string(ent->space) != want)) {
    why.set([&] { return std::string(quoted(m_.text(Symbol{base->a})) + " is not a variable of the " + std::string(want) + " state space"); });
    return false;
  }
  return true;
}

// texref, samplerref, surfref: a .texref/.samplerref/.surfref variable, or a 64-bit register
// holding its address.
bool Checker::ref_kind_fits(const Kind& k, const Expr& e, Why& why) {
  const std::string_view want = k.tag == KindTag::TexRef ? ".texref" : k.tag == KindTag::SamplerRef ? ".samplerref" : ".surfref";
  const Entity* ent = e.kind == ExprKind::Name ? lookup(Symbol{e.a}) : nullptr;
  if (ent && ent->kind == Entity::Variable && ent->type == want) return true;
  if (ent && (ent->kind == Entity::Register || ent->kind == Entity::RegisterRange) && !e.b) {
    const auto info = type_info(ent->type);
    if (info && info->bits == 64 && info->cls != detail::TypeClass::Float) return true;
  }
  why.set([&] { return std::string("expected a " + std::string(want) + " variable or a 64-bit register"); });
  return false;
}

// reg(T, exact): the register is declared with type T itself (ptxas wants .b32, not .u32, there).
bool Checker::exact_register(ExprId id, std::string_view type, Why& why) {
  const Expr& e = m_.expr(id);
  if (e.kind != ExprKind::Name) return true;
  const Symbol name{e.a};
  std::string_view reg_type;
  if (const Entity* ent = lookup(name)) reg_type = ent->type;
  else if (const SpecialRegister* sr = find_special_register(m_.text(name))) reg_type = sr->type;
  if (reg_type == type) return true;
  why.set([&] { return std::string(quoted(m_.text(name)) + " is a " + std::string(reg_type) + " register, expected a " + std::string(type) +
        " register (exactly)"); });
  return false;
}

// A generic or .global address of these takes a 64-bit register: ptxas 13 rejects a 32-bit one
// on every target ("32-Bit ABI ... is not supported on sm_90 or higher"; sm_80: "32-Bit
// compilation is no longer supported"), though cp.async, cp.async.bulk, ldmatrix and
// prefetch.tensormap take it.
bool Checker::wide_address_only(const Kind& k) const {
  static constexpr std::string_view kOpcodes[] = {
      "ld", "ldu", "st", "atom", "red", "prefetch", "prefetchu", "discard", "applypriority", "mbarrier", "multimem"};
  if (std::find(std::begin(kOpcodes), std::end(kOpcodes), opcode_) == std::end(kOpcodes)) return false;
  if (k.space.is_group && group(k.space.group).name == ".tensormap_space") return false;
  const std::string_view space = resolve(k.space);
  return space.empty() || space == "generic" || space == ".global";
}

// The base of an address or symbol with offsets (a+8; several fold: a+8-4, as ptxas reads a
// name, '+', then one constant expression); nullptr where an offset is no immediate. `minus`:
// the offset next to the base is subtracted (a-4).
const Expr* Checker::offset_base(const Expr& e, bool& minus) const {
  const Expr* base = &e;
  minus = false;
  while (base->kind == ExprKind::Binary &&
         (static_cast<Op>(base->sub) == Op::Add || static_cast<Op>(base->sub) == Op::Sub)) {
    if (!is_immediate(m_.expr(ExprId{base->b}))) return nullptr;
    minus = static_cast<Op>(base->sub) == Op::Sub;
    base = &m_.expr(ExprId{base->a});
  }
  return base;
}

// ptxas 13: a name followed by '-' (a-4, [%rd-4]) is a syntax error; a+-4 is fine.
bool Checker::minus_after_name(const Expr* base, bool minus, Why& why) const {
  if (!minus || base->kind != ExprKind::Name || is_immediate(*base)) return false;
  why.set([&] {
    return std::string("ptxas takes no '-' after " + quoted(m_.text(Symbol{base->a})) + ": write " +
                       std::string(m_.text(Symbol{base->a})) + "+-N");
  });
  return true;
}

bool Checker::address_fits(const Kind& k, const Expr& written, Why& why) {
  const Expr* outer = &written;
  if (written.kind == ExprKind::Suffixed) {  // [a].unified
    const std::string_view suffix = m_.text(Symbol{written.b});
    const std::string_view space = resolve(k.space);
    if (suffix != ".unified" || !k.unified || (space != "generic" && space != ".global" && !space.empty())) {
      why.set([&] { return std::string(quoted(suffix) + " is not allowed after this address"); });
      return false;
    }
    outer = &m_.expr(ExprId{written.a});
  }
  const Expr& e = *outer;
  if (e.kind != ExprKind::List || static_cast<Delim>(e.sub) != Delim::Bracket || e.b != 1) {
    why.set([&] { return std::string("expected an address [a]"); });
    return false;
  }
  // offsets: [a+8], also several ([gbuf+-4+8], folded by ptxas)
  bool minus = false;
  const Expr* base = offset_base(m_.expr(ExprId{m_.items[e.a].node}), minus);
  if (!base) {
    why.set([&] { return std::string("an address offset must be an immediate"); });
    return false;
  }
  if (minus_after_name(base, minus, why)) return false;
  if (k.type.present()) {
    // addr(S, T): the address is a register of type T, plus an optional offset (tcgen05's
    // Tensor Memory addresses); no variables, no immediate addresses
    const ExprId reg{static_cast<uint32_t>(base - m_.exprs.data())};
    const Entity* ent = base->kind == ExprKind::Name ? lookup(Symbol{base->a}) : nullptr;
    if (!ent || (ent->kind != Entity::Register && ent->kind != Entity::RegisterRange)) {
      why.set([&] { return std::string("expected an address [reg] or [reg+imm] with a " + std::string(resolve(k.type)) + " register"); });
      return false;
    }
    return register_fits(reg, resolve(k.type), false, why) && (!k.exact || exact_register(reg, resolve(k.type), why));
  }
  if (is_immediate(*base)) {
    // ptxas 13: "Immediate addresses allowed only for .local state space" (generic ones too)
    if (resolve(k.space) == ".local") return true;
    why.set([&] { return std::string("an immediate address [imm] is allowed only in the .local state space"); });
    return false;
  }
  if (base->kind != ExprKind::Name) {
    why.set([&] { return std::string("expected an address [reg], [reg+imm], [var] or [imm]"); });
    return false;
  }
  const Symbol name{base->a};
  const Entity* ent = lookup(name);
  if (!ent) {
    why.set([&] { return std::string("undeclared " + quoted(m_.text(name))); });
    return false;
  }
  if (ent->kind == Entity::Register || ent->kind == Entity::RegisterRange) {
    const auto info = type_info(ent->type);
    if (!info || (info->bits != 32 && info->bits != 64) || info->cls == detail::TypeClass::Float) {
      why.set([&] { return std::string("an address register must be a 32- or 64-bit integer register"); });
      return false;
    }
    if (info->bits == 32 && wide_address_only(k)) {
      why.set([&] {
        return std::string(quoted(m_.text(name)) + " is a 32-bit register: a generic or .global address of " +
                           quoted(opcode_) + " is 64 bits");
      });
      return false;
    }
    return true;
  }
  if (ent->kind == Entity::Variable) {
    const std::string_view space = resolve(k.space);
    const std::string_view want = space.substr(0, space.find("::"));
    if (!want.empty() && want != "generic" && to_string(ent->space) != want) {
      why.set([&] { return std::string(quoted(m_.text(name)) + " is in the " + std::string(to_string(ent->space)) + " state space, not " +
            std::string(want)); });
      return false;
    }
    return true;
  }
  // ptxas 13: a function or label name is no address ("Illegal operand type")
  why.set([&] {
    return std::string(quoted(m_.text(name)) + " is a " + (ent->kind == Entity::Label ? "label" : "function") +
                       ", not an address");
  });
  return false;
}

}  // namespace ptx::spec::validation
