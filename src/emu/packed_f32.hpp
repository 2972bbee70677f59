// Internal: add/sub/mul/fma.f32x2 (sm_100+): two .f32 values packed in a .b64 register (element 0
// in the low 32 bits), each computed as the .f32 instruction with the same modifiers computes it.
#pragma once

#include <cstdint>

#include "directed_rounding.hpp"

namespace ptx::emu {

struct F32Mode {
  bool ftz = false;       // .ftz: subnormal inputs and results are sign-preserving zero
  bool directed = false;  // .rz/.rm/.rp (else .rn)
  DirectedMode mode = DirectedMode::Zero;
};

// a op b element by element; Fma: a * b + c rounded once. NaN results are the canonical NaN.
uint64_t packed_f32(FpOp op, F32Mode m, uint64_t a, uint64_t b, uint64_t c);

}  // namespace ptx::emu
