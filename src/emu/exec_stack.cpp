// The thread's stack (stack.isa): alloca, stacksave, stackrestore.
#include <algorithm>

#include "runner.hpp"

namespace ptx::emu::engine {

void Runner::stack(Warp& w, const DInst& in, uint32_t exec) {
  const Ty t = in.type;
  const Opnd* o = in.ops;
  auto lanes = [&](auto&& f) { for_lanes(exec, f); };
  switch (in.op) {
    case Opc::Alloca:  // alloca.type ptr, size{, align}: a .local address in the thread's stack
      lanes([&](int l) {
        const uint64_t size = value(w, o[1], l), align = in.nops >= 3 ? std::max<uint64_t>(value(w, o[2], l), 8) : 8;
        const uint64_t at = (uint64_t{w.top[l]} + align - 1) & ~(align - 1);
        if (size > max_stack() || at + size > max_stack())  // (at < 2^32: no wrap)
          fail(w, l, fmt::format("alloca of {} bytes: the thread's stack would reach {} bytes; the limit is {} (call frames and alloca: "
                                 "Options::max_stack_bytes)", size, at + size, max_stack()));
        grow_stack(w, l, at + size, [&] { return fmt::format("alloca of {} bytes", size); });
        w.top[l] = static_cast<uint32_t>(at + size);
        write(w, o[0], l, at, t);
      });
      return;
    case Opc::StackSave: lanes([&](int l) { write(w, o[0], l, w.top[l], t); }); return;
    case Opc::StackRestore:
      lanes([&](int l) {
        const uint64_t v = value(w, o[0], l);
        const uint64_t frame_end = w.sp[l] + p_.funcs[w.fn[l]].frame;
        if (v < frame_end || v > w.top[l])
          fail(w, l, fmt::format("stackrestore to {:#x}: not a stack pointer of this frame (stacksave gives {:#x} to {:#x} here)", v, frame_end, w.top[l]));
        w.top[l] = static_cast<uint32_t>(v);
      });
      return;
    default: return;
  }
}

}  // namespace ptx::emu::engine
