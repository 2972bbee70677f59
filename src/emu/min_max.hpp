// min and max of floating-point values as PTX defines them: a NaN input is ignored (with .NaN,
// it makes the result NaN; two NaN inputs give NaN); .abs takes both inputs' magnitudes;
// .xorsign.abs gives the result the XOR of the inputs' signs.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>

#include "program.hpp"

namespace ptx::emu {

struct MinMax {
  bool max = false;
  bool nan_wins = false;  // .NaN
  uint8_t mods = 0;       // kMinMaxAbs | kMinMaxXorsign (program.hpp)

  template <class T>
  T operator()(T a, T b) const {
    const bool negative = std::signbit(a) != std::signbit(b);
    if (mods & kMinMaxAbs) a = std::fabs(a), b = std::fabs(b);
    T r;
    if (std::isnan(a) || std::isnan(b))
      r = nan_wins || (std::isnan(a) && std::isnan(b)) ? std::numeric_limits<T>::quiet_NaN() : std::isnan(a) ? b : a;
    else
      r = max ? std::max(a, b) : std::min(a, b);
    if ((mods & kMinMaxXorsign) && !std::isnan(r)) r = negative ? -std::fabs(r) : std::fabs(r);
    return r;
  }
};

}  // namespace ptx::emu
