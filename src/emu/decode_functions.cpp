// Decoder: the functions a kernel calls, their parameters and frames, and call instructions.
#include <fmt/format.h>

#include "decoder.hpp"

namespace ptx::emu::decoding {

// The index of a function the program calls or takes the address of (decoded later).
uint32_t Decoder::function_index(const std::string& called) {
  const auto alias = aliases_.find(called);
  const std::string& name = alias == aliases_.end() ? called : alias->second;  // one function, one address
  if (auto it = func_index_.find(name); it != func_index_.end()) return it->second;
  auto f = functions_.find(name);
  if (f == functions_.end()) {
    static const std::unordered_map<std::string_view, FuncInfo::Builtin> kBuiltins = {
        {"vprintf", FuncInfo::Builtin::Vprintf}, {"malloc", FuncInfo::Builtin::Malloc},
        {"free", FuncInfo::Builtin::Free}, {"__assertfail", FuncInfo::Builtin::AssertFail}};
    auto b = kBuiltins.find(name);
    auto decl = declared_.find(name);
    if (b == kBuiltins.end() || decl == declared_.end())
      throw unsupported(fmt::format("calls to '{}', which has no body in the module", name));
    FuncInfo info;  // the declaration gives the sizes of the arguments and the result
    info.name = name;
    info.builtin = b->second;
    for (const ListItem& it : m_.slice(decl->second->params.params))
      info.params.push_back(Formal{0, param_size(m_.decls[it.node]).first});
    if (decl->second->ret.present)
      for (const ListItem& it : m_.slice(decl->second->ret.params))
        info.results.push_back(Formal{0, param_size(m_.decls[it.node]).first});
    const uint32_t index = static_cast<uint32_t>(p_.funcs.size());
    func_index_[name] = index;
    p_.funcs.push_back(std::move(info));
    return index;
  }
  const uint32_t index = static_cast<uint32_t>(p_.funcs.size());
  func_index_[name] = index;
  p_.funcs.emplace_back();
  pending_.push_back(f->second);
  return index;
}

void Decoder::decode_function(const Function& f, uint32_t index) {
  regs_.clear();
  labels_.clear();
  branch_tables_.clear();
  local_syms_.clear();
  frame_ = 0;
  FuncInfo info;
  info.name = std::string(m_.text(f.name));
  info.entry = static_cast<uint32_t>(p_.code.size());
  info.slot_first = static_cast<uint32_t>(p_.slot_types.size());
  const bool kernel = index == 0;
  // kernel parameters: the launch's argument buffer; .func parameters: the frame
  for (const ListItem& it : m_.slice(f.params.params)) {
    const Decl& d = m_.decls[it.node];
    const auto [size, align] = param_size(d);
    for (const Declarator& dc : m_.declarators_of(d)) {
      const uint32_t bytes = size * static_cast<uint32_t>(std::max<uint64_t>(element_count(dc), 1));
      if (kernel) {
        p_.param_bytes = static_cast<uint32_t>(align_up(p_.param_bytes, align));
        local_syms_[declaration_of(dc)] = {Space::Param, p_.param_bytes};
        p_.param_offsets.push_back(p_.param_bytes);
        p_.param_sizes.push_back(bytes);
        p_.param_bytes += bytes;
      } else {
        info.params.push_back(formal(d, dc));
      }
    }
  }
  if (f.ret.present)
    for (const ListItem& it : m_.slice(f.ret.params))
      for (const Declarator& dc : m_.declarators_of(m_.decls[it.node]))
        info.results.push_back(formal(m_.decls[it.node], dc));
  const uint32_t scope = scopes_.of_function(static_cast<uint32_t>(&f - m_.functions.data()));
  count_ = static_cast<uint32_t>(p_.code.size());
  collect(scope);
  decode_block(scope);
  scope_ = Scopes::kModule;
  at_ = Scopes::kAnywhere;
  if (p_.code.size() == info.entry || (p_.code.back().op != Opc::Ret && p_.code.back().op != Opc::Exit)) {
    DInst ret;
    ret.op = kernel ? Opc::Exit : Opc::Ret;
    ret.stmt = static_cast<uint32_t>(p_.texts.size());
    p_.texts.push_back(fmt::format("(end of {})", info.name));
    p_.code.push_back(ret);
  }
  info.slot_count = static_cast<uint32_t>(p_.slot_types.size()) - info.slot_first;
  info.frame = (frame_ + 15) / 16 * 16;
  p_.funcs[index] = std::move(info);
}

// A .func parameter or result: in .reg space (`.func (.reg .u32 r) f(.reg .v2 .u32 a)`) the
// callee's register(s) it arrives in, else a place in the callee's frame.
Formal Decoder::formal(const Decl& d, const Declarator& dc) {
  const DeclInfo di = decl_info(m_, d);
  const auto [size, align] = param_size(d);
  const uint64_t count = element_count(dc);
  Formal f;
  f.size = size * static_cast<uint32_t>(std::max<uint64_t>(count, 1));
  const bool array = !m_.slice(dc.dims).empty();
  f.elems = array ? 1 : di.vector;  // (an array of vectors moves as bytes)
  if (di.space != StateSpace::Reg) {
    f.offset = frame_slot(f.size, align);
    local_syms_[declaration_of(dc)] = {Space::Local, f.offset};
    return f;
  }
  const auto ty = parse_type(di.type);
  if (!ty || ty->bits > 64 || (ty->k == 'p' && di.vector != 1) || dc.range || array)
    throw unsupported(fmt::format("the .reg parameter {} of type {}{}", m_.text(dc.name),
                                  di.vector > 1 ? fmt::format(".v{} ", di.vector) : "", di.type));
  f.reg = register_decl(reg_key(declaration_of(dc), 0), m_.text(dc.name), *ty, di.vector);
  return f;
}

std::pair<uint32_t, uint32_t> Decoder::param_size(const Decl& d) {
  const DeclInfo info = decl_info(m_, d);
  const auto ty = parse_type(info.type);
  const uint32_t size = (ty ? std::max(1, ty->bits / 8) : 8) * info.vector;
  return {size, static_cast<uint32_t>(alignment(info, size, d))};
}

uint32_t Decoder::frame_slot(uint64_t bytes, uint64_t align) {
  frame_ = align_up(frame_, align);
  const uint32_t off = static_cast<uint32_t>(frame_);
  frame_ += bytes;
  return off;
}

// call{.uni} (ret), f, (a, b);  call f, (a);  call (ret), %rd, (a), prototype;
DInst Decoder::call(DInst d, std::span<const ListItem> operands) {
  size_t i = 0;
  auto args = [&](ExprId id) {
    const Expr& l = m_.expr(id);
    Opnd o;
    o.kind = Opnd::Vec;
    o.slot = static_cast<uint32_t>(p_.vec_slots.size());
    o.count = l.b;
    for (uint32_t k = 0; k < l.b; ++k) {
      const ExprId el{m_.items[l.a + k].node};
      if (const auto r = m_.expr(el).kind == ExprKind::Name ? register_ref(m_.expr(el)) : std::nullopt) {
        // a register argument (or result), or a whole vector register
        p_.vec_slots.push_back(kRegArg | (r->count > 1 ? kVectorArg : 0u) | r->slot);
        continue;
      }
      if (const Expr& x = m_.expr(el); x.kind == ExprKind::Int || x.kind == ExprKind::Unary) {
        p_.vec_slots.push_back(kRegArg | constant_slot(el));  // an immediate argument: as a register
        continue;
      }
      const SymbolInfo* s = symbol(std::string(m_.name_of(el)));
      if (!s || s->space != Space::Local) throw unsupported(fmt::format("the call argument '{}'", text::print_expr(m_, el)));
      p_.vec_slots.push_back(static_cast<uint32_t>(s->address));  // the argument's frame offset
    }
    return o;
  };
  auto is_list = [&](size_t k) {
    return k < operands.size() && m_.expr(ExprId{operands[k].node}).kind == ExprKind::List &&
           m_.expr(ExprId{operands[k].node}).sub == static_cast<uint8_t>(Delim::Paren);
  };
  if (is_list(0)) d.ops[0] = args(ExprId{operands[i++].node});
  if (i >= operands.size()) throw unsupported("this call");
  const ExprId target{operands[i++].node};
  const std::string tname(m_.name_of(target));
  const Resolved target_decl = resolve(tname);
  if (auto r = target_decl ? regs_.find(reg_key(target_decl)) : regs_.end(); r != regs_.end()) {
    d.ops[1].kind = Opnd::Reg;  // indirect: the register holds a function address
    d.ops[1].slot = r->second;
  } else {
    d.callee = function_index(tname);
    d.ops[1].kind = Opnd::Imm;
  }
  if (is_list(i)) d.ops[2] = args(ExprId{operands[i++].node});
  d.nops = 3;
  return d;
}

}  // namespace ptx::emu::decoding
