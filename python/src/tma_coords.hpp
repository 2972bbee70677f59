// A tensor map's coordinates from a Python sequence, for the TMA helpers (hopper*.cpp, blackwell.cpp):
// C++ takes them as an initializer_list of 1 to 5 operands (and im2col offsets as another of 0 to 3).
#pragma once

#include <initializer_list>
#include <vector>

#include <fmt/format.h>

#include "common.hpp"

namespace ptxpy {

// f({c...}) for the `least` to 5 operands of `list`; `what` names them in the error.
template <class F>
void with_operand_list(nb::handle list, size_t least, const char* what, F f) {
  std::vector<ptx::Operand> c;
  for (nb::handle x : list) c.push_back(to_operand(x, FloatAs::F32));
  if (c.size() < least || c.size() > 5)
    throw ptx::Error(fmt::format("a tensor map takes {} to 5 {}, not {}", least, what, c.size()), {});
  switch (c.size()) {
    case 0:
      return f(std::initializer_list<ptx::Operand>{});
    case 1:
      return f({c[0]});
    case 2:
      return f({c[0], c[1]});
    case 3:
      return f({c[0], c[1], c[2]});
    case 4:
      return f({c[0], c[1], c[2], c[3]});
    default:
      return f({c[0], c[1], c[2], c[3], c[4]});
  }
}

template <class F>
void with_coords(nb::handle coords, F f) {
  with_operand_list(coords, 1, "coordinates", f);
}

// The coordinates and the im2col offsets (C++ checks their counts: N - 2 offsets for N coordinates).
template <class F>
void with_coords_offsets(nb::handle coords, nb::handle offsets, F f) {
  with_coords(coords, [&](std::initializer_list<ptx::Operand> c) {
    with_operand_list(offsets, 0, "im2col offsets", [&](std::initializer_list<ptx::Operand> o) { f(c, o); });
  });
}

}  // namespace ptxpy
