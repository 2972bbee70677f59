// Values near the edges of a memory region, where bounds checks go wrong: 0, the last byte, one
// past the end, just below zero (an index that underflowed), 2^31, 2^32, 2^63 and 2^64 - k.
#pragma once

#include <cstdint>
#include <limits>
#include <string>

#include <fmt/format.h>

#include "fuzzed_data.hpp"

namespace ptx::fuzz {

// An offset into, or just outside, a region of `bytes` bytes (arithmetic modulo 2^64, as on a GPU).
inline uint64_t edge_offset(FuzzedDataProvider& in, uint64_t bytes) {
  switch (in.ConsumeIntegralInRange<int>(0, 12)) {
    case 0:
      return 0;
    case 1:
      return bytes - 1;
    case 2:
      return bytes;
    case 3:
      return bytes - in.ConsumeIntegralInRange<uint64_t>(2, 16);  // a wide access that ends past the end
    case 4:
      return ~uint64_t{0};  // -1
    case 5:
      return ~uint64_t{0} - 3;  // -4
    case 6:
      return ~uint64_t{0} - 7;  // -8
    case 7:
      return uint64_t{1} << 31;
    case 8:
      return uint64_t{1} << 32;
    case 9:
      return uint64_t{1} << 63;
    case 10:
      return 0 - in.ConsumeIntegralInRange<uint64_t>(1, 64);  // 2^64 - k
    case 11:
      return in.ConsumeIntegralInRange<uint64_t>(0, bytes + 64);
    default:
      return in.ConsumeIntegral<uint64_t>();
  }
}

// The immediate offset of an address operand ([%rd+imm]): 32 bits, signed.
inline int32_t edge_immediate(FuzzedDataProvider& in, uint32_t bytes) {
  constexpr int32_t kMax = std::numeric_limits<int32_t>::max(), kMin = std::numeric_limits<int32_t>::min();
  const int32_t end = static_cast<int32_t>(bytes & 0x7fffffffu);
  switch (in.ConsumeIntegralInRange<int>(0, 8)) {
    case 0:
      return 0;
    case 1:
      return -4;
    case 2:
      return -1;
    case 3:
      return end;
    case 4:
      return end - 1;
    case 5:
      return kMax;
    case 6:
      return kMin;
    case 7:
      return in.ConsumeIntegralInRange<int32_t>(-64, 64);
    default:
      return in.ConsumeIntegral<int32_t>();
  }
}

// A 32-bit value: a small count, or one near the edges of its type.
inline uint32_t edge_u32(FuzzedDataProvider& in, uint32_t small_max) {
  switch (in.ConsumeIntegralInRange<int>(0, 5)) {
    case 0:
      return 0;
    case 1:
      return 0x7fffffffu;
    case 2:
      return 0x80000000u;
    case 3:
      return ~uint32_t{0};
    default:
      return in.ConsumeIntegralInRange<uint32_t>(1, small_max);
  }
}

// A 64-bit value as a PTX literal: signed decimal when it fits 32 bits, else hexadecimal.
inline std::string literal(uint64_t v) {
  const auto s = static_cast<int64_t>(v);
  if (s >= std::numeric_limits<int32_t>::min() && s <= std::numeric_limits<int32_t>::max()) return std::to_string(s);
  return fmt::format("{:#018x}", v);
}

}  // namespace ptx::fuzz
