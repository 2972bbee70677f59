// Arithmetic on the narrow floating-point formats (half.isa: .f16, .bf16 and their x2 pairs; the
// same code serves e4m3, e5m2, tf32 ...): each element computed in double and rounded once to its
// format (float_formats.cpp), .relu/.sat/.satfinite as the instruction says.
#include <algorithm>
#include <cmath>

#include "runner.hpp"

namespace ptx::emu::engine {

// add, sub, mul, mad, fma, div, neg, abs, min, max, copysign of narrow types (exec.cpp: arith_family).
void Runner::half_arith(Warp& w, const DInst& in, uint32_t exec) {
  const Ty t = in.type;
  const Opnd* o = in.ops;
  // f on each element of the packed operands, in double, rounded once (narrow_op)
  auto binary = [&](auto fd) {
    for_lanes(exec, [&](int l) {
      write(w, o[0], l, narrow_op(t, in.flags, value(w, o[1], l), value(w, o[2], l), 0, [&](double x, double y, double) { return fd(x, y); }), t);
    });
  };
  switch (in.op) {
    case Opc::Add: return binary([](double a, double b) { return a + b; });
    case Opc::Sub: return binary([](double a, double b) { return a - b; });
    case Opc::Mul: return binary([](double a, double b) { return a * b; });
    case Opc::Div: return binary([](double a, double b) { return a / b; });
    case Opc::Mad:  // mad.f16 is fma.f16
    case Opc::Fma:
      for_lanes(exec, [&](int l) {
        const uint64_t a = value(w, o[1], l), b = value(w, o[2], l), c = value(w, o[3], l);
        uint64_t r = narrow_op(t, in.flags, a, b, c, [](double x, double y, double z) { return std::fma(x, y, z); });
        if (in.sub == kFmaOob)
          for (unsigned i = 0; i < t.bits / 16; ++i)
            if (element(a, i, 16) == kOobNaN16 || element(b, i, 16) == kOobNaN16 || element(c, i, 16) == kOobNaN16)
              r &= ~(uint64_t{0xFFFF} << (16 * i));
        write(w, o[0], l, r, t);
      });
      return;
    case Opc::Neg:
    case Opc::Abs: return float_sign(w, in, exec);
    case Opc::Min:
    case Opc::Max: {
      const MinMax pick{in.op == Opc::Max, (in.flags & kNaN) != 0, in.sub};
      return binary([pick](double a, double b) { return pick(a, b); });
    }
    case Opc::Copysign: return binary([](double a, double b) { return std::copysign(b, a); });
    default: return;
  }
}

}  // namespace ptx::emu::engine
