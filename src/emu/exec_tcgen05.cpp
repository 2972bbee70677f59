// tcgen05 (tcgen05.isa), run by tcgen05.cpp: tensor memory, its allocation, and the mmas in flight.
#include <algorithm>
#include <cstring>
#include <optional>

#include "runner.hpp"

namespace ptx::emu::engine {

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

// Tensor memory columns [column, column + columns) of `cta` are written or freed (tcgen05.mma,
// st, dealloc): no tcgen05.ld reading them may be in flight, i.e. each warp that loaded them must
// have passed tcgen05.wait::ld. That is what the wait orders: ptxas makes an instruction that
// reads a tcgen05.ld's destination register wait for the load (a scoreboard on LDTM, as for any
// load), so using the registers before the wait is not a hazard; handing the columns to a writer
// (an mbarrier arrive, a barrier) before it is. A tcgen05.st (whole_lanes false) writes only the
// lane quarter of its warp; a warp's own tcgen05.st after its tcgen05.ld is not judged here.
void Runner::tcgen05_unread(Warp& w, int lane, Cta& cta, uint32_t column, uint32_t columns, bool whole_lanes, const char* what) {
  for (const LoadInFlight& l : cta.tmem_loading) {
    if (l.column >= column + columns || column >= l.column + l.columns) continue;
    if (!whole_lanes && (l.warp == w.index || l.warp % 4 != w.index % 4)) continue;
    fail(w, lane, fmt::format("{} tensor memory columns {} to {}{}, which {} (warp {}) reads, before that warp's tcgen05.wait::ld (on the GPU the "
                              "load may still be reading them)",
                              what, column, column + columns - 1, cta.rank == c_->rank ? "" : fmt::format(" of CTA rank {}", cta.rank),
                              p_.texts[p_.code[l.pc].stmt], l.warp));
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
        if (opt_.check_tcgen05_wait) tcgen05_unread(w, first, *c_, taddr & 0xFFFF, n, true, "tcgen05.dealloc frees");
        const std::string error = tm.dealloc(taddr & 0xFFFF, n);
        if (!error.empty()) fail(w, first, error);
      }
      return;
    case Tc05Op::Ld:
    case Tc05Op::St: {
      const uint32_t taddr = static_cast<uint32_t>((in.ops[1].slot != kNoSlot ? reg(w, in.ops[1].slot, first) : 0) + in.ops[1].imm);
      const uint32_t column = taddr & 0xFFFF, n = tcgen05_ld_st_columns(in);
      if (!c_->mma_pending.empty()) tcgen05_settled(w, first, column, n, op == Tc05Op::Ld ? "tcgen05.ld reads" : "tcgen05.st writes");
      if (op == Tc05Op::St && opt_.check_tcgen05_wait) tcgen05_unread(w, first, *c_, column, n, false, "tcgen05.st writes");
      tcgen05_ld_st(p_, in, env, exec);
      if (op == Tc05Op::Ld && opt_.check_tcgen05_wait) c_->tmem_loading.push_back({w.index, static_cast<uint32_t>(&in - p_.code.data()), column, n});
      return;
    }
    case Tc05Op::WaitLd:
      std::erase_if(c_->tmem_loading, [&](const LoadInFlight& l) { return l.warp == w.index; });
      return;
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
          if (opt_.check_tcgen05_wait)
            for (uint32_t r = d.first_rank; r < d.first_rank + d.ctas; ++r) tcgen05_unread(w, l, ctas_[r], d.column, d.columns, true, "tcgen05.mma writes");
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

}  // namespace ptx::emu::engine
