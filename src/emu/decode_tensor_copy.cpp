// Decoder: cp.async.bulk.tensor's operands (exec_tensor_copy.cpp executes it).
#include <fmt/format.h>

#include "decoder.hpp"

namespace ptx::emu::decoding {

// cp.async.bulk.tensor: loads [dst], [map, {c...}], [mbar]{, ctaMask}{, policy}; stores and reductions
// [map, {c...}], [src]{, policy}. ops: [0] the shared-memory box, [1] the map, [2] the coordinates,
// [3] the mbarrier, [4] the ctaMask.
DInst Decoder::tensor(DInst d, std::span<const ListItem> operands) {
  const bool pair = std::exchange(cta_pair_, false);
  if (pair && (d.flags & kMulticast)) throw unsupported("cp.async.bulk.tensor with both .multicast::cluster and .cta_group::2");
  const bool load = d.sub == 0;
  const size_t map_at = load ? 1 : 0;
  const size_t offsets_at = 3;  // .im2col loads: {offsets} after the mbarrier
  const bool offsets = d.im2col == 1;  // .im2col loads: {offsets} after the mbarrier
  const size_t need = load ? 3 + (offsets ? 1 : 0) + ((d.flags & kMulticast) ? 1 : 0) : 2;
  if (operands.size() < need || operands.size() > need + 1) throw unsupported("this cp.async.bulk.tensor operand list");
  const Expr& m = m_.expr(ExprId{operands[map_at].node});
  if (m.kind != ExprKind::List || m.sub != static_cast<uint8_t>(Delim::Bracket) || m.b != 2)
    throw unsupported("a tensor operand other than [map, {coordinates}]");
  d.ops[1] = operand(ExprId{m_.items[m.a].node}, d, 1);
  // the coordinates: registers, or immediates (kImmCoord | the value's low 31 bits)
  const Expr& c = m_.expr(ExprId{m_.items[m.a + 1].node});
  const uint32_t coords = d.im2col == 3 ? 5 : d.vec;  // gather4/scatter4: the column, then four rows
  if (c.kind != ExprKind::List || c.sub != static_cast<uint8_t>(Delim::Brace) || c.b != coords)
    throw unsupported(fmt::format("tensor coordinates other than {{...}} of {} values", coords));
  d.ops[2].kind = Opnd::Vec;
  d.ops[2].slot = static_cast<uint32_t>(p_.vec_slots.size());
  d.ops[2].count = c.b;
  for (uint32_t i = 0; i < c.b; ++i) {
    const ExprId el{m_.items[c.a + i].node};
    if (auto v = eval_int(m_, el)) {
      if (*v < -(int64_t{1} << 30) || *v >= (int64_t{1} << 30)) throw unsupported("a tensor coordinate beyond 30 bits");
      p_.vec_slots.push_back(kImmCoord | (static_cast<uint32_t>(*v) & ~kImmCoord));
    } else {
      if (m_.name_of(el) == "_") throw unsupported("the sink _ as a tensor coordinate");
      p_.vec_slots.push_back(reg_slot(el));
    }
  }
  d.ops[0] = operand(ExprId{operands[load ? 0 : 1].node}, d, 0);
  if (load) {
    d.ops[3] = operand(ExprId{operands[2].node}, d, 3);
    if (offsets) {  // {w, h, d} offsets: rank - 2 16-bit values (registers or immediates, as the coordinates)
      const Expr& f = m_.expr(ExprId{operands[offsets_at].node});
      if (f.kind != ExprKind::List || f.sub != static_cast<uint8_t>(Delim::Brace) || f.b + 2 != d.vec)
        throw unsupported(fmt::format("im2col offsets other than {{...}} of {} values", d.vec - 2));
      d.ops[5].kind = Opnd::Vec;
      d.ops[5].slot = static_cast<uint32_t>(p_.vec_slots.size());
      d.ops[5].count = f.b;
      for (uint32_t i = 0; i < f.b; ++i) {
        const ExprId el{m_.items[f.a + i].node};
        if (auto v = eval_int(m_, el)) p_.vec_slots.push_back(kImmCoord | (static_cast<uint32_t>(*v) & 0xFFFFu));
        else p_.vec_slots.push_back(reg_slot(el));
      }
    }
    if (d.flags & kMulticast) d.ops[4] = operand(ExprId{operands[offsets_at + (offsets ? 1 : 0)].node}, d, 4);
  }
  if (d.ops[0].kind != Opnd::Addr || (load && d.ops[3].kind != Opnd::Addr)) throw unsupported("this cp.async.bulk.tensor operand list");
  d.nops = 5;
  return d;
}

}  // namespace ptx::emu::decoding
