// The sparse A of mma.sp (PTX ISA 9.7.14.6), wgmma.mma_async.sp (9.7.15.6) and tcgen05.mma.sp
// (9.7.16.10.8): its non-zero half and the metadata that places it, shared by the warp,
// warpgroup and tensor-memory instructions.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

namespace ptx::emu {

struct SparseA {
  const char* instruction;  // for reports: "mma.sp", "wgmma.mma_async.sp", "tcgen05.mma.sp"
  unsigned element_bits;    // 32 (.tf32), 16, 8 or 4
  int k;                    // the dense A's columns
  int selector;             // the sparsity selector f (mma.sp, wgmma.mma_async.sp)
  bool ordered;             // .sp::ordered_metadata
  int first_row = 0;        // for reports: the row of the whole A the first row is (wgmma: 16 * the warp's rank)
  int rows = 16;            // A's rows (mma.sp and each warp of wgmma.sp: 16)
  // Only the fields the manual lists as meaningful (tcgen05.mma.sp: 0b0100, 0b1000, 0b1100, 0b1001,
  // 0b1101, 0b0110, 0b1110); without it any two different indices are taken.
  bool listed_only = false;
};

// The valid selectors of a sparse form (f below this): 4, 2 or 1.
uint64_t sparse_selectors(unsigned element_bits, int k);

// The metadata unit of a sparse form: 16 bits (.f16/.bf16, and .tf32, whose 1:2 is a 2:4 over its
// 16-bit halves) or 8 (the 8-bit types, and the 4-bit ones, whose pair-wise 4:8 is a 2:4 over
// bytes). Each 4-bit field of the metadata places the two non-zero units of a chunk of 4 units.
unsigned sparse_unit_bits(unsigned element_bits);

// A (rows x k, row-major) from its non-zero half `packed` (rows x k/2), the 4-bit field of chunk
// c of row r given by `field(r, c)`; a field the ISA leaves undefined is reported through `fail`
// (which must not return) with its row, chunk, value and what is wrong with it.
std::vector<double> expand_sparse_rows(const SparseA& a, const std::vector<double>& packed, const std::function<unsigned(int row, int chunk)>& field,
                                       const std::function<void(int row, int chunk, unsigned field, const char* wrong)>& fail);

// mma.sp and wgmma.mma_async.sp: A (16 x k) from `packed` (16 x k/2) and the metadata operand of
// each lane (`metadata(lane)`), in the manual's quad layouts; undefined metadata is reported
// through `fail` (which must not return) with its lane.
std::vector<double> expand_sparse(const SparseA& a, const std::vector<double>& packed, const std::function<uint64_t(int lane)>& metadata,
                                  const std::function<void(int lane, const std::string& what)>& fail);

}  // namespace ptx::emu
