// A slice of one of the module's node pools.
#pragma once

#include <cstdint>

namespace ptx::ir {

struct Range {
  uint32_t first = 0;
  uint32_t count = 0;
  constexpr bool empty() const { return count == 0; }
  constexpr uint32_t end() const { return first + count; }
};

}  // namespace ptx::ir
