// Shared-memory race checking (racecheck).
#include <string>

#include "runner.hpp"

namespace ptx::emu::engine {

Runner::Shadow::Access Runner::current_access(const Warp& w, int lane) const {
  return {static_cast<uint16_t>(c_->rank << kThreadBits | (w.index * kLanes + static_cast<uint32_t>(lane))), w.syncs, c_->epoch, cross_epoch_};
}

// A synchronization lies between access `a` (0 epoch: none yet) and an access of `now`'s thread.
bool Runner::synced(const Shadow::Access& a, const Shadow::Access& now) {
  if (a.epoch == 0) return true;
  if (a.thread >> kThreadBits != now.thread >> kThreadBits) return a.cross != now.cross;
  const bool same_warp = (a.thread & ((1u << kThreadBits) - 1)) / kLanes == (now.thread & ((1u << kThreadBits) - 1)) / kLanes;
  return a.epoch != now.epoch || (same_warp && a.warp_syncs != now.warp_syncs);
}

std::string Runner::thread_name(uint32_t t) const {
  return fmt::format("({},{},{})", t % cfg_.block.x, t / cfg_.block.x % cfg_.block.y, t / (cfg_.block.x * cfg_.block.y));
}

// A shadow's thread, named from the point of view of the memory's CTA `mem_rank`.
std::string Runner::shadow_thread_name(uint32_t id, uint32_t mem_rank) const {
  const uint32_t rank = id >> kThreadBits;
  return thread_name(id & ((1u << kThreadBits) - 1)) + (rank == mem_rank ? "" : fmt::format(" of CTA rank {}", rank));
}

// A write of the byte the unordered write before it left there (`stored`, when the store knows its
// bytes) is no race: either order leaves the same memory, and compilers rely on it (Triton's
// stores of a value several threads hold, e.g. a row statistic held by each lane of a quad).
// The first writer stays the byte's writer.
void Runner::race_check(const Warp& w, int lane, Cta& mem, uint64_t addr, unsigned size, bool store, const uint8_t* stored) {
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

std::string Runner::where(const Cta& mem) const { return &mem == c_ ? "" : fmt::format(" of CTA rank {}", mem.rank); }

}  // namespace ptx::emu::engine
