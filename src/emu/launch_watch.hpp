// Internal: the wall clock of one launch, polled by the host threads running its CTAs every
// few thousand warp instructions: the deadline (Options::timeout_seconds), a stop when another
// thread failed, and progress reports (Options::on_progress) about once a second.
#pragma once

#include <atomic>
#include <chrono>
#include <cstdint>
#include <mutex>

#include "ptxpp/emu/emulator.hpp"

namespace ptx::emu {

class LaunchWatch {
 public:
  static constexpr uint64_t kPollSteps = 1u << 14;  // warp instructions between polls

  LaunchWatch(const Options& o, uint64_t clusters, uint32_t cluster_size);

  enum class Poll : uint8_t { Run, TimedOut, Stopped };
  // Adds `steps` warp instructions to the total; says whether to go on.
  Poll poll(uint64_t steps);
  void cluster_done() { done_.fetch_add(1, std::memory_order_relaxed); }
  void stop() { stopped_.store(true, std::memory_order_relaxed); }
  bool stopped() const { return stopped_.load(std::memory_order_relaxed); }
  double seconds() const;

 private:
  using Clock = std::chrono::steady_clock;
  void report(Clock::time_point now);

  const Options& options_;
  const Clock::time_point start_;
  const Clock::time_point deadline_;
  const bool has_deadline_;
  const uint64_t clusters_;
  const uint32_t cluster_size_;
  std::atomic<uint64_t> done_{0}, steps_{0};
  std::atomic<bool> stopped_{false};
  std::atomic<int64_t> next_report_;  // in Clock ticks since the epoch
  std::mutex report_mutex_;           // one report at a time
};

}  // namespace ptx::emu
