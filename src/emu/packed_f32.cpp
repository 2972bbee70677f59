#include "packed_f32.hpp"

#include <bit>
#include <cmath>

namespace ptx::emu {
namespace {

float element(uint64_t v, unsigned i) { return std::bit_cast<float>(static_cast<uint32_t>(v >> (32 * i))); }
float flush(float f) { return std::fpclassify(f) == FP_SUBNORMAL ? std::copysign(0.0f, f) : f; }

float nearest(FpOp op, float x, float y, float z) {
  switch (op) {
    case FpOp::Add: return x + y;
    case FpOp::Sub: return x - y;
    case FpOp::Mul: return x * y;
    default: return std::fma(x, y, z);
  }
}

}  // namespace

uint64_t packed_f32(FpOp op, F32Mode m, uint64_t a, uint64_t b, uint64_t c) {
  uint64_t out = 0;
  for (unsigned i = 0; i < 2; ++i) {
    float x = element(a, i), y = element(b, i), z = element(c, i);
    if (m.ftz) x = flush(x), y = flush(y), z = flush(z);
    float r = m.directed ? directed_f32(op, m.mode, x, y, z) : nearest(op, x, y, z);
    if (m.ftz) r = flush(r);
    const uint32_t bits = std::isnan(r) ? 0x7fffffffu : std::bit_cast<uint32_t>(r);
    out |= static_cast<uint64_t>(bits) << (32 * i);
  }
  return out;
}

}  // namespace ptx::emu
