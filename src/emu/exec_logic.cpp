// Logic and shift instructions (logic.isa): and, or, xor, not, cnot, lop3, shl, shr, shf.
#include <algorithm>

#include "runner.hpp"

namespace ptx::emu::engine {

void Runner::logic(Warp& w, const DInst& in, uint32_t exec) {
  const Ty t = in.type;
  const Opnd* o = in.ops;
  const bool sgn = t.k == 's';
  auto lanes = [&](auto&& f) { for_lanes(exec, f); };
  switch (in.op) {
    case Opc::And: lanes([&](int l) { write(w, o[0], l, value(w, o[1], l) & value(w, o[2], l), t); }); return;
    case Opc::Or: lanes([&](int l) { write(w, o[0], l, value(w, o[1], l) | value(w, o[2], l), t); }); return;
    case Opc::Xor: lanes([&](int l) { write(w, o[0], l, value(w, o[1], l) ^ value(w, o[2], l), t); }); return;
    case Opc::Not: lanes([&](int l) { write(w, o[0], l, t.k == 'p' ? !value(w, o[1], l) : ~value(w, o[1], l), t); }); return;
    case Opc::Cnot: lanes([&](int l) { write(w, o[0], l, mask_bits(value(w, o[1], l), t.bits) == 0, t); }); return;
    case Opc::Shl:
      lanes([&](int l) {
        const uint64_t n = mask_bits(value(w, o[2], l), 32);
        write(w, o[0], l, n >= t.bits ? 0 : value(w, o[1], l) << n, t);
      });
      return;
    case Opc::Shr:
      lanes([&](int l) {
        const uint64_t n = std::min<uint64_t>(mask_bits(value(w, o[2], l), 32), t.bits);
        const uint64_t a = value(w, o[1], l);
        uint64_t r;
        if (sgn) r = static_cast<uint64_t>(n >= 64 ? (sext(a, t.bits) < 0 ? -1 : 0) : sext(a, t.bits) >> n);
        else r = n >= 64 ? 0 : mask_bits(a, t.bits) >> n;
        write(w, o[0], l, r, t);
      });
      return;
    case Opc::Shf:
      lanes([&](int l) {
        const uint64_t a = mask_bits(value(w, o[1], l), 32), b = mask_bits(value(w, o[2], l), 32);
        uint64_t n = mask_bits(value(w, o[3], l), 32);
        n = (in.flags & kClamp) ? std::min<uint64_t>(n, 32) : n & 31;
        const uint64_t both = (b << 32) | a;
        const uint64_t r = (in.flags & kLeft) ? (n == 0 ? b : (both << n) >> 32) : (both >> n);
        write(w, o[0], l, r, Ty{'b', 32});
      });
      return;
    case Opc::Lop3:
      lanes([&](int l) {
        const uint64_t a = value(w, o[1], l), b = value(w, o[2], l), c = value(w, o[3], l), lut = value(w, o[4], l);
        uint64_t r = 0;
        for (unsigned i = 0; i < 32; ++i) {
          const unsigned idx = static_cast<unsigned>(((a >> i & 1) << 2) | ((b >> i & 1) << 1) | (c >> i & 1));
          r |= ((lut >> idx) & 1) << i;
        }
        write(w, o[0], l, r, t);
        if (in.boolop != 0 && o[0].kind == Opnd::Pair && o[0].slot2 != kNoSlot) {
          const bool q = value(w, o[5], l) != 0;
          reg(w, o[0].slot2, l) = static_cast<BoolOp>(in.boolop) == BoolOp::And ? (r != 0 && q) : (r != 0 || q);
        }
      });
      return;
    default: return;
  }
}

}  // namespace ptx::emu::engine
