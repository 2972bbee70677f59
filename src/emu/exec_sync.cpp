// Barriers and mbarriers (sync.isa): bar / barrier (named barriers), barrier.cluster, mbarrier,
// and the transaction counts that st.async, red.async and the bulk copies complete on one.
#include <algorithm>
#include <bit>

#include "runner.hpp"

namespace ptx::emu::engine {

// bar{.cta}.sync / .arrive / .red a{, b}: barrier a, b threads (default: all)
void Runner::bar(Warp& w, const DInst& in, uint32_t exec, uint32_t active, uint32_t& advance) {
  const Opnd* o = in.ops;
  if (exec == 0) return;  // predicated off in every lane here: not executed
  if (exec != w.live) fail(w, std::countr_zero(active), "barrier divergence: not every live thread of the warp reaches this barrier together");
  const int first = std::countr_zero(exec);
  const bool red = in.sub == kBarRed;
  const unsigned at = red ? 1 : 0;  // bar.red d, a{, b}, c
  const bool counted = in.nops > at + (red ? 2u : 1u);
  const uint64_t id = in.nops > at ? value(w, o[at], first) : 0;
  if (id >= 16) fail(w, first, fmt::format("barrier {}: there are 16 (0 to 15)", id));
  const uint32_t threads = cfg_.block.x * cfg_.block.y * cfg_.block.z;
  const uint64_t count = counted ? value(w, o[at + 1], first) : 0;
  if (counted && (count == 0 || count % kLanes != 0 || count > (threads + kLanes - 1) / kLanes * kLanes))
    fail(w, first, fmt::format("barrier {} with a thread count of {}: a multiple of 32, at most the CTA's {} threads rounded to warps", id,
                               count, threads));
  if (in.sub == kBarArrive && !counted) fail(w, first, "bar.arrive needs a thread count");
  Cta::NamedBarrier& b = c_->bars[id];
  if (b.arrived == 0) b.expected = static_cast<uint32_t>(count);
  else if (b.expected != count)
    fail(w, first, fmt::format("barrier {} is in use with {} threads; this warp arrives for {}", id,
                               b.expected ? fmt::format("{}", b.expected) : std::string("all the CTA's"),
                               count ? fmt::format("{}", count) : std::string("all the CTA's")));
  b.arrived += kLanes;  // a warp counts as 32 threads, whatever its active lanes
  if (red)
    for (uint32_t m = exec; m; m &= m - 1) {
      const bool v = value(w, o[in.nops - 1], std::countr_zero(m)) & 1;
      b.popc += v, b.all = b.all && v, b.any = b.any || v;
    }
  if (in.sub != kBarArrive) {
    w.waiting = true;
    w.barrier = static_cast<uint32_t>(id);
    advance = 0;  // moves on when released
  }
  release_barrier(static_cast<uint32_t>(id));
  return;
}

// barrier.cluster.arrive (sub 0) / .wait (sub 1)
void Runner::cluster_bar(Warp& w, const DInst& in, uint32_t exec, uint32_t active, uint32_t& advance) {
  const int first = std::countr_zero(exec ? exec : active);
  if (in.sub == 0) {
    if (w.cl_arrived & exec) fail(w, first, "barrier.cluster.arrive twice without a barrier.cluster.wait between");
    w.cl_arrived |= exec;
    w.cl_target = cluster_phase_ + 1;
    if (ctas_.size() == 1 || (w.live & ~w.cl_arrived) == 0) cluster_release();
    return;
  }
  if (!exec) return;
  if (w.cl_target == 0) fail(w, first, "barrier.cluster.wait without a barrier.cluster.arrive before it");
  if (cluster_phase_ >= w.cl_target) return;  // the phase it arrived in has completed
  w.cl_waiting |= exec;  // these lanes move on when the phase completes; step() parks the warp when none can run
  advance = active & ~exec;
  return;
}

void Runner::mbarrier(Warp& w, const DInst& in, uint32_t exec, uint32_t active) {
  const MbarOp op = static_cast<MbarOp>(in.sub);
  const Opnd* o = in.ops;
  // the mbarrier's address operand: [a] is the first operand for init/expect_tx/complete_tx/inval,
  // the second after a destination for arrive/test_wait/try_wait
  const bool has_dest = op == MbarOp::Arrive || op == MbarOp::ArriveDrop || op == MbarOp::TestWait || op == MbarOp::TryWait;
  if (op == MbarOp::PendingCount) {
    for (uint32_t m = exec; m; m &= m - 1) write(w, o[0], std::countr_zero(m), 0, Ty{'b', 32});
    return;
  }
  Cta* owner = c_;
  auto complete = [this, &owner](Mbarrier& b) {
    note_arrival(*owner, b);
    if (b.pending == 0 && b.tx == 0) complete_phase(*owner, b);
  };
  struct SyncScope {  // mbarrier words are synchronization, not data
    bool& flag;
    explicit SyncScope(bool& f) : flag(f) { flag = true; }
    ~SyncScope() { flag = false; }
  } sync_scope(sync_access_);
  bool all_done = true;
  if (op != MbarOp::TestWait && op != MbarOp::TryWait) ++mbar_epoch_;
  for (uint32_t m = exec; m; m &= m - 1) {
    const int l = std::countr_zero(m);
    uint8_t* p = access(w, l, in, has_dest ? o[1] : o[0], 8, true);  // every mbarrier operation updates the word
    const auto [cta, key] = owner_cta(p);
    if (!cta) fail(w, l, "the mbarrier is not in shared memory");
    owner = cta;
    if (op == MbarOp::Init) {
      const uint32_t count = static_cast<uint32_t>(value(w, o[1], l));
      if (count == 0 || count > (1u << 20) - 1) fail(w, l, fmt::format("mbarrier.init with count {}", count));
      cta->mbars[key] = Mbarrier{count, count, 0, 0, ++mbar_generation_};
      continue;
    }
    auto it = cta->mbars.find(key);
    if (it == cta->mbars.end())
      fail(w, l, fmt::format("mbarrier at shared+{}{} is not initialized", key, cta == c_ ? "" : fmt::format(" of CTA rank {}", cta->rank)));
    Mbarrier& b = it->second;
    switch (op) {
      case MbarOp::Inval: cta->mbars.erase(it); break;
      case MbarOp::ExpectTx: b.tx += static_cast<int64_t>(value(w, o[1], l)); break;
      case MbarOp::CompleteTx:
        b.tx -= static_cast<int64_t>(value(w, o[1], l));
        complete(b);
        break;
      case MbarOp::Arrive:
      case MbarOp::ArriveDrop: {
        uint32_t count = 1;
        if (in.flags & kExpectTx) b.tx += static_cast<int64_t>(value(w, o[2], l));
        else if (in.nops >= 3) count = static_cast<uint32_t>(value(w, o[2], l));
        if (count > b.pending)
          fail(w, l, fmt::format("mbarrier arrival count overflow: {} arrivals with {} pending in phase {}", count, b.pending, b.phase));
        const uint64_t state = static_cast<uint64_t>(b.phase);  // the phase this arrival belongs to
        b.pending -= count;
        if (op == MbarOp::ArriveDrop) b.expected -= std::min(b.expected, count);
        complete(b);
        if (o[0].kind == Opnd::Reg) reg(w, o[0].slot, l) = state;
        break;
      }
      case MbarOp::TestWait:
      case MbarOp::TryWait: {
        const uint64_t arg = value(w, o[2], l);
        // .parity: the phase with that parity has completed; a state: the phase it names has completed
        const bool done = (in.flags & kParity) ? ((b.phase & 1) != (arg & 1)) : (b.phase > arg);
        if (o[0].kind == Opnd::Reg) reg(w, o[0].slot, l) = done;
        all_done = all_done && done;
        break;
      }
      default: break;
    }
  }
  if ((op == MbarOp::TestWait || op == MbarOp::TryWait) && !all_done) {  // let the arrivals happen
    w.yield = true;
    w.spin_pc = static_cast<uint32_t>(&in - p_.code.data());
  }
  (void)active;
}

// st.async / red.async: `bytes` of transactions complete on the mbarrier at `bar`, in each lane.
void Runner::async_tx(Warp& w, uint32_t exec, const Opnd& bar, unsigned bytes) {
  for (uint32_t m = exec; m; m &= m - 1) {
    const int l = std::countr_zero(m);
    sync_access_ = true;
    uint8_t* p = resolve(w, l, Space::SharedCluster, (bar.slot != kNoSlot ? reg(w, bar.slot, l) : 0) + bar.imm, 8, true);
    sync_access_ = false;
    mbar_signal(w, l, p, bytes, 0);
  }
}

// The mbarrier at `p` (shared memory of a CTA of the cluster): `tx` bytes of transactions done, `arrivals` arrivals.
void Runner::mbar_signal(Warp& w, int lane, const uint8_t* p, int64_t tx, uint32_t arrivals) {
  auto [c, key] = owner_cta(p);
  if (!c) fail(w, lane, "the mbarrier is not in shared memory");
  auto it = c->mbars.find(key);
  if (it == c->mbars.end()) fail(w, lane, fmt::format("mbarrier at shared+{}{} is not initialized", key, c == c_ ? "" : fmt::format(" of CTA rank {}", c->rank)));
  Mbarrier& b = it->second;
  ++mbar_epoch_;
  b.tx -= tx;
  if (arrivals > b.pending) fail(w, lane, fmt::format("mbarrier arrival count overflow: {} arrivals with {} pending", arrivals, b.pending));
  b.pending -= arrivals;
  note_arrival(*c, b);
  if (b.pending == 0 && b.tx == 0) complete_phase(*c, b);
}

void Runner::note_arrival(const Cta& owner, Mbarrier& b) const {
  if (&owner != c_) b.remote |= 1u << c_->rank;
}

// A phase completes: it orders what its arrivers did before it before what its waiters do
// after, so the race-check epochs of the mbarrier's CTA and of every CTA that arrived end.
void Runner::complete_phase(Cta& owner, Mbarrier& b) {
  ++b.phase;
  b.pending = b.expected;
  ++owner.epoch;
  for (uint32_t m = b.remote; m; m &= m - 1) ++ctas_[static_cast<size_t>(std::countr_zero(m))].epoch;
  if (b.remote) ++cross_epoch_;
  b.remote = 0;
}

}  // namespace ptx::emu::engine
