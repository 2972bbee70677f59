// tcgen05.ld / tcgen05.st (tensor memory <-> registers, one warp), tcgen05.wait::ld/st and
// the fragment maps of the four shapes.
#pragma once

#include <cstdint>
#include <string_view>
#include <utility>

#include "ptxpp/dsl/reg.hpp"
#include "ptxpp/dsl/source_location.hpp"

namespace ptx::blackwell {

// A warp reaches only its lane quarter of tensor memory: lanes 32 (w % 4) .. +31 for warp w
// of the CTA. The shapes (lanes x bits per repetition) and what thread t (0..31) holds,
// register r counting over all .num repetitions, (row, col) relative to the address's lane
// and column (32-bit columns):
//   32x32b  : 1 register per repetition;  (t, r)
//   16x64b  : 1 register per repetition;  (t/4 + 8 (t%2), (t/2)%2 + 2r)
//   16x128b : 2 registers per repetition; (t/4 + 8 (r%2), t%4 + 4 (r/2))
//   16x256b : 4 registers per repetition; (t/4 + 8 ((r/2)%2), r%2 + 2 (t%4) + 8 (r/4))
enum class TmemShape : uint8_t { S32x32b, S16x64b, S16x128b, S16x256b };
std::string_view shape_name(TmemShape s);  // "32x32b", ...
// Registers per thread of one instruction: num x (1, 1, 2, 4). An error for a .num that is
// not a power of 2 in 1..128 or over 128 registers.
int tmem_regs(TmemShape s, int num, ptx::SourceLocation where = ptx::SourceLocation::current());
// (row, col) of register `reg` of thread `thread`, and the inverse (thread, reg).
std::pair<int, int> tmem_fragment_row_col(TmemShape s, int num, int thread, int reg);
std::pair<int, int> tmem_fragment_thread_reg(TmemShape s, int num, int row, int col);

// One instruction:
//   tcgen05.ld.sync.aligned.32x32b.x8{.pack::16b}.b32 {dst[first], ..., dst[first + n - 1]}, [taddr+offset];
// n = tmem_regs(shape, num); dst: 32-bit registers; taddr: a 32-bit register.
void tmem_load(TmemShape shape, int num, const RegArray& dst, int first, const Reg& taddr, int64_t offset = 0,
               bool pack16 = false, ptx::SourceLocation where = ptx::SourceLocation::current());
//   tcgen05.st.sync.aligned.32x32b.x8{.unpack::16b}.b32 [taddr+offset], {src[first], ...};
void tmem_store(TmemShape shape, int num, const Reg& taddr, const RegArray& src, int first, int64_t offset = 0,
                bool unpack16 = false, ptx::SourceLocation where = ptx::SourceLocation::current());
// tcgen05.wait::ld.sync.aligned;  (every tcgen05.ld of this thread has completed)
void tmem_wait_ld(ptx::SourceLocation where = ptx::SourceLocation::current());
// tcgen05.wait::st.sync.aligned;
void tmem_wait_st(ptx::SourceLocation where = ptx::SourceLocation::current());

}  // namespace ptx::blackwell
