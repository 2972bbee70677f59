// Decoding a kernel for the emulator (see program.hpp): the module's functions and
// directives, the kernel, then every function it calls. The class Decoder is in decoder.hpp;
// its member functions are spread over decode_*.cpp by concern.
#include <fmt/format.h>

#include "decoder.hpp"

namespace ptx::emu::decoding {

Program Decoder::run() {
  const Function* fn = nullptr;
  for (const Stmt& s : m_.root().stmts) {
    if (s.kind == StmtKind::Directive && m_.text(m_.directives[s.index].name) == ".file") {
      auto items = m_.slice(m_.directives[s.index].items);
      if (items.size() >= 2 && m_.expr(ExprId{items[1].node}).kind == ExprKind::String)
        files_[eval_int(m_, ExprId{items[0].node}).value_or(0)] = std::string(m_.text(Symbol{m_.expr(ExprId{items[1].node}).a}));
    }
    if (s.kind == StmtKind::Function) {
      const Function& f = m_.functions[s.index];
      if (f.has_body()) functions_[std::string(m_.text(f.name))] = &f;
      else declared_[std::string(m_.text(f.name))] = &f;
      if (m_.text(f.name) == entry_ && f.has_body() && is_entry(f)) fn = &f;
    }
  }
  for (const Stmt& s : m_.root().stmts) {  // .alias A, B;  A names B's body (calls and addresses)
    if (s.kind != StmtKind::Directive || m_.text(m_.directives[s.index].name) != ".alias") continue;
    auto items = m_.slice(m_.directives[s.index].items);
    if (items.size() != 2) continue;
    const std::string alias(m_.name_of(ExprId{items[0].node})), target(m_.name_of(ExprId{items[1].node}));
    if (auto t = functions_.find(target); t != functions_.end() && !functions_.count(alias)) {
      functions_[alias] = t->second;
      aliases_[alias] = target;
    }
  }
  if (!fn) throw Error(fmt::format("no kernel named '{}' with a body in the module", entry_));
  for (uint32_t h : fn->header) {  // the cluster shape the kernel requires
    const Directive& dir = m_.directives[h];
    const std::string_view name = m_.text(dir.name);
    if (name == ".explicitcluster") p_.explicit_cluster = true;
    if (name != ".reqnctapercluster") continue;
    auto items = m_.slice(dir.items);
    for (size_t i = 0; i < 3; ++i) {
      const int64_t v = i < items.size() ? eval_int(m_, ExprId{items[i].node}).value_or(0) : 1;
      if (v < 1 || v > 16) throw Error(fmt::format("kernel {}: .reqnctapercluster with a dimension of {}", entry_, v));
      p_.req_cluster[i] = static_cast<uint32_t>(v);
    }
  }
  p_.name = std::string(entry_);
  func_index_[std::string(entry_)] = 0;
  p_.funcs.emplace_back();
  pending_.push_back(fn);
  // module variables (their initializers may name functions: tables of function pointers)
  for (const Stmt& s : m_.root().stmts)
    if (s.kind == StmtKind::Decl) module_variable(m_.decls[s.index]);
  // the kernel, then every function it calls (found while decoding), each once
  for (size_t i = 0; i < pending_.size(); ++i) decode_function(*pending_[i], static_cast<uint32_t>(i));
  for (DInst& d : p_.code)
    if (d.op == Opc::Call && d.callee != kNoSlot) d.ops[1].imm = d.callee;
  p_.slots = static_cast<uint32_t>(p_.slot_types.size());
  place_dynamic_window();
  p_.static_smem = static_cast<uint32_t>(smem_);
  return std::move(p_);
}

bool Decoder::is_entry(const Function& f) const {
  for (const Spec& sp : m_.specs_of(f.specs))
    if (is_entry_word(m_.text(sp.word))) return true;
  return false;
}

}  // namespace ptx::emu::decoding

namespace ptx::emu {

Program decode(const ir::Module& m, std::string_view entry, Memory& mem) {
  return decoding::Decoder(m, entry, mem).run();
}

}  // namespace ptx::emu
