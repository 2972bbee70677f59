#include "ptxpp/dsl/blackwell/commit.hpp"

#include <fmt/format.h>

#include "emit.hpp"
#include "ptxpp/dsl/inst.hpp"

namespace ptx::blackwell {

void commit(CtaGroup group, const hopper::Mbarrier& bar, const Reg* guard, ptx::SourceLocation where) {
  const Operand ops[] = {bar.addr()};
  detail::note_cta_group(group, where);
  dsl::RuntimeChain mn(inst::tcgen05.commit);
  mn.then(cta_group_modifier(group), where).then(".mbarrier::arrive::one.shared::cluster.b64", where);
  detail::emit(mn, ops, guard, where);
}

void commit_multicast(CtaGroup group, const hopper::Mbarrier& bar, const Reg& cta_mask, const Reg* guard,
                      ptx::SourceLocation where) {
  detail::check_int_reg(cta_mask, 16, "tcgen05.commit: the CTA mask", where);
  const Operand ops[] = {bar.addr(), cta_mask};
  detail::note_cta_group(group, where);
  dsl::RuntimeChain mn(inst::tcgen05.commit);
  mn.then(cta_group_modifier(group), where).then(".mbarrier::arrive::one.shared::cluster.multicast::cluster.b64", where);
  detail::emit(mn, ops, guard, where);
}

}  // namespace ptx::blackwell
