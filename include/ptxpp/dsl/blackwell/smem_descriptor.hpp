// The 64-bit shared-memory matrix descriptor of tcgen05.mma and tcgen05.cp (PTX ISA,
// "Shared memory descriptor" of the tcgen05 chapter; not the wgmma one: the version field,
// the 3-bit swizzle field and the LBO mode are new).
#pragma once

#include <cstdint>

#include "ptxpp/dsl/reg.hpp"
#include "ptxpp/dsl/source_location.hpp"

namespace ptx::blackwell {

// The swizzle field (bits 61-63) with the manual's encoding.
enum class SmemSwizzle : uint8_t { None = 0, B128_Base32B = 1, B128 = 2, B64 = 4, B32 = 6 };
// The swizzle span in bytes: 16 (none), 32, 64, 128 (both 128-byte modes).
uint32_t swizzle_bytes(SmemSwizzle s);

//   bits  0-13  start address >> 4
//   bits 16-29  leading dimension byte offset (LBO) >> 4 (or, with lbo_absolute, an address >> 4)
//   bits 32-45  stride dimension byte offset (SBO) >> 4
//   bits 46-48  the fixed version 0b001
//   bits 49-51  matrix base offset (0 when the swizzle pattern starts at a multiple of its repeat)
//   bit  52     leading dimension stride mode: 0 relative (LBO a byte offset), 1 absolute
//   bits 61-63  swizzle mode (0 none, 1 128B with 32B atomicity, 2 128B, 4 64B, 6 32B)
// Other bits are 0. Start, LBO and SBO are byte values, multiples of 16 below 2^18 (an error otherwise).
struct SmemDescriptor {
  uint32_t start = 0, lbo = 0, sbo = 0;
  uint32_t base_offset = 0;
  bool lbo_absolute = false;
  SmemSwizzle swizzle = SmemSwizzle::None;

  uint64_t bits(ptx::SourceLocation where = ptx::SourceLocation::current()) const;
  // The fields back; an error for a version other than 1 or an unknown swizzle mode.
  static SmemDescriptor decode(uint64_t bits, ptx::SourceLocation where = ptx::SourceLocation::current());
  friend bool operator==(const SmemDescriptor&, const SmemDescriptor&) = default;
};

// The canonical layouts (what TMA writes with the same swizzle):
//  * K-major, swizzled: atoms of 8 rows (M or N) x the swizzle span along K; `sbo` between
//    atoms along M/N (8 x span when packed: 1024 for 128B); LBO unused inside the span
//    (written as 16). Step K inside the span by adding its byte offset to the start.
//  * K-major, no swizzle: 8 x 16-byte core matrices; `lbo` between core matrices along K,
//    `sbo` between core matrices along M/N.
//  * MN-major, swizzled: atoms of 8 K rows x the span along M/N; `lbo` between atoms along
//    M/N, `sbo` between groups of 8 K rows (B128_Base32B: atoms of 4 K rows, `sbo` between
//    groups of 4, as CuTe's; tests/encodings).
//  * MN-major, no swizzle: core matrices of 8 K rows x 16 bytes; `lbo` along K, `sbo` along M/N.
SmemDescriptor k_major(uint32_t start, SmemSwizzle s, uint32_t sbo, uint32_t lbo = 16);
SmemDescriptor mn_major(uint32_t start, SmemSwizzle s, uint32_t lbo, uint32_t sbo);

// A descriptor at run time from a 32-bit shared-window address and the other fields of `d`
// (its start is ignored); four instructions:
//   shr.u32 t, addr, 4;  and.b32 t, t, 16383;  cvt.u64.u32 w, t;  or.b64 d, w, HIGH;
// HIGH = d.bits() with a zero start. Advancing the start by B bytes is `desc + B / 16` (one add).
Reg make_smem_descriptor(const Reg& smem_addr, const SmemDescriptor& d,
                         ptx::SourceLocation where = ptx::SourceLocation::current());

}  // namespace ptx::blackwell
