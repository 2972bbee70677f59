// Checker: an instruction against the ISA table's forms (modifiers, guard, requirements).
#include "checker.hpp"

#include "ptxpp/ir/walk.hpp"

namespace ptx::spec::validation {

void Checker::instruction(const Instruction& in) {
  const std::string_view opcode = m_.text(in.opcode);
  if (in.guard) check_guard(in.guard);
  opcode_ = opcode;
  // The first form whose modifiers and operands both fit and whose requirements hold; else the
  // first that fits (its requirements are reported); otherwise the best explanation.
  ModifierMatches& mt = modifier_matches(in);
  const std::vector<FormFit>& fits = mt.decoded->fits;
  if (fits.empty() && forms_for(opcode).empty()) {
    error(in.loc, "unknown instruction " + quoted(opcode));
    return;
  }
  size_t first_fit = fits.size();
  uint32_t where = in.loc;
  for (size_t k = 0; k < fits.size(); ++k) {
    choices_ = fits[k].choices;
    Why why(false);  // no message is built unless nothing fits
    if (!operands_fit(*fits[k].form, in, why, where)) continue;
    if (check_requirements(fits[k], mt.requirements_met[k], in, false)) return accept(mt, k, in);
    if (first_fit == fits.size()) first_fit = k;
  }
  if (first_fit < fits.size()) {  // its choices and operands again, then report what it requires
    choices_ = fits[first_fit].choices;
    Why why(false);
    operands_fit(*fits[first_fit].form, in, why, where);
    return accept(mt, first_fit, in);
  }
  if (!fits.empty()) {  // explain why the first form whose modifiers fit (and that takes as many operands) does not take these
    const FormFit* explained = &fits.front();
    for (const FormFit& fit : fits)
      if (takes_count(*fit.form, in.operands.count)) {
        explained = &fit;
        break;
      }
    choices_ = explained->choices;
    Why why(true);
    operands_fit(*explained->form, in, why, where);
    return error(where, why.text());
  }
  fill_mods(in);  // a cache hit in modifier_matches() leaves them unset
  error(in.loc, modifier_problem(opcode, forms_for(opcode)));
}

void Checker::fill_mods(const Instruction& in) {
  mods_.clear();
  for (const Modifier& mod : m_.modifiers_of(in)) mods_.push_back(m_.text(mod.name));
}

// The forms whose modifiers fit the instruction's, those in the manual's order first, with
// the values chosen (decode_modifiers); looked up once per distinct opcode and modifier list of
// the module.
ModifierMatches& Checker::modifier_matches(const Instruction& in) {
  key_.clear();
  key_.push_back(in.opcode.id);
  for (const Modifier& mod : m_.modifiers_of(in)) key_.push_back(mod.name.id);
  auto [it, added] = match_cache_.try_emplace(key_);
  if (!added) return it->second;
  fill_mods(in);
  it->second.decoded = decode_modifiers(m_.text(in.opcode), mods_);
  it->second.requirements_met.assign(it->second.decoded->fits.size(), -1);
  return it->second;
}

// mov and cvt are the instructions that read special registers; their destination is the
// first operand, and special registers are read-only (ptxas: "Read-only special register
// cannot be destination argument").
void Checker::check_special_destination(const Instruction& in) {
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

void Checker::accept(ModifierMatches& mt, size_t k, const Instruction& in) {
  const FormFit& fit = mt.decoded->fits[k];
  check_special_destination(in);
  // nvcc itself writes e.g. atom.add.release.gpu.u32, so this is only a pedantic warning.
  if (fit.order == ModifierOrder::Reordered && opts_.pedantic)
    out_.push_back({in.loc, Severity::Warning,
                    "the modifiers of " + quoted(m_.mnemonic(in)) + " are not in the PTX ISA order " +
                        quoted(fit.form->syntax.substr(0, fit.form->syntax.find(' '))) + " (ptxas accepts them)"});
  const bool ok = check_requirements(fit, mt.requirements_met[k], in, true);
  if (!decoded_) return;
  DecodedInstruction d{static_cast<uint32_t>(&in - m_.instructions.data()), mt.decoded, &fit, {}, ok};
  for (const auto& w : written_) d.operands.push_back(w.first);
  decoded_->push_back(std::move(d));
}

void Checker::check_guard(ExprId g) {
  const Expr* e = &m_.expr(g);
  if (e->kind == ExprKind::Unary && static_cast<Op>(e->sub) == Op::Not) e = &m_.expr(ExprId{e->a});
  if (e->kind != ExprKind::Name) return error(e->loc, "a guard must be a predicate register");
  const Entity* ent = lookup(Symbol{e->a});
  if (!ent) return error(e->loc, "undeclared register " + quoted(m_.text(Symbol{e->a})));
  if (ent->type != ".pred") error(e->loc, "guard " + quoted(m_.text(Symbol{e->a})) + " is not a .pred register");
}

std::string Checker::modifier_problem(std::string_view opcode, std::span<const Form> candidates) {
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

const Value* Checker::chosen(uint32_t group_index) const {
  for (const Choice& c : choices_)
    if (c.group == group_index) return c.value;
  return nullptr;
}

// A type/count/space reference resolved with the chosen values ("" when the group is absent).
std::string_view Checker::resolve(const Ref& r) const {
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
bool Checker::check_requirements(const FormFit& fit, int8_t& met, const Instruction& in, bool report) {
  if (!target_.number || !version_.major) return true;  // no usable .target/.version: already reported
  const Form& f = *fit.form;
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
  if (met != 1) {  // once per module and modifier list, unless it fails
    need(f.req, [&] { return quoted(m_.mnemonic(in)); });
    for (const Choice& c : choices_)
      if (c.value->req.set_count || c.value->req.ptx.major > 1) need(c.value->req, [&] { return quoted(c.value->text); });
    met = ok ? 1 : 0;
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
void Checker::require(const Requirement& r, const std::string& what, uint32_t loc) {
  if (!target_.number || !version_.major) return;  // no usable .target/.version: already reported
  if (version_ < r.ptx || !allows(r, target_))
    error(loc, what + " requires " + describe(r) + "; the module is PTX ISA " + std::to_string(version_.major) + "." +
                   std::to_string(version_.minor) + " for " + target_.name());
}

// The special registers an operand reads (%clusterid.x: PTX 7.8, sm_90).
void Checker::special_register_requirements(ExprId id) {
  ir::for_each_name(m_, id, [&](const Expr& e) {
    if (m_.text(Symbol{e.a})[0] == '%' && !lookup(Symbol{e.a}))
      if (const SpecialRegister* sr = find_special_register(m_.text(Symbol{e.a})))
        require(sr->req, quoted(m_.text(Symbol{e.a})), e.loc);
  });
}

}  // namespace ptx::spec::validation
