#include "ptxpp/dsl/hopper/mbarrier.hpp"

#include <fmt/format.h>

#include "../trace.hpp"
#include "ptxpp/dsl/control.hpp"
#include "ptxpp/dsl/error.hpp"
#include "ptxpp/dsl/inst.hpp"
#include "ptxpp/dsl/instruction_call.hpp"
#include "ptxpp/dsl/label.hpp"
#include "ptxpp/dsl/listing.hpp"

namespace ptx::hopper {

using dsl::Trace;

namespace {

// mnemonic: a chain of ptx::inst, complete or continued at run time (ptxpp/dsl/runtime_chain.hpp)
template <class Mnemonic>
void emit(const Mnemonic& mnemonic, std::span<const Operand> ops, const Reg* guard, ptx::SourceLocation where) {
  Trace& t = Trace::current(where);
  if (guard) {
    t.check_reg(*guard, where);
    if (guard->type() != DType::pred) throw Error(fmt::format("{}: the guard must be a predicate", dsl::text_of(mnemonic)), where);
    const Operand g = dsl::detail::guard_operand(*guard, false);
    t.emit(mnemonic, ops, where, &g);
  } else {
    t.emit(mnemonic, ops, where);
  }
}

}  // namespace

Mbarrier::Mbarrier(Operand shared_addr, ptx::SourceLocation where) : addr_(shared_addr) {
  if (shared_addr.kind != OperandKind::Addr)
    throw Error("an mbarrier is at a shared address (a buffer's addr(off) or ptx::addr(reg, off))", where);
}

void Mbarrier::init(uint32_t count, const Reg* guard, ptx::SourceLocation where) const {
  if (count == 0 || count > (1u << 20) - 1)
    throw Error(fmt::format("mbarrier.init: the expected arrival count {} is not in 1 .. 2^20-1", count), where);
  const Operand ops[] = {addr_, Operand(count)};
  emit(inst::mbarrier.init.shared_cta.b64, ops, guard, where);
}

void Mbarrier::arrive(const Reg* guard, ptx::SourceLocation where) const {
  const Operand ops[] = {to_operand(_), addr_};
  emit(inst::mbarrier.arrive.shared_cta.b64, ops, guard, where);
}

void Mbarrier::arrive_cluster(const Reg* guard, ptx::SourceLocation where) const {
  const Operand ops[] = {to_operand(_), addr_};
  emit(inst::mbarrier.arrive.release.cluster.shared_cluster.b64, ops, guard, where);
}

void Mbarrier::arrive_expect_tx(uint32_t bytes, const Reg* guard, ptx::SourceLocation where) const {
  if (bytes > (1u << 20) - 1) throw Error(fmt::format("mbarrier expect_tx: {} bytes is over the 2^20-1 limit", bytes), where);
  const Operand ops[] = {to_operand(_), addr_, Operand(bytes)};
  emit(inst::mbarrier.arrive.expect_tx.shared_cta.b64, ops, guard, where);
}

void Mbarrier::expect_tx(uint32_t bytes, const Reg* guard, ptx::SourceLocation where) const {
  if (bytes > (1u << 20) - 1) throw Error(fmt::format("mbarrier expect_tx: {} bytes is over the 2^20-1 limit", bytes), where);
  const Operand ops[] = {addr_, Operand(bytes)};
  emit(inst::mbarrier.expect_tx.shared_cta.b64, ops, guard, where);
}

void Mbarrier::wait(const Operand& phase, ptx::SourceLocation where) const {
  if (phase.kind != OperandKind::Imm && phase.kind != OperandKind::Reg) {
    throw Error("mbarrier wait: the phase parity is a 32-bit register or 0/1", where);
  }
  Trace& t = Trace::current(where);
  Label top("mbar_wait", where);
  Reg p(DType::pred, {}, where);
  listing::repeat_until(
      top, p,
      [&] {
        const Operand ops[] = {p, addr_, phase};
        t.emit(inst::mbarrier.try_wait.parity.shared_cta.b64, ops, where);
      },
      false, where);
}

void fence_mbarrier_init(ptx::SourceLocation where) {
  Trace::current(where).emit(inst::fence.mbarrier_init.release.cluster, {}, where);
}

Reg map_shared_rank(const Reg& addr, const Operand& rank, ptx::SourceLocation where) {
  Trace& t = Trace::current(where);
  t.check_reg(addr, where);
  if (bits(addr.type()) != 32 || addr.type() == DType::f32)
    throw Error("map_shared_rank: the shared address is a 32-bit integer register", where);
  Reg d(DType::u32, {}, where);
  const Operand ops[] = {d, addr, rank};
  t.emit(inst::mapa.shared_cluster.u32, ops, where);
  return d;
}

void cluster_sync(ptx::SourceLocation where) {
  Trace& t = Trace::current(where);
  t.emit(inst::barrier.cluster.arrive.release.aligned, {}, where);
  t.emit(inst::barrier.cluster.wait.acquire.aligned, {}, where);
}

Pipeline::Pipeline(const smem::Buffer& barriers, int stages, ptx::SourceLocation where) : buf_(barriers), stages_(stages) {
  if (stages < 1 || stages > 64) throw Error(fmt::format("a pipeline has 1 to 64 stages, not {}", stages), where);
  if (barriers.bytes() < 16u * static_cast<uint64_t>(stages))
    throw Error(fmt::format("a {}-stage pipeline needs {} bytes of mbarriers; the buffer has {}", stages, 16 * stages,
                            barriers.bytes()),
                where);
}

Mbarrier Pipeline::full(int stage, ptx::SourceLocation where) const {
  if (stage < 0 || stage >= stages_) throw Error(fmt::format("pipeline stage {} of {}", stage, stages_), where);
  return Mbarrier(buf_.addr(8 * stage, where), where);
}

Mbarrier Pipeline::empty(int stage, ptx::SourceLocation where) const {
  if (stage < 0 || stage >= stages_) throw Error(fmt::format("pipeline stage {} of {}", stage, stages_), where);
  return Mbarrier(buf_.addr(8 * (stages_ + stage), where), where);
}

void Pipeline::init(uint32_t full_count, uint32_t empty_count, const Reg* guard, ptx::SourceLocation where) const {
  for (int s = 0; s < stages_; ++s) {
    full(s, where).init(full_count, guard, where);
    empty(s, where).init(empty_count, guard, where);
  }
  fence_mbarrier_init(where);
}

PipelineState::PipelineState(const Pipeline& p, uint32_t initial_phase, ptx::SourceLocation where)
    : p_(&p), phase_(DType::b32, {}, where) {
  if (initial_phase > 1) throw Error(fmt::format("a phase parity is 0 or 1, not {}", initial_phase), where);
  const Operand ops[] = {phase_, Operand(initial_phase)};
  Trace::current(where).emit(inst::mov.b32, ops, where);
}

void PipelineState::wait_full(ptx::SourceLocation where) const { p_->full(stage_, where).wait(phase_, where); }
void PipelineState::wait_empty(ptx::SourceLocation where) const { p_->empty(stage_, where).wait(phase_, where); }

void PipelineState::advance(ptx::SourceLocation where) {
  if (++stage_ < p_->stages()) return;
  stage_ = 0;
  const Operand ops[] = {phase_, phase_, Operand(1)};
  Trace::current(where).emit(inst::xor_.b32, ops, where);
}

}  // namespace ptx::hopper
