// Integer arithmetic (integer.isa: 9.7.1 and the extended-precision 9.7.2), on the bits of the
// instruction's type; the packed .s16x2/.u16x2 forms half by half.
#include <algorithm>
#include <bit>
#include <cstdlib>

#include "runner.hpp"

namespace ptx::emu::engine {

template <class Op>
void Runner::pair16(Warp& w, const DInst& in, uint32_t exec, Op op) {
  const bool is_signed = in.type.k == 'S';
  for (uint32_t m = exec; m; m &= m - 1) {
    const int l = std::countr_zero(m);
    const uint64_t a = value(w, in.ops[1], l), b = value(w, in.ops[2], l);
    uint64_t r = 0;
    for (unsigned h = 0; h < 2; ++h) {
      const int64_t x = is_signed ? sext(a >> (16 * h), 16) : static_cast<int64_t>((a >> (16 * h)) & 0xFFFF);
      const int64_t y = is_signed ? sext(b >> (16 * h), 16) : static_cast<int64_t>((b >> (16 * h)) & 0xFFFF);
      int64_t v = op(x, y);
      if ((in.flags & kRelu) && v < 0) v = 0;
      r |= (static_cast<uint64_t>(v) & 0xFFFF) << (16 * h);
    }
    write(w, in.ops[0], l, r, Ty{'b', 32});
  }
}

// add, sub, mul, mad, div, rem, neg, abs, min, max of integer types (exec.cpp: arith_family).
void Runner::integer_arith(Warp& w, const DInst& in, uint32_t exec) {
  const Ty t = in.type;
  const Opnd* o = in.ops;
  const bool sgn = t.k == 's';
  auto lanes = [&](auto&& f) { for_lanes(exec, f); };
  switch (in.op) {
    case Opc::Add:
    case Opc::Sub:
      if (t.k == 'S' || t.k == 'U') {
        if (in.op == Opc::Add) return pair16(w, in, exec, [](int64_t a, int64_t b) { return a + b; });
        return pair16(w, in, exec, [](int64_t a, int64_t b) { return a - b; });
      }
      if (in.flags & (kCarryIn | kCarryOut)) return integer_carry(w, in, exec);  // add.cc, addc, sub.cc, subc
      if ((in.flags & kSat) && t.k == 's') return saturating_add_sub(w, in, exec);
      if (in.op == Opc::Add) lanes([&](int l) { write(w, o[0], l, mask_bits(value(w, o[1], l) + value(w, o[2], l), t.bits), t); });
      else lanes([&](int l) { write(w, o[0], l, mask_bits(value(w, o[1], l) - value(w, o[2], l), t.bits), t); });
      return;
    case Opc::Mul:
    case Opc::Mad: return integer_mul_mad(w, in, exec);
    case Opc::Div:
      lanes([&](int l) {
        const uint64_t a = value(w, o[1], l), b = value(w, o[2], l);
        uint64_t r;
        if (mask_bits(b, t.bits) == 0) r = ~uint64_t{0};
        else if (sgn && sext(b, t.bits) == -1) r = static_cast<uint64_t>(0 - static_cast<uint64_t>(sext(a, t.bits)));
        else r = sgn ? static_cast<uint64_t>(sext(a, t.bits) / sext(b, t.bits)) : mask_bits(a, t.bits) / mask_bits(b, t.bits);
        write(w, o[0], l, r, t);
      });
      return;
    case Opc::Rem:
      lanes([&](int l) {
        const uint64_t a = value(w, o[1], l), b = value(w, o[2], l);
        uint64_t r;
        if (mask_bits(b, t.bits) == 0) r = a;
        else if (sgn && sext(b, t.bits) == -1) r = 0;
        else r = sgn ? static_cast<uint64_t>(sext(a, t.bits) % sext(b, t.bits)) : mask_bits(a, t.bits) % mask_bits(b, t.bits);
        write(w, o[0], l, r, t);
      });
      return;
    case Opc::Neg:
      lanes([&](int l) { write(w, o[0], l, 0 - value(w, o[1], l), t); });
      return;
    case Opc::Abs:
      lanes([&](int l) {
        const int64_t v = sext(value(w, o[1], l), t.bits);
        write(w, o[0], l, static_cast<uint64_t>(v < 0 ? 0 - static_cast<uint64_t>(v) : static_cast<uint64_t>(v)), t);
      });
      return;
    case Opc::Min:
    case Opc::Max: {
      const bool mx = in.op == Opc::Max;
      if (t.k == 'S' || t.k == 'U') return pair16(w, in, exec, [mx](int64_t a, int64_t b) { return mx ? std::max(a, b) : std::min(a, b); });
      lanes([&](int l) {
        const uint64_t a = value(w, o[1], l), b = value(w, o[2], l);
        const bool less = sgn ? sext(a, t.bits) < sext(b, t.bits) : mask_bits(a, t.bits) < mask_bits(b, t.bits);
        write(w, o[0], l, (less != mx) ? a : b, t);
      });
      return;
    }
    default: return;
  }
}

// carry chains: add.cc, addc, sub.cc, subc
void Runner::integer_carry(Warp& w, const DInst& in, uint32_t exec) {
  const Ty t = in.type;
  const Opnd* o = in.ops;
  const bool sub = in.op == Opc::Sub;
  for_lanes(exec, [&](int l) {
    const uint64_t a = mask_bits(value(w, o[1], l), t.bits), b = mask_bits(value(w, o[2], l), t.bits);
    const uint64_t cin = (in.flags & kCarryIn) ? (w.carry >> l & 1) : 0;
    // subtraction is a + ~b + 1 with the carry meaning "no borrow" ... PTX's CC.CF is the borrow for sub
    const u128 wide = sub ? static_cast<u128>(a) - b - cin : static_cast<u128>(a) + b + cin;
    const uint64_t r = static_cast<uint64_t>(wide);
    if (in.flags & kCarryOut) {
      const bool c = t.bits == 64 ? (sub ? (a < b || (a == b && cin)) : static_cast<uint64_t>(wide >> 64) != 0)
                                  : (sub ? (a < b + cin) : (r >> t.bits) != 0);
      w.carry = (w.carry & ~(1u << l)) | (static_cast<uint32_t>(c) << l);
    }
    write(w, o[0], l, r, t);
  });
}

// mul, mad, mul24, mad24 (.lo, .hi, .wide), mad.cc, madc.
// mul/mad of 32 bits or fewer without a carry (the address arithmetic of most kernels): the
// product fits 64 bits, so no 128-bit multiply and no per-lane test of the variant.
template <bool Signed, bool Mad>
void Runner::narrow_mul_mad(Warp& w, const DInst& in, uint32_t exec) {
  const Ty t = in.type;
  const Opnd* o = in.ops;
  const unsigned bits = t.bits;
  const unsigned shift = (in.flags & kHi) ? bits : 0;  // .hi: the upper half of the 2*bits product
  const Ty rt = (in.flags & kWide) ? Ty{t.k, static_cast<uint8_t>(bits * 2)} : t;
  for_lanes(exec, [&](int l) {
    const uint64_t a = value(w, o[1], l), b = value(w, o[2], l);
    const uint64_t prod = Signed ? static_cast<uint64_t>(sext(a, bits) * sext(b, bits)) : mask_bits(a, bits) * mask_bits(b, bits);
    write(w, o[0], l, (prod >> shift) + (Mad ? value(w, o[3], l) : 0), rt);
  });
}

void Runner::integer_mul_mad(Warp& w, const DInst& in, uint32_t exec) {
  const Ty t = in.type;
  const Opnd* o = in.ops;
  const bool sgn = t.k == 's';
  if (t.bits <= 32 && in.sub != kMul24 && !(in.flags & (kCarryIn | kCarryOut))) {
    const bool mad = in.op == Opc::Mad;
    if (sgn) return mad ? narrow_mul_mad<true, true>(w, in, exec) : narrow_mul_mad<true, false>(w, in, exec);
    return mad ? narrow_mul_mad<false, true>(w, in, exec) : narrow_mul_mad<false, false>(w, in, exec);
  }
  for_lanes(exec, [&](int l) {
    const uint64_t a = value(w, o[1], l), b = value(w, o[2], l);
    const uint64_t c = in.op == Opc::Mad ? value(w, o[3], l) : 0;
    u128 prod;
    const unsigned bits = in.sub == kMul24 ? 24 : t.bits;  // mul24/mad24: the operands' low 24 bits
    if (sgn) prod = static_cast<u128>(static_cast<i128>(sext(a, bits)) * sext(b, bits));
    else prod = static_cast<u128>(mask_bits(a, bits)) * mask_bits(b, bits);
    uint64_t r;
    Ty rt = t;
    if (in.sub == kMul24) {
      r = static_cast<uint64_t>((in.flags & kHi) ? prod >> 16 : prod);  // .hi: bits 16..47 of the 48-bit product
    } else if (in.flags & kWide) {
      r = static_cast<uint64_t>(prod);
      rt.bits = static_cast<uint8_t>(t.bits * 2);
    } else if (in.flags & kHi) {
      r = static_cast<uint64_t>(prod >> t.bits);
    } else {
      r = static_cast<uint64_t>(prod);
    }
    if (in.flags & (kCarryIn | kCarryOut)) {  // mad.lo.cc, madc.hi: the addition carries in and out at the type's width
      const u128 sum = static_cast<u128>(mask_bits(r, t.bits)) + mask_bits(c, t.bits) + ((in.flags & kCarryIn) ? (w.carry >> l & 1) : 0);
      if (in.flags & kCarryOut) w.carry = (w.carry & ~(1u << l)) | (static_cast<uint32_t>(sum >> t.bits & 1) << l);
      return write(w, o[0], l, static_cast<uint64_t>(sum), rt);
    }
    write(w, o[0], l, r + c, rt);
  });
}

// popc, clz, fns, brev, bfind.
void Runner::integer_bits(Warp& w, const DInst& in, uint32_t exec) {
  const Ty t = in.type;
  const Opnd* o = in.ops;
  const bool sgn = t.k == 's';
  auto lanes = [&](auto&& f) { for_lanes(exec, f); };
  switch (in.op) {
    case Opc::Popc: lanes([&](int l) { write(w, o[0], l, static_cast<uint64_t>(std::popcount(mask_bits(value(w, o[1], l), t.bits))), Ty{'u', 32}); }); return;
    case Opc::Clz:
      lanes([&](int l) {
        const uint64_t v = mask_bits(value(w, o[1], l), t.bits);
        write(w, o[0], l, static_cast<uint64_t>(std::countl_zero(v) - (64 - t.bits)), Ty{'u', 32});
      });
      return;
    case Opc::Fns:  // the position of the offset-th set bit of the mask from base (9.7.1.26), or all ones
      lanes([&](int l) {
        const uint32_t mask = static_cast<uint32_t>(value(w, o[1], l)), base = static_cast<uint32_t>(value(w, o[2], l));
        const int32_t offset = static_cast<int32_t>(value(w, o[3], l));
        uint32_t d = 0xFFFFFFFFu;
        if (offset == 0) {
          if (base < 32 && (mask >> base & 1)) d = base;
        } else {
          int64_t count = std::abs(static_cast<int64_t>(offset)) - 1;
          for (int64_t pos = base; pos >= 0 && pos < 32; pos += offset > 0 ? 1 : -1)
            if (mask >> pos & 1) {
              if (count == 0) {
                d = static_cast<uint32_t>(pos);
                break;
              }
              --count;
            }
        }
        write(w, o[0], l, d, Ty{'b', 32});
      });
      return;
    case Opc::Brev:
      lanes([&](int l) {
        uint64_t v = value(w, o[1], l), r = 0;
        for (unsigned i = 0; i < t.bits; ++i) r |= ((v >> i) & 1) << (t.bits - 1 - i);
        write(w, o[0], l, r, t);
      });
      return;
    case Opc::Bfind:
      lanes([&](int l) {
        uint64_t a = mask_bits(value(w, o[1], l), t.bits);
        if (sgn && (a >> (t.bits - 1) & 1)) a = mask_bits(~a, t.bits);  // the most significant non-sign bit
        uint32_t r = 0xFFFFFFFFu;
        if (a) {
          r = static_cast<uint32_t>(63 - std::countl_zero(a));
          if (in.flags & kShiftAmt) r = t.bits - 1 - r;
        }
        write(w, o[0], l, r, Ty{'u', 32});
      });
      return;
    default: return;
  }
}

// bmsk, szext, bfe, bfi: bit fields.
void Runner::integer_fields(Warp& w, const DInst& in, uint32_t exec) {
  const Ty t = in.type;
  const Opnd* o = in.ops;
  const bool sgn = t.k == 's';
  auto lanes = [&](auto&& f) { for_lanes(exec, f); };
  switch (in.op) {
    case Opc::Bmsk:  // the mask of b bits from bit a (9.7.1.24); .clamp: a or b over 31 as the manual says
      lanes([&](int l) {
        const uint64_t a = mask_bits(value(w, o[1], l), 32), b = mask_bits(value(w, o[2], l), 32);
        const uint32_t a1 = static_cast<uint32_t>(a & 31), b1 = static_cast<uint32_t>(b & 31), sum = a1 + b1;
        uint32_t mask0 = ~0u << a1, mask1 = sum >= 32 ? 0 : ~0u << sum;
        bool overflow = sum >= 32;
        if ((in.flags & kClamp) && a >= 32) mask0 = 0, overflow = true;
        if ((in.flags & kClamp) && b >= 32) overflow = true;
        if (overflow) mask1 = 0;
        else if (b1 == 0) mask1 = ~0u;
        write(w, o[0], l, mask0 & ~mask1, Ty{'b', 32});
      });
      return;
    case Opc::Szext:  // sign- or zero-extend a from bit b (9.7.1.25)
      lanes([&](int l) {
        const uint32_t a = static_cast<uint32_t>(value(w, o[1], l)), b = static_cast<uint32_t>(value(w, o[2], l)), b1 = b & 31;
        const bool too_large = (in.flags & kClamp) && b >= 32;
        const uint32_t mask = too_large ? 0 : ~0u << b1;
        const bool sign = b1 != 0 && !too_large && t.k == 's' && ((a >> ((b1 - 1) & 31)) & 1);
        write(w, o[0], l, (a & ~mask) | (sign ? mask : 0), Ty{'b', 32});
      });
      return;
    case Opc::Bfe:  // the ISA manual's definition, bit by bit
      lanes([&](int l) {
        const uint64_t a = mask_bits(value(w, o[1], l), t.bits);
        const unsigned pos = static_cast<unsigned>(value(w, o[2], l) & 0xFF), len = static_cast<unsigned>(value(w, o[3], l) & 0xFF);
        uint64_t r = 0;
        if (len != 0) {
          const unsigned msb = std::min(pos + len - 1, static_cast<unsigned>(t.bits) - 1);
          const uint64_t sbit = sgn ? (a >> msb) & 1 : 0;
          for (unsigned i = 0; i < t.bits; ++i) r |= ((i < len && pos + i <= msb) ? (a >> (pos + i)) & 1 : sbit) << i;
        }
        write(w, o[0], l, r, t);
      });
      return;
    case Opc::Bfi:
      lanes([&](int l) {
        const uint64_t a = value(w, o[1], l), b = value(w, o[2], l);
        const unsigned pos = static_cast<unsigned>(value(w, o[3], l) & 0xFF), len = static_cast<unsigned>(value(w, o[4], l) & 0xFF);
        uint64_t r = b;
        for (unsigned i = 0; i < len && pos + i < t.bits; ++i) r = (r & ~(uint64_t{1} << (pos + i))) | (((a >> i) & 1) << (pos + i));
        write(w, o[0], l, r, t);
      });
      return;
    default: return;
  }
}

// dp4a, dp2a, sad.
void Runner::integer_dot(Warp& w, const DInst& in, uint32_t exec) {
  const Ty t = in.type;
  const Opnd* o = in.ops;
  const bool sgn = t.k == 's';
  auto lanes = [&](auto&& f) { for_lanes(exec, f); };
  switch (in.op) {
    case Opc::Dp4a:  // c + four byte products
    case Opc::Dp2a:  // c + two products of a's halves and b's low or high bytes
      lanes([&](int l) {
        const uint64_t a = value(w, o[1], l), b = value(w, o[2], l);
        int64_t acc = sext(value(w, o[3], l), 32);
        const bool sa = in.type2.k == 's', sb = in.type3.k == 's';
        auto part = [](uint64_t v, unsigned bitsz, unsigned i, bool s) {
          const uint64_t x = (v >> (i * bitsz)) & ((uint64_t{1} << bitsz) - 1);
          return s ? sext(x, bitsz) : static_cast<int64_t>(x);
        };
        if (in.op == Opc::Dp4a) {
          for (unsigned i = 0; i < 4; ++i) acc += part(a, 8, i, sa) * part(b, 8, i, sb);
        } else {
          const unsigned base = in.sub ? 2 : 0;
          for (unsigned i = 0; i < 2; ++i) acc += part(a, 16, i, sa) * part(b, 8, base + i, sb);
        }
        write(w, o[0], l, static_cast<uint64_t>(acc), Ty{'s', 32});
      });
      return;
    case Opc::Sad:  // |a - b| + c
      lanes([&](int l) {
        const uint64_t a = value(w, o[1], l), b = value(w, o[2], l), c = value(w, o[3], l);
        uint64_t d;
        if (sgn) d = sext(a, t.bits) > sext(b, t.bits) ? a - b : b - a;
        else d = mask_bits(a, t.bits) > mask_bits(b, t.bits) ? a - b : b - a;
        write(w, o[0], l, d + c, t);
      });
      return;
    default: return;
  }
}

// add.sat.s32 / sub.sat.s32: the exact result clamped to [INT_MIN, INT_MAX].
void Runner::saturating_add_sub(Warp& w, const DInst& in, uint32_t exec) {
  for (uint32_t m = exec; m; m &= m - 1) {
    const int l = std::countr_zero(m);
    const int64_t a = sext(value(w, in.ops[1], l), 32), b = sext(value(w, in.ops[2], l), 32);
    const int64_t r = std::clamp<int64_t>(in.op == Opc::Add ? a + b : a - b, INT32_MIN, INT32_MAX);
    write(w, in.ops[0], l, static_cast<uint64_t>(r), in.type);
  }
}

}  // namespace ptx::emu::engine
