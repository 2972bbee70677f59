// A tensor map's coordinates from a Python sequence, for the TMA helpers (hopper.cpp, blackwell.cpp):
// C++ takes them as an initializer_list of 1 to 5 operands.
#pragma once

#include <initializer_list>
#include <vector>

#include <fmt/format.h>

#include "common.hpp"

namespace ptxpy {

template <class F>
void with_coords(nb::handle coords, F f) {
  std::vector<ptx::Operand> c;
  for (nb::handle x : coords) c.push_back(to_operand(x, FloatAs::F32));
  switch (c.size()) {
    case 1:
      return f({c[0]});
    case 2:
      return f({c[0], c[1]});
    case 3:
      return f({c[0], c[1], c[2]});
    case 4:
      return f({c[0], c[1], c[2], c[3]});
    case 5:
      return f({c[0], c[1], c[2], c[3], c[4]});
    default:
      throw ptx::Error(fmt::format("a tensor map takes 1 to 5 coordinates, not {}", c.size()), {});
  }
}

}  // namespace ptxpy
