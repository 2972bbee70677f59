// ldmatrix / stmatrix: 8x8 matrices of 16-bit elements between shared memory and
// the registers of a warp, one instruction each (and, at the end, the 8-, 6- and 4-bit
// forms of the sm_100a/sm_120a families).
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

// ---- the 8-, 6- and 4-bit forms (PTX 8.6; the sm_100f, sm_110f and sm_120f families: sm_100a,
// sm_120a, ...). Rows are 16 bytes; the lanes give the row addresses as above (m16n16: lanes
// 16i .. 16i+15 for matrix i). Every register holds four 8-bit elements.

// What a 16-byte row of shared memory holds: 16 bytes, or 16 packed 6-bit (.b6x16_p32) or 4-bit
// (.b4x16_p64) elements that ldmatrix widens into one byte each (.b8x16).
enum class LdmatrixSource : uint8_t { B8, B6x16_P32, B4x16_P64 };

// ldmatrix.sync.aligned.m16n16.x{1,2}.trans.shared{.b8 | .b8x16.b6x16_p32 | .b8x16.b4x16_p64} {d...}, [shared_addr+offset];
// 16x16 matrices, always transposed: two registers per matrix (`dst`: 2 or 4), lane l holding
// rows l/4 and l/4 + 8, columns 4(l%4) .. +3 of the transpose (the emulator's reading of the
// manual, docs/emulator.md).
void ldmatrix_m16n16(const std::vector<Operand>& dst, const Reg& shared_addr, int64_t offset = 0,
                     LdmatrixSource src = LdmatrixSource::B8, ptx::SourceLocation where = ptx::SourceLocation::current());
// `matrices` (1 or 2) matrices into fresh .b32 registers, returned (two per matrix).
std::vector<Reg> ldmatrix_m16n16(int matrices, const Reg& shared_addr, int64_t offset = 0, LdmatrixSource src = LdmatrixSource::B8,
                                 ptx::SourceLocation where = ptx::SourceLocation::current());
// ldmatrix.sync.aligned.m8n16.x{1,2,4}.shared.b8x16{.b6x16_p32 | .b4x16_p64} {d...}, [shared_addr+offset];
// 8x16 matrices of packed rows (`src` must not be B8), never transposed: one register per matrix,
// lane l holding row l/4, columns 4(l%4) .. +3.
void ldmatrix_m8n16(const std::vector<Operand>& dst, const Reg& shared_addr, LdmatrixSource src, int64_t offset = 0,
                    ptx::SourceLocation where = ptx::SourceLocation::current());
std::vector<Reg> ldmatrix_m8n16(int matrices, const Reg& shared_addr, LdmatrixSource src, int64_t offset = 0,
                                ptx::SourceLocation where = ptx::SourceLocation::current());
// stmatrix.sync.aligned.m16n8.x{1,2,4}.trans.shared.b8 [shared_addr+offset], {s...};
// 16x8 matrices of bytes, always transposed (8 rows of 16 bytes in memory): one register per
// matrix, bytes 0-1 at row l/4, bytes 2-3 at row l/4 + 8, columns 2(l%4), +1 (mma's C layout).
void stmatrix_m16n8(const Reg& shared_addr, const std::vector<Operand>& src, int64_t offset = 0,
                    ptx::SourceLocation where = ptx::SourceLocation::current());

}  // namespace ptx::ampere
