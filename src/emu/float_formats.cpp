#include "float_formats.hpp"

#include <algorithm>
#include <cmath>
#include <cstring>

namespace ptx::emu {

struct Layout {
  int mant;          // stored mantissa bits
  int exp;           // exponent bits
  bool has_inf;      // e4m3: no infinities; the all-ones exponent with mantissa 111 is NaN
  uint32_t nan;      // canonical NaN (without sign)
  int total;         // bits
  bool finite = false;  // no infinity and no NaN (the 6- and 4-bit formats): overflow saturates
};

namespace {

Layout layout(Format f) {
  switch (f) {
    case Format::F16: return {10, 5, true, 0x7FFF, 16};
    case Format::BF16: return {7, 8, true, 0x7FFF, 16};
    case Format::E4M3: return {3, 4, false, 0x7F, 8};
    case Format::E5M2: return {2, 5, true, 0x7F, 8};
    case Format::TF32: return {10, 8, true, 0x7FFFFFFF, 32};
    case Format::E2M3: return {3, 2, false, 0x1F, 6, true};
    case Format::E3M2: return {2, 3, false, 0x1F, 6, true};
    case Format::E2M1: return {1, 2, false, 0x7, 4, true};
    case Format::UE8M0: break;  // encode() and decode() handle it
  }
  return {10, 5, true, 0x7FFF, 16};
}

double round_int(double q, Rounding r, bool negative) {
  switch (r) {
    case Rounding::Nearest: return std::nearbyint(q);  // the host's default mode: to nearest, ties to even
    case Rounding::Zero: return std::trunc(q);
    case Rounding::Down: return negative ? std::ceil(q) : std::floor(q);  // q is a magnitude
    case Rounding::Up: return negative ? std::floor(q) : std::ceil(q);
    case Rounding::NearestAway: return std::round(q);
  }
  return std::nearbyint(q);
}

}  // namespace

uint32_t encode_layout(const Layout& L, double x, Rounding r, bool satfinite);

uint32_t encode(Format f, double x, Rounding r, bool satfinite) {
  if (f == Format::UE8M0) {  // a power of two: the exponent rounded as asked, within 2^-127 .. 2^127
    if (std::isnan(x)) return 0xFF;
    if (!(x > 0)) return 0;  // unsigned: zero and negatives give the smallest code
    if (std::isinf(x)) return satfinite ? 0xFE : 0xFF;
    int e;
    const double m = std::frexp(x, &e);  // x = m 2^e, m in [0.5, 1)
    double q = e - 1;                     // floor(log2 x)
    if (m != 0.5) {                       // not a power of two: between 2^q and 2^(q+1)
      const bool up = r == Rounding::Up || ((r == Rounding::Nearest || r == Rounding::NearestAway) && m >= 0.75);
      if (up) q += 1;
    }
    const double code = std::clamp(q + 127, 0.0, 254.0);
    return (!satfinite && q + 127 > 254) ? 0xFF : static_cast<uint32_t>(code);
  }
  if (f == Format::TF32) {  // f32's layout with the low 13 mantissa bits zero
    const uint32_t b = encode_layout({10, 8, true, 0x3FFFF, 19}, x, r, satfinite);
    return ((b >> 18) << 31) | ((b >> 10 & 0xFF) << 23) | ((b & 0x3FF) << 13);
  }
  return encode_layout(layout(f), x, r, satfinite);
}

uint32_t encode_layout(const Layout& L, double x, Rounding r, bool satfinite) {
  if (std::isnan(x)) return L.nan;
  const bool neg = std::signbit(x);
  const uint32_t sign = neg ? 1u << (L.total - 1) : 0;
  const double a = std::fabs(x);
  const int bias = (1 << (L.exp - 1)) - 1;
  const int emin = 1 - bias;  // smallest normal exponent
  // the largest finite value
  const int emax = L.has_inf ? (1 << L.exp) - 2 - bias : (1 << L.exp) - 1 - bias;
  const double max_mant = L.has_inf || L.finite ? 2.0 - std::ldexp(1.0, -L.mant) : 2.0 - std::ldexp(1.0, 1 - L.mant);
  const double max_finite = std::ldexp(max_mant, emax);
  const uint32_t inf_bits = L.has_inf ? ((1u << L.exp) - 1) << L.mant : L.nan;
  auto overflow = [&]() -> uint32_t {
    const bool to_max = satfinite || !L.has_inf || r == Rounding::Zero || (r == Rounding::Down && !neg) || (r == Rounding::Up && neg);
    if (!L.has_inf && !satfinite && !L.finite) return sign | L.nan;
    if (to_max) return sign | (static_cast<uint32_t>(emax + bias) << L.mant) | static_cast<uint32_t>(std::ldexp(max_mant - 1.0, L.mant));
    return sign | inf_bits;
  };
  if (std::isinf(a)) return overflow();
  if (a == 0) return sign;
  int e;
  std::frexp(a, &e);  // a = m * 2^e, m in [0.5, 1)
  e -= 1;             // a = m' * 2^e, m' in [1, 2)
  const int qexp = (e < emin ? emin : e) - L.mant;  // the quantum's exponent
  const double q = round_int(std::ldexp(a, -qexp), r, neg);
  const double v = std::ldexp(q, qexp);
  if (v > max_finite) return overflow();
  if (v == 0) return sign;
  int ve;
  std::frexp(v, &ve);
  ve -= 1;
  if (ve < emin) return sign | static_cast<uint32_t>(q);  // subnormal: the quantum count is the mantissa
  const uint32_t mant = static_cast<uint32_t>(std::ldexp(v, L.mant - ve)) & ((1u << L.mant) - 1);
  return sign | (static_cast<uint32_t>(ve + bias) << L.mant) | mant;
}

double decode(Format f, uint32_t bits) {
  if (f == Format::UE8M0) return decode_ue8m0(static_cast<uint8_t>(bits));
  if (f == Format::TF32) {
    float v;
    const uint32_t b = bits & 0xFFFFE000u;
    std::memcpy(&v, &b, 4);
    return v;
  }
  const Layout L = layout(f);
  const bool neg = (bits >> (L.total - 1)) & 1;
  const uint32_t e = (bits >> L.mant) & ((1u << L.exp) - 1);
  const uint32_t m = bits & ((1u << L.mant) - 1);
  const int bias = (1 << (L.exp - 1)) - 1;
  double v;
  if (e == 0) v = std::ldexp(static_cast<double>(m), 1 - bias - L.mant);
  else if (L.has_inf && e == (1u << L.exp) - 1) v = m ? NAN : INFINITY;
  else if (!L.has_inf && !L.finite && e == (1u << L.exp) - 1 && m == (1u << L.mant) - 1) v = NAN;
  else v = std::ldexp(1.0 + std::ldexp(static_cast<double>(m), -L.mant), static_cast<int>(e) - bias);
  return neg ? -v : v;
}

double decode_ue8m0(uint8_t code) { return code == 0xFF ? NAN : std::ldexp(1.0, static_cast<int>(code) - 127); }

double decode_ue4m3(uint8_t code) { return decode(Format::E4M3, code & 0x7Fu); }

}  // namespace ptx::emu
