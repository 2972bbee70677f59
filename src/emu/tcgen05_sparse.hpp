// Internal: the sparse A of tcgen05.mma.sp (PTX ISA 9.7.16.10.8): its metadata in tensor memory.
#pragma once

#include <cstdint>
#include <functional>
#include <vector>

#include "sparse_matrix.hpp"
#include "tcgen05.hpp"

namespace ptx::emu {

// The dense rows of A (a.rows x a.k) of CTA `rank` from its non-zero half `packed` (a.rows x
// a.k / 2) and the metadata at tensor memory address `meta` (lane << 16 | column) of that CTA;
// `lane_of(m)` is the data path lane of row m (D's layout). Metadata the ISA leaves undefined, or
// outside the allocation, is reported with its lane and column.
std::vector<double> tcgen05_expand_sparse(Tcgen05Warp& w, int lane, uint32_t rank, uint32_t meta, const SparseA& a, const std::vector<double>& packed,
                                          const std::function<uint32_t(unsigned m)>& lane_of);

}  // namespace ptx::emu
