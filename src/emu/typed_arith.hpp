// Internal: arithmetic on typed bits for the execution engine (exec_*.cpp): register values are
// uint64_t bits, read as the instruction's type; the narrow floating-point formats (f16, bf16,
// e4m3, e5m2, tf32, ...) are computed in double and rounded once.
#pragma once

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdint>

#include "directed_rounding.hpp"
#include "f32_arith.hpp"
#include "min_max.hpp"
#include "float_formats.hpp"
#include "program.hpp"

namespace ptx::emu::engine {

__extension__ typedef unsigned __int128 u128;
__extension__ typedef __int128 i128;

inline uint64_t mask_bits(uint64_t v, unsigned bits) { return bits >= 64 ? v : v & ((uint64_t{1} << bits) - 1); }
inline int64_t sext(uint64_t v, unsigned bits) {
  if (bits >= 64) return static_cast<int64_t>(v);
  const uint64_t m = uint64_t{1} << (bits - 1);
  v = mask_bits(v, bits);
  return static_cast<int64_t>((v ^ m) - m);
}
inline float f32(uint64_t v) { return std::bit_cast<float>(static_cast<uint32_t>(v)); }
inline double f64(uint64_t v) { return std::bit_cast<double>(v); }
inline uint64_t bits_of(float f) { return std::bit_cast<uint32_t>(f); }
inline uint64_t bits_of(double d) { return std::bit_cast<uint64_t>(d); }

// ---- narrow floating-point formats (f16, bf16, e4m3, e5m2, tf32), packed in pairs ------

inline bool narrow(Ty t) {
  switch (t.k) {
    case 'h': case 'B': case 'E': case 'M': case 't': case '4': case '6': case '7': case '8': return true;
    default: return false;
  }
}
inline Format format_of(Ty t) {
  switch (t.k) {
    case 'h': return Format::F16;
    case 'B': return Format::BF16;
    case 'E': return Format::E4M3;
    case 'M': return Format::E5M2;
    case '4': return Format::E2M1;
    case '6': return Format::E2M3;
    case '7': return Format::E3M2;
    case '8': return Format::UE8M0;
    default: return Format::TF32;
  }
}
inline unsigned element_bits(Ty t) {
  if (t.k == '4') return 4;
  return t.k == 'E' || t.k == 'M' || t.k == '6' || t.k == '7' || t.k == '8' ? 8 : t.k == 't' ? 32 : 16;
}
// The elements of a packed half type (.f16x2, .bf16x2: 2), else 1.
inline unsigned packed_elements(Ty t) { return (t.k == 'h' || t.k == 'B') && t.bits == 32 ? 2 : 1; }
inline DirectedMode directed_mode(uint32_t flags) {  // of .rz/.rm/.rp
  return (flags & kRz) ? DirectedMode::Zero : (flags & kRm) ? DirectedMode::Down : DirectedMode::Up;
}
inline Rounding rounding_of(uint32_t flags) {
  if (flags & kRna) return Rounding::NearestAway;
  if (flags & kRz) return Rounding::Zero;
  if (flags & kRm) return Rounding::Down;
  if (flags & kRp) return Rounding::Up;
  return Rounding::Nearest;
}
inline uint32_t element(uint64_t v, unsigned i, unsigned eb) {
  return static_cast<uint32_t>((v >> (i * eb)) & (eb >= 32 ? 0xFFFFFFFFull : (uint64_t{1} << eb) - 1));
}

// f applied to each element of packed narrow values, computed in double and rounded once.
template <class F>
inline uint64_t narrow_op(Ty t, uint32_t flags, uint64_t a, uint64_t b, uint64_t c, F f) {
  const Format fm = format_of(t);
  const unsigned eb = element_bits(t), n = std::max(1u, t.bits / eb);
  uint64_t out = 0;
  for (unsigned i = 0; i < n; ++i) {
    double r = f(decode(fm, element(a, i, eb)), decode(fm, element(b, i, eb)), decode(fm, element(c, i, eb)));
    if ((flags & kRelu) && !std::isnan(r)) r = std::max(r, 0.0);
    if (flags & kSat) r = std::isnan(r) ? 0.0 : std::clamp(r, 0.0, 1.0);
    out |= static_cast<uint64_t>(encode(fm, r, rounding_of(flags), flags & kSatfinite)) << (i * eb);
  }
  return out;
}

template <class F32, class F64, class I>
uint64_t arith(Ty t, uint32_t flags, uint64_t a, uint64_t b, F32 ff, F64 fd, I fi) {
  if (t.k == 'f') {
    if (t.bits == 32) {
      float x = f32(a), y = f32(b);
      if (flags & kFtz) x = ftz(x), y = ftz(y);
      float r = ff(x, y);
      if (flags & kFtz) r = ftz(r);
      if (flags & kSat) r = std::isnan(r) ? 0.0f : std::clamp(r, 0.0f, 1.0f);
      return canon(r);
    }
    double r = fd(f64(a), f64(b));
    if (flags & kSat) r = std::isnan(r) ? 0.0 : std::clamp(r, 0.0, 1.0);
    return bits_of(r);
  }
  return mask_bits(fi(a, b), t.bits);
}

// arith for atomics and reductions, whose f16/bf16(x2) values add per element in their format
// (arithmetic instructions reach narrow_op before arith).
template <class F32, class F64, class I>
uint64_t reduce_arith(Ty t, uint64_t a, uint64_t b, F32 ff, F64 fd, I fi) {
  if (narrow(t)) return narrow_op(t, 0, a, b, 0, [&](double x, double y, double) { return fd(x, y); });
  return arith(t, 0, a, b, ff, fd, fi);
}

}  // namespace ptx::emu::engine
