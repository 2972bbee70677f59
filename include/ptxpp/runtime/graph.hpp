// A graph of kernel launches captured from a stream, replayed with one call (a CUDA
// graph on a GPU; on the CPU device, the recorded launches run again in order).
//
//   ptx::Stream s = dev.stream();
//   ptx::Graph g = ptx::Graph::capture(s, [&] { k1.on(s, x, y); k2.on(s, y, z); });
//   for (int i = 0; i < 100; ++i) g.launch(s);
//
// While capturing, launches on `s` are recorded, not run; work that cannot be
// captured (synchronizing, copies, allocation, loading a kernel: bind() before) fails
// with the driver's error, and the capture is ended. The graph replays the
// arguments as they were at capture time. A graph belongs to the stream's device
// and must not outlive it.
#pragma once

#include <cstddef>
#include <functional>
#include <memory>

#include "ptxpp/runtime/device.hpp"

namespace ptx {

struct GraphImpl;

class Graph {
 public:
  Graph() = default;
  static Graph capture(const Stream& stream, const std::function<void()>& work);
  void launch(const Stream& stream) const;
  size_t launches() const;  // kernel launches recorded

 private:
  explicit Graph(std::shared_ptr<GraphImpl> impl) : impl_(std::move(impl)) {}
  std::shared_ptr<GraphImpl> impl_;
};

}  // namespace ptx
