#include "directed_rounding.hpp"

#include <cfenv>
#include <cmath>

namespace ptx::emu {

namespace {

int fe_mode(DirectedMode m) {
  switch (m) {
    case DirectedMode::Zero:
      return FE_TOWARDZERO;
    case DirectedMode::Down:
      return FE_DOWNWARD;
    case DirectedMode::Up:
      return FE_UPWARD;
  }
  return FE_TONEAREST;
}

// The host's rounding mode for one operation, restored after it.
class ModeScope {
 public:
  explicit ModeScope(DirectedMode m) : saved_(std::fegetround()) { std::fesetround(fe_mode(m)); }
  ~ModeScope() { std::fesetround(saved_); }
  ModeScope(const ModeScope&) = delete;
  ModeScope& operator=(const ModeScope&) = delete;

 private:
  int saved_;
};

template <class T>
T apply(FpOp op, DirectedMode mode, T a, T b, T c) {
  const ModeScope scope(mode);
  switch (op) {
    case FpOp::Add:
      return a + b;
    case FpOp::Sub:
      return a - b;
    case FpOp::Mul:
      return a * b;
    case FpOp::Div:
      return a / b;
    case FpOp::Fma:
      return std::fma(a, b, c);
    case FpOp::Sqrt:
      return std::sqrt(a);
    case FpOp::Rcp:
      return T{1} / a;
  }
  return a;
}

}  // namespace

float directed_f32(FpOp op, DirectedMode mode, float a, float b, float c) { return apply(op, mode, a, b, c); }
double directed_f64(FpOp op, DirectedMode mode, double a, double b, double c) { return apply(op, mode, a, b, c); }

}  // namespace ptx::emu
