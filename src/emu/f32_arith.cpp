#include "f32_arith.hpp"

namespace ptx::emu {
namespace {

float element(uint64_t v, unsigned i) { return std::bit_cast<float>(static_cast<uint32_t>(v >> (32 * i))); }

float nearest(FpOp op, float x, float y, float z) {
  switch (op) {
    case FpOp::Add: return x + y;
    case FpOp::Sub: return x - y;
    case FpOp::Mul: return x * y;
    case FpOp::Div: return x / y;
    case FpOp::Fma: return std::fma(x, y, z);
    case FpOp::Sqrt: return std::sqrt(x);
    case FpOp::Rcp: return 1.0f / x;
  }
  return x;
}

}  // namespace

float f32_arith(FpOp op, F32Mode m, float x, float y, float z) {
  if (m.ftz) x = ftz(x), y = ftz(y), z = ftz(z);
  const float r = m.directed ? directed_f32(op, m.mode, x, y, z) : nearest(op, x, y, z);
  return m.ftz ? ftz(r) : r;
}

uint64_t packed_f32(FpOp op, F32Mode m, uint64_t a, uint64_t b, uint64_t c) {
  uint64_t out = 0;
  for (unsigned i = 0; i < 2; ++i) out |= canon(f32_arith(op, m, element(a, i), element(b, i), element(c, i))) << (32 * i);
  return out;
}

}  // namespace ptx::emu
