#include "ptxpp/dsl/hopper/tma.hpp"

#include <span>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "../trace.hpp"
#include "ptxpp/dsl/error.hpp"
#include "ptxpp/dsl/inst.hpp"
#include "ptxpp/dsl/instruction_call.hpp"
#include "tma_emit.hpp"

namespace ptx::hopper {

using dsl::Trace;

namespace {

void check_pred(const Reg* r, const char* what, ptx::SourceLocation where) {
  if (!r) return;
  Trace::current(where).check_reg(*r, where);
  if (r->type() != DType::pred) throw Error(fmt::format("{}: the guard must be a predicate", what), where);
}

void emit(const dsl::RuntimeChain& mnemonic, std::span<const Operand> ops, const Reg* guard, ptx::SourceLocation where) {
  Trace& t = Trace::current(where);
  check_pred(guard, mnemonic.text().c_str(), where);
  if (guard) {
    const Operand g = dsl::detail::guard_operand(*guard, false);
    t.emit(mnemonic, ops, where, &g);
  } else {
    t.emit(mnemonic, ops, where);
  }
}

size_t rank_of(std::initializer_list<Operand> coords, const char* what, ptx::SourceLocation where) {
  if (coords.size() < 1 || coords.size() > 5)
    throw Error(fmt::format("{}: a tensor has 1 to 5 coordinates, not {}", what, coords.size()), where);
  return coords.size();
}

// .L2::cache_hint: the suffix and the 64-bit policy operand.
void add_cache_hint(const Reg* policy, const char* what, dsl::RuntimeChain& m, std::vector<Operand>& ops, ptx::SourceLocation where) {
  if (!policy) return;
  Trace::current(where).check_reg(*policy, where);
  if (bits(policy->type()) != 64) throw Error(fmt::format("{}: the L2 cache policy is a 64-bit register", what), where);
  m.then(".L2::cache_hint", where);
  ops.push_back(*policy);
}

// .multicast::cluster, a CTA group, .L2::cache_hint on a load (in the ISA's order): their
// suffixes and operands.
void add_load_options(const TmaOptions& opt, std::string_view cta_group, const char* what, dsl::RuntimeChain& m, std::vector<Operand>& ops,
                      ptx::SourceLocation where) {
  Trace& t = Trace::current(where);
  if (opt.multicast) {
    t.check_reg(*opt.multicast, where);
    if (bits(opt.multicast->type()) != 16) throw Error(fmt::format("{}: the multicast ctaMask is a 16-bit register", what), where);
    m.then(".multicast::cluster", where);
    ops.push_back(*opt.multicast);
  }
  m.then(cta_group, where);
  add_cache_hint(opt.cache_hint, what, m, ops, where);
}

// {o0, ...}: the im2col offsets, N - 2 of them for N coordinates, each a 16-bit register or
// an immediate in 0..65535.
Operand im2col_offsets(size_t rank, std::initializer_list<Operand> offsets, const char* what, ptx::SourceLocation where) {
  if (rank < 3) throw Error(fmt::format("{}: im2col needs 3 to 5 coordinates, not {}", what, rank), where);
  if (offsets.size() != rank - 2)
    throw Error(fmt::format("{}: {} coordinates take {} im2col offsets, not {}", what, rank, rank - 2, offsets.size()), where);
  const Trace& t = Trace::current(where);
  for (const Operand& o : offsets) {
    if (o.kind == OperandKind::Reg) {
      if (bits(o.type) != 16 || is_float(o.type))
        throw Error(fmt::format("{}: an im2col offset is a 16-bit integer register, not {}", what, name(o.type)), where);
    } else if (o.kind == OperandKind::Imm) {
      const ir::Expr& e = t.m.expr(o.expr);
      if (e.kind != ir::ExprKind::Int || e.value > 0xFFFF)
        throw Error(fmt::format("{}: an im2col offset immediate is an integer in 0..65535", what), where);
    } else {
      throw Error(fmt::format("{}: an im2col offset is a 16-bit register or an immediate", what), where);
    }
  }
  return ptx::vec(std::span<const Operand>(offsets.begin(), offsets.size()));
}

}  // namespace

namespace detail {

void tma_load_mode(const char* what, size_t dims, std::string_view mode, const Operand& dst, const Reg& map,
                   std::initializer_list<Operand> coords, const Operand* offsets, const Mbarrier& bar, const TmaOptions& opt,
                   ptx::SourceLocation where, std::string_view cta_group) {
  if (dst.kind != OperandKind::Addr) throw Error(fmt::format("{}: the destination is a shared address", what), where);
  dsl::RuntimeChain m(inst::cp.async.bulk.tensor);
  m.then(fmt::format(".{}d.shared::cluster.global.{}.mbarrier::complete_tx::bytes", dims, mode), where);
  std::vector<Operand> ops = {dst, tensor_coords(map, coords, where), bar.addr()};
  if (offsets) ops.push_back(*offsets);
  add_load_options(opt, cta_group, what, m, ops, where);
  emit(m, ops, opt.guard, where);
}

// A store or reduction: MNEMONIC[.L2::cache_hint] [map, {c0, ...}], [src]{, policy};
void tma_to_global(const char* what, dsl::RuntimeChain m, const Reg& map, std::initializer_list<Operand> coords,
                   const Operand& src, const TmaCacheOptions& opt, ptx::SourceLocation where) {
  if (src.kind != OperandKind::Addr) throw Error(fmt::format("{}: the source is a shared address", what), where);
  std::vector<Operand> ops = {tensor_coords(map, coords, where), src};
  add_cache_hint(opt.cache_hint, what, m, ops, where);
  emit(m, ops, opt.guard, where);
}

}  // namespace detail

namespace {

void tma_prefetch_mode(const char* what, const char* mode, const Reg& map, std::initializer_list<Operand> coords,
                       const Operand* offsets, const TmaCacheOptions& opt, ptx::SourceLocation where) {
  const size_t n = rank_of(coords, what, where);
  dsl::RuntimeChain m(inst::cp.async.bulk.prefetch.tensor);
  m.then(fmt::format(".{}d.L2.global.{}", n, mode), where);
  std::vector<Operand> ops = {tensor_coords(map, coords, where)};
  if (offsets) ops.push_back(*offsets);
  add_cache_hint(opt.cache_hint, what, m, ops, where);
  emit(m, ops, opt.guard, where);
}

}  // namespace

void tma_load(const Operand& dst, const Reg& map, std::initializer_list<Operand> coords, const Mbarrier& bar,
              const TmaOptions& opt, ptx::SourceLocation where) {
  detail::tma_load_mode("tma_load", rank_of(coords, "tma_load", where), "tile", dst, map, coords, nullptr, bar, opt, where);
}

void tma_load_im2col(const Operand& dst, const Reg& map, std::initializer_list<Operand> coords,
                     std::initializer_list<Operand> offsets, const Mbarrier& bar, const TmaOptions& opt, ptx::SourceLocation where) {
  const size_t n = rank_of(coords, "tma_load_im2col", where);
  const Operand o = im2col_offsets(n, offsets, "tma_load_im2col", where);
  detail::tma_load_mode("tma_load_im2col", n, "im2col", dst, map, coords, &o, bar, opt, where);
}

void tma_store(const Reg& map, std::initializer_list<Operand> coords, const Operand& src, const TmaCacheOptions& opt,
               ptx::SourceLocation where) {
  const size_t n = rank_of(coords, "tma_store", where);
  dsl::RuntimeChain m(inst::cp.async.bulk.tensor);
  m.then(fmt::format(".{}d.global.shared::cta.tile.bulk_group", n), where);
  detail::tma_to_global("tma_store", std::move(m), map, coords, src, opt, where);
}

void tma_store(const Reg& map, std::initializer_list<Operand> coords, const Operand& src, const Reg* guard,
               ptx::SourceLocation where) {
  tma_store(map, coords, src, TmaCacheOptions{.guard = guard}, where);
}

std::string_view reduce_op_modifier(TmaReduceOp op) {
  switch (op) {
    case TmaReduceOp::add: return ".add";
    case TmaReduceOp::min: return ".min";
    case TmaReduceOp::max: return ".max";
    case TmaReduceOp::inc: return ".inc";
    case TmaReduceOp::dec: return ".dec";
    case TmaReduceOp::bit_and: return ".and";
    case TmaReduceOp::bit_or: return ".or";
    case TmaReduceOp::bit_xor: return ".xor";
  }
  return "";
}

void tma_reduce(TmaReduceOp op, const Reg& map, std::initializer_list<Operand> coords, const Operand& src,
                const TmaCacheOptions& opt, ptx::SourceLocation where) {
  const size_t n = rank_of(coords, "tma_reduce", where);
  if (reduce_op_modifier(op).empty()) throw Error("tma_reduce: not a TmaReduceOp", where);
  dsl::RuntimeChain m(inst::cp.reduce.async.bulk.tensor);
  m.then(fmt::format(".{}d.global.shared::cta{}.tile.bulk_group", n, reduce_op_modifier(op)), where);
  detail::tma_to_global("tma_reduce", std::move(m), map, coords, src, opt, where);
}

void tma_reduce_add(const Reg& map, std::initializer_list<Operand> coords, const Operand& src, const Reg* guard,
                    ptx::SourceLocation where) {
  tma_reduce(TmaReduceOp::add, map, coords, src, TmaCacheOptions{.guard = guard}, where);
}

void tma_prefetch(const Reg& map, std::initializer_list<Operand> coords, const TmaCacheOptions& opt, ptx::SourceLocation where) {
  tma_prefetch_mode("tma_prefetch", "tile", map, coords, nullptr, opt, where);
}

void tma_prefetch_im2col(const Reg& map, std::initializer_list<Operand> coords, std::initializer_list<Operand> offsets,
                         const TmaCacheOptions& opt, ptx::SourceLocation where) {
  const Operand o = im2col_offsets(rank_of(coords, "tma_prefetch_im2col", where), offsets, "tma_prefetch_im2col", where);
  tma_prefetch_mode("tma_prefetch_im2col", "im2col", map, coords, &o, opt, where);
}

void bulk_commit(ptx::SourceLocation where) { Trace::current(where).emit(inst::cp.async.bulk.commit_group, {}, where); }

void bulk_wait(int n, bool read_only, ptx::SourceLocation where) {
  if (n < 0) throw Error(fmt::format("cp.async.bulk.wait_group {}: the count is negative", n), where);
  const Operand ops[] = {Operand(n)};
  if (read_only)
    Trace::current(where).emit(inst::cp.async.bulk.wait_group.read, ops, where);
  else
    Trace::current(where).emit(inst::cp.async.bulk.wait_group, ops, where);
}

void fence_proxy_async(ptx::SourceLocation where) {
  Trace::current(where).emit(inst::fence.proxy.async.shared_cta, {}, where);
}

}  // namespace ptx::hopper
