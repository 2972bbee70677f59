// The validator (spec/validator.hpp): check() runs a Checker (checker.hpp) over the module. Here: the
// module header, names, declarations and functions; decl_checks.cpp, validator_instructions.cpp,
// validator_directives.cpp and validator_operands.cpp check the rest.
#include "ptxpp/spec/validator.hpp"

#include "ptxpp/spec/decoded.hpp"

#include "checker.hpp"

namespace ptx::spec::validation {

std::vector<Diagnostic> Checker::run() {
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

void Checker::header() {
  const auto& stmts = m_.root().stmts;
  const Directive* version = nullptr;
  const Directive* target = nullptr;
  const Directive* address_size = nullptr;
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
    } else if (name == ".address_size") {
      if (address_size) error(d.loc, "duplicate .address_size directive");  // ptxas 13: a syntax error
      address_size = &d;
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

// The target (the module's, or the one given) against the PTX ISA version (likewise); a given one
// that conflicts says what it replaced.
void Checker::target_needs_version(uint32_t loc, Target module_target, PtxVersion module_version) {
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

// The entity of every declaration of the module.
void Checker::entities() {
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
void Checker::conflicts() {
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
const Entity* Checker::lookup(Symbol name) const {
  const Resolved r = scopes_.lookup(scope_, at_, name);
  return r ? &entities_[r.declaration] : nullptr;
}

bool Checker::is_label(Symbol name) const {
  const Entity* e = lookup(name);
  return e && e->kind == Entity::Label;
}

void Checker::declare(const Decl& d) {
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

void Checker::module_symbols() {
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

void Checker::function(uint32_t index) {
  const Function& f = m_.functions[index];
  scope_ = scopes_.of_function(index);
  at_ = 0;
  for (const ParamList* pl : {&f.ret, &f.params})
    for (const ListItem& it : m_.slice(pl->params)) declare(m_.decls[it.node]);
  block(scope_);
  scope_ = Scopes::kModule;
  at_ = Scopes::kAnywhere;
}

void Checker::block(uint32_t scope) {
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

}  // namespace ptx::spec::validation

namespace ptx::spec {

std::vector<Diagnostic> check(const ir::Module& m, const CheckOptions& options) {
  return validation::Checker(m, options).run();
}

CheckedModule check_and_decode(const ir::Module& m, const CheckOptions& options) {
  CheckedModule c;
  c.diagnostics = validation::Checker(m, options, &c.instructions).run();
  // module order (a module built by the DSL may number its instructions out of text order)
  std::stable_sort(c.instructions.begin(), c.instructions.end(),
                   [](const DecodedInstruction& a, const DecodedInstruction& b) { return a.instruction < b.instruction; });
  return c;
}

}  // namespace ptx::spec
