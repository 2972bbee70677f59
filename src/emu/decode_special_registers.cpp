// Decoder: the special registers (%tid, %clock64, ...).
#include <fmt/format.h>

#include "decoder.hpp"

namespace ptx::emu::decoding {

Opnd Decoder::special(const std::string& name, std::string_view comp) {
  static const std::unordered_map<std::string_view, Sreg> kSregs = {
      {"%tid", Sreg::Tid}, {"%ntid", Sreg::Ntid}, {"%ctaid", Sreg::Ctaid}, {"%nctaid", Sreg::Nctaid},
      {"%laneid", Sreg::Laneid}, {"%warpid", Sreg::Warpid}, {"%nwarpid", Sreg::Nwarpid}, {"%smid", Sreg::Smid},
      {"%nsmid", Sreg::Nsmid}, {"%gridid", Sreg::Gridid}, {"%clock", Sreg::Clock}, {"%clock64", Sreg::Clock64},
      {"%globaltimer", Sreg::Globaltimer}, {"%lanemask_eq", Sreg::LanemaskEq}, {"%lanemask_le", Sreg::LanemaskLe},
      {"%lanemask_lt", Sreg::LanemaskLt}, {"%lanemask_ge", Sreg::LanemaskGe}, {"%lanemask_gt", Sreg::LanemaskGt},
      {"%dynamic_smem_size", Sreg::DynamicSmemSize}, {"%total_smem_size", Sreg::TotalSmemSize},
      {"%clusterid", Sreg::Clusterid}, {"%nclusterid", Sreg::Nclusterid}, {"%cluster_ctaid", Sreg::ClusterCtaid},
      {"%cluster_nctaid", Sreg::ClusterNctaid}, {"%cluster_ctarank", Sreg::ClusterCtarank},
      {"%cluster_nctarank", Sreg::ClusterNctarank}, {"%is_explicit_cluster", Sreg::IsExplicitCluster},
      {"%clock_hi", Sreg::ClockHi}, {"%globaltimer_lo", Sreg::GlobaltimerLo}, {"%globaltimer_hi", Sreg::GlobaltimerHi},
      {"%aggr_smem_size", Sreg::TotalSmemSize}, {"%current_graph_exec", Sreg::Zero}};
  auto it = kSregs.find(name);
  if (it == kSregs.end()) {
    static const char* kZero[] = {"%envreg", "%pm", "%reserved_smem_offset"};  // 0 on this emulated device
    for (const char* z : kZero)
      if (name.rfind(z, 0) == 0) {
        Opnd o;
        o.kind = Opnd::Sreg;
        o.sreg = static_cast<uint8_t>(Sreg::Zero);
        return o;
      }
  }
  if (it == kSregs.end()) throw unsupported(fmt::format("the special register {}", name));
  Opnd o;
  o.kind = Opnd::Sreg;
  o.sreg = static_cast<uint8_t>(it->second);
  o.comp = comp == ".y" ? 1 : comp == ".z" ? 2 : comp == ".w" ? 3 : 0;  // (.w of %tid and the like: 0)
  return o;
}

}  // namespace ptx::emu::decoding
