// Operand values out of the hot path (negated predicates, frame variables, reg+imm, special
// registers).
#include <chrono>

#include "runner.hpp"

namespace ptx::emu::engine {

uint64_t Runner::value_slow(Warp& w, const Opnd& o, int lane) {
  switch (o.kind) {
    case Opnd::Reg: {
      const uint64_t v = reg(w, o.slot, lane);
      return o.neg ? !v : v;
    }
    case Opnd::Imm: return o.symbol && o.space == Space::Local ? o.imm + w.sp[lane] : o.imm;  // frame variables move with the frame
    case Opnd::RegPlus: return reg(w, o.slot, lane) + o.imm;  // the instruction keeps its type's low bits
    case Opnd::Sreg: return special(w, o, lane);
    case Opnd::Sink: return 0;
    default: fail(w, lane, "this operand is not a value");
  }
}

uint64_t Runner::special(const Warp& w, const Opnd& o, int lane) const {
  const uint32_t t = w.index * kLanes + static_cast<uint32_t>(lane);
  const uint32_t tid[3] = {t % cfg_.block.x, t / cfg_.block.x % cfg_.block.y, t / (cfg_.block.x * cfg_.block.y)};
  const uint32_t ntid[3] = {cfg_.block.x, cfg_.block.y, cfg_.block.z};
  const uint32_t nctaid[3] = {cfg_.grid.x, cfg_.grid.y, cfg_.grid.z};
  const uint32_t bit = 1u << lane;
  if (o.comp == 3) return 0;  // .w of the vector special registers: unused, always 0
  switch (static_cast<Sreg>(o.sreg)) {
    case Sreg::Tid: return tid[o.comp];
    case Sreg::Ntid: return ntid[o.comp];
    case Sreg::Ctaid: return c_->ctaid[o.comp];
    case Sreg::Nctaid: return nctaid[o.comp];
    case Sreg::Laneid: return static_cast<uint64_t>(lane);
    case Sreg::Warpid: return w.index;
    case Sreg::Nwarpid: return c_->warps.size();
    case Sreg::Smid: case Sreg::Gridid: return 0;
    case Sreg::Nsmid: return 1;
    case Sreg::Clock: case Sreg::Clock64: return stats_.warp_instructions;
    case Sreg::Globaltimer:
      return static_cast<uint64_t>(std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::system_clock::now().time_since_epoch()).count());
    case Sreg::LanemaskEq: return bit;
    case Sreg::LanemaskLe: return (bit << 1) - 1;
    case Sreg::LanemaskLt: return bit - 1;
    case Sreg::LanemaskGe: return ~(bit - 1) & 0xFFFFFFFFu;
    case Sreg::LanemaskGt: return ~((bit << 1) - 1) & 0xFFFFFFFFu;
    case Sreg::DynamicSmemSize: return cfg_.dynamic_smem;
    case Sreg::TotalSmemSize: return c_->smem.size();
    case Sreg::Clusterid: return c_->ctaid[o.comp] / cdim_[o.comp];
    case Sreg::Nclusterid: return nctaid[o.comp] / cdim_[o.comp];
    case Sreg::ClusterCtaid: return c_->ctaid[o.comp] % cdim_[o.comp];
    case Sreg::ClusterCtarank: return c_->rank;
    case Sreg::ClusterNctaid: return cdim_[o.comp];
    case Sreg::ClusterNctarank: return ctas_.size();
    case Sreg::IsExplicitCluster: return ctas_.size() > 1 || p_.req_cluster[0] || p_.explicit_cluster;
    case Sreg::ClockHi: return stats_.warp_instructions >> 32;
    case Sreg::GlobaltimerLo:
    case Sreg::GlobaltimerHi: {
      const uint64_t ns = static_cast<uint64_t>(std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::system_clock::now().time_since_epoch()).count());
      return o.sreg == static_cast<uint8_t>(Sreg::GlobaltimerLo) ? ns & 0xFFFFFFFFu : ns >> 32;
    }
    case Sreg::Zero: return 0;
  }
  return 0;
}

}  // namespace ptx::emu::engine
