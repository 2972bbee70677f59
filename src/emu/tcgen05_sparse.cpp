// The metadata of tcgen05.mma.sp in tensor memory (9.7.16.10.8.4), per row of A in its data
// path lane, one 4-bit field per chunk of four metadata units (sparse_matrix.hpp):
// 8-bit units (.kind::f8f6f4, ::i8, ::mxf8f6f4, ::mxf4, ::mxf4nvf4; K = 64 or 128): row m's 16
//   fields in the lane of row m, fields 8c..8c + 7 in column c (0, 1) from bit 0; the
//   selector must be 0 (figures 266, 267);
// 16-bit units (.kind::f16, ::tf32; K = 32 or 16): row m's 8 fields as two 16-bit halves, fields
//   4j..4j + 3 of row m in the lane 8j + m % 8 after the first lane of m's group of 16 rows, in
//   bits 0-15 for rows m % 16 < 8 and 16-31 for the others, of column selector (0, 1): each
//   instruction uses one 32-bit column of the 64-bit granule at the address (figures 262-265).
// These layouts are this emulator's reading of the figures (images in the manual), matching a
// published reading checked on an sm_110 GPU (Triton's); not yet compared with a GPU here.
#include "tcgen05_sparse.hpp"

#include <fmt/format.h>

namespace ptx::emu {

std::vector<double> tcgen05_expand_sparse(Tcgen05Warp& w, int lane, uint32_t rank, uint32_t meta, const SparseA& a, const std::vector<double>& packed,
                                          const std::function<uint32_t(unsigned m)>& lane_of) {
  const bool sixteen = sparse_unit_bits(a.element_bits) == 16;
  const uint32_t l0 = meta >> 16, c0 = meta & 0xFFFF;
  TensorMemory& tm = w.tmem(rank);
  // where the field of chunk c of row m is: lane, column, bit
  struct At {
    uint32_t lane, column;
    unsigned bit;
  };
  auto at = [&](int m, int c) -> At {
    const auto row = static_cast<unsigned>(m), chunk = static_cast<unsigned>(c);
    if (!sixteen) return {l0 + lane_of(row), c0 + chunk / 8, 4 * (chunk % 8)};
    return {l0 + lane_of(row / 16 * 16) + 8 * (chunk / 4) + row % 8, c0 + static_cast<uint32_t>(a.selector), 16 * (row / 8 % 2) + 4 * (chunk % 4)};
  };
  return expand_sparse_rows(
      a, packed,
      [&](int m, int c) {
        const At f = at(m, c);
        if (f.lane >= TensorMemory::kLanes || f.column >= TensorMemory::kColumns || !tm.allocated(f.column, 1))
          w.fail(lane, fmt::format("{}: the sparsity metadata of row {} at tensor memory lane {}, column {} (CTA rank {}): not allocated (allocated: {})",
                                   a.instruction, a.first_row + m, f.lane, f.column, rank, tm.describe()));
        return tm.cell(f.lane, f.column) >> f.bit & 0xFu;
      },
      [&](int m, int c, unsigned field, const char* wrong) {
        const At f = at(m, c);
        const int per = 4 * static_cast<int>(sparse_unit_bits(a.element_bits)) / static_cast<int>(a.element_bits);  // dense columns a field covers
        w.fail(lane, fmt::format("{}: the sparsity metadata at tensor memory lane {}, column {} (CTA rank {}; {:#010x}), bits {}-{} = {:#06b} for row {}, "
                                 "columns {}-{}: {}",
                                 a.instruction, f.lane, f.column, rank, tm.cell(f.lane, f.column), f.bit, f.bit + 3, field, a.first_row + m, per * c,
                                 per * c + per - 1, wrong));
      });
}

}  // namespace ptx::emu
