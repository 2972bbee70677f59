// The emulator's scheduler: CTAs one after another, the warps of a CTA interleaved at barriers,
// the lanes of a warp executed together. A warp runs the instruction with the lowest program
// counter among its live lanes, for the lanes that are at it: diverged lanes reconverge where
// their paths meet.
#include <algorithm>
#include <bit>
#include <iterator>
#include <string>

#include "runner.hpp"

namespace ptx::emu::engine {

void Runner::run(std::atomic<uint64_t>& next) {
  const uint64_t total = static_cast<uint64_t>(cfg_.grid.x / cdim_[0]) * (cfg_.grid.y / cdim_[1]) * (cfg_.grid.z / cdim_[2]);
  next_ = &next, total_ = total;  // clusterlaunchcontrol.try_cancel takes clusters from it too
  for (uint64_t i; !watch_.stopped() && (i = next.fetch_add(1)) < total;) {
    if (!cluster(i)) return;
    watch_.cluster_done();
  }
}

Dim3 Runner::cluster_shape(const Program& p, const LaunchConfig& cfg) {
  const bool launch = static_cast<uint64_t>(cfg.cluster.x) * cfg.cluster.y * cfg.cluster.z > 1;
  if (!launch && p.req_cluster[0]) return {p.req_cluster[0], p.req_cluster[1], p.req_cluster[2]};
  return cfg.cluster;
}

// ---- one cluster -------------------------------------------------------------------
void Runner::init_cta(Cta& c, uint32_t x, uint32_t y, uint32_t z, uint32_t rank) {
  c.ctaid[0] = x, c.ctaid[1] = y, c.ctaid[2] = z;
  c.rank = rank;
  hold_cta_state(c);
  c.smem.assign(p_.static_smem + cfg_.dynamic_smem, 0);
  c.mbars.clear();
  c.tmem.reset();
  c.mma_pending.clear();
  c.tmem_loading.clear();
  c.saw_failed_cancel = false;
  c.bars = {};
  if (opt_.check_races) c.shadow.assign(c.smem.size(), Shadow{});
  c.epoch = 1;
  c.written.assign(c.smem.size(), 0);
  const uint32_t threads = cfg_.block.x * cfg_.block.y * cfg_.block.z;
  const uint32_t nwarps = (threads + kLanes - 1) / kLanes;
  c.warps.resize(nwarps);
  for (uint32_t w = 0; w < nwarps; ++w) {
    Warp& wp = c.warps[w];
    wp.index = w;
    const uint32_t lanes = std::min<uint32_t>(kLanes, threads - w * kLanes);
    wp.live = lanes == 32 ? 0xFFFFFFFFu : (1u << lanes) - 1;
    std::fill(std::begin(wp.pc), std::end(wp.pc), 0);
    wp.uniform = true;
    wp.upc = 0;
    wp.waiting = false;
    wp.yield = false;
    wp.syncs = 0;
    wp.carry = 0;
    wp.cl_arrived = 0;
    wp.cl_waiting = 0;
    wp.cl_target = 0;
    for (int l = 0; l < kLanes; ++l) {
      release_stack(wp.local[l]);
      wp.local[l].assign(p_.funcs[0].frame, 0);
      wp.sp[l] = 0;
      wp.top[l] = p_.funcs[0].frame;
      wp.fn[l] = 0;
      for (const Warp::CallFrame& f : wp.calls[l]) give_back(f.saved.size() * sizeof(uint64_t));  // (a thread that exited in a call)
      wp.calls[l].clear();
    }
    wp.regs.assign(static_cast<size_t>(p_.slots) * kLanes, 0);
    for (const auto& [slot, bits] : p_.constants) std::fill_n(wp.regs.begin() + static_cast<std::ptrdiff_t>(slot) * kLanes, kLanes, bits);
  }
}

// The ctaid of the first CTA (rank 0) of cluster `index`.
std::array<uint32_t, 3> Runner::first_ctaid(uint64_t index) const {
  const uint32_t ncx = cfg_.grid.x / cdim_[0], ncy = cfg_.grid.y / cdim_[1];
  return {static_cast<uint32_t>(index % ncx) * cdim_[0], static_cast<uint32_t>(index / ncx % ncy) * cdim_[1],
          static_cast<uint32_t>(index / (static_cast<uint64_t>(ncx) * ncy)) * cdim_[2]};
}

// Runs cluster `index` to its end; false when the launch stopped (another thread failed).
bool Runner::cluster(uint64_t index) {
  const auto [x0, y0, z0] = first_ctaid(index);
  const uint32_t n = cdim_[0] * cdim_[1] * cdim_[2];
  ctas_.resize(n);
  for (uint32_t r = 0; r < n; ++r)
    init_cta(ctas_[r], x0 + r % cdim_[0], y0 + r / cdim_[0] % cdim_[1], z0 + r / (cdim_[0] * cdim_[1]), r);
  cluster_phase_ = 0;
  c_ = &ctas_[0];
  uint64_t steps = 0, next_poll = LaunchWatch::kPollSteps;
  int idle_rounds = 0;  // rounds in which every running warp only spun on an mbarrier wait
  for (;;) {
    bool progressed = false, any_live = false, all_spinning = true, any_cluster_wait = false, any_waiting = false;
    const uint64_t epoch = mbar_epoch_;
    for (Cta& c : ctas_) {
      c_ = &c;
      for (Warp& w : c.warps) {
        w.yield = false;
        bool stepped = false;
        // A warp runs until it waits, spins or has had its quantum: then the next one runs, so a
        // warp spinning on a flag another warp sets sees it set, as on the GPU.
        for (uint32_t quantum = kQuantum; w.live && !w.waiting && !w.yield && quantum; --quantum) {
          step(w);
          progressed = stepped = true;
          steps += std::exchange(bulk_steps_, 0);
          if (++steps > opt_.max_steps) [[unlikely]]
            hung(fmt::format("still running after {} warp instructions (the limit: Options::max_steps, ptxpp run --max-steps)", opt_.max_steps));
          if (steps >= next_poll) [[unlikely]] {
            next_poll = steps + LaunchWatch::kPollSteps;
            if (!keep_running()) return false;
          }
        }
        // progress: a warp ran and did not end spinning (a warp already at a barrier waits for the others)
        if (w.live && !w.yield && stepped) all_spinning = false;
        any_waiting = any_waiting || (w.live && w.waiting);
        any_cluster_wait = any_cluster_wait || (w.live && w.cl_waiting);
        any_live = any_live || w.live;
      }
    }
    if (!any_live) {
      tmem_leak_check();
      return true;
    }
    bool released = any_cluster_wait && cluster_release();  // exits may complete the cluster barrier
    idle_rounds = all_spinning && epoch == mbar_epoch_ && !released ? idle_rounds + 1 : 0;
    if (idle_rounds > 64) {
      if (n > 1 || any_waiting) deadlock("no warp can proceed (waiting on mbarrier phases or barriers no thread can complete)");
      const Warp& w = *std::find_if(c_->warps.begin(), c_->warps.end(), [](const Warp& wp) { return wp.live != 0; });
      fail(w, std::countr_zero(w.live), "waiting on an mbarrier phase that can never complete (no warp can arrive)");
    }
    for (Cta& c : ctas_) {
      c_ = &c;
      released = release_barrier() || released;
    }
    if (!released && !progressed) {
      if (n > 1 || any_cluster_wait) deadlock(any_cluster_wait ? "a CTA waits at barrier.cluster.wait forever" : "no warp can proceed");
      c_ = &ctas_[0];
      std::string where;
      for (const Warp& w : c_->warps)
        if (w.live) where += fmt::format(" warp {} at {};", w.index, p_.texts[p_.code[lane_pc(w, std::countr_zero(w.live))].stmt]);
      throw Error(fmt::format("kernel {}, CTA ({},{},{}): deadlock: no warp can proceed:{}", p_.name, c_->ctaid[0], c_->ctaid[1], c_->ctaid[2], where));
    }
  }
}

// At exit every CTA must have freed its tensor memory (tcgen05.dealloc).
void Runner::tmem_leak_check() const {
  for (const Cta& c : ctas_)
    if (!c.tmem.empty())
      throw Error(fmt::format("kernel {}, CTA ({},{},{}): the CTA exited with tensor memory still allocated ({}): each tcgen05.alloc needs a "
                              "tcgen05.dealloc before the kernel ends",
                              p_.name, c.ctaid[0], c.ctaid[1], c.ctaid[2], c.tmem.describe()));
}

// Where every live warp of the cluster is, for reports: "warp 1 waiting at ...; warp 0 spinning at ...".
// `running` names a warp that is neither at a barrier nor in a spin-wait.
std::string Runner::warp_positions(const char* running) const {
  std::string where;
  for (const Cta& c : ctas_) {
    bool any = false;
    for (const Warp& w : c.warps) {
      if (!w.live) continue;
      if (!any && ctas_.size() > 1) where += fmt::format(" CTA ({},{},{}) (rank {}):", c.ctaid[0], c.ctaid[1], c.ctaid[2], c.rank);
      any = true;
      where += fmt::format(" warp {} {} {};", w.index, w.waiting ? "waiting at" : w.yield ? "spinning at" : running,
                           p_.texts[p_.code[w.yield ? w.spin_pc : lane_pc(w, std::countr_zero(w.live))].stmt]);
    }
    if (!any && ctas_.size() > 1) where += fmt::format(" CTA ({},{},{}) (rank {}): exited;", c.ctaid[0], c.ctaid[1], c.ctaid[2], c.rank);
  }
  return where;
}

std::string Runner::cluster_name() const {
  const Cta& c = ctas_[0];
  return ctas_.size() == 1 ? fmt::format("CTA ({},{},{})", c.ctaid[0], c.ctaid[1], c.ctaid[2])
                           : fmt::format("cluster of {} CTAs from CTA ({},{},{})", ctas_.size(), c.ctaid[0], c.ctaid[1], c.ctaid[2]);
}

// A deadlock of the cluster: where every live warp of every CTA is.
void Runner::deadlock(const std::string& what) const {
  throw Error(fmt::format("kernel {}, cluster of {} CTAs from CTA ({},{},{}): deadlock: {}:{}", p_.name, ctas_.size(), ctas_[0].ctaid[0],
                          ctas_[0].ctaid[1], ctas_[0].ctaid[2], what, warp_positions("spinning at")));
}

// A cluster still running at a limit (steps, time): a livelock when some warps wait at a barrier
// that the others, running, never reach; else a hang. Either way, where each warp is.
void Runner::hung(const std::string& why) const {
  bool waiting = false, running = false;
  for (const Cta& c : ctas_)
    for (const Warp& w : c.warps) {
      if (!w.live) continue;
      (w.waiting || w.cl_waiting ? waiting : running) = true;
    }
  const char* what = waiting && running ? "livelock: warps wait at a barrier that the other warps, running, never reach" : "hung";
  throw Error(fmt::format("kernel {}, {}: {}; {}:{}", p_.name, cluster_name(), what, why, warp_positions("running at")));
}

// Polled every LaunchWatch::kPollSteps warp instructions: false when the launch stopped.
bool Runner::keep_running() {
  switch (watch_.poll(LaunchWatch::kPollSteps)) {
    case LaunchWatch::Poll::Run: return true;
    case LaunchWatch::Poll::Stopped: return false;
    case LaunchWatch::Poll::TimedOut: break;
  }
  hung(fmt::format("still running after {:.3g} s (the limit: Options::timeout_seconds, ptxpp run --timeout)", watch_.seconds()));
}

// Completes the cluster barrier's phase when every live thread of the cluster has arrived:
// releases the warps waiting at barrier.cluster.wait. (Exited threads count as arrived.)
bool Runner::cluster_release() {
  bool any = false;
  for (const Cta& c : ctas_)
    for (const Warp& w : c.warps) {
      if (w.live & ~w.cl_arrived) return false;
      any = any || w.cl_arrived;
    }
  if (!any) return false;
  ++cluster_phase_;
  ++mbar_epoch_;
  ++cross_epoch_;
  for (Cta& c : ctas_) {
    ++c.epoch;
    for (Warp& w : c.warps) {
      w.cl_arrived = 0;
      if (w.cl_waiting && cluster_phase_ >= w.cl_target) {  // (never in the uniform mode)
        for (uint32_t m = w.cl_waiting & w.live; m; m &= m - 1) ++w.pc[std::countr_zero(m)];
        w.cl_waiting = 0;
        if (w.barrier == kClusterBarrier) w.waiting = false;
      }
    }
  }
  return true;
}

// Completes named barrier `id` of this CTA when enough threads have arrived: its waiting
// warps move on (bar.red's waiting lanes get the reduction).
bool Runner::release_barrier(uint32_t id) {
  Cta::NamedBarrier& b = c_->bars[id];
  uint32_t needed = b.expected;
  if (needed == 0)
    for (const Warp& w : c_->warps) needed += w.live ? kLanes : 0;
  if (b.arrived == 0 || b.arrived < needed) return false;
  ++c_->epoch;
  for (Warp& w : c_->warps) {
    if (!w.live || !w.waiting || w.barrier != id) continue;
    const DInst& at = p_.code[lane_pc(w, std::countr_zero(w.live))];
    if (at.op == Opc::Bar && at.sub == kBarRed) {
      const uint64_t r = at.boolop == 1 ? b.popc : at.boolop == 2 ? b.all : b.any;
      for (uint32_t m = w.live; m; m &= m - 1) write(w, at.ops[0], std::countr_zero(m), r, at.boolop == 1 ? Ty{'u', 32} : Ty{'p', 1});
    }
    w.waiting = false;
    if (w.uniform) ++w.upc;
    else
      for (int l = 0; l < kLanes; ++l)
        if (w.live >> l & 1) ++w.pc[l];
  }
  b = {};
  return true;
}

// Every named barrier that warps exiting (or arrivals) may have completed.
bool Runner::release_barrier() {
  bool any = false;
  for (uint32_t id = 0; id < 16; ++id) any = (c_->bars[id].arrived && release_barrier(id)) || any;
  return any;
}

// ---- reports ------------------------------------------------------------------------
void Runner::fail(const Warp& w, int lane, const std::string& what) const {
  const uint32_t t = w.index * kLanes + static_cast<uint32_t>(lane);
  const uint32_t tx = t % cfg_.block.x, ty = t / cfg_.block.x % cfg_.block.y, tz = t / (cfg_.block.x * cfg_.block.y);
  const uint32_t pc = lane_pc(w, lane) < p_.code.size() ? lane_pc(w, lane) : 0;
  throw Error(fmt::format("kernel {}, CTA ({},{},{}), thread ({},{},{}): {}: {}", p_.name, c_->ctaid[0], c_->ctaid[1], c_->ctaid[2],
                          tx, ty, tz, p_.texts[p_.code[pc].stmt], what));
}

inline void Runner::step(Warp& w) {
  if (w.uniform) {
    const DInst& in = p_.code[w.upc];
    if (!is_control(in.op)) [[likely]] {
      uint32_t exec = w.live;
      if (in.guard != kNoSlot) {
        exec = 0;
        const uint64_t* g = &reg(w, in.guard, 0);
        for (uint32_t m = w.live; m; m &= m - 1) {
          const int l = std::countr_zero(m);
          if ((g[l] != 0) != in.guard_neg) exec |= 1u << l;
        }
      }
      ++stats_.warp_instructions;
      stats_.thread_instructions += static_cast<uint64_t>(std::popcount(exec));
      uint32_t advance = w.live;
      execute(w, in, exec, w.live, advance);
      ++w.upc;
      return;
    }
    if (in.op == Opc::Bra && uniform_branch(w, in)) return;
    for (uint32_t m = w.live; m; m &= m - 1) w.pc[std::countr_zero(m)] = w.upc;  // leave the uniform mode
    w.uniform = false;
  }
  const uint32_t runnable = w.live & ~w.cl_waiting;
  uint32_t pc = 0xFFFFFFFFu;
  for (uint32_t m = runnable; m; m &= m - 1) pc = std::min(pc, w.pc[std::countr_zero(m)]);
  uint32_t active = 0;
  for (uint32_t m = runnable; m; m &= m - 1) {
    const int l = std::countr_zero(m);
    if (w.pc[l] == pc) active |= 1u << l;
  }
  const DInst& in = p_.code[pc];
  uint32_t exec = active;
  if (in.guard != kNoSlot) {
    exec = 0;
    for (uint32_t m = active; m; m &= m - 1) {
      const int l = std::countr_zero(m);
      if ((reg(w, in.guard, l) != 0) != in.guard_neg) exec |= 1u << l;
    }
  }
  ++stats_.warp_instructions;
  stats_.thread_instructions += static_cast<uint64_t>(std::popcount(exec));
  uint32_t advance = active;  // lanes that move to pc + 1
  execute(w, in, exec, active, advance);
  for (uint32_t m = advance; m; m &= m - 1) ++w.pc[std::countr_zero(m)];
  if (w.cl_waiting) [[unlikely]] {  // lanes at barrier.cluster.wait: the warp waits when no other lane can run
    if (!(w.live & ~w.cl_waiting)) w.waiting = true, w.barrier = kClusterBarrier;
    return;
  }
  // back to the uniform mode when the live lanes meet again
  if (w.live) {
    const uint32_t first = w.pc[std::countr_zero(w.live)];
    bool same = true;
    for (uint32_t m = w.live; m && same; m &= m - 1) same = w.pc[std::countr_zero(m)] == first;
    if (same) {
      w.uniform = true;
      w.upc = first;
    }
  }
}

// A branch every live lane of a uniform warp takes, or none does (a loop's back edge): the warp
// stays uniform. False (nothing done) when the lanes diverge.
inline bool Runner::uniform_branch(Warp& w, const DInst& in) {
  if (in.ops[0].kind != Opnd::Label) return false;
  uint32_t exec = w.live;
  if (in.guard != kNoSlot) {
    exec = 0;
    for (uint32_t m = w.live; m; m &= m - 1)
      if ((reg(w, in.guard, std::countr_zero(m)) != 0) != in.guard_neg) exec |= 1u << std::countr_zero(m);
    if (exec != 0 && exec != w.live) return false;
  }
  ++stats_.warp_instructions;
  stats_.thread_instructions += static_cast<uint64_t>(std::popcount(exec));
  w.upc = exec ? static_cast<uint32_t>(in.ops[0].imm) : w.upc + 1;
  return true;
}

}  // namespace ptx::emu::engine
