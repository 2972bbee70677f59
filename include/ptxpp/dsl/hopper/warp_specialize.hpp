// Warp specialization as Hopper's TMA + wgmma kernels run it: warpgroup 0 (threads 0-127) is
// the producer, the warpgroups after it the consumers. setmaxnreg moves registers from the
// producer, which only issues TMA copies, to the consumers, which hold wgmma accumulators.
#pragma once

#include <cstdint>
#include <functional>

#include "ptxpp/dsl/reg.hpp"
#include "ptxpp/dsl/source_location.hpp"

namespace ptx::hopper {

struct WarpRoles {
  uint32_t producer_regs = 40;   // setmaxnreg.dec of warpgroup 0 (24 to 256, a multiple of 8)
  uint32_t consumer_regs = 232;  // setmaxnreg.inc of the consumer warpgroups
};

// Emits, for `tid` (%tid.x, u32):
//   setp.lt.u32 %p1, tid, 128;  @!%p1 bra $L__endif;  setmaxnreg.dec.sync.aligned.u32 producer_regs;
//   $L__endif:  setp.lt.u32 %p2, tid, 32;  @!%p2 bra $L__endif_2;  producer_warp()
//   $L__endif_2:  setp.ge.u32 %p3, tid, 128;  @!%p3 bra $L__endif_3;
//   setmaxnreg.inc.sync.aligned.u32 consumer_regs;  sub.u32 %ct, tid, 128;  consumers(%ct)
//   $L__endif_3:
// (the branches are ptx::if_'s). producer_warp is warp 0 of warpgroup 0 (its other warps only
// give their registers up); consumers gets the thread's index among the consumers, tid - 128.
// setmaxnreg is sm_90a: the kernel's target must be.
void warp_specialize(const Reg& tid, const WarpRoles& roles, const std::function<void()>& producer_warp,
                     const std::function<void(const Reg& consumer_tid)>& consumers,
                     ptx::SourceLocation where = ptx::SourceLocation::current());

}  // namespace ptx::hopper
