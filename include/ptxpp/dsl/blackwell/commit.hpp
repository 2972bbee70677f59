// tcgen05.commit: an mbarrier arrive once every tcgen05 async operation (mma, cp, shift)
// this thread issued before has completed.
#pragma once

#include "ptxpp/dsl/blackwell/cta_group.hpp"
#include "ptxpp/dsl/hopper/mbarrier.hpp"
#include "ptxpp/dsl/reg.hpp"
#include "ptxpp/dsl/source_location.hpp"

namespace ptx::blackwell {

// tcgen05.commit.cta_group::1.mbarrier::arrive::one.shared::cluster.b64 [bar];
// (`guard` predicates it: the one elected thread.)
void commit(CtaGroup group, const hopper::Mbarrier& bar, const Reg* guard = nullptr,
            ptx::SourceLocation where = ptx::SourceLocation::current());
// The arrive goes to the mbarrier at the same shared offset in every CTA of the cluster
// whose bit is set in cta_mask (a 16-bit register):
// tcgen05.commit.cta_group::2.mbarrier::arrive::one.shared::cluster.multicast::cluster.b64 [bar], cta_mask;
void commit_multicast(CtaGroup group, const hopper::Mbarrier& bar, const Reg& cta_mask, const Reg* guard = nullptr,
                      ptx::SourceLocation where = ptx::SourceLocation::current());

}  // namespace ptx::blackwell
