// The launch's host-memory budget (Options::max_launch_memory, max_stack_bytes): each CTA slot's
// state, the threads' stacks beyond the kernel's frame, the registers a call saves.
#include <string>
#include <vector>

#include "runner.hpp"

namespace ptx::emu::engine {

// ---- the launch's memory budget (Options::max_launch_memory, max_stack_bytes) ----------------
bool Runner::take(uint64_t bytes) {
  if (!budget_.take(bytes)) return false;
  held_ += bytes;
  return true;
}

void Runner::give_back(uint64_t bytes) {
  budget_.give_back(bytes);
  held_ -= bytes;
}

std::string Runner::budget_note() const {
  return fmt::format("the launch may hold {} bytes of host memory (Options::max_launch_memory, ptxpp run --max-memory); {} are in use",
                     budget_.limit(), budget_.used());
}

// What this CTA's state needs, from the budget (a CTA slot's first use; the next CTAs reuse it):
// its registers, the kernel's frame of each thread, shared memory and its check shadows.
void Runner::hold_cta_state(Cta& c) {
  const uint64_t threads = uint64_t{cfg_.block.x} * cfg_.block.y * cfg_.block.z, warps = (threads + kLanes - 1) / kLanes;
  const uint64_t frame = p_.funcs[0].frame;
  if (frame > max_stack())
    throw Error(fmt::format("kernel {}: its .local variables take {} bytes per thread; the stack limit is {} (Options::max_stack_bytes)", p_.name,
                            frame, max_stack()));
  const uint64_t smem = uint64_t{p_.static_smem} + cfg_.dynamic_smem;
  const uint64_t regs = warps * p_.slots * kLanes * sizeof(uint64_t), frames = warps * kLanes * frame;
  const uint64_t shared = smem * (2 + (opt_.check_races ? sizeof(Shadow) : 0));
  const uint64_t bytes = regs + frames + shared;
  if (bytes <= c.held) return;
  if (!take(bytes - c.held))
    throw Error(fmt::format("kernel {}, CTA ({},{},{}): its state needs {} bytes of host memory ({} for {} registers in {} warps, {} for the "
                            "threads' .local frames, {} for {} bytes of shared memory and its checks): more than is left: {}",
                            p_.name, c.ctaid[0], c.ctaid[1], c.ctaid[2], bytes, regs, p_.slots, warps, frames, shared, smem, budget_note()));
  c.held = bytes;
}

// A lane's stack beyond the kernel's frame is charged as it grows (grow_stack) and freed here
// when its CTA slot is reused: what one CTA's recursion took is not kept for the next.
void Runner::release_stack(std::vector<uint8_t>& stack) {
  const uint64_t frame = p_.funcs[0].frame;
  if (stack.capacity() <= frame) return;
  give_back(stack.capacity() - frame);
  std::vector<uint8_t>().swap(stack);
}

// A call's saved registers (recursion) come from the budget too.
void Runner::hold_frame(Warp& w, int l, uint64_t bytes, const std::string& callee) {
  if (!take(bytes)) fail(w, l, fmt::format("call to {}: {} bytes to save its registers: {}", callee, bytes, budget_note()));
}

}  // namespace ptx::emu::engine
