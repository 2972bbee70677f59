#include "ptxpp/dsl/blackwell/fence.hpp"

#include "emit.hpp"

namespace ptx::blackwell {

void fence_before_thread_sync(ptx::SourceLocation where) {
  detail::emit("tcgen05.fence::before_thread_sync", {}, nullptr, where);
}

void fence_after_thread_sync(ptx::SourceLocation where) {
  detail::emit("tcgen05.fence::after_thread_sync", {}, nullptr, where);
}

}  // namespace ptx::blackwell
