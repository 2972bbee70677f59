#include "decl_checks.hpp"

#include <string>
#include <string_view>
#include <unordered_set>

#include "ptxpp/ir/queries.hpp"
#include "ptxpp/ir/walk.hpp"
#include "quoted.hpp"
#include "type_rules.hpp"

namespace ptx::spec::detail {

namespace {

using namespace ptx::ir;

// Where a declaration is written: what may be left out or declared there differs.
enum class Place : uint8_t { Module, Body, EntryParam, FuncParam };

constexpr uint64_t kMaxAlign = uint64_t{1} << 31;      // ptxas 13: 2^32 is "Constant overflow"
constexpr uint64_t kMaxRegisters = uint64_t{1} << 32;  // ptxas 13: %r<4294967296> is "Constant overflow"

class DeclChecker {
 public:
  DeclChecker(const Module& m, const Scopes& scopes, std::vector<Diagnostic>& out) : m_(m), scopes_(scopes), out_(out) {}

  void run() {
    address_size();
    declared_before_use();
    defined_functions();
    check_prototypes(m_, out_);
    all_decls();
  }

 private:
  void error(uint32_t loc, std::string msg) { out_.push_back({loc, Severity::Error, std::move(msg)}); }

  // ---- .address_size: ptxas 13 takes 32 or 64 and rejects 32 ("32-Bit compilation is no longer
  // supported"; "32-Bit ABI ... is not supported on sm_90 or higher")
  void address_size() {
    for (const Stmt& s : m_.root().stmts) {
      if (s.kind != StmtKind::Directive) continue;
      const Directive& d = m_.directives[s.index];
      if (m_.text(d.name) != ".address_size" || d.items.count != 1) continue;
      const Expr& e = m_.expr(ExprId{m_.items[d.items.first].node});
      if (e.kind != ExprKind::Int || e.value == 64) continue;
      error(e.loc ? e.loc : d.loc, e.value == 32 ? ".address_size 32 is not supported: ptxas 13 takes 64-bit addressing only"
                                                 : ".address_size must be 64");
    }
  }

  // ---- module symbols are seen from their declaration on (ptxas: "Call to 'f' requires call
  // prototype", "Unknown symbol", "Invalid initial value symbol"); a function sees itself.
  void declared_before_use() {
    declared_.clear();
    for (const Stmt& s : m_.root().stmts) {
      if (s.kind == StmtKind::Decl) {
        const Decl& d = m_.decls[s.index];
        for (const Declarator& dc : m_.declarators_of(d))
          if (dc.init) uses(dc.init, Scopes::kModule, Scopes::kAnywhere, false);
        for (const Declarator& dc : m_.declarators_of(d)) declared_.insert(dc.name.id);
      } else if (s.kind == StmtKind::Function) {
        const Function& f = m_.functions[s.index];
        declared_.insert(f.name.id);
        if (f.has_body()) block_uses(scopes_.of_block(f.body));
      }
    }
  }

  void block_uses(uint32_t scope) {
    if (scope == Scopes::kNone) return;
    const auto& stmts = m_.blocks[scopes_.scope(scope).block].stmts;
    for (uint32_t i = 0; i < stmts.size(); ++i) {
      if (stmts[i].kind == StmtKind::Block) block_uses(scopes_.of_block(stmts[i].index));
      if (stmts[i].kind != StmtKind::Instruction) continue;
      const Instruction& in = m_.instructions[stmts[i].index];
      const bool call = m_.text(in.opcode) == "call";
      for (const ListItem& op : m_.operands_of(in)) uses(ExprId{op.node}, scope, i, call);
    }
  }

  // Every name of an expression that refers to a module symbol not yet declared.
  void uses(ExprId id, uint32_t scope, uint32_t at, bool call) {
    for_each_name(m_, id, [&](const Expr& e) { use(e, scope, at, call); });
  }

  void use(const Expr& e, uint32_t scope, uint32_t at, bool call) {
    const Symbol name{e.a};
    const Resolved r = scopes_.lookup(scope, at, name);
    if (!r) return;
    const Declaration& d = scopes_.declaration(r.declaration);
    if (d.scope != Scopes::kModule || d.kind == Declaration::Label || declared_.count(name.id)) return;
    if (call && d.kind == Declaration::Function)
      error(e.loc, "call of " + quoted(m_.text(name)) + " before its declaration: declare the function (or its prototype) before the call");
    else
      error(e.loc, quoted(m_.text(name)) + " is used before its declaration");
  }

  // ---- a function declared without a body is defined in this module, unless it is .extern
  // (ptxas 13: "Unresolved extern function"); an .extern function is not defined here
  // (ptxas 13: "Function definition conflicts with '.extern' declaration").
  void defined_functions() {
    const std::unordered_set<uint32_t> defined = defined_names();
    std::unordered_set<uint32_t> external, reported;
    for (const Stmt& s : m_.root().stmts) {
      if (s.kind != StmtKind::Function) continue;
      const Function& f = m_.functions[s.index];
      const bool is_extern = has_word(f.specs, ".extern");
      if (is_extern) external.insert(f.name.id);
      if (f.has_body() && external.count(f.name.id))
        error(f.loc, quoted(m_.text(f.name)) + " is declared .extern and cannot be defined in this module");
      else if (!f.has_body() && !is_extern && !defined.count(f.name.id) && reported.insert(f.name.id).second)
        error(f.loc, quoted(m_.text(f.name)) + " is declared but never defined; only an .extern function may be defined elsewhere");
    }
  }

  // The functions with a body, and the aliases: `.alias fAlias, fAliasee;` (at module scope or
  // in a body, where ptxas 13 takes it too) defines fAlias.
  std::unordered_set<uint32_t> defined_names() const {
    std::unordered_set<uint32_t> defined;
    for (const Stmt& s : m_.root().stmts)
      if (s.kind == StmtKind::Function && m_.functions[s.index].has_body()) defined.insert(m_.functions[s.index].name.id);
    aliases(m_.root(), defined);
    return defined;
  }

  void aliases(const ir::Block& b, std::unordered_set<uint32_t>& defined) const {
    for (const Stmt& s : b.stmts) {
      if (s.kind == StmtKind::Block) aliases(m_.blocks[s.index], defined);
      if (s.kind == StmtKind::Function && m_.functions[s.index].has_body()) aliases(m_.blocks[m_.functions[s.index].body], defined);
      if (s.kind != StmtKind::Directive) continue;
      const Directive& d = m_.directives[s.index];
      if (m_.text(d.name) != ".alias" || d.items.count != 2) continue;
      const Expr& alias = m_.expr(ExprId{m_.items[d.items.first].node});
      if (alias.kind == ExprKind::Name) defined.insert(alias.a);
    }
  }

  // One linkage word at most: ptxas 13 takes `.visible .extern` (any two of .visible, .extern,
  // .weak, .common) as a syntax error.
  void linkage(Range specs, uint32_t loc) {
    std::string_view first;
    for (const Spec& w : m_.specs_of(specs)) {
      const std::string_view word = m_.text(w.word);
      if (word != ".visible" && word != ".extern" && word != ".weak" && word != ".common") continue;
      if (first.empty())
        first = word;
      else
        return error(
            loc, std::string(first) + " and " + std::string(word) + " together: a declaration has one linkage at most");
    }
  }

  bool has_word(Range specs, std::string_view word) const {
    for (const Spec& w : m_.specs_of(specs))
      if (m_.text(w.word) == word) return true;
    return false;
  }

  // ---- every declaration: module variables, parameters, and those in function bodies
  void all_decls() {
    for (const Stmt& s : m_.root().stmts) {
      if (s.kind == StmtKind::Decl) decl(m_.decls[s.index], Place::Module);
      if (s.kind != StmtKind::Function) continue;
      const Function& f = m_.functions[s.index];
      linkage(f.specs, f.loc);
      const Place param = has_word(f.specs, ".entry") ? Place::EntryParam : Place::FuncParam;
      for (const ParamList* pl : {&f.ret, &f.params})
        for (const ListItem& it : m_.slice(pl->params)) decl(m_.decls[it.node], param);
      if (f.has_body()) body_decls(m_.blocks[f.body]);
    }
  }

  void body_decls(const ir::Block& b) {
    for (const Stmt& s : b.stmts) {
      if (s.kind == StmtKind::Decl) decl(m_.decls[s.index], Place::Body);
      if (s.kind == StmtKind::Block) body_decls(m_.blocks[s.index]);
    }
  }

  void decl(const Decl& d, Place place) {
    const DeclInfo info = decl_info(m_, d);
    linkage(d.specs, d.loc);
    alignments(d);
    vector_and_predicate(d, info);
    for (const Declarator& dc : m_.declarators_of(d)) {
      if (dc.init && info.linkage == ".extern")  // ptxas: "No initial value is allowed for external symbol"
        error(d.loc, quoted(m_.text(dc.name)) + " is .extern: it cannot have an initializer");
      else if (dc.init && (info.space == StateSpace::Reg || info.space == StateSpace::Local || info.space == StateSpace::Shared))
        // ptxas: "No initial value is allowed for 'a' in this state space"
        error(d.loc, quoted(m_.text(dc.name)) + " is in " + std::string(to_string(info.space)) +
                         ": only .global and .const variables can have an initializer");
      else if (dc.init && (info.space == StateSpace::Global || info.space == StateSpace::Const))
        check_initializer(m_, scopes_, d, dc, info, out_);
      if (info.space == StateSpace::Reg && dc.dims.count)  // ptxas: "Variable 'a' cannot be allocated into a register"
        error(d.loc, "register " + quoted(m_.text(dc.name)) + " cannot be an array: declare a %r<N> range or a .local array");
      complete_array(d, dc, info, place);
      register_count(d, dc);
    }
  }

  // `.align N` (also `.ptr ... .align N`): a power of two, at most 2^31 (ptxas: "Alignment must be a power of two").
  void alignments(const Decl& d) {
    for (const Spec& w : m_.specs_of(d.specs)) {
      if (m_.text(w.word) != ".align" || !w.arg) continue;
      const auto v = eval_int(m_, w.arg);
      if (!v) continue;
      const uint64_t n = static_cast<uint64_t>(*v);
      const uint32_t loc = m_.expr(w.arg).loc ? m_.expr(w.arg).loc : d.loc;
      if (*v <= 0 || (n & (n - 1)) != 0)
        error(loc, ".align " + std::to_string(*v) + ": an alignment must be a power of two");
      else if (n > kMaxAlign)
        error(loc, ".align " + std::to_string(n) + ": an alignment must be at most 2^31");
    }
  }

  // Declared vectors are .v2 or .v4 (ptxas 13 rejects .v8 in a declaration, though ld/st take
  // it), of at most 128 bits, and never of .pred; a .pred is a register.
  void vector_and_predicate(const Decl& d, const DeclInfo& info) {
    for (const Spec& w : m_.specs_of(d.specs)) {
      const std::string_view word = m_.text(w.word);
      if (word.size() > 2 && word.substr(0, 2) == ".v" && word.find_first_not_of("0123456789", 2) == std::string_view::npos &&
          word != ".v2" && word != ".v4")
        return error(d.loc, quoted(word) + " is not a vector width of a declaration (.v2 or .v4)");
    }
    if (info.type == ".pred") {
      if (info.vector > 1) return error(d.loc, "a .pred cannot be a vector: predicates are scalar registers");
      if (info.space != StateSpace::Reg && info.space != StateSpace::None)
        return error(d.loc, "a .pred must be declared in the .reg state space");
      return;
    }
    const auto t = type_info(info.type);
    if (info.vector > 1 && t && t->bits * info.vector > 128)
      error(d.loc, "'.v" + std::to_string(info.vector) + " " + std::string(info.type) + "' is " +
                       std::to_string(t->bits * info.vector) + " bits; a declared vector is at most 128 bits");
  }

  // `a[]` takes its size from an initializer, or is .extern (ptxas: "Non-external variable 'a' has
  // incomplete type"); a .func parameter may be one, an .entry parameter may not.
  void complete_array(const Decl& d, const Declarator& dc, const DeclInfo& info, Place place) {
    bool incomplete = false;
    for (const ListItem& it : m_.slice(dc.dims)) incomplete = incomplete || m_.expr(ExprId{it.node}).b == 0;
    if (!incomplete || dc.init || info.linkage == ".extern" || place == Place::FuncParam) return;
    if (place == Place::EntryParam)
      return error(d.loc, "an .entry parameter cannot be an incomplete array: " + quoted(m_.text(dc.name)));
    error(d.loc, quoted(m_.text(dc.name)) + " is an incomplete array: give its size or an initializer, or declare it .extern");
  }

  // `%r<N>`: N an integer literal (ptxas: `%r<2 * 4>` is a syntax error), below 2^32 ("Constant overflow").
  void register_count(const Decl& d, const Declarator& dc) {
    if (!dc.range) return;
    const Expr& list = m_.expr(dc.range);
    if (list.b != 1) return;
    const ExprId count{m_.items[list.a].node};
    if (m_.expr(count).kind != ExprKind::Int)
      return error(d.loc, "register count of " + quoted(m_.text(dc.name)) + " must be an integer literal");
    const auto n = eval_int(m_, count);
    if (n && *n >= 0 && static_cast<uint64_t>(*n) >= kMaxRegisters)
      error(d.loc, "register count " + std::to_string(*n) + " of " + quoted(m_.text(dc.name)) + " must be below 2^32");
  }

  const Module& m_;
  const Scopes& scopes_;
  std::vector<Diagnostic>& out_;
  std::unordered_set<uint32_t> declared_;  // module symbols declared so far (Symbol ids)
};

}  // namespace

void check_declarations(const Module& m, const Scopes& scopes, std::vector<Diagnostic>& out) {
  DeclChecker(m, scopes, out).run();
}

}  // namespace ptx::spec::detail
