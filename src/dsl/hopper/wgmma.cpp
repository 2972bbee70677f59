#include "ptxpp/dsl/hopper/wgmma.hpp"

#include <string>
#include <vector>

#include <fmt/format.h>

#include "../trace.hpp"
#include "ptxpp/dsl/error.hpp"
#include "ptxpp/dsl/inst.hpp"
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
  t.emit(inst::shr.u32, shr, where);
  const Operand and_[] = {b, a, Operand(16383)};
  t.emit(inst::and_.b32, and_, where);
  Reg w(DType::u64, {}, where);
  const Operand cvt[] = {w, b};
  t.emit(inst::cvt.u64.u32, cvt, where);
  const Operand or_[] = {r, w, Operand(high)};
  t.emit(inst::or_.b64, or_, where);
  return r;
}

void wgmma_fence(ptx::SourceLocation where) { Trace::current(where).emit(inst::wgmma.fence.sync.aligned, {}, where); }
void wgmma_commit(ptx::SourceLocation where) {
  Trace::current(where).emit(inst::wgmma.commit_group.sync.aligned, {}, where);
}
void wgmma_wait(int n, ptx::SourceLocation where) {
  if (n < 0 || n > 7) throw Error(fmt::format("wgmma.wait_group {}: the count is 0 to 7", n), where);
  const Operand ops[] = {Operand(n)};
  Trace::current(where).emit(inst::wgmma.wait_group.sync.aligned, ops, where);
}

namespace {

bool is_64bit_integer(const Reg& r) { return bits(r.type()) == 64 && r.type() != DType::f64; }

// The kind, N, the accumulators and the immediates of one wgmma.mma_async; its mnemonic.
dsl::RuntimeChain checked_mnemonic(int n, WgmmaKind kind, const WgmmaKindInfo& info, const RegArray& acc, int first,
                             const WgmmaImmediates& imm, bool a_regs, ptx::SourceLocation where) {
  // ".satfinite.s32.s8.u8", ".s32.b1.b1.and.popc": what follows the shape in the mnemonic
  const std::string types = fmt::format("{}{}{}{}{}", kind.satfinite ? ".satfinite" : "", name(kind.d), name(kind.a), name(kind.b),
                                        info.and_popc ? ".and.popc" : "");
  const std::string what = "wgmma.mma_async" + types;
  if (info.problem != nullptr) throw Error(fmt::format("{} is not a kind of the ISA: {}", what, info.problem), where);
  if (n < 8 || n > 256 || n % 8 != 0) throw Error(fmt::format("wgmma m64nNk{}: N = {} is not a multiple of 8 in 8..256", info.k, n), where);
  if (info.integer && n > 32 && n % 16 != 0)
    throw Error(fmt::format("{}: N = {} is not 8, 16, 24 or a multiple of 16 (s8/u8/b1 shapes)", what, n), where);
  const int count = n / info.acc_per_n;
  if (first < 0 || static_cast<size_t>(first) + static_cast<size_t>(count) > acc.size())
    throw Error(fmt::format("mma_async: m64n{} needs {} accumulators from {}; the array has {} ({} D)", n, count, first, acc.size(), name(kind.d)),
                where);
  for (size_t i = static_cast<size_t>(first); i < static_cast<size_t>(first + count); ++i) {
    const DType t = acc[i].type();
    const bool ok = kind.d == DType::f32 ? t == DType::f32 : bits(t) == 32 && t != DType::f32 && (kind.d == DType::f16 || is_integer(t));
    if (!ok)
      throw Error(fmt::format("mma_async: {} accumulators are {}, not {}", name(kind.d),
                              kind.d == DType::f32   ? "f32 registers"
                              : kind.d == DType::f16 ? "32-bit non-f32 registers of two f16 (.b32, .f16x2)"
                                                     : "32-bit integer registers",
                              name(t)),
                  where);
  }
  if (!info.scale && (imm.scale_a != 1 || imm.scale_b != 1))
    throw Error(fmt::format("{}: integer wgmma has no imm-scale-a / imm-scale-b", what), where);
  if ((imm.scale_a != 1 && imm.scale_a != -1) || (imm.scale_b != 1 && imm.scale_b != -1))
    throw Error("mma_async: imm-scale-a and imm-scale-b are 1 or -1", where);
  if (a_regs && imm.trans_a != 0) throw Error("mma_async: A from registers has no imm-trans-a", where);
  if (!info.trans && (imm.trans_a != 0 || imm.trans_b != 0))
    throw Error(fmt::format("{}: only f16/bf16 operands transpose (imm-trans-a/b); {} A and B are K-major", what, name(kind.a)), where);
  if ((imm.trans_a != 0 && imm.trans_a != 1) || (imm.trans_b != 0 && imm.trans_b != 1))
    throw Error(a_regs ? "mma_async: imm-trans-b is 0 (K-major) or 1 (MN-major)"
                       : "mma_async: imm-trans-a and imm-trans-b are 0 (K-major) or 1 (MN-major)",
                where);
  dsl::RuntimeChain mn(inst::wgmma.mma_async.sync.aligned);
  mn.then(fmt::format(".m64n{}k{}{}", n, info.k, types), where);
  return mn;
}

void check_descriptor_and_scale(Trace& t, const Reg& desc_b, const Reg& scale_d, ptx::SourceLocation where) {
  t.check_reg(desc_b, where);
  if (!is_64bit_integer(desc_b)) throw Error("mma_async: descriptors are 64-bit integer registers", where);
  t.check_reg(scale_d, where);
  if (scale_d.type() != DType::pred) throw Error("mma_async: scale-d is a predicate", where);
}

// The operands after scale-d, as the kind takes them.
void append_immediates(std::vector<Operand>& ops, const WgmmaKindInfo& info, const WgmmaImmediates& imm, bool a_regs) {
  if (info.scale) ops.insert(ops.end(), {Operand(imm.scale_a), Operand(imm.scale_b)});
  if (info.trans) {
    if (!a_regs) ops.emplace_back(imm.trans_a);
    ops.emplace_back(imm.trans_b);
  }
}

void check_16bit_ab(DType ab, ptx::SourceLocation where) {
  if (ab != DType::bf16 && ab != DType::f16) throw Error(fmt::format("mma_async: A and B are bf16 or f16 here, not {}", name(ab)), where);
}

}  // namespace

void mma_async(int n, WgmmaKind kind, const RegArray& acc, int first, const Reg& desc_a, const Reg& desc_b, const Reg& scale_d,
               WgmmaImmediates imm, ptx::SourceLocation where) {
  Trace& t = Trace::current(where);
  const WgmmaKindInfo info = wgmma_kind_info(kind);
  const dsl::RuntimeChain mnemonic = checked_mnemonic(n, kind, info, acc, first, imm, false, where);
  t.check_reg(desc_a, where);
  if (!is_64bit_integer(desc_a)) throw Error("mma_async: descriptors are 64-bit integer registers", where);
  check_descriptor_and_scale(t, desc_b, scale_d, where);
  std::vector<Operand> ops = {ptx::vec(acc.range(static_cast<size_t>(first), static_cast<size_t>(n / info.acc_per_n))), desc_a, desc_b,
                              scale_d};
  append_immediates(ops, info, imm, false);
  t.emit(mnemonic, ops, where);
}

void mma_async(int n, WgmmaKind kind, const RegArray& acc, int first, const RegArray& a, int first_a, const Reg& desc_b,
               const Reg& scale_d, WgmmaImmediates imm, ptx::SourceLocation where) {
  Trace& t = Trace::current(where);
  const WgmmaKindInfo info = wgmma_kind_info(kind);
  const dsl::RuntimeChain mnemonic = checked_mnemonic(n, kind, info, acc, first, imm, true, where);
  if (first_a < 0 || static_cast<size_t>(first_a) + 4 > a.size())
    throw Error(fmt::format("mma_async: A from registers needs 4 registers from {}; the array has {}", first_a, a.size()), where);
  for (size_t i = static_cast<size_t>(first_a); i < static_cast<size_t>(first_a + 4); ++i) {
    t.check_reg(a[i], where);
    if (bits(a[i].type()) != 32 || a[i].type() == DType::f32)
      throw Error(fmt::format("mma_async: the A registers are 32-bit integer registers (.b32: {} {} elements each)", 32 / bits(kind.a),
                              name(kind.a)),
                  where);
  }
  check_descriptor_and_scale(t, desc_b, scale_d, where);
  std::vector<Operand> ops = {ptx::vec(acc.range(static_cast<size_t>(first), static_cast<size_t>(n / info.acc_per_n))),
                              ptx::vec(a.range(static_cast<size_t>(first_a), 4)), desc_b, scale_d};
  append_immediates(ops, info, imm, true);
  t.emit(mnemonic, ops, where);
}

void mma_async(int n, DType ab, const RegArray& acc, int first, const Reg& desc_a, const Reg& desc_b, const Reg& scale_d,
               int trans_a, int trans_b, ptx::SourceLocation where) {
  check_16bit_ab(ab, where);
  mma_async(n, WgmmaKind{ab, ab, DType::f32}, acc, first, desc_a, desc_b, scale_d, {1, 1, trans_a, trans_b}, where);
}

void mma_async(int n, DType ab, const RegArray& acc, int first, const RegArray& a, int first_a, const Reg& desc_b,
               const Reg& scale_d, int trans_b, ptx::SourceLocation where) {
  check_16bit_ab(ab, where);
  mma_async(n, WgmmaKind{ab, ab, DType::f32}, acc, first, a, first_a, desc_b, scale_d, {1, 1, 0, trans_b}, where);
}

namespace {

// Element i of a thread's N/2 accumulator elements: (row, col) of the 64 x N tile.
std::pair<int, int> accumulator_element(int thread, int i) {
  const int warp = thread / 32, lane = thread % 32;
  return {16 * warp + lane / 4 + 8 * ((i / 2) % 2), 8 * (i / 4) + 2 * (lane % 4) + i % 2};
}

int a_bits(DType a, const char* what) {
  if (a != DType::f16 && a != DType::bf16 && a != DType::tf32 && !wgmma_is_8bit_float(a) && !wgmma_is_8bit_int(a) && a != DType::b1)
    throw Error(fmt::format("{}: A is f16, bf16, tf32, e4m3, e5m2, s8, u8 or b1, not {}", what, name(a)), {});
  return bits(a);
}

}  // namespace

std::pair<int, int> accumulator_row_col(int n, int thread, int reg) { return accumulator_row_col(n, DType::f32, thread, reg, 0); }

std::pair<int, int> accumulator_thread_reg(int n, int row, int col) {
  const FragmentSlot s = accumulator_slot(n, DType::f32, row, col);
  return {s.thread, s.reg};
}

std::pair<int, int> accumulator_row_col(int n, DType d, int thread, int reg, int half) {
  const int per_reg = d == DType::f16 ? 2 : 1;
  if (thread < 0 || thread >= 128 || reg < 0 || reg >= n / 2 / per_reg || half < 0 || half >= per_reg)
    throw Error(fmt::format("accumulator_row_col: thread {} / register {} / half {} outside m64n{} {}", thread, reg, half, n, name(d)), {});
  return accumulator_element(thread, per_reg * reg + half);
}

FragmentSlot accumulator_slot(int n, DType d, int row, int col) {
  if (row < 0 || row >= 64 || col < 0 || col >= n)
    throw Error(fmt::format("accumulator_slot: ({}, {}) outside 64 x {}", row, col, n), {});
  const int warp = row / 16, r = row % 16, lane = 4 * (r % 8) + (col % 8) / 2;
  const int i = 4 * (col / 8) + 2 * (r / 8) + col % 2;
  const int per_reg = d == DType::f16 ? 2 : 1;
  return {32 * warp + lane, i / per_reg, i % per_reg};
}

std::pair<int, int> a_fragment_row_col(DType a, int thread, int reg, int element) {
  const int b = a_bits(a, "a_fragment_row_col");
  if (thread < 0 || thread >= 128 || reg < 0 || reg >= 4 || element < 0 || element >= 32 / b)
    throw Error(fmt::format("a_fragment_row_col: thread {} / register {} / element {} outside the {} A fragment", thread, reg, element, name(a)),
                {});
  const int warp = thread / 32, lane = thread % 32;
  return {16 * warp + lane / 4 + 8 * (reg % 2), (16 * (reg / 2) + 4 * (lane % 4)) * 8 / b + element};
}

FragmentSlot a_fragment_slot(DType a, int row, int col) {
  const int b = a_bits(a, "a_fragment_slot");
  const int k = 256 / b;
  if (row < 0 || row >= 64 || col < 0 || col >= k) throw Error(fmt::format("a_fragment_slot: ({}, {}) outside 64 x {}", row, col, k), {});
  const int byte = col * b / 8, per_reg = 32 / b;  // the column's byte in the 32-byte row
  const int lane = 4 * (row % 8) + (byte % 16) / 4;
  return {32 * (row / 16) + lane, 2 * (byte / 16) + (row % 16) / 8, col % per_reg};
}

}  // namespace ptx::hopper
