// Matrices in shared memory as wgmma and tcgen05.mma read them (see smem_matrix.hpp).
#include "smem_matrix.hpp"

#include <fmt/format.h>

namespace ptx::emu {

SmemMatrix hopper_descriptor(uint64_t bits) {
  static constexpr uint64_t kWidth[4] = {1, 8, 4, 2};
  return {(bits & 0x3FFF) << 4, (bits >> 16 & 0x3FFF) << 4, (bits >> 32 & 0x3FFF) << 4, bits >> 49 & 7, kWidth[bits >> 62]};
}

bool blackwell_descriptor(uint64_t bits, SmemMatrix& out, std::string& error) {
  // The manual's fixed value is 0b001, but Triton 3.5.1 writes wgmma's layout (these bits zero)
  // for tcgen05.mma too, and its Blackwell matmuls run on B200: the hardware takes both.
  if ((bits >> 46 & 7) > 1) {
    error = fmt::format("the shared memory descriptor {:#018x} has neither the fixed value 0b001 nor 0b000 in bits 46-48", bits);
    return false;
  }
  if (bits >> 52 & 1) {
    error = fmt::format("the shared memory descriptor {:#018x} sets bit 52 (LBO as an absolute address, sm_103a): the emulator does not support it yet", bits);
    return false;
  }
  const uint64_t mode = bits >> 61;
  uint64_t width;
  switch (mode) {
    case 0: width = 1; break;
    case 2: width = 8; break;
    case 4: width = 4; break;
    case 6: width = 2; break;
    case 1:
      error = "the swizzle mode 128-byte with 32-byte atoms (1) of a shared memory descriptor: the emulator does not support it yet";
      return false;
    default:
      error = fmt::format("the shared memory descriptor {:#018x} has the invalid swizzle mode {} (bits 61-63)", bits, mode);
      return false;
  }
  out = {(bits & 0x3FFF) << 4, (bits >> 16 & 0x3FFF) << 4, (bits >> 32 & 0x3FFF) << 4, bits >> 49 & 7, width};
  return true;
}

namespace {

// The swizzle permutes the 16-byte chunks of each 128-byte line: address bits [4, 4 + log2 W)
// are XORed with bits [7, 7 + log2 W), the line's place in the pattern of W lines that repeats
// every W * 128 bytes (1024, 512, 256), counted from where the pattern starts (the base offset
// is that start's bits [7, 10); 0 when it starts at a multiple of W * 128).
uint64_t swizzle(const SmemMatrix& d, uint64_t addr) {
  if (d.width == 1) return addr;
  const uint64_t phase = ((addr >> 7) - d.base) & (d.width - 1);
  return addr ^ (phase << 4);
}

}  // namespace

// The canonical layouts (units of 16 bytes, W the swizzle width in chunks):
//   K-major, chunk c (0, 1) of row mn (K is 32 bytes = 2 chunks; 64, chunks 0-3, for the B of
//   wgmma.mma_async.sp, which the emulator runs without swizzle and with 64- or 128-byte atoms):
//     no swizzle: 8 x 16-byte core matrices; rows 16 bytes apart, mn / 8 at SBO, c at LBO
//     swizzled:   rows W * 16 bytes apart, mn / 8 at SBO, c the next chunk (LBO unused)
//   MN-major, chunk q of the MN dimension (16 bytes of consecutive mn), row k:
//     no swizzle: rows k % 8 16 bytes apart, k / 8 at LBO, q at SBO
//     swizzled:   rows k % 8 W * 16 bytes apart, k / 8 at SBO, q % W the chunk, q / W at LBO
uint64_t chunk_address(const SmemMatrix& d, bool mn_major, uint64_t mn_or_q, uint64_t c_or_k) {
  uint64_t a;
  if (!mn_major) {
    const uint64_t mn = mn_or_q, c = c_or_k;
    a = d.start + mn / 8 * d.sbo + (d.width == 1 ? mn % 8 * 16 + c * d.lbo : mn % 8 * d.width * 16 + c * 16);
  } else {
    const uint64_t q = mn_or_q, k = c_or_k;
    a = d.width == 1 ? d.start + q * d.sbo + k / 8 * d.lbo + k % 8 * 16
                     : d.start + q / d.width * d.lbo + q % d.width * 16 + k / 8 * d.sbo + k % 8 * d.width * 16;
  }
  return swizzle(d, a);
}

uint32_t element_bits(const uint8_t* bytes, unsigned j, unsigned bits) {
  if (bits == 1) return bytes[j / 8] >> (j % 8) & 1u;
  uint32_t v = 0;
  for (unsigned i = 0; i < bits / 8; ++i) v |= static_cast<uint32_t>(bytes[j * bits / 8 + i]) << (8 * i);
  return v;
}

void load_smem_operand(const std::function<const uint8_t*(uint64_t)>& shared16, const SmemMatrix& d, bool mn_major,
                       unsigned ebits, unsigned first, unsigned rows, unsigned K, std::vector<uint32_t>& out) {
  const unsigned per_chunk = 128 / ebits;
  if (!mn_major) {
    for (unsigned r = 0; r < rows; ++r)
      for (unsigned c = 0; c < K * ebits / 128; ++c) {
        const uint8_t* bytes = shared16(chunk_address(d, false, first + r, c));
        for (unsigned j = 0; j < per_chunk; ++j) out[r * K + c * per_chunk + j] = element_bits(bytes, j, ebits);
      }
    return;
  }
  for (unsigned k = 0; k < K; ++k)
    for (unsigned q = first / per_chunk; q < (first + rows) / per_chunk; ++q) {
      const uint8_t* bytes = shared16(chunk_address(d, true, q, k));
      for (unsigned j = 0; j < per_chunk; ++j) out[(q * per_chunk + j - first) * K + k] = element_bits(bytes, j, ebits);
    }
}

}  // namespace ptx::emu
