#include "ptxpp/runtime/graph.hpp"

#include <fmt/format.h>

#include "device_impl.hpp"
#include "ptxpp/runtime/error.hpp"

namespace ptx {

Graph Graph::capture(const Stream& stream, const std::function<void()>& work) {
  const StreamImpl* s = stream.impl().get();
  if (!s) throw runtime::Error("Graph::capture needs a stream of its own (dev.stream()); the default stream cannot be captured");
  s->begin_capture();
  try {
    work();
  } catch (...) {
    s->abort_capture();  // the stream is usable again; the error is the caller's
    throw;
  }
  return Graph(s->end_capture());
}

void Graph::launch(const Stream& stream) const {
  if (!impl_) throw runtime::Error("launching an empty ptx::Graph (make one with Graph::capture)");
  const StreamImpl* s = stream.impl().get();
  if (s && s->device != impl_->device)
    throw runtime::Error(fmt::format("a graph captured on {} launched on a stream of {}", impl_->device->name, s->device->name));
  impl_->launch(s);
}

size_t Graph::launches() const { return impl_ ? impl_->launches : 0; }

}  // namespace ptx
