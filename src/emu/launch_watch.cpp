#include "launch_watch.hpp"

namespace ptx::emu {

namespace {
constexpr std::chrono::seconds kReportEvery{1};
}  // namespace

LaunchWatch::LaunchWatch(const Options& o, uint64_t clusters, uint32_t cluster_size)
    : options_(o),
      start_(Clock::now()),
      deadline_(start_ + std::chrono::duration_cast<Clock::duration>(
                             std::chrono::duration<double>(o.timeout_seconds > 0 ? o.timeout_seconds : 0))),
      has_deadline_(o.timeout_seconds > 0),
      clusters_(clusters),
      cluster_size_(cluster_size),
      next_report_((start_ + kReportEvery).time_since_epoch().count()) {}

double LaunchWatch::seconds() const { return std::chrono::duration<double>(Clock::now() - start_).count(); }

LaunchWatch::Poll LaunchWatch::poll(uint64_t steps) {
  steps_.fetch_add(steps, std::memory_order_relaxed);
  if (stopped()) return Poll::Stopped;
  const Clock::time_point now = Clock::now();
  if (has_deadline_ && now >= deadline_) return Poll::TimedOut;
  if (options_.on_progress) report(now);
  return Poll::Run;
}

// The first thread to see that a report is due makes it; the others go on.
void LaunchWatch::report(Clock::time_point now) {
  int64_t due = next_report_.load(std::memory_order_relaxed);
  if (now.time_since_epoch().count() < due) return;
  if (!next_report_.compare_exchange_strong(due, (now + kReportEvery).time_since_epoch().count())) return;
  const std::lock_guard lock(report_mutex_);
  Progress p;
  p.ctas_done = done_.load(std::memory_order_relaxed) * cluster_size_;
  p.ctas = clusters_ * cluster_size_;
  p.warp_instructions = steps_.load(std::memory_order_relaxed);
  p.seconds = std::chrono::duration<double>(now - start_).count();
  options_.on_progress(p);
}

}  // namespace ptx::emu
