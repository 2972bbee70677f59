// The metadata of a sparse A (mma.sp, wgmma.mma_async.sp) as the tests place it, from the PTX ISA
// manual's metadata figures (9.7.14.6.2, reused by 9.7.15.6.2 for each warp's 16 rows).
#pragma once

namespace ptx::test {

// Which lane of the quad of row r % 8 (of 16 rows) holds the 4-bit field of chunk c, and from
// which bit, for selector f. A chunk is 4 elements (.f16/.bf16, 8-bit types), 2 (.tf32, 1:2) or 8
// (.s4/.u4, two of its four pairs); `row_bits`: the bits of a dense row of A (256 or 512);
// `sixteen`: 16- or 32-bit elements.
struct MetaAt {
  int lane, bit;
};
inline MetaAt meta_at(int row_bits, bool sixteen, int f, int r, int c) {
  const int quad = 4 * (r % 8), hi = r >= 8 ? 1 : 0;
  if (!sixteen) {  // 8-, 4-bit: a lane holds 8 chunks of one row
    if (row_bits == 512) return {quad + hi + (c >= 8 ? 2 : 0), 4 * (c % 8)};  // all four lanes
    return {quad + 2 * f + hi, 4 * c};                                         // a pair, chosen by f
  }
  if (row_bits == 256) return {quad + f, 16 * hi + 4 * c};                     // one lane, chosen by f
  return {quad + 2 * f + (c >= 4 ? 1 : 0), 16 * hi + 4 * (c % 4)};             // a pair: chunks 0-3, 4-7
}

}  // namespace ptx::test
