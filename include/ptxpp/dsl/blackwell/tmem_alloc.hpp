// Tensor memory allocation: tcgen05.alloc, tcgen05.dealloc, tcgen05.relinquish_alloc_permit.
// Tensor memory is 128 lanes x 512 columns of 32-bit cells per CTA; an address is
// (lane << 16) | column. Allocation is in columns (all 128 lanes), by one whole warp.
#pragma once

#include <cstdint>

#include "ptxpp/dsl/blackwell/cta_group.hpp"
#include "ptxpp/dsl/operand.hpp"
#include "ptxpp/dsl/reg.hpp"
#include "ptxpp/dsl/source_location.hpp"

namespace ptx::blackwell {

// The tensor-memory address of (lane, column), computed on the host: (lane << 16) | column.
// An error for a lane over 127 or a column over 511.
uint32_t tmem_address(uint32_t lane, uint32_t column, ptx::SourceLocation where = ptx::SourceLocation::current());

// One instruction (every thread of one warp executes it):
//   tcgen05.alloc.cta_group::1.sync.aligned.shared::cta.b32 [dst], ncols;
// writes the address of `ncols` fresh columns to the 4 bytes at the shared address `dst`
// (a buffer's addr(off) or ptx::addr(reg, off)). ncols: a power of 2 in [32, 512], checked
// at trace time. With CtaGroup::Two one warp of each of the two peer CTAs executes it.
void tmem_alloc(const Operand& dst, uint32_t ncols, CtaGroup group = CtaGroup::One,
                ptx::SourceLocation where = ptx::SourceLocation::current());
// tcgen05.dealloc.cta_group::1.sync.aligned.b32 taddr, ncols;  (the warp that allocated; same rules for ncols)
void tmem_dealloc(const Reg& taddr, uint32_t ncols, CtaGroup group = CtaGroup::One,
                  ptx::SourceLocation where = ptx::SourceLocation::current());
// tcgen05.relinquish_alloc_permit.cta_group::1.sync.aligned;  (this CTA allocates no more)
void tmem_relinquish_alloc_permit(CtaGroup group = CtaGroup::One, ptx::SourceLocation where = ptx::SourceLocation::current());

}  // namespace ptx::blackwell
