// Warp-level helpers over the *.sync collectives, for a full warp (member mask
// 0xffffffff). Each documents the fixed sequence it emits.
#pragma once

#include "ptxpp/dsl/source_location.hpp"

#include "ptxpp/dsl/operand.hpp"
#include "ptxpp/dsl/reg.hpp"

namespace ptx::warp {

enum class Reduce : uint8_t { Sum, Max, Min };

// Butterfly reduction; every lane gets the result. For a 32-bit value, per step
// k = 16, 8, 4, 2, 1:   shfl.sync.bfly.b32 t, v, k, 0x1f, 0xffffffff;  add/max/min v', v, t
// (10 instructions). For a 64-bit value, per step: mov.b64 {lo, hi}, v; two shfl.sync.bfly.b32;
// mov.b64 t, {lo, hi}; add/max/min (25 instructions).
Reg reduce(const Reg& v, Reduce op = Reduce::Sum, ptx::SourceLocation where = ptx::SourceLocation::current());
// shfl.sync.idx.b32 d, v, lane, 0x1f, 0xffffffff (32-bit values)
Reg broadcast(const Reg& v, const Operand& lane, ptx::SourceLocation where = ptx::SourceLocation::current());
// vote.sync.ballot.b32 d, p, 0xffffffff
Reg ballot(const Reg& p, ptx::SourceLocation where = ptx::SourceLocation::current());
// vote.sync.all.pred / vote.sync.any.pred d, p, 0xffffffff
Reg all(const Reg& p, ptx::SourceLocation where = ptx::SourceLocation::current());
Reg any(const Reg& p, ptx::SourceLocation where = ptx::SourceLocation::current());
// match.any.sync.b32 / .b64 d, v, 0xffffffff: the lanes holding the same value
Reg match_any(const Reg& v, ptx::SourceLocation where = ptx::SourceLocation::current());
// elect.sync %r|%p, 0xffffffff: %p is true in one lane of the warp (sm_90+); returns %p, the guard
// of the instructions that one lane issues (TMA copies, mbarrier arrivals with a count).
Reg elect_one(ptx::SourceLocation where = ptx::SourceLocation::current());

}  // namespace ptx::warp
