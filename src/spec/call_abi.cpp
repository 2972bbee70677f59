#include "call_abi.hpp"

#include <string>
#include <string_view>
#include <unordered_map>

#include "ptxpp/ir/queries.hpp"
#include "quoted.hpp"

namespace ptx::spec::detail {

namespace {

using namespace ptx::ir;

// ptxas 13 ("In ABI compilation, passing predicate, 8-bit and 16-bit parameters to device
// functions is not supported"; "returning ... values"): a call fails when the callee or the
// prototype declares a parameter of these types, in .reg or .param. .b8, .b16 and .f16 pass;
// a function that is never called may declare them (ptxas drops it; with -c, where every function is
// compiled, its definition fails too). A function with several return values turns the ABI off for
// the whole module ("disabling ABI"), and these calls pass.
bool abi_unsupported(std::string_view type) {
  return type == ".u8" || type == ".s8" || type == ".u16" || type == ".s16" || type == ".pred";
}

class CallAbiChecker {
 public:
  CallAbiChecker(const Module& m, const Scopes& scopes, std::vector<Diagnostic>& out) : m_(m), scopes_(scopes), out_(out) {}

  void run() {
    if (abi_disabled()) return;
    for (uint32_t s = 0; s < scopes_.size(); ++s) prototypes(s);
    for (uint32_t s = 0; s < scopes_.size(); ++s)
      if (scopes_.scope(s).function != Scopes::kNone) calls(s);
  }

 private:
  bool abi_disabled() const {
    for (const Stmt& s : m_.root().stmts)
      if (s.kind == StmtKind::Function && m_.functions[s.index].ret.params.count > 1) return true;
    return false;
  }

  // `P: .callprototype ...`: the label's declaration names the prototype.
  void prototypes(uint32_t s) {
    const auto& stmts = m_.blocks[scopes_.scope(s).block].stmts;
    for (size_t i = 1; i < stmts.size(); ++i)
      if (stmts[i].kind == StmtKind::Prototype && stmts[i - 1].kind == StmtKind::Label)
        prototype_of_label_[scopes_.of_label(stmts[i - 1].index)] = stmts[i].index;
  }

  void calls(uint32_t s) {
    const auto& stmts = m_.blocks[scopes_.scope(s).block].stmts;
    for (uint32_t i = 0; i < stmts.size(); ++i) {
      if (stmts[i].kind != StmtKind::Instruction) continue;
      const Instruction& in = m_.instructions[stmts[i].index];
      if (m_.text(in.opcode) != "call") continue;
      for (const ListItem& op : m_.operands_of(in)) {
        const Expr& e = m_.expr(ExprId{op.node});
        if (e.kind != ExprKind::Name) continue;
        const Resolved r = scopes_.lookup(s, i, Symbol{e.a});
        if (!r) continue;
        const Declaration& d = scopes_.declaration(r.declaration);
        if (d.kind == Declaration::Function) {
          const Function& f = m_.functions[d.node];
          if (check(in, f.ret, f.params, quoted(m_.text(f.name)))) break;
        } else if (const auto p = prototype_of_label_.find(r.declaration); p != prototype_of_label_.end()) {
          const Prototype& proto = m_.prototypes[p->second];
          if (check(in, proto.ret, proto.params, "prototype " + quoted(m_.text(d.name)))) break;
        }
      }
    }
  }

  // One error per call: its first parameter of an unsupported type.
  bool check(const Instruction& in, const ParamList& ret, const ParamList& params, const std::string& callee) {
    for (const ParamList* pl : {&ret, &params}) {
      for (const ListItem& it : m_.slice(pl->params)) {
        const DeclInfo info = decl_info(m_, m_.decls[it.node]);
        if (!abi_unsupported(info.type)) continue;
        std::string msg = "call of " + callee;
        msg += pl == &ret ? ", which returns a " : ", which takes a ";
        msg += info.type;
        msg += " parameter: ptxas 13's ABI passes no predicate, 8-bit or 16-bit integer parameters "
               "(declare it .b8, .b16 or 32 bits wide)";
        out_.push_back({in.loc, Severity::Error, std::move(msg)});
        return true;
      }
    }
    return false;
  }

  const Module& m_;
  const Scopes& scopes_;
  std::vector<Diagnostic>& out_;
  std::unordered_map<uint32_t, uint32_t> prototype_of_label_;  // label declaration -> Module::prototypes
};

}  // namespace

void check_call_abi(const Module& m, const Scopes& scopes, std::vector<Diagnostic>& out) {
  CallAbiChecker(m, scopes, out).run();
}

}  // namespace ptx::spec::detail
