// TMA tile loads for a CTA pair (tcgen05 .cta_group::2 kernels): the completion may be signaled
// on an mbarrier of the peer CTA (the pair's leader), which plain cp.async.bulk.tensor forbids.
#pragma once

#include <initializer_list>

#include "ptxpp/dsl/hopper/mbarrier.hpp"
#include "ptxpp/dsl/operand.hpp"
#include "ptxpp/dsl/reg.hpp"
#include "ptxpp/dsl/source_location.hpp"

namespace ptx::blackwell {

// One instruction:
//   cp.async.bulk.tensor.Nd.shared::cluster.global.tile.mbarrier::complete_tx::bytes.cta_group::2
//       [dst], [map, {c0, ...}], [bar];
// dst: this CTA's shared memory; bar: an mbarrier of this CTA or of its peer (an address from
// hopper::map_shared_rank); map: the descriptor's generic address; 1 to 5 coordinates.
void tma_load_pair(const Operand& dst, const Reg& map, std::initializer_list<Operand> coords, const hopper::Mbarrier& bar,
                   const Reg* guard = nullptr, ptx::SourceLocation where = ptx::SourceLocation::current());

}  // namespace ptx::blackwell
