// The sparse A of mma.sp (PTX ISA 9.7.14.6) and wgmma.mma_async.sp (9.7.15.6): its non-zero
// half and the metadata that places it, shared by the warp and warpgroup instructions.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

namespace ptx::emu {

struct SparseA {
  const char* instruction;  // for reports: "mma.sp", "wgmma.mma_async.sp"
  unsigned element_bits;    // 32 (.tf32), 16, 8 or 4
  int k;                    // the dense A's columns (its 16 rows: mma.sp's, or a warp's of wgmma.sp)
  int selector;             // the sparsity selector f
  bool ordered;             // .sp::ordered_metadata
  int first_row = 0;        // for reports: the row of the whole A the first of the 16 is (wgmma: 16 * the warp's rank)
};

// The valid selectors of a sparse form (f below this): 4, 2 or 1.
uint64_t sparse_selectors(unsigned element_bits, int k);

// A (16 x k, row-major) from its non-zero half `packed` (16 x k/2) and the metadata operand
// of each lane (`metadata(lane)`); metadata the ISA leaves undefined is reported through `fail`
// (which must not return) with its lane.
std::vector<double> expand_sparse(const SparseA& a, const std::vector<double>& packed, const std::function<uint64_t(int lane)>& metadata,
                                  const std::function<void(int lane, const std::string& what)>& fail);

}  // namespace ptx::emu
