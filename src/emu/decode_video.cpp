// Decoder: the video instructions' operands (video.cpp executes them).
#include <fmt/format.h>

#include "decoder.hpp"

namespace ptx::emu::decoding {

bool Decoder::is_video(Opcode op) {
  switch (op) {
    case Opcode::vadd: case Opcode::vsub: case Opcode::vabsdiff: case Opcode::vmin: case Opcode::vmax:
    case Opcode::vshl: case Opcode::vshr: case Opcode::vmad: case Opcode::vset: case Opcode::vadd2:
    case Opcode::vsub2: case Opcode::vavrg2: case Opcode::vabsdiff2: case Opcode::vmin2: case Opcode::vmax2:
    case Opcode::vset2: case Opcode::vadd4: case Opcode::vsub4: case Opcode::vavrg4: case Opcode::vabsdiff4:
    case Opcode::vmin4: case Opcode::vmax4: case Opcode::vset4:
      return true;
    default:
      return false;
  }
}

// Video instructions (video.cpp): operands are registers with a selector (%r1.h10, %r2.b3210)
// or, for the scalar forms' a, b and c, immediates.
DInst Decoder::video(DInst d, const Instruction& in, Opcode op, std::span<const Mod> mods) {
  VideoInst v;
  if (auto e = video_decode(op, mods, v)) throw unsupported(*e);
  const auto operands = m_.operands_of(in);
  check_operand_count(op, operands.size());
  if (operands.size() < 3 || operands.size() > 4) throw Error(fmt::format("kernel {}: {} takes 3 or 4 operands (at {})", entry_, op, where_));
  v.has_c = operands.size() == 4;
  d.op = Opc::Video;
  d.nops = static_cast<uint8_t>(operands.size());
  for (size_t i = 0; i < operands.size(); ++i) {
    ExprId id{operands[i].node};
    if (const Expr& u = m_.expr(id); u.kind == ExprKind::Unary && u.sub == static_cast<uint8_t>(ir::Op::Neg) && i > 0 &&
                                     v.op == VideoOp::Mad && m_.expr(ExprId{u.a}).kind == ExprKind::Name) {  // vmad's -a, -b (the product), -c
      (i == 3 ? v.neg_c : v.neg_product) ^= true;
      id = ExprId{u.a};
    }
    const Expr& e = m_.expr(id);
    if (e.kind == ExprKind::Name && e.b) {  // the register's component: the selector
      std::string_view sel = m_.text(Symbol{e.b});
      if (!sel.empty() && sel[0] == '.') sel.remove_prefix(1);
      if (!video_selector(v, sel, static_cast<int>(i)))
        throw Error(fmt::format("kernel {}: '{}' is not a selector of {}'s operand {} (at {})", entry_, sel, op, i, where_));
      d.ops[i].kind = Opnd::Reg;
      d.ops[i].slot = base_register(id);
      continue;
    }
    d.ops[i] = operand(id, d, i);
    if (i == 0 && d.ops[0].kind != Opnd::Reg) throw Error(fmt::format("kernel {}: the destination of {} is not a register (at {})", entry_, op, where_));
  }
  if (in.guard) {
    const Expr& g = m_.expr(in.guard);
    d.guard_neg = g.kind == ExprKind::Unary;
    d.guard = reg_slot(d.guard_neg ? ExprId{g.a} : in.guard);
  }
  d.table = static_cast<uint32_t>(p_.video.size());
  p_.video.push_back(v);
  return d;
}

}  // namespace ptx::emu::decoding
