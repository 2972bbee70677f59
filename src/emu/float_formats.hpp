// Internal: the narrow floating-point formats of PTX (f16, bf16, e4m3, e5m2,
// tf32, and the 6- and 4-bit e2m3, e3m2, e2m1): rounding a double into one with a rounding mode, and reading one back.
#pragma once

#include <cstdint>

namespace ptx::emu {

// E2M3, E3M2, E2M1 have neither infinities nor NaN: every code is a finite number. UE8M0 (the
// block scale factors) is 2^(code - 127), unsigned, 0xFF NaN.
enum class Format : uint8_t { F16, BF16, E4M3, E5M2, TF32, E2M3, E3M2, E2M1, UE8M0 };
enum class Rounding : uint8_t { Nearest, Zero, Down, Up, NearestAway };

// The bits of the value nearest to x in the format (per the rounding mode). NaN is
// the format's canonical NaN; `satfinite` clamps to the largest finite value
// instead of infinity (e4m3 has no infinity and always saturates or gives NaN).
uint32_t encode(Format f, double x, Rounding r = Rounding::Nearest, bool satfinite = false);
double decode(Format f, uint32_t bits);

// The scale factors of block-scaled tcgen05.mma (8 bits each): ue8m0 is 2^(code - 127), 0xFF
// NaN; ue4m3 is e4m3 without its sign bit (bits 0-6; 0x7F NaN).
double decode_ue8m0(uint8_t code);
double decode_ue4m3(uint8_t code);

}  // namespace ptx::emu
