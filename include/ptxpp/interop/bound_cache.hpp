// Shared by the framework interops (torch.hpp, jax.hpp): per op, what a call needs
// that depends only on where it runs and its inputs' shapes (the kernel traced for
// the bindings the shapes give and loaded on the device, and the outputs' shapes), so
// that a call repeating a (device, shapes) pair neither binds the shapes again nor
// looks the trace up by its bindings.
//
// A lookup takes a lock, scans at most kCapacity entries comparing integers, and
// allocates nothing; a miss is built by the caller and inserted.
#pragma once

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <memory>
#include <mutex>
#include <span>
#include <vector>

#include "ptxpp/runtime/device.hpp"
#include "ptxpp/runtime/launch.hpp"

namespace ptx::interop {

// What a call on one device with inputs of some shapes needs.
struct BoundCall {
  ptx::Device device;        // empty where nothing runs (shapes only: torch's meta tensors)
  ptx::BoundKernel kernel;   // the same
  std::vector<std::vector<int64_t>> output_shapes;  // per output, in order
};

// Where a call runs, as a cache key: a GPU's ordinal, or one of these.
inline constexpr int kCpuKey = -1;
inline constexpr int kMetaKey = -2;

class BoundCache {
 public:
  static constexpr size_t kCapacity = 16;  // (device, shapes) pairs per op; the oldest goes first

  struct Stats {
    uint64_t hits = 0, misses = 0;
  };

  // The entry for inputs of sizes `dims` (every input's dimensions, in order) on
  // `device`, or null (counted as a miss: the caller builds it and inserts it).
  std::shared_ptr<const BoundCall> find(int device, std::span<const int64_t> dims) const {
    {
      std::lock_guard lock(mu_);
      for (const Entry& e : entries_)
        if (e.device == device && std::equal(e.dims.begin(), e.dims.end(), dims.begin(), dims.end())) {
          hits_.fetch_add(1, std::memory_order_relaxed);
          return e.call;
        }
    }
    misses_.fetch_add(1, std::memory_order_relaxed);
    return nullptr;
  }

  // Adds the entry (another thread's, when it inserted the same key first) and returns it.
  std::shared_ptr<const BoundCall> insert(int device, std::span<const int64_t> dims, BoundCall call) {
    auto made = std::make_shared<const BoundCall>(std::move(call));
    std::lock_guard lock(mu_);
    for (const Entry& e : entries_)
      if (e.device == device && std::equal(e.dims.begin(), e.dims.end(), dims.begin(), dims.end())) return e.call;
    Entry entry{device, std::vector<int64_t>(dims.begin(), dims.end()), made};
    if (entries_.size() < kCapacity) {
      entries_.push_back(std::move(entry));
    } else {
      entries_[next_] = std::move(entry);
      next_ = (next_ + 1) % kCapacity;
    }
    return made;
  }

  Stats stats() const { return {hits_.load(std::memory_order_relaxed), misses_.load(std::memory_order_relaxed)}; }

 private:
  struct Entry {
    int device;
    std::vector<int64_t> dims;
    std::shared_ptr<const BoundCall> call;
  };
  mutable std::mutex mu_;
  std::vector<Entry> entries_;
  size_t next_ = 0;  // the entry replaced next once full
  mutable std::atomic<uint64_t> hits_{0}, misses_{0};
};

}  // namespace ptx::interop
