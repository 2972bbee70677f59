// Scale factors of block-scaled tcgen05.mma in tensor memory (PTX ISA 9.7.16.10.7, "Scale
// Factor A ID" / "Scale Factor B ID"): rows in 32-lane chunks side by side, one 32-bit column
// per 32 rows, the codes of a row packed in the bytes of its cell, the descriptor's ID picking
// the byte (1X: any of the four; 2X: the half word at byte 0 or 2; 4X: the whole cell). The
// tensor cores of the four sub-partitions each read their own copy, so the manual requires the
// scale factors duplicated in all four 32-lane partitions; a copy that differs is reported.
#include "tcgen05_scale.hpp"

#include <fmt/format.h>

#include "float_formats.hpp"

namespace ptx::emu {

void read_scale_factors(Tcgen05Warp& w, int lane, uint32_t rank, uint32_t taddr, unsigned rows, unsigned vec, unsigned id, bool ue4m3,
                        const char* which, std::vector<double>& out) {
  const uint32_t lane0 = taddr >> 16, col0 = taddr & 0xFFFF, cols = (rows + 31) / 32;
  if (lane0 != 0)
    w.fail(lane, fmt::format("tcgen05.mma: the {} tensor memory address {:#x} has lane {}; scale factors fill all 128 lanes (four 32-lane "
                             "copies) from lane 0",
                             which, taddr, lane0));
  TensorMemory& tm = w.tmem(rank);
  if (col0 + cols > TensorMemory::kColumns || !tm.allocated(col0, cols))
    w.fail(lane, fmt::format("tcgen05.mma: the {} scale factors at tensor memory columns {} to {} are not allocated (allocated: {})", which, col0,
                             col0 + cols - 1, tm.describe()));
  out.assign(size_t{rows} * vec, 0.0);
  for (unsigned r = 0; r < rows; ++r) {
    const uint32_t l = r % 32, c = col0 + r / 32;
    const uint32_t cell = tm.cell(l, c);
    for (unsigned j = 0; j < vec; ++j) {
      const unsigned byte = id + j;
      const uint8_t code = static_cast<uint8_t>(cell >> (8 * byte));
      for (uint32_t p = 1; p < 4; ++p) {
        const uint8_t copy = static_cast<uint8_t>(tm.cell(l + 32 * p, c) >> (8 * byte));
        if (copy != code)
          w.fail(lane, fmt::format("tcgen05.mma: the {} scale factor of row {} (tensor memory column {}, byte {}) is {:#04x} in lane {} but {:#04x} "
                                   "in lane {}: the scale factors must be duplicated in all four 32-lane partitions",
                                   which, r, c, byte, code, l, copy, l + 32 * p));
      }
      if (ue4m3 && (code & 0x80))
        w.fail(lane, fmt::format("tcgen05.mma: the {} scale factor of row {} (tensor memory column {}, byte {}) is {:#04x}: ue4m3 is unsigned, "
                                 "bit 7 must be 0",
                                 which, r, c, byte, code));
      out[size_t{r} * vec + j] = ue4m3 ? decode_ue4m3(code) : decode_ue8m0(code);
    }
  }
}

}  // namespace ptx::emu
