// Internal: the scale factors of block-scaled tcgen05.mma (.kind::mxf8f6f4, mxf4, mxf4nvf4;
// PTX ISA 9.7.16.10.7) as the mma reads them from tensor memory.
#pragma once

#include <cstdint>
#include <vector>

#include "tcgen05.hpp"

namespace ptx::emu {

// The scale factors of `rows` rows of A (or columns of B) at tensor memory address taddr of CTA
// `rank`, `vec` per row (.scale_vec::1X, 2X, 4X): row r sits in lane r % 32 of column
// taddr + r / 32, its vec 8-bit codes in bytes id to id + vec - 1 of that 32-bit cell (the
// instruction descriptor's scale factor ID), and the manual asks for the same cells in all four
// 32-lane partitions (lanes r % 32 + 32 p). out[r * vec + j] is the value of code j (ue4m3, or
// ue8m0). `which` ("scale-A", "scale-B") names the operand in reports.
void read_scale_factors(Tcgen05Warp& w, int lane, uint32_t rank, uint32_t taddr, unsigned rows, unsigned vec, unsigned id, bool ue4m3,
                        const char* which, std::vector<double>& out);

}  // namespace ptx::emu
