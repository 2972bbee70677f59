// Internal: the class that validates a module (check(), ptxpp/spec/validator.hpp). Its member
// functions are spread over validator*.cpp by concern.
#pragma once

#include "ptxpp/spec/validator.hpp"

#include <algorithm>
#include <charconv>
#include <optional>
#include <span>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include "call_abi.hpp"
#include "decl_checks.hpp"
#include "form_match.hpp"
#include "ptxpp/spec/decoded.hpp"
#include "quoted.hpp"
#include "ptxpp/ir/queries.hpp"
#include "ptxpp/ir/scopes.hpp"
#include "type_rules.hpp"

namespace ptx::spec::validation {

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

// The forms whose modifiers fit an instruction's (shared by every instruction with its
// mnemonic), and whether the module meets each one's requirements and those of its chosen
// values (-1: not yet known; the same for every instruction of the module with these modifiers).
struct ModifierMatches {
  DecodedModifiersPtr decoded;
  std::vector<int8_t> requirements_met;  // by fit
};

class Checker {
 public:
  // With `decoded`, each matched instruction is recorded there (check_and_decode()).
  Checker(const Module& m, const CheckOptions& o, std::vector<DecodedInstruction>* decoded = nullptr)
      : m_(m), opts_(o), decoded_(decoded), scopes_(m) { entities(); }

  std::vector<Diagnostic> run();

 private:
  // ---- diagnostics --------------------------------------------------------------
  void error(uint32_t loc, std::string msg) { out_.push_back({loc, Severity::Error, std::move(msg)}); }

  // ---- module header -------------------------------------------------------------
  void header();
  static std::string version_text(PtxVersion v) { return std::to_string(v.major) + "." + std::to_string(v.minor); }

  void target_needs_version(uint32_t loc, Target module_target, PtxVersion module_version);

  // ---- names: what each refers to, from the module's scopes (ir::Scopes) -----------------
  void entities();
  void conflicts();
  const Entity* lookup(Symbol name) const;
  bool is_label(Symbol name) const;

  // ---- declarations ------------------------------------------------------------------
  void declare(const Decl& d);
  void module_symbols();

  // ---- functions -----------------------------------------------------------------------
  void function(uint32_t index);
  void block(uint32_t scope);

  // ---- instructions ---------------------------------------------------------------------
  void instruction(const Instruction& in);
  void fill_mods(const Instruction& in);
  ModifierMatches& modifier_matches(const Instruction& in);
  void check_special_destination(const Instruction& in);
  void accept(ModifierMatches& mt, size_t fit, const Instruction& in);
  void check_guard(ExprId g);
  std::string modifier_problem(std::string_view opcode, std::span<const Form> candidates);
  const Value* chosen(uint32_t group_index) const;
  std::string_view resolve(const Ref& r) const;
  bool check_requirements(const FormFit& fit, int8_t& met, const Instruction& in, bool report);
  void require(const Requirement& r, const std::string& what, uint32_t loc);
  void special_register_requirements(ExprId id);

  // ---- directives (spec/isa/directives.isa): where they are written, operand counts,
  void check_directives();
  void prototype_directives(const Prototype& p, uint8_t place);
  void decl_directives(const Decl& d, uint8_t place);
  void function_directives(const Function& f);
  template <class F>
  static void for_each_word(std::string_view words, F fn);
  void body_directives(const ir::Block& b);
  static std::string place_text(uint8_t place);
  void use_directive(std::string_view name, uint8_t place, uint32_t loc, int operands);

  // ---- operands -----------------------------------------------------------------------------
  std::pair<size_t, size_t> operand_counts(const Form& f) const;
  bool takes_count(const Form& f, size_t n) const;
  bool operands_fit(const Form& f, const Instruction& in, Why& why, uint32_t& where);
  bool assign(std::span<const Operand> ops, size_t i, const Instruction& in, size_t next, size_t optional_left,
              Why& why, uint32_t& where);
  bool call_arity_fits(std::span<const Operand> ops, const Instruction& in, Why& why, uint32_t& where);
  bool operand_fits(const Operand& o, ExprId id, Why& why);
  bool members_fit(const Operand& o, const Expr& e, Why& why);
  bool any_kind(std::span<const Kind> ks, ExprId id, std::string_view name, Why& why);
  bool component_fits(const Kind& k, ExprId id, Why& why);
  bool register_fits(ExprId id, std::string_view type, bool wide, Why& why, bool component_checked = false);
  bool vector_component_fits(const Entity& ent, Symbol name, Symbol component, Why& why) const;
  ExprId register_plus_constant(const Expr& e) const;
  bool is_immediate(const Expr& e) const;
  bool has_float(const Expr& e) const;
  bool divides_by_zero(const Expr& e) const;
  bool kind_fits(const Kind& k, ExprId id, Why& why);
  // kind_fits by kind
  bool reg_kind_fits(const Kind& k, ExprId id, Why& why);
  bool pred_kind_fits(const Kind& k, const Expr& e, Why& why);
  bool imm_kind_fits(const Kind& k, ExprId id, Why& why);
  bool vec_kind_fits(const Kind& k, ExprId id, Why& why);
  bool vector_sizes_agree(const Expr& list, Why& why) const;
  bool vec_scalar_fits(const Kind& k, ExprId id, std::string_view t, Why& why);
  std::optional<bool> vector_register_fits(const Kind& k, ExprId id, std::string_view t, uint32_t n, Why& why);
  bool func_kind_fits(const Expr& e, Why& why);
  bool symbol_kind_fits(const Kind& k, const Expr& e, Why& why);
  bool ref_kind_fits(const Kind& k, const Expr& e, Why& why);
  bool exact_register(ExprId id, std::string_view type, Why& why);
  bool address_fits(const Kind& k, const Expr& written, Why& why);
  const Expr* offset_base(const Expr& e, bool& minus) const;
  bool wide_address_only(const Kind& k) const;
  bool minus_after_name(const Expr* base, bool minus, Why& why) const;
  const Module& m_;
  CheckOptions opts_;
  std::vector<DecodedInstruction>* decoded_;
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
  std::unordered_map<std::vector<uint32_t>, ModifierMatches, KeyHash> match_cache_;
  std::vector<uint32_t> key_;
  std::vector<std::pair<const Operand*, bool>> written_;  // operands of the matched form (and whether p|q)
};

}  // namespace ptx::spec::validation
