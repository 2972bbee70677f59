// clusterlaunchcontrol (sync.isa).
#include <algorithm>
#include <cstring>

#include "runner.hpp"

namespace ptx::emu::engine {

// clusterlaunchcontrol (9.7.13.17-18). try_cancel takes the next cluster of the launch that has
// not started (the host threads take clusters from the same counter, so a canceled one never
// runs) and writes the 16-byte response: words x, y, z of the canceled cluster's first CTA, then
// 1 (canceled) or 0; then 16 bytes complete on the mbarrier (in every CTA of the cluster with
// .multicast::cluster::all, at the same offsets). query_cancel decodes a response in a .b128
// register.
void Runner::cluster_launch_control(Warp& w, const DInst& in, uint32_t exec) {
  const Opnd* o = in.ops;
  const ClcOp op = static_cast<ClcOp>(in.sub);
  if (op == ClcOp::TryCancel) {
    for (uint32_t m = exec; m; m &= m - 1) {
      const int l = std::countr_zero(m);
      if (c_->saw_failed_cancel)
        fail(w, l, "clusterlaunchcontrol.try_cancel after this CTA observed a failed one (undefined behavior on the GPU)");
      const Space sp = in.space == Space::Generic ? Space::Generic : Space::SharedCluster;
      uint64_t at[2];
      for (int i = 0; i < 2; ++i) {
        at[i] = (o[i].slot != kNoSlot ? reg(w, o[i].slot, l) : 0) + o[i].imm;
        const bool cta_window = sp == Space::Generic ? at[i] >= kSharedWindow && at[i] - kSharedWindow <= kOffsetMask : at[i] <= kOffsetMask;
        if (!cta_window)
          fail(w, l, fmt::format("clusterlaunchcontrol.try_cancel: the {} address {:#x} is not in this CTA's shared memory (.shared::cta)",
                                 i == 0 ? "response" : "mbarrier", at[i]));
      }
      const uint64_t index = next_ ? next_->fetch_add(1) : total_;
      const bool canceled = index < total_;
      uint32_t response[4] = {0, 0, 0, canceled};
      if (canceled) {
        const auto first = first_ctaid(index);
        std::copy(first.begin(), first.end(), response);
      }
      const uint32_t ranks = (in.flags & kMulticast) ? static_cast<uint32_t>(ctas_.size()) : 1;
      for (uint32_t r = 0; r < ranks; ++r) {
        const uint32_t rank = (in.flags & kMulticast) ? r : c_->rank;
        std::memcpy(resolve(w, l, sp, with_rank(at[0], sp, rank), 16, true), response, 16);
        sync_access_ = true;
        uint8_t* bar = resolve(w, l, sp, with_rank(at[1], sp, rank), 8, true);
        sync_access_ = false;
        mbar_signal(w, l, bar, 16, 0);
      }
    }
    return;
  }
  if (o[1].kind != Opnd::Reg || p_.slot_types[o[1].slot].bits != 128)
    fail(w, std::countr_zero(exec), "clusterlaunchcontrol.query_cancel reads a try_cancel response from a .b128 register");
  for (uint32_t m = exec; m; m &= m - 1) {
    const int l = std::countr_zero(m);
    const uint64_t lo = reg(w, o[1].slot, l), hi = reg(w, o[1].slot + 1, l);
    const bool canceled = (hi >> 32 & 1) != 0;
    if (op == ClcOp::IsCanceled) {
      if (!canceled) c_->saw_failed_cancel = true;
      write(w, o[0], l, canceled, Ty{'p', 1});
      continue;
    }
    if (!canceled)
      fail(w, l, "clusterlaunchcontrol.query_cancel.get_first_ctaid of a response whose try_cancel failed (undefined on the GPU)");
    const uint32_t xyz[3] = {static_cast<uint32_t>(lo), static_cast<uint32_t>(lo >> 32), static_cast<uint32_t>(hi)};
    if (op == ClcOp::FirstCtaid) {
      if (o[0].kind != Opnd::Vec || o[0].count != 4) fail(w, l, "clusterlaunchcontrol.query_cancel.get_first_ctaid.v4 needs a vector of 4 registers");
      for (uint32_t i = 0; i < 3; ++i)
        if (p_.vec_slots[o[0].slot + i] != kNoSlot) reg(w, p_.vec_slots[o[0].slot + i], l) = xyz[i];
    } else {
      write(w, o[0], l, xyz[static_cast<int>(op) - static_cast<int>(ClcOp::FirstCtaidX)], Ty{'b', 32});
    }
  }
}

}  // namespace ptx::emu::engine
