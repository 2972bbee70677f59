// cvt between any two of the supported types (data-movement.isa), and cvt.pack.
#include <algorithm>
#include <cfenv>
#include <cmath>

#include "runner.hpp"

namespace ptx::emu::engine {

namespace {

uint64_t convert_wide(Ty dst, Ty src, uint32_t flags, uint64_t v);

// cvt between any two of the supported types.
uint64_t convert(Ty dst, Ty src, uint32_t flags, uint64_t v) {
  if (!narrow(dst) && !narrow(src)) return convert_wide(dst, src, flags, v);
  double x;
  if (narrow(src)) x = decode(format_of(src), static_cast<uint32_t>(v));
  else if (src.k == 'f') x = src.bits == 32 ? f32(v) : f64(v);
  else x = src.k == 's' ? static_cast<double>(sext(v, src.bits)) : static_cast<double>(mask_bits(v, src.bits));
  if (narrow(dst)) {
    if ((flags & kRelu) && !std::isnan(x)) x = std::max(x, 0.0);
    if (flags & kSat) x = std::isnan(x) ? 0.0 : std::clamp(x, 0.0, 1.0);
    return encode(format_of(dst), x, rounding_of(flags), flags & kSatfinite);
  }
  // a narrow value is exact in f32 and f64; to integers: as from f64
  return convert_wide(dst, Ty{'f', 64}, flags, bits_of(x));
}

uint64_t convert_wide(Ty dst, Ty src, uint32_t flags, uint64_t v) {
  const bool sat = flags & kSat;
  if (src.k != 'f' && dst.k != 'f') {
    if (!sat) return mask_bits(src.k == 's' ? static_cast<uint64_t>(sext(v, src.bits)) : mask_bits(v, src.bits), dst.bits);
    const long double x = src.k == 's' ? static_cast<long double>(sext(v, src.bits)) : static_cast<long double>(mask_bits(v, src.bits));
    const long double lo = dst.k == 's' ? -std::ldexp(1.0L, dst.bits - 1) : 0.0L;
    const long double hi = dst.k == 's' ? std::ldexp(1.0L, dst.bits - 1) - 1 : std::ldexp(1.0L, dst.bits) - 1;
    const long double c = std::clamp(x, lo, hi);
    return mask_bits(dst.k == 's' ? static_cast<uint64_t>(static_cast<int64_t>(c)) : static_cast<uint64_t>(c), dst.bits);
  }
  const int mode = (flags & kRz) ? FE_TOWARDZERO : (flags & kRm) ? FE_DOWNWARD : (flags & kRp) ? FE_UPWARD : FE_TONEAREST;
  if (src.k == 'f' && dst.k == 'f') {
    double x = src.bits == 32 ? f32(v) : f64(v);
    if (flags & kIntRound) {
      const int saved = std::fegetround();
      std::fesetround(mode);
      x = std::nearbyint(x);
      std::fesetround(saved);
    }
    if (dst.bits == 32) {
      const int saved = std::fegetround();
      std::fesetround(mode);
      volatile float r = static_cast<float>(x);
      std::fesetround(saved);
      float out = r;
      if (flags & kFtz) out = ftz(out);
      if (sat) out = std::isnan(out) ? 0.0f : std::clamp(out, 0.0f, 1.0f);
      return bits_of(out);
    }
    if (sat) x = std::isnan(x) ? 0.0 : std::clamp(x, 0.0, 1.0);
    return bits_of(x);
  }
  if (src.k == 'f') {  // float -> integer: rounds as asked (.rzi default for truncation), saturates, NaN -> 0
    double x = src.bits == 32 ? f32(v) : f64(v);
    if (std::isnan(x)) return 0;
    const int saved = std::fegetround();
    std::fesetround(flags & (kRn | kRz | kRm | kRp) ? mode : FE_TOWARDZERO);
    x = std::nearbyint(x);
    std::fesetround(saved);
    // saturate against the range's bounds as doubles (2^63 - 1 is not one: the first value out
    // of range is), returning the extreme integers' bits
    const double lo = dst.k == 's' ? -std::ldexp(1.0, dst.bits - 1) : 0.0;
    const double past = dst.k == 's' ? std::ldexp(1.0, dst.bits - 1) : std::ldexp(1.0, dst.bits);
    if (x <= lo) return dst.k == 's' ? uint64_t{1} << (dst.bits - 1) : 0;
    if (x >= past) return dst.k == 's' ? (uint64_t{1} << (dst.bits - 1)) - 1 : mask_bits(~uint64_t{0}, dst.bits);
    return mask_bits(dst.k == 's' ? static_cast<uint64_t>(static_cast<int64_t>(x)) : static_cast<uint64_t>(x), dst.bits);
  }
  // integer -> float
  const int saved = std::fegetround();
  std::fesetround(mode);
  uint64_t out;
  if (dst.bits == 32) {
    volatile float r = src.k == 's' ? static_cast<float>(sext(v, src.bits)) : static_cast<float>(mask_bits(v, src.bits));
    out = bits_of(static_cast<float>(r));
  } else {
    volatile double r = src.k == 's' ? static_cast<double>(sext(v, src.bits)) : static_cast<double>(mask_bits(v, src.bits));
    out = bits_of(static_cast<double>(r));
  }
  std::fesetround(saved);
  return out;
}

}  // namespace

void Runner::cvt(Warp& w, const DInst& in, uint32_t exec) {
  const Ty t = in.type;
  const Opnd* o = in.ops;
  auto lanes = [&](auto&& f) { for_lanes(exec, f); };
  if (in.sub == kCvtPack) return cvt_pack(w, in, exec);
  if (narrow(t) && element_bits(t) < t.bits && in.nops == 3) {  // cvt.rn.f16x2.f32 d, a, b: a high, b low
    const unsigned eb = element_bits(t);
    const Ty one{t.k, static_cast<uint8_t>(eb)};
    lanes([&](int l) {
      const uint64_t hi = convert(one, in.type2, in.flags, value(w, o[1], l)), lo = convert(one, in.type2, in.flags, value(w, o[2], l));
      write(w, o[0], l, (hi << eb) | lo, t);
    });
    return;
  }
  if (narrow(t) && narrow(in.type2) && element_bits(t) < t.bits) {  // x2 to x2, element by element
    const unsigned eb = element_bits(t), sb = element_bits(in.type2);
    const Ty one{t.k, static_cast<uint8_t>(eb)}, src_one{in.type2.k, static_cast<uint8_t>(sb)};
    lanes([&](int l) {
      const uint64_t v = value(w, o[1], l);
      uint64_t r = 0;
      for (unsigned i = 0; i < t.bits / eb; ++i) r |= convert(one, src_one, in.flags, element(v, i, sb)) << (i * eb);
      write(w, o[0], l, r, t);
    });
    return;
  }
  // a destination register wider than a signed type gets the value sign-extended (as ld does)
  if (t.k == 's' && o[0].kind == Opnd::Reg)
    lanes([&](int l) { reg(w, o[0].slot, l) = static_cast<uint64_t>(sext(convert(t, in.type2, in.flags, value(w, o[1], l)), t.bits)); });
  else lanes([&](int l) { write(w, o[0], l, convert(t, in.type2, in.flags, value(w, o[1], l)), t); });
  return;
}

// cvt.pack.sat.ctype.s32{.b32} d, a, b{, c}: a and b saturated to ctype, a's bits above b's; the 8-,
// 4- and 2-bit forms fill the rest of d from c's low bits.
void Runner::cvt_pack(Warp& w, const DInst& in, uint32_t exec) {
  const unsigned n = in.type.bits;
  const int64_t lo = in.type.k == 's' ? -(int64_t{1} << (n - 1)) : 0, hi = in.type.k == 's' ? (int64_t{1} << (n - 1)) - 1 : (int64_t{1} << n) - 1;
  for (uint32_t m = exec; m; m &= m - 1) {
    const int l = std::countr_zero(m);
    auto sat = [&](const Opnd& o) { return mask_bits(static_cast<uint64_t>(std::clamp(sext(value(w, o, l), 32), lo, hi)), n); };
    uint64_t d = sat(in.ops[1]) << n | sat(in.ops[2]);
    if (n < 16) d |= value(w, in.ops[3], l) << (2 * n);
    write(w, in.ops[0], l, d, Ty{'b', 32});
  }
}

}  // namespace ptx::emu::engine
