// ptx::Dim3: a grid, block or cluster shape (x, y, z; 1 where not given). The one
// dimension type of every layer: the DSL's launch shapes, the emulator's LaunchConfig
// (ptx::emu::Dim3 names the same type), the runtime's launches.
#pragma once

#include <cstdint>

namespace ptx {

struct Dim3 {
  uint32_t x = 1, y = 1, z = 1;
  Dim3() = default;
  Dim3(uint32_t x_, uint32_t y_ = 1, uint32_t z_ = 1) : x(x_), y(y_), z(z_) {}  // NOLINT: `.block(256)`
  friend bool operator==(const Dim3&, const Dim3&) = default;
};

}  // namespace ptx
