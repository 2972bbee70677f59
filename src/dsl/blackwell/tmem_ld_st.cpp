#include "ptxpp/dsl/blackwell/tmem_ld_st.hpp"

#include <fmt/format.h>

#include "emit.hpp"
#include "ptxpp/dsl/error.hpp"
#include "ptxpp/dsl/inst.hpp"

namespace ptx::blackwell {

namespace {

int per_repetition(TmemShape s) {
  switch (s) {
    case TmemShape::S32x32b:
    case TmemShape::S16x64b: return 1;
    case TmemShape::S16x128b: return 2;
    case TmemShape::S16x256b: return 4;
  }
  return 1;
}

int rows_of(TmemShape s) { return s == TmemShape::S32x32b ? 32 : 16; }

void check_regs(const RegArray& regs, int first, int n, const char* what, ptx::SourceLocation where) {
  if (first < 0 || static_cast<size_t>(first) + static_cast<size_t>(n) > regs.size())
    throw Error(fmt::format("{}: {} registers from {} are needed; the array has {}", what, n, first, regs.size()), where);
  for (int i = first; i < first + n; ++i)
    if (bits(regs[static_cast<size_t>(i)].type()) != 32 || regs[static_cast<size_t>(i)].type() == DType::pred)
      throw Error(fmt::format("{}: the registers are 32-bit, not {}", what, name(regs[static_cast<size_t>(i)].type())), where);
}

}  // namespace

std::string_view shape_name(TmemShape s) {
  switch (s) {
    case TmemShape::S32x32b: return "32x32b";
    case TmemShape::S16x64b: return "16x64b";
    case TmemShape::S16x128b: return "16x128b";
    case TmemShape::S16x256b: return "16x256b";
  }
  return "32x32b";
}

int tmem_regs(TmemShape s, int num, ptx::SourceLocation where) {
  if (num < 1 || num > 128 || (num & (num - 1)) != 0)
    throw Error(fmt::format("tcgen05.ld/st: .x{} is not a power of 2 in 1..128", num), where);
  const int n = num * per_repetition(s);
  if (n > 128)
    throw Error(fmt::format("tcgen05.ld/st: .{}.x{} would be {} registers per thread (128 at most)", shape_name(s), num, n), where);
  return n;
}

std::pair<int, int> tmem_fragment_row_col(TmemShape s, int num, int t, int r) {
  const int n = tmem_regs(s, num, {});
  if (t < 0 || t > 31 || r < 0 || r >= n)
    throw Error(fmt::format("tmem_fragment_row_col: thread {} / register {} outside .{}.x{}", t, r, shape_name(s), num), {});
  switch (s) {
    case TmemShape::S32x32b: return {t, r};
    case TmemShape::S16x64b: return {t / 4 + 8 * (t % 2), (t / 2) % 2 + 2 * r};
    case TmemShape::S16x128b: return {t / 4 + 8 * (r % 2), t % 4 + 4 * (r / 2)};
    case TmemShape::S16x256b: return {t / 4 + 8 * ((r / 2) % 2), r % 2 + 2 * (t % 4) + 8 * (r / 4)};
  }
  return {0, 0};
}

std::pair<int, int> tmem_fragment_thread_reg(TmemShape s, int num, int row, int col) {
  const int n = tmem_regs(s, num, {});
  const int cols = s == TmemShape::S32x32b ? num : n * 32 / rows_of(s);
  if (row < 0 || row >= rows_of(s) || col < 0 || col >= cols)
    throw Error(fmt::format("tmem_fragment_thread_reg: ({}, {}) outside .{}.x{} ({} x {})", row, col, shape_name(s), num,
                            rows_of(s), cols),
                {});
  switch (s) {
    case TmemShape::S32x32b: return {row, col};
    case TmemShape::S16x64b: return {4 * (row % 8) + 2 * (col % 2) + row / 8, col / 2};
    case TmemShape::S16x128b: return {4 * (row % 8) + col % 4, 2 * (col / 4) + row / 8};
    case TmemShape::S16x256b: return {4 * (row % 8) + (col % 8) / 2, 4 * (col / 8) + 2 * (row / 8) + col % 2};
  }
  return {0, 0};
}

void tmem_load(TmemShape shape, int num, const RegArray& dst, int first, const Reg& taddr, int64_t offset, bool pack16,
               ptx::SourceLocation where) {
  const int n = tmem_regs(shape, num, where);
  check_regs(dst, first, n, "tcgen05.ld", where);
  detail::check_int_reg(taddr, 32, "tcgen05.ld: the tensor-memory address", where);
  const Operand ops[] = {ptx::vec(dst.range(static_cast<size_t>(first), static_cast<size_t>(n))), ptx::addr(taddr, offset)};
  dsl::RuntimeChain mn(inst::tcgen05.ld.sync.aligned);
  mn.then(fmt::format(".{}.x{}", shape_name(shape), num), where).then_if(pack16, ".pack::16b", where).then(".b32", where);
  detail::emit(mn, ops, nullptr, where);
}

void tmem_store(TmemShape shape, int num, const Reg& taddr, const RegArray& src, int first, int64_t offset, bool unpack16,
                ptx::SourceLocation where) {
  const int n = tmem_regs(shape, num, where);
  check_regs(src, first, n, "tcgen05.st", where);
  detail::check_int_reg(taddr, 32, "tcgen05.st: the tensor-memory address", where);
  const Operand ops[] = {ptx::addr(taddr, offset), ptx::vec(src.range(static_cast<size_t>(first), static_cast<size_t>(n)))};
  dsl::RuntimeChain mn(inst::tcgen05.st.sync.aligned);
  mn.then(fmt::format(".{}.x{}", shape_name(shape), num), where).then_if(unpack16, ".unpack::16b", where).then(".b32", where);
  detail::emit(mn, ops, nullptr, where);
}

void tmem_wait_ld(ptx::SourceLocation where) { detail::emit(inst::tcgen05.wait_ld.sync.aligned, {}, nullptr, where); }
void tmem_wait_st(ptx::SourceLocation where) { detail::emit(inst::tcgen05.wait_st.sync.aligned, {}, nullptr, where); }

}  // namespace ptx::blackwell
