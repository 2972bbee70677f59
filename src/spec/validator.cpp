#include "ptxpp/spec/validator.hpp"

#include <algorithm>
#include <charconv>
#include <string>
#include <vector>

#include "ptxpp/ir/queries.hpp"
#include "form_match.hpp"
#include "type_rules.hpp"

namespace ptx::spec {

namespace {

using namespace ptx::ir;
using detail::Choice;
using detail::doubled;
using detail::MatchResult;
using detail::integer_immediates;
using detail::register_matches;
using detail::type_info;

constexpr uint32_t kUnbound = 0xFFFFFFFFu;

// What a name in a function refers to.
struct Entity {
  enum Kind : uint8_t { Register, RegisterRange, Variable, Function, Label } kind;
  StateSpace space = StateSpace::None;
  std::string_view type;  // ".u32", ".pred", ...
  uint32_t vector = 1;
  uint32_t count = 0;  // RegisterRange: %r<count>
  uint32_t loc = 0;
};

class Checker {
 public:
  Checker(const Module& m, const CheckOptions& o) : m_(m), opts_(o), binding_(m.strings.size(), kUnbound) {}

  std::vector<Diagnostic> run() {
    header();
    module_symbols();
    for (const Stmt& s : m_.root().stmts)
      if (s.kind == StmtKind::Function && m_.functions[s.index].has_body()) function(m_.functions[s.index]);
    std::stable_sort(out_.begin(), out_.end(), [](const Diagnostic& a, const Diagnostic& b) { return a.offset < b.offset; });
    return std::move(out_);
  }

 private:
  // ---- diagnostics --------------------------------------------------------------
  void error(uint32_t loc, std::string msg) { out_.push_back({loc, Severity::Error, std::move(msg)}); }
  static std::string quoted(std::string_view s) {
    // Built by appending: `"'" + std::string(s)` trips GCC 12's -Wrestrict false positive.
    std::string out;
    out.reserve(s.size() + 2);
    out += '\'';
    out += s;
    out += '\'';
    return out;
  }

  // ---- module header -------------------------------------------------------------
  void header() {
    const auto& stmts = m_.root().stmts;
    const Directive* version = nullptr;
    const Directive* target = nullptr;
    for (size_t i = 0; i < stmts.size(); ++i) {
      if (stmts[i].kind != StmtKind::Directive) continue;
      const Directive& d = m_.directives[stmts[i].index];
      const std::string_view name = m_.text(d.name);
      if (name == ".version") {
        if (version) error(d.loc, "duplicate .version directive");
        else if (i != 0) error(d.loc, ".version must be the first statement of the module");
        version = &d;
      } else if (name == ".target") {
        if (target) error(d.loc, "duplicate .target directive");
        target = &d;
      }
    }
    if (!version) error(0, "missing .version directive at the start of the module");
    if (!target) error(0, "missing .target directive");
    if (auto v = ptx_version(m_)) version_ = {static_cast<uint8_t>(v->major), static_cast<uint8_t>(v->minor)};
    else if (version) error(version->loc, "malformed .version (want MAJOR.MINOR, e.g. 9.0)");
    if (target) {
      const auto words = target_words(m_);
      if (auto t = words.empty() ? std::nullopt : Target::parse(words[0])) {
        target_ = *t;
        const auto min = min_ptx_for(*t);
        if (min.first == 0) error(target->loc, "unknown target " + quoted(words[0]));
        else if (version_.major && version_ < PtxIsaVersion{min.first, min.second})
          error(target->loc, "target " + t->name() + " needs PTX ISA " + std::to_string(min.first) + "." +
                                 std::to_string(min.second) + " or later");
      } else {
        error(target->loc, "unknown target " + quoted(words.empty() ? std::string_view{} : words[0]));
      }
      for (size_t i = 1; i < words.size(); ++i)
        if (words[i] != "texmode_unified" && words[i] != "texmode_independent" && words[i] != "debug" &&
            words[i] != "map_f64_to_f32")
          error(target->loc, "unknown .target option " + quoted(words[i]));
    }
    if (opts_.target) target_ = *opts_.target;
    if (opts_.version) version_ = *opts_.version;
  }

  // ---- scopes: symbol id -> entity, undone when a scope ends -----------------------
  void bind(Symbol name, const Entity& e, bool report_duplicate = true) {
    const uint32_t prev = binding_[name.id];
    if (report_duplicate && prev != kUnbound && prev >= scope_floor_)
      error(e.loc, "redeclaration of " + quoted(m_.text(name)));
    undo_.push_back({name.id, prev});
    entities_.push_back(e);
    binding_[name.id] = static_cast<uint32_t>(entities_.size() - 1);
  }
  size_t open_scope() {
    scopes_.push_back(scope_floor_);
    scope_floor_ = static_cast<uint32_t>(entities_.size());
    return undo_.size();
  }
  void close_scope(size_t mark) {
    while (undo_.size() > mark) {
      binding_[undo_.back().first] = undo_.back().second;
      undo_.pop_back();
    }
    scope_floor_ = scopes_.back();
    scopes_.pop_back();
  }

  // The entity a name refers to; registers in a %r<N> range resolve to the range.
  const Entity* lookup(Symbol name) {
    if (binding_[name.id] != kUnbound) return &entities_[binding_[name.id]];
    const std::string_view s = m_.text(name);
    size_t digits = s.size();
    while (digits > 0 && s[digits - 1] >= '0' && s[digits - 1] <= '9') --digits;
    if (digits == s.size() || digits == 0) return nullptr;
    Symbol base;
    if (!m_.strings.find(s.substr(0, digits), base) || binding_[base.id] == kUnbound) return nullptr;
    const Entity& range = entities_[binding_[base.id]];
    if (range.kind != Entity::RegisterRange) return nullptr;
    uint32_t index = 0;
    auto r = std::from_chars(s.data() + digits, s.data() + s.size(), index);
    // %r<4> declares %r0..%r3; a leading zero (%r01) names no register of the range.
    if (r.ec != std::errc{} || index >= range.count || (s[digits] == '0' && s.size() - digits > 1)) return nullptr;
    return &range;
  }

  // ---- declarations ------------------------------------------------------------------
  void declare(const Decl& d, bool report_duplicate = true) {
    const DeclInfo info = decl_info(m_, d);
    for (const Declarator& dc : m_.declarators_of(d)) {
      Entity e;
      e.space = info.space;
      e.type = info.type;
      e.vector = info.vector;
      e.loc = d.loc;
      if (info.space == StateSpace::Reg) {
        e.kind = Entity::Register;
        if (dc.range) {
          e.kind = Entity::RegisterRange;
          const Expr& list = m_.expr(dc.range);
          const auto n = list.b == 1 ? eval_int(m_, ExprId{m_.items[list.a].node}) : std::nullopt;
          if (!n || *n < 0) error(d.loc, "register count of " + quoted(m_.text(dc.name)) + " must be a non-negative constant");
          e.count = n && *n > 0 ? static_cast<uint32_t>(*n) : 0;
        }
        if (!type_info(info.type)) error(d.loc, "register " + quoted(m_.text(dc.name)) + " needs a type such as .b32");
      } else {
        e.kind = Entity::Variable;
      }
      bind(dc.name, e, report_duplicate);
    }
  }

  void module_symbols() {
    std::vector<std::pair<Symbol, uint32_t>> defined;  // functions with a body
    for (const Stmt& s : m_.root().stmts) {
      if (s.kind == StmtKind::Decl) {
        declare(m_.decls[s.index]);
      } else if (s.kind == StmtKind::Function) {
        const Function& f = m_.functions[s.index];
        Entity e{};
        e.kind = Entity::Function;
        e.loc = f.loc;
        const uint32_t prev = binding_[f.name.id];
        if (prev != kUnbound && entities_[prev].kind != Entity::Function) {
          error(f.loc, "redeclaration of " + quoted(m_.text(f.name)));
        } else if (f.has_body()) {
          for (const auto& [name, loc] : defined)
            if (name == f.name) error(f.loc, "redefinition of " + quoted(m_.text(f.name)));
          defined.push_back({f.name, f.loc});
        }
        if (prev == kUnbound) bind(f.name, e, false);
      }
    }
  }

  // ---- functions -----------------------------------------------------------------------
  void function(const Function& f) {
    const size_t mark = open_scope();
    for (const ParamList* pl : {&f.ret, &f.params})
      for (const ListItem& it : m_.slice(pl->params)) declare(m_.decls[it.node]);
    // Labels are visible in the whole function, before their definition.
    labels_.clear();
    collect_labels(m_.blocks[f.body]);
    block(m_.blocks[f.body]);
    close_scope(mark);
  }

  void collect_labels(const ir::Block& b) {
    for (const Stmt& s : b.stmts) {
      if (s.kind == StmtKind::Label) {
        const Label& l = m_.labels[s.index];
        if (std::find(labels_.begin(), labels_.end(), l.name) != labels_.end())
          error(l.loc, "duplicate label " + quoted(m_.text(l.name)));
        labels_.push_back(l.name);
      } else if (s.kind == StmtKind::Block) {
        collect_labels(m_.blocks[s.index]);
      }
    }
  }

  bool is_label(Symbol s) const { return std::find(labels_.begin(), labels_.end(), s) != labels_.end(); }

  void block(const ir::Block& b) {
    const size_t mark = open_scope();
    for (const Stmt& s : b.stmts) {
      switch (s.kind) {
        case StmtKind::Decl: declare(m_.decls[s.index]); break;
        case StmtKind::Block: block(m_.blocks[s.index]); break;
        case StmtKind::Instruction: instruction(m_.instructions[s.index]); break;
        default: break;
      }
    }
    close_scope(mark);
  }

  // ---- instructions ---------------------------------------------------------------------
  void instruction(const Instruction& in) {
    const std::string_view opcode = m_.text(in.opcode);
    const auto candidates = forms_for(opcode);
    if (candidates.empty()) {
      error(in.loc, "unknown instruction " + quoted(opcode));
      return;
    }
    if (in.guard) check_guard(in.guard);
    mods_.clear();
    for (const Modifier& mod : m_.modifiers_of(in)) mods_.push_back(m_.text(mod.name));

    // The first form whose modifiers and operands both fit; otherwise the best explanation.
    std::string operand_problem;
    const Form* modifier_match = nullptr;
    // Forms whose modifiers are in the manual's order first, then reordered ones.
    for (MatchResult pass : {MatchResult::InOrder, MatchResult::Reordered})
    for (const Form& f : candidates) {
      if (detail::match_modifiers(f, mods_, choices_) != pass) continue;
      if (!modifier_match) modifier_match = &f;
      std::string why;
      uint32_t where = in.loc;
      if (operands_fit(f, in, why, where)) {
        if (pass == MatchResult::Reordered)
          out_.push_back({in.loc, Severity::Warning,
                          "the modifiers of " + quoted(m_.mnemonic(in)) + " are not in the PTX ISA order " +
                              quoted(f.syntax.substr(0, f.syntax.find(' '))) + " (ptxas accepts them)"});
        check_requirements(f, in);
        return;
      }
      if (operand_problem.empty()) {
        operand_problem = why;
        problem_loc_ = where;
      }
    }
    if (modifier_match) {
      error(problem_loc_, operand_problem);
      return;
    }
    error(in.loc, modifier_problem(opcode, candidates));
  }

  void check_guard(ExprId g) {
    const Expr* e = &m_.expr(g);
    if (e->kind == ExprKind::Unary && static_cast<Op>(e->sub) == Op::Not) e = &m_.expr(ExprId{e->a});
    if (e->kind != ExprKind::Name) return error(e->loc, "a guard must be a predicate register");
    const Entity* ent = lookup(Symbol{e->a});
    if (!ent) return error(e->loc, "undeclared register " + quoted(m_.text(Symbol{e->a})));
    if (ent->type != ".pred") error(e->loc, "guard " + quoted(m_.text(Symbol{e->a})) + " is not a .pred register");
  }

  std::string modifier_problem(std::string_view opcode, std::span<const Form> candidates) {
    for (std::string_view mod : mods_) {
      bool known = false;
      for (const Form& f : candidates)
        for (const Slot& s : slots(f))
          for (const SlotItem& it : items(s)) {
            if (!it.is_group) known = known || it.text == mod;
            else
              for (const Value& v : values(group(it.group)))
                known = known || v.text == mod || std::string_view(v.text).find(std::string(mod) + ".") == 0 ||
                        (v.text.size() > mod.size() && v.text.substr(v.text.size() - mod.size()) == mod);
          }
      if (!known) return quoted(mod) + " is not a modifier of " + quoted(opcode);
    }
    std::string msg = "modifiers of " + quoted(opcode) + " do not match any of its forms: ";
    for (size_t i = 0; i < candidates.size() && i < 4; ++i) msg += (i ? "; " : "") + std::string(candidates[i].syntax);
    if (candidates.size() > 4) msg += "; ...";
    return msg;
  }

  const Value* chosen(uint32_t group_index) const {
    for (const Choice& c : choices_)
      if (c.group == group_index) return c.value;
    return nullptr;
  }

  // A type/count/space reference resolved with the chosen values ("" when the group is absent).
  std::string_view resolve(const Ref& r) const {
    if (!r.present()) return {};
    std::string_view t = r.text;
    if (r.is_group) {
      const Value* v = chosen(r.group);
      if (!v) return {};
      t = v->text;
    }
    return r.doubled ? doubled(t) : t;
  }

  void check_requirements(const Form& f, const Instruction& in) {
    if (!target_.number || !version_.major) return;  // no usable .target/.version: already reported
    auto need = [&](const Requirement& r, std::string_view what) {
      const PtxIsaVersion v{r.ptx_major, r.ptx_minor};
      if (version_ < v || !allows(r, target_))
        error(in.loc, std::string(what) + " requires " + describe(r) + "; the module is PTX ISA " +
                          std::to_string(version_.major) + "." + std::to_string(version_.minor) + " for " +
                          target_.name());
    };
    need(f.req, quoted(m_.mnemonic(in)));
    for (const Choice& c : choices_)
      if (c.value->req.set_count || c.value->req.ptx_major > 1) need(c.value->req, quoted(c.value->text));
  }

  // ---- operands -----------------------------------------------------------------------------
  bool operands_fit(const Form& f, const Instruction& in, std::string& why, uint32_t& where) {
    const auto ops = operands(f);
    size_t required = 0;
    for (const Operand& o : ops) required += !o.optional;
    const size_t n = in.operands.count;
    if (n < required || n > ops.size()) {
      why = quoted(m_.mnemonic(in)) + " takes " +
            (required == ops.size() ? std::to_string(required) : std::to_string(required) + " to " + std::to_string(ops.size())) +
            " operands, found " + std::to_string(n);
      where = in.loc;
      return false;
    }
    size_t optional_left = n - required;
    size_t next = 0;
    for (const Operand& o : ops) {
      if (o.optional) {
        if (optional_left == 0) continue;
        --optional_left;
      }
      const ExprId e = m_.operand(in, static_cast<uint32_t>(next++));
      if (!operand_fits(o, e, why)) {
        where = m_.expr(e).loc;
        return false;
      }
    }
    return true;
  }

  bool operand_fits(const Operand& o, ExprId id, std::string& why) {
    const Expr& e = m_.expr(id);
    if (!o.pair.empty() && e.kind == ExprKind::Binary && static_cast<Op>(e.sub) == Op::BitOr)
      return any_kind(kinds(o), ExprId{e.a}, o.name, why) && any_kind(pair_kinds(o), ExprId{e.b}, o.pair, why);
    if (!o.pair.empty() && !o.pair_optional) {
      why = "operand " + quoted(o.name) + " must be a pair " + std::string(o.name) + "|" + std::string(o.pair);
      return false;
    }
    return any_kind(kinds(o), id, o.name, why);
  }

  bool any_kind(std::span<const Kind> ks, ExprId id, std::string_view name, std::string& why) {
    // Explain with the alternative of the operand's own shape (an immediate's with imm).
    const bool immediate = is_immediate(m_.expr(id));
    std::string first, same_shape;
    for (const Kind& k : ks) {
      std::string reason;
      if (kind_fits(k, id, reason)) return true;
      if (first.empty()) first = reason;
      if (same_shape.empty() && (k.tag == KindTag::Imm) == immediate) same_shape = reason;
    }
    why = "operand " + quoted(name) + ": " + (same_shape.empty() ? first : same_shape);
    return false;
  }

  // A register of a type the instruction type accepts.
  bool register_fits(ExprId id, std::string_view type, bool wide, std::string& why) {
    const Expr& e = m_.expr(id);
    if (e.kind != ExprKind::Name) {
      why = "expected a " + std::string(type) + " register";
      return false;
    }
    std::string_view reg_type;
    const Symbol name{e.a};
    if (const Entity* ent = lookup(name)) {
      if (ent->kind != Entity::Register && ent->kind != Entity::RegisterRange) {
        why = quoted(m_.text(name)) + " is not a register";
        return false;
      }
      reg_type = ent->type;
      if (e.b && ent->vector == 1) {
        why = quoted(m_.text(name)) + " is not a vector register";
        return false;
      }
    } else if (const SpecialRegister* sr = find_special_register(m_.text(name))) {
      reg_type = sr->type;
      const std::string_view comp = e.b ? m_.text(Symbol{e.b}) : std::string_view{};
      if (!sr->components.empty() && (comp.empty() || sr->components.find(comp) == std::string_view::npos)) {
        why = quoted(m_.text(name)) + " needs one of the components " + std::string(sr->components);
        return false;
      }
      if (sr->components.empty() && !comp.empty()) {
        why = quoted(m_.text(name)) + " has no component " + quoted(comp);
        return false;
      }
    } else {
      why = "undeclared register " + quoted(m_.text(name));
      return false;
    }
    if (type.empty() || register_matches(reg_type, type, wide)) return true;
    why = quoted(m_.text(name)) + " is a " + std::string(reg_type) + " register, expected " + std::string(type);
    return false;
  }

  bool is_immediate(const Expr& e) const {
    switch (e.kind) {
      case ExprKind::Int:
      case ExprKind::Float: return true;
      case ExprKind::Unary: return is_immediate(m_.expr(ExprId{e.a}));
      case ExprKind::Binary: return is_immediate(m_.expr(ExprId{e.a})) && is_immediate(m_.expr(ExprId{e.b}));
      case ExprKind::List:
        return static_cast<Delim>(e.sub) == Delim::Paren && e.b == 1 && is_immediate(m_.expr(ExprId{m_.items[e.a].node}));
      default: return false;
    }
  }
  bool has_float(const Expr& e) const {
    if (e.kind == ExprKind::Float) return true;
    if (e.kind == ExprKind::Unary) return has_float(m_.expr(ExprId{e.a}));
    if (e.kind == ExprKind::Binary) return has_float(m_.expr(ExprId{e.a})) || has_float(m_.expr(ExprId{e.b}));
    if (e.kind == ExprKind::List && e.b == 1) return has_float(m_.expr(ExprId{m_.items[e.a].node}));
    return false;
  }

  bool kind_fits(const Kind& k, ExprId id, std::string& why) {
    const Expr& e = m_.expr(id);
    switch (k.tag) {
      case KindTag::Reg: return register_fits(id, resolve(k.type), k.wide, why);
      case KindTag::Pred: {
        const Expr* p = &e;
        if (k.negate && e.kind == ExprKind::Unary && static_cast<Op>(e.sub) == Op::Not) p = &m_.expr(ExprId{e.a});
        if (p->kind != ExprKind::Name) {
          why = "expected a predicate";
          return false;
        }
        return register_fits(ExprId{static_cast<uint32_t>(p - m_.exprs.data())}, ".pred", false, why);
      }
      case KindTag::Imm: {
        if (!is_immediate(e)) {
          why = "expected an immediate";
          return false;
        }
        const std::string_view t = k.type.present() ? resolve(k.type) : ".u32";
        if (integer_immediates(t) == has_float(e)) {
          why = integer_immediates(t) ? "expected an integer immediate" : "expected a floating-point immediate";
          return false;
        }
        return true;
      }
      case KindTag::Vec: {
        const std::string_view t = resolve(k.type);
        uint32_t n = k.count_literal;
        if (k.count.present()) {
          const std::string_view v = resolve(k.count);
          if (v.empty()) return register_fits(id, t, k.wide, why);  // no vector modifier: a scalar
          std::from_chars(v.data() + 2, v.data() + v.size(), n);
        }
        if (e.kind != ExprKind::List || static_cast<Delim>(e.sub) != Delim::Brace) {
          why = "expected a vector of " + std::to_string(n) + " registers {a, b, ...}";
          return false;
        }
        if (e.b != n) {
          why = "expected a vector of " + std::to_string(n) + " registers, found " + std::to_string(e.b);
          return false;
        }
        for (const ListItem& it : m_.slice(Range{e.a, e.b}))
          if (m_.name_of(ExprId{it.node}) != "_" && !register_fits(ExprId{it.node}, t, k.wide, why)) return false;
        return true;
      }
      case KindTag::Addr: return address_fits(k, e, why);
      case KindTag::Label:
        if (e.kind == ExprKind::Name && is_label(Symbol{e.a})) return true;
        why = e.kind == ExprKind::Name ? "undefined label " + quoted(m_.text(Symbol{e.a})) : "expected a label";
        return false;
      case KindTag::Symbol:
      case KindTag::Func:
        if (e.kind == ExprKind::Name && lookup(Symbol{e.a})) return true;
        why = e.kind == ExprKind::Name ? "undeclared symbol " + quoted(m_.text(Symbol{e.a})) : "expected a symbol";
        return false;
      case KindTag::Args:
        if (e.kind == ExprKind::List && static_cast<Delim>(e.sub) == Delim::Paren) return true;
        why = "expected an argument list (a, b)";
        return false;
      case KindTag::Sink:
        if (m_.name_of(id) == "_") return true;
        why = "expected '_'";
        return false;
      case KindTag::TexRef:
      case KindTag::SamplerRef:
      case KindTag::SurfRef:
        if (e.kind == ExprKind::Name) return true;
        why = "expected a texture, sampler or surface reference";
        return false;
    }
    return false;
  }

  bool address_fits(const Kind& k, const Expr& e, std::string& why) {
    if (e.kind != ExprKind::List || static_cast<Delim>(e.sub) != Delim::Bracket || e.b != 1) {
      why = "expected an address [a]";
      return false;
    }
    const Expr* base = &m_.expr(ExprId{m_.items[e.a].node});
    if (base->kind == ExprKind::Binary && (static_cast<Op>(base->sub) == Op::Add || static_cast<Op>(base->sub) == Op::Sub)) {
      if (!is_immediate(m_.expr(ExprId{base->b}))) {
        why = "an address offset must be an immediate";
        return false;
      }
      base = &m_.expr(ExprId{base->a});
    }
    if (is_immediate(*base)) return true;  // an immediate address
    if (base->kind != ExprKind::Name) {
      why = "expected an address [reg], [reg+imm], [var] or [imm]";
      return false;
    }
    const Symbol name{base->a};
    const Entity* ent = lookup(name);
    if (!ent) {
      why = "undeclared " + quoted(m_.text(name));
      return false;
    }
    if (ent->kind == Entity::Register || ent->kind == Entity::RegisterRange) {
      const auto info = type_info(ent->type);
      if (!info || (info->bits != 32 && info->bits != 64) || info->cls == detail::TypeClass::Float) {
        why = "an address register must be a 32- or 64-bit integer register";
        return false;
      }
      return true;
    }
    if (ent->kind == Entity::Variable) {
      const std::string_view space = resolve(k.space);
      const std::string_view want = space.substr(0, space.find("::"));
      if (!want.empty() && want != "generic" && to_string(ent->space) != want) {
        why = quoted(m_.text(name)) + " is in the " + std::string(to_string(ent->space)) + " state space, not " +
              std::string(want);
        return false;
      }
      return true;
    }
    return true;  // a function name (an address of code)
  }

  const Module& m_;
  CheckOptions opts_;
  std::vector<Diagnostic> out_;
  PtxIsaVersion version_{};
  Target target_{};

  std::vector<uint32_t> binding_;                      // symbol id -> entity index
  std::vector<Entity> entities_;
  std::vector<std::pair<uint32_t, uint32_t>> undo_;    // (symbol id, previous binding)
  std::vector<uint32_t> scopes_;
  uint32_t scope_floor_ = 0;                           // entities below this are from outer scopes
  std::vector<Symbol> labels_;

  std::vector<std::string_view> mods_;
  std::vector<Choice> choices_;
  uint32_t problem_loc_ = 0;
};

}  // namespace

std::vector<Diagnostic> check(const Module& m, const CheckOptions& options) { return Checker(m, options).run(); }

}  // namespace ptx::spec
