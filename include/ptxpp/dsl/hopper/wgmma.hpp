// wgmma (sm_90a): shared-memory matrix descriptors, wgmma.mma_async m64nNk16 with f16/bf16
// inputs and f32 accumulators, its fence/commit/wait, and the accumulator fragment map.
#pragma once

#include <cstdint>
#include <utility>

#include "ptxpp/dsl/reg.hpp"
#include "ptxpp/dsl/source_location.hpp"
#include "ptxpp/dsl/types.hpp"

namespace ptx::hopper {

// The descriptor's swizzle mode field (bits 62-63), with the manual's encoding.
enum class DescSwizzle : uint8_t { None = 0, B128 = 1, B64 = 2, B32 = 3 };
// The swizzle span in bytes: 16 (none: one 16-byte core-matrix row), 32, 64, 128.
uint32_t swizzle_bytes(DescSwizzle s);

// The 64-bit shared-memory matrix descriptor (PTX ISA, "Matrix Descriptor Format"):
//   bits  0-13  start address >> 4
//   bits 16-29  leading dimension byte offset (LBO) >> 4
//   bits 32-45  stride dimension byte offset (SBO) >> 4
//   bits 49-51  matrix base offset (0 when the swizzle pattern starts at a multiple of its
//               repeat: 1024 / 512 / 256 bytes for 128B / 64B / 32B)
//   bits 62-63  swizzle mode (0 none, 1 128B, 2 64B, 3 32B)
// Other bits are 0. Start, LBO and SBO are byte values, multiples of 16 below 2^18.
struct MatrixDescriptor {
  uint32_t start = 0, lbo = 0, sbo = 0;
  uint32_t base_offset = 0;
  DescSwizzle swizzle = DescSwizzle::None;

  uint64_t bits(ptx::SourceLocation where = ptx::SourceLocation::current()) const;  // an error for fields that do not fit
  static MatrixDescriptor decode(uint64_t bits);
  friend bool operator==(const MatrixDescriptor&, const MatrixDescriptor&) = default;
};

// The canonical layouts (what TMA writes with the same swizzle), for one operand tile whose
// rows (M or N for K-major; K for MN-major) are `swizzle_bytes(s)` long:
//  * K-major, swizzled: 8-row x span atoms, atoms along M/N `sbo` bytes apart (8 * span when
//    packed: 1024 for 128B); LBO is unused (the K extent of one wgmma, 32 bytes for 16-bit
//    types, lies inside the span) and written as 16 (1 in the field). Step K by 16 elements
//    by adding 32 bytes to the start.
//  * K-major, no swizzle: 8 x 16-byte core matrices; `lbo` between core matrices along K,
//    `sbo` between core matrices along M/N.
//  * MN-major, swizzled: atoms of 8 K rows x span bytes of M/N; `lbo` between atoms along
//    M/N, `sbo` between groups of 8 K rows (8 * span when packed).
//  * MN-major, no swizzle: core matrices of 8 K rows x 16 bytes; `lbo` between core
//    matrices along K, `sbo` along M/N.
MatrixDescriptor k_major(uint32_t start, DescSwizzle s, uint32_t sbo, uint32_t lbo = 16);
MatrixDescriptor mn_major(uint32_t start, DescSwizzle s, uint32_t lbo, uint32_t sbo);

// A descriptor at run time from a 32-bit shared-window address (Buffer::base() + offset)
// and the other fields of `d` (its start is ignored); four instructions:
//   shr.u32 t, addr, 4;  and.b32 t, t, 16383;  cvt.u64.u32 d, t;  or.b64 d, d, HIGH;
// HIGH = d.bits() with a zero start. Advancing the start by B bytes (another stage or K
// step) is then one `add.s64 d2, d, B/16` (ptx operators: `desc + B / 16`).
Reg make_descriptor(const Reg& smem_addr, const MatrixDescriptor& d,
                    ptx::SourceLocation where = ptx::SourceLocation::current());

// wgmma.fence.sync.aligned;
void wgmma_fence(ptx::SourceLocation where = ptx::SourceLocation::current());
// wgmma.commit_group.sync.aligned;
void wgmma_commit(ptx::SourceLocation where = ptx::SourceLocation::current());
// wgmma.wait_group.sync.aligned n;
void wgmma_wait(int n, ptx::SourceLocation where = ptx::SourceLocation::current());

// One instruction:
//   wgmma.mma_async.sync.aligned.m64nNk16.f32.T.T {acc[first], ..., acc[first + N/2 - 1]},
//       desc_a, desc_b, scale_d, 1, 1, trans_a, trans_b;
// T: bf16 or f16 (`ab`); N: 8 to 256, a multiple of 8; acc: f32 registers (N/2 from `first`);
// desc_a, desc_b: .b64/.u64 descriptors; scale_d: a predicate (false: D = A*B, true: D += A*B);
// trans_a / trans_b: 0 for K-major, 1 for MN-major.
void mma_async(int n, DType ab, const RegArray& acc, int first, const Reg& desc_a, const Reg& desc_b, const Reg& scale_d,
               int trans_a = 0, int trans_b = 0, ptx::SourceLocation where = ptx::SourceLocation::current());

// A from registers (the "RS" form), one instruction:
//   wgmma.mma_async.sync.aligned.m64nNk16.f32.T.T {acc[first], ..., acc[first + N/2 - 1]},
//       {a[first_a], ..., a[first_a + 3]}, desc_b, scale_d, 1, 1, trans_b;
// a: four 32-bit registers of two T elements each (the low half the lower column). Register j
// of thread t holds row 16 * (t / 32) + (t % 32) / 4 + 8 * (j % 2), columns 8 * (j / 2) +
// 2 * (t % 4) and the next, of the 64 x 16 A tile: the accumulator fragment of a 64 x 16
// tile (registers 2j, 2j + 1), so that the f32 result of one wgmma, converted pairwise
// (cvt.rn.bf16x2.f32 a_j, acc[2j + 1], acc[2j]), is the A of the next without shared memory.
void mma_async(int n, DType ab, const RegArray& acc, int first, const RegArray& a, int first_a, const Reg& desc_b,
               const Reg& scale_d, int trans_b = 0, ptx::SourceLocation where = ptx::SourceLocation::current());

// The m64nN f32 accumulator fragment (the manual's "WGMMA .m64nNk16 D" figure): thread t
// (0..127) of the warpgroup holds N/2 registers; register i is row 16 * (t / 32) + (t % 32) / 4
// + 8 * ((i / 2) % 2), column 8 * (i / 4) + 2 * (t % 4) + i % 2.
std::pair<int, int> accumulator_row_col(int n, int thread, int reg);
// The inverse: (thread, register) of (row, col) of the 64 x N tile.
std::pair<int, int> accumulator_thread_reg(int n, int row, int col);

}  // namespace ptx::hopper
