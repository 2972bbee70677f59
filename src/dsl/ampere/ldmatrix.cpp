#include "ptxpp/dsl/ampere/ldmatrix.hpp"

#include <fmt/format.h>

#include "../trace.hpp"
#include "ptxpp/dsl/error.hpp"

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

std::string mnemonic(const char* op, size_t n, bool trans) {
  return fmt::format("{}.sync.aligned.m8n8.x{}{}.shared.b16", op, n, trans ? ".trans" : "");
}

}  // namespace

void ldmatrix(const std::vector<Operand>& dst, const Reg& shared_addr, int64_t offset, bool trans, ptx::SourceLocation where) {
  Trace& t = Trace::current(where);
  check_count(dst.size(), "ldmatrix", where);
  check_addr(t, shared_addr, "ldmatrix", where);
  const Operand ops[] = {ptx::vec(dst), ptx::addr(shared_addr, offset)};
  t.emit_text(mnemonic("ldmatrix", dst.size(), trans), ops, where);
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
  t.emit_text(mnemonic("stmatrix", src.size(), trans), ops, where);
}

}  // namespace ptx::ampere
