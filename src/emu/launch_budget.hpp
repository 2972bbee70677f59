// Internal: the host memory one launch's state may take (Options::max_launch_memory), shared by
// the host threads running its CTAs. Each takes what it allocates before allocating it, so a
// kernel's registers, stacks or shared memory can never make the emulator allocate without bound.
#pragma once

#include <atomic>
#include <cstdint>

namespace ptx::emu {

class LaunchBudget {
 public:
  explicit LaunchBudget(uint64_t limit) : limit_(limit) {}
  // Takes `bytes` more of the budget; false (nothing taken) when that would pass the limit.
  bool take(uint64_t bytes) {
    uint64_t used = used_.load(std::memory_order_relaxed);
    do {
      if (bytes > limit_ - used) return false;
    } while (!used_.compare_exchange_weak(used, used + bytes, std::memory_order_relaxed));
    return true;
  }
  void give_back(uint64_t bytes) { used_.fetch_sub(bytes, std::memory_order_relaxed); }
  uint64_t limit() const { return limit_; }
  uint64_t used() const { return used_.load(std::memory_order_relaxed); }

 private:
  uint64_t limit_;
  std::atomic<uint64_t> used_{0};
};

}  // namespace ptx::emu
