// Addresses to bytes: the state spaces, the generic windows (shared, local, param), the
// shared::cluster addresses of the other CTAs of a cluster (mapa), checked (bounds, alignment,
// never-written shared memory) and race-checked.
#include <algorithm>
#include <cstring>
#include <mutex>
#include <string>
#include <vector>

#include "bounds.hpp"
#include "runner.hpp"

namespace ptx::emu::engine {

// ---- memory --------------------------------------------------------------------------------
// `align`: the alignment the access needs when it is not its size's (0: min(size, 16)).
// `stored`: the bytes a store writes, when known (race_check takes a second write of the same bytes).
uint8_t* Runner::access(Warp& w, int lane, const DInst& in, const Opnd& a, unsigned size, bool store, unsigned align,
                const uint8_t* stored) {
  uint64_t addr = (a.slot != kNoSlot ? reg(w, a.slot, lane) : 0) + a.imm;
  Space sp = in.space;
  if (a.symbol && a.space == Space::Local) {  // a frame variable (.local, or a call's .param): relative to the frame
    sp = Space::Local;
    addr += w.sp[lane];
  }
  if (sp == Space::Generic && a.symbol && a.slot == kNoSlot) sp = a.space;
  return resolve(w, lane, sp, addr, size, store, align, stored);
}

// The bytes at `addr` in space `sp` (Generic: by the address's window), checked.
uint8_t* Runner::resolve(Warp& w, int lane, Space sp, uint64_t addr, unsigned size, bool store, unsigned align,
                 const uint8_t* stored) {
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

// "shared+16"; an offset no window has (an index that went negative) in hex: "shared+0xfffffffffffffffc".
std::string Runner::at_offset(const char* space, uint64_t offset) {
  return offset < kWindowSize ? fmt::format("{}+{}", space, offset) : fmt::format("{}+{:#x}", space, offset);
}

std::string Runner::describe(Space sp, uint64_t addr) const {
  if (sp == Space::Shared) return at_offset("shared", addr);
  if (sp == Space::SharedCluster) return fmt::format("shared::cluster address {:#x}", addr);
  if (sp == Space::Param) return at_offset("param", addr);
  if (sp == Space::Local) return at_offset("local", addr);
  return mem_.describe(addr);
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

// The ranks of a .multicast::cluster ctaMask.
std::vector<uint32_t> Runner::mask_ranks(Warp& w, int lane, uint64_t mask) {
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
uint64_t Runner::with_rank(uint64_t a, Space sp, uint64_t rank) const {
  const bool generic = sp == Space::Generic;
  const uint64_t off = (generic ? a - kSharedWindow : a) & kOffsetMask;
  const uint64_t r = rank == c_->rank ? off : ((rank + 1) << kRankShift) | off;
  return generic ? r + kSharedWindow : r;
}

Opnd Runner::rebased(Warp& w, int lane, const Opnd& a, Space sp, uint32_t rank) {
  Opnd o;
  o.kind = Opnd::Addr;
  o.imm = with_rank((a.slot != kNoSlot ? reg(w, a.slot, lane) : 0) + a.imm, sp, rank);
  return o;
}

// The CTA of the cluster whose shared memory holds `p`, and the offset there.
std::pair<Runner::Cta*, uint64_t> Runner::owner_cta(const uint8_t* p) {
  for (Cta& c : ctas_)
    if (!c.smem.empty() && p >= c.smem.data() && p < c.smem.data() + c.smem.size()) return {&c, static_cast<uint64_t>(p - c.smem.data())};
  return {nullptr, 0};
}

// Striped locks for atomics on memory that CTAs on several host threads share.
std::mutex& atomic_lock(const void* p) {
  static std::mutex locks[64];
  return locks[(reinterpret_cast<uintptr_t>(p) >> 3) % 64];
}

}  // namespace ptx::emu::engine
