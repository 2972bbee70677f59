// ldmatrix / stmatrix: 8x8 matrices of 16-bit elements between shared memory and
// the registers of a warp, one instruction each.
//
// Lanes 8i .. 8i+7 give the row addresses of matrix i (x1: lanes 0-7, x2: 0-15, x4: all);
// register i of every lane receives matrix i, lane l holding row l/4, columns 2(l%4), +1
// (.trans: the transposed matrix). This is the A fragment of mma.m16n8k16 with x4 (matrices:
// rows 0-7 / k 0-7, rows 8-15 / k 0-7, rows 0-7 / k 8-15, rows 8-15 / k 8-15) and the B
// fragment with x2 from an n-major (k contiguous) tile.
#pragma once

#include <cstdint>
#include <vector>

#include "ptxpp/dsl/ampere/mma.hpp"
#include "ptxpp/dsl/operand.hpp"
#include "ptxpp/dsl/reg.hpp"
#include "ptxpp/dsl/source_location.hpp"

namespace ptx::ampere {

// ldmatrix.sync.aligned.m8n8.x{1,2,4}{.trans}.shared.b16 {d...}, [shared_addr+offset];
// `dst`: 1, 2 or 4 .b32 registers; `shared_addr`: a 32-bit shared-window address (u32/b32).
void ldmatrix(const std::vector<Operand>& dst, const Reg& shared_addr, int64_t offset = 0, bool trans = false,
              ptx::SourceLocation where = ptx::SourceLocation::current());
// Into a fragment of 1, 2 or 4 registers (A of m16n8k16 bf16/f16: x4; B: x2).
void ldmatrix(const Fragment& dst, const Reg& shared_addr, int64_t offset = 0, bool trans = false,
              ptx::SourceLocation where = ptx::SourceLocation::current());
// Four fresh .b32 registers (or 1 / 2: `count`), returned.
std::vector<Reg> ldmatrix(int count, const Reg& shared_addr, int64_t offset = 0, bool trans = false,
                          ptx::SourceLocation where = ptx::SourceLocation::current());

// stmatrix.sync.aligned.m8n8.x{1,2,4}{.trans}.shared.b16 [shared_addr+offset], {s...};  (sm_90+)
void stmatrix(const Reg& shared_addr, const std::vector<Operand>& src, int64_t offset = 0, bool trans = false,
              ptx::SourceLocation where = ptx::SourceLocation::current());

}  // namespace ptx::ampere
