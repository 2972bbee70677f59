#include "ptxpp/dsl/blackwell/tmem_alloc.hpp"

#include <fmt/format.h>

#include "emit.hpp"
#include "ptxpp/dsl/error.hpp"
#include "ptxpp/dsl/inst.hpp"

namespace ptx::blackwell {

namespace {

void check_columns(uint32_t ncols, const char* what, ptx::SourceLocation where) {
  if (ncols < 32 || ncols > 512 || (ncols & (ncols - 1)) != 0)
    throw Error(fmt::format("{}: {} columns is not a power of 2 in [32, 512]", what, ncols), where);
}

}  // namespace

uint32_t tmem_address(uint32_t lane, uint32_t column, ptx::SourceLocation where) {
  if (lane > 127 || column > 511)
    throw Error(fmt::format("tensor memory has lanes 0..127 and columns 0..511, not ({}, {})", lane, column), where);
  return lane << 16 | column;
}

void tmem_alloc(const Operand& dst, uint32_t ncols, CtaGroup group, ptx::SourceLocation where) {
  check_columns(ncols, "tcgen05.alloc", where);
  if (dst.kind != OperandKind::Addr)
    throw Error("tcgen05.alloc: the destination is a shared address (a buffer's addr(off) or ptx::addr(reg, off))", where);
  const Operand ops[] = {dst, Operand(ncols)};
  detail::note_cta_group(group, where);
  dsl::RuntimeChain mn(inst::tcgen05.alloc);
  mn.then(cta_group_modifier(group), where).then(".sync.aligned.shared::cta.b32", where);
  detail::emit(mn, ops, nullptr, where);
}

void tmem_dealloc(const Reg& taddr, uint32_t ncols, CtaGroup group, ptx::SourceLocation where) {
  check_columns(ncols, "tcgen05.dealloc", where);
  detail::check_int_reg(taddr, 32, "tcgen05.dealloc: the tensor-memory address", where);
  const Operand ops[] = {taddr, Operand(ncols)};
  detail::note_cta_group(group, where);
  dsl::RuntimeChain mn(inst::tcgen05.dealloc);
  mn.then(cta_group_modifier(group), where).then(".sync.aligned.b32", where);
  detail::emit(mn, ops, nullptr, where);
}

void tmem_relinquish_alloc_permit(CtaGroup group, ptx::SourceLocation where) {
  detail::note_cta_group(group, where);
  dsl::RuntimeChain mn(inst::tcgen05.relinquish_alloc_permit);
  mn.then(cta_group_modifier(group), where).then(".sync.aligned", where);
  detail::emit(mn, {}, nullptr, where);
}

}  // namespace ptx::blackwell
