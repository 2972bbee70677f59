// TMA: cp.async.bulk.tensor loads (tile and im2col modes), stores, reductions and L2
// prefetches of 1 to 5 dimensions, their bulk groups and the async-proxy fence.
#pragma once

#include <cstdint>
#include <initializer_list>
#include <string_view>

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
// The same in im2col mode (3 to 5 dimensions): `coords` name the first pixel of the box
// (c, w{, h{, d}}, n innermost first) and `offsets` the filter offsets inside it, N - 2 16-bit
// values (registers or immediates):
//   cp.async.bulk.tensor.Nd.shared::cluster.global.im2col.mbarrier::complete_tx::bytes[.multicast::cluster][.L2::cache_hint]
//       [dst], [map, {c0, ...}], [bar], {o0, ...}{, ctaMask}{, policy};
// The map must be an im2col one (TensorMapSpec's im2col fields).
void tma_load_im2col(const Operand& dst, const Reg& map, std::initializer_list<Operand> coords,
                     std::initializer_list<Operand> offsets, const Mbarrier& bar, const TmaOptions& opt = {},
                     ptx::SourceLocation where = ptx::SourceLocation::current());

// Optional parts of the TMA instructions that complete without an mbarrier (stores,
// reductions, prefetches): guard predicates the instruction; cache_hint: a .b64 cache policy
// (.L2::cache_hint, from createpolicy).
struct TmaCacheOptions {
  const Reg* guard = nullptr;
  const Reg* cache_hint = nullptr;
};

// cp.async.bulk.tensor.Nd.global.shared::cta.tile.bulk_group[.L2::cache_hint] [map, {c0, ...}], [src]{, policy};
void tma_store(const Reg& map, std::initializer_list<Operand> coords, const Operand& src, const TmaCacheOptions& opt,
               ptx::SourceLocation where = ptx::SourceLocation::current());
void tma_store(const Reg& map, std::initializer_list<Operand> coords, const Operand& src, const Reg* guard = nullptr,
               ptx::SourceLocation where = ptx::SourceLocation::current());

// The element-wise operation of a TMA reduction into global memory: every one of them for
// integer maps; add, min and max for floating-point ones (ptxas takes any; the map's type
// decides, at run time).
enum class TmaReduceOp : uint8_t { add, min, max, inc, dec, bit_and, bit_or, bit_xor };
// ".add", ".min", ..., ".and", ".or", ".xor"
std::string_view reduce_op_modifier(TmaReduceOp op);
// cp.reduce.async.bulk.tensor.Nd.global.shared::cta.OP.tile.bulk_group[.L2::cache_hint] [map, {c0, ...}], [src]{, policy};
void tma_reduce(TmaReduceOp op, const Reg& map, std::initializer_list<Operand> coords, const Operand& src,
                const TmaCacheOptions& opt = {}, ptx::SourceLocation where = ptx::SourceLocation::current());
// tma_reduce(TmaReduceOp::add, ...) with a guard.
void tma_reduce_add(const Reg& map, std::initializer_list<Operand> coords, const Operand& src, const Reg* guard = nullptr,
                    ptx::SourceLocation where = ptx::SourceLocation::current());

// Brings a box into L2 ahead of its load (no shared memory, no completion to wait for):
//   cp.async.bulk.prefetch.tensor.Nd.L2.global.tile[.L2::cache_hint] [map, {c0, ...}]{, policy};
void tma_prefetch(const Reg& map, std::initializer_list<Operand> coords, const TmaCacheOptions& opt = {},
                  ptx::SourceLocation where = ptx::SourceLocation::current());
//   cp.async.bulk.prefetch.tensor.Nd.L2.global.im2col[.L2::cache_hint] [map, {c0, ...}], {o0, ...}{, policy};
void tma_prefetch_im2col(const Reg& map, std::initializer_list<Operand> coords, std::initializer_list<Operand> offsets,
                         const TmaCacheOptions& opt = {}, ptx::SourceLocation where = ptx::SourceLocation::current());
// cp.async.bulk.commit_group;
void bulk_commit(ptx::SourceLocation where = ptx::SourceLocation::current());
// cp.async.bulk.wait_group n;  (read_only: cp.async.bulk.wait_group.read n; the sources may be reused)
void bulk_wait(int n, bool read_only = false, ptx::SourceLocation where = ptx::SourceLocation::current());
// fence.proxy.async.shared::cta;  (generic-proxy writes to shared memory become visible to TMA / wgmma)
void fence_proxy_async(ptx::SourceLocation where = ptx::SourceLocation::current());

}  // namespace ptx::hopper
