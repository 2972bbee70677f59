// The emitters behind the TMA helpers, shared with the Blackwell modes (tile::gather4,
// tile::scatter4): they check the operands and options and append one instruction.
#pragma once

#include <cstddef>
#include <initializer_list>
#include <string>
#include <string_view>

#include "ptxpp/dsl/runtime_chain.hpp"
#include "ptxpp/dsl/hopper/tma.hpp"

namespace ptx::hopper::detail {

// cp.async.bulk.tensor.{dims}d.shared::cluster.global.{mode}.mbarrier::complete_tx::bytes[.multicast::cluster]{cta_group}[.L2::cache_hint]
//     [dst], [map, {coords}], [bar]{, offsets}{, ctaMask}{, policy};
// (cta_group: "" or ".cta_group::2", the tcgen05 CTA pair's loads)
void tma_load_mode(const char* what, size_t dims, std::string_view mode, const Operand& dst, const Reg& map,
                   std::initializer_list<Operand> coords, const Operand* offsets, const Mbarrier& bar, const TmaOptions& opt,
                   ptx::SourceLocation where, std::string_view cta_group = "");
// MNEMONIC[.L2::cache_hint] [map, {coords}], [src]{, policy};  (stores and reductions)
void tma_to_global(const char* what, dsl::RuntimeChain mnemonic, const Reg& map, std::initializer_list<Operand> coords,
                   const Operand& src, const TmaCacheOptions& opt, ptx::SourceLocation where);

}  // namespace ptx::hopper::detail
