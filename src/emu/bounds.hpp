// Internal: the one bounds check of every emulated memory space (global, const, shared,
// distributed shared, local, param, tensor memory, texture). Written so that no sum can
// wrap around 2^64: an address near 2^64 (an index that underflowed) is out of bounds,
// never a small offset into the host's memory.
#pragma once

#include <cstdint>

namespace ptx::emu {

// [offset, offset + size) lies inside [0, extent).
constexpr bool fits(uint64_t offset, uint64_t size, uint64_t extent) {
  return offset <= extent && size <= extent - offset;
}

// [address, address + size) lies inside [base, base + extent).
constexpr bool within(uint64_t address, uint64_t size, uint64_t base, uint64_t extent) {
  return address >= base && fits(address - base, size, extent);
}

static_assert(!fits(~uint64_t{0} - 3, 4, 16), "an address near 2^64 does not wrap into range");
static_assert(!fits(~uint64_t{0} - 3, 8, ~uint64_t{0}), "nor past the end of the largest extent");
static_assert(fits(12, 4, 16) && !fits(13, 4, 16) && fits(16, 0, 16) && !fits(17, 0, 16), "the edges");
static_assert(!within(0x1000 - 4, 4, 0x1000, 16) && within(0x1000, 16, 0x1000, 16), "below the base");

}  // namespace ptx::emu
