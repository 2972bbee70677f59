#include "ptxpp/dsl/ampere/cp_async.hpp"

#include <fmt/format.h>

#include "../trace.hpp"
#include "ptxpp/dsl/error.hpp"
#include "ptxpp/dsl/inst.hpp"

namespace ptx::ampere {

using dsl::Trace;

void cp_async_16(const Operand& dst_shared, const Operand& src_global, const Reg* guard, ptx::SourceLocation where) {
  Trace& t = Trace::current(where);
  if (dst_shared.kind != OperandKind::Addr || src_global.kind != OperandKind::Addr)
    throw Error("cp_async_16 takes two addresses (ptx::addr or a shared buffer's addr())", where);
  if (guard) {
    t.check_reg(*guard, where);
    if (guard->type() != DType::pred) throw Error("cp_async_16: the guard must be a predicate", where);
  }
  const Operand ops[] = {dst_shared, src_global, Operand(16)};
  if (guard) {
    const Operand g(*guard);
    t.emit(inst::cp.async.cg.shared.global, ops, where, &g);
  } else {
    t.emit(inst::cp.async.cg.shared.global, ops, where);
  }
}

void cp_async_commit(ptx::SourceLocation where) {
  Trace::current(where).emit(inst::cp.async.commit_group, {}, where);
}

void cp_async_wait(int n, ptx::SourceLocation where) {
  Trace& t = Trace::current(where);
  if (n < 0) throw Error(fmt::format("cp.async.wait_group {}: the count is negative", n), where);
  const Operand ops[] = {Operand(n)};
  t.emit(inst::cp.async.wait_group, ops, where);
}

void cp_async_wait_all(ptx::SourceLocation where) { Trace::current(where).emit(inst::cp.async.wait_all, {}, where); }

CpAsyncRing::CpAsyncRing(int stages, uint64_t stage_bytes, ptx::SourceLocation where)
    : stages_(stages), stage_bytes_(stage_bytes) {
  if (stages < 2) throw Error(fmt::format("a cp.async ring needs at least 2 stages, not {}", stages), where);
  if (stage_bytes == 0 || stage_bytes % 16 != 0)
    throw Error(fmt::format("a cp.async ring's stage size {} is not a positive multiple of 16 bytes", stage_bytes), where);
}

void CpAsyncRing::commit(ptx::SourceLocation where) {
  if (in_flight() >= stages_)
    throw Error(fmt::format("cp.async ring: all {} stages hold unreleased tiles; release() one before the next commit()", stages_),
                where);
  cp_async_commit(where);
  ++committed_;
}

void CpAsyncRing::wait(ptx::SourceLocation where) {
  if (in_flight() <= 0) throw Error("cp.async ring: wait() with no group in flight", where);
  cp_async_wait(static_cast<int>(in_flight() - 1), where);
}

void CpAsyncRing::release(ptx::SourceLocation where) {
  if (in_flight() <= 0) throw Error("cp.async ring: release() with no group in flight", where);
  ++released_;
}

}  // namespace ptx::ampere
