// TMA: cp.async.bulk.tensor loads, stores and reductions (tile mode, 1 to 5 dimensions),
// their bulk groups and the async-proxy fence.
#pragma once

#include <initializer_list>

#include "ptxpp/dsl/hopper/mbarrier.hpp"
#include "ptxpp/dsl/kernel.hpp"
#include "ptxpp/dsl/operand.hpp"
#include "ptxpp/dsl/reg.hpp"
#include "ptxpp/dsl/source_location.hpp"

namespace ptx::hopper {

// Optional parts of a TMA load. multicast: a .b16 register with the ctaMask
// (.multicast::cluster); cache_hint: a .b64 cache policy (.L2::cache_hint, from createpolicy);
// guard: predicates the instruction.
struct TmaOptions {
  const Reg* guard = nullptr;
  const Reg* multicast = nullptr;
  const Reg* cache_hint = nullptr;
};

// One instruction:
//   cp.async.bulk.tensor.Nd.shared::cluster.global.tile.mbarrier::complete_tx::bytes[.multicast::cluster][.L2::cache_hint]
//       [dst], [map, {c0, ...}], [bar]{, ctaMask}{, policy};
// N = coords.size() (1 to 5, innermost first); `map` the descriptor's generic address
// (TensorMapParam::generic_address); dst a shared address (a buffer's addr(off) or ptx::addr).
void tma_load(const Operand& dst, const Reg& map, std::initializer_list<Operand> coords, const Mbarrier& bar,
              const TmaOptions& opt = {}, ptx::SourceLocation where = ptx::SourceLocation::current());
// cp.async.bulk.tensor.Nd.global.shared::cta.tile.bulk_group [map, {c0, ...}], [src];
void tma_store(const Reg& map, std::initializer_list<Operand> coords, const Operand& src, const Reg* guard = nullptr,
               ptx::SourceLocation where = ptx::SourceLocation::current());
// cp.reduce.async.bulk.tensor.Nd.global.shared::cta.add.tile.bulk_group [map, {c0, ...}], [src];
void tma_reduce_add(const Reg& map, std::initializer_list<Operand> coords, const Operand& src, const Reg* guard = nullptr,
                    ptx::SourceLocation where = ptx::SourceLocation::current());
// cp.async.bulk.commit_group;
void bulk_commit(ptx::SourceLocation where = ptx::SourceLocation::current());
// cp.async.bulk.wait_group n;  (read_only: cp.async.bulk.wait_group.read n; the sources may be reused)
void bulk_wait(int n, bool read_only = false, ptx::SourceLocation where = ptx::SourceLocation::current());
// fence.proxy.async.shared::cta;  (generic-proxy writes to shared memory become visible to TMA / wgmma)
void fence_proxy_async(ptx::SourceLocation where = ptx::SourceLocation::current());

}  // namespace ptx::hopper
