#include "ptxpp/dsl/hopper/wgmma.hpp"

#include <vector>

#include <fmt/format.h>

#include "../trace.hpp"
#include "ptxpp/dsl/error.hpp"
#include "ptxpp/dsl/operand.hpp"

namespace ptx::hopper {

using dsl::Trace;

uint32_t swizzle_bytes(DescSwizzle s) {
  switch (s) {
    case DescSwizzle::None: return 16;
    case DescSwizzle::B128: return 128;
    case DescSwizzle::B64: return 64;
    case DescSwizzle::B32: return 32;
  }
  return 16;
}

uint64_t MatrixDescriptor::bits(ptx::SourceLocation where) const {
  auto field = [&](uint32_t v, const char* what) -> uint64_t {
    if (v % 16 != 0 || v >= (1u << 18))
      throw Error(fmt::format("matrix descriptor: {} = {} bytes is not a multiple of 16 below 2^18", what, v), where);
    return v >> 4;
  };
  if (base_offset > 7) throw Error(fmt::format("matrix descriptor: base offset {} is not in 0..7", base_offset), where);
  return field(start, "start address") | field(lbo, "leading byte offset") << 16 | field(sbo, "stride byte offset") << 32 |
         uint64_t{base_offset} << 49 | uint64_t{static_cast<uint8_t>(swizzle)} << 62;
}

MatrixDescriptor MatrixDescriptor::decode(uint64_t b) {
  MatrixDescriptor d;
  d.start = static_cast<uint32_t>(b & 0x3FFF) << 4;
  d.lbo = static_cast<uint32_t>(b >> 16 & 0x3FFF) << 4;
  d.sbo = static_cast<uint32_t>(b >> 32 & 0x3FFF) << 4;
  d.base_offset = static_cast<uint32_t>(b >> 49 & 7);
  d.swizzle = static_cast<DescSwizzle>(b >> 62);
  return d;
}

MatrixDescriptor k_major(uint32_t start, DescSwizzle s, uint32_t sbo, uint32_t lbo) {
  return MatrixDescriptor{start, lbo, sbo, 0, s};
}

MatrixDescriptor mn_major(uint32_t start, DescSwizzle s, uint32_t lbo, uint32_t sbo) {
  return MatrixDescriptor{start, lbo, sbo, 0, s};
}

Reg make_descriptor(const Reg& smem_addr, const MatrixDescriptor& d, ptx::SourceLocation where) {
  Trace& t = Trace::current(where);
  t.check_reg(smem_addr, where);
  if (bits(smem_addr.type()) != 32 || smem_addr.type() == DType::f32)
    throw Error("make_descriptor: the shared address is a 32-bit integer register (Buffer::base())", where);
  MatrixDescriptor hi = d;
  hi.start = 0;
  const uint64_t high = hi.bits(where);
  Reg a(DType::b32, {}, where), b(DType::b32, {}, where);
  Reg r(DType::b64, {}, where);
  const Operand shr[] = {a, smem_addr, Operand(4)};
  t.emit_text("shr.u32", shr, where);
  const Operand and_[] = {b, a, Operand(16383)};
  t.emit_text("and.b32", and_, where);
  Reg w(DType::u64, {}, where);
  const Operand cvt[] = {w, b};
  t.emit_text("cvt.u64.u32", cvt, where);
  const Operand or_[] = {r, w, Operand(high)};
  t.emit_text("or.b64", or_, where);
  return r;
}

void wgmma_fence(ptx::SourceLocation where) { Trace::current(where).emit_text("wgmma.fence.sync.aligned", {}, where); }
void wgmma_commit(ptx::SourceLocation where) {
  Trace::current(where).emit_text("wgmma.commit_group.sync.aligned", {}, where);
}
void wgmma_wait(int n, ptx::SourceLocation where) {
  if (n < 0 || n > 7) throw Error(fmt::format("wgmma.wait_group {}: the count is 0 to 7", n), where);
  const Operand ops[] = {Operand(n)};
  Trace::current(where).emit_text("wgmma.wait_group.sync.aligned", ops, where);
}

namespace {

// The shape, input type and accumulators of an m64nNk16 f32 wgmma.
void check_accumulators(int n, DType ab, const RegArray& acc, int first, ptx::SourceLocation where) {
  if (n < 8 || n > 256 || n % 8 != 0) throw Error(fmt::format("wgmma m64nNk16: N = {} is not a multiple of 8 in 8..256", n), where);
  if (ab != DType::bf16 && ab != DType::f16)
    throw Error(fmt::format("mma_async: A and B are bf16 or f16 here, not {}", name(ab)), where);
  if (first < 0 || static_cast<size_t>(first) + n / 2 > acc.size())
    throw Error(fmt::format("mma_async: m64n{} needs {} accumulators from {}; the array has {}", n, n / 2, first, acc.size()),
                where);
  for (size_t i = static_cast<size_t>(first); i < static_cast<size_t>(first + n / 2); ++i)
    if (acc[i].type() != DType::f32) throw Error("mma_async: the accumulators are f32 registers", where);
}

void check_descriptor_and_scale(Trace& t, const Reg& desc_b, const Reg& scale_d, ptx::SourceLocation where) {
  t.check_reg(desc_b, where);
  if (bits(desc_b.type()) != 64 || desc_b.type() == DType::f64)
    throw Error("mma_async: descriptors are 64-bit integer registers", where);
  t.check_reg(scale_d, where);
  if (scale_d.type() != DType::pred) throw Error("mma_async: scale-d is a predicate", where);
}

}  // namespace

void mma_async(int n, DType ab, const RegArray& acc, int first, const Reg& desc_a, const Reg& desc_b, const Reg& scale_d,
               int trans_a, int trans_b, ptx::SourceLocation where) {
  Trace& t = Trace::current(where);
  check_accumulators(n, ab, acc, first, where);
  t.check_reg(desc_a, where);
  if (bits(desc_a.type()) != 64 || desc_a.type() == DType::f64)
    throw Error("mma_async: descriptors are 64-bit integer registers", where);
  check_descriptor_and_scale(t, desc_b, scale_d, where);
  if ((trans_a != 0 && trans_a != 1) || (trans_b != 0 && trans_b != 1))
    throw Error("mma_async: imm-trans-a and imm-trans-b are 0 (K-major) or 1 (MN-major)", where);
  const Operand ops[] = {ptx::vec(acc.range(static_cast<size_t>(first), static_cast<size_t>(n / 2))),
                         desc_a,
                         desc_b,
                         scale_d,
                         Operand(1),
                         Operand(1),
                         Operand(trans_a),
                         Operand(trans_b)};
  t.emit_text(fmt::format("wgmma.mma_async.sync.aligned.m64n{}k16.f32{}{}", n, name(ab), name(ab)), ops, where);
}

void mma_async(int n, DType ab, const RegArray& acc, int first, const RegArray& a, int first_a, const Reg& desc_b,
               const Reg& scale_d, int trans_b, ptx::SourceLocation where) {
  Trace& t = Trace::current(where);
  check_accumulators(n, ab, acc, first, where);
  if (first_a < 0 || static_cast<size_t>(first_a) + 4 > a.size())
    throw Error(fmt::format("mma_async: A from registers needs 4 registers from {}; the array has {}", first_a, a.size()), where);
  for (size_t i = static_cast<size_t>(first_a); i < static_cast<size_t>(first_a + 4); ++i) {
    t.check_reg(a[i], where);
    if (bits(a[i].type()) != 32 || a[i].type() == DType::f32)
      throw Error("mma_async: the A registers are 32-bit integer registers (.b32: two 16-bit elements each)", where);
  }
  check_descriptor_and_scale(t, desc_b, scale_d, where);
  if (trans_b != 0 && trans_b != 1) throw Error("mma_async: imm-trans-b is 0 (K-major) or 1 (MN-major)", where);
  const Operand ops[] = {ptx::vec(acc.range(static_cast<size_t>(first), static_cast<size_t>(n / 2))),
                         ptx::vec(a.range(static_cast<size_t>(first_a), 4)),
                         desc_b,
                         scale_d,
                         Operand(1),
                         Operand(1),
                         Operand(trans_b)};
  t.emit_text(fmt::format("wgmma.mma_async.sync.aligned.m64n{}k16.f32{}{}", n, name(ab), name(ab)), ops, where);
}

std::pair<int, int> accumulator_row_col(int n, int thread, int reg) {
  if (thread < 0 || thread >= 128 || reg < 0 || reg >= n / 2)
    throw Error(fmt::format("accumulator_row_col: thread {} / register {} outside m64n{}", thread, reg, n), {});
  const int warp = thread / 32, lane = thread % 32;
  return {16 * warp + lane / 4 + 8 * ((reg / 2) % 2), 8 * (reg / 4) + 2 * (lane % 4) + reg % 2};
}

std::pair<int, int> accumulator_thread_reg(int n, int row, int col) {
  if (row < 0 || row >= 64 || col < 0 || col >= n)
    throw Error(fmt::format("accumulator_thread_reg: ({}, {}) outside 64 x {}", row, col, n), {});
  const int warp = row / 16, r = row % 16, lane = 4 * (r % 8) + (col % 8) / 2;
  return {32 * warp + lane, 4 * (col / 8) + 2 * (r / 8) + col % 2};
}

}  // namespace ptx::hopper
