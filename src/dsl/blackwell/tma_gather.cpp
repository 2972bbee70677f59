#include "ptxpp/dsl/blackwell/tma_gather.hpp"

#include "../hopper/tma_emit.hpp"
#include "ptxpp/dsl/inst.hpp"

namespace ptx::blackwell {

void tma_load_gather4(const Operand& dst, const Reg& map, const Operand& col, const std::array<Operand, 4>& rows,
                      const hopper::Mbarrier& bar, const hopper::TmaOptions& opt, ptx::SourceLocation where) {
  hopper::detail::tma_load_mode("tma_load_gather4", 2, "tile::gather4", dst, map, {col, rows[0], rows[1], rows[2], rows[3]}, nullptr,
                                bar, opt, where);
}

void tma_store_scatter4(const Reg& map, const Operand& col, const std::array<Operand, 4>& rows, const Operand& src,
                        const hopper::TmaCacheOptions& opt, ptx::SourceLocation where) {
  hopper::detail::tma_to_global("tma_store_scatter4",
                                dsl::RuntimeChain(inst::cp.async.bulk.tensor._2d.global.shared_cta.tile_scatter4.bulk_group), map,
                                {col, rows[0], rows[1], rows[2], rows[3]}, src, opt, where);
}

}  // namespace ptx::blackwell
