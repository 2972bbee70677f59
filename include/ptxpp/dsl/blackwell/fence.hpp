// The tcgen05 ordering fences around thread synchronization (bar.sync, mbarrier waits):
// tcgen05 operations issued before a sync are ordered before those issued after it only
// with fence::before_thread_sync on the near side and fence::after_thread_sync on the far side.
#pragma once

#include "ptxpp/dsl/source_location.hpp"

namespace ptx::blackwell {

// tcgen05.fence::before_thread_sync;
void fence_before_thread_sync(ptx::SourceLocation where = ptx::SourceLocation::current());
// tcgen05.fence::after_thread_sync;
void fence_after_thread_sync(ptx::SourceLocation where = ptx::SourceLocation::current());

}  // namespace ptx::blackwell
