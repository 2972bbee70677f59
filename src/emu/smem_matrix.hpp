// Internal: matrices in shared memory as the tensor cores read them (wgmma on sm_90a,
// tcgen05.mma on sm_100a): the 64-bit matrix descriptors of both generations, the
// swizzle modes, and the canonical layouts of 16-byte chunks they describe.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

namespace ptx::emu {

// A decoded shared-memory matrix descriptor.
struct SmemMatrix {
  uint64_t start = 0, lbo = 0, sbo = 0;  // bytes
  uint64_t base = 0;   // the swizzle pattern's phase where it starts (0: at a pattern boundary)
  uint64_t width = 1;  // the swizzle atom's width in 16-byte chunks: 1 (none), 2 (32B), 4 (64B), 8 (128B)
};

// wgmma's descriptor (PTX ISA 9.7.15.5.1.2): bits 0-13 start >> 4, 16-29 LBO >> 4, 32-45 SBO >> 4,
// 49-51 base offset, 62-63 swizzle (0 none, 1 128B, 2 64B, 3 32B).
SmemMatrix hopper_descriptor(uint64_t bits);

// tcgen05's descriptor (9.7.16.4.1): the same fields, bits 46-48 the fixed value 0b001 (0b000,
// what Triton writes and B200 runs, is taken too), bit 52
// the LBO mode (1: an absolute address, sm_103a only), bits 61-63 swizzle (0 none, 1 128B with
// 32B atoms, 2 128B, 4 64B, 6 32B). Fills `error` and returns false for what the ISA forbids or
// the emulator does not run (the LBO address mode, 128B with 32B atoms).
bool blackwell_descriptor(uint64_t bits, SmemMatrix& out, std::string& error);

// The shared-memory offset of a 16-byte chunk of an operand whose K extent is 32 bytes (one
// wgmma or tcgen05.mma): K-major, chunk c (0, 1) of row mn; MN-major, chunk q of 16 bytes of
// consecutive mn in row k. See smem_matrix.cpp for the canonical layouts.
uint64_t chunk_address(const SmemMatrix& d, bool mn_major, uint64_t mn_or_q, uint64_t c_or_k);

// Element j (of `bits` bits: 1, 8, 16, 32) of little-endian bytes.
uint32_t element_bits(const uint8_t* bytes, unsigned j, unsigned bits);

// Rows [first, first + rows) of an operand in shared memory (A: M x K, B: N x K, both indexed
// [mn][k], K elements of `ebits` making 32 bytes, or 64 for wgmma.mma_async.sp's B), as raw element bits in
// out[(mn - first) * K + k]. `shared16` gives the 16 bytes at a shared-memory offset (checked).
void load_smem_operand(const std::function<const uint8_t*(uint64_t)>& shared16, const SmemMatrix& d, bool mn_major,
                       unsigned ebits, unsigned first, unsigned rows, unsigned K, std::vector<uint32_t>& out);

}  // namespace ptx::emu
