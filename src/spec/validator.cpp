#include "ptxpp/spec/validator.hpp"

#include <algorithm>
#include <charconv>
#include <span>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include "call_abi.hpp"
#include "decl_checks.hpp"
#include "form_match.hpp"
#include "quoted.hpp"
#include "ptxpp/ir/queries.hpp"
#include "ptxpp/ir/scopes.hpp"
#include "type_rules.hpp"

namespace ptx::spec {

namespace {

using namespace ptx::ir;
using detail::Choice;
using detail::doubled;
using detail::MatchResult;
using detail::integer_immediates;
using detail::quoted;
using detail::register_matches;
using detail::type_info;

// What a name in a function refers to.
struct Entity {
  enum Kind : uint8_t { Register, RegisterRange, Variable, Function, Label } kind;
  StateSpace space = StateSpace::None;
  std::string_view type;  // ".u32", ".pred", ...
  uint32_t vector = 1;
  uint64_t count = 0;  // RegisterRange: %r<count>
  uint32_t loc = 0;
  int32_t rets = -1, params = -1;  // Function: its return and parameter counts
};

// Why an operand does not fit. The text is built only when it will be shown
// (explaining), since most failed alternatives are followed by one that fits.
class Why {
 public:
  explicit Why(bool explain) : explain_(explain) {}
  template <class Make>
  void set(Make&& make) {
    has_ = true;
    if (explain_) text_ = make();
  }
  void take(const Why& other) {
    has_ = other.has_;
    text_ = other.text_;
  }
  Why child() const { return Why(explain_); }
  bool empty() const { return !has_; }
  void clear() {
    has_ = false;
    text_.clear();
  }
  const std::string& text() const { return text_; }

 private:
  bool explain_;
  bool has_ = false;
  std::string text_;
};

// A form whose modifiers fit an instruction's, with the values they choose.
struct FormMatch {
  const Form* form;
  MatchResult pass;
  std::vector<Choice> choices;
  // Whether the module meets the form's and the chosen values' requirements (-1: not yet
  // known); the same for every instruction of the module with these modifiers.
  mutable int8_t requirements_met = -1;
};

class Checker {
 public:
  Checker(const Module& m, const CheckOptions& o) : m_(m), opts_(o), scopes_(m) { entities(); }

  std::vector<Diagnostic> run() {
    header();
    module_symbols();
    detail::check_declarations(m_, scopes_, out_);
    detail::check_call_abi(m_, scopes_, out_);
    check_directives();
    for (const Stmt& s : m_.root().stmts)
      if (s.kind == StmtKind::Function && m_.functions[s.index].has_body()) function(s.index);
    std::stable_sort(out_.begin(), out_.end(), [](const Diagnostic& a, const Diagnostic& b) { return a.offset < b.offset; });
    return std::move(out_);
  }

 private:
  // ---- diagnostics --------------------------------------------------------------
  void error(uint32_t loc, std::string msg) { out_.push_back({loc, Severity::Error, std::move(msg)}); }

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
        if (min_ptx_for(*t).major == 0) error(target->loc, "unknown target " + quoted(words[0]));
      } else {
        error(target->loc, "unknown target " + quoted(words.empty() ? std::string_view{} : words[0]));
      }
      for (size_t i = 1; i < words.size(); ++i) {
        if (words[i] != "texmode_unified" && words[i] != "texmode_independent" && words[i] != "debug" &&
            words[i] != "map_f64_to_f32")
          error(target->loc, "unknown .target option " + quoted(words[i]));
        if (words[i] == "texmode_independent") texmode_ = TexMode::Independent;
      }
    }
    const Target module_target = target_;
    const PtxVersion module_version = version_;
    if (opts_.target) target_ = *opts_.target;
    if (opts_.version) version_ = *opts_.version;
    target_needs_version(target ? target->loc : version ? version->loc : 0, module_target, module_version);
  }

  static std::string version_text(PtxVersion v) { return std::to_string(v.major) + "." + std::to_string(v.minor); }

  // The target (the module's, or the one given) against the PTX ISA version (likewise); a given one
  // that conflicts says what it replaced.
  void target_needs_version(uint32_t loc, Target module_target, PtxVersion module_version) {
    const auto min = min_ptx_for(target_);
    if (!version_.major || min.major == 0 || !(version_ < min)) return;
    std::string msg =
        "target " + target_.name() + " needs PTX ISA " + version_text(min) + " or later";
    std::vector<std::string> given;
    if (opts_.version && module_version.major && module_version != version_)
      given.push_back(".version " + version_text(module_version));
    if (opts_.target && module_target.number && module_target != target_)
      given.push_back(".target " + module_target.name());
    if (!given.empty())
      msg += "; checking PTX ISA " + version_text(version_) + " for " + target_.name() +
             ", given in place of the module's " + given[0] + (given.size() > 1 ? " and " + given[1] : "");
    error(loc, msg);
  }

  // ---- names: what each refers to, from the module's scopes (ir::Scopes) -----------------
  // The entity of every declaration of the module.
  void entities() {
    entities_.reserve(scopes_.declarations().size());
    uint32_t info_of = Declaration::kNone;
    DeclInfo info;
    for (const Declaration& d : scopes_.declarations()) {
      Entity e{};
      e.loc = d.loc;
      switch (d.kind) {
        case Declaration::Label:
          e.kind = Entity::Label;
          break;
        case Declaration::Function: {
          const Function& f = m_.functions[d.node];
          e.kind = Entity::Function;
          e.rets = static_cast<int32_t>(f.ret.params.count);
          e.params = static_cast<int32_t>(f.params.params.count);
          break;
        }
        case Declaration::Variable:
        case Declaration::RegisterRange:
          if (info_of != d.decl) info = decl_info(m_, m_.decls[info_of = d.decl]);
          e.space = info.space;
          e.type = info.type;
          e.vector = info.vector;
          e.kind = d.kind == Declaration::RegisterRange ? Entity::RegisterRange
                   : info.space == StateSpace::Reg      ? Entity::Register
                                                        : Entity::Variable;
          e.count = d.kind == Declaration::RegisterRange && d.count != Declaration::kUnknownCount ? d.count : 0;
          break;
      }
      entities_.push_back(e);
    }
  }

  // Two declarations of one name in one scope.
  void conflicts() {
    for (const auto& [first, second] : scopes_.conflicts()) {
      const Declaration& a = scopes_.declaration(first);
      const Declaration& b = scopes_.declaration(second);
      if (a.kind == Declaration::Label && b.kind == Declaration::Label)
        error(b.loc, "duplicate label " + quoted(m_.text(b.name)));
      else
        error(b.loc, "redeclaration of " + quoted(m_.text(b.kind == Declaration::RegisterRange ? a.name : b.name)));
    }
  }

  // The entity a name refers to where it is used (the statement being checked); a register
  // of a %r<N> range resolves to the range.
  const Entity* lookup(Symbol name) const {
    const Resolved r = scopes_.lookup(scope_, at_, name);
    return r ? &entities_[r.declaration] : nullptr;
  }
  bool is_label(Symbol name) const {
    const Entity* e = lookup(name);
    return e && e->kind == Entity::Label;
  }

  // ---- declarations ------------------------------------------------------------------
  void declare(const Decl& d) {
    const DeclInfo info = decl_info(m_, d);
    if (info.space != StateSpace::Reg) return;
    for (const Declarator& dc : m_.declarators_of(d)) {
      if (dc.range) {
        const Expr& list = m_.expr(dc.range);
        const auto n = list.b == 1 ? eval_int(m_, ExprId{m_.items[list.a].node}) : std::nullopt;
        if (!n || *n < 0)
          error(d.loc, "register count of " + quoted(m_.text(dc.name)) + " must be a non-negative constant");
      }
      if (!type_info(info.type)) error(d.loc, "register " + quoted(m_.text(dc.name)) + " needs a type such as .b32");
    }
  }

  void module_symbols() {
    conflicts();
    std::vector<Symbol> defined;  // functions with a body
    for (const Stmt& s : m_.root().stmts) {
      if (s.kind == StmtKind::Decl) {
        declare(m_.decls[s.index]);
      } else if (s.kind == StmtKind::Function) {
        const Function& f = m_.functions[s.index];
        if (!f.has_body()) continue;
        if (std::find(defined.begin(), defined.end(), f.name) != defined.end())
          error(f.loc, "redefinition of " + quoted(m_.text(f.name)));
        defined.push_back(f.name);
      }
    }
  }

  // ---- functions -----------------------------------------------------------------------
  void function(uint32_t index) {
    const Function& f = m_.functions[index];
    scope_ = scopes_.of_function(index);
    at_ = 0;
    for (const ParamList* pl : {&f.ret, &f.params})
      for (const ListItem& it : m_.slice(pl->params)) declare(m_.decls[it.node]);
    block(scope_);
    scope_ = Scopes::kModule;
    at_ = Scopes::kAnywhere;
  }

  void block(uint32_t scope) {
    const auto& stmts = m_.blocks[scopes_.scope(scope).block].stmts;
    for (uint32_t i = 0; i < stmts.size(); ++i) {
      const Stmt& s = stmts[i];
      scope_ = scope;
      at_ = i;
      switch (s.kind) {
        case StmtKind::Decl: declare(m_.decls[s.index]); break;
        case StmtKind::Block:
          block(scopes_.of_block(s.index));
          break;
        case StmtKind::Instruction: instruction(m_.instructions[s.index]); break;
        default: break;
      }
    }
  }

  // ---- instructions ---------------------------------------------------------------------
  void instruction(const Instruction& in) {
    const std::string_view opcode = m_.text(in.opcode);
    if (in.guard) check_guard(in.guard);
    opcode_ = opcode;
    // The first form whose modifiers and operands both fit and whose requirements hold; else the
    // first that fits (its requirements are reported); otherwise the best explanation.
    const std::vector<FormMatch>& matches = modifier_matches(in);
    if (matches.empty() && forms_for(opcode).empty()) {
      error(in.loc, "unknown instruction " + quoted(opcode));
      return;
    }
    const FormMatch* first_fit = nullptr;
    uint32_t where = in.loc;
    for (const FormMatch& mm : matches) {
      choices_ = mm.choices;
      Why why(false);  // no message is built unless nothing fits
      if (!operands_fit(*mm.form, in, why, where)) continue;
      if (check_requirements(mm, in, false)) return accept(mm, in);
      if (!first_fit) first_fit = &mm;
    }
    if (first_fit) {  // its choices and operands again, then report what it requires
      choices_ = first_fit->choices;
      Why why(false);
      operands_fit(*first_fit->form, in, why, where);
      return accept(*first_fit, in);
    }
    if (!matches.empty()) {  // explain why the first form whose modifiers fit (and that takes as many operands) does not take these
      const FormMatch* explained = &matches.front();
      for (const FormMatch& mm : matches) {
        choices_ = mm.choices;
        if (takes_count(*mm.form, in.operands.count)) {
          explained = &mm;
          break;
        }
      }
      choices_ = explained->choices;
      Why why(true);
      operands_fit(*explained->form, in, why, where);
      return error(where, why.text());
    }
    fill_mods(in);  // a cache hit in modifier_matches() leaves them unset
    error(in.loc, modifier_problem(opcode, forms_for(opcode)));
  }

  void fill_mods(const Instruction& in) {
    mods_.clear();
    for (const Modifier& mod : m_.modifiers_of(in)) mods_.push_back(m_.text(mod.name));
  }

  // The forms whose modifiers fit the instruction's, those in the manual's order first, with
  // the values chosen; computed once per distinct opcode and modifier list of the module.
  const std::vector<FormMatch>& modifier_matches(const Instruction& in) {
    key_.clear();
    key_.push_back(in.opcode.id);
    for (const Modifier& mod : m_.modifiers_of(in)) key_.push_back(mod.name.id);
    auto [it, added] = match_cache_.try_emplace(key_);
    if (!added) return it->second;
    fill_mods(in);
    // Modules share their mnemonics: the matches of each are also kept per thread across modules.
    thread_local std::unordered_map<std::string, std::vector<FormMatch>> across_modules;
    std::string mnemonic = m_.mnemonic(in);
    if (auto hit = across_modules.find(mnemonic); hit != across_modules.end()) {
      it->second = hit->second;
      return it->second;
    }
    const auto candidates = forms_for(m_.text(in.opcode));
    std::vector<Choice> scratch;
    for (MatchResult pass : {MatchResult::InOrder, MatchResult::Reordered})
      for (const Form& f : candidates)
        if (detail::match_modifiers(f, mods_, scratch) == pass) it->second.push_back({&f, pass, scratch});
    if (across_modules.size() < 65536) across_modules.emplace(std::move(mnemonic), it->second);  // bounded
    return it->second;
  }

  // mov and cvt are the instructions that read special registers; their destination is the
  // first operand, and special registers are read-only (ptxas: "Read-only special register
  // cannot be destination argument").
  void check_special_destination(const Instruction& in) {
    if (opcode_ != "mov" && opcode_ != "cvt") return;
    const auto ops = m_.operands_of(in);
    if (ops.empty()) return;
    const ExprId d{ops[0].node};
    const Expr& e = m_.expr(d);
    if (e.kind != ExprKind::Name || lookup(Symbol{e.a})) return;
    if (!find_special_register(m_.text(Symbol{e.a}))) return;
    std::string name(m_.text(Symbol{e.a}));
    if (e.b) {
      const std::string_view comp = m_.text(Symbol{e.b});
      name += (comp.empty() || comp[0] == '.' ? "" : ".") + std::string(comp);
    }
    error(e.loc ? e.loc : in.loc, "special register " + quoted(name) + " is read-only: it cannot be a destination");
  }

  void accept(const FormMatch& mm, const Instruction& in) {
    check_special_destination(in);
    // nvcc itself writes e.g. atom.add.release.gpu.u32, so this is only a pedantic warning.
    if (mm.pass == MatchResult::Reordered && opts_.pedantic)
      out_.push_back({in.loc, Severity::Warning,
                      "the modifiers of " + quoted(m_.mnemonic(in)) + " are not in the PTX ISA order " +
                          quoted(mm.form->syntax.substr(0, mm.form->syntax.find(' '))) + " (ptxas accepts them)"});
    check_requirements(mm, in, true);
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
    // Show the forms that start with the instruction's first modifier (tcgen05.mma: the
    // tcgen05.mma forms, not tcgen05.alloc), or all of them when none does.
    auto leads_with_first = [&](const Form& f) {
      if (mods_.empty() || slots(f).empty() || items(slots(f)[0]).empty()) return false;
      const SlotItem& it = items(slots(f)[0])[0];
      if (!it.is_group) return it.text == mods_[0];
      for (const Value& v : values(group(it.group)))
        if (v.text == mods_[0]) return true;
      return false;
    };
    std::vector<const Form*> shown;
    for (const Form& f : candidates)
      if (leads_with_first(f)) shown.push_back(&f);
    if (shown.empty())
      for (const Form& f : candidates) shown.push_back(&f);
    std::string msg = "modifiers of " + quoted(opcode) + " do not match any of its forms: ";
    for (size_t i = 0; i < shown.size() && i < 4; ++i) msg += (i ? "; " : "") + std::string(shown[i]->syntax);
    if (shown.size() > 4) msg += "; ...";
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

  // Whether the module satisfies what form f (as matched: choices_, written_) requires; reports
  // each unmet requirement when `report`.
  bool check_requirements(const FormMatch& mm, const Instruction& in, bool report) {
    if (!target_.number || !version_.major) return true;  // no usable .target/.version: already reported
    const Form& f = *mm.form;
    bool ok = true;
    auto fail = [&](std::string msg) {
      ok = false;
      if (report) error(in.loc, std::move(msg));
    };
    // `what` names the requirer; it is only built when the requirement fails.
    auto need = [&](const Requirement& r, auto&& what) {
      const PtxVersion v = r.ptx;
      if (version_ < v || !allows(r, target_) || (r.texmode != TexMode::Any && r.texmode != texmode_))
        fail(std::string(what()) + " requires " + describe(r) + "; the module is PTX ISA " +
             std::to_string(version_.major) + "." + std::to_string(version_.minor) + " for " + target_.name());
    };
    if (mm.requirements_met != 1) {  // once per module and modifier list, unless it fails
      need(f.req, [&] { return quoted(m_.mnemonic(in)); });
      for (const Choice& c : choices_)
        if (c.value->req.set_count || c.value->req.ptx.major > 1) need(c.value->req, [&] { return quoted(c.value->text); });
      mm.requirements_met = ok ? 1 : 0;
    }
    auto nontrivial = [](const Requirement& r) { return r.set_count || r.ptx.major > 1 || r.texmode != TexMode::Any; };
    for (const auto& w : written_) {  // `x: KIND [ptx 7.1]`: what writing x requires
      const Operand* o = w.first;  // (not a structured binding: clang 14 cannot capture those)
      const bool pair = w.second;
      Requirement r = o->req, pr = o->pair_req;
      r.texmode = pr.texmode = TexMode::Any;  // a texmode of an operand: see below
      if (nontrivial(r)) need(r, [&] { return "operand " + quoted(o->name); });
      if (pair && nontrivial(pr)) need(pr, [&] { return "operand " + quoted(o->pair); });
    }
    // A texturing mode in an optional operand's requirement: in that mode the operand is required
    // (the sampler of `tex d, [a, {b,} c]` with texmode_independent).
    auto absent_in_mode = [&](const Operand& o) {
      if (!o.optional || o.req.texmode == TexMode::Any || o.req.texmode != texmode_) return;
      for (const auto& w : written_)
        if (w.first == &o) return;
      fail("operand " + quoted(o.name) + " of " + quoted(m_.mnemonic(in)) + " is required with " +
           (texmode_ == TexMode::Independent ? "texmode_independent" : "texmode_unified"));
    };
    for (const Operand& o : operands(f)) {
      absent_in_mode(o);
      for (const Operand& m : members(o)) absent_in_mode(m);
    }
    // Special registers are only read by mov and cvt (register_fits rejects them elsewhere).
    if (report && (opcode_ == "mov" || opcode_ == "cvt"))
      for (uint32_t i = 0; i < in.operands.count; ++i) special_register_requirements(m_.operand(in, i));
    return ok;
  }

  // What the module's version and target must be for r; reported at loc.
  void require(const Requirement& r, const std::string& what, uint32_t loc) {
    if (!target_.number || !version_.major) return;  // no usable .target/.version: already reported
    if (version_ < r.ptx || !allows(r, target_))
      error(loc, what + " requires " + describe(r) + "; the module is PTX ISA " + std::to_string(version_.major) + "." +
                     std::to_string(version_.minor) + " for " + target_.name());
  }

  // The special registers an operand reads (%clusterid.x: PTX 7.8, sm_90).
  void special_register_requirements(ExprId id) {
    const Expr& e = m_.expr(id);
    switch (e.kind) {
      case ExprKind::Name:
        if (m_.text(Symbol{e.a})[0] == '%' && !lookup(Symbol{e.a}))
          if (const SpecialRegister* sr = find_special_register(m_.text(Symbol{e.a})))
            require(sr->req, quoted(m_.text(Symbol{e.a})), e.loc);
        return;
      case ExprKind::Unary: return special_register_requirements(ExprId{e.a});
      case ExprKind::Binary:
        special_register_requirements(ExprId{e.a});
        return special_register_requirements(ExprId{e.b});
      case ExprKind::List:
        for (const ListItem& it : m_.slice(Range{e.a, e.b})) special_register_requirements(ExprId{it.node});
        return;
      default: return;
    }
  }

  // ---- directives (spec/isa/directives.isa): where they are written, operand counts,
  // needs/conflicts within a header, removed ones, version and target ---------------------------
  void check_directives() {
    for (const Stmt& s : m_.root().stmts) {
      switch (s.kind) {
        case StmtKind::Directive: {
          const ir::Directive& d = m_.directives[s.index];
          use_directive(m_.text(d.name), kPlaceModule, d.loc, static_cast<int>(d.items.count));
          break;
        }
        case StmtKind::Decl: decl_directives(m_.decls[s.index], kPlaceModule); break;
        case StmtKind::Section: use_directive(".section", kPlaceModule, m_.sections[s.index].loc, -1); break;
        case StmtKind::Prototype: prototype_directives(m_.prototypes[s.index], kPlaceModule); break;
        case StmtKind::Function: function_directives(m_.functions[s.index]); break;
        default: break;
      }
    }
  }

  void prototype_directives(const Prototype& p, uint8_t place) {
    use_directive(".callprototype", place, p.loc, -1);
    for (uint32_t d : p.header)
      use_directive(m_.text(m_.directives[d].name), kPlaceProto, m_.directives[d].loc,
                    static_cast<int>(m_.directives[d].items.count));
  }

  void decl_directives(const Decl& d, uint8_t place) {
    bool after_ptr = false;  // `.ptr .global .align 16`: the state space and alignment pointed to
    for (const ir::Spec& w : m_.specs_of(d.specs)) {
      const std::string_view word = m_.text(w.word);
      if (after_ptr && word != ".align") continue;
      use_directive(word, place, d.loc, -1);
      after_ptr = after_ptr || word == ".ptr";
    }
  }

  void function_directives(const Function& f) {
    bool entry = false;
    for (const ir::Spec& w : m_.specs_of(f.specs)) {
      entry = entry || m_.text(w.word) == ".entry";
      use_directive(m_.text(w.word), kPlaceModule, f.loc, -1);
    }
    for (const ParamList* pl : {&f.ret, &f.params})
      for (const ListItem& it : m_.slice(pl->params))
        decl_directives(m_.decls[it.node], entry ? kPlaceEntryParam : kPlaceFuncParam);
    for (size_t i = 0; i < f.header.size(); ++i) {
      const ir::Directive& d = m_.directives[f.header[i]];
      const std::string_view name = m_.text(d.name);
      use_directive(name, entry ? kPlaceEntry : kPlaceFunc, d.loc, static_cast<int>(d.items.count));
      const DirectiveSpec* ds = find_directive(name);
      if (!ds) continue;
      // the position of another directive of this header, or -1
      auto position = [&](std::string_view other) {
        for (size_t j = 0; j < f.header.size(); ++j)
          if (m_.text(m_.directives[f.header[j]].name) == other) return static_cast<int>(j);
        return -1;
      };
      for_each_word(ds->needs, [&](std::string_view w) {
        if (position(w) < 0) error(d.loc, quoted(name) + " needs " + quoted(w) + " in the same function header");
      });
      for_each_word(ds->conflicts, [&](std::string_view w) {
        const int j = position(w);
        if (j >= 0 && static_cast<size_t>(j) < i) error(d.loc, quoted(name) + " and " + quoted(w) + " cannot both be given");
      });
    }
    if (f.has_body()) body_directives(m_.blocks[f.body]);
  }

  template <class F>
  static void for_each_word(std::string_view words, F fn) {
    while (!words.empty()) {
      const size_t sp = words.find(' ');
      fn(words.substr(0, sp));
      words = sp == std::string_view::npos ? std::string_view{} : words.substr(sp + 1);
    }
  }

  void body_directives(const ir::Block& b) {
    for (const Stmt& s : b.stmts) {
      switch (s.kind) {
        case StmtKind::Directive: {
          const ir::Directive& d = m_.directives[s.index];
          use_directive(m_.text(d.name), kPlaceBody, d.loc, static_cast<int>(d.items.count));
          break;
        }
        case StmtKind::Decl: decl_directives(m_.decls[s.index], kPlaceBody); break;
        case StmtKind::Block: body_directives(m_.blocks[s.index]); break;
        case StmtKind::Prototype: prototype_directives(m_.prototypes[s.index], kPlaceBody); break;
        default: break;
      }
    }
  }

  static std::string place_text(uint8_t place) {
    switch (place) {
      case kPlaceModule: return "at module scope";
      case kPlaceBody: return "in a function body";
      case kPlaceEntry: return "in an .entry header";
      case kPlaceFunc: return "in a .func header";
      case kPlaceProto: return "after a .callprototype";
      case kPlaceEntryParam: return "on an .entry parameter";
      case kPlaceFuncParam: return "on a .func parameter";
      default: return "here";
    }
  }

  // One use of a directive or declaration word; operands < 0: not counted (words).
  void use_directive(std::string_view name, uint8_t place, uint32_t loc, int operands) {
    const DirectiveSpec* d = find_directive(name);
    if (!d) return;  // types, vector widths and other words the table does not describe
    if (!d->places) return error(loc, quoted(name) + " cannot be declared (predefined only)");
    if (!(d->places & place)) return error(loc, quoted(name) + " is not allowed " + place_text(place));
    if (d->counted && operands >= 0 &&
        (operands < d->min_operands || (d->max_operands != 255 && operands > d->max_operands))) {
      const std::string range = d->min_operands == d->max_operands ? std::to_string(d->min_operands)
                                : d->max_operands == 255 ? "at least " + std::to_string(d->min_operands)
                                : std::to_string(d->min_operands) + " to " + std::to_string(d->max_operands);
      error(loc, quoted(name) + " takes " + range + " operands, found " + std::to_string(operands));
    }
    if (d->removed.major && version_.major && version_ >= d->removed)
      return error(loc, quoted(name) + " is not supported as of PTX ISA " + std::to_string(d->removed.major) + "." +
                            std::to_string(d->removed.minor));
    require(d->req, quoted(name), loc);
  }

  // ---- operands -----------------------------------------------------------------------------
  // How many operands form f takes with the chosen values (choices_): at least `first`, at most `second`.
  std::pair<size_t, size_t> operand_counts(const Form& f) const {
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
  bool takes_count(const Form& f, size_t n) const {
    const auto [required, possible] = operand_counts(f);
    return n >= required && n <= possible;
  }

  bool operands_fit(const Form& f, const Instruction& in, Why& why, uint32_t& where) {
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
  bool assign(std::span<const Operand> ops, size_t i, const Instruction& in, size_t next, size_t optional_left,
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
  bool call_arity_fits(std::span<const Operand> ops, const Instruction& in, Why& why, uint32_t& where) {
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

  bool operand_fits(const Operand& o, ExprId id, Why& why) {
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
  bool members_fit(const Operand& o, const Expr& e, Why& why) {
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

  bool any_kind(std::span<const Kind> ks, ExprId id, std::string_view name, Why& why) {
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
  bool component_fits(const Kind& k, ExprId id, Why& why) {
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
  bool register_fits(ExprId id, std::string_view type, bool wide, Why& why, bool component_checked = false) {
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

  // A source register plus an integer constant, `%r2+1`: ptxas folds it (the register's value
  // plus the constant), in any operand but the first (a destination there: "Result register
  // required"); the register, else none.
  ExprId register_plus_constant(const Expr& e) const {
    if (operand_index_ == 0 || e.kind != ExprKind::Binary || static_cast<Op>(e.sub) != Op::Add) return {};
    const Expr& left = m_.expr(ExprId{e.a});
    const Expr& right = m_.expr(ExprId{e.b});
    if (left.kind != ExprKind::Name || !is_immediate(right) || has_float(right)) return {};
    return ExprId{e.a};
  }

  bool is_immediate(const Expr& e) const {
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
  bool has_float(const Expr& e) const {
    if (e.kind == ExprKind::Float) return true;
    if (e.kind == ExprKind::Unary) return has_float(m_.expr(ExprId{e.a}));
    if (e.kind == ExprKind::Binary) return has_float(m_.expr(ExprId{e.a})) || has_float(m_.expr(ExprId{e.b}));
    if (e.kind == ExprKind::Ternary) return has_float(m_.expr(ExprId{e.b})) || has_float(m_.expr(ExprId{e.aux}));
    if (e.kind == ExprKind::List && e.b == 1) return has_float(m_.expr(ExprId{m_.items[e.a].node}));
    return false;
  }

  bool divides_by_zero(const Expr& e) const {
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

  bool kind_fits(const Kind& k, ExprId id, Why& why) {
    const Expr& e = m_.expr(id);
    switch (k.tag) {
      case KindTag::Reg: {
        ExprId r = id;  // reg(T, neg): -r
        if (k.negate && e.kind == ExprKind::Unary && static_cast<Op>(e.sub) == Op::Neg) r = ExprId{e.a};
        if (const ExprId base = register_plus_constant(e)) r = base;
        if (k.component.present() && !component_fits(k, r, why)) return false;
        return register_fits(r, resolve(k.type), k.wide, why, k.component.present()) &&
               (!k.exact || exact_register(r, resolve(k.type), why));
      }
      case KindTag::Pred: {
        const Expr* p = &e;
        if (k.negate && e.kind == ExprKind::Unary && static_cast<Op>(e.sub) == Op::Not) p = &m_.expr(ExprId{e.a});
        if (p->kind != ExprKind::Name) {
          why.set([&] { return std::string("expected a predicate"); });
          return false;
        }
        return register_fits(ExprId{static_cast<uint32_t>(p - m_.exprs.data())}, ".pred", false, why);
      }
      case KindTag::Imm: {
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
        if (const auto allowed = imm_values(k); !allowed.empty()) {
          const auto v = eval_int(m_, id);
          if (!v || std::none_of(allowed.begin(), allowed.end(), [&](const ImmRange& r) { return r.contains(*v); })) {
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
        }
        return true;
      }
      case KindTag::Vec: {
        const std::string_view t = resolve(k.type);
        uint32_t n = k.count_literal;
        if (k.count.present()) {
          const std::string_view v = resolve(k.count);
          if (v.empty()) {  // no vector modifier: a scalar, also written as a one-element vector {r} (ptxas)
            if (e.kind == ExprKind::List && static_cast<Delim>(e.sub) == Delim::Brace && e.b == 1)
              return register_fits(ExprId{m_.items[e.a].node}, t, k.wide, why);
            if (k.imm && is_immediate(e)) {  // vec(.vec, T, imm): an immediate scalar too
              if (integer_immediates(t) != has_float(e)) return true;
              why.set([&] { return std::string(integer_immediates(t) ? "expected an integer immediate" : "expected a floating-point immediate"); });
              return false;
            }
            const ExprId base = register_plus_constant(e);
            return register_fits(base ? base : id, t, k.wide, why);
          }
          if (!k.count_letter) {
            // the value's number: ".v4" -> 4, ".3d" -> 3
            const size_t at = v.find_first_of("0123456789");
            n = 0;
            if (at != std::string_view::npos) std::from_chars(v.data() + at, v.data() + v.size(), n);
          } else {
            // the number after the letter: ".m64n96k16" with 'n' -> 96
            size_t at = 0;
            while (at < v.size() && !(v[at] == k.count_letter && at + 1 < v.size() && v[at + 1] >= '0' && v[at + 1] <= '9'))
              ++at;
            n = 0;
            if (at < v.size()) std::from_chars(v.data() + at + 1, v.data() + v.size(), n);
          }
          // then the factor, with or without a letter: vec(.cta_group*4, ...), vec(.num:x*2, ...), vec(.dim-2, ...)
          if (k.count_op == '*') n *= k.count_factor;
          else if (k.count_op == '/' && k.count_factor) n /= k.count_factor;
          else if (k.count_op == '-') n = n > k.count_factor ? n - k.count_factor : 0;
        }
        if (e.kind == ExprKind::Name && !e.b) {
          // a vector register of that size (.reg .v4 .f32 %v), or a vector special register (%tid) for .v4
          const Entity* ent = lookup(Symbol{e.a});
          if (ent && (ent->kind == Entity::Register || ent->kind == Entity::RegisterRange) && ent->vector == n)
            return register_fits(id, t, k.wide, why);
          if (const SpecialRegister* sr = ent ? nullptr : find_special_register(m_.text(Symbol{e.a}));
              sr && !sr->components.empty() && n == 4) {
            const std::string_view sr_type = sr->type.substr(0, sr->type.find('|'));  // ".u32|.u16": .u32
            if (t.empty() || register_matches(sr_type, t, k.wide)) return true;
            why.set([&] { return std::string(quoted(m_.text(Symbol{e.a})) + " is a " + std::string(sr_type) + " register, expected " + std::string(t)); });
            return false;
          }
        }
        if (e.kind != ExprKind::List || static_cast<Delim>(e.sub) != Delim::Brace) {
          why.set([&] { return std::string("expected a vector of " + std::to_string(n) + " registers {a, b, ...}"); });
          return false;
        }
        if (e.b != n) {
          why.set([&] { return std::string("expected a vector of " + std::to_string(n) + " registers, found " + std::to_string(e.b)); });
          return false;
        }
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
      case KindTag::Addr: return address_fits(k, e, why);
      case KindTag::Label:
        if (e.kind == ExprKind::Name && is_label(Symbol{e.a})) return true;
        why.set([&] { return std::string(e.kind == ExprKind::Name ? "undefined label " + quoted(m_.text(Symbol{e.a})) : "expected a label"); });
        return false;
      case KindTag::Func:
        if (e.kind == ExprKind::Name)
          if (const Entity* ent = lookup(Symbol{e.a})) {
            if (ent->kind == Entity::Function) return true;
            why.set([&] { return std::string(quoted(m_.text(Symbol{e.a})) + " is not a function"); });
            return false;
          }
        why.set([&] { return std::string(e.kind == ExprKind::Name ? "undeclared function " + quoted(m_.text(Symbol{e.a})) : "expected a function name"); });
        return false;
      case KindTag::Symbol: {
        // a name, optionally plus or minus an immediate offset (avar+8); symbol(S): a variable of state space S
        const Expr* base = &e;
        if (e.kind == ExprKind::Binary && (static_cast<Op>(e.sub) == Op::Add || static_cast<Op>(e.sub) == Op::Sub) &&
            is_immediate(m_.expr(ExprId{e.b})))
          base = &m_.expr(ExprId{e.a});
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
      case KindTag::SurfRef: {
        // a .texref/.samplerref/.surfref variable, or a 64-bit register holding its address
        const std::string_view want = k.tag == KindTag::TexRef      ? ".texref"
                                      : k.tag == KindTag::SamplerRef ? ".samplerref"
                                                                     : ".surfref";
        const Entity* ent = e.kind == ExprKind::Name ? lookup(Symbol{e.a}) : nullptr;
        if (ent && ent->kind == Entity::Variable && ent->type == want) return true;
        if (ent && (ent->kind == Entity::Register || ent->kind == Entity::RegisterRange) && !e.b) {
          const auto info = type_info(ent->type);
          if (info && info->bits == 64 && info->cls != detail::TypeClass::Float) return true;
        }
        why.set([&] { return std::string("expected a " + std::string(want) + " variable or a 64-bit register"); });
        return false;
      }
    }
    return false;
  }

  // reg(T, exact): the register is declared with type T itself (ptxas wants .b32, not .u32, there).
  bool exact_register(ExprId id, std::string_view type, Why& why) {
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

  bool address_fits(const Kind& k, const Expr& written, Why& why) {
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
    const Expr* base = &m_.expr(ExprId{m_.items[e.a].node});
    // offsets: [a+8], also several ([gbuf+-4+8], folded by ptxas)
    while (base->kind == ExprKind::Binary && (static_cast<Op>(base->sub) == Op::Add || static_cast<Op>(base->sub) == Op::Sub)) {
      if (!is_immediate(m_.expr(ExprId{base->b}))) {
        why.set([&] { return std::string("an address offset must be an immediate"); });
        return false;
      }
      base = &m_.expr(ExprId{base->a});
    }
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
    if (is_immediate(*base)) return true;  // an immediate address
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
    return true;  // a function name (an address of code)
  }

  const Module& m_;
  CheckOptions opts_;
  std::vector<Diagnostic> out_;
  PtxVersion version_{};
  Target target_{};
  TexMode texmode_ = TexMode::Unified;  // .target ..., texmode_independent

  Scopes scopes_;
  std::vector<Entity> entities_;      // by declaration (Scopes::declarations)
  uint32_t scope_ = Scopes::kModule;  // where the statement being checked is
  uint32_t at_ = Scopes::kAnywhere;   // its index in its block

  std::vector<std::string_view> mods_;
  std::string_view opcode_;  // of the instruction being checked
  uint32_t operand_index_ = 0;  // of the operand being checked, as written
  std::span<const Choice> choices_;  // of the form being checked (in match_cache_)
  struct KeyHash {
    size_t operator()(const std::vector<uint32_t>& k) const {
      uint64_t h = 1469598103934665603ull;
      for (uint32_t v : k) h = (h ^ v) * 1099511628211ull;
      return static_cast<size_t>(h);
    }
  };
  std::unordered_map<std::vector<uint32_t>, std::vector<FormMatch>, KeyHash> match_cache_;
  std::vector<uint32_t> key_;
  std::vector<std::pair<const Operand*, bool>> written_;  // operands of the matched form (and whether p|q)
};

}  // namespace

std::vector<Diagnostic> check(const Module& m, const CheckOptions& options) { return Checker(m, options).run(); }

}  // namespace ptx::spec
