// Internal: the emulator's execution engine (docs/emulator.md, "Execution model"). One Runner
// runs clusters of a launch on one host thread. Its member functions are spread over files:
//   scheduler.cpp       CTAs, clusters, warps' turns, named and cluster barriers, one step of a warp
//   state_budget.cpp    the launch's host-memory budget: CTA state, thread stacks, saved registers
//   operands.cpp        operand values out of the hot path, special registers
//   memory_windows.cpp  state spaces, generic windows, shared::cluster ranks: an address to its bytes
//   race_check.cpp      shared-memory race checking
//   exec.cpp            execute(): the dispatch over Opc to the instruction families, in files
//                       named after spec/isa/*.isa: exec_integer.cpp, exec_float.cpp, exec_half.cpp,
//                       exec_logic.cpp, exec_compare.cpp, exec_data_movement.cpp, exec_convert.cpp,
//                       exec_async_copy.cpp, exec_tensor_copy.cpp, exec_sync.cpp, exec_atomics.cpp,
//                       exec_warp.cpp, exec_control.cpp, exec_builtins.cpp, exec_stack.cpp,
//                       exec_warp_mma.cpp, exec_tcgen05.cpp, exec_texture.cpp (and video),
//                       exec_cluster_launch_control.cpp
//   emulator.cpp        Emulator::launch: the host threads, each with its Runner
// A family's function runs one instruction for the warp's executing lanes (once per warp
// instruction); the per-lane operand access (reg, value, write) is inline here.
#pragma once

#include <array>
#include <atomic>
#include <bit>
#include <cstdint>
#include <initializer_list>
#include <mutex>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include <fmt/format.h>

#include "directed_rounding.hpp"
#include "launch_budget.hpp"
#include "launch_watch.hpp"
#include "program.hpp"
#include "ptxpp/emu/emulator.hpp"
#include "ptxpp/emu/tensor_map.hpp"
#include "tcgen05.hpp"
#include "typed_arith.hpp"

namespace ptx::emu::engine {

constexpr int kLanes = 32;

// Striped locks for atomics on memory that CTAs on several host threads share (memory_windows.cpp).
std::mutex& atomic_lock(const void* p);
// The bits of a tensor element reduced into global memory (exec_async_copy.cpp).
bool tensor_reduce(uint8_t dtype, AtomOp op, uint64_t old, uint64_t v, uint64_t& out);


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
  void run(std::atomic<uint64_t>& next);
  // The cluster shape of a launch: the launch's, else the kernel's .reqnctapercluster, else one CTA.
  static Dim3 cluster_shape(const Program& p, const LaunchConfig& cfg);

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
  // A tcgen05.ld whose read of tensor memory its warp has not yet waited for (tcgen05.wait::ld)
  struct LoadInFlight {
    uint32_t warp, pc;        // the loading warp (lanes 32 (warp % 4) to +31) and instruction
    uint32_t column, columns;  // the columns read
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
    std::vector<LoadInFlight> tmem_loading;       // tcgen05.ld reads of this CTA's tensor memory not yet waited for
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

  // ---- scheduler.cpp: one cluster ------------------------------------------------------
  static constexpr uint32_t kQuantum = 4096;  // warp instructions a warp runs before the next warp's turn
  void init_cta(Cta& c, uint32_t x, uint32_t y, uint32_t z, uint32_t rank);
  std::array<uint32_t, 3> first_ctaid(uint64_t index) const;
  bool cluster(uint64_t index);
  void tmem_leak_check() const;
  std::string warp_positions(const char* running) const;
  std::string cluster_name() const;
  [[gnu::noinline]] [[noreturn]] void deadlock(const std::string& what) const;
  [[gnu::noinline]] [[noreturn]] void hung(const std::string& why) const;
  [[gnu::noinline]] bool keep_running();
  [[gnu::noinline]] bool cluster_release();
  bool release_barrier(uint32_t id);
  bool release_barrier();
  static uint32_t lane_pc(const Warp& w, int lane) { return w.uniform ? w.upc : w.pc[lane]; }
  [[noreturn]] void fail(const Warp& w, int lane, const std::string& what) const;
  static bool is_control(Opc op) {
    return op == Opc::Bra || op == Opc::Brx || op == Opc::Ret || op == Opc::Exit || op == Opc::Bar || op == Opc::Call || op == Opc::ClusterBar;
  }
  void step(Warp& w);
  bool uniform_branch(Warp& w, const DInst& in);

  // ---- operands (hot: inline; operands.cpp) --------------------------------------------
  uint64_t& reg(Warp& w, uint32_t slot, int lane) { return w.regs[static_cast<size_t>(slot) * kLanes + static_cast<size_t>(lane)]; }
  // The hot path inline (a register or a plain immediate), the rest out of line.
  [[gnu::always_inline]] uint64_t value(Warp& w, const Opnd& o, int lane) {
    if (o.kind == Opnd::Reg && !o.neg) [[likely]]
      return reg(w, o.slot, lane);
    if (o.kind == Opnd::Imm && !o.symbol) return o.imm;
    return value_slow(w, o, lane);
  }
  [[gnu::noinline]] uint64_t value_slow(Warp& w, const Opnd& o, int lane);
  // The warp's 32 values of a plain register operand (the whole-warp fast paths), else nullptr.
  uint64_t* plain_register(Warp& w, const Opnd& o) { return o.kind == Opnd::Reg && !o.neg ? &reg(w, o.slot, 0) : nullptr; }
  // f(l) for each lane of `exec`, lowest first; a full warp in one straight loop.
  template <class F>
  static void each_lane(uint32_t exec, F&& f) {
    if (exec == 0xFFFFFFFFu)
      for (int l = 0; l < kLanes; ++l) f(l);
    else
      for_lanes(exec, f);
  }
  uint64_t special(const Warp& w, const Opnd& o, int lane) const;
  void write(Warp& w, const Opnd& d, int lane, uint64_t v, Ty t) {
    if (d.kind == Opnd::Reg) [[likely]]
      reg(w, d.slot, lane) = t.k == 'p' ? (v != 0) : mask_bits(v, t.bits);
    else if (d.kind == Opnd::Pair) {
      if (d.slot != kNoSlot) reg(w, d.slot, lane) = mask_bits(v, t.bits);
    }
    else if (d.kind != Opnd::Sink) fail(w, lane, "the destination is not a register");
  }
  // f(lane) for each lane of `exec`, lowest first.
  template <class F>
  static void for_lanes(uint32_t exec, F&& f) {
    for (uint32_t m = exec; m; m &= m - 1) f(std::countr_zero(m));
  }

  // ---- memory_windows.cpp ---------------------------------------------------------------
  // `align`: the alignment the access needs when it is not its size's (0: min(size, 16)).
  // `stored`: the bytes a store writes, when known (race_check takes a second write of the same bytes).
  uint8_t* access(Warp& w, int lane, const DInst& in, const Opnd& a, unsigned size, bool store, unsigned align = 0,
                  const uint8_t* stored = nullptr);
  static bool in_param_window(uint64_t addr) { return addr >= kParamWindow && addr < kParamWindow + kWindowSize; }
  // The bytes at `addr` in space `sp` (Generic: by the address's window), checked.
  uint8_t* resolve(Warp& w, int lane, Space sp, uint64_t addr, unsigned size, bool store, unsigned align = 0,
                   const uint8_t* stored = nullptr);
  static std::string at_offset(const char* space, uint64_t offset);
  std::string describe(Space sp, uint64_t addr) const;
  std::string c_string(Warp& w, int lane, uint64_t addr);
  [[gnu::noinline]] std::vector<uint32_t> mask_ranks(Warp& w, int lane, uint64_t mask);
  uint64_t with_rank(uint64_t a, Space sp, uint64_t rank) const;
  Opnd rebased(Warp& w, int lane, const Opnd& a, Space sp, uint32_t rank);
  std::pair<Cta*, uint64_t> owner_cta(const uint8_t* p);

  // ---- race_check.cpp -------------------------------------------------------------------
  bool sync_access_ = false;  // the access is synchronization (atomics, mbarriers): not race-checked
  uint32_t cross_epoch_ = 1;
  // A thread of the cluster in the shadow: its CTA rank (up to 15) above its index in the CTA (up to 1023).
  static constexpr unsigned kThreadBits = 10;
  Shadow::Access current_access(const Warp& w, int lane) const;
  static bool synced(const Shadow::Access& a, const Shadow::Access& now);
  std::string thread_name(uint32_t t) const;
  std::string shadow_thread_name(uint32_t id, uint32_t mem_rank) const;
  void race_check(const Warp& w, int lane, Cta& mem, uint64_t addr, unsigned size, bool store, const uint8_t* stored = nullptr);
  std::string where(const Cta& mem) const;

  // ---- state_budget.cpp: the launch's memory budget (Options::max_launch_memory, max_stack_bytes)
  bool take(uint64_t bytes);
  void give_back(uint64_t bytes);
  std::string budget_note() const;
  void hold_cta_state(Cta& c);
  uint64_t max_stack() const { return std::min<uint64_t>(opt_.max_stack_bytes, 0xFFFFFFF0u); }  // frame offsets are 32-bit
  void release_stack(std::vector<uint8_t>& stack);
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
  void hold_frame(Warp& w, int l, uint64_t bytes, const std::string& callee);

  // ---- exec.cpp: one instruction for the lanes at the lowest pc -----------------------------
  void execute(Warp& w, const DInst& in, uint32_t exec, uint32_t active, uint32_t& advance);
  // The family of an arithmetic opcode shared by the integer, float and half instructions.
  enum class Family : uint8_t { Integer, Float, Half };
  static Family arith_family(const DInst& in);
  // A warp-collective .sync.aligned instruction (ldmatrix, mma, wmma, ...) is, for the race
  // checker, a synchronization point of the warp's lanes as bar.warp.sync is: the lanes' accesses
  // before it are ordered with its own, and those with the accesses after it.
  template <class Run>
  void warp_collective(Warp& w, const DInst& in, Run run) {
    if (in.warp_sync) ++w.syncs;
    run();
    if (in.warp_sync) ++w.syncs;
  }

  // ---- exec_integer.cpp (integer.isa) ------------------------------------------------------
  void integer_arith(Warp& w, const DInst& in, uint32_t exec);
  void integer_carry(Warp& w, const DInst& in, uint32_t exec);
  void integer_mul_mad(Warp& w, const DInst& in, uint32_t exec);
  template <bool Signed, bool Mad>
  void narrow_mul_mad(Warp& w, const DInst& in, uint32_t exec);
  void integer_bits(Warp& w, const DInst& in, uint32_t exec);
  void integer_fields(Warp& w, const DInst& in, uint32_t exec);
  void integer_dot(Warp& w, const DInst& in, uint32_t exec);
  void saturating_add_sub(Warp& w, const DInst& in, uint32_t exec);
  template <class Op>
  void pair16(Warp& w, const DInst& in, uint32_t exec, Op op);
  // ---- exec_float.cpp (float.isa) -----------------------------------------------------------
  void float_arith(Warp& w, const DInst& in, uint32_t exec);
  void float_unary(Warp& w, const DInst& in, uint32_t exec);
  void float_sign(Warp& w, const DInst& in, uint32_t exec);
  void float_fma(Warp& w, const DInst& in, uint32_t exec);
  void directed(Warp& w, const DInst& in, uint32_t exec, FpOp op);
  void f32x2(Warp& w, const DInst& in, uint32_t exec, FpOp op);
  void testp(Warp& w, const DInst& in, uint32_t exec);
  template <class FF, class FD, class FI>
  void binary(Warp& w, const DInst& in, uint32_t exec, FF ff, FD fd, FI fi);
  template <class FF>
  bool f32_on_registers(Warp& w, const DInst& in, uint32_t exec, FF ff);
  template <class FF, class FD>
  void unary(Warp& w, const DInst& in, uint32_t exec, FF ff, FD fd);
  // ---- exec_half.cpp (half.isa: the packed and narrow formats) --------------------------------
  void half_arith(Warp& w, const DInst& in, uint32_t exec);
  // ---- exec_logic.cpp (logic.isa) -----------------------------------------------------------
  void logic(Warp& w, const DInst& in, uint32_t exec);
  // ---- exec_compare.cpp (compare.isa) -------------------------------------------------------
  void compare_select(Warp& w, const DInst& in, uint32_t exec);
  void set(Warp& w, const DInst& in, uint32_t exec);
  // ---- exec_data_movement.cpp, exec_convert.cpp (data-movement.isa) -------------------------
  void mov(Warp& w, const DInst& in, uint32_t exec, uint32_t active);
  void mov_b128(Warp& w, const DInst& in, uint32_t exec, uint32_t lanes);
  void ld_st(Warp& w, const DInst& in, uint32_t exec, uint32_t active);
  bool store_bytes(Warp& w, const Opnd& v, unsigned vec, unsigned es, int l, uint8_t* out);
  void b128_operands(Warp& w, uint32_t lanes, std::initializer_list<const Opnd*> ops, const char* what);
  void addresses(Warp& w, const DInst& in, uint32_t exec);
  void prmt(Warp& w, const DInst& in, uint32_t exec);
  void st_bulk(Warp& w, const DInst& in, uint32_t exec);
  void cvt(Warp& w, const DInst& in, uint32_t exec);
  void cvt_pack(Warp& w, const DInst& in, uint32_t exec);
  // ---- exec_async_copy.cpp, exec_tensor_copy.cpp (async-copy.isa) ----------------------------
  void cp_async(Warp& w, const DInst& in, uint32_t exec);
  void bulk_reduce(Warp& w, int lane, const DInst& in);
  void tensor_copy(Warp& w, const DInst& in, uint32_t exec);
  TensorMapDesc copy_tensor_map(Warp& w, int l, const DInst& in);
  void tensormap_op(Warp& w, const DInst& in, uint32_t exec);
  // ---- exec_sync.cpp, exec_atomics.cpp (sync.isa) ---------------------------------------------
  void bar(Warp& w, const DInst& in, uint32_t exec, uint32_t active, uint32_t& advance);
  void cluster_bar(Warp& w, const DInst& in, uint32_t exec, uint32_t active, uint32_t& advance);
  void mbarrier(Warp& w, const DInst& in, uint32_t exec, uint32_t active);
  // st.async / red.async: `bytes` of transactions complete on the mbarrier at `bar`, in each lane.
  [[gnu::noinline]] void async_tx(Warp& w, uint32_t exec, const Opnd& bar, unsigned bytes);
  void mbar_signal(Warp& w, int lane, const uint8_t* p, int64_t tx, uint32_t arrivals);
  void note_arrival(const Cta& owner, Mbarrier& b) const;
  void complete_phase(Cta& owner, Mbarrier& b);
  void atom_red(Warp& w, const DInst& in, uint32_t exec, uint32_t active);
  void atom_b128(Warp& w, const DInst& in, uint32_t exec, uint32_t lanes);
  void red_vector(Warp& w, const DInst& in, uint32_t exec, uint32_t lanes);
  void cluster_launch_control(Warp& w, const DInst& in, uint32_t exec);
  // ---- exec_warp.cpp (warp-level: shfl, vote, match, redux, elect, activemask, bar.warp.sync) --
  void warp_op(Warp& w, const DInst& in, uint32_t exec, uint32_t active);
  void shfl(Warp& w, const DInst& in, uint32_t exec, uint32_t active);
  void match(Warp& w, const DInst& in, uint32_t exec, uint32_t active);
  void sync_members(Warp& w, uint32_t exec, uint32_t active, const Opnd& mask_op);
  // ---- exec_control.cpp, exec_builtins.cpp (control.isa) --------------------------------------
  void control(Warp& w, const DInst& in, uint32_t exec, uint32_t active, uint32_t& advance);
  void call(Warp& w, const DInst& in, uint32_t exec, uint32_t pc);
  void ret(Warp& w, uint32_t exec);
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
  void builtin(Warp& w, int lane, const FuncInfo& f, const DInst& in);
  std::string vprintf(Warp& w, int lane, const std::string& fmt_text, uint64_t ap);
  // ---- exec_stack.cpp (stack.isa) -----------------------------------------------------------
  void stack(Warp& w, const DInst& in, uint32_t exec);
  // ---- exec_warp_mma.cpp (warp-mma.isa, wgmma.isa) --------------------------------------------
  void movmatrix(Warp& w, const DInst& in, uint32_t exec, uint32_t active);
  void ldmatrix(Warp& w, const DInst& in, uint32_t exec, bool store);
  void mma(Warp& w, const DInst& in, uint32_t exec);
  void wgmma(Warp& w, const DInst& in, uint32_t exec);
  void wmma(Warp& w, const DInst& in, uint32_t exec);
  // ---- exec_tcgen05.cpp (tcgen05.isa) -------------------------------------------------------
  void tcgen05(Warp& w, const DInst& in, uint32_t exec);
  void tcgen05_settled(Warp& w, int lane, uint32_t column, uint32_t columns, const char* what);
  void tcgen05_unread(Warp& w, int lane, Cta& cta, uint32_t column, uint32_t columns, bool whole_lanes, const char* what);
  uint8_t* commit_mbarrier(Warp& w, int l, const DInst& in);
  // ---- exec_texture.cpp (texture.isa, video.isa) ----------------------------------------------
  void texture(Warp& w, const DInst& in, uint32_t exec);
  void video(Warp& w, const DInst& in, uint32_t exec);

  // ---- the runner's state ---------------------------------------------------------------------

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
  std::atomic<uint64_t>* next_ = nullptr;  // the launch's next cluster to run (run())
  uint64_t total_ = 0;                     // its clusters
};

}  // namespace ptx::emu::engine
