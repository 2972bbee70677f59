// Floating-point arithmetic on .f32 and .f64 (float.isa), .ftz and .sat as the manual says, NaN
// results canonical; .rz/.rm/.rp in that rounding mode (directed_rounding.cpp); the sm_100 .f32x2
// pairs (f32_arith.cpp).
#include <algorithm>
#include <cmath>
#include <type_traits>

#include "runner.hpp"

namespace ptx::emu::engine {

// d = a op b for each executing lane (arith: ff on .f32, fd on .f64, fi on the bits of other types).
template <class FF, class FD, class FI>
void Runner::binary(Warp& w, const DInst& in, uint32_t exec, FF ff, FD fd, FI fi) {
  const Ty t = in.type;
  const Opnd* o = in.ops;
  if (f32_on_registers(w, in, exec, ff)) return;
  for_lanes(exec, [&](int l) { write(w, o[0], l, arith(t, in.flags, value(w, o[1], l), value(w, o[2], l), ff, fd, fi), t); });
}

// .f32 without .ftz or .sat, every operand a plain register (most float arithmetic): straight
// over the lanes' registers, without arith()'s tests per lane. ff takes 2 or 3 floats.
template <class FF>
bool Runner::f32_on_registers(Warp& w, const DInst& in, uint32_t exec, FF ff) {
  constexpr int kSources = std::is_invocable_v<FF, float, float> ? 2 : 3;
  if (in.type.k != 'f' || in.type.bits != 32 || (in.flags & (kFtz | kSat)) || in.nops != kSources + 1) return false;
  uint64_t* d = plain_register(w, in.ops[0]);
  const uint64_t* a = plain_register(w, in.ops[1]);
  const uint64_t* b = plain_register(w, in.ops[2]);
  const uint64_t* c = kSources == 3 ? plain_register(w, in.ops[3]) : a;
  if (!d || !a || !b || !c) return false;
  each_lane(exec, [&](int l) {
    if constexpr (kSources == 2) d[l] = canon(ff(f32(a[l]), f32(b[l])));
    else d[l] = canon(ff(f32(a[l]), f32(b[l]), f32(c[l])));
  });
  return true;
}

// d = f(a) for each executing lane: ff on .f32 (.ftz both ways), fd on .f64.
template <class FF, class FD>
void Runner::unary(Warp& w, const DInst& in, uint32_t exec, FF ff, FD fd) {
  const Ty t = in.type;
  const Opnd* o = in.ops;
  for_lanes(exec, [&](int l) {
    const uint64_t a = value(w, o[1], l);
    uint64_t r;
    if (t.bits == 32) {
      float x = f32(a);
      if (in.flags & kFtz) x = ftz(x);
      float y = ff(x);
      if (in.flags & kFtz) y = ftz(y);
      r = canon(y);
    } else {
      r = bits_of(fd(f64(a)));
    }
    write(w, o[0], l, r, t);
  });
}

// add, sub, mul, mad, fma, div, neg, abs, min, max, copysign of .f32/.f64 (and .f32x2; exec.cpp: arith_family).
void Runner::float_arith(Warp& w, const DInst& in, uint32_t exec) {
  const Ty t = in.type;
  const bool directed_rounding = t.k == 'f' && (in.flags & (kRz | kRm | kRp)) && !narrow(t);
  switch (in.op) {
    case Opc::Add:
    case Opc::Sub:
      if (t.k == 'F') return f32x2(w, in, exec, in.op == Opc::Add ? FpOp::Add : FpOp::Sub);
      if (directed_rounding) return directed(w, in, exec, in.op == Opc::Add ? FpOp::Add : FpOp::Sub);
      if (in.op == Opc::Add)
        return binary(w, in, exec, [](float a, float b) { return a + b; }, [](double a, double b) { return a + b; },
                      [](uint64_t a, uint64_t b) { return a + b; });
      return binary(w, in, exec, [](float a, float b) { return a - b; }, [](double a, double b) { return a - b; },
                    [](uint64_t a, uint64_t b) { return a - b; });
    case Opc::Mul:
    case Opc::Mad:
      if (t.k == 'F') return f32x2(w, in, exec, FpOp::Mul);  // mul only: decode refuses mad.f32x2
      if (in.op == Opc::Mul && directed_rounding) return directed(w, in, exec, FpOp::Mul);
      if (in.op == Opc::Mul)
        return binary(w, in, exec, [](float a, float b) { return a * b; }, [](double a, double b) { return a * b; },
                      [](uint64_t a, uint64_t b) { return a * b; });
      return float_fma(w, in, exec);  // mad.f32 is fma.f32
    case Opc::Fma: return t.k == 'F' ? f32x2(w, in, exec, FpOp::Fma) : float_fma(w, in, exec);
    case Opc::Div:
      if (directed_rounding) return directed(w, in, exec, FpOp::Div);
      return binary(w, in, exec, [](float a, float b) { return a / b; }, [](double a, double b) { return a / b; },
                    [](uint64_t a, uint64_t) { return a; });
    case Opc::Neg:
    case Opc::Abs: return float_sign(w, in, exec);
    case Opc::Min:
    case Opc::Max: {
      const MinMax pick{in.op == Opc::Max, (in.flags & kNaN) != 0, in.sub};
      auto ff = [pick](float a, float b) { return pick(a, b); };
      auto fd = [pick](double a, double b) { return pick(a, b); };
      auto keep = [](uint64_t a, uint64_t) { return a; };
      if (in.nops == 4) {  // min/max of three (.f32): a with b, then with c
        const Opnd* o = in.ops;
        for_lanes(exec, [&](int l) {
          const uint64_t ab = arith(t, in.flags, value(w, o[1], l), value(w, o[2], l), ff, fd, keep);
          write(w, o[0], l, arith(t, in.flags, ab, value(w, o[3], l), ff, fd, keep), t);
        });
        return;
      }
      return binary(w, in, exec, ff, fd, keep);
    }
    case Opc::Copysign:
      return binary(w, in, exec, [](float a, float b) { return std::copysign(b, a); }, [](double a, double b) { return std::copysign(b, a); },
                    [](uint64_t a, uint64_t) { return a; });
    default: return;
  }
}

// rsqrt, rcp, sqrt, ex2, lg2, sin, cos, tanh.
void Runner::float_unary(Warp& w, const DInst& in, uint32_t exec) {
  const Ty t = in.type;
  const bool directed_rounding = t.k == 'f' && (in.flags & (kRz | kRm | kRp)) && !narrow(t);
  switch (in.op) {
    case Opc::Rsqrt: return unary(w, in, exec, [](float x) { return 1.0f / std::sqrt(x); }, [](double x) { return 1.0 / std::sqrt(x); });
    case Opc::Rcp:
      if (directed_rounding) return directed(w, in, exec, FpOp::Rcp);
      return unary(w, in, exec, [](float x) { return 1.0f / x; }, [](double x) { return 1.0 / x; });
    case Opc::Sqrt:
      if (directed_rounding) return directed(w, in, exec, FpOp::Sqrt);
      return unary(w, in, exec, [](float x) { return std::sqrt(x); }, [](double x) { return std::sqrt(x); });
    case Opc::Ex2: return unary(w, in, exec, [](float x) { return std::exp2(x); }, [](double x) { return std::exp2(x); });
    case Opc::Lg2: return unary(w, in, exec, [](float x) { return std::log2(x); }, [](double x) { return std::log2(x); });
    case Opc::Sin: return unary(w, in, exec, [](float x) { return std::sin(x); }, [](double x) { return std::sin(x); });
    case Opc::Cos: return unary(w, in, exec, [](float x) { return std::cos(x); }, [](double x) { return std::cos(x); });
    case Opc::Tanh: return unary(w, in, exec, [](float x) { return std::tanh(x); }, [](double x) { return std::tanh(x); });
    default: return;
  }
}

// neg / abs of floating-point types, narrow ones too: a sign-bit flip or clear of each element, NaN payload
// kept (as on the hardware).
void Runner::float_sign(Warp& w, const DInst& in, uint32_t exec) {
  const Ty t = in.type;
  const Opnd* o = in.ops;
  const unsigned eb = narrow(t) ? element_bits(t) : t.bits;
  uint64_t signs = 0;
  for (unsigned i = 0; i < t.bits / eb; ++i) signs |= uint64_t{1} << (i * eb + eb - 1);
  if (in.op == Opc::Neg) for_lanes(exec, [&](int l) { write(w, o[0], l, value(w, o[1], l) ^ signs, t); });
  else for_lanes(exec, [&](int l) { write(w, o[0], l, value(w, o[1], l) & ~signs, t); });
}

// fma (and mad) .f32/.f64.
void Runner::float_fma(Warp& w, const DInst& in, uint32_t exec) {
  const Ty t = in.type;
  const Opnd* o = in.ops;
  const bool directed_rounding = t.k == 'f' && (in.flags & (kRz | kRm | kRp)) && !narrow(t);
  if (directed_rounding) return directed(w, in, exec, FpOp::Fma);
  if (f32_on_registers(w, in, exec, [](float x, float y, float z) { return std::fma(x, y, z); })) return;
  for_lanes(exec, [&](int l) {
      const uint64_t a = value(w, o[1], l), b = value(w, o[2], l), c = value(w, o[3], l);
      if (t.bits == 32) {
        float x = f32(a), y = f32(b), z = f32(c);
        if (in.flags & kFtz) x = ftz(x), y = ftz(y), z = ftz(z);
        float r = std::fma(x, y, z);
        if (in.flags & kFtz) r = ftz(r);
        if (in.flags & kSat) r = std::isnan(r) ? 0.0f : std::clamp(r, 0.0f, 1.0f);
        write(w, o[0], l, canon(r), t);
      } else {
        write(w, o[0], l, bits_of(std::fma(f64(a), f64(b), f64(c))), t);
      }
    });
}

// f32/f64 arithmetic with .rz/.rm/.rp: in that rounding mode (directed_rounding.cpp), then ftz and sat.
void Runner::directed(Warp& w, const DInst& in, uint32_t exec, FpOp op) {
  const Ty t = in.type;
  const Opnd* o = in.ops;
  const F32Mode m{(in.flags & kFtz) != 0, true, directed_mode(in.flags)};
  const bool unary = op == FpOp::Sqrt || op == FpOp::Rcp;
  for_lanes(exec, [&](int l) {
    const uint64_t a = value(w, o[1], l), b = unary ? 0 : value(w, o[2], l), c = op == FpOp::Fma ? value(w, o[3], l) : 0;
    if (t.bits == 64) return write(w, o[0], l, bits_of(directed_f64(op, m.mode, f64(a), f64(b), f64(c))), t);
    float r = f32_arith(op, m, f32(a), f32(b), f32(c));
    if (in.flags & kSat) r = std::isnan(r) ? 0.0f : std::clamp(r, 0.0f, 1.0f);
    write(w, o[0], l, canon(r), t);
  });
}

// add/sub/mul/fma.f32x2: each .f32 half as the .f32 instruction computes it (f32_arith.cpp)
void Runner::f32x2(Warp& w, const DInst& in, uint32_t exec, FpOp op) {
  const Ty t = in.type;
  const Opnd* o = in.ops;
  const F32Mode m{(in.flags & kFtz) != 0, (in.flags & (kRz | kRm | kRp)) != 0, directed_mode(in.flags)};
  for_lanes(exec, [&](int l) {
    const uint64_t c = op == FpOp::Fma ? value(w, o[3], l) : 0;
    write(w, o[0], l, packed_f32(op, m, value(w, o[1], l), value(w, o[2], l), c), t);
  });
}

// testp.op.type p, a
void Runner::testp(Warp& w, const DInst& in, uint32_t exec) {
  const Ty t = in.type;
  const Opnd* o = in.ops;
  for_lanes(exec, [&](int l) {
    const double x = t.bits == 32 ? static_cast<double>(f32(value(w, o[1], l))) : f64(value(w, o[1], l));
    const int c = std::fpclassify(x);
    bool r = false;
    switch (in.sub) {
      case 0: r = std::isfinite(x); break;
      case 1: r = std::isinf(x); break;
      case 2: r = !std::isnan(x); break;
      case 3: r = std::isnan(x); break;
      case 4: r = c == FP_NORMAL; break;
      case 5: r = c == FP_SUBNORMAL; break;
    }
    write(w, o[0], l, r, Ty{'p', 1});
  });
}

}  // namespace ptx::emu::engine
