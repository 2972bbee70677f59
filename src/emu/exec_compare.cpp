// Comparison and selection (compare.isa): setp, set, selp, slct.
#include <cmath>

#include "runner.hpp"

namespace ptx::emu::engine {

namespace {

bool compare(Cmp c, Ty t, uint64_t a, uint64_t b) {
  if (t.k == 'f' || narrow(t)) {
    const double x = narrow(t) ? decode(format_of(t), static_cast<uint32_t>(a)) : t.bits == 32 ? f32(a) : f64(a);
    const double y = narrow(t) ? decode(format_of(t), static_cast<uint32_t>(b)) : t.bits == 32 ? f32(b) : f64(b);
    const bool un = std::isnan(x) || std::isnan(y);
    switch (c) {
      case Cmp::Eq: return !un && x == y;
      case Cmp::Ne: return !un && x != y;
      case Cmp::Lt: case Cmp::Lo: return !un && x < y;
      case Cmp::Le: case Cmp::Ls: return !un && x <= y;
      case Cmp::Gt: case Cmp::Hi: return !un && x > y;
      case Cmp::Ge: case Cmp::Hs: return !un && x >= y;
      case Cmp::Equ: return un || x == y;
      case Cmp::Neu: return un || x != y;
      case Cmp::Ltu: return un || x < y;
      case Cmp::Leu: return un || x <= y;
      case Cmp::Gtu: return un || x > y;
      case Cmp::Geu: return un || x >= y;
      case Cmp::Num: return !un;
      case Cmp::Nan: return un;
    }
    return false;
  }
  const bool sgn = t.k == 's';
  const int64_t sa = sext(a, t.bits), sb = sext(b, t.bits);
  const uint64_t ua = mask_bits(a, t.bits), ub = mask_bits(b, t.bits);
  switch (c) {
    case Cmp::Eq: return ua == ub;
    case Cmp::Ne: return ua != ub;
    case Cmp::Lt: return sgn ? sa < sb : ua < ub;
    case Cmp::Le: return sgn ? sa <= sb : ua <= ub;
    case Cmp::Gt: return sgn ? sa > sb : ua > ub;
    case Cmp::Ge: return sgn ? sa >= sb : ua >= ub;
    case Cmp::Lo: return ua < ub;
    case Cmp::Ls: return ua <= ub;
    case Cmp::Hi: return ua > ub;
    case Cmp::Hs: return ua >= ub;
    default: return false;
  }
}

}  // namespace

// setp, selp, slct.
void Runner::compare_select(Warp& w, const DInst& in, uint32_t exec) {
  const Ty t = in.type;
  const Opnd* o = in.ops;
  auto lanes = [&](auto&& f) { for_lanes(exec, f); };
  switch (in.op) {
    case Opc::Setp: {
      const Cmp c = static_cast<Cmp>(in.sub);
      const BoolOp bo = static_cast<BoolOp>(in.boolop);
      const unsigned halves = packed_elements(in.type2), eb = in.type2.bits / halves;
      const Ty one{in.type2.k, static_cast<uint8_t>(eb)};
      lanes([&](int l) {
        const uint64_t a = value(w, o[1], l), b = value(w, o[2], l);
        // .f16x2/.bf16x2: p compares the low halves, q the high ones; else q is p's negation
        bool r = compare(c, one, element(a, 0, eb), element(b, 0, eb));
        bool q = halves == 2 ? compare(c, one, element(a, 1, eb), element(b, 1, eb)) : !r;
        if (bo != BoolOp::None) {
          const bool cc = value(w, o[3], l) != 0;
          auto apply = [&](bool x) { return bo == BoolOp::And ? (x && cc) : bo == BoolOp::Or ? (x || cc) : (x != cc); };
          r = apply(r), q = apply(q);
        }
        if (o[0].slot != kNoSlot) reg(w, o[0].slot, l) = r;
        if (o[0].kind == Opnd::Pair && o[0].slot2 != kNoSlot) reg(w, o[0].slot2, l) = q;
      });
      return;
    }
    case Opc::Selp:
      lanes([&](int l) { write(w, o[0], l, value(w, o[3], l) ? value(w, o[1], l) : value(w, o[2], l), t); });
      return;
    case Opc::Slct:  // slct.dtype.ctype d, a, b, c: a if c >= 0, else b (a NaN c gives b)
      lanes([&](int l) {
        const uint64_t c = value(w, o[3], l);
        float cf = f32(c);
        if ((in.flags & kFtz) && std::fpclassify(cf) == FP_SUBNORMAL) cf = 0;
        const bool pick_a = t.k == 'f' ? cf >= 0.0f : static_cast<int32_t>(c) >= 0;
        write(w, o[0], l, value(w, o[pick_a ? 1 : 2], l), in.type2);
      });
      return;
    default: return;
  }
}

// set.cmp{.bool}.dtype.stype d, a, b{, c}: 1.0 (a float dtype) or all ones (an integer one) where the
// comparison holds; packed halves (.f16x2, .bf16x2) compare and answer each half on its own.
void Runner::set(Warp& w, const DInst& in, uint32_t exec) {
  const Cmp c = static_cast<Cmp>(in.sub);
  const BoolOp bo = static_cast<BoolOp>(in.boolop);
  const unsigned n = packed_elements(in.type2), sb = in.type2.bits / n, db = in.type.bits / n;
  const Ty src_one{in.type2.k, static_cast<uint8_t>(sb)}, dst_one{in.type.k, static_cast<uint8_t>(db)};
  const uint64_t yes = in.type.k == 'f' ? (db == 32 ? bits_of(1.0f) : bits_of(1.0))
                       : narrow(dst_one)  ? encode(format_of(dst_one), 1.0)
                                          : mask_bits(~uint64_t{0}, db);
  for (uint32_t m = exec; m; m &= m - 1) {
    const int l = std::countr_zero(m);
    const uint64_t a = value(w, in.ops[1], l), b = value(w, in.ops[2], l);
    const bool cc = bo != BoolOp::None && value(w, in.ops[3], l) != 0;
    uint64_t out = 0;
    for (unsigned i = 0; i < n; ++i) {
      bool r = compare(c, src_one, element(a, i, sb), element(b, i, sb));
      if (bo != BoolOp::None) r = bo == BoolOp::And ? (r && cc) : bo == BoolOp::Or ? (r || cc) : (r != cc);
      if (r) out |= yes << (i * db);
    }
    write(w, in.ops[0], l, out, in.type);
  }
}

}  // namespace ptx::emu::engine
