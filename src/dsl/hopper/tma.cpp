#include "ptxpp/dsl/hopper/tma.hpp"

#include <string>

#include <fmt/format.h>

#include "../trace.hpp"
#include "ptxpp/dsl/error.hpp"
#include "ptxpp/dsl/instruction_call.hpp"

namespace ptx::hopper {

using dsl::Trace;

namespace {

void check_pred(const Reg* r, const char* what, ptx::SourceLocation where) {
  if (!r) return;
  Trace::current(where).check_reg(*r, where);
  if (r->type() != DType::pred) throw Error(fmt::format("{}: the guard must be a predicate", what), where);
}

void emit(const std::string& mnemonic, std::span<const Operand> ops, const Reg* guard, ptx::SourceLocation where) {
  Trace& t = Trace::current(where);
  check_pred(guard, mnemonic.c_str(), where);
  if (guard) {
    const Operand g = dsl::detail::guard_operand(*guard, false);
    t.emit_text(mnemonic, ops, where, &g);
  } else {
    t.emit_text(mnemonic, ops, where);
  }
}

size_t rank_of(std::initializer_list<Operand> coords, const char* what, ptx::SourceLocation where) {
  if (coords.size() < 1 || coords.size() > 5)
    throw Error(fmt::format("{}: a tensor has 1 to 5 coordinates, not {}", what, coords.size()), where);
  return coords.size();
}

}  // namespace

void tma_load(const Operand& dst, const Reg& map, std::initializer_list<Operand> coords, const Mbarrier& bar,
              const TmaOptions& opt, ptx::SourceLocation where) {
  const size_t n = rank_of(coords, "tma_load", where);
  if (dst.kind != OperandKind::Addr) throw Error("tma_load: the destination is a shared address", where);
  Trace& t = Trace::current(where);
  std::string m = fmt::format("cp.async.bulk.tensor.{}d.shared::cluster.global.tile.mbarrier::complete_tx::bytes", n);
  std::vector<Operand> ops = {dst, tensor_coords(map, coords, where), bar.addr()};
  if (opt.multicast) {
    t.check_reg(*opt.multicast, where);
    if (bits(opt.multicast->type()) != 16) throw Error("tma_load: the multicast ctaMask is a 16-bit register", where);
    m += ".multicast::cluster";
    ops.push_back(*opt.multicast);
  }
  if (opt.cache_hint) {
    t.check_reg(*opt.cache_hint, where);
    if (bits(opt.cache_hint->type()) != 64) throw Error("tma_load: the L2 cache policy is a 64-bit register", where);
    m += ".L2::cache_hint";
    ops.push_back(*opt.cache_hint);
  }
  emit(m, ops, opt.guard, where);
}

void tma_store(const Reg& map, std::initializer_list<Operand> coords, const Operand& src, const Reg* guard,
               ptx::SourceLocation where) {
  const size_t n = rank_of(coords, "tma_store", where);
  if (src.kind != OperandKind::Addr) throw Error("tma_store: the source is a shared address", where);
  const Operand ops[] = {tensor_coords(map, coords, where), src};
  emit(fmt::format("cp.async.bulk.tensor.{}d.global.shared::cta.tile.bulk_group", n), ops, guard, where);
}

void tma_reduce_add(const Reg& map, std::initializer_list<Operand> coords, const Operand& src, const Reg* guard,
                    ptx::SourceLocation where) {
  const size_t n = rank_of(coords, "tma_reduce_add", where);
  if (src.kind != OperandKind::Addr) throw Error("tma_reduce_add: the source is a shared address", where);
  const Operand ops[] = {tensor_coords(map, coords, where), src};
  emit(fmt::format("cp.reduce.async.bulk.tensor.{}d.global.shared::cta.add.tile.bulk_group", n), ops, guard, where);
}

void bulk_commit(ptx::SourceLocation where) { Trace::current(where).emit_text("cp.async.bulk.commit_group", {}, where); }

void bulk_wait(int n, bool read_only, ptx::SourceLocation where) {
  if (n < 0) throw Error(fmt::format("cp.async.bulk.wait_group {}: the count is negative", n), where);
  const Operand ops[] = {Operand(n)};
  Trace::current(where).emit_text(read_only ? "cp.async.bulk.wait_group.read" : "cp.async.bulk.wait_group", ops, where);
}

void fence_proxy_async(ptx::SourceLocation where) {
  Trace::current(where).emit_text("fence.proxy.async.shared::cta", {}, where);
}

}  // namespace ptx::hopper
