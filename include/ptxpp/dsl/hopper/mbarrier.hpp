// mbarrier objects in shared memory and an N-stage pipeline of full/empty mbarriers.
#pragma once

#include <cstdint>

#include "ptxpp/dsl/operand.hpp"
#include "ptxpp/dsl/reg.hpp"
#include "ptxpp/dsl/smem.hpp"
#include "ptxpp/dsl/source_location.hpp"

namespace ptx::hopper {

// An mbarrier (8 bytes, 8-byte aligned) at a shared address: a buffer's addr(off)
// (`[smem+off]`) or ptx::addr(u32 reg, off). Each method emits the instructions listed;
// `guard` predicates the single instruction (`@p mbarrier.init...`).
class Mbarrier {
 public:
  explicit Mbarrier(Operand shared_addr, ptx::SourceLocation where = ptx::SourceLocation::current());
  const Operand& addr() const { return addr_; }

  // mbarrier.init.shared::cta.b64 [addr], count;
  void init(uint32_t count, const Reg* guard = nullptr, ptx::SourceLocation where = ptx::SourceLocation::current()) const;
  // mbarrier.arrive.shared::cta.b64 _, [addr];
  void arrive(const Reg* guard = nullptr, ptx::SourceLocation where = ptx::SourceLocation::current()) const;
  // mbarrier.arrive.expect_tx.shared::cta.b64 _, [addr], bytes;
  void arrive_expect_tx(uint32_t bytes, const Reg* guard = nullptr,
                        ptx::SourceLocation where = ptx::SourceLocation::current()) const;
  // mbarrier.expect_tx.shared::cta.b64 [addr], bytes;
  void expect_tx(uint32_t bytes, const Reg* guard = nullptr, ptx::SourceLocation where = ptx::SourceLocation::current()) const;
  // For an mbarrier of another CTA of the cluster (an address from map_shared_rank):
  // mbarrier.arrive.release.cluster.shared::cluster.b64 _, [addr];
  void arrive_cluster(const Reg* guard = nullptr, ptx::SourceLocation where = ptx::SourceLocation::current()) const;
  // The canonical spin on the phase with parity `phase` (a .b32/.u32 register or 0/1):
  //   $L__mbar_wait_N:
  //   mbarrier.try_wait.parity.shared::cta.b64 %p, [addr], phase;
  //   @!%p bra $L__mbar_wait_N;
  // (ptx::listing::repeat_until; two instructions and a label). A fresh barrier is in phase
  // 0: wait(0) returns once it completes, wait(1) at once (the "previous" phase).
  void wait(const Operand& phase, ptx::SourceLocation where = ptx::SourceLocation::current()) const;

 private:
  Operand addr_;
};

// fence.mbarrier_init.release.cluster;  (makes mbarrier.init visible to the async proxy / the cluster)
void fence_mbarrier_init(ptx::SourceLocation where = ptx::SourceLocation::current());

// mapa.shared::cluster.u32 d, addr, rank;  the same shared address in the CTA of that rank of
// the cluster (addr: a 32-bit shared-window register; rank: a register or an immediate).
Reg map_shared_rank(const Reg& addr, const Operand& rank, ptx::SourceLocation where = ptx::SourceLocation::current());
// barrier.cluster.arrive.release.aligned;  barrier.cluster.wait.acquire.aligned;  (every thread
// of every CTA of the cluster; two instructions)
void cluster_sync(ptx::SourceLocation where = ptx::SourceLocation::current());

// `stages` full and `stages` empty mbarriers in a shared buffer of at least 16 * stages
// bytes (8-byte aligned): full(s) at byte 8s, empty(s) at byte 8(stages + s). The
// producer waits on empty(s), then fills stage s and its transactions complete full(s);
// the consumer waits on full(s), computes, then arrives on empty(s).
class Pipeline {
 public:
  Pipeline(const smem::Buffer& barriers, int stages, ptx::SourceLocation where = ptx::SourceLocation::current());
  int stages() const { return stages_; }
  Mbarrier full(int stage, ptx::SourceLocation where = ptx::SourceLocation::current()) const;
  Mbarrier empty(int stage, ptx::SourceLocation where = ptx::SourceLocation::current()) const;
  // For s in 0..stages-1: `@guard mbarrier.init.shared::cta.b64 [full(s)], full_count;`
  // `@guard mbarrier.init.shared::cta.b64 [empty(s)], empty_count;`, then one
  // `fence.mbarrier_init.release.cluster;` (2 * stages + 1 instructions). Put a barrier
  // (bar.sync / barrier.cluster) after it before any thread uses the mbarriers.
  void init(uint32_t full_count, uint32_t empty_count, const Reg* guard,
            ptx::SourceLocation where = ptx::SourceLocation::current()) const;

 private:
  smem::Buffer buf_;
  int stages_;
};

// One side's position in a Pipeline: the stage is a trace-time value, the phase parity a
// run-time `.b32` register. The constructor emits `mov.b32 %phase, initial;`. The
// consumer starts at phase 0 (it waits for the first fill of each stage); the producer at
// phase 1 (its first wait on each empty stage returns at once).
// advance() moves to the next stage; after the last stage it emits `xor.b32 %phase, %phase, 1;`
// and goes back to stage 0. In a run-time loop, trace a body that advances a multiple of
// stages() times: the stage is then the same at the start of every iteration.
class PipelineState {
 public:
  PipelineState(const Pipeline& p, uint32_t initial_phase, ptx::SourceLocation where = ptx::SourceLocation::current());
  int stage() const { return stage_; }
  const Reg& phase() const { return phase_; }
  // full(stage()).wait(phase())  /  empty(stage()).wait(phase())
  void wait_full(ptx::SourceLocation where = ptx::SourceLocation::current()) const;
  void wait_empty(ptx::SourceLocation where = ptx::SourceLocation::current()) const;
  Mbarrier full(ptx::SourceLocation where = ptx::SourceLocation::current()) const { return p_->full(stage_, where); }
  Mbarrier empty(ptx::SourceLocation where = ptx::SourceLocation::current()) const { return p_->empty(stage_, where); }
  void advance(ptx::SourceLocation where = ptx::SourceLocation::current());

 private:
  const Pipeline* p_;
  int stage_ = 0;
  Reg phase_;
};

}  // namespace ptx::hopper
