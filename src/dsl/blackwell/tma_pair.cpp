#include "ptxpp/dsl/blackwell/tma_pair.hpp"

#include <fmt/format.h>

#include "../hopper/tma_emit.hpp"
#include "ptxpp/dsl/error.hpp"

namespace ptx::blackwell {

void tma_load_pair(const Operand& dst, const Reg& map, std::initializer_list<Operand> coords, const hopper::Mbarrier& bar,
                   const Reg* guard, ptx::SourceLocation where) {
  if (coords.size() < 1 || coords.size() > 5)
    throw Error(fmt::format("tma_load_pair: a tensor has 1 to 5 coordinates, not {}", coords.size()), where);
  hopper::detail::tma_load_mode("tma_load_pair", coords.size(), "tile", dst, map, coords, nullptr, bar,
                                hopper::TmaOptions{.guard = guard}, where, ".cta_group::2");
}

}  // namespace ptx::blackwell
