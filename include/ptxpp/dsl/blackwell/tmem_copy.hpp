// tcgen05.cp (shared memory -> tensor memory, asynchronous, tracked by tcgen05.commit) and
// tcgen05.shift (tensor-memory rows down by one lane).
#pragma once

#include <cstdint>

#include "ptxpp/dsl/blackwell/cta_group.hpp"
#include "ptxpp/dsl/reg.hpp"
#include "ptxpp/dsl/source_location.hpp"

namespace ptx::blackwell {

// The tcgen05.cp shapes; the two that are spread over warps carry their multicast:
// S64x128b_02_13 is .64x128b.warpx2::02_13, S64x128b_01_23 .64x128b.warpx2::01_23,
// S32x128b .32x128b.warpx4.
enum class CpShape : uint8_t { S128x256b, S4x256b, S128x128b, S64x128b_02_13, S64x128b_01_23, S32x128b };
// Optional decompression of the source: 6-bit (b6x16_p32) or 4-bit (b4x16_p64) into 8-bit cells.
enum class CpSource : uint8_t { Plain, B6x16_P32, B4x16_P64 };

// One instruction, issued by one thread:
//   tcgen05.cp.cta_group::1.128x256b{.warpx..}{.b8x16.b6x16_p32} [taddr], s_desc;
// taddr: a 32-bit register; s_desc: a 64-bit shared-memory descriptor (make_smem_descriptor).
void tmem_copy(CtaGroup group, CpShape shape, const Reg& taddr, const Reg& s_desc, CpSource src = CpSource::Plain,
               ptx::SourceLocation where = ptx::SourceLocation::current());
// tcgen05.shift.cta_group::1.down [taddr];  (sm_100a/sm_103a/sm_110a only)
void tmem_shift_down(CtaGroup group, const Reg& taddr, ptx::SourceLocation where = ptx::SourceLocation::current());

}  // namespace ptx::blackwell
