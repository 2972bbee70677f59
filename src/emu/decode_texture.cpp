// Decoder: the texture and surface instructions' operands (texture.cpp executes them).
#include <fmt/format.h>

#include "decoder.hpp"

namespace ptx::emu::decoding {

// Texture and surface instructions (texture.cpp): operands are read as written, vectors may hold
// immediates, and the destination may carry a predicate ({..}|p).
DInst Decoder::texture(DInst d, const Instruction& in, Opcode op, std::span<const Mod> mods) {
  const auto operands = m_.operands_of(in);
  check_operand_count(op, operands.size());
  std::vector<TexOperand> ops;
  for (size_t i = 0; i < operands.size(); ++i) ops.push_back(texture_operand(ExprId{operands[i].node}, d));
  auto t = std::make_shared<TextureInst>();
  if (auto e = texture_decode(op, mods, ops, *t))
    throw_decode_error(e->unsupported, e->what);
  d.op = Opc::Texture;
  if (in.guard) {
    const Expr& g = m_.expr(in.guard);
    d.guard_neg = g.kind == ExprKind::Unary;
    d.guard = reg_slot(d.guard_neg ? ExprId{g.a} : in.guard);
  }
  d.table = static_cast<uint32_t>(p_.textures.size());
  p_.textures.push_back(std::move(t));
  return d;
}

TexOperand Decoder::texture_operand(ExprId id, DInst& d) {
  const Expr& e = m_.expr(id);
  TexOperand o;
  o.text = text::print_expr(m_, id);
  if (e.kind == ExprKind::List && (e.sub == static_cast<uint8_t>(Delim::Bracket) || e.sub == static_cast<uint8_t>(Delim::Brace))) {
    const bool bracket = e.sub == static_cast<uint8_t>(Delim::Bracket);
    (bracket ? o.bracket : o.vector) = true;
    for (uint32_t i = 0; i < e.b; ++i) {
      const ExprId el{m_.items[e.a + i].node};
      if (bracket) o.items.push_back(texture_operand(el, d));
      else o.values.push_back(operand(el, d, 1));
    }
    return o;
  }
  if (e.kind == ExprKind::Binary && e.sub == static_cast<uint8_t>(Op::BitOr)) {  // {d..}|p
    o = texture_operand(ExprId{e.a}, d);
    o.text = text::print_expr(m_, id);
    o.has_pred = true;
    o.pred = m_.name_of(ExprId{e.b}) == "_" ? kNoSlot : reg_slot(ExprId{e.b});
    return o;
  }
  o.values.push_back(operand(id, d, 1));
  return o;
}

}  // namespace ptx::emu::decoding
