// cp.async: asynchronous 16-byte copies from global to shared memory, their groups,
// and a ring of N shared-memory stages for a multi-stage pipeline.
#pragma once

#include <cstdint>

#include "ptxpp/dsl/operand.hpp"
#include "ptxpp/dsl/reg.hpp"
#include "ptxpp/dsl/source_location.hpp"

namespace ptx::ampere {

// cp.async.cg.shared.global [dst], [src], 16;   (@guard cp.async... when `guard` is given)
// dst: a shared address (ptx::addr(u32 reg, off) or a buffer's addr()); src: a global address.
void cp_async_16(const Operand& dst_shared, const Operand& src_global, const Reg* guard = nullptr,
                 ptx::SourceLocation where = ptx::SourceLocation::current());
// cp.async.commit_group;
void cp_async_commit(ptx::SourceLocation where = ptx::SourceLocation::current());
// cp.async.wait_group n;   (n: at most n of this thread's groups still pending)
void cp_async_wait(int n, ptx::SourceLocation where = ptx::SourceLocation::current());
// cp.async.wait_all;
void cp_async_wait_all(ptx::SourceLocation where = ptx::SourceLocation::current());

// A ring of `stages` shared-memory stages of `stage_bytes` each, filled by cp.async
// groups, one group per tile, in order. The ring counts at trace time which tile each
// stage holds; the PTX it emits is only commit_group and wait_group:
//
//   for s in 0 .. stages-2:  load tile s into write_offset();  ring.commit();     // prologue
//   per tile:  ring.wait();  bar.sync;                      // the oldest tile has landed
//              load the next tile into write_offset();  ring.commit();   // (an empty group near the end)
//              compute on read_offset();  ring.release();
//
// wait() emits `cp.async.wait_group (committed - released - 1)`: every group but the
// newest ones after the oldest unreleased tile may stay in flight (stages-2 in the loop
// above). commit() refuses to start a group into a stage that is not released yet.
// In a run-time loop, trace a body that commits and releases a multiple of `stages`
// tiles: the ring then ends the body in the state it started it, and the stage offsets
// it handed out are right on every iteration.
class CpAsyncRing {
 public:
  CpAsyncRing(int stages, uint64_t stage_bytes, ptx::SourceLocation where = ptx::SourceLocation::current());
  int stages() const { return stages_; }
  uint64_t stage_bytes() const { return stage_bytes_; }
  // The stage the next committed group fills, and its byte offset (stage * stage_bytes).
  int write_stage() const { return static_cast<int>(committed_ % stages_); }
  uint64_t write_offset() const { return static_cast<uint64_t>(write_stage()) * stage_bytes_; }
  // The stage of the oldest unreleased tile, and its byte offset.
  int read_stage() const { return static_cast<int>(released_ % stages_); }
  uint64_t read_offset() const { return static_cast<uint64_t>(read_stage()) * stage_bytes_; }
  // Groups committed and not released yet.
  int64_t in_flight() const { return committed_ - released_; }
  int64_t committed() const { return committed_; }
  int64_t released() const { return released_; }

  // cp.async.commit_group;  the next write stage. An error when all stages are in use.
  void commit(ptx::SourceLocation where = ptx::SourceLocation::current());
  // cp.async.wait_group (in_flight() - 1): the read stage's group has completed.
  // An error when nothing is in flight.
  void wait(ptx::SourceLocation where = ptx::SourceLocation::current());
  // The read stage may be overwritten (no instruction; put a barrier between the last
  // reads of the stage and the next copies into it).
  void release(ptx::SourceLocation where = ptx::SourceLocation::current());

 private:
  int stages_;
  uint64_t stage_bytes_;
  int64_t committed_ = 0, released_ = 0;
};

}  // namespace ptx::ampere
