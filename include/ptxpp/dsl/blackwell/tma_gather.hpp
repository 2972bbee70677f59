// TMA row gathers and scatters (sm_100a): four arbitrary rows of a 2-D tensor moved in one
// instruction, for the sparse rows of mixture-of-experts and paged layouts. The map is a 2-D
// tile map whose box is {columns, 1} wide per row (ptxas and the driver check its shape).
#pragma once

#include <array>

#include "ptxpp/dsl/hopper/tma.hpp"

namespace ptx::blackwell {

// cp.async.bulk.tensor.2d.shared::cluster.global.tile::gather4.mbarrier::complete_tx::bytes[.multicast::cluster][.L2::cache_hint]
//     [dst], [map, {col, row0, row1, row2, row3}], [bar]{, ctaMask}{, policy};
// The four rows land one after another at dst.
void tma_load_gather4(const Operand& dst, const Reg& map, const Operand& col, const std::array<Operand, 4>& rows,
                      const hopper::Mbarrier& bar, const hopper::TmaOptions& opt = {},
                      ptx::SourceLocation where = ptx::SourceLocation::current());
// cp.async.bulk.tensor.2d.global.shared::cta.tile::scatter4.bulk_group[.L2::cache_hint]
//     [map, {col, row0, row1, row2, row3}], [src]{, policy};
void tma_store_scatter4(const Reg& map, const Operand& col, const std::array<Operand, 4>& rows, const Operand& src,
                        const hopper::TmaCacheOptions& opt = {}, ptx::SourceLocation where = ptx::SourceLocation::current());

}  // namespace ptx::blackwell
