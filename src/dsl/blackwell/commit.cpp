#include "ptxpp/dsl/blackwell/commit.hpp"

#include <fmt/format.h>

#include "emit.hpp"

namespace ptx::blackwell {

void commit(CtaGroup group, const hopper::Mbarrier& bar, const Reg* guard, ptx::SourceLocation where) {
  const Operand ops[] = {bar.addr()};
  detail::note_cta_group(group, where);
  detail::emit(fmt::format("tcgen05.commit{}.mbarrier::arrive::one.shared::cluster.b64", cta_group_modifier(group)), ops, guard,
               where);
}

void commit_multicast(CtaGroup group, const hopper::Mbarrier& bar, const Reg& cta_mask, const Reg* guard,
                      ptx::SourceLocation where) {
  detail::check_int_reg(cta_mask, 16, "tcgen05.commit: the CTA mask", where);
  const Operand ops[] = {bar.addr(), cta_mask};
  detail::note_cta_group(group, where);
  detail::emit(fmt::format("tcgen05.commit{}.mbarrier::arrive::one.shared::cluster.multicast::cluster.b64",
                           cta_group_modifier(group)),
               ops, guard, where);
}

}  // namespace ptx::blackwell
