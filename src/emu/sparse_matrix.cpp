// Every sparse form is 2:4 sparse over metadata units of 16 bits (.f16/.bf16, and .tf32, whose
// 1:2 is a 2:4 over its 16-bit halves: 0b0100 and 0b1110 are its only meaningful values) or of
// 8 bits (the 8-bit types, and .s4/.u4, whose pair-wise 4:8 is a 2:4 over bytes). Each 4-bit
// field of the metadata holds the two unit indices of a 4-unit chunk's non-zero units, the first
// stored one in its low bits (9.7.14.6.1).
#include "sparse_matrix.hpp"

#include <utility>

#include <fmt/format.h>

namespace ptx::emu {

namespace {

// The lane (of the first quad) and bit that hold the metadata of chunk c of row `row` (0-15) of
// a sparse A whose rows are `units` units long, for selector f: the units/16 lanes from
// (units/16) f of the quad of row % 8. From the manual's metadata figures (9.7.14.6.2):
// 16-bit units: a lane holds rows g (bits 0-15) and g + 8 (16-31), four chunks each (.f16/.bf16
//   m16n8k16 and .tf32 m16n8k8: one lane; m16n8k32 and .tf32 m16n8k16: a pair, chunks 0-3 and 4-7);
// 8-bit units: a lane holds eight chunks of one row (m16n8k64 and .s4 m16n8k128: lanes 0 and 1
//   rows g and g + 8 of chunks 0-7, lanes 2 and 3 chunks 8-15; m16n8k32 and .s4 m16n8k64: the pair
//   from 2f, rows g and g + 8, as the first half of m16n8k64's).
// The .tf32 layouts (figures 125, 127: .f16's over 16-bit units) and the 8-bit-unit pair (figures
// 129, 139) are this emulator's reading of the manual, not yet compared with a GPU.
std::pair<int, int> metadata_at(int units, unsigned unit, int f, int row, int c) {
  const int g = row % 8, hi = row / 8, first = 4 * g + f * units / 16;
  if (unit == 8) return {first + hi + 2 * (c / 8), 4 * (c % 8)};
  return {first + c / 4, 16 * hi + 4 * (c % 4)};
}

}  // namespace

unsigned sparse_unit_bits(unsigned element_bits) { return element_bits >= 16 ? 16 : 8; }

uint64_t sparse_selectors(unsigned element_bits, int k) {
  const int units = k * static_cast<int>(element_bits) / static_cast<int>(sparse_unit_bits(element_bits));
  return static_cast<uint64_t>(64 / units);
}

std::vector<double> expand_sparse_rows(const SparseA& a, const std::vector<double>& packed, const std::function<unsigned(int row, int chunk)>& field,
                                       const std::function<void(int row, int chunk, unsigned field, const char* wrong)>& fail) {
  const int w = static_cast<int>(a.element_bits), unit = static_cast<int>(sparse_unit_bits(a.element_bits)), K = a.k;
  const int units = K * w / unit;
  const bool tf32 = w > unit;                          // one element per chunk, over two units
  const int per_unit = tf32 ? 1 : unit / w;            // elements in a unit (4-bit types: 2)
  std::vector<double> A(static_cast<size_t>(a.rows) * static_cast<size_t>(K), 0.0);
  for (int row = 0; row < a.rows; ++row)
    for (int c = 0; c < units / 4; ++c) {
      const unsigned nibble = field(row, c) & 0xF;
      const int i0 = static_cast<int>(nibble & 3), i1 = static_cast<int>(nibble >> 2);
      // tcgen05.mma.sp's list: every increasing pair, and 0b0110
      const bool listed = (i0 < i1) || nibble == 0b0110;
      const char* wrong = i0 == i1                                 ? "the same index twice (undefined in the ISA)"
                          : tf32 && !(i1 == i0 + 1 && i0 % 2 == 0) ? "not 0b0100 or 0b1110, the only meaningful values for .tf32"
                          : a.ordered && i0 > i1                   ? "indices not in increasing order, as .sp::ordered_metadata requires"
                          : a.listed_only && !listed ? "not one of the values the manual lists as meaningful (0b0100, 0b1000, 0b1100, 0b1001, 0b1101, 0b0110, 0b1110)"
                                                     : nullptr;
      if (wrong) fail(row, c, nibble, wrong);
      const auto dense = static_cast<size_t>(row * K), half = static_cast<size_t>(row * K / 2);
      if (tf32) {
        A[dense + static_cast<size_t>(2 * c + i0 / 2)] = packed[half + static_cast<size_t>(c)];
        continue;
      }
      for (int e = 0; e < per_unit; ++e) {
        A[dense + static_cast<size_t>((4 * c + i0) * per_unit + e)] = packed[half + static_cast<size_t>(2 * c * per_unit + e)];
        A[dense + static_cast<size_t>((4 * c + i1) * per_unit + e)] = packed[half + static_cast<size_t>((2 * c + 1) * per_unit + e)];
      }
    }
  return A;
}

std::vector<double> expand_sparse(const SparseA& a, const std::vector<double>& packed, const std::function<uint64_t(int lane)>& metadata,
                                  const std::function<void(int lane, const std::string& what)>& fail) {
  const int w = static_cast<int>(a.element_bits), unit = static_cast<int>(sparse_unit_bits(a.element_bits));
  const int units = a.k * w / unit;
  return expand_sparse_rows(
      a, packed,
      [&](int row, int c) {
        const auto [lane, bit] = metadata_at(units, static_cast<unsigned>(unit), a.selector, row, c);
        return static_cast<unsigned>(metadata(lane) >> bit) & 0xFu;
      },
      [&](int row, int c, unsigned nibble, const char* wrong) {
        const auto [lane, bit] = metadata_at(units, static_cast<unsigned>(unit), a.selector, row, c);
        fail(lane, fmt::format("{}: the sparsity metadata of lane {} (e = {:#010x}), bits {}-{} = {:#06b} for row {}, columns {}-{}: {}", a.instruction, lane,
                               static_cast<uint32_t>(metadata(lane)), bit, bit + 3, nibble, a.first_row + row, 4 * c * unit / w, (4 * c + 4) * unit / w - 1,
                               wrong));
      });
}

}  // namespace ptx::emu
