// Internal: f32/f64 arithmetic rounded toward zero, down or up (add.rz.f32, fma.rp.f64,
// div.rm.f32, sqrt.rz.f64, ...), computed by the host's IEEE unit in that rounding mode.
// directed_rounding.cpp is compiled with -frounding-math, so that the compiler neither folds
// nor moves the operations across the mode switch.
#pragma once

#include <cstdint>

namespace ptx::emu {

enum class FpOp : uint8_t { Add, Sub, Mul, Div, Fma, Sqrt, Rcp };
enum class DirectedMode : uint8_t { Zero, Down, Up };

// a op b; Fma: a * b + c; Sqrt and Rcp take a alone.
float directed_f32(FpOp op, DirectedMode mode, float a, float b, float c);
double directed_f64(FpOp op, DirectedMode mode, double a, double b, double c);

}  // namespace ptx::emu
