// The emulator's execution engine: CTAs one after another, the warps of a CTA
// interleaved at barriers, the lanes of a warp executed together. A warp runs
// the instruction with the lowest program counter among its live lanes, for the
// lanes that are at it: diverged lanes reconverge where their paths meet.
#include <algorithm>
#include <array>
#include <iterator>
#include <bit>
#include <cfenv>
#include <chrono>
#include <cmath>
#include <cstring>
#include <limits>
#include <iostream>
#include <cstdio>
#include <unordered_map>
#include <mutex>
#include <thread>
#include <atomic>
#include <exception>

#include <fmt/format.h>

#include "bounds.hpp"
#include "directed_rounding.hpp"
#include "f32_arith.hpp"
#include "float_formats.hpp"
#include "ldmatrix.hpp"
#include "mma_sync.hpp"
#include "program.hpp"
#include "ptxpp/spec/validator.hpp"
#include "tcgen05.hpp"
#include "texture.hpp"
#include "wgmma.hpp"
#include "wmma.hpp"
#include "ptxpp/emu/emulator.hpp"
#include "launch_budget.hpp"
#include "launch_limits.hpp"
#include "launch_watch.hpp"
#include "ptxpp/ir/queries.hpp"
#include "ptxpp/emu/tensor_map.hpp"

namespace ptx::emu {

namespace {

constexpr int kLanes = 32;

uint64_t mask_bits(uint64_t v, unsigned bits) { return bits >= 64 ? v : v & ((uint64_t{1} << bits) - 1); }
int64_t sext(uint64_t v, unsigned bits) {
  if (bits >= 64) return static_cast<int64_t>(v);
  const uint64_t m = uint64_t{1} << (bits - 1);
  v = mask_bits(v, bits);
  return static_cast<int64_t>((v ^ m) - m);
}
float f32(uint64_t v) { return std::bit_cast<float>(static_cast<uint32_t>(v)); }
double f64(uint64_t v) { return std::bit_cast<double>(v); }
uint64_t bits_of(float f) { return std::bit_cast<uint32_t>(f); }
uint64_t bits_of(double d) { return std::bit_cast<uint64_t>(d); }


struct Warp {
  uint32_t index = 0;
  uint32_t live = 0;             // lanes that exist and have not exited
  uint16_t syncs = 0;            // bar.warp.sync executed (race checking: it orders the lanes' accesses)
  // While every live lane is at the same instruction (the common case) that is upc,
  // and pc[] is not kept up to date; control instructions leave this mode.
  bool uniform = true;
  uint32_t upc = 0;
  uint32_t pc[kLanes] = {};
  bool waiting = false;          // at a barrier
  bool yield = false;            // spinning on a wait that did not complete: let other warps run
  uint32_t spin_pc = 0;          // the wait it spins on (for deadlock reports)
  uint32_t carry = 0;            // per-lane carry flag (add.cc / addc)
  uint32_t barrier = 0;
  uint32_t cl_arrived = 0;       // lanes that arrived at the cluster barrier's current phase
  uint32_t cl_waiting = 0;       // lanes blocked at barrier.cluster.wait (the others may run on)
  uint64_t cl_target = 0;        // the cluster barrier phase count its barrier.cluster.wait waits for (0: none)
  std::vector<uint32_t> tc_loading;  // registers of tcgen05.ld not yet waited for (tcgen05.wait::ld)
  uint32_t tc_load_pc = 0;           // the last such tcgen05.ld
  std::vector<uint64_t> regs;    // slot * 32 + lane
  // Per-lane thread state for calls: the frame stack (.local and call .param
  // variables), the current frame's base and function, and the return frames.
  struct CallFrame {
    uint32_t return_pc, caller_sp, caller_fn, caller_top;
    uint32_t results, nresults;   // the call's result list in Program::vec_slots (kNoSlot, 0: none)
    std::vector<uint64_t> saved;  // the callee's registers, restored on return (recursion)
  };
  std::vector<uint8_t> local[kLanes];
  uint32_t sp[kLanes] = {};
  uint32_t top[kLanes] = {};  // the end of the current frame and its alloca'd memory (where a call's frame starts)
  uint32_t fn[kLanes] = {};
  std::vector<CallFrame> calls[kLanes];
};

class Runner {
 public:
  Runner(const Program& p, Memory& mem, const Options& opt, const LaunchConfig& cfg, std::vector<uint8_t> params, Stats& stats,
         LaunchBudget& budget, LaunchWatch& watch)
      : p_(p), mem_(mem), opt_(opt), cfg_(cfg), params_(std::move(params)), stats_(stats), budget_(budget), watch_(watch) {
    const Dim3 c = cluster_shape(p, cfg);
    cdim_[0] = c.x, cdim_[1] = c.y, cdim_[2] = c.z;
  }
  Runner(const Runner&) = delete;
  Runner& operator=(const Runner&) = delete;
  ~Runner() { budget_.give_back(held_); }

  // Runs clusters (linear indices) taken from `next` until none are left or the launch stops;
  // the CTAs of a cluster run interleaved on this host thread.
  void run(std::atomic<uint64_t>& next) {
    const uint64_t total = static_cast<uint64_t>(cfg_.grid.x / cdim_[0]) * (cfg_.grid.y / cdim_[1]) * (cfg_.grid.z / cdim_[2]);
    next_ = &next, total_ = total;  // clusterlaunchcontrol.try_cancel takes clusters from it too
    for (uint64_t i; !watch_.stopped() && (i = next.fetch_add(1)) < total;) {
      if (!cluster(i)) return;
      watch_.cluster_done();
    }
  }

  // The cluster shape of a launch: the launch's, else the kernel's .reqnctapercluster, else one CTA.
  static Dim3 cluster_shape(const Program& p, const LaunchConfig& cfg) {
    const bool launch = static_cast<uint64_t>(cfg.cluster.x) * cfg.cluster.y * cfg.cluster.z > 1;
    if (!launch && p.req_cluster[0]) return {p.req_cluster[0], p.req_cluster[1], p.req_cluster[2]};
    return cfg.cluster;
  }

 private:
  // ---- per-CTA state -----------------------------------------------------------------
  // Per byte of shared memory: the last writer and reader (thread, epoch), for race checks.
  struct Shadow {
    struct Access {
      uint16_t thread = 0;            // the CTA rank and the thread's index in it (current_access())
      uint16_t warp_syncs = 0;        // its warp's bar.warp.sync count then
      uint32_t epoch = 0, cross = 0;  // its CTA's epoch and the cluster's cross epoch then (0: none)
    };
    Access writer, reader;
    bool many_readers = false;  // others than `reader` read it since, unsynchronized with it
  };
  struct Mbarrier {
    uint32_t expected = 0, pending = 0;
    int64_t tx = 0;
    uint32_t phase = 0;  // completed phases
    uint64_t generation = 0;  // which mbarrier.init made it
    uint32_t remote = 0;      // the other CTAs (bit per rank) that arrived or completed tx in this phase
  };
  // A tcgen05.mma whose result a thread may not read yet: until a tcgen05.commit of the issuing
  // thread arrives on an mbarrier and that phase completes. (Here the product is already there.)
  struct PendingMma {
    uint32_t thread, pc;               // the issuing thread (in the CTA) and instruction
    uint32_t issuer_rank;              // its CTA
    uint32_t column, columns;          // the D columns written
    struct Commit {
      uint32_t rank;
      uint64_t key, generation;
      uint32_t phase;                  // complete when the mbarrier has completed this many phases
    };
    std::vector<Commit> commits;
  };
  struct Cta {
    uint32_t ctaid[3] = {};
    uint32_t rank = 0;                            // %cluster_ctarank
    std::vector<uint8_t> smem, written;
    std::vector<Shadow> shadow;
    uint32_t epoch = 1;                           // race-check epoch: ends at barriers and mbarrier phases
    std::unordered_map<uint64_t, Mbarrier> mbars;  // by shared offset
    std::vector<Warp> warps;
    TensorMemory tmem;                            // tcgen05 (tcgen05.cpp)
    std::vector<PendingMma> mma_pending;          // mmas writing this CTA's tensor memory, not yet known complete
    bool saw_failed_cancel = false;               // a query_cancel here found a failed try_cancel
    uint64_t held = 0;                            // launch-budget bytes held for this CTA's state (hold_cta_state)
    // The 16 named barriers: a barrier completes when `expected` threads (0: every live warp's 32)
    // have arrived, counted 32 per warp as on the GPU; bar.red reduces the lanes' predicates.
    struct NamedBarrier {
      uint32_t expected = 0, arrived = 0, popc = 0;
      bool all = true, any = false;
    };
    std::array<NamedBarrier, 16> bars{};
  };
  // Shared::cluster addresses: the CTA's own shared offsets, or (rank + 1) << kRankShift | offset
  // for the shared memory of another CTA of the cluster (mapa).
  static constexpr unsigned kRankShift = 24;
  static constexpr uint64_t kOffsetMask = (uint64_t{1} << kRankShift) - 1;
  static constexpr uint32_t kClusterBarrier = 0xFFFFFFFFu;  // Warp::barrier of barrier.cluster.wait

  // ---- one cluster -------------------------------------------------------------------
  void init_cta(Cta& c, uint32_t x, uint32_t y, uint32_t z, uint32_t rank) {
    c.ctaid[0] = x, c.ctaid[1] = y, c.ctaid[2] = z;
    c.rank = rank;
    hold_cta_state(c);
    c.smem.assign(p_.static_smem + cfg_.dynamic_smem, 0);
    c.mbars.clear();
    c.tmem.reset();
    c.mma_pending.clear();
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
      wp.tc_loading.clear();
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
  std::array<uint32_t, 3> first_ctaid(uint64_t index) const {
    const uint32_t ncx = cfg_.grid.x / cdim_[0], ncy = cfg_.grid.y / cdim_[1];
    return {static_cast<uint32_t>(index % ncx) * cdim_[0], static_cast<uint32_t>(index / ncx % ncy) * cdim_[1],
            static_cast<uint32_t>(index / (static_cast<uint64_t>(ncx) * ncy)) * cdim_[2]};
  }

  static constexpr uint32_t kQuantum = 4096;  // warp instructions a warp runs before the next warp's turn
  // Runs cluster `index` to its end; false when the launch stopped (another thread failed).
  bool cluster(uint64_t index) {
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
  void tmem_leak_check() const {
    for (const Cta& c : ctas_)
      if (!c.tmem.empty())
        throw Error(fmt::format("kernel {}, CTA ({},{},{}): the CTA exited with tensor memory still allocated ({}): each tcgen05.alloc needs a "
                                "tcgen05.dealloc before the kernel ends",
                                p_.name, c.ctaid[0], c.ctaid[1], c.ctaid[2], c.tmem.describe()));
  }

  // Where every live warp of the cluster is, for reports: "warp 1 waiting at ...; warp 0 spinning at ...".
  // `running` names a warp that is neither at a barrier nor in a spin-wait.
  std::string warp_positions(const char* running) const {
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
  std::string cluster_name() const {
    const Cta& c = ctas_[0];
    return ctas_.size() == 1 ? fmt::format("CTA ({},{},{})", c.ctaid[0], c.ctaid[1], c.ctaid[2])
                             : fmt::format("cluster of {} CTAs from CTA ({},{},{})", ctas_.size(), c.ctaid[0], c.ctaid[1], c.ctaid[2]);
  }

  // A deadlock of the cluster: where every live warp of every CTA is.
  [[gnu::noinline]] [[noreturn]] void deadlock(const std::string& what) const {
    throw Error(fmt::format("kernel {}, cluster of {} CTAs from CTA ({},{},{}): deadlock: {}:{}", p_.name, ctas_.size(), ctas_[0].ctaid[0],
                            ctas_[0].ctaid[1], ctas_[0].ctaid[2], what, warp_positions("spinning at")));
  }

  // A cluster still running at a limit (steps, time): a livelock when some warps wait at a barrier
  // that the others, running, never reach; else a hang. Either way, where each warp is.
  [[gnu::noinline]] [[noreturn]] void hung(const std::string& why) const {
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
  [[gnu::noinline]] bool keep_running() {
    switch (watch_.poll(LaunchWatch::kPollSteps)) {
      case LaunchWatch::Poll::Run: return true;
      case LaunchWatch::Poll::Stopped: return false;
      case LaunchWatch::Poll::TimedOut: break;
    }
    hung(fmt::format("still running after {:.3g} s (the limit: Options::timeout_seconds, ptxpp run --timeout)", watch_.seconds()));
  }

  // Completes the cluster barrier's phase when every live thread of the cluster has arrived:
  // releases the warps waiting at barrier.cluster.wait. (Exited threads count as arrived.)
  [[gnu::noinline]] bool cluster_release() {
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
  bool release_barrier(uint32_t id) {
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
  bool release_barrier() {
    bool any = false;
    for (uint32_t id = 0; id < 16; ++id) any = (c_->bars[id].arrived && release_barrier(id)) || any;
    return any;
  }

  static uint32_t lane_pc(const Warp& w, int lane) { return w.uniform ? w.upc : w.pc[lane]; }

  // ---- reports ------------------------------------------------------------------------
  [[noreturn]] void fail(const Warp& w, int lane, const std::string& what) const {
    const uint32_t t = w.index * kLanes + static_cast<uint32_t>(lane);
    const uint32_t tx = t % cfg_.block.x, ty = t / cfg_.block.x % cfg_.block.y, tz = t / (cfg_.block.x * cfg_.block.y);
    const uint32_t pc = lane_pc(w, lane) < p_.code.size() ? lane_pc(w, lane) : 0;
    throw Error(fmt::format("kernel {}, CTA ({},{},{}), thread ({},{},{}): {}: {}", p_.name, c_->ctaid[0], c_->ctaid[1], c_->ctaid[2],
                            tx, ty, tz, p_.texts[p_.code[pc].stmt], what));
  }

  // ---- operands --------------------------------------------------------------------------
  uint64_t& reg(Warp& w, uint32_t slot, int lane) { return w.regs[static_cast<size_t>(slot) * kLanes + static_cast<size_t>(lane)]; }

  // The hot path inline (a register or a plain immediate), the rest out of line.
  [[gnu::always_inline]] uint64_t value(Warp& w, const Opnd& o, int lane) {
    if (o.kind == Opnd::Reg && !o.neg) [[likely]]
      return reg(w, o.slot, lane);
    if (o.kind == Opnd::Imm && !o.symbol) return o.imm;
    return value_slow(w, o, lane);
  }

  [[gnu::noinline]] uint64_t value_slow(Warp& w, const Opnd& o, int lane) {
    switch (o.kind) {
      case Opnd::Reg: {
        const uint64_t v = reg(w, o.slot, lane);
        return o.neg ? !v : v;
      }
      case Opnd::Imm: return o.symbol && o.space == Space::Local ? o.imm + w.sp[lane] : o.imm;  // frame variables move with the frame
      case Opnd::RegPlus: return reg(w, o.slot, lane) + o.imm;  // the instruction keeps its type's low bits
      case Opnd::Sreg: return special(w, o, lane);
      case Opnd::Sink: return 0;
      default: fail(w, lane, "this operand is not a value");
    }
  }

  uint64_t special(const Warp& w, const Opnd& o, int lane) const {
    const uint32_t t = w.index * kLanes + static_cast<uint32_t>(lane);
    const uint32_t tid[3] = {t % cfg_.block.x, t / cfg_.block.x % cfg_.block.y, t / (cfg_.block.x * cfg_.block.y)};
    const uint32_t ntid[3] = {cfg_.block.x, cfg_.block.y, cfg_.block.z};
    const uint32_t nctaid[3] = {cfg_.grid.x, cfg_.grid.y, cfg_.grid.z};
    const uint32_t bit = 1u << lane;
    if (o.comp == 3) return 0;  // .w of the vector special registers: unused, always 0
    switch (static_cast<Sreg>(o.sreg)) {
      case Sreg::Tid: return tid[o.comp];
      case Sreg::Ntid: return ntid[o.comp];
      case Sreg::Ctaid: return c_->ctaid[o.comp];
      case Sreg::Nctaid: return nctaid[o.comp];
      case Sreg::Laneid: return static_cast<uint64_t>(lane);
      case Sreg::Warpid: return w.index;
      case Sreg::Nwarpid: return c_->warps.size();
      case Sreg::Smid: case Sreg::Gridid: return 0;
      case Sreg::Nsmid: return 1;
      case Sreg::Clock: case Sreg::Clock64: return stats_.warp_instructions;
      case Sreg::Globaltimer:
        return static_cast<uint64_t>(std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::system_clock::now().time_since_epoch()).count());
      case Sreg::LanemaskEq: return bit;
      case Sreg::LanemaskLe: return (bit << 1) - 1;
      case Sreg::LanemaskLt: return bit - 1;
      case Sreg::LanemaskGe: return ~(bit - 1) & 0xFFFFFFFFu;
      case Sreg::LanemaskGt: return ~((bit << 1) - 1) & 0xFFFFFFFFu;
      case Sreg::DynamicSmemSize: return cfg_.dynamic_smem;
      case Sreg::TotalSmemSize: return c_->smem.size();
      case Sreg::Clusterid: return c_->ctaid[o.comp] / cdim_[o.comp];
      case Sreg::Nclusterid: return nctaid[o.comp] / cdim_[o.comp];
      case Sreg::ClusterCtaid: return c_->ctaid[o.comp] % cdim_[o.comp];
      case Sreg::ClusterCtarank: return c_->rank;
      case Sreg::ClusterNctaid: return cdim_[o.comp];
      case Sreg::ClusterNctarank: return ctas_.size();
      case Sreg::IsExplicitCluster: return ctas_.size() > 1 || p_.req_cluster[0] || p_.explicit_cluster;
      case Sreg::ClockHi: return stats_.warp_instructions >> 32;
      case Sreg::GlobaltimerLo:
      case Sreg::GlobaltimerHi: {
        const uint64_t ns = static_cast<uint64_t>(std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::system_clock::now().time_since_epoch()).count());
        return o.sreg == static_cast<uint8_t>(Sreg::GlobaltimerLo) ? ns & 0xFFFFFFFFu : ns >> 32;
      }
      case Sreg::Zero: return 0;
    }
    return 0;
  }

  // ---- memory --------------------------------------------------------------------------------
  // `align`: the alignment the access needs when it is not its size's (0: min(size, 16)).
  // `stored`: the bytes a store writes, when known (race_check takes a second write of the same bytes).
  uint8_t* access(Warp& w, int lane, const DInst& in, const Opnd& a, unsigned size, bool store, unsigned align = 0,
                  const uint8_t* stored = nullptr) {
    uint64_t addr = (a.slot != kNoSlot ? reg(w, a.slot, lane) : 0) + a.imm;
    Space sp = in.space;
    if (a.symbol && a.space == Space::Local) {  // a frame variable (.local, or a call's .param): relative to the frame
      sp = Space::Local;
      addr += w.sp[lane];
    }
    if (sp == Space::Generic && a.symbol && a.slot == kNoSlot) sp = a.space;
    return resolve(w, lane, sp, addr, size, store, align, stored);
  }

  static bool in_param_window(uint64_t addr) { return addr >= kParamWindow && addr < kParamWindow + kWindowSize; }
  // The bytes at `addr` in space `sp` (Generic: by the address's window), checked.
  uint8_t* resolve(Warp& w, int lane, Space sp, uint64_t addr, unsigned size, bool store, unsigned align = 0,
                   const uint8_t* stored = nullptr) {
    if (sp == Space::Generic && in_param_window(addr)) sp = Space::Param, addr -= kParamWindow;
    if (sp == Space::Generic) {
      if (addr >= kSharedWindow && addr < kSharedWindow + kWindowSize) sp = Space::SharedCluster, addr -= kSharedWindow;
      else if (addr >= kLocalWindow && addr < kLocalWindow + kWindowSize) sp = Space::Local, addr -= kLocalWindow;
      else sp = Space::Global;
    }
    if (align == 0) align = std::min<unsigned>(size, 16);
    if (opt_.check_memory && align > 1 && addr % align != 0)
      fail(w, lane, fmt::format("misaligned {}-byte {} at {}", size, store ? "store" : "load", describe(sp, addr)));
    if (sp == Space::SharedCluster) {
      const uint64_t field = addr >> kRankShift;
      if (field == 0 || field == c_->rank + 1) {
        sp = Space::Shared, addr &= kOffsetMask;
      } else {  // distributed shared memory: another CTA of the cluster (not race-checked)
        const uint64_t rank = field - 1, off = addr & kOffsetMask;
        if (rank >= ctas_.size())
          fail(w, lane, fmt::format("{}-byte {} at shared::cluster address {:#x}: CTA rank {} is out of range (the cluster has {} CTA{})", size,
                                    store ? "store" : "load", addr, rank, ctas_.size(), ctas_.size() == 1 ? "" : "s"));
        Cta& t = ctas_[rank];
        if (!fits(off, size, t.smem.size()))
          fail(w, lane, fmt::format("{}-byte {} at shared+{} of CTA rank {}: out of bounds (the CTA has {} bytes)", size, store ? "store" : "load",
                                    off, rank, t.smem.size()));
        if (opt_.check_races && !sync_access_) race_check(w, lane, t, off, size, store, stored);
        if (store) std::memset(t.written.data() + off, 1, size);
        else if (opt_.check_shared_init)
          for (unsigned i = 0; i < size; ++i)
            if (!t.written[off + i]) fail(w, lane, fmt::format("load of shared+{} of CTA rank {}: never written in that CTA", off + i, rank));
        return t.smem.data() + off;
      }
    }
    switch (sp) {
      case Space::Global:
      case Space::Const: {
        uint8_t* p = mem_.find(addr, size);
        if (!p) fail(w, lane, fmt::format("{}-byte {} at {}: out of bounds", size, store ? "store" : "load", mem_.describe(addr)));
        return p;
      }
      case Space::Shared:
        if (!fits(addr, size, c_->smem.size()))
          fail(w, lane, fmt::format("{}-byte {} at {}: out of bounds (the CTA has {} bytes)", size, store ? "store" : "load", at_offset("shared", addr),
                                    c_->smem.size()));
        if (opt_.check_races && !sync_access_) race_check(w, lane, *c_, addr, size, store, stored);
        if (store) std::memset(c_->written.data() + addr, 1, size);
        else if (opt_.check_shared_init)
          for (unsigned i = 0; i < size; ++i)
            if (!c_->written[addr + i]) fail(w, lane, fmt::format("load of shared+{}: never written in this CTA", addr + i));
        return c_->smem.data() + addr;
      case Space::Param:
        if (store) fail(w, lane, "store to a kernel parameter");
        if (!fits(addr, size, params_.size()))
          fail(w, lane, fmt::format("{}-byte load at {}: out of bounds (the parameters have {} bytes)", size, at_offset("param", addr), params_.size()));
        return params_.data() + addr;
      case Space::Local:
        if (!fits(addr, size, w.local[lane].size()))
          fail(w, lane, fmt::format("{}-byte {} at {}: outside the thread's frames ({} bytes)", size, store ? "store" : "load", at_offset("local", addr),
                                    w.local[lane].size()));
        return w.local[lane].data() + addr;
      default: fail(w, lane, "this state space is not supported yet");
    }
  }

  void builtin(Warp& w, int lane, const FuncInfo& f, const DInst& in);

  // ---- shared-memory race checking (racecheck) ----------------------------------------
  // Per byte: the last writer and reader. Two accesses, one of them a write, race unless a
  // synchronization lies between them: for threads of one CTA, the end of that CTA's epoch (a
  // barrier release, a phase completion of an mbarrier in it or arrived on by it, a
  // barrier.cluster), or for lanes of one warp a bar.warp.sync (__syncwarp); for threads of different CTAs of a cluster (distributed shared memory),
  // the end of the cluster's cross epoch (a barrier.cluster, or an mbarrier phase that threads of
  // another CTA arrived on). Atomics and mbarrier operations do not count.
  bool sync_access_ = false;
  uint32_t cross_epoch_ = 1;

  // A thread of the cluster in the shadow: its CTA rank (up to 15) above its index in the CTA (up to 1023).
  static constexpr unsigned kThreadBits = 10;
  Shadow::Access current_access(const Warp& w, int lane) const {
    return {static_cast<uint16_t>(c_->rank << kThreadBits | (w.index * kLanes + static_cast<uint32_t>(lane))), w.syncs, c_->epoch, cross_epoch_};
  }
  // A synchronization lies between access `a` (0 epoch: none yet) and an access of `now`'s thread.
  static bool synced(const Shadow::Access& a, const Shadow::Access& now) {
    if (a.epoch == 0) return true;
    if (a.thread >> kThreadBits != now.thread >> kThreadBits) return a.cross != now.cross;
    const bool same_warp = (a.thread & ((1u << kThreadBits) - 1)) / kLanes == (now.thread & ((1u << kThreadBits) - 1)) / kLanes;
    return a.epoch != now.epoch || (same_warp && a.warp_syncs != now.warp_syncs);
  }

  std::string thread_name(uint32_t t) const {
    return fmt::format("({},{},{})", t % cfg_.block.x, t / cfg_.block.x % cfg_.block.y, t / (cfg_.block.x * cfg_.block.y));
  }
  // A shadow's thread, named from the point of view of the memory's CTA `mem_rank`.
  std::string shadow_thread_name(uint32_t id, uint32_t mem_rank) const {
    const uint32_t rank = id >> kThreadBits;
    return thread_name(id & ((1u << kThreadBits) - 1)) + (rank == mem_rank ? "" : fmt::format(" of CTA rank {}", rank));
  }

  // The bytes `st` stores for lane l (element i at i * es); false when an element is a sink (`_`),
  // whose bytes the store leaves alone.
  bool store_bytes(Warp& w, const Opnd& v, unsigned vec, unsigned es, int l, uint8_t* out) {
    for (unsigned i = 0; i < vec; ++i) {
      uint32_t slot = v.slot;
      if (v.kind == Opnd::Vec && (slot = p_.vec_slots[v.slot + i]) == kNoSlot) return false;
      if (es == 16) {  // .b128: a register of two slots
        const uint64_t x[2] = {reg(w, slot, l), reg(w, slot + 1, l)};
        std::memcpy(out + i * es, x, 16);
      } else {
        const uint64_t x = v.kind == Opnd::Vec ? reg(w, slot, l) : value(w, v, l);
        std::memcpy(out + i * es, &x, es);
      }
    }
    return true;
  }

  // A write of the byte the unordered write before it left there (`stored`, when the store knows its
  // bytes) is no race: either order leaves the same memory, and compilers rely on it (Triton's
  // stores of a value several threads hold, e.g. a row statistic held by each lane of a quad).
  // The first writer stays the byte's writer.
  void race_check(const Warp& w, int lane, Cta& mem, uint64_t addr, unsigned size, bool store, const uint8_t* stored = nullptr) {
    const Shadow::Access now = current_access(w, lane);
    for (uint64_t i = addr; i < addr + size; ++i) {
      Shadow& sh = mem.shadow[i];
      const bool unordered_write = sh.writer.thread != now.thread && !synced(sh.writer, now);
      const bool same_bytes = store && stored && stored[i - addr] == mem.smem[i];
      if (unordered_write && !same_bytes)
        fail(w, lane, fmt::format("shared-memory race: {} of shared+{}{} after a write by thread {}, with no barrier between",
                                  store ? "a write" : "a read", i, where(mem), shadow_thread_name(sh.writer.thread, mem.rank)));
      const bool read_since = !synced(sh.reader, now);
      if (store && read_since && (sh.reader.thread != now.thread || sh.many_readers))
        fail(w, lane, fmt::format("shared-memory race: a write of shared+{}{} after a read by thread {}, with no barrier between", i, where(mem),
                                  shadow_thread_name(sh.reader.thread != now.thread ? sh.reader.thread : now.thread + 1, mem.rank)));
      if (store) {
        if (!unordered_write) sh.writer = now;
      } else if (!read_since) {
        sh.reader = now;
        sh.many_readers = false;
      } else if (sh.reader.thread != now.thread) {
        sh.many_readers = true;
      }
    }
  }
  std::string where(const Cta& mem) const { return &mem == c_ ? "" : fmt::format(" of CTA rank {}", mem.rank); }
  std::string c_string(Warp& w, int lane, uint64_t addr);

  // "shared+16"; an offset no window has (an index that went negative) in hex: "shared+0xfffffffffffffffc".
  static std::string at_offset(const char* space, uint64_t offset) {
    return offset < kWindowSize ? fmt::format("{}+{}", space, offset) : fmt::format("{}+{:#x}", space, offset);
  }
  std::string describe(Space sp, uint64_t addr) const {
    if (sp == Space::Shared) return at_offset("shared", addr);
    if (sp == Space::SharedCluster) return fmt::format("shared::cluster address {:#x}", addr);
    if (sp == Space::Param) return at_offset("param", addr);
    if (sp == Space::Local) return at_offset("local", addr);
    return mem_.describe(addr);
  }

  // ---- one instruction for the lanes at the lowest pc ------------------------------------------
  static bool is_control(Opc op) {
    return op == Opc::Bra || op == Opc::Brx || op == Opc::Ret || op == Opc::Exit || op == Opc::Bar || op == Opc::Call || op == Opc::ClusterBar;
  }
  void call(Warp& w, const DInst& in, uint32_t exec, uint32_t pc);
  uint8_t* commit_mbarrier(Warp& w, int l, const DInst& in);
  void ret(Warp& w, uint32_t exec);
  void movmatrix(Warp& w, const DInst& in, uint32_t exec, uint32_t active);
  // A warp-collective .sync.aligned instruction (ldmatrix, mma, wmma, ...) is, for the race
  // checker, a synchronization point of the warp's lanes as bar.warp.sync is: the lanes' accesses
  // before it are ordered with its own, and those with the accesses after it.
  template <class Run>
  void warp_collective(Warp& w, const DInst& in, Run run) {
    if (in.warp_sync) ++w.syncs;
    run();
    if (in.warp_sync) ++w.syncs;
  }
  // Calls move arguments and results element by element (a vector register's elements); at most
  // 32 arguments or results of up to 4 elements each.
  static constexpr uint32_t kCallValues = 128;
  struct CallPlace {
    bool reg;
    uint32_t at, elems;
  };
  struct CallElems {
    uint32_t n, es;  // elements, bytes each (in a frame)
  };
  CallPlace call_place(uint32_t a) const;
  [[nodiscard]] CallElems call_elems(Warp& w, int l, const FuncInfo& f, const Formal& fm, uint32_t reg_elems,
                                     const char* what, uint32_t k);
  void load_elems(Warp& w, int l, bool in_regs, uint32_t at, uint32_t sp, CallElems e, uint64_t* out);
  void store_elems(Warp& w, int l, bool in_regs, uint32_t at, uint32_t sp, CallElems e, const uint64_t* in);

  void step(Warp& w) {
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
        if (!w.tc_loading.empty()) [[unlikely]]
          tcgen05_unwaited(w, in, exec);
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
    if (!w.tc_loading.empty()) [[unlikely]]
      tcgen05_unwaited(w, in, exec);
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

  void execute(Warp& w, const DInst& in, uint32_t exec, uint32_t active, uint32_t& advance);

  // A branch every live lane of a uniform warp takes, or none does (a loop's back edge): the warp
  // stays uniform. False (nothing done) when the lanes diverge.
  bool uniform_branch(Warp& w, const DInst& in) {
    if (in.ops[0].kind != Opnd::Label) return false;
    uint32_t exec = w.live;
    if (in.guard != kNoSlot) {
      exec = 0;
      for (uint32_t m = w.live; m; m &= m - 1)
        if ((reg(w, in.guard, std::countr_zero(m)) != 0) != in.guard_neg) exec |= 1u << std::countr_zero(m);
      if (exec != 0 && exec != w.live) return false;
    }
    if (!w.tc_loading.empty()) [[unlikely]]
      tcgen05_unwaited(w, in, exec);
    ++stats_.warp_instructions;
    stats_.thread_instructions += static_cast<uint64_t>(std::popcount(exec));
    w.upc = exec ? static_cast<uint32_t>(in.ops[0].imm) : w.upc + 1;
    return true;
  }

  // An instruction that uses a register a tcgen05.ld of the warp writes, before tcgen05.wait::ld:
  // on the GPU the load may not have completed (a second tcgen05.ld to it races too).
  [[gnu::noinline]] void tcgen05_unwaited(Warp& w, const DInst& in, uint32_t exec) {
    if (in.op == Opc::Tcgen05 && (static_cast<Tc05Op>(in.sub) == Tc05Op::WaitLd)) return;
    auto check = [&](uint32_t slot) {
      if (slot != kNoSlot && std::find(w.tc_loading.begin(), w.tc_loading.end(), slot) != w.tc_loading.end())
        fail(w, exec ? std::countr_zero(exec) : 0,
             fmt::format("uses a register that {} writes, before tcgen05.wait::ld (on the GPU the load may still be in flight)",
                         p_.texts[p_.code[w.tc_load_pc].stmt]));
    };
    if (in.guard != kNoSlot) check(in.guard);
    for (unsigned i = 0; i < in.nops; ++i) {
      const Opnd& o = in.ops[i];
      if (o.kind == Opnd::Reg || o.kind == Opnd::RegPlus || o.kind == Opnd::Addr) check(o.slot);
      else if (o.kind == Opnd::Pair) check(o.slot), check(o.slot2);
      else if (o.kind == Opnd::Vec)
        for (uint32_t k = 0; k < o.count; ++k) check(p_.vec_slots[o.slot + k]);
    }
  }

  void write(Warp& w, const Opnd& d, int lane, uint64_t v, Ty t) {
    if (d.kind == Opnd::Reg) [[likely]]
      reg(w, d.slot, lane) = t.k == 'p' ? (v != 0) : mask_bits(v, t.bits);
    else if (d.kind == Opnd::Pair) {
      if (d.slot != kNoSlot) reg(w, d.slot, lane) = mask_bits(v, t.bits);
    }
    else if (d.kind != Opnd::Sink) fail(w, lane, "the destination is not a register");
  }

  const Program& p_;
  Memory& mem_;
  const Options& opt_;
  const LaunchConfig& cfg_;
  std::vector<uint8_t> params_;
  Stats& stats_;
  LaunchBudget& budget_;
  LaunchWatch& watch_;
  uint64_t held_ = 0;       // bytes of budget_ this runner holds (given back when it ends)
  uint64_t bulk_steps_ = 0; // steps a bulk instruction adds for its work beyond one (st.bulk, cp.async.bulk)
  uint64_t heap_used_ = 0;  // device malloc, this runner's share
  uint64_t mbar_epoch_ = 0;                        // changes with every arrival and transaction (in the cluster)
  uint64_t mbar_generation_ = 0;                   // mbarrier.init count (Mbarrier::generation)
  std::vector<Cta> ctas_;                          // the cluster's CTAs, by rank
  Cta* c_ = nullptr;                               // the CTA running
  uint32_t cdim_[3] = {1, 1, 1};                   // the cluster's shape
  uint64_t cluster_phase_ = 0;                     // completed phases of the cluster barrier
  void mbarrier(Warp& w, const DInst& in, uint32_t exec, uint32_t active);
  void set(Warp& w, const DInst& in, uint32_t exec);
  // cvt.pack.sat.ctype.s32{.b32} d, a, b{, c}: a and b saturated to ctype, a's bits above b's; the 8-,
  // 4- and 2-bit forms fill the rest of d from c's low bits.
  void cvt_pack(Warp& w, const DInst& in, uint32_t exec) {
    const unsigned n = in.type.bits;
    const int64_t lo = in.type.k == 's' ? -(int64_t{1} << (n - 1)) : 0, hi = in.type.k == 's' ? (int64_t{1} << (n - 1)) - 1 : (int64_t{1} << n) - 1;
    for (uint32_t m = exec; m; m &= m - 1) {
      const int l = std::countr_zero(m);
      auto sat = [&](const Opnd& o) { return mask_bits(static_cast<uint64_t>(std::clamp(sext(value(w, o, l), 32), lo, hi)), n); };
      uint64_t d = sat(in.ops[1]) << n | sat(in.ops[2]);
      if (n < 16) d |= value(w, in.ops[3], l) << (2 * n);
      write(w, in.ops[0], l, d, Ty{'b', 32});
    }
  }
  // add.sat.s32 / sub.sat.s32: the exact result clamped to [INT_MIN, INT_MAX].
  void saturating_add_sub(Warp& w, const DInst& in, uint32_t exec) {
    for (uint32_t m = exec; m; m &= m - 1) {
      const int l = std::countr_zero(m);
      const int64_t a = sext(value(w, in.ops[1], l), 32), b = sext(value(w, in.ops[2], l), 32);
      const int64_t r = std::clamp<int64_t>(in.op == Opc::Add ? a + b : a - b, INT32_MIN, INT32_MAX);
      write(w, in.ops[0], l, static_cast<uint64_t>(r), in.type);
    }
  }
  void cp_async(Warp& w, const DInst& in, uint32_t exec);
  void ldmatrix(Warp& w, const DInst& in, uint32_t exec, bool store);
  void mma(Warp& w, const DInst& in, uint32_t exec);
  void wgmma(Warp& w, const DInst& in, uint32_t exec);
  void wmma(Warp& w, const DInst& in, uint32_t exec);
  void tcgen05(Warp& w, const DInst& in, uint32_t exec);
  void tcgen05_settled(Warp& w, int lane, uint32_t column, uint32_t columns, const char* what);
  void tensor_copy(Warp& w, const DInst& in, uint32_t exec);
  void texture(Warp& w, const DInst& in, uint32_t exec);
  void tensormap_op(Warp& w, const DInst& in, uint32_t exec);
  void cluster_launch_control(Warp& w, const DInst& in, uint32_t exec);
  // ---- the launch's memory budget (Options::max_launch_memory, max_stack_bytes) ----------------
  bool take(uint64_t bytes) {
    if (!budget_.take(bytes)) return false;
    held_ += bytes;
    return true;
  }
  void give_back(uint64_t bytes) {
    budget_.give_back(bytes);
    held_ -= bytes;
  }
  std::string budget_note() const {
    return fmt::format("the launch may hold {} bytes of host memory (Options::max_launch_memory, ptxpp run --max-memory); {} are in use",
                       budget_.limit(), budget_.used());
  }
  // What this CTA's state needs, from the budget (a CTA slot's first use; the next CTAs reuse it):
  // its registers, the kernel's frame of each thread, shared memory and its check shadows.
  void hold_cta_state(Cta& c) {
    const uint64_t threads = uint64_t{cfg_.block.x} * cfg_.block.y * cfg_.block.z, warps = (threads + kLanes - 1) / kLanes;
    const uint64_t frame = p_.funcs[0].frame;
    if (frame > max_stack())
      throw Error(fmt::format("kernel {}: its .local variables take {} bytes per thread; the stack limit is {} (Options::max_stack_bytes)", p_.name,
                              frame, max_stack()));
    const uint64_t smem = uint64_t{p_.static_smem} + cfg_.dynamic_smem;
    const uint64_t regs = warps * p_.slots * kLanes * sizeof(uint64_t), frames = warps * kLanes * frame;
    const uint64_t shared = smem * (2 + (opt_.check_races ? sizeof(Shadow) : 0));
    const uint64_t bytes = regs + frames + shared;
    if (bytes <= c.held) return;
    if (!take(bytes - c.held))
      throw Error(fmt::format("kernel {}, CTA ({},{},{}): its state needs {} bytes of host memory ({} for {} registers in {} warps, {} for the "
                              "threads' .local frames, {} for {} bytes of shared memory and its checks): more than is left: {}",
                              p_.name, c.ctaid[0], c.ctaid[1], c.ctaid[2], bytes, regs, p_.slots, warps, frames, shared, smem, budget_note()));
    c.held = bytes;
  }
  uint64_t max_stack() const { return std::min<uint64_t>(opt_.max_stack_bytes, 0xFFFFFFF0u); }  // frame offsets are 32-bit
  // A lane's stack beyond the kernel's frame is charged as it grows (grow_stack) and freed here
  // when its CTA slot is reused: what one CTA's recursion took is not kept for the next.
  void release_stack(std::vector<uint8_t>& stack) {
    const uint64_t frame = p_.funcs[0].frame;
    if (stack.capacity() <= frame) return;
    give_back(stack.capacity() - frame);
    std::vector<uint8_t>().swap(stack);
  }
  // Lane `l`'s stack to `bytes` (zero-filled), within the stack limit and the launch's budget;
  // what() names the instruction for a report.
  template <class What>
  void grow_stack(Warp& w, int l, uint64_t bytes, What what) {
    std::vector<uint8_t>& stack = w.local[l];
    if (bytes <= stack.size()) return;
    if (bytes > max_stack())
      fail(w, l, fmt::format("{}: the thread's stack would reach {} bytes; the limit is {} (call frames and alloca: Options::max_stack_bytes)", what(),
                             bytes, max_stack()));
    const uint64_t frame = p_.funcs[0].frame;
    auto beyond_frame = [&](uint64_t capacity) { return capacity > frame ? capacity - frame : 0; };
    const uint64_t cap = std::max<uint64_t>(bytes, std::min<uint64_t>(2 * stack.capacity(), max_stack()));
    if (cap > stack.capacity()) {
      if (!take(beyond_frame(cap) - beyond_frame(stack.capacity())))
        fail(w, l, fmt::format("{}: {} more bytes of stack: {}", what(), cap - stack.capacity(), budget_note()));
      stack.reserve(cap);
    }
    stack.resize(bytes, 0);
  }
  // A call's saved registers (recursion) come from the budget too.
  void hold_frame(Warp& w, int l, uint64_t bytes, const std::string& callee) {
    if (!take(bytes)) fail(w, l, fmt::format("call to {}: {} bytes to save its registers: {}", callee, bytes, budget_note()));
  }
  // A *.sync warp collective's member mask (synccheck): each lane executing it is in the mask and
  // every live lane of the mask executes it with them; otherwise the result is undefined (the
  // GPU may hang), so it is reported.
  void sync_members(Warp& w, uint32_t exec, uint32_t active, const Opnd& mask_op) {
    if (!opt_.check_sync || exec == 0) return;
    const uint32_t mask = static_cast<uint32_t>(value(w, mask_op, std::countr_zero(exec)));
    for (uint32_t m = exec; m; m &= m - 1)
      if (static_cast<uint32_t>(value(w, mask_op, std::countr_zero(m))) != mask)
        fail(w, std::countr_zero(m), fmt::format("the member mask {:#010x} differs from lane {}'s {:#010x}", value(w, mask_op, std::countr_zero(m)),
                                                 std::countr_zero(exec), mask));
    if (const uint32_t outside = exec & ~mask)
      fail(w, std::countr_zero(outside), fmt::format("lane {} executes it but is not in the member mask {:#010x}", std::countr_zero(outside), mask));
    if (const uint32_t missing = mask & w.live & ~exec)
      fail(w, std::countr_zero(exec),
           fmt::format("lane {} is in the member mask {:#010x} but does not execute it with lanes {:#010x} ({})", std::countr_zero(missing),
                       mask, exec, (active >> std::countr_zero(missing) & 1) ? "its guard predicate is false" : "it is elsewhere in the code"));
  }
  // .b128 values live in registers declared .b128 (two slots); vectors of them are not in the ISA.
  void b128_operands(Warp& w, uint32_t lanes, std::initializer_list<const Opnd*> ops, const char* what) {
    for (const Opnd* op : ops)
      if (op->kind != Opnd::Reg || p_.slot_types[op->slot].bits != 128)
        fail(w, std::countr_zero(lanes), fmt::format("{}.b128 needs a .b128 register for its 128-bit value", what));
  }
  void mov_b128(Warp& w, const DInst& in, uint32_t exec, uint32_t lanes);
  // .s16x2 / .u16x2 add, sub, min, max: each 16-bit half on its own (wrapping; min/max .relu clamps at 0)
  template <class Op>
  void pair16(Warp& w, const DInst& in, uint32_t exec, Op op) {
    const bool is_signed = in.type.k == 'S';
    for (uint32_t m = exec; m; m &= m - 1) {
      const int l = std::countr_zero(m);
      const uint64_t a = value(w, in.ops[1], l), b = value(w, in.ops[2], l);
      uint64_t r = 0;
      for (unsigned h = 0; h < 2; ++h) {
        const int64_t x = is_signed ? sext(a >> (16 * h), 16) : static_cast<int64_t>((a >> (16 * h)) & 0xFFFF);
        const int64_t y = is_signed ? sext(b >> (16 * h), 16) : static_cast<int64_t>((b >> (16 * h)) & 0xFFFF);
        int64_t v = op(x, y);
        if ((in.flags & kRelu) && v < 0) v = 0;
        r |= (static_cast<uint64_t>(v) & 0xFFFF) << (16 * h);
      }
      write(w, in.ops[0], l, r, Ty{'b', 32});
    }
  }
  void atom_b128(Warp& w, const DInst& in, uint32_t exec, uint32_t lanes);
  void red_vector(Warp& w, const DInst& in, uint32_t exec, uint32_t lanes);
  std::atomic<uint64_t>* next_ = nullptr;  // the launch's next cluster to run (run())
  uint64_t total_ = 0;                     // its clusters
  void bulk_reduce(Warp& w, int lane, const DInst& in);
  // st.async / red.async: `bytes` of transactions complete on the mbarrier at `bar`, in each lane.
  [[gnu::noinline]] void async_tx(Warp& w, uint32_t exec, const Opnd& bar, unsigned bytes) {
    for (uint32_t m = exec; m; m &= m - 1) {
      const int l = std::countr_zero(m);
      sync_access_ = true;
      uint8_t* p = resolve(w, l, Space::SharedCluster, (bar.slot != kNoSlot ? reg(w, bar.slot, l) : 0) + bar.imm, 8, true);
      sync_access_ = false;
      mbar_signal(w, l, p, bytes, 0);
    }
  }
  // The ranks of a .multicast::cluster ctaMask.
  [[gnu::noinline]] std::vector<uint32_t> mask_ranks(Warp& w, int lane, uint64_t mask) {
    mask &= 0xFFFF;
    std::vector<uint32_t> ranks;
    for (uint64_t m = mask; m; m &= m - 1) {
      const uint32_t r = static_cast<uint32_t>(std::countr_zero(m));
      if (r >= ctas_.size()) fail(w, lane, fmt::format("ctaMask {:#x} names CTA rank {}: the cluster has {} CTA{}", mask, r, ctas_.size(), ctas_.size() == 1 ? "" : "s"));
      ranks.push_back(r);
    }
    return ranks;
  }
  // A shared::cluster address (or a generic one, in `sp`) moved to the same offset in CTA `rank`.
  uint64_t with_rank(uint64_t a, Space sp, uint64_t rank) const {
    const bool generic = sp == Space::Generic;
    const uint64_t off = (generic ? a - kSharedWindow : a) & kOffsetMask;
    const uint64_t r = rank == c_->rank ? off : ((rank + 1) << kRankShift) | off;
    return generic ? r + kSharedWindow : r;
  }
  Opnd rebased(Warp& w, int lane, const Opnd& a, Space sp, uint32_t rank) {
    Opnd o;
    o.kind = Opnd::Addr;
    o.imm = with_rank((a.slot != kNoSlot ? reg(w, a.slot, lane) : 0) + a.imm, sp, rank);
    return o;
  }
  // The CTA of the cluster whose shared memory holds `p`, and the offset there.
  std::pair<Cta*, uint64_t> owner_cta(const uint8_t* p) {
    for (Cta& c : ctas_)
      if (!c.smem.empty() && p >= c.smem.data() && p < c.smem.data() + c.smem.size()) return {&c, static_cast<uint64_t>(p - c.smem.data())};
    return {nullptr, 0};
  }
  // The mbarrier at `p` (shared memory of a CTA of the cluster): `tx` bytes of transactions done, `arrivals` arrivals.
  void mbar_signal(Warp& w, int lane, const uint8_t* p, int64_t tx, uint32_t arrivals) {
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
  void note_arrival(const Cta& owner, Mbarrier& b) const {
    if (&owner != c_) b.remote |= 1u << c_->rank;
  }
  // A phase completes: it orders what its arrivers did before it before what its waiters do
  // after, so the race-check epochs of the mbarrier's CTA and of every CTA that arrived end.
  void complete_phase(Cta& owner, Mbarrier& b) {
    ++b.phase;
    b.pending = b.expected;
    ++owner.epoch;
    for (uint32_t m = b.remote; m; m &= m - 1) ++ctas_[static_cast<size_t>(std::countr_zero(m))].epoch;
    if (b.remote) ++cross_epoch_;
    b.remote = 0;
  }
};

// ---- arithmetic on typed bits ---------------------------------------------------------------

// ---- narrow floating-point formats (f16, bf16, e4m3, e5m2, tf32), packed in pairs ------

bool narrow(Ty t) {
  switch (t.k) {
    case 'h': case 'B': case 'E': case 'M': case 't': case '4': case '6': case '7': case '8': return true;
    default: return false;
  }
}
Format format_of(Ty t) {
  switch (t.k) {
    case 'h': return Format::F16;
    case 'B': return Format::BF16;
    case 'E': return Format::E4M3;
    case 'M': return Format::E5M2;
    case '4': return Format::E2M1;
    case '6': return Format::E2M3;
    case '7': return Format::E3M2;
    case '8': return Format::UE8M0;
    default: return Format::TF32;
  }
}
unsigned element_bits(Ty t) {
  if (t.k == '4') return 4;
  return t.k == 'E' || t.k == 'M' || t.k == '6' || t.k == '7' || t.k == '8' ? 8 : t.k == 't' ? 32 : 16;
}
// The elements of a packed half type (.f16x2, .bf16x2: 2), else 1.
unsigned packed_elements(Ty t) { return (t.k == 'h' || t.k == 'B') && t.bits == 32 ? 2 : 1; }
DirectedMode directed_mode(uint32_t flags) {  // of .rz/.rm/.rp
  return (flags & kRz) ? DirectedMode::Zero : (flags & kRm) ? DirectedMode::Down : DirectedMode::Up;
}
Rounding rounding_of(uint32_t flags) {
  if (flags & kRna) return Rounding::NearestAway;
  if (flags & kRz) return Rounding::Zero;
  if (flags & kRm) return Rounding::Down;
  if (flags & kRp) return Rounding::Up;
  return Rounding::Nearest;
}
uint32_t element(uint64_t v, unsigned i, unsigned eb) {
  return static_cast<uint32_t>((v >> (i * eb)) & (eb >= 32 ? 0xFFFFFFFFull : (uint64_t{1} << eb) - 1));
}

// f applied to each element of packed narrow values, computed in double and rounded once.
template <class F>
uint64_t narrow_op(Ty t, uint32_t flags, uint64_t a, uint64_t b, uint64_t c, F f) {
  const Format fm = format_of(t);
  const unsigned eb = element_bits(t), n = std::max(1u, t.bits / eb);
  uint64_t out = 0;
  for (unsigned i = 0; i < n; ++i) {
    double r = f(decode(fm, element(a, i, eb)), decode(fm, element(b, i, eb)), decode(fm, element(c, i, eb)));
    if ((flags & kRelu) && !std::isnan(r)) r = std::max(r, 0.0);
    if (flags & kSat) r = std::isnan(r) ? 0.0 : std::clamp(r, 0.0, 1.0);
    out |= static_cast<uint64_t>(encode(fm, r, rounding_of(flags), flags & kSatfinite)) << (i * eb);
  }
  return out;
}

// Striped locks for atomics on memory that CTAs on several host threads share.
std::mutex& atomic_lock(const void* p) {
  static std::mutex locks[64];
  return locks[(reinterpret_cast<uintptr_t>(p) >> 3) % 64];
}

__extension__ typedef unsigned __int128 u128;
__extension__ typedef __int128 i128;

template <class F32, class F64, class I>
uint64_t arith(Ty t, uint32_t flags, uint64_t a, uint64_t b, F32 ff, F64 fd, I fi) {
  if (t.k == 'f') {
    if (t.bits == 32) {
      float x = f32(a), y = f32(b);
      if (flags & kFtz) x = ftz(x), y = ftz(y);
      float r = ff(x, y);
      if (flags & kFtz) r = ftz(r);
      if (flags & kSat) r = std::isnan(r) ? 0.0f : std::clamp(r, 0.0f, 1.0f);
      return canon(r);
    }
    double r = fd(f64(a), f64(b));
    if (flags & kSat) r = std::isnan(r) ? 0.0 : std::clamp(r, 0.0, 1.0);
    return bits_of(r);
  }
  return mask_bits(fi(a, b), t.bits);
}

// arith for atomics and reductions, whose f16/bf16(x2) values add per element in their format
// (arithmetic instructions reach narrow_op before arith).
template <class F32, class F64, class I>
uint64_t reduce_arith(Ty t, uint64_t a, uint64_t b, F32 ff, F64 fd, I fi) {
  if (narrow(t)) return narrow_op(t, 0, a, b, 0, [&](double x, double y, double) { return fd(x, y); });
  return arith(t, 0, a, b, ff, fd, fi);
}

bool compare(Cmp c, Ty t, uint64_t a, uint64_t b) {
  if (t.k == 'f' || narrow(t)) {
    const double x = narrow(t) ? decode(format_of(t), static_cast<uint32_t>(a)) : t.bits == 32 ? f32(a) : f64(a);
    const double y = narrow(t) ? decode(format_of(t), static_cast<uint32_t>(b)) : t.bits == 32 ? f32(b) : f64(b);
    const bool un = std::isnan(x) || std::isnan(y);
    switch (c) {
      case Cmp::Eq: return !un && x == y;
      case Cmp::Ne: return !un && x != y;
      case Cmp::Lt: case Cmp::Lo: return !un && x < y;
      case Cmp::Le: case Cmp::Ls: return !un && x <= y;
      case Cmp::Gt: case Cmp::Hi: return !un && x > y;
      case Cmp::Ge: case Cmp::Hs: return !un && x >= y;
      case Cmp::Equ: return un || x == y;
      case Cmp::Neu: return un || x != y;
      case Cmp::Ltu: return un || x < y;
      case Cmp::Leu: return un || x <= y;
      case Cmp::Gtu: return un || x > y;
      case Cmp::Geu: return un || x >= y;
      case Cmp::Num: return !un;
      case Cmp::Nan: return un;
    }
    return false;
  }
  const bool sgn = t.k == 's';
  const int64_t sa = sext(a, t.bits), sb = sext(b, t.bits);
  const uint64_t ua = mask_bits(a, t.bits), ub = mask_bits(b, t.bits);
  switch (c) {
    case Cmp::Eq: return ua == ub;
    case Cmp::Ne: return ua != ub;
    case Cmp::Lt: return sgn ? sa < sb : ua < ub;
    case Cmp::Le: return sgn ? sa <= sb : ua <= ub;
    case Cmp::Gt: return sgn ? sa > sb : ua > ub;
    case Cmp::Ge: return sgn ? sa >= sb : ua >= ub;
    case Cmp::Lo: return ua < ub;
    case Cmp::Ls: return ua <= ub;
    case Cmp::Hi: return ua > ub;
    case Cmp::Hs: return ua >= ub;
    default: return false;
  }
}

uint64_t convert_wide(Ty dst, Ty src, uint32_t flags, uint64_t v);

// cvt between any two of the supported types.
uint64_t convert(Ty dst, Ty src, uint32_t flags, uint64_t v) {
  if (!narrow(dst) && !narrow(src)) return convert_wide(dst, src, flags, v);
  double x;
  if (narrow(src)) x = decode(format_of(src), static_cast<uint32_t>(v));
  else if (src.k == 'f') x = src.bits == 32 ? f32(v) : f64(v);
  else x = src.k == 's' ? static_cast<double>(sext(v, src.bits)) : static_cast<double>(mask_bits(v, src.bits));
  if (narrow(dst)) {
    if ((flags & kRelu) && !std::isnan(x)) x = std::max(x, 0.0);
    if (flags & kSat) x = std::isnan(x) ? 0.0 : std::clamp(x, 0.0, 1.0);
    return encode(format_of(dst), x, rounding_of(flags), flags & kSatfinite);
  }
  // a narrow value is exact in f32 and f64; to integers: as from f64
  return convert_wide(dst, Ty{'f', 64}, flags, bits_of(x));
}

uint64_t convert_wide(Ty dst, Ty src, uint32_t flags, uint64_t v) {
  const bool sat = flags & kSat;
  if (src.k != 'f' && dst.k != 'f') {
    if (!sat) return mask_bits(src.k == 's' ? static_cast<uint64_t>(sext(v, src.bits)) : mask_bits(v, src.bits), dst.bits);
    const long double x = src.k == 's' ? static_cast<long double>(sext(v, src.bits)) : static_cast<long double>(mask_bits(v, src.bits));
    const long double lo = dst.k == 's' ? -std::ldexp(1.0L, dst.bits - 1) : 0.0L;
    const long double hi = dst.k == 's' ? std::ldexp(1.0L, dst.bits - 1) - 1 : std::ldexp(1.0L, dst.bits) - 1;
    const long double c = std::clamp(x, lo, hi);
    return mask_bits(dst.k == 's' ? static_cast<uint64_t>(static_cast<int64_t>(c)) : static_cast<uint64_t>(c), dst.bits);
  }
  const int mode = (flags & kRz) ? FE_TOWARDZERO : (flags & kRm) ? FE_DOWNWARD : (flags & kRp) ? FE_UPWARD : FE_TONEAREST;
  if (src.k == 'f' && dst.k == 'f') {
    double x = src.bits == 32 ? f32(v) : f64(v);
    if (flags & kIntRound) {
      const int saved = std::fegetround();
      std::fesetround(mode);
      x = std::nearbyint(x);
      std::fesetround(saved);
    }
    if (dst.bits == 32) {
      const int saved = std::fegetround();
      std::fesetround(mode);
      volatile float r = static_cast<float>(x);
      std::fesetround(saved);
      float out = r;
      if (flags & kFtz) out = ftz(out);
      if (sat) out = std::isnan(out) ? 0.0f : std::clamp(out, 0.0f, 1.0f);
      return bits_of(out);
    }
    if (sat) x = std::isnan(x) ? 0.0 : std::clamp(x, 0.0, 1.0);
    return bits_of(x);
  }
  if (src.k == 'f') {  // float -> integer: rounds as asked (.rzi default for truncation), saturates, NaN -> 0
    double x = src.bits == 32 ? f32(v) : f64(v);
    if (std::isnan(x)) return 0;
    const int saved = std::fegetround();
    std::fesetround(flags & (kRn | kRz | kRm | kRp) ? mode : FE_TOWARDZERO);
    x = std::nearbyint(x);
    std::fesetround(saved);
    // saturate against the range's bounds as doubles (2^63 - 1 is not one: the first value out
    // of range is), returning the extreme integers' bits
    const double lo = dst.k == 's' ? -std::ldexp(1.0, dst.bits - 1) : 0.0;
    const double past = dst.k == 's' ? std::ldexp(1.0, dst.bits - 1) : std::ldexp(1.0, dst.bits);
    if (x <= lo) return dst.k == 's' ? uint64_t{1} << (dst.bits - 1) : 0;
    if (x >= past) return dst.k == 's' ? (uint64_t{1} << (dst.bits - 1)) - 1 : mask_bits(~uint64_t{0}, dst.bits);
    return mask_bits(dst.k == 's' ? static_cast<uint64_t>(static_cast<int64_t>(x)) : static_cast<uint64_t>(x), dst.bits);
  }
  // integer -> float
  const int saved = std::fegetround();
  std::fesetround(mode);
  uint64_t out;
  if (dst.bits == 32) {
    volatile float r = src.k == 's' ? static_cast<float>(sext(v, src.bits)) : static_cast<float>(mask_bits(v, src.bits));
    out = bits_of(static_cast<float>(r));
  } else {
    volatile double r = src.k == 's' ? static_cast<double>(sext(v, src.bits)) : static_cast<double>(mask_bits(v, src.bits));
    out = bits_of(static_cast<double>(r));
  }
  std::fesetround(saved);
  return out;
}

void Runner::execute(Warp& w, const DInst& in, uint32_t exec, uint32_t active, uint32_t& advance) {
  const Ty t = in.type;
  const Opnd* o = in.ops;
  auto lanes = [&](auto&& f) {
    for (uint32_t m = exec; m; m &= m - 1) f(std::countr_zero(m));
  };
  // f32/f64 arithmetic with .rz/.rm/.rp: in that rounding mode (directed_rounding.cpp), then ftz and sat.
  auto directed = [&](FpOp op) {
    const F32Mode m{(in.flags & kFtz) != 0, true, directed_mode(in.flags)};
    const bool unary = op == FpOp::Sqrt || op == FpOp::Rcp;
    lanes([&](int l) {
      const uint64_t a = value(w, o[1], l), b = unary ? 0 : value(w, o[2], l), c = op == FpOp::Fma ? value(w, o[3], l) : 0;
      if (t.bits == 64) return write(w, o[0], l, bits_of(directed_f64(op, m.mode, f64(a), f64(b), f64(c))), t);
      float r = f32_arith(op, m, f32(a), f32(b), f32(c));
      if (in.flags & kSat) r = std::isnan(r) ? 0.0f : std::clamp(r, 0.0f, 1.0f);
      write(w, o[0], l, canon(r), t);
    });
  };
  const bool directed_rounding = t.k == 'f' && (in.flags & (kRz | kRm | kRp)) && !narrow(t);
  // add/sub/mul/fma.f32x2: each .f32 half as the .f32 instruction computes it (f32_arith.cpp)
  auto f32x2 = [&](FpOp op) {
    const F32Mode m{(in.flags & kFtz) != 0, (in.flags & (kRz | kRm | kRp)) != 0, directed_mode(in.flags)};
    lanes([&](int l) {
      const uint64_t c = op == FpOp::Fma ? value(w, o[3], l) : 0;
      write(w, o[0], l, packed_f32(op, m, value(w, o[1], l), value(w, o[2], l), c), t);
    });
  };
  auto binary = [&](auto ff, auto fd, auto fi) {
    if (narrow(t)) {
      lanes([&](int l) {
        write(w, o[0], l, narrow_op(t, in.flags, value(w, o[1], l), value(w, o[2], l), 0, [&](double x, double y, double) { return fd(x, y); }), t);
      });
      return;
    }
    lanes([&](int l) { write(w, o[0], l, arith(t, in.flags, value(w, o[1], l), value(w, o[2], l), ff, fd, fi), t); });
  };
  auto unary_f = [&](auto ff, auto fd) {
    lanes([&](int l) {
      const uint64_t a = value(w, o[1], l);
      uint64_t r;
      if (t.bits == 32) {
        float x = f32(a);
        if (in.flags & kFtz) x = ftz(x);
        float y = ff(x);
        if (in.flags & kFtz) y = ftz(y);
        r = canon(y);
      } else {
        r = bits_of(fd(f64(a)));
      }
      write(w, o[0], l, r, t);
    });
  };
  auto fma = [&] {
    if (directed_rounding) return directed(FpOp::Fma);
    if (narrow(t)) {
      lanes([&](int l) {
        const uint64_t a = value(w, o[1], l), b = value(w, o[2], l), c = value(w, o[3], l);
        uint64_t r = narrow_op(t, in.flags, a, b, c, [](double x, double y, double z) { return std::fma(x, y, z); });
        if (in.sub == kFmaOob)
          for (unsigned i = 0; i < t.bits / 16; ++i)
            if (element(a, i, 16) == kOobNaN16 || element(b, i, 16) == kOobNaN16 || element(c, i, 16) == kOobNaN16)
              r &= ~(uint64_t{0xFFFF} << (16 * i));
        write(w, o[0], l, r, t);
      });
      return;
    }
    lanes([&](int l) {
        const uint64_t a = value(w, o[1], l), b = value(w, o[2], l), c = value(w, o[3], l);
        if (t.bits == 32) {
          float x = f32(a), y = f32(b), z = f32(c);
          if (in.flags & kFtz) x = ftz(x), y = ftz(y), z = ftz(z);
          float r = std::fma(x, y, z);
          if (in.flags & kFtz) r = ftz(r);
          if (in.flags & kSat) r = std::isnan(r) ? 0.0f : std::clamp(r, 0.0f, 1.0f);
          write(w, o[0], l, canon(r), t);
        } else {
          write(w, o[0], l, bits_of(std::fma(f64(a), f64(b), f64(c))), t);
        }
      });
  };
  const bool sgn = t.k == 's';
  switch (in.op) {
    case Opc::Nop: return;
    case Opc::Mov:
      // mov.v2/.v4: element by element, between vector registers and brace lists (decode checked the counts)
      if (in.vec > 1) {
        lanes([&](int l) {
          uint64_t v[8] = {};
          for (uint32_t i = 0; i < in.vec; ++i) {
            Opnd element = o[1];  // mov.v4 d, %tid: the special register's x, y, z, w
            element.comp = static_cast<uint8_t>(i);
            if (o[1].kind == Opnd::Sreg)
              v[i] = special(w, element, l);
            else if (const uint32_t s = p_.vec_slots[o[1].slot + i]; s != kNoSlot)
              v[i] = reg(w, s, l);
          }
          for (uint32_t i = 0; i < in.vec; ++i)
            if (const uint32_t s = p_.vec_slots[o[0].slot + i]; s != kNoSlot) reg(w, s, l) = mask_bits(v[i], t.bits);
        });
        return;
      }
      if (t.bits == 128) return mov_b128(w, in, exec, exec ? exec : active);
      if ((o[0].kind == Opnd::Vec || o[1].kind == Opnd::Vec) &&
          (t.bits > 64 || t.bits % (o[0].kind == Opnd::Vec ? o[0].count : o[1].count) != 0))
        fail(w, std::countr_zero(exec ? exec : active), fmt::format("mov of a {}-element vector as a {}-bit value",
                                                                    o[0].kind == Opnd::Vec ? o[0].count : o[1].count, t.bits));
      if (o[0].kind == Opnd::Vec) {  // mov.b64 {lo, hi}, x: unpack
        const unsigned eb = t.bits / o[0].count;
        lanes([&](int l) {
          const uint64_t v = value(w, o[1], l);
          for (uint32_t i = 0; i < o[0].count; ++i)
            if (p_.vec_slots[o[0].slot + i] != kNoSlot) reg(w, p_.vec_slots[o[0].slot + i], l) = mask_bits(v >> (eb * i), eb);
        });
      } else if (o[1].kind == Opnd::Vec) {  // mov.b64 x, {lo, hi}: pack
        const unsigned eb = t.bits / o[1].count;
        lanes([&](int l) {
          uint64_t v = 0;
          for (uint32_t i = 0; i < o[1].count; ++i)
            v |= mask_bits(reg(w, p_.vec_slots[o[1].slot + i], l), eb) << (eb * i);
          write(w, o[0], l, v, t);
        });
      } else {
        lanes([&](int l) { write(w, o[0], l, value(w, o[1], l), t); });
      }
      return;
    case Opc::Add:
    case Opc::Sub:
      if (t.k == 'F') return f32x2(in.op == Opc::Add ? FpOp::Add : FpOp::Sub);
      if (t.k == 'S' || t.k == 'U') {
        if (in.op == Opc::Add) return pair16(w, in, exec, [](int64_t a, int64_t b) { return a + b; });
        return pair16(w, in, exec, [](int64_t a, int64_t b) { return a - b; });
      }
      if (in.flags & (kCarryIn | kCarryOut)) {  // carry chains: add.cc, addc, sub.cc, subc
        const bool sub = in.op == Opc::Sub;
        lanes([&](int l) {
          const uint64_t a = mask_bits(value(w, o[1], l), t.bits), b = mask_bits(value(w, o[2], l), t.bits);
          const uint64_t cin = (in.flags & kCarryIn) ? (w.carry >> l & 1) : 0;
          // subtraction is a + ~b + 1 with the carry meaning "no borrow" ... PTX's CC.CF is the borrow for sub
          const u128 wide = sub ? static_cast<u128>(a) - b - cin : static_cast<u128>(a) + b + cin;
          const uint64_t r = static_cast<uint64_t>(wide);
          if (in.flags & kCarryOut) {
            const bool c = t.bits == 64 ? (sub ? (a < b || (a == b && cin)) : static_cast<uint64_t>(wide >> 64) != 0)
                                        : (sub ? (a < b + cin) : (r >> t.bits) != 0);
            w.carry = (w.carry & ~(1u << l)) | (static_cast<uint32_t>(c) << l);
          }
          write(w, o[0], l, r, t);
        });
        return;
      }
      if (directed_rounding) return directed(in.op == Opc::Add ? FpOp::Add : FpOp::Sub);
      if ((in.flags & kSat) && t.k == 's') return saturating_add_sub(w, in, exec);
      if (in.op == Opc::Add)
        return binary([](float a, float b) { return a + b; }, [](double a, double b) { return a + b; },
                      [](uint64_t a, uint64_t b) { return a + b; });
      return binary([](float a, float b) { return a - b; }, [](double a, double b) { return a - b; },
                    [](uint64_t a, uint64_t b) { return a - b; });
    case Opc::Mul:
    case Opc::Mad:
      if (t.k == 'F') return f32x2(FpOp::Mul);  // mul only: decode refuses mad.f32x2
      if (t.k == 'f' || narrow(t)) {
        if (in.op == Opc::Mul && directed_rounding) return directed(FpOp::Mul);
        if (in.op == Opc::Mul)
          return binary([](float a, float b) { return a * b; }, [](double a, double b) { return a * b; },
                        [](uint64_t a, uint64_t b) { return a * b; });
        return fma();  // mad.f32 is fma.f32
      } else {
        lanes([&](int l) {
          const uint64_t a = value(w, o[1], l), b = value(w, o[2], l);
          const uint64_t c = in.op == Opc::Mad ? value(w, o[3], l) : 0;
          u128 prod;
          const unsigned bits = in.sub == kMul24 ? 24 : t.bits;  // mul24/mad24: the operands' low 24 bits
          if (sgn) prod = static_cast<u128>(static_cast<i128>(sext(a, bits)) * sext(b, bits));
          else prod = static_cast<u128>(mask_bits(a, bits)) * mask_bits(b, bits);
          uint64_t r;
          Ty rt = t;
          if (in.sub == kMul24) {
            r = static_cast<uint64_t>((in.flags & kHi) ? prod >> 16 : prod);  // .hi: bits 16..47 of the 48-bit product
          } else if (in.flags & kWide) {
            r = static_cast<uint64_t>(prod);
            rt.bits = static_cast<uint8_t>(t.bits * 2);
          } else if (in.flags & kHi) {
            r = static_cast<uint64_t>(prod >> t.bits);
          } else {
            r = static_cast<uint64_t>(prod);
          }
          if (in.flags & (kCarryIn | kCarryOut)) {  // mad.lo.cc, madc.hi: the addition carries in and out at the type's width
            const u128 sum = static_cast<u128>(mask_bits(r, t.bits)) + mask_bits(c, t.bits) + ((in.flags & kCarryIn) ? (w.carry >> l & 1) : 0);
            if (in.flags & kCarryOut) w.carry = (w.carry & ~(1u << l)) | (static_cast<uint32_t>(sum >> t.bits & 1) << l);
            return write(w, o[0], l, static_cast<uint64_t>(sum), rt);
          }
          write(w, o[0], l, r + c, rt);
        });
        return;
      }
    case Opc::Fma: return t.k == 'F' ? f32x2(FpOp::Fma) : fma();
    case Opc::Div:
      if (directed_rounding) return directed(FpOp::Div);
      if (t.k == 'f' || narrow(t))
        return binary([](float a, float b) { return a / b; }, [](double a, double b) { return a / b; },
                      [](uint64_t a, uint64_t) { return a; });
      lanes([&](int l) {
        const uint64_t a = value(w, o[1], l), b = value(w, o[2], l);
        uint64_t r;
        if (mask_bits(b, t.bits) == 0) r = ~uint64_t{0};
        else if (sgn && sext(b, t.bits) == -1) r = static_cast<uint64_t>(0 - static_cast<uint64_t>(sext(a, t.bits)));
        else r = sgn ? static_cast<uint64_t>(sext(a, t.bits) / sext(b, t.bits)) : mask_bits(a, t.bits) / mask_bits(b, t.bits);
        write(w, o[0], l, r, t);
      });
      return;
    case Opc::Rem:
      lanes([&](int l) {
        const uint64_t a = value(w, o[1], l), b = value(w, o[2], l);
        uint64_t r;
        if (mask_bits(b, t.bits) == 0) r = a;
        else if (sgn && sext(b, t.bits) == -1) r = 0;
        else r = sgn ? static_cast<uint64_t>(sext(a, t.bits) % sext(b, t.bits)) : mask_bits(a, t.bits) % mask_bits(b, t.bits);
        write(w, o[0], l, r, t);
      });
      return;
    case Opc::Neg:
      if (t.k == 'f' || narrow(t)) {  // a sign-bit flip of each element, NaN payload kept (as on the hardware)
        const unsigned eb = narrow(t) ? element_bits(t) : t.bits;
        uint64_t signs = 0;
        for (unsigned i = 0; i < t.bits / eb; ++i) signs |= uint64_t{1} << (i * eb + eb - 1);
        lanes([&](int l) { write(w, o[0], l, value(w, o[1], l) ^ signs, t); });
        return;
      }
      lanes([&](int l) { write(w, o[0], l, 0 - value(w, o[1], l), t); });
      return;
    case Opc::Abs:
      if (t.k == 'f' || narrow(t)) {  // clears the sign bit of each element
        const unsigned eb = narrow(t) ? element_bits(t) : t.bits;
        uint64_t signs = 0;
        for (unsigned i = 0; i < t.bits / eb; ++i) signs |= uint64_t{1} << (i * eb + eb - 1);
        lanes([&](int l) { write(w, o[0], l, value(w, o[1], l) & ~signs, t); });
        return;
      }
      lanes([&](int l) {
        const int64_t v = sext(value(w, o[1], l), t.bits);
        write(w, o[0], l, static_cast<uint64_t>(v < 0 ? 0 - static_cast<uint64_t>(v) : static_cast<uint64_t>(v)), t);
      });
      return;
    case Opc::Min:
    case Opc::Max: {
      const bool mx = in.op == Opc::Max;
      if (t.k == 'S' || t.k == 'U') return pair16(w, in, exec, [mx](int64_t a, int64_t b) { return mx ? std::max(a, b) : std::min(a, b); });
      if ((t.k == 'f' || narrow(t)) && (in.flags & kNaN))  // .NaN: a NaN input gives the canonical NaN
        return binary([mx](float a, float b) { return std::isnan(a) || std::isnan(b) ? NAN : mx ? std::max(a, b) : std::min(a, b); },
                      [mx](double a, double b) { return std::isnan(a) || std::isnan(b) ? NAN : mx ? std::max(a, b) : std::min(a, b); },
                      [](uint64_t a, uint64_t) { return a; });
      if (t.k == 'f' || narrow(t))
        return binary([mx](float a, float b) { return std::isnan(a) ? b : std::isnan(b) ? a : mx ? std::max(a, b) : std::min(a, b); },
                      [mx](double a, double b) { return std::isnan(a) ? b : std::isnan(b) ? a : mx ? std::max(a, b) : std::min(a, b); },
                      [](uint64_t a, uint64_t) { return a; });
      lanes([&](int l) {
        const uint64_t a = value(w, o[1], l), b = value(w, o[2], l);
        const bool less = sgn ? sext(a, t.bits) < sext(b, t.bits) : mask_bits(a, t.bits) < mask_bits(b, t.bits);
        write(w, o[0], l, (less != mx) ? a : b, t);
      });
      return;
    }
    case Opc::And: lanes([&](int l) { write(w, o[0], l, value(w, o[1], l) & value(w, o[2], l), t); }); return;
    case Opc::Or: lanes([&](int l) { write(w, o[0], l, value(w, o[1], l) | value(w, o[2], l), t); }); return;
    case Opc::Xor: lanes([&](int l) { write(w, o[0], l, value(w, o[1], l) ^ value(w, o[2], l), t); }); return;
    case Opc::Not: lanes([&](int l) { write(w, o[0], l, t.k == 'p' ? !value(w, o[1], l) : ~value(w, o[1], l), t); }); return;
    case Opc::Cnot: lanes([&](int l) { write(w, o[0], l, mask_bits(value(w, o[1], l), t.bits) == 0, t); }); return;
    case Opc::Shl:
      lanes([&](int l) {
        const uint64_t n = mask_bits(value(w, o[2], l), 32);
        write(w, o[0], l, n >= t.bits ? 0 : value(w, o[1], l) << n, t);
      });
      return;
    case Opc::Shr:
      lanes([&](int l) {
        const uint64_t n = std::min<uint64_t>(mask_bits(value(w, o[2], l), 32), t.bits);
        const uint64_t a = value(w, o[1], l);
        uint64_t r;
        if (sgn) r = static_cast<uint64_t>(n >= 64 ? (sext(a, t.bits) < 0 ? -1 : 0) : sext(a, t.bits) >> n);
        else r = n >= 64 ? 0 : mask_bits(a, t.bits) >> n;
        write(w, o[0], l, r, t);
      });
      return;
    case Opc::Popc: lanes([&](int l) { write(w, o[0], l, static_cast<uint64_t>(std::popcount(mask_bits(value(w, o[1], l), t.bits))), Ty{'u', 32}); }); return;
    case Opc::Clz:
      lanes([&](int l) {
        const uint64_t v = mask_bits(value(w, o[1], l), t.bits);
        write(w, o[0], l, static_cast<uint64_t>(std::countl_zero(v) - (64 - t.bits)), Ty{'u', 32});
      });
      return;
    case Opc::Fns:  // the position of the offset-th set bit of the mask from base (9.7.1.26), or all ones
      lanes([&](int l) {
        const uint32_t mask = static_cast<uint32_t>(value(w, o[1], l)), base = static_cast<uint32_t>(value(w, o[2], l));
        const int32_t offset = static_cast<int32_t>(value(w, o[3], l));
        uint32_t d = 0xFFFFFFFFu;
        if (offset == 0) {
          if (base < 32 && (mask >> base & 1)) d = base;
        } else {
          int64_t count = std::abs(static_cast<int64_t>(offset)) - 1;
          for (int64_t pos = base; pos >= 0 && pos < 32; pos += offset > 0 ? 1 : -1)
            if (mask >> pos & 1) {
              if (count == 0) {
                d = static_cast<uint32_t>(pos);
                break;
              }
              --count;
            }
        }
        write(w, o[0], l, d, Ty{'b', 32});
      });
      return;
    case Opc::Slct:  // slct.dtype.ctype d, a, b, c: a if c >= 0, else b (a NaN c gives b)
      lanes([&](int l) {
        const uint64_t c = value(w, o[3], l);
        float cf = f32(c);
        if ((in.flags & kFtz) && std::fpclassify(cf) == FP_SUBNORMAL) cf = 0;
        const bool pick_a = t.k == 'f' ? cf >= 0.0f : static_cast<int32_t>(c) >= 0;
        write(w, o[0], l, value(w, o[pick_a ? 1 : 2], l), in.type2);
      });
      return;
    case Opc::Bmsk:  // the mask of b bits from bit a (9.7.1.24); .clamp: a or b over 31 as the manual says
      lanes([&](int l) {
        const uint64_t a = mask_bits(value(w, o[1], l), 32), b = mask_bits(value(w, o[2], l), 32);
        const uint32_t a1 = static_cast<uint32_t>(a & 31), b1 = static_cast<uint32_t>(b & 31), sum = a1 + b1;
        uint32_t mask0 = ~0u << a1, mask1 = sum >= 32 ? 0 : ~0u << sum;
        bool overflow = sum >= 32;
        if ((in.flags & kClamp) && a >= 32) mask0 = 0, overflow = true;
        if ((in.flags & kClamp) && b >= 32) overflow = true;
        if (overflow) mask1 = 0;
        else if (b1 == 0) mask1 = ~0u;
        write(w, o[0], l, mask0 & ~mask1, Ty{'b', 32});
      });
      return;
    case Opc::Szext:  // sign- or zero-extend a from bit b (9.7.1.25)
      lanes([&](int l) {
        const uint32_t a = static_cast<uint32_t>(value(w, o[1], l)), b = static_cast<uint32_t>(value(w, o[2], l)), b1 = b & 31;
        const bool too_large = (in.flags & kClamp) && b >= 32;
        const uint32_t mask = too_large ? 0 : ~0u << b1;
        const bool sign = b1 != 0 && !too_large && t.k == 's' && ((a >> ((b1 - 1) & 31)) & 1);
        write(w, o[0], l, (a & ~mask) | (sign ? mask : 0), Ty{'b', 32});
      });
      return;
    case Opc::Brev:
      lanes([&](int l) {
        uint64_t v = value(w, o[1], l), r = 0;
        for (unsigned i = 0; i < t.bits; ++i) r |= ((v >> i) & 1) << (t.bits - 1 - i);
        write(w, o[0], l, r, t);
      });
      return;
    case Opc::Setp: {
      const Cmp c = static_cast<Cmp>(in.sub);
      const BoolOp bo = static_cast<BoolOp>(in.boolop);
      const unsigned halves = packed_elements(in.type2), eb = in.type2.bits / halves;
      const Ty one{in.type2.k, static_cast<uint8_t>(eb)};
      lanes([&](int l) {
        const uint64_t a = value(w, o[1], l), b = value(w, o[2], l);
        // .f16x2/.bf16x2: p compares the low halves, q the high ones; else q is p's negation
        bool r = compare(c, one, element(a, 0, eb), element(b, 0, eb));
        bool q = halves == 2 ? compare(c, one, element(a, 1, eb), element(b, 1, eb)) : !r;
        if (bo != BoolOp::None) {
          const bool cc = value(w, o[3], l) != 0;
          auto apply = [&](bool x) { return bo == BoolOp::And ? (x && cc) : bo == BoolOp::Or ? (x || cc) : (x != cc); };
          r = apply(r), q = apply(q);
        }
        if (o[0].slot != kNoSlot) reg(w, o[0].slot, l) = r;
        if (o[0].kind == Opnd::Pair && o[0].slot2 != kNoSlot) reg(w, o[0].slot2, l) = q;
      });
      return;
    }
    case Opc::Selp:
      lanes([&](int l) { write(w, o[0], l, value(w, o[3], l) ? value(w, o[1], l) : value(w, o[2], l), t); });
      return;
    case Opc::Cvt:
      if (in.sub == kCvtPack) return cvt_pack(w, in, exec);
      if (narrow(t) && element_bits(t) < t.bits && in.nops == 3) {  // cvt.rn.f16x2.f32 d, a, b: a high, b low
        const unsigned eb = element_bits(t);
        const Ty one{t.k, static_cast<uint8_t>(eb)};
        lanes([&](int l) {
          const uint64_t hi = convert(one, in.type2, in.flags, value(w, o[1], l)), lo = convert(one, in.type2, in.flags, value(w, o[2], l));
          write(w, o[0], l, (hi << eb) | lo, t);
        });
        return;
      }
      if (narrow(t) && narrow(in.type2) && element_bits(t) < t.bits) {  // x2 to x2, element by element
        const unsigned eb = element_bits(t), sb = element_bits(in.type2);
        const Ty one{t.k, static_cast<uint8_t>(eb)}, src_one{in.type2.k, static_cast<uint8_t>(sb)};
        lanes([&](int l) {
          const uint64_t v = value(w, o[1], l);
          uint64_t r = 0;
          for (unsigned i = 0; i < t.bits / eb; ++i) r |= convert(one, src_one, in.flags, element(v, i, sb)) << (i * eb);
          write(w, o[0], l, r, t);
        });
        return;
      }
      // a destination register wider than a signed type gets the value sign-extended (as ld does)
      if (t.k == 's' && o[0].kind == Opnd::Reg)
        lanes([&](int l) { reg(w, o[0].slot, l) = static_cast<uint64_t>(sext(convert(t, in.type2, in.flags, value(w, o[1], l)), t.bits)); });
      else lanes([&](int l) { write(w, o[0], l, convert(t, in.type2, in.flags, value(w, o[1], l)), t); });
      return;
    case Opc::Cvta:
      lanes([&](int l) {
        uint64_t v = value(w, o[1], l);
        if (in.sub == kCvtaFromParam) v += kParamWindow;  // (no flags then)
        if (in.sub == kCvtaToParam) v -= kParamWindow;
        if (in.flags & kToShared) v -= kSharedWindow;
        else if (in.flags & kToLocal) v -= kLocalWindow;
        else if (in.flags & kFromShared) v += kSharedWindow;
        else if (in.flags & kFromLocal) v += kLocalWindow;
        write(w, o[0], l, v, t);
      });
      return;
    case Opc::Ld:
    case Opc::St: {
      const bool st = in.op == Opc::St;
      const Opnd& a = st ? o[0] : o[1];
      const Opnd& v = st ? o[1] : o[0];
      const unsigned es = t.bits / 8;
      if (!st && v.kind != Opnd::Reg && v.kind != Opnd::Vec)  // `ld.u64 %pm0, [a]`: read-only or no register
        fail(w, std::countr_zero(exec ? exec : active), "the destination is not a register");
      if (es == 16) b128_operands(w, exec ? exec : active, {&v}, st ? "st" : "ld");
      lanes([&](int l) {
        uint8_t bytes[128];
        const bool whole = st && es * in.vec <= sizeof bytes && store_bytes(w, v, in.vec, es, l, bytes);
        uint8_t* p = access(w, l, in, a, es * in.vec, st, 0, whole ? bytes : nullptr);
        if (whole) {
          std::memcpy(p, bytes, es * in.vec);
          return;
        }
        for (unsigned i = 0; i < in.vec; ++i) {
          const Opnd* dst = &v;
          uint32_t slot = v.slot;
          if (v.kind == Opnd::Vec) {
            slot = p_.vec_slots[v.slot + i];
            if (slot == kNoSlot) continue;
          }
          if (es == 16) {  // .b128: a register of two slots
            if (st) {
              const uint64_t x[2] = {reg(w, slot, l), reg(w, slot + 1, l)};
              std::memcpy(p + i * es, x, 16);
            } else {
              std::memcpy(&reg(w, slot, l), p + i * es, 8);
              std::memcpy(&reg(w, slot + 1, l), p + i * es + 8, 8);
            }
          } else if (st) {
            const uint64_t x = v.kind == Opnd::Vec ? reg(w, slot, l) : value(w, *dst, l);
            std::memcpy(p + i * es, &x, es);
          } else {
            uint64_t x = 0;
            std::memcpy(&x, p + i * es, es);
            if (t.k == 's') x = static_cast<uint64_t>(sext(x, t.bits));
            reg(w, slot, l) = x;
          }
        }
      });
      if (in.async_tx) async_tx(w, exec, o[2], es * in.vec);  // st.async: complete_tx on the (remote) mbarrier
      return;
    }
    case Opc::Bra: {
      const uint32_t target = static_cast<uint32_t>(o[0].imm);
      if (o[0].kind != Opnd::Label) fail(w, std::countr_zero(active), "indirect branches are not supported yet");
      for (uint32_t m = exec; m; m &= m - 1) w.pc[std::countr_zero(m)] = target;
      advance = active & ~exec;
      return;
    }
    case Opc::Brx: {  // brx.idx: each lane to the label its index names
      const std::vector<uint32_t>& targets = p_.branch_tables[in.table];
      for (uint32_t m = exec; m; m &= m - 1) {
        const int l = std::countr_zero(m);
        const uint64_t i = value(w, o[0], l) & 0xFFFFFFFFu;
        if (i >= targets.size()) fail(w, l, fmt::format("brx.idx with index {}: the table has {} targets (undefined)", i, targets.size()));
        w.pc[l] = targets[i];
      }
      advance = active & ~exec;
      return;
    }
    case Opc::Ret:
      ret(w, exec);
      advance = active & ~exec;
      return;
    case Opc::Exit:
      w.live &= ~exec;
      advance = active & ~exec;
      return;
    case Opc::Call:
      call(w, in, exec, static_cast<uint32_t>(&in - p_.code.data()));
      advance = active & ~exec;
      return;
    case Opc::Bar: {  // bar{.cta}.sync / .arrive / .red a{, b}: barrier a, b threads (default: all)
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
    case Opc::Shfl: {
      if (in.nops >= 5) sync_members(w, exec, active, o[4]);
      uint64_t src[kLanes];
      for (int l = 0; l < kLanes; ++l) src[l] = (w.live >> l & 1) ? value(w, o[1], l) : 0;
      const ShflMode mode = static_cast<ShflMode>(in.sub);
      lanes([&](int l) {
        const uint32_t b = static_cast<uint32_t>(value(w, o[2], l)) & 31, c = static_cast<uint32_t>(value(w, o[3], l));
        const int seg = static_cast<int>((c >> 8) & 31), clamp = static_cast<int>(c & 31);
        const int maxl = (l & seg) | (clamp & ~seg), minl = l & seg;
        int j = l;
        bool ok = false;
        switch (mode) {
          case ShflMode::Up: j = l - static_cast<int>(b); ok = j >= maxl; break;
          case ShflMode::Down: j = l + static_cast<int>(b); ok = j <= maxl; break;
          case ShflMode::Bfly: j = l ^ static_cast<int>(b); ok = j <= maxl; break;
          case ShflMode::Idx: j = minl | (static_cast<int>(b) & ~seg); ok = j <= maxl; break;
        }
        if (!ok) j = l;
        if (!(exec >> j & 1)) fail(w, l, fmt::format("shfl reads lane {}, which is not executing it", j));
        write(w, o[0], l, src[j], Ty{'b', 32});
        if (o[0].kind == Opnd::Pair && o[0].slot2 != kNoSlot) reg(w, o[0].slot2, l) = ok;
      });
      return;
    }
    case Opc::Vote: {
      if (in.nops >= 3) sync_members(w, exec, active, o[2]);
      uint32_t ballot = 0;
      for (uint32_t m = exec; m; m &= m - 1) {
        const int l = std::countr_zero(m);
        if (value(w, o[1], l)) ballot |= 1u << l;
      }
      const VoteMode mode = static_cast<VoteMode>(in.sub);
      lanes([&](int l) {
        uint64_t r = 0;
        switch (mode) {
          case VoteMode::All: r = ballot == exec; break;
          case VoteMode::Any: r = ballot != 0; break;
          case VoteMode::Uni: r = ballot == 0 || ballot == exec; break;
          case VoteMode::Ballot: r = ballot; break;
        }
        write(w, o[0], l, r, mode == VoteMode::Ballot ? Ty{'b', 32} : Ty{'p', 1});
      });
      return;
    }
    case Opc::Mapa:  // the same shared offset in CTA `rank` of the cluster
      lanes([&](int l) {
        const uint64_t a = value(w, o[1], l), rank = mask_bits(value(w, o[2], l), 32);
        if (in.space == Space::Generic && (a < kSharedWindow || a >= kSharedWindow + kWindowSize))
          fail(w, l, fmt::format("mapa of {:#x}, which is not a shared-memory address", a));
        if (rank >= ctas_.size())
          fail(w, l, fmt::format("mapa to CTA rank {}: out of range (the cluster has {} CTA{})", rank, ctas_.size(), ctas_.size() == 1 ? "" : "s"));
        write(w, o[0], l, with_rank(a, in.space, rank), t);
      });
      return;
    case Opc::Isspacep:
      lanes([&](int l) {
        const uint64_t a = value(w, o[1], l);
        const bool shared = a >= kSharedWindow && a < kSharedWindow + kWindowSize, local = a >= kLocalWindow && a < kLocalWindow + kWindowSize;
        bool r = false;
        switch (in.space) {
          case Space::Shared: r = shared && ((a - kSharedWindow) >> kRankShift) == 0; break;
          case Space::SharedCluster: r = shared; break;
          case Space::Local: r = local; break;
          case Space::Param:
            r = in_param_window(a);
            break;
          case Space::Global: r = !shared && !local && a >= 0x0000700000000000ull; break;
          default: r = false;
        }
        write(w, o[0], l, r, Ty{'p', 1});
      });
      return;
    case Opc::Testp:
      lanes([&](int l) {
        const double x = t.bits == 32 ? static_cast<double>(f32(value(w, o[1], l))) : f64(value(w, o[1], l));
        const int c = std::fpclassify(x);
        bool r = false;
        switch (in.sub) {
          case 0: r = std::isfinite(x); break;
          case 1: r = std::isinf(x); break;
          case 2: r = !std::isnan(x); break;
          case 3: r = std::isnan(x); break;
          case 4: r = c == FP_NORMAL; break;
          case 5: r = c == FP_SUBNORMAL; break;
        }
        write(w, o[0], l, r, Ty{'p', 1});
      });
      return;
    case Opc::Sad:  // |a - b| + c
      lanes([&](int l) {
        const uint64_t a = value(w, o[1], l), b = value(w, o[2], l), c = value(w, o[3], l);
        uint64_t d;
        if (sgn) d = sext(a, t.bits) > sext(b, t.bits) ? a - b : b - a;
        else d = mask_bits(a, t.bits) > mask_bits(b, t.bits) ? a - b : b - a;
        write(w, o[0], l, d + c, t);
      });
      return;
    case Opc::Match:
      if (in.nops >= 3) sync_members(w, exec, active, o[2]);
      if (in.sub == 1) {  // match.all: the mask if every lane holds the same value, else 0 (and p)
        bool same = true;
        uint64_t first = 0;
        bool have = false;
        for (uint32_t m = exec; m; m &= m - 1) {
          const uint64_t v = mask_bits(value(w, o[1], std::countr_zero(m)), t.bits);
          if (have && v != first) same = false;
          first = v, have = true;
        }
        lanes([&](int l) {
          if (o[0].slot != kNoSlot) reg(w, o[0].slot, l) = same ? exec : 0;
          if (o[0].kind == Opnd::Pair && o[0].slot2 != kNoSlot) reg(w, o[0].slot2, l) = same;
        });
        return;
      }
      lanes([&](int l) {
        const uint64_t v = value(w, o[1], l);
        uint32_t same = 0;
        for (uint32_t m = exec; m; m &= m - 1) {
          const int k = std::countr_zero(m);
          if (mask_bits(value(w, o[1], k), t.bits) == mask_bits(v, t.bits)) same |= 1u << k;
        }
        write(w, o[0], l, same, Ty{'b', 32});
      });
      return;
    case Opc::Rsqrt: return unary_f([](float x) { return 1.0f / std::sqrt(x); }, [](double x) { return 1.0 / std::sqrt(x); });
    case Opc::Rcp:
      if (directed_rounding) return directed(FpOp::Rcp);
      return unary_f([](float x) { return 1.0f / x; }, [](double x) { return 1.0 / x; });
    case Opc::Sqrt:
      if (directed_rounding) return directed(FpOp::Sqrt);
      return unary_f([](float x) { return std::sqrt(x); }, [](double x) { return std::sqrt(x); });
    case Opc::Ex2: return unary_f([](float x) { return std::exp2(x); }, [](double x) { return std::exp2(x); });
    case Opc::Lg2: return unary_f([](float x) { return std::log2(x); }, [](double x) { return std::log2(x); });
    case Opc::Sin: return unary_f([](float x) { return std::sin(x); }, [](double x) { return std::sin(x); });
    case Opc::Cos: return unary_f([](float x) { return std::cos(x); }, [](double x) { return std::cos(x); });
    case Opc::Tanh: return unary_f([](float x) { return std::tanh(x); }, [](double x) { return std::tanh(x); });
    case Opc::Copysign:
      return binary([](float a, float b) { return std::copysign(b, a); }, [](double a, double b) { return std::copysign(b, a); },
                    [](uint64_t a, uint64_t) { return a; });
    case Opc::Atom:
    case Opc::Red: {
      const bool atom = in.op == Opc::Atom;
      const Opnd& a = atom ? o[1] : o[0];
      const unsigned es = t.bits / 8;
      const AtomOp aop = static_cast<AtomOp>(in.sub);
      if (es == 16) return atom_b128(w, in, exec, exec ? exec : active);
      if (in.vec > 1) return red_vector(w, in, exec, exec ? exec : active);
      lanes([&](int l) {  // lanes one after another; CTAs on other host threads take the address's lock
        sync_access_ = true;  // atomics do not race
        uint8_t* p = access(w, l, in, a, es, true);
        sync_access_ = false;
        std::lock_guard lock(atomic_lock(p));
        uint64_t old = 0;
        std::memcpy(&old, p, es);
        const uint64_t b = value(w, atom ? o[2] : o[1], l);
        uint64_t r = old;
        switch (aop) {
          case AtomOp::Add:
            r = reduce_arith(t, old, b, [](float x, float y) { return x + y; }, [](double x, double y) { return x + y; },
                      [](uint64_t x, uint64_t y) { return x + y; });
            break;
          case AtomOp::Min:
          case AtomOp::Max: {
            const bool mx = aop == AtomOp::Max;
            bool less;
            if (t.k == 'f') less = t.bits == 32 ? f32(old) < f32(b) : f64(old) < f64(b);
            else less = sgn ? sext(old, t.bits) < sext(b, t.bits) : mask_bits(old, t.bits) < mask_bits(b, t.bits);
            r = (less != mx) ? old : b;
            break;
          }
          case AtomOp::Exch: r = b; break;
          case AtomOp::Cas: r = mask_bits(old, t.bits) == mask_bits(b, t.bits) ? value(w, o[3], l) : old; break;
          case AtomOp::And: r = old & b; break;
          case AtomOp::Or: r = old | b; break;
          case AtomOp::Xor: r = old ^ b; break;
          case AtomOp::Inc: r = mask_bits(old, 32) >= mask_bits(b, 32) ? 0 : old + 1; break;
          case AtomOp::Dec: r = (mask_bits(old, 32) == 0 || mask_bits(old, 32) > mask_bits(b, 32)) ? b : old - 1; break;
        }
        std::memcpy(p, &r, es);
        if (atom) write(w, o[0], l, old, t);
      });
      if (in.async_tx) async_tx(w, exec, o[2], es);  // red.async: complete_tx on the (remote) mbarrier
      return;
    }
    case Opc::Bfe:  // the ISA manual's definition, bit by bit
      lanes([&](int l) {
        const uint64_t a = mask_bits(value(w, o[1], l), t.bits);
        const unsigned pos = static_cast<unsigned>(value(w, o[2], l) & 0xFF), len = static_cast<unsigned>(value(w, o[3], l) & 0xFF);
        uint64_t r = 0;
        if (len != 0) {
          const unsigned msb = std::min(pos + len - 1, static_cast<unsigned>(t.bits) - 1);
          const uint64_t sbit = sgn ? (a >> msb) & 1 : 0;
          for (unsigned i = 0; i < t.bits; ++i) r |= ((i < len && pos + i <= msb) ? (a >> (pos + i)) & 1 : sbit) << i;
        }
        write(w, o[0], l, r, t);
      });
      return;
    case Opc::Bfi:
      lanes([&](int l) {
        const uint64_t a = value(w, o[1], l), b = value(w, o[2], l);
        const unsigned pos = static_cast<unsigned>(value(w, o[3], l) & 0xFF), len = static_cast<unsigned>(value(w, o[4], l) & 0xFF);
        uint64_t r = b;
        for (unsigned i = 0; i < len && pos + i < t.bits; ++i) r = (r & ~(uint64_t{1} << (pos + i))) | (((a >> i) & 1) << (pos + i));
        write(w, o[0], l, r, t);
      });
      return;
    case Opc::Bfind:
      lanes([&](int l) {
        uint64_t a = mask_bits(value(w, o[1], l), t.bits);
        if (sgn && (a >> (t.bits - 1) & 1)) a = mask_bits(~a, t.bits);  // the most significant non-sign bit
        uint32_t r = 0xFFFFFFFFu;
        if (a) {
          r = static_cast<uint32_t>(63 - std::countl_zero(a));
          if (in.flags & kShiftAmt) r = t.bits - 1 - r;
        }
        write(w, o[0], l, r, Ty{'u', 32});
      });
      return;
    case Opc::Shf:
      lanes([&](int l) {
        const uint64_t a = mask_bits(value(w, o[1], l), 32), b = mask_bits(value(w, o[2], l), 32);
        uint64_t n = mask_bits(value(w, o[3], l), 32);
        n = (in.flags & kClamp) ? std::min<uint64_t>(n, 32) : n & 31;
        const uint64_t both = (b << 32) | a;
        const uint64_t r = (in.flags & kLeft) ? (n == 0 ? b : (both << n) >> 32) : (both >> n);
        write(w, o[0], l, r, Ty{'b', 32});
      });
      return;
    case Opc::Activemask: lanes([&](int l) { write(w, o[0], l, active, Ty{'b', 32}); }); return;
    case Opc::Redux: {
      if (in.nops >= 3) sync_members(w, exec, active, o[2]);
      const AtomOp rop = static_cast<AtomOp>(in.sub);
      uint64_t acc = 0;
      bool first = true;
      for (uint32_t m = exec; m; m &= m - 1) {
        const uint64_t v = mask_bits(value(w, o[1], std::countr_zero(m)), 32);
        if (first) acc = v, first = false;
        else if (rop == AtomOp::Add) acc = mask_bits(acc + v, 32);
        else if (rop == AtomOp::And) acc &= v;
        else if (rop == AtomOp::Or) acc |= v;
        else if (rop == AtomOp::Xor) acc ^= v;
        else {
          const bool less = sgn ? sext(v, 32) < sext(acc, 32) : v < acc;
          if (less == (rop == AtomOp::Min)) acc = v;
        }
      }
      lanes([&](int l) { write(w, o[0], l, acc, t); });
      return;
    }
    case Opc::Trap: fail(w, std::countr_zero(exec ? exec : active), "trap");
    case Opc::Set: return set(w, in, exec);
    case Opc::Elect: {
      sync_members(w, exec, active, o[1]);
      const uint32_t members = exec & static_cast<uint32_t>(value(w, o[1], std::countr_zero(exec ? exec : active)));
      const int leader = members ? std::countr_zero(members) : -1;
      lanes([&](int l) {
        if (o[0].kind == Opnd::Pair) {
          if (o[0].slot != kNoSlot) reg(w, o[0].slot, l) = leader < 0 ? 0 : static_cast<uint64_t>(leader);
          if (o[0].slot2 != kNoSlot) reg(w, o[0].slot2, l) = l == leader;
        } else {
          write(w, o[0], l, leader < 0 ? 0 : static_cast<uint64_t>(leader), Ty{'u', 32});
        }
      });
      return;
    }
    case Opc::Createpolicy: lanes([&](int l) { write(w, o[0], l, 0, Ty{'b', 64}); }); return;
    case Opc::Mbarrier: return mbarrier(w, in, exec, active);
    case Opc::Dp4a:  // c + four byte products
    case Opc::Dp2a:  // c + two products of a's halves and b's low or high bytes
      lanes([&](int l) {
        const uint64_t a = value(w, o[1], l), b = value(w, o[2], l);
        int64_t acc = sext(value(w, o[3], l), 32);
        const bool sa = in.type2.k == 's', sb = in.type3.k == 's';
        auto part = [](uint64_t v, unsigned bitsz, unsigned i, bool s) {
          const uint64_t x = (v >> (i * bitsz)) & ((uint64_t{1} << bitsz) - 1);
          return s ? sext(x, bitsz) : static_cast<int64_t>(x);
        };
        if (in.op == Opc::Dp4a) {
          for (unsigned i = 0; i < 4; ++i) acc += part(a, 8, i, sa) * part(b, 8, i, sb);
        } else {
          const unsigned base = in.sub ? 2 : 0;
          for (unsigned i = 0; i < 2; ++i) acc += part(a, 16, i, sa) * part(b, 8, base + i, sb);
        }
        write(w, o[0], l, static_cast<uint64_t>(acc), Ty{'s', 32});
      });
      return;
    case Opc::Getctarank:
      lanes([&](int l) {
        const uint64_t a = value(w, o[1], l);
        const uint64_t field = ((in.space == Space::Generic ? a - kSharedWindow : a) & 0xFFFFFFFFu) >> kRankShift;
        write(w, o[0], l, field == 0 ? c_->rank : field - 1, Ty{'u', 32});
      });
      return;
    case Opc::ClusterBar: {  // barrier.cluster.arrive (sub 0) / .wait (sub 1)
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
    case Opc::CpAsyncTensor: return tensor_copy(w, in, exec);
    case Opc::Tensormap: return warp_collective(w, in, [&] { tensormap_op(w, in, exec); });  // cp_fenceproxy is .sync.aligned
    case Opc::Clc: return cluster_launch_control(w, in, exec);
    case Opc::Alloca:  // alloca.type ptr, size{, align}: a .local address in the thread's stack
      lanes([&](int l) {
        const uint64_t size = value(w, o[1], l), align = in.nops >= 3 ? std::max<uint64_t>(value(w, o[2], l), 8) : 8;
        const uint64_t at = (uint64_t{w.top[l]} + align - 1) & ~(align - 1);
        if (size > max_stack() || at + size > max_stack())  // (at < 2^32: no wrap)
          fail(w, l, fmt::format("alloca of {} bytes: the thread's stack would reach {} bytes; the limit is {} (call frames and alloca: "
                                 "Options::max_stack_bytes)", size, at + size, max_stack()));
        grow_stack(w, l, at + size, [&] { return fmt::format("alloca of {} bytes", size); });
        w.top[l] = static_cast<uint32_t>(at + size);
        write(w, o[0], l, at, t);
      });
      return;
    case Opc::StackSave: lanes([&](int l) { write(w, o[0], l, w.top[l], t); }); return;
    case Opc::StackRestore:
      lanes([&](int l) {
        const uint64_t v = value(w, o[0], l);
        const uint64_t frame_end = w.sp[l] + p_.funcs[w.fn[l]].frame;
        if (v < frame_end || v > w.top[l])
          fail(w, l, fmt::format("stackrestore to {:#x}: not a stack pointer of this frame (stacksave gives {:#x} to {:#x} here)", v, frame_end, w.top[l]));
        w.top[l] = static_cast<uint32_t>(v);
      });
      return;
    case Opc::Movmatrix:  // the 8x8 .b16 matrix of the mma layout (lane 4r + c/2 holds row r, columns c), transposed
      return warp_collective(w, in, [&] { movmatrix(w, in, exec, active); });
    case Opc::StBulk:  // st.bulk{.weak}{.shared::cta} [a], size, 0
      lanes([&](int l) {
        const uint64_t size = value(w, o[1], l);
        if (size % 8 != 0 || size > (1u << 24)) fail(w, l, fmt::format("st.bulk of {} bytes: a multiple of 8, at most 16777216", size));
        if (value(w, o[2], l) != 0) fail(w, l, "st.bulk's initval must be 0");
        for (uint64_t done = 0; done < size; done += 8) {
          Opnd at = o[0];
          at.imm += done;
          std::memset(access(w, l, in, at, 8, true), 0, 8);
        }
        bulk_steps_ += size / 64;  // its checked accesses count against max_steps: it bounds time
      });
      return;
    case Opc::WarpSync:
      if (in.nops >= 1) sync_members(w, exec, active, o[0]);
      ++w.syncs;
      return;
    case Opc::Video: {
      const VideoInst& v = p_.video[in.table];
      for (uint32_t m = exec; m; m &= m - 1) {
        const int l = std::countr_zero(m);
        const uint32_t r = video_execute(v, static_cast<uint32_t>(value(w, in.ops[1], l)), static_cast<uint32_t>(value(w, in.ops[2], l)),
                                         v.has_c ? static_cast<uint32_t>(value(w, in.ops[3], l)) : 0);
        write(w, in.ops[0], l, r, Ty{'b', 32});
      }
      return;
    }
    case Opc::Texture: return texture(w, in, exec);
    case Opc::Brkpt: fail(w, std::countr_zero(exec ? exec : active), "brkpt (a breakpoint)");
    case Opc::CpAsync: return cp_async(w, in, exec);
    case Opc::Ldmatrix:
      return warp_collective(w, in, [&] { ldmatrix(w, in, exec, false); });
    case Opc::Stmatrix:
      return warp_collective(w, in, [&] { ldmatrix(w, in, exec, true); });
    case Opc::Mma:
      return warp_collective(w, in, [&] { mma(w, in, exec); });
    case Opc::Wgmma:
      return warp_collective(w, in, [&] { wgmma(w, in, exec); });
    case Opc::Wmma:
      return warp_collective(w, in, [&] { wmma(w, in, exec); });
    case Opc::Tcgen05:
      return warp_collective(w, in, [&] { tcgen05(w, in, exec); });
    case Opc::Lop3:
      lanes([&](int l) {
        const uint64_t a = value(w, o[1], l), b = value(w, o[2], l), c = value(w, o[3], l), lut = value(w, o[4], l);
        uint64_t r = 0;
        for (unsigned i = 0; i < 32; ++i) {
          const unsigned idx = static_cast<unsigned>(((a >> i & 1) << 2) | ((b >> i & 1) << 1) | (c >> i & 1));
          r |= ((lut >> idx) & 1) << i;
        }
        write(w, o[0], l, r, t);
        if (in.boolop != 0 && o[0].kind == Opnd::Pair && o[0].slot2 != kNoSlot) {
          const bool q = value(w, o[5], l) != 0;
          reg(w, o[0].slot2, l) = static_cast<BoolOp>(in.boolop) == BoolOp::And ? (r != 0 && q) : (r != 0 || q);
        }
      });
      return;
    case Opc::Prmt:
      lanes([&](int l) {
        const uint64_t a = value(w, o[1], l), b = value(w, o[2], l), c = value(w, o[3], l);
        const uint64_t bytes = (mask_bits(b, 32) << 32) | mask_bits(a, 32);
        uint64_t r = 0;
        // the modes (9.7.8.7): for c[1:0], the source byte of each result byte, d.b0 first
        static constexpr uint8_t kModeBytes[6][4][4] = {
            {{0, 1, 2, 3}, {1, 2, 3, 4}, {2, 3, 4, 5}, {3, 4, 5, 6}},  // .f4e
            {{0, 7, 6, 5}, {1, 0, 7, 6}, {2, 1, 0, 7}, {3, 2, 1, 0}},  // .b4e
            {{0, 0, 0, 0}, {1, 1, 1, 1}, {2, 2, 2, 2}, {3, 3, 3, 3}},  // .rc8
            {{0, 1, 2, 3}, {1, 1, 2, 3}, {2, 2, 2, 3}, {3, 3, 3, 3}},  // .ecl
            {{0, 0, 0, 0}, {0, 1, 1, 1}, {0, 1, 2, 2}, {0, 1, 2, 3}},  // .ecr
            {{0, 1, 0, 1}, {2, 3, 2, 3}, {0, 1, 0, 1}, {2, 3, 2, 3}},  // .rc16
        };
        if (in.sub != 0) {
          for (unsigned i = 0; i < 4; ++i) r |= ((bytes >> (8 * kModeBytes[in.sub - 1][c & 3][i])) & 0xFF) << (8 * i);
          write(w, o[0], l, r, t);
          return;
        }
        for (unsigned i = 0; i < 4; ++i) {
          const unsigned sel = static_cast<unsigned>(c >> (4 * i)) & 7;
          const bool sign = (c >> (4 * i + 3)) & 1;
          uint64_t byte = (bytes >> (8 * sel)) & 0xFF;
          if (sign) byte = (byte & 0x80) ? 0xFF : 0;
          r |= byte << (8 * i);
        }
        write(w, o[0], l, r, t);
      });
      return;
  }
}

// Where a call's argument or result is in the caller (an entry of Program::vec_slots): its
// register(s), or a frame offset (a .param variable).
Runner::CallPlace Runner::call_place(uint32_t a) const {
  if (!(a & kRegArg)) return {false, a, 1};
  const uint32_t slot = a & ~(kRegArg | kVectorArg);
  return {true, slot, (a & kVectorArg) ? p_.vector_regs.at(slot) : 1u};
}

// How a value moves between registers (`reg_elems` of them) and formal `fm`: element by element
// when the counts agree, or a scalar register as the formal's first (up to 8) bytes in the frame.
Runner::CallElems Runner::call_elems(Warp& w, int l, const FuncInfo& f, const Formal& fm, uint32_t reg_elems,
                                     const char* what, uint32_t k) {
  if (reg_elems == fm.elems) return {fm.elems, fm.size / fm.elems};
  if (reg_elems == 1 && fm.reg == kNoSlot) return {1, std::min<uint32_t>(fm.size, 8)};
  auto shape = [](uint32_t n) { return n == 1 ? std::string("a scalar") : fmt::format("a .v{} vector", n); };
  fail(w, l,
       fmt::format("call to {}: {} {} is {}; the function's is {}", f.name, what, k + 1, shape(reg_elems),
                   shape(fm.elems)));
}

// n elements of `es` bytes from registers (`at`: the first) or a frame (`at`: the offset from `sp`).
void Runner::load_elems(Warp& w, int l, bool in_regs, uint32_t at, uint32_t sp, CallElems e, uint64_t* out) {
  for (uint32_t i = 0; i < e.n; ++i) {
    out[i] = 0;
    if (in_regs)
      out[i] = reg(w, at + i, l);
    else
      std::memcpy(&out[i], w.local[l].data() + sp + at + i * e.es, std::min<uint32_t>(e.es, 8));
  }
}
void Runner::store_elems(Warp& w, int l, bool in_regs, uint32_t at, uint32_t sp, CallElems e, const uint64_t* in) {
  for (uint32_t i = 0; i < e.n; ++i) {
    if (!in_regs) {
      std::memcpy(w.local[l].data() + sp + at + i * e.es, &in[i], std::min<uint32_t>(e.es, 8));
      continue;
    }
    const Ty t = p_.slot_types[at + i];
    reg(w, at + i, l) = t.k == 'p' ? (in[i] != 0) : mask_bits(in[i], t.bits);
  }
}

void Runner::call(Warp& w, const DInst& in, uint32_t exec, uint32_t pc) {
  for (uint32_t m = exec; m; m &= m - 1) {
    const int l = std::countr_zero(m);
    uint64_t index = in.callee != kNoSlot ? in.callee : value(w, in.ops[1], l) - kFunctionBase;
    if (index >= p_.funcs.size() || index == 0) fail(w, l, fmt::format("indirect call to {:#x}, which is not a function", value(w, in.ops[1], l)));
    const FuncInfo& f = p_.funcs[index];
    if (f.builtin != FuncInfo::Builtin::None) {  // run by the emulator: the lane continues after the call
      builtin(w, l, f, in);
      w.pc[l] = pc + 1;
      continue;
    }
    if (w.calls[l].size() >= 1024) fail(w, l, "call depth over 1024 (unbounded recursion?)");
    const Opnd &params = in.ops[2], &results = in.ops[0];
    const uint32_t nparams = params.kind == Opnd::Vec ? params.count : 0,
                   nresults = results.kind == Opnd::Vec ? results.count : 0;
    if (nparams != f.params.size())
      fail(w, l, fmt::format("call to {} with {} arguments; it has {} parameters", f.name, nparams, f.params.size()));
    if (nresults != 0 && nresults != f.results.size())
      fail(w, l, fmt::format("call to {} with {} results; it returns {}", f.name, nresults, f.results.size()));
    if (nparams > kCallValues / 4 || nresults > kCallValues / 4)
      fail(w, l,
           fmt::format("call to {} with {} arguments and {} results (the emulator takes {} each)", f.name, nparams,
                       nresults, kCallValues / 4));
    const uint64_t new_sp = (uint64_t{w.top[l]} + 15) & ~uint64_t{15};  // above the caller's frame and its alloca'd memory
    grow_stack(w, l, new_sp + f.frame, [&] { return "call to " + f.name; });
    hold_frame(w, l, uint64_t{f.slot_count} * sizeof(uint64_t), f.name);
    // arguments: from the caller's registers or .param variables; into the callee's frame now, its registers later
    uint64_t values[kCallValues];
    uint32_t used = 0;
    for (uint32_t k = 0; k < nparams; ++k) {
      const Formal& fm = f.params[k];
      const CallPlace from = call_place(p_.vec_slots[params.slot + k]);
      const uint32_t callee_sp = static_cast<uint32_t>(new_sp);
      if (!from.reg && fm.reg == kNoSlot) {
        std::memcpy(w.local[l].data() + callee_sp + fm.offset, w.local[l].data() + w.sp[l] + from.at, fm.size);
        continue;
      }
      const CallElems e = call_elems(w, l, f, fm, from.reg ? from.elems : fm.elems, "argument", k);
      load_elems(w, l, from.reg, from.at, w.sp[l], e, values + used);
      if (fm.reg == kNoSlot)
        store_elems(w, l, false, fm.offset, callee_sp, e, values + used);
      else
        used += e.n;
    }
    Warp::CallFrame frame{pc + 1, w.sp[l], w.fn[l], w.top[l], nresults ? results.slot : kNoSlot, nresults, {}};
    frame.saved.resize(f.slot_count);
    for (uint32_t k = 0; k < f.slot_count; ++k) frame.saved[k] = reg(w, f.slot_first + k, l);
    used = 0;
    for (const Formal& fm : f.params)
      if (fm.reg != kNoSlot) {
        store_elems(w, l, true, fm.reg, 0, {fm.elems, fm.size / fm.elems}, values + used);
        used += fm.elems;
      }
    w.calls[l].push_back(std::move(frame));
    w.sp[l] = static_cast<uint32_t>(new_sp);  // (< max_stack(): grow_stack checked)
    w.top[l] = static_cast<uint32_t>(new_sp + f.frame);
    w.fn[l] = static_cast<uint32_t>(index);
    w.pc[l] = f.entry;
  }
}

std::string Runner::c_string(Warp& w, int lane, uint64_t addr) {
  std::string out;
  for (size_t i = 0; i < 65536; ++i) {
    const char c = static_cast<char>(*resolve(w, lane, Space::Generic, addr + i, 1, false));
    if (c == 0) return out;
    out += c;
  }
  fail(w, lane, "a string of more than 64 KB (no terminating NUL?)");
}

void Runner::builtin(Warp& w, int lane, const FuncInfo& f, const DInst& in) {
  const Opnd& params = in.ops[2];
  const uint32_t nparams = params.kind == Opnd::Vec ? params.count : 0;
  if (nparams != f.params.size())
    fail(w, lane, fmt::format("call to {} with {} arguments; it has {} parameters", f.name, nparams, f.params.size()));
  std::vector<uint8_t>& stack = w.local[lane];
  auto arg = [&](uint32_t k) {
    const CallPlace a = call_place(p_.vec_slots[params.slot + k]);
    if (a.reg) return reg(w, a.at, lane);
    uint64_t v = 0;
    std::memcpy(&v, stack.data() + w.sp[lane] + a.at, std::min<uint32_t>(f.params[k].size, 8));
    return v;
  };
  uint64_t result = 0;
  switch (f.builtin) {
    case FuncInfo::Builtin::Vprintf: {  // vprintf(format, args): the arguments packed, each aligned to its size
      const std::string fmt_text = c_string(w, lane, arg(0));
      uint64_t ap = arg(1);
      auto next = [&](unsigned size) {
        ap = (ap + size - 1) / size * size;
        uint64_t v = 0;
        std::memcpy(&v, resolve(w, lane, Space::Generic, ap, size, false), size);
        ap += size;
        return v;
      };
      std::string out;
      for (size_t i = 0; i < fmt_text.size(); ++i) {
        if (fmt_text[i] != '%') {
          out += fmt_text[i];
          continue;
        }
        size_t j = i + 1;
        while (j < fmt_text.size() && std::strchr("-+ #0123456789.", fmt_text[j])) ++j;
        std::string length;
        while (j < fmt_text.size() && std::strchr("hlLzjt", fmt_text[j])) length += fmt_text[j++];
        if (j >= fmt_text.size()) break;
        const char conv = fmt_text[j];
        const std::string spec = fmt_text.substr(i, j - i - length.size());
        char buf[512];
        const bool wide = length == "l" || length == "ll" || length == "z" || length == "j" || length == "t";
        switch (conv) {
          case '%': out += '%'; break;
          case 'd': case 'i': {
            const int64_t v = wide ? static_cast<int64_t>(next(8)) : static_cast<int32_t>(next(4));
            std::snprintf(buf, sizeof buf, (spec + "lld").c_str(), static_cast<long long>(v));
            out += buf;
            break;
          }
          case 'u': case 'x': case 'X': case 'o': case 'c': {
            const uint64_t v = wide ? next(8) : next(4);
            std::snprintf(buf, sizeof buf, (spec + (conv == 'c' ? "c" : std::string("ll") + conv)).c_str(),
                          conv == 'c' ? static_cast<int>(v) : static_cast<unsigned long long>(v));
            out += buf;
            break;
          }
          case 'f': case 'F': case 'e': case 'E': case 'g': case 'G': case 'a': case 'A': {
            std::snprintf(buf, sizeof buf, (spec + conv).c_str(), std::bit_cast<double>(next(8)));
            out += buf;
            break;
          }
          case 's': out += c_string(w, lane, next(8)); break;
          case 'p':
            std::snprintf(buf, sizeof buf, "0x%llx", static_cast<unsigned long long>(next(8)));
            out += buf;
            break;
          default: out += fmt_text.substr(i, j - i + 1);
        }
        i = j;
      }
      static std::mutex print_mu;
      std::lock_guard lock(print_mu);
      std::ostream& os = opt_.printf_output ? *opt_.printf_output : std::cout;
      os << out;
      os.flush();
      result = static_cast<uint64_t>(out.size());
      break;
    }
    case FuncInfo::Builtin::Malloc: {  // like the device heap: NULL when the request does not fit
      const uint64_t bytes = arg(0);
      static std::mutex heap_mu;
      std::lock_guard lock(heap_mu);
      if (bytes <= opt_.malloc_heap_bytes && heap_used_ + bytes <= opt_.malloc_heap_bytes) {
        heap_used_ += bytes;
        result = mem_.alloc(bytes, "malloc");
      }
      break;
    }
    case FuncInfo::Builtin::Free:
      if (arg(0)) {
        try {
          mem_.free(arg(0));
        } catch (const Error&) {
          fail(w, lane, fmt::format("free({:#x}): not a live allocation", arg(0)));
        }
      }
      break;
    case FuncInfo::Builtin::AssertFail:
      fail(w, lane, fmt::format("assertion failed: {} ({}:{} in {})", c_string(w, lane, arg(0)), c_string(w, lane, arg(1)),
                                static_cast<uint32_t>(arg(2)), c_string(w, lane, arg(3))));
    case FuncInfo::Builtin::None: break;
  }
  if (!f.results.empty() && in.ops[0].kind == Opnd::Vec && in.ops[0].count) {
    const CallPlace dst = call_place(p_.vec_slots[in.ops[0].slot]);
    if (dst.reg)
      reg(w, dst.at, lane) = result;
    else
      std::memcpy(stack.data() + w.sp[lane] + dst.at, &result, std::min<uint32_t>(f.results[0].size, 8));
  }
}

// set.cmp{.bool}.dtype.stype d, a, b{, c}: 1.0 (a float dtype) or all ones (an integer one) where the
// comparison holds; packed halves (.f16x2, .bf16x2) compare and answer each half on its own.
void Runner::set(Warp& w, const DInst& in, uint32_t exec) {
  const Cmp c = static_cast<Cmp>(in.sub);
  const BoolOp bo = static_cast<BoolOp>(in.boolop);
  const unsigned n = packed_elements(in.type2), sb = in.type2.bits / n, db = in.type.bits / n;
  const Ty src_one{in.type2.k, static_cast<uint8_t>(sb)}, dst_one{in.type.k, static_cast<uint8_t>(db)};
  const uint64_t yes = in.type.k == 'f' ? (db == 32 ? bits_of(1.0f) : bits_of(1.0))
                       : narrow(dst_one)  ? encode(format_of(dst_one), 1.0)
                                          : mask_bits(~uint64_t{0}, db);
  for (uint32_t m = exec; m; m &= m - 1) {
    const int l = std::countr_zero(m);
    const uint64_t a = value(w, in.ops[1], l), b = value(w, in.ops[2], l);
    const bool cc = bo != BoolOp::None && value(w, in.ops[3], l) != 0;
    uint64_t out = 0;
    for (unsigned i = 0; i < n; ++i) {
      bool r = compare(c, src_one, element(a, i, sb), element(b, i, sb));
      if (bo != BoolOp::None) r = bo == BoolOp::And ? (r && cc) : bo == BoolOp::Or ? (r || cc) : (r != cc);
      if (r) out |= yes << (i * db);
    }
    write(w, in.ops[0], l, out, in.type);
  }
}

void Runner::ret(Warp& w, uint32_t exec) {
  for (uint32_t m = exec; m; m &= m - 1) {
    const int l = std::countr_zero(m);
    if (w.calls[l].empty()) {  // ret in the kernel: the thread is done
      w.live &= ~(1u << l);
      continue;
    }
    Warp::CallFrame& frame = w.calls[l].back();
    const FuncInfo& f = p_.funcs[w.fn[l]];
    // results: into the caller's .param variables now, its registers after the callee's are
    // restored (recursion reuses the registers)
    uint64_t values[kCallValues];
    uint32_t used = 0;
    for (uint32_t k = 0; k < frame.nresults; ++k) {
      const Formal& fm = f.results[k];
      const CallPlace to = call_place(p_.vec_slots[frame.results + k]);
      if (!to.reg && fm.reg == kNoSlot) {
        std::memcpy(w.local[l].data() + frame.caller_sp + to.at, w.local[l].data() + w.sp[l] + fm.offset, fm.size);
        continue;
      }
      const CallElems e = call_elems(w, l, f, fm, to.reg ? to.elems : fm.elems, "result", k);
      load_elems(w, l, fm.reg != kNoSlot, fm.reg != kNoSlot ? fm.reg : fm.offset, w.sp[l], e, values + used);
      if (!to.reg)
        store_elems(w, l, false, to.at, frame.caller_sp, e, values + used);
      else
        used += e.n;
    }
    for (uint32_t k = 0; k < f.slot_count; ++k) reg(w, f.slot_first + k, l) = frame.saved[k];
    used = 0;
    for (uint32_t k = 0; k < frame.nresults; ++k)
      if (const CallPlace to = call_place(p_.vec_slots[frame.results + k]); to.reg) {
        store_elems(w, l, true, to.at, 0, {to.elems, 8}, values + used);
        used += to.elems;
      }
    w.sp[l] = frame.caller_sp;
    w.top[l] = frame.caller_top;  // the callee's alloca'd memory goes with its frame
    w.fn[l] = frame.caller_fn;
    w.pc[l] = frame.return_pc;
    give_back(frame.saved.size() * sizeof(uint64_t));
    w.calls[l].pop_back();
  }
}

void Runner::cp_async(Warp& w, const DInst& in, uint32_t exec) {
  const Opnd* o = in.ops;
  for (uint32_t m = exec; m; m &= m - 1) {
    const int l = std::countr_zero(m);
    if (in.sub == 2) {  // cp.async.mbarrier.arrive: the copies are done; .noinc makes it count as an arrival
      sync_access_ = true;
      if (in.flags & kNoinc) mbar_signal(w, l, access(w, l, in, o[0], 8, true), 0, 1);
      sync_access_ = false;
      continue;
    }
    if (in.sub == 3) {  // cp.reduce.async.bulk: element by element into global or (remote) shared memory
      bulk_reduce(w, l, in);
      continue;
    }
    const uint64_t n = value(w, o[2], l);
    uint64_t src_n = n;
    if (in.sub == 0 && in.nops >= 4 && o[3].kind != Opnd::Sink) {
      if (o[3].kind == Opnd::Reg && p_.slot_types[o[3].slot].k == 'p') src_n = value(w, o[3], l) ? 0 : n;  // ignore-src
      else if (o[3].kind == Opnd::Imm || o[3].kind == Opnd::RegPlus || (o[3].kind == Opnd::Reg && p_.slot_types[o[3].slot].bits == 32)) src_n = std::min(n, value(w, o[3], l));
    }
    if (in.sub == 0 && n != 4 && n != 8 && n != 16) fail(w, l, fmt::format("cp.async of {} bytes (4, 8 or 16)", n));
    if (in.sub == 1 && (n % 16 != 0)) fail(w, l, fmt::format("cp.async.bulk of {} bytes (a multiple of 16)", n));
    DInst src_in = in;
    src_in.space = in.space2;
    // a kernel parameter's generic address (cvta.param) as the .global source: the parameter, as ld reads it
    if (in.space2 == Space::Global && !o[1].symbol &&
        in_param_window((o[1].slot != kNoSlot ? reg(w, o[1].slot, l) : 0) + o[1].imm))
      src_in.space = Space::Generic;
    const uint32_t chunk = in.sub == 0 ? static_cast<uint32_t>(n) : 16;
    bulk_steps_ += n / 128;  // a bulk copy's checked accesses count against max_steps
    // .multicast::cluster: the same shared offsets in each CTA of the mask
    const std::vector<uint32_t> ranks = (in.flags & kMulticast) ? mask_ranks(w, l, value(w, o[4], l)) : std::vector<uint32_t>{};
    for (size_t ti = 0; ti < std::max<size_t>(ranks.size(), 1); ++ti) {
      const Opnd d_base = ranks.empty() ? o[0] : rebased(w, l, o[0], in.space, ranks[ti]);
      for (uint64_t done = 0; done < n; done += chunk) {
        Opnd d_at = d_base, s_at = o[1];
        d_at.imm += done, s_at.imm += done;
        uint8_t* dst = access(w, l, in, d_at, chunk, true);
        if (done < src_n) {
          // src-size bytes are read; the source is aligned to the copy's size all the same
          const uint8_t* src = access(w, l, src_in, s_at, static_cast<unsigned>(std::min<uint64_t>(chunk, src_n - done)), false, std::min(chunk, 16u));
          std::memmove(dst, src, std::min<uint64_t>(chunk, src_n - done));
        }
        if (src_n < done + chunk) std::memset(dst + (src_n > done ? src_n - done : 0), 0, done + chunk - std::max(src_n, done));
      }
      if (in.flags & kCompleteTx) {
        sync_access_ = true;
        uint8_t* bar = access(w, l, in, ranks.empty() ? o[3] : rebased(w, l, o[3], in.space, ranks[ti]), 8, true);
        sync_access_ = false;
        mbar_signal(w, l, bar, static_cast<int64_t>(n), 0);
      }
    }
  }
}

// ldmatrix/stmatrix (ldmatrix.cpp): the whole warp's matrices, each row through the usual
// shared-memory checks as a 16-byte access of the lane that gives its address.
// movmatrix.sync.aligned.m8n8.trans.b16: the 8x8 .b16 matrix of the mma layout (lane 4r + c/2
// holds row r, columns c), transposed.
void Runner::movmatrix(Warp& w, const DInst& in, uint32_t exec, uint32_t active) {
  if (exec != 0xFFFFFFFFu) fail(w, std::countr_zero(exec ? exec : active), "movmatrix needs all 32 lanes of the warp");
  uint16_t m[8][8];
  for (int l = 0; l < kLanes; ++l) {
    const uint64_t v = value(w, in.ops[1], l);
    m[l / 4][2 * (l % 4)] = static_cast<uint16_t>(v), m[l / 4][2 * (l % 4) + 1] = static_cast<uint16_t>(v >> 16);
  }
  for (int l = 0; l < kLanes; ++l)
    write(w, in.ops[0], l, uint64_t{m[2 * (l % 4)][l / 4]} | uint64_t{m[2 * (l % 4) + 1][l / 4]} << 16, Ty{'b', 32});
}

void Runner::ldmatrix(Warp& w, const DInst& in, uint32_t exec, bool store) {
  if (exec != 0xFFFFFFFFu) fail(w, std::countr_zero(exec), fmt::format("{} needs all 32 lanes of the warp", store ? "stmatrix" : "ldmatrix"));
  struct Access final : LdmatrixWarp {
    Runner& r;
    Warp& w;
    const DInst& in;
    Access(Runner& runner, Warp& warp, const DInst& inst) : r(runner), w(warp), in(inst) {}
    uint64_t& reg(uint32_t slot, int lane) override { return r.reg(w, slot, lane); }
    uint8_t* row(int lane, bool st, const uint8_t* stored) override {
      return r.access(w, lane, in, st ? in.ops[0] : in.ops[1], 16, st, 0, stored);
    }
    [[noreturn]] void fail(int lane, const std::string& what) override { r.fail(w, lane, what); }
  } access(*this, w, in);
  ldmatrix_execute(p_, in, access, store);
}

// mma.sync (mma_sync.cpp): the whole warp's D = A * B + C, from and into its registers.
void Runner::mma(Warp& w, const DInst& in, uint32_t exec) {
  if (exec != 0xFFFFFFFFu) fail(w, std::countr_zero(~exec), "mma.sync needs all 32 lanes of the warp");
  struct Access final : MmaWarp {
    Runner& r;
    Warp& w;
    Access(Runner& runner, Warp& warp) : r(runner), w(warp) {}
    uint64_t& reg(uint32_t slot, int lane) override { return r.reg(w, slot, lane); }
    [[noreturn]] void fail(int lane, const std::string& what) override { r.fail(w, lane, what); }
  } access(*this, w);
  mma_execute(p_, in, access);
}

// wgmma.mma_async (wgmma.cpp): this warp's 16 rows of its warpgroup's product, computed when
// the warp issues it. Shared memory is read through the usual checks (bounds, never written,
// races), as lane 0 of the warp.
void Runner::wgmma(Warp& w, const DInst& in, uint32_t exec) {
  if (exec == 0) return;  // guarded off in every lane
  if (exec != 0xFFFFFFFFu) fail(w, std::countr_zero(~exec), "wgmma.mma_async needs all 32 lanes of the warp");
  if (w.index / 4 * 4 + 4 > c_->warps.size())
    fail(w, 0, fmt::format("wgmma.mma_async needs a whole warpgroup (4 warps); the CTA has {} threads",
                           cfg_.block.x * cfg_.block.y * cfg_.block.z));
  struct Access final : WgmmaWarp {
    Runner& r;
    Warp& w;
    Access(Runner& runner, Warp& warp) : r(runner), w(warp) {}
    uint64_t value(const Opnd& o, int lane) override { return r.value(w, o, lane); }
    uint64_t& reg(uint32_t slot, int lane) override { return r.reg(w, slot, lane); }
    const uint8_t* shared16(uint64_t offset) override { return r.resolve(w, 0, Space::Shared, offset, 16, false); }
    [[noreturn]] void fail(const std::string& what) override { r.fail(w, 0, what); }
    uint32_t rank() const override { return w.index % 4; }
  } access(*this, w);
  wgmma_execute(p_, in, access);
}

// wmma.load/store/mma (wmma.cpp): the warp's collective matrix instructions. Each lane
// accesses memory for the elements its fragment holds, through the usual checks.
void Runner::wmma(Warp& w, const DInst& in, uint32_t exec) {
  if (exec == 0) return;  // guarded off in every lane
  if (exec != 0xFFFFFFFFu)
    fail(w, std::countr_zero(exec), fmt::format("{} needs all 32 lanes of the warp (lanes executing it: {:#010x})", wmma_name(in), exec));
  struct Access final : WmmaWarp {
    Runner& r;
    Warp& w;
    const DInst& in;
    Access(Runner& runner, Warp& warp, const DInst& inst) : r(runner), w(warp), in(inst) {}
    uint64_t& reg(uint32_t slot, int lane) override { return r.reg(w, slot, lane); }
    uint64_t value(const Opnd& o, int lane) override { return r.value(w, o, lane); }
    uint8_t* memory(int lane, uint64_t offset, unsigned size, bool store) override {
      Opnd a = in.ops[wmma_address_operand(in)];
      a.imm += offset;
      return r.access(w, lane, in, a, size, store);
    }
    [[noreturn]] void fail(int lane, const std::string& what) override { r.fail(w, lane, what); }
  } access(*this, w, in);
  wmma_execute(p_, in, access);
}

// Tensor memory columns [column, column + columns) of this CTA are read or written (tcgen05.ld,
// st, dealloc): no tcgen05.mma writing them may be in flight on the GPU, i.e. each must have been
// committed, and the mbarrier phase of one of its commits completed.
void Runner::tcgen05_settled(Warp& w, int lane, uint32_t column, uint32_t columns, const char* what) {
  auto done = [&](const PendingMma& m) {
    for (const PendingMma::Commit& c : m.commits) {
      const auto& bars = ctas_[c.rank].mbars;
      auto it = bars.find(c.key);
      if (it == bars.end() || it->second.generation != c.generation || it->second.phase >= c.phase) return true;  // (gone: not ours to judge)
    }
    return false;
  };
  auto& pending = c_->mma_pending;
  for (size_t i = 0; i < pending.size();) {
    const PendingMma& m = pending[i];
    if (done(m)) {
      pending.erase(pending.begin() + static_cast<std::ptrdiff_t>(i));
      continue;
    }
    if (m.column < column + columns && column < m.column + m.columns)
      fail(w, lane, fmt::format("{} tensor memory columns {} to {}, which {} (thread {}{}) writes, {}", what, column, column + columns - 1,
                                p_.texts[p_.code[m.pc].stmt], thread_name(m.thread), m.issuer_rank == c_->rank ? "" : fmt::format(" of CTA rank {}", m.issuer_rank),
                                m.commits.empty() ? "before a tcgen05.commit of that thread tracks it"
                                                  : "before the mbarrier phase its tcgen05.commit arrives on has completed (wait on it first)"));
    ++i;
  }
}

// tcgen05 (tcgen05.cpp). alloc, dealloc and relinquish_alloc_permit act once for the warp
// (.sync.aligned: all its lanes, with the same operands); commit arrives on its mbarrier (or
// on the same offset in each CTA of the ctaMask) once per issuing thread, since every tcgen05
// operation before it completed when issued; mma, cp and shift run once per issuing thread.
void Runner::tcgen05(Warp& w, const DInst& in, uint32_t exec) {
  if (exec == 0) return;
  struct Access final : Tcgen05Warp {
    Runner& r;
    Warp& w;
    Access(Runner& runner, Warp& warp) : r(runner), w(warp) {}
    uint64_t value(const Opnd& o, int lane) override { return r.value(w, o, lane); }
    uint64_t& reg(uint32_t slot, int lane) override { return r.reg(w, slot, lane); }
    const uint8_t* shared16(uint32_t rank, uint64_t offset, int lane) override {
      return r.resolve(w, lane, Space::SharedCluster, r.with_rank(offset, Space::SharedCluster, rank), 16, false);
    }
    TensorMemory& tmem(uint32_t rank) override { return r.ctas_[rank].tmem; }
    uint32_t rank() const override { return r.c_->rank; }
    uint32_t cluster_size() const override { return static_cast<uint32_t>(r.ctas_.size()); }
    uint32_t warp() const override { return w.index; }
    [[noreturn]] void fail(int lane, const std::string& what) override { r.fail(w, lane, what); }
  } env(*this, w);
  const Tc05Op op = static_cast<Tc05Op>(in.sub);
  const int first = std::countr_zero(exec);
  const char* name = op == Tc05Op::Alloc ? "tcgen05.alloc" : op == Tc05Op::Dealloc ? "tcgen05.dealloc" : "tcgen05.relinquish_alloc_permit";
  // the operand of a warp-wide instruction: the same in every lane
  auto warp_value = [&](const Opnd& o, const char* what) {
    const uint64_t v = value(w, o, first);
    for (uint32_t m = exec; m; m &= m - 1)
      if (value(w, o, std::countr_zero(m)) != v)
        fail(w, std::countr_zero(m), fmt::format("{}: {} differs between lanes {} and {} of the warp", name, what, first, std::countr_zero(m)));
    return v;
  };
  auto columns = [&](const Opnd& o) {
    const uint64_t n = warp_value(o, "nCols");
    if (n < 32 || n > 512 || (n & (n - 1)))
      fail(w, first, fmt::format("{}: nCols is {}; it must be a power of 2 from 32 to 512", name, n));
    return static_cast<uint32_t>(n);
  };
  TensorMemory& tm = c_->tmem;
  switch (op) {
    case Tc05Op::Alloc:
    case Tc05Op::Dealloc:
    case Tc05Op::Relinquish:
      if (exec != 0xFFFFFFFFu) fail(w, std::countr_zero(~exec), fmt::format("{} (.sync.aligned) needs all 32 lanes of the warp", name));
      if (op == Tc05Op::Relinquish) {
        tm.relinquished = true;
      } else if (op == Tc05Op::Alloc) {
        const uint32_t n = columns(in.ops[1]);
        if (tm.relinquished) fail(w, first, "tcgen05.alloc after tcgen05.relinquish_alloc_permit in this CTA");
        const std::optional<uint32_t> col = tm.alloc(n);
        if (!col)
          fail(w, first, fmt::format("tcgen05.alloc of {} columns: no free range of tensor memory (allocated: {}; 512 columns in all). On the GPU "
                                     "this waits for a tcgen05.dealloc; the emulator reports it",
                                     n, tm.describe()));
        const uint32_t addr = *col;  // lane 0, the first column
        sync_access_ = true;  // the warp's collective write: its lanes may all read it (not a race)
        std::memcpy(access(w, first, in, in.ops[0], 4, true), &addr, 4);
        sync_access_ = false;
      } else {
        const uint32_t taddr = static_cast<uint32_t>(warp_value(in.ops[0], "taddr"));
        const uint32_t n = columns(in.ops[1]);
        if (taddr >> 16) fail(w, first, fmt::format("tcgen05.dealloc: taddr {:#x} has lane {}; an allocation's address has lane 0", taddr, taddr >> 16));
        if (!c_->mma_pending.empty()) tcgen05_settled(w, first, taddr & 0xFFFF, n, "tcgen05.dealloc frees");
        const std::string error = tm.dealloc(taddr & 0xFFFF, n);
        if (!error.empty()) fail(w, first, error);
      }
      return;
    case Tc05Op::Ld:
    case Tc05Op::St:
      if (!c_->mma_pending.empty()) {
        const uint32_t taddr = static_cast<uint32_t>((in.ops[1].slot != kNoSlot ? reg(w, in.ops[1].slot, first) : 0) + in.ops[1].imm);
        tcgen05_settled(w, first, taddr & 0xFFFF, tcgen05_ld_st_columns(in), op == Tc05Op::Ld ? "tcgen05.ld reads" : "tcgen05.st writes");
      }
      tcgen05_ld_st(p_, in, env, exec);
      if (op == Tc05Op::Ld) {
        for (uint32_t k = 0; k < in.ops[0].count; ++k) w.tc_loading.push_back(p_.vec_slots[in.ops[0].slot + k]);
        if (in.flags & kTc05Red) w.tc_loading.push_back(in.ops[3].slot);  // tcgen05.ld.red's redval
        w.tc_load_pc = static_cast<uint32_t>(&in - p_.code.data());
      }
      return;
    case Tc05Op::WaitLd: w.tc_loading.clear(); return;
    case Tc05Op::Commit:
      for (uint32_t m = exec; m; m &= m - 1) {
        const int l = std::countr_zero(m);
        const std::vector<uint32_t> ranks = (in.flags & kMulticast) ? mask_ranks(w, l, value(w, in.ops[1], l)) : std::vector<uint32_t>{};
        const uint32_t thread = w.index * kLanes + static_cast<uint32_t>(l);
        for (size_t ti = 0; ti < std::max<size_t>(ranks.size(), 1); ++ti) {
          sync_access_ = true;
          uint8_t* bar = ranks.empty() ? commit_mbarrier(w, l, in) : access(w, l, in, rebased(w, l, in.ops[0], in.space, ranks[ti]), 8, true);
          sync_access_ = false;
          // the thread's mmas (in any CTA of the cluster) complete with this arrival's phase
          const auto [owner, key] = owner_cta(bar);
          if (owner) {
            auto it = owner->mbars.find(key);
            if (it != owner->mbars.end())
              for (Cta& cta : ctas_)
                for (PendingMma& mma : cta.mma_pending)
                  if (mma.thread == thread && mma.issuer_rank == c_->rank) mma.commits.push_back({owner->rank, key, it->second.generation, it->second.phase + 1});
          }
          mbar_signal(w, l, bar, 0, 1);
        }
      }
      return;
    default:
      for (uint32_t m = exec; m; m &= m - 1) {
        const int l = std::countr_zero(m);
        if (op == Tc05Op::Mma) {
          const MmaWritten d = tcgen05_mma(p_, in, env, l);
          for (uint32_t r = d.first_rank; r < d.first_rank + d.ctas; ++r)
            ctas_[r].mma_pending.push_back({w.index * kLanes + static_cast<uint32_t>(l), static_cast<uint32_t>(&in - p_.code.data()), c_->rank,
                                            d.column, d.columns, {}});
        }
        else if (op == Tc05Op::Cp) tcgen05_cp(in, env, l);
        else tcgen05_shift(in, env, l);
      }
      return;
  }
}

// Triton 3.5.1 gives tcgen05.commit the 32-bit shared address of its mbarrier zero-extended, with no
// state space (generic addressing), and its Blackwell kernels run on B200: the hardware's
// generic-to-shared conversion keeps the low 32 bits. So a generic address below 2^32 (never a
// generic address of a window or an allocation here) is read as a .shared::cluster address.
uint8_t* Runner::commit_mbarrier(Warp& w, int l, const DInst& in) {
  const Opnd& a = in.ops[0];
  const uint64_t addr = (a.slot != kNoSlot ? reg(w, a.slot, l) : 0) + a.imm;
  if (in.space == Space::Generic && !a.symbol && addr >> 32 == 0) return resolve(w, l, Space::SharedCluster, addr, 8, true);
  return access(w, l, in, a, 8, true);
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

// The bits of a tensor element reduced into global memory (cp.reduce.async.bulk.tensor).
bool tensor_reduce(uint8_t dtype, AtomOp op, uint64_t old, uint64_t v, uint64_t& out) {
  const unsigned bits = tensor_map_element_bytes(dtype) * 8;
  switch (dtype) {
    case 6: case 9: {  // f16, bf16
      const Format f = dtype == 6 ? Format::F16 : Format::BF16;
      const double a = decode(f, static_cast<uint32_t>(old)), b = decode(f, static_cast<uint32_t>(v));
      if (op == AtomOp::Add) out = encode(f, a + b);
      else if (op == AtomOp::Min || op == AtomOp::Max) out = std::isnan(a) ? v : std::isnan(b) ? old : ((b < a) == (op == AtomOp::Min) ? v : old);
      else return false;
      return true;
    }
    case 7: case 10: case 11: case 12: {  // f32 (tf32 elements are f32 in memory)
      const float a = f32(old), b = f32(v);
      if (op == AtomOp::Add) out = canon(a + b);
      else if (op == AtomOp::Min) out = bits_of(std::fmin(a, b));
      else if (op == AtomOp::Max) out = bits_of(std::fmax(a, b));
      else return false;
      return true;
    }
    case 8: {
      const double a = f64(old), b = f64(v);
      if (op == AtomOp::Add) out = bits_of(a + b);
      else if (op == AtomOp::Min) out = bits_of(std::fmin(a, b));
      else if (op == AtomOp::Max) out = bits_of(std::fmax(a, b));
      else return false;
      return true;
    }
    default: break;
  }
  const bool sgn = dtype == 3 || dtype == 5;
  const uint64_t a = mask_bits(old, bits), b = mask_bits(v, bits);
  switch (op) {
    case AtomOp::Add: out = a + b; break;
    case AtomOp::Min: out = (sgn ? sext(b, bits) < sext(a, bits) : b < a) ? b : a; break;
    case AtomOp::Max: out = (sgn ? sext(b, bits) > sext(a, bits) : b > a) ? b : a; break;
    case AtomOp::Inc: out = a >= b ? 0 : a + 1; break;
    case AtomOp::Dec: out = (a == 0 || a > b) ? b : a - 1; break;
    case AtomOp::And: out = a & b; break;
    case AtomOp::Or: out = a | b; break;
    case AtomOp::Xor: out = a ^ b; break;
    default: return false;
  }
  out = mask_bits(out, bits);
  return true;
}

// The CUtensorMapDataType of a PTX element type (for reductions), or 0xFF.
uint8_t dtype_of(Ty t) {
  switch (t.k) {
    case 'h': return 6;
    case 'B': return 9;
    case 'f': return t.bits == 32 ? 7 : t.bits == 64 ? 8 : 0xFF;
    case 's': return t.bits == 32 ? 3 : t.bits == 64 ? 5 : 0xFF;
    default: return t.bits == 8 ? 0 : t.bits == 16 ? 1 : t.bits == 32 ? 2 : t.bits == 64 ? 4 : 0xFF;
  }
}

void Runner::bulk_reduce(Warp& w, int l, const DInst& in) {
  const Opnd* o = in.ops;
  const uint64_t n = value(w, o[2], l);
  const unsigned es = in.type.bits / 8;
  const uint8_t dtype = dtype_of(in.type);
  if (n % 16 != 0) fail(w, l, fmt::format("cp.reduce.async.bulk of {} bytes (a multiple of 16)", n));
  DInst src_in = in;
  src_in.space = in.space2;
  for (uint64_t done = 0; done < n; done += es) {
    Opnd d_at = o[0], s_at = o[1];
    d_at.imm += done, s_at.imm += done;
    uint64_t v = 0, old = 0, r = 0;
    std::memcpy(&v, access(w, l, src_in, s_at, es, false), es);
    sync_access_ = true;  // like atomics
    uint8_t* p = access(w, l, in, d_at, es, true);
    sync_access_ = false;
    std::lock_guard lock(atomic_lock(p));
    std::memcpy(&old, p, es);
    if (dtype == 0xFF || !tensor_reduce(dtype, static_cast<AtomOp>(in.boolop), old, v, r))
      fail(w, l, "this cp.reduce.async.bulk operation and type are not supported");
    std::memcpy(p, &r, es);
  }
  if (in.flags & kCompleteTx) {
    sync_access_ = true;
    uint8_t* bar = access(w, l, in, o[3], 8, true);
    sync_access_ = false;
    mbar_signal(w, l, bar, static_cast<int64_t>(n), 0);
  }
}

// cp.async.bulk.tensor in tile mode: loads (to this CTA's or, multicast, several CTAs'
// shared memory, then complete_tx on each one's mbarrier), stores and reductions (from
// this CTA's shared memory). The copy happens when issued. The box is dense in shared
// memory, innermost dimension first, its 16-byte chunks swizzled like the hardware's
// CU_TENSOR_MAP_SWIZZLE_32B/64B/128B: address bits [4, 4 + n) XOR bits [7, 7 + n), n = 1, 2, 3.
void Runner::tensor_copy(Warp& w, const DInst& in, uint32_t exec) {
  const Opnd* o = in.ops;
  for (uint32_t m = exec; m; m &= m - 1) {
    const int l = std::countr_zero(m);
    if (in.im2col == 2 || (in.im2col == 1 && in.sub != 0))
      fail(w, l, "cp.async.bulk.tensor in this im2col mode (.im2col::w, .im2col_no_offs, im2col stores) is not supported by the emulator");
    // the tensor map: a kernel parameter (by name, or its address from mov/cvta.param), or in global memory
    const uint64_t ta = value(w, o[1], l);
    const uint8_t* tm = nullptr;
    if ((o[1].kind == Opnd::Imm && o[1].symbol && o[1].space == Space::Param) || ta < params_.size()) {
      if (!fits(ta, kTensorMapBytes, params_.size())) fail(w, l, fmt::format("the tensor map at param+{}: out of bounds", ta));
      tm = params_.data() + ta;
    } else {
      tm = resolve(w, l, Space::Generic, ta, kTensorMapBytes, false);
    }
    if (opt_.check_memory && ta % 64 != 0) fail(w, l, fmt::format("the tensor map at {:#x} is not 64-byte aligned", ta));
    const auto desc = decode(tm);
    if (!desc) fail(w, l, "the tensor map is not one the CPU device encoded (ptx::make_tensor_map on the CPU device, or emu::encode)");
    const TensorMapDesc& d = *desc;
    const bool im2col = in.im2col == 1;
    const bool four_rows = in.im2col == 3;  // .tile::gather4 / .tile::scatter4
    if (four_rows && (d.rank != 2 || d.box[1] != 1 || d.element_strides[0] > 1))
      fail(w, l, fmt::format(".tile::{} needs a 2D tiled tensor map with box[1] = 1 and element stride 1 (rank {}, box[1] = {})",
                             in.sub == 0 ? "gather4" : "scatter4", d.rank, d.box[1]));
    if (im2col != (d.kind == TensorMapKind::Im2col))
      fail(w, l, im2col ? "an .im2col copy with a tiled tensor map (make it with TensorMapSpec::Mode::im2col)"
                        : "a .tile copy with an im2col tensor map");
    if (im2col && d.rank < 3) fail(w, l, fmt::format("an im2col tensor map of rank {} (3 to 5)", d.rank));
    if (d.rank != in.vec) fail(w, l, fmt::format("a {}d tensor copy with a tensor map of rank {}", in.vec, d.rank));
    if (o[2].count != (four_rows ? 5u : d.rank)) fail(w, l, fmt::format("{} coordinates for a tensor map of rank {}", o[2].count, d.rank));
    if (d.interleave != 0) fail(w, l, "interleaved tensor maps are not supported by the emulator");
    if (d.swizzle > 3) fail(w, l, fmt::format("swizzle mode {} is not supported by the emulator", d.swizzle));
    const uint32_t es = tensor_map_element_bytes(d.dtype);
    int64_t coord[5] = {}, rows[4] = {};
    uint64_t ext[5] = {1, 1, 1, 1, 1}, estride[5] = {1, 1, 1, 1, 1};
    uint64_t count = 1;
    for (unsigned i = 0; i < d.rank; ++i)
      if ((!im2col && (d.box[i] < 1 || d.box[i] > 256)) || d.element_strides[i] > 8)
        fail(w, l, fmt::format("the tensor map's box[{}] = {} (1 to 256), element stride {} (1 to 8)", i, d.box[i], d.element_strides[i]));
    if (im2col && (d.channels_per_pixel < 1 || d.channels_per_pixel > 256 || d.pixels_per_column < 1 || d.pixels_per_column > 1024))
      fail(w, l, fmt::format("the im2col tensor map's {} channels per pixel (1 to 256), {} pixels per column (1 to 1024)",
                             d.channels_per_pixel, d.pixels_per_column));
    const uint64_t inner = im2col ? d.channels_per_pixel : d.box[0];
    if (d.swizzle && inner * es > (16u << d.swizzle))
      fail(w, l, fmt::format("the tensor map's inner box of {} bytes exceeds its {}-byte swizzle span", inner * es, 16u << d.swizzle));
    auto coordinate = [&](unsigned i) {
      const uint32_t slot = p_.vec_slots[o[2].slot + i];
      return slot != kNoSlot && (slot & kImmCoord) ? sext(slot, 31) : sext(reg(w, slot, l), 32);
    };
    for (unsigned i = 0; four_rows && i < 4; ++i) rows[i] = coordinate(i + 1);
    for (unsigned i = 0; i < d.rank; ++i) {
      coord[i] = four_rows && i == 1 ? rows[0] : coordinate(i);
      estride[i] = std::max<uint8_t>(d.element_strides[i], 1);
      ext[i] = (d.box[i] + estride[i] - 1) / estride[i];
      if (!im2col) count *= ext[i];
    }
    if (four_rows) count *= 4;  // the box's row, four times
    // im2col: the pixels of the column (their W, H, D, N coordinates, the offsets added), from the
    // start pixel at the copy's coordinates, W fastest, each spatial coordinate wrapping inside
    // the bounding box [lower, dim - 1 + upper] (corners stored {D, H, W}); N steps on.
    std::vector<std::array<int64_t, 5>> pixels;
    if (im2col) {
      const unsigned ns = d.rank - 2u;  // spatial dimensions 1 .. ns; N is dimension rank - 1
      int64_t lo[5] = {}, hi[5] = {}, off[5] = {};
      for (unsigned i = 1; i <= ns; ++i) {
        lo[i] = d.lower[ns - i];
        hi[i] = static_cast<int64_t>(d.dims[i]) - 1 + d.upper[ns - i];
        if (hi[i] < lo[i]) fail(w, l, fmt::format("the im2col tensor map's bounding box is empty along dimension {}", i));
        const uint32_t slot = p_.vec_slots[o[5].slot + i - 1];
        off[i] = slot & kImmCoord ? (slot & 0xFFFFu) : (reg(w, slot, l) & 0xFFFFu);  // unsigned 16-bit offsets
      }
      std::array<int64_t, 5> at{};
      for (unsigned i = 1; i < d.rank; ++i) at[i] = coord[i];
      for (uint32_t p = 0; p < d.pixels_per_column; ++p) {
        std::array<int64_t, 5> px = at;
        for (unsigned i = 1; i <= ns; ++i) px[i] += off[i];
        pixels.push_back(px);
        for (unsigned i = 1; i < d.rank; ++i) {  // the next pixel
          at[i] += static_cast<int64_t>(estride[i]);
          if (i + 1 == d.rank || at[i] <= hi[i]) break;
          at[i] = lo[i];
        }
      }
      count = uint64_t{d.pixels_per_column} * d.channels_per_pixel;
    }
    const uint64_t bytes = count * es;
    if (bytes == 0 || bytes % 16 != 0) fail(w, l, fmt::format("the tensor map's box is {} bytes: not a positive multiple of 16", bytes));
    // the global address of each box element (nullopt: out of the tensor's bounds)
    auto element = [&](uint64_t lin, uint64_t& addr) {
      addr = d.base;
      if (im2col) {
        const int64_t c = coord[0] + static_cast<int64_t>(lin % d.channels_per_pixel);
        const std::array<int64_t, 5>& px = pixels[lin / d.channels_per_pixel];
        if (c < 0 || static_cast<uint64_t>(c) >= d.dims[0]) return false;
        addr += static_cast<uint64_t>(c) * es;
        for (unsigned i = 1; i < d.rank; ++i) {
          if (px[i] < 0 || static_cast<uint64_t>(px[i]) >= d.dims[i]) return false;
          addr += static_cast<uint64_t>(px[i]) * d.strides[i];
        }
        return true;
      }
      if (four_rows) {  // row lin / box[0] of the four, column coord[0] + lin % box[0]
        const int64_t c = coord[0] + static_cast<int64_t>(lin % ext[0]), r = rows[lin / ext[0]];
        if (c < 0 || static_cast<uint64_t>(c) >= d.dims[0] || r < 0 || static_cast<uint64_t>(r) >= d.dims[1]) return false;
        addr += static_cast<uint64_t>(c) * es + static_cast<uint64_t>(r) * d.strides[1];
        return true;
      }
      for (unsigned i = 0; i < d.rank; ++i) {
        const int64_t c = coord[i] + static_cast<int64_t>((lin % ext[i]) * estride[i]);
        lin /= ext[i];
        if (c < 0 || static_cast<uint64_t>(c) >= d.dims[i]) return false;
        addr += static_cast<uint64_t>(c) * (i == 0 ? es : d.strides[i]);
      }
      return true;
    };
    const uint64_t swz_mask = d.swizzle ? (uint64_t{1} << d.swizzle) - 1 : 0;
    auto swizzle = [swz_mask](uint64_t a) { return a ^ (((a >> 7) & swz_mask) << 4); };
    const uint64_t smem = (o[0].slot != kNoSlot ? reg(w, o[0].slot, l) : 0) + o[0].imm;
    if (opt_.check_memory && (smem & kOffsetMask) % 128 != 0)
      fail(w, l, fmt::format("the shared-memory box at shared+{} is not 128-byte aligned", smem & kOffsetMask));
    std::vector<uint8_t> box(bytes);
    auto global = [&](uint64_t addr) {
      uint8_t* g = mem_.find(addr, es);
      if (!g) fail(w, l, fmt::format("tensor element at {}: outside every allocation (the tensor map's base, dimensions or strides)", mem_.describe(addr)));
      return g;
    };
    if (in.sub == 0) {  // load
      uint64_t fill = 0;
      const bool is_float = d.dtype >= 6 && d.dtype != 0;
      if (d.oob_nan && is_float) fill = es == 2 ? kOobNaN16 : es == 4 ? 0x7FFFFFFF : 0x7FFFFFFFFFFFFFFFull;
      for (uint64_t k = 0; k < count; ++k) {
        uint64_t addr;
        if (element(k, addr)) std::memcpy(box.data() + k * es, global(addr), es);
        else std::memcpy(box.data() + k * es, &fill, es);
      }
      const std::vector<uint32_t> ranks = (in.flags & kMulticast) ? mask_ranks(w, l, value(w, o[4], l)) : std::vector<uint32_t>{};
      for (size_t ti = 0; ti < std::max<size_t>(ranks.size(), 1); ++ti) {
        const uint64_t base = ranks.empty() ? smem : with_rank(smem, in.space, ranks[ti]);
        for (uint64_t c = 0; c < bytes; c += 16) std::memcpy(resolve(w, l, in.space, swizzle(base + c), 16, true), box.data() + c, 16);
        sync_access_ = true;
        uint8_t* bar = access(w, l, in, ranks.empty() ? o[3] : rebased(w, l, o[3], in.space, ranks[ti]), 8, true);
        sync_access_ = false;
        mbar_signal(w, l, bar, static_cast<int64_t>(bytes), 0);
      }
      continue;
    }
    // store or reduction: elements outside the tensor are not written
    for (uint64_t c = 0; c < bytes; c += 16) std::memcpy(box.data() + c, resolve(w, l, in.space2, swizzle(smem + c), 16, false), 16);
    const AtomOp op = static_cast<AtomOp>(in.boolop);
    for (uint64_t k = 0; k < count; ++k) {
      uint64_t addr;
      if (!element(k, addr)) continue;
      uint8_t* g = global(addr);
      if (in.sub == 1) {
        std::memcpy(g, box.data() + k * es, es);
        continue;
      }
      uint64_t old = 0, v = 0, r = 0;
      std::memcpy(&old, g, es);
      std::memcpy(&v, box.data() + k * es, es);
      std::lock_guard lock(atomic_lock(g));
      if (!tensor_reduce(d.dtype, op, old, v, r)) fail(w, l, fmt::format("this reduction of elements of tensor-map type {}", d.dtype));
      std::memcpy(g, &r, es);
    }
  }
}

// Texture and surface instructions (texture.cpp), lane by lane; texels and surface elements are
// global memory read and written through the usual checks.
void Runner::texture(Warp& w, const DInst& in, uint32_t exec) {
  struct Access final : TextureWarp {
    Runner& r;
    Warp& w;
    Access(Runner& runner, Warp& warp) : r(runner), w(warp) {}
    uint64_t value(const Opnd& o, int lane) override { return r.value(w, o, lane); }
    void write(const Opnd& d, int lane, uint64_t v, Ty t) override { r.write(w, d, lane, v, t); }
    void write_pred(uint32_t slot, int lane, bool v) override { r.reg(w, slot, lane) = v; }
    uint8_t* global(uint64_t address, unsigned size, bool store, int lane) override {
      return r.resolve(w, lane, Space::Global, address, size, store);
    }
    const Memory& memory() const override { return r.mem_; }
    std::mutex& atomic_lock(const void* p) override { return ptx::emu::atomic_lock(p); }
    [[noreturn]] void fail(int lane, const std::string& what) override { r.fail(w, lane, what); }
  } access(*this, w);
  texture_execute(*p_.textures[in.table], access, exec);
}

// tensormap.replace: one field of a tensor map (the CPU device's encoding) in global or shared
// memory, read, changed and written back; tensormap.cp_fenceproxy: a 128-byte copy of one
// from shared to global memory (the fence has nothing to order here).
// mov.b128: a copy, or the pack / unpack of {lo, hi} (two .b64) or four .b32 (lowest first).
void Runner::mov_b128(Warp& w, const DInst& in, uint32_t exec, uint32_t lanes) {
  const Opnd& d = in.ops[0];
  const Opnd& a = in.ops[1];
  const Opnd& whole = d.kind == Opnd::Vec ? a : d;
  b128_operands(w, lanes, {&whole}, "mov");
  const Opnd* parts = d.kind == Opnd::Vec ? &d : a.kind == Opnd::Vec ? &a : nullptr;
  if (parts && parts->count != 2 && parts->count != 4)
    fail(w, std::countr_zero(lanes), fmt::format("mov.b128 with a {}-element vector (2 of .b64 or 4 of .b32)", parts->count));
  if (!parts) b128_operands(w, lanes, {&a}, "mov");
  for (uint32_t m = exec; m; m &= m - 1) {
    const int l = std::countr_zero(m);
    if (!parts) {
      const uint64_t lo = reg(w, a.slot, l), hi = reg(w, a.slot + 1, l);
      reg(w, d.slot, l) = lo, reg(w, d.slot + 1, l) = hi;
      continue;
    }
    const unsigned eb = 128 / parts->count, per_half = parts->count / 2;
    for (uint32_t i = 0; i < parts->count; ++i) {
      const uint32_t slot = p_.vec_slots[parts->slot + i];
      uint64_t& half = reg(w, whole.slot + i / per_half, l);
      const unsigned shift = eb * (i % per_half);
      if (parts == &d) {  // unpack
        if (slot != kNoSlot) reg(w, slot, l) = mask_bits(half >> shift, eb);
      } else {  // pack
        if (i % per_half == 0) half = 0;
        half |= mask_bits(slot == kNoSlot ? 0 : reg(w, slot, l), eb) << shift;
      }
    }
  }
}

// red.vN (sm_90: .v2/.v4 .f32, .f16x2, .bf16x2 ...; and multimem.red's vectors): each element as
// its own reduction, under one lock.
void Runner::red_vector(Warp& w, const DInst& in, uint32_t exec, uint32_t lanes) {
  const Opnd* o = in.ops;
  const AtomOp aop = static_cast<AtomOp>(in.sub);
  if (in.op != Opc::Red) fail(w, std::countr_zero(lanes), fmt::format("atom.v{} (vector atomics) is not supported by the emulator yet", in.vec));
  if (o[1].kind != Opnd::Vec || o[1].count != in.vec)
    fail(w, std::countr_zero(lanes), fmt::format("red.v{} needs a vector of {} values", in.vec, in.vec));
  if (aop != AtomOp::Add && aop != AtomOp::Min && aop != AtomOp::Max)
    fail(w, std::countr_zero(lanes), "vector reductions are .add, .min and .max");
  const Ty t = in.type;
  const unsigned es = t.bits / 8;
  for (uint32_t m = exec; m; m &= m - 1) {
    const int l = std::countr_zero(m);
    sync_access_ = true;
    uint8_t* p = access(w, l, in, o[0], es * in.vec, true);
    sync_access_ = false;
    std::lock_guard lock(atomic_lock(p));
    for (unsigned i = 0; i < in.vec; ++i) {
      uint64_t old = 0;
      std::memcpy(&old, p + i * es, es);
      const uint32_t slot = p_.vec_slots[o[1].slot + i];
      const uint64_t b = slot == kNoSlot ? 0 : reg(w, slot, l);
      uint64_t r;
      if (aop == AtomOp::Add)
        r = reduce_arith(t, old, b, [](float x, float y) { return x + y; }, [](double x, double y) { return x + y; },
                  [](uint64_t x, uint64_t y) { return x + y; });
      else
        r = reduce_arith(t, old, b, [aop](float x, float y) { return aop == AtomOp::Max ? std::fmax(x, y) : std::fmin(x, y); },
                  [aop](double x, double y) { return aop == AtomOp::Max ? std::fmax(x, y) : std::fmin(x, y); },
                  [aop, t](uint64_t x, uint64_t y) {
                    const bool less = t.k == 's' ? sext(x, t.bits) < sext(y, t.bits) : mask_bits(x, t.bits) < mask_bits(y, t.bits);
                    return (less == (aop == AtomOp::Max)) ? y : x;
                  });
      std::memcpy(p + i * es, &r, es);
    }
  }
}

// atom.exch.b128 / atom.cas.b128 (sm_90): whole 16 bytes, atomically.
void Runner::atom_b128(Warp& w, const DInst& in, uint32_t exec, uint32_t lanes) {
  const AtomOp aop = static_cast<AtomOp>(in.sub);
  const Opnd* o = in.ops;
  if (in.op != Opc::Atom || (aop != AtomOp::Exch && aop != AtomOp::Cas))
    fail(w, std::countr_zero(lanes), "128-bit atomics are atom.exch.b128 and atom.cas.b128 only");
  if (aop == AtomOp::Cas) b128_operands(w, lanes, {&o[0], &o[2], &o[3]}, "atom.cas");
  else b128_operands(w, lanes, {&o[0], &o[2]}, "atom.exch");
  for (uint32_t m = exec; m; m &= m - 1) {
    const int l = std::countr_zero(m);
    sync_access_ = true;
    uint8_t* p = access(w, l, in, o[1], 16, true);
    sync_access_ = false;
    std::lock_guard lock(atomic_lock(p));
    uint64_t old[2], b[2] = {reg(w, o[2].slot, l), reg(w, o[2].slot + 1, l)};
    std::memcpy(old, p, 16);
    if (aop == AtomOp::Exch) std::memcpy(p, b, 16);
    else if (old[0] == b[0] && old[1] == b[1]) {
      const uint64_t c[2] = {reg(w, o[3].slot, l), reg(w, o[3].slot + 1, l)};
      std::memcpy(p, c, 16);
    }
    reg(w, o[0].slot, l) = old[0], reg(w, o[0].slot + 1, l) = old[1];
  }
}

// clusterlaunchcontrol (9.7.13.17-18). try_cancel takes the next cluster of the launch that has
// not started (the host threads take clusters from the same counter, so a canceled one never
// runs) and writes the 16-byte response: words x, y, z of the canceled cluster's first CTA, then
// 1 (canceled) or 0; then 16 bytes complete on the mbarrier (in every CTA of the cluster with
// .multicast::cluster::all, at the same offsets). query_cancel decodes a response in a .b128
// register.
void Runner::cluster_launch_control(Warp& w, const DInst& in, uint32_t exec) {
  const Opnd* o = in.ops;
  const ClcOp op = static_cast<ClcOp>(in.sub);
  if (op == ClcOp::TryCancel) {
    for (uint32_t m = exec; m; m &= m - 1) {
      const int l = std::countr_zero(m);
      if (c_->saw_failed_cancel)
        fail(w, l, "clusterlaunchcontrol.try_cancel after this CTA observed a failed one (undefined behavior on the GPU)");
      const Space sp = in.space == Space::Generic ? Space::Generic : Space::SharedCluster;
      uint64_t at[2];
      for (int i = 0; i < 2; ++i) {
        at[i] = (o[i].slot != kNoSlot ? reg(w, o[i].slot, l) : 0) + o[i].imm;
        const bool cta_window = sp == Space::Generic ? at[i] >= kSharedWindow && at[i] - kSharedWindow <= kOffsetMask : at[i] <= kOffsetMask;
        if (!cta_window)
          fail(w, l, fmt::format("clusterlaunchcontrol.try_cancel: the {} address {:#x} is not in this CTA's shared memory (.shared::cta)",
                                 i == 0 ? "response" : "mbarrier", at[i]));
      }
      const uint64_t index = next_ ? next_->fetch_add(1) : total_;
      const bool canceled = index < total_;
      uint32_t response[4] = {0, 0, 0, canceled};
      if (canceled) {
        const auto first = first_ctaid(index);
        std::copy(first.begin(), first.end(), response);
      }
      const uint32_t ranks = (in.flags & kMulticast) ? static_cast<uint32_t>(ctas_.size()) : 1;
      for (uint32_t r = 0; r < ranks; ++r) {
        const uint32_t rank = (in.flags & kMulticast) ? r : c_->rank;
        std::memcpy(resolve(w, l, sp, with_rank(at[0], sp, rank), 16, true), response, 16);
        sync_access_ = true;
        uint8_t* bar = resolve(w, l, sp, with_rank(at[1], sp, rank), 8, true);
        sync_access_ = false;
        mbar_signal(w, l, bar, 16, 0);
      }
    }
    return;
  }
  if (o[1].kind != Opnd::Reg || p_.slot_types[o[1].slot].bits != 128)
    fail(w, std::countr_zero(exec), "clusterlaunchcontrol.query_cancel reads a try_cancel response from a .b128 register");
  for (uint32_t m = exec; m; m &= m - 1) {
    const int l = std::countr_zero(m);
    const uint64_t lo = reg(w, o[1].slot, l), hi = reg(w, o[1].slot + 1, l);
    const bool canceled = (hi >> 32 & 1) != 0;
    if (op == ClcOp::IsCanceled) {
      if (!canceled) c_->saw_failed_cancel = true;
      write(w, o[0], l, canceled, Ty{'p', 1});
      continue;
    }
    if (!canceled)
      fail(w, l, "clusterlaunchcontrol.query_cancel.get_first_ctaid of a response whose try_cancel failed (undefined on the GPU)");
    const uint32_t xyz[3] = {static_cast<uint32_t>(lo), static_cast<uint32_t>(lo >> 32), static_cast<uint32_t>(hi)};
    if (op == ClcOp::FirstCtaid) {
      if (o[0].kind != Opnd::Vec || o[0].count != 4) fail(w, l, "clusterlaunchcontrol.query_cancel.get_first_ctaid.v4 needs a vector of 4 registers");
      for (uint32_t i = 0; i < 3; ++i)
        if (p_.vec_slots[o[0].slot + i] != kNoSlot) reg(w, p_.vec_slots[o[0].slot + i], l) = xyz[i];
    } else {
      write(w, o[0], l, xyz[static_cast<int>(op) - static_cast<int>(ClcOp::FirstCtaidX)], Ty{'b', 32});
    }
  }
}

void Runner::tensormap_op(Warp& w, const DInst& in, uint32_t exec) {
  const Opnd* o = in.ops;
  for (uint32_t m = exec; m; m &= m - 1) {
    const int l = std::countr_zero(m);
    const uint64_t at = (o[0].slot != kNoSlot ? reg(w, o[0].slot, l) : 0) + o[0].imm;
    if (opt_.check_memory && (at & kOffsetMask) % 64 != 0) fail(w, l, fmt::format("the tensor map at {:#x} is not 64-byte aligned", at));
    if (in.sub == kTensormapCopy) {
      if (o[2].kind != Opnd::Imm || o[2].imm != kTensorMapBytes) fail(w, l, "tensormap.cp_fenceproxy copies 128 bytes");
      const uint8_t* src = resolve(w, l, in.space2, (o[1].slot != kNoSlot ? reg(w, o[1].slot, l) : 0) + o[1].imm, kTensorMapBytes, false);
      TensorMapBytes copy;
      std::memcpy(copy.data(), src, kTensorMapBytes);
      std::memcpy(access(w, l, in, o[0], kTensorMapBytes, true), copy.data(), kTensorMapBytes);
      continue;
    }
    const uint8_t* cur = access(w, l, in, o[0], kTensorMapBytes, false);
    auto desc = decode(cur);
    // 128 zero bytes are the blank map every field of which is then replaced (Triton builds device
    // tensor descriptors so): a tiled map of rank 1 (the rank field is the rank minus one) of u8.
    if (!desc && std::all_of(cur, cur + kTensorMapBytes, [](uint8_t b) { return b == 0; })) {
      desc = TensorMapDesc{};
      desc->rank = 1;
    }
    if (!desc)
      fail(w, l, "tensormap.replace on bytes that are neither a tensor map the CPU device encoded (ptx::make_tensor_map on the CPU "
                 "device, or emu::encode) nor 128 zero bytes");
    TensorMapDesc& d = *desc;
    const bool indexed = in.sub == kTmBoxDim || in.sub == kTmGlobalDim || in.sub == kTmGlobalStride || in.sub == kTmElementStride;
    const uint64_t v = value(w, o[indexed ? 2 : 1], l);
    const uint64_t ord = indexed ? value(w, o[1], l) : 0;
    auto need = [&](bool ok, const std::string& what) {
      if (!ok) fail(w, l, fmt::format("tensormap.replace: {} (new value {})", what, v));
    };
    if (indexed) need(ord < 5, fmt::format("ordinal {} (0 to 4)", ord));
    switch (in.sub) {
      case kTmGlobalAddress: need(v % 16 == 0, "the global address must be 16-byte aligned"); d.base = v; break;
      case kTmRank: need(v <= 4, "the rank field is the rank minus one, 0 to 4"); d.rank = static_cast<uint8_t>(v + 1); break;
      case kTmBoxDim: need(v >= 1 && v <= 256, "a box dimension is 1 to 256"); d.box[ord] = static_cast<uint16_t>(v); break;
      case kTmGlobalDim: need(v >= 1 && v <= (uint64_t{1} << 32), "a global dimension is 1 to 2^32"); d.dims[ord] = v; break;
      case kTmGlobalStride:  // ord i: the byte stride of dimension i + 1 (cuTensorMapEncodeTiled's globalStrides[i])
        need(ord < 4 && v % 16 == 0 && v < (uint64_t{1} << 40), "a global stride is a multiple of 16 below 2^40, ordinal 0 to 3");
        d.strides[ord + 1] = v;
        break;
      case kTmElementStride: need(v >= 1 && v <= 8, "an element stride is 1 to 8"); d.element_strides[ord] = static_cast<uint8_t>(v); break;
      case kTmElemtype: {
        // the manual's .elemtype codes, as CUtensorMapDataType values
        static constexpr uint8_t kToDriver[] = {0, 1, 2, 3, 4, 5, 6, 7, 10, 8, 9, 11, 12};
        need(v < std::size(kToDriver), "element types 0 to 12 (the sub-byte types 13 to 15 are not supported by the emulator)");
        d.dtype = kToDriver[v];
        break;
      }
      case kTmInterleave: need(v <= 2, "the interleave layout is 0 to 2"); d.interleave = static_cast<uint8_t>(v); break;
      case kTmSwizzleMode: {
        const uint8_t atomicity = d.swizzle > 3 ? static_cast<uint8_t>(d.swizzle - 3) : 0;
        need(v <= 3, "swizzle modes 0 to 3 (the 96B mode is not supported by the emulator)");
        need(atomicity == 0 || v == 3, "a swizzle atomicity other than 16B needs the 128B swizzle mode");
        d.swizzle = static_cast<uint8_t>(v + atomicity);
        break;
      }
      case kTmSwizzleAtomicity: {
        const uint8_t mode = d.swizzle > 3 ? 3 : d.swizzle;
        need(v <= 3, "the swizzle atomicity is 0 to 3");
        need(v == 0 || mode == 3, "a swizzle atomicity other than 16B needs the 128B swizzle mode (replace .swizzle_mode first)");
        d.swizzle = static_cast<uint8_t>(mode + v);
        break;
      }
      case kTmFillMode: need(v <= 1, "the fill mode is 0 or 1"); d.oob_nan = static_cast<uint8_t>(v); break;
      default: fail(w, l, "this tensormap.replace field");
    }
    const TensorMapBytes out = encode(d);
    std::memcpy(access(w, l, in, o[0], kTensorMapBytes, true), out.data(), kTensorMapBytes);
  }
}

}  // namespace

Emulator::Emulator(Options o) : options_(o) {}

// What ptxas would refuse is not run: the instruction stream of an invalid module (a missing
// operand, a special register as a destination) has no meaning to emulate.
void Emulator::require_valid(const ir::Module& m, std::string_view entry) {
  const std::vector<spec::Diagnostic> diags = spec::check(m);
  std::string shown;
  size_t errors = 0;
  for (const spec::Diagnostic& d : diags) {
    if (d.severity != spec::Severity::Error) continue;
    if (++errors > 3) continue;
    const ir::LineColumn lc = m.source.size() ? m.source.locate(d.offset) : ir::LineColumn{};
    shown += lc.line ? fmt::format("\n  {}:{}:{}: {}", m.source.name(), lc.line, lc.column, d.message) : "\n  " + d.message;
  }
  if (errors)
    throw Error(fmt::format("launch of {}: the module is not valid PTX ({} error{}; Options::validate = false runs it anyway):{}{}", entry,
                            errors, errors == 1 ? "" : "s", shown, errors > 3 ? fmt::format("\n  ... and {} more", errors - 3) : ""));
}

std::vector<uint32_t> Emulator::parameter_sizes(const ir::Module& m, std::string_view entry) {
  Memory scratch;
  return decode(m, entry, scratch).param_sizes;
}
Emulator::~Emulator() = default;

void Emulator::launch(const ir::Module& m, std::string_view entry, const LaunchConfig& cfg, std::span<const Arg> args) {
  check_launch_shape(entry, cfg, cfg.cluster);
  if (options_.validate) require_valid(m, entry);
  const Program p = decode(m, entry, memory_);
  if (args.size() != p.param_offsets.size())
    throw ConfigError(ConfigError::Field::Arguments, fmt::format("launch of {}: {} arguments for {} parameters", entry, args.size(), p.param_offsets.size()));
  std::vector<uint8_t> params(p.param_bytes, 0);
  for (size_t i = 0; i < args.size(); ++i) {
    if (args[i].bytes.size() != p.param_sizes[i])
      throw ConfigError(ConfigError::Field::Arguments,
                        fmt::format("launch of {}: argument {} has {} bytes; the parameter has {}", entry, i, args[i].bytes.size(), p.param_sizes[i]));
    std::memcpy(params.data() + p.param_offsets[i], args[i].bytes.data(), args[i].bytes.size());
  }
  const Dim3 cl = Runner::cluster_shape(p, cfg);
  check_launch_shape(entry, cfg, cl);  // with the kernel's .reqnctapercluster
  if (p.req_cluster[0] && static_cast<uint64_t>(cfg.cluster.x) * cfg.cluster.y * cfg.cluster.z > 1 &&
      (cl.x != p.req_cluster[0] || cl.y != p.req_cluster[1] || cl.z != p.req_cluster[2]))
    throw ConfigError(ConfigError::Field::Cluster, fmt::format("launch of {}: cluster ({},{},{}), but the kernel requires .reqnctapercluster {},{},{}",
                                                               entry, cl.x, cl.y, cl.z, p.req_cluster[0], p.req_cluster[1], p.req_cluster[2]));
  const auto target = ir::target_words(m);
  check_shared_memory(entry, target.empty() ? std::string_view{} : target[0], p.static_smem, cfg.dynamic_smem);
  const uint64_t ctas = static_cast<uint64_t>(cfg.grid.x / cl.x) * (cfg.grid.y / cl.y) * (cfg.grid.z / cl.z);  // clusters
  unsigned threads = options_.threads ? options_.threads : std::max(1u, std::thread::hardware_concurrency());
  threads = static_cast<unsigned>(std::min<uint64_t>(threads, ctas));
  std::atomic<uint64_t> next{0};
  LaunchBudget budget(options_.max_launch_memory);
  LaunchWatch watch(options_, ctas, cl.x * cl.y * cl.z);
  std::vector<Stats> stats(threads);
  std::vector<std::exception_ptr> errors(threads);
  auto work = [&](unsigned t) {
    try {
      Runner(p, memory_, options_, cfg, params, stats[t], budget, watch).run(next);
    } catch (...) {
      errors[t] = std::current_exception();
      watch.stop();
    }
  };
  if (threads <= 1) {
    work(0);
  } else {
    std::vector<std::thread> pool;
    for (unsigned t = 0; t < threads; ++t) pool.emplace_back(work, t);
    for (auto& th : pool) th.join();
  }
  for (const Stats& st : stats) {
    stats_.warp_instructions += st.warp_instructions;
    stats_.thread_instructions += st.thread_instructions;
  }
  for (const auto& e : errors)
    if (e) std::rethrow_exception(e);
}

}  // namespace ptx::emu
