// Decoder: operands (registers, immediates, addresses).
#include <fmt/format.h>

#include "decoder.hpp"

namespace ptx::emu::decoding {

// An immediate where the emulator takes registers (vector elements, call arguments): a register
// every warp starts with holding it (Program::constants).
// `ty` is the element's type where the instruction gives one (a float literal becomes its bits
// in that type: {0f3F800000, 1.5} of st.v2.f32); without one the literal must be an integer.
uint32_t Decoder::constant_slot(ExprId id, std::optional<Ty> ty) {
  uint64_t bits = 0;
  if (ty) bits = literal_bits(id, *ty);
  else if (auto v = eval_int(m_, id)) bits = static_cast<uint64_t>(*v);
  else throw unsupported(fmt::format("the operand '{}'", text::print_expr(m_, id)));
  const uint32_t slot = static_cast<uint32_t>(p_.slot_types.size());
  p_.slot_types.push_back(Ty{'b', 64});
  p_.constants.emplace_back(slot, bits);
  return slot;
}

// The register a scalar operand names: a register or an element of a vector register.
uint32_t Decoder::reg_slot(ExprId id) {
  const Expr& e = m_.expr(id);
  if (e.kind != ExprKind::Name) throw unsupported(fmt::format("the operand '{}'", text::print_expr(m_, id)));
  const auto r = register_ref(e);
  if (!r)
    throw Error(fmt::format("kernel {}: register {} is not declared (at {})", entry_, m_.text(Symbol{e.a}), where_));
  if (r->count > 1)
    throw Error(fmt::format(
        "kernel {}: {} is a .v{} register where a scalar is expected (its elements: {}.x, {}.y, ...) (at {})", entry_,
        m_.text(Symbol{e.a}), r->count, m_.text(Symbol{e.a}), m_.text(Symbol{e.a}), where_));
  return r->slot;
}

// The register `e` (a name) refers to, whatever component follows it (video selectors: %r1.h10).
uint32_t Decoder::base_register(ExprId id) {
  const Expr& e = m_.expr(id);
  const Resolved r = e.kind == ExprKind::Name ? resolve(m_.text(Symbol{e.a})) : Resolved{};
  auto it = r ? regs_.find(reg_key(r)) : regs_.end();
  if (it == regs_.end())
    throw Error(
        fmt::format("kernel {}: register {} is not declared (at {})", entry_, text::print_expr(m_, id), where_));
  return it->second;
}

std::optional<Decoder::RegRef> Decoder::register_ref(const Expr& e) {
  const std::string_view name = m_.text(Symbol{e.a});
  const Resolved r = resolve(name);
  auto it = r ? regs_.find(reg_key(r)) : regs_.end();
  if (it == regs_.end()) return std::nullopt;
  const auto v = p_.vector_regs.find(it->second);
  const uint32_t count = v == p_.vector_regs.end() ? 1 : v->second;
  if (!e.b) return RegRef{it->second, count};
  static constexpr std::string_view kElements[] = {".x", ".y", ".z", ".w", ".r", ".g", ".b", ".a"};
  const std::string_view comp = m_.text(Symbol{e.b});
  const auto at = std::find(std::begin(kElements), std::end(kElements), comp);
  const uint32_t index = static_cast<uint32_t>(at - std::begin(kElements)) % 4;
  if (count == 1 || at == std::end(kElements) || index >= count)
    throw Error(fmt::format("kernel {}: {}{} names no element of {} (at {})", entry_, name, comp,
                            count == 1 ? "a scalar register" : fmt::format("the .v{} register {}", count, name),
                            where_));
  return RegRef{it->second + index, 1};
}

Opnd Decoder::operand(ExprId id, const DInst& d, size_t index) {
  const Expr& e = m_.expr(id);
  Opnd o;
  switch (e.kind) {
    case ExprKind::Name: {
      const std::string name(m_.text(Symbol{e.a}));
      if (name == "_") return o.kind = Opnd::Sink, o;
      if (const auto r = register_ref(e)) {
        if (r->count == 1) {
          o.kind = Opnd::Reg;
          o.slot = r->slot;
          return o;
        }
        o.kind = Opnd::Vec;  // a whole vector register: its elements, as a brace list would give them
        o.slot = static_cast<uint32_t>(p_.vec_slots.size());
        o.count = r->count;
        for (uint32_t i = 0; i < r->count; ++i) p_.vec_slots.push_back(r->slot + i);
        return o;
      }
      if (auto l = label(name); l != labels_.end()) {
        o.kind = Opnd::Label;
        o.imm = l->second;
        return o;
      }
      if (const SymbolInfo* s = symbol(name)) {
        o.kind = Opnd::Imm;  // the symbol's address (mov r, sym)
        o.symbol = true;
        o.space = s->space;
        o.imm = s->address;
        o.dynamic_smem = s->dynamic;
        return o;
      }
      if (functions_.count(name)) {  // a function's address (function pointers)
        o.kind = Opnd::Imm;
        o.imm = kFunctionBase + function_index(name);
        return o;
      }
      if (!name.empty() && name[0] == '%') return special(name, e.b ? m_.text(Symbol{e.b}) : std::string_view{});
      if (name == "WARP_SZ") {  // the predefined constant
        o.kind = Opnd::Imm;
        o.imm = 32;
        return o;
      }
      throw Error(fmt::format("kernel {}: '{}' is not declared (at {})", entry_, name, where_));
    }
    case ExprKind::Int:
    case ExprKind::Float:
      o.kind = Opnd::Imm;
      o.imm = literal_bits(id, imm_type(d, index));
      return o;
    case ExprKind::Unary:
      if (e.sub == static_cast<uint8_t>(Op::Not)) {
        o.kind = Opnd::Reg;
        o.slot = reg_slot(ExprId{e.a});
        o.neg = true;
        return o;
      }
      o.kind = Opnd::Imm;
      o.imm = literal_bits(id, imm_type(d, index));
      return o;
    case ExprKind::Binary:
      if (e.sub == static_cast<uint8_t>(Op::BitOr)) {  // d|p; either may be the sink _
        o.kind = Opnd::Pair;
        o.slot = m_.name_of(ExprId{e.a}) == "_" ? kNoSlot : reg_slot(ExprId{e.a});
        o.slot2 = m_.name_of(ExprId{e.b}) == "_" ? kNoSlot : reg_slot(ExprId{e.b});
        return o;
      }
      if (auto v = eval_int(m_, id)) {
        o.kind = Opnd::Imm;
        o.imm = static_cast<uint64_t>(*v);
        return o;
      }
      if (e.sub == static_cast<uint8_t>(Op::Add) && m_.expr(ExprId{e.a}).kind == ExprKind::Name &&
          register_ref(m_.expr(ExprId{e.a}))) {  // %r2+1: the register's value plus the constant (ptxas folds it)
        const auto c = eval_int(m_, ExprId{e.b});
        if (!c) throw unsupported(fmt::format("a register plus a non-constant as an operand ('{}')", text::print_expr(m_, id)));
        o.kind = Opnd::RegPlus;
        o.slot = reg_slot(ExprId{e.a});
        o.imm = static_cast<uint64_t>(*c);
        return o;
      }
      {
        Opnd a = address_expr(id, o, false);
        if (a.symbol && a.slot == kNoSlot) a.kind = Opnd::Imm;  // sym+OFF (mov r, dyn_smem+1024): the address plus the offset
        return a;
      }
    case ExprKind::List:
      if (e.sub == static_cast<uint8_t>(Delim::Bracket) && e.b == 1) return address_expr(ExprId{m_.items[e.a].node}, o, true);
      if (e.sub == static_cast<uint8_t>(Delim::Paren) && e.b == 1)  // ((128 >> 4) << 16): a constant expression
        if (auto v = eval_int(m_, id)) {
          o.kind = Opnd::Imm;
          o.imm = static_cast<uint64_t>(*v);
          return o;
        }
      if (e.sub == static_cast<uint8_t>(Delim::Brace)) {
        o.kind = Opnd::Vec;
        o.slot = static_cast<uint32_t>(p_.vec_slots.size());
        o.count = e.b;
        for (uint32_t i = 0; i < e.b; ++i) {
          const ExprId el{m_.items[e.a + i].node};
          if (m_.name_of(el) == "_") p_.vec_slots.push_back(kNoSlot);
          else if (const Expr& x = m_.expr(el); x.kind == ExprKind::Int || x.kind == ExprKind::Float || x.kind == ExprKind::Unary)
            p_.vec_slots.push_back(constant_slot(el, imm_type(d, index)));  // {0, %rs1}: a register that holds the constant
          else p_.vec_slots.push_back(reg_slot(el));
        }
        return o;
      }
      break;
    default: break;
  }
  throw unsupported(fmt::format("the operand '{}'", text::print_expr(m_, id)));
}

Ty Decoder::imm_type(const DInst& d, size_t index) const {
  if (d.op == Opc::Tcgen05) return Ty{'b', 64};  // descriptors (64-bit), nCols, idesc, offsets, ctaMask
  if (d.op == Opc::Mma) return Ty{'u', 32};    // mma.sp's metadata and sparsity selector
  if (d.op == Opc::Wgmma) return Ty{'s', 64};  // scale-d, imm-scale-a/b (-1, 1), imm-trans-a/b; descriptors
  if (d.op == Opc::Wmma) return Ty{'u', 32};   // the stride
  if (d.op == Opc::Cvt) return d.type2;
  if (d.op == Opc::Shl || d.op == Opc::Shr) return index == 2 ? Ty{'u', 32} : d.type;
  if (d.op == Opc::Shfl || d.op == Opc::Vote || d.op == Opc::Match || d.op == Opc::Bar || d.op == Opc::Prmt ||
      d.op == Opc::Lop3 || (d.op == Opc::Redux && index == 2))  // (redux.f32's member mask is an integer)
    return Ty{'b', 32};
  if (d.op == Opc::Mul || d.op == Opc::Mad) {
    if ((d.flags & kWide) && index <= 2) return d.type;
    if ((d.flags & kWide) && index == 3) return Ty{d.type.k, static_cast<uint8_t>(d.type.bits * 2)};
  }
  if (d.op == Opc::Selp && index == 3) return Ty{'p', 1};
  return d.type;
}

// [reg], [reg+imm], [sym], [sym+imm], [imm]
Opnd Decoder::address_expr(ExprId id, Opnd o, bool bracketed) {
  (void)bracketed;
  o.kind = Opnd::Addr;
  o.slot = kNoSlot;
  int64_t offset = 0;
  std::function<void(ExprId, bool)> walk = [&](ExprId x, bool negate) {
    const Expr& e = m_.expr(x);
    if (e.kind == ExprKind::Name) {
      const std::string name(m_.text(Symbol{e.a}));
      if (const Resolved r = resolve(name); r && regs_.count(reg_key(r))) {
        if (negate || o.slot != kNoSlot) throw unsupported("this address form");
        o.slot = reg_slot(x);
        return;
      }
      if (const SymbolInfo* s = symbol(name)) {
        if (negate || o.symbol) throw unsupported("this address form");
        o.symbol = true;
        o.space = s->space;
        o.dynamic_smem = s->dynamic;
        offset += static_cast<int64_t>(s->address);
        return;
      }
      throw Error(fmt::format("kernel {}: '{}' is not declared (at {})", entry_, name, where_));
    }
    if (e.kind == ExprKind::Binary && (e.sub == static_cast<uint8_t>(Op::Add) || e.sub == static_cast<uint8_t>(Op::Sub))) {
      walk(ExprId{e.a}, negate);
      walk(ExprId{e.b}, e.sub == static_cast<uint8_t>(Op::Sub) ? !negate : negate);
      return;
    }
    if (auto v = eval_int(m_, x)) {
      offset += negate ? -*v : *v;
      return;
    }
    throw unsupported(fmt::format("the address '{}'", text::print_expr(m_, x)));
  };
  walk(id, false);
  o.imm = static_cast<uint64_t>(offset);
  return o;
}

}  // namespace ptx::emu::decoding
