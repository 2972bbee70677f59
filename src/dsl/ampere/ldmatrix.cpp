#include "ptxpp/dsl/ampere/ldmatrix.hpp"

#include <fmt/format.h>

#include "../trace.hpp"
#include "ptxpp/dsl/error.hpp"
#include "ptxpp/dsl/inst.hpp"

namespace ptx::ampere {

using dsl::Trace;

namespace {

void check_count(size_t n, const char* what, ptx::SourceLocation where) {
  if (n != 1 && n != 2 && n != 4) throw Error(fmt::format("{} moves 1, 2 or 4 matrices, not {}", what, n), where);
}

void check_addr(Trace& t, const Reg& a, const char* what, ptx::SourceLocation where) {
  t.check_reg(a, where);
  if (a.type() != DType::u32 && a.type() != DType::b32 && a.type() != DType::s32)
    throw Error(fmt::format("{} takes a 32-bit shared-window address, not a {} register", what, name(a.type())), where);
}

// <op>.sync.aligned.m8n8.x<n>[.trans].shared.b16, from the chain up to .m8n8
dsl::RuntimeChain m8n8(dsl::RuntimeChain op, size_t n, bool trans, ptx::SourceLocation where) {
  return op.then(fmt::format(".x{}", n), where).then_if(trans, ".trans", where).then(".shared.b16", where);
}

// ".b8", ".b8x16.b6x16_p32" or ".b8x16.b4x16_p64".
const char* source_suffix(LdmatrixSource src) {
  switch (src) {
    case LdmatrixSource::B6x16_P32: return ".b8x16.b6x16_p32";
    case LdmatrixSource::B4x16_P64: return ".b8x16.b4x16_p64";
    default: return ".b8";
  }
}

std::vector<Reg> fresh_b32(int count, ptx::SourceLocation where) {
  Trace& t = Trace::current(where);
  std::vector<Reg> regs;
  for (int i = 0; i < count; ++i) regs.push_back(t.new_reg(DType::b32, {}, where));
  return regs;
}

std::vector<Operand> operands_of(const std::vector<Reg>& regs) { return {regs.begin(), regs.end()}; }

}  // namespace

void ldmatrix(const std::vector<Operand>& dst, const Reg& shared_addr, int64_t offset, bool trans, ptx::SourceLocation where) {
  Trace& t = Trace::current(where);
  check_count(dst.size(), "ldmatrix", where);
  check_addr(t, shared_addr, "ldmatrix", where);
  const Operand ops[] = {ptx::vec(dst), ptx::addr(shared_addr, offset)};
  t.emit(m8n8(dsl::RuntimeChain(inst::ldmatrix.sync.aligned.m8n8), dst.size(), trans, where), ops, where);
}

void ldmatrix(const Fragment& dst, const Reg& shared_addr, int64_t offset, bool trans, ptx::SourceLocation where) {
  ldmatrix(dst.operands(), shared_addr, offset, trans, where);
}

std::vector<Reg> ldmatrix(int count, const Reg& shared_addr, int64_t offset, bool trans, ptx::SourceLocation where) {
  Trace& t = Trace::current(where);
  check_count(static_cast<size_t>(count < 0 ? 0 : count), "ldmatrix", where);
  std::vector<Reg> regs;
  std::vector<Operand> ops;
  for (int i = 0; i < count; ++i) {
    regs.push_back(t.new_reg(DType::b32, {}, where));
    ops.emplace_back(regs.back());
  }
  ldmatrix(ops, shared_addr, offset, trans, where);
  return regs;
}

void stmatrix(const Reg& shared_addr, const std::vector<Operand>& src, int64_t offset, bool trans, ptx::SourceLocation where) {
  Trace& t = Trace::current(where);
  check_count(src.size(), "stmatrix", where);
  check_addr(t, shared_addr, "stmatrix", where);
  const Operand ops[] = {ptx::addr(shared_addr, offset), ptx::vec(src)};
  t.emit(m8n8(dsl::RuntimeChain(inst::stmatrix.sync.aligned.m8n8), src.size(), trans, where), ops, where);
}

void ldmatrix_m16n16(const std::vector<Operand>& dst, const Reg& shared_addr, int64_t offset, LdmatrixSource src, ptx::SourceLocation where) {
  Trace& t = Trace::current(where);
  if (dst.size() != 2 && dst.size() != 4)
    throw Error(fmt::format("ldmatrix .m16n16 fills two registers per matrix, 2 or 4 (one or two matrices), not {}", dst.size()), where);
  check_addr(t, shared_addr, "ldmatrix", where);
  const Operand ops[] = {ptx::vec(dst), ptx::addr(shared_addr, offset)};
  dsl::RuntimeChain mn(inst::ldmatrix.sync.aligned.m16n16);
  mn.then(fmt::format(".x{}", dst.size() / 2), where).then(".trans.shared", where).then(source_suffix(src), where);
  t.emit(mn, ops, where);
}

std::vector<Reg> ldmatrix_m16n16(int matrices, const Reg& shared_addr, int64_t offset, LdmatrixSource src, ptx::SourceLocation where) {
  if (matrices != 1 && matrices != 2) throw Error(fmt::format("ldmatrix .m16n16 moves 1 or 2 matrices, not {}", matrices), where);
  std::vector<Reg> regs = fresh_b32(2 * matrices, where);
  ldmatrix_m16n16(operands_of(regs), shared_addr, offset, src, where);
  return regs;
}

void ldmatrix_m8n16(const std::vector<Operand>& dst, const Reg& shared_addr, LdmatrixSource src, int64_t offset, ptx::SourceLocation where) {
  Trace& t = Trace::current(where);
  if (src == LdmatrixSource::B8)
    throw Error("ldmatrix .m8n16 loads packed rows only: LdmatrixSource::B6x16_P32 or B4x16_P64, not B8", where);
  check_count(dst.size(), "ldmatrix .m8n16", where);
  check_addr(t, shared_addr, "ldmatrix", where);
  const Operand ops[] = {ptx::vec(dst), ptx::addr(shared_addr, offset)};
  dsl::RuntimeChain mn(inst::ldmatrix.sync.aligned.m8n16);
  mn.then(fmt::format(".x{}", dst.size()), where).then(".shared", where).then(source_suffix(src), where);
  t.emit(mn, ops, where);
}

std::vector<Reg> ldmatrix_m8n16(int matrices, const Reg& shared_addr, LdmatrixSource src, int64_t offset, ptx::SourceLocation where) {
  check_count(static_cast<size_t>(matrices < 0 ? 0 : matrices), "ldmatrix .m8n16", where);
  std::vector<Reg> regs = fresh_b32(matrices, where);
  ldmatrix_m8n16(operands_of(regs), shared_addr, src, offset, where);
  return regs;
}

void stmatrix_m16n8(const Reg& shared_addr, const std::vector<Operand>& src, int64_t offset, ptx::SourceLocation where) {
  Trace& t = Trace::current(where);
  check_count(src.size(), "stmatrix .m16n8", where);
  check_addr(t, shared_addr, "stmatrix", where);
  const Operand ops[] = {ptx::addr(shared_addr, offset), ptx::vec(src)};
  dsl::RuntimeChain mn(inst::stmatrix.sync.aligned.m16n8);
  mn.then(fmt::format(".x{}", src.size()), where).then(".trans.shared.b8", where);
  t.emit(mn, ops, where);
}

}  // namespace ptx::ampere
