#include "ptxpp/dsl/blackwell/fence.hpp"

#include "emit.hpp"
#include "ptxpp/dsl/inst.hpp"

namespace ptx::blackwell {

void fence_before_thread_sync(ptx::SourceLocation where) {
  detail::emit(inst::tcgen05.fence_before_thread_sync, {}, nullptr, where);
}

void fence_after_thread_sync(ptx::SourceLocation where) {
  detail::emit(inst::tcgen05.fence_after_thread_sync, {}, nullptr, where);
}

}  // namespace ptx::blackwell
