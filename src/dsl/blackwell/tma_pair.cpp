#include "ptxpp/dsl/blackwell/tma_pair.hpp"

#include <vector>

#include <fmt/format.h>

#include "emit.hpp"
#include "ptxpp/dsl/error.hpp"
#include "ptxpp/dsl/kernel.hpp"

namespace ptx::blackwell {

void tma_load_pair(const Operand& dst, const Reg& map, std::initializer_list<Operand> coords, const hopper::Mbarrier& bar,
                   const Reg* guard, ptx::SourceLocation where) {
  if (coords.size() < 1 || coords.size() > 5)
    throw Error(fmt::format("tma_load_pair: a tensor has 1 to 5 coordinates, not {}", coords.size()), where);
  if (dst.kind != OperandKind::Addr) throw Error("tma_load_pair: the destination is a shared address", where);
  const Operand ops[] = {dst, tensor_coords(map, coords, where), bar.addr()};
  detail::emit(
      fmt::format("cp.async.bulk.tensor.{}d.shared::cluster.global.tile.mbarrier::complete_tx::bytes.cta_group::2", coords.size()),
      ops, guard, where);
}

}  // namespace ptx::blackwell
