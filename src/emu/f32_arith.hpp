// Internal: .f32 arithmetic one element at a time, rounded as the hardware rounds it (.ftz, the
// rounding mode, the canonical NaN): the scalar .rz/.rm/.rp forms, and the sm_100 .f32x2 pairs
// (add/sub/mul/fma on two .f32 in a .b64 register, element 0 in the low 32 bits), each element
// computed as the .f32 instruction with the same modifiers computes it.
#pragma once

#include <bit>
#include <cmath>
#include <cstdint>

#include "directed_rounding.hpp"

namespace ptx::emu {

// .ftz: a subnormal is a zero of its sign.
inline float ftz(float f) { return std::fpclassify(f) == FP_SUBNORMAL ? std::copysign(0.0f, f) : f; }
// .f32 results that are NaN are the canonical NaN, as on the hardware.
inline uint64_t canon(float f) { return std::isnan(f) ? 0x7fffffffu : std::bit_cast<uint32_t>(f); }

struct F32Mode {
  bool ftz = false;       // .ftz: subnormal inputs and results are zeros of their sign
  bool directed = false;  // .rz/.rm/.rp (else .rn)
  DirectedMode mode = DirectedMode::Zero;
};

// x op y (Fma: x * y + z rounded once; Sqrt and Rcp take x alone), .ftz applied to the inputs and
// the result; .sat and the canonical NaN are the caller's.
float f32_arith(FpOp op, F32Mode m, float x, float y, float z);

// f32_arith on both elements of packed pairs, NaN results canonical.
uint64_t packed_f32(FpOp op, F32Mode m, uint64_t a, uint64_t b, uint64_t c);

}  // namespace ptx::emu
