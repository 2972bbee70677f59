#include "ptxpp/dsl/blackwell/tmem_copy.hpp"

#include <fmt/format.h>

#include "emit.hpp"
#include "ptxpp/dsl/inst.hpp"

namespace ptx::blackwell {

namespace {

std::string_view cp_shape(CpShape s) {
  switch (s) {
    case CpShape::S128x256b: return ".128x256b";
    case CpShape::S4x256b: return ".4x256b";
    case CpShape::S128x128b: return ".128x128b";
    case CpShape::S64x128b_02_13: return ".64x128b.warpx2::02_13";
    case CpShape::S64x128b_01_23: return ".64x128b.warpx2::01_23";
    case CpShape::S32x128b: return ".32x128b.warpx4";
  }
  return ".128x256b";
}

std::string_view cp_source(CpSource s) {
  switch (s) {
    case CpSource::Plain: return "";
    case CpSource::B6x16_P32: return ".b8x16.b6x16_p32";
    case CpSource::B4x16_P64: return ".b8x16.b4x16_p64";
  }
  return "";
}

}  // namespace

void tmem_copy(CtaGroup group, CpShape shape, const Reg& taddr, const Reg& s_desc, CpSource src, ptx::SourceLocation where) {
  detail::check_int_reg(taddr, 32, "tcgen05.cp: the tensor-memory address", where);
  detail::check_int_reg(s_desc, 64, "tcgen05.cp: the shared-memory descriptor", where);
  const Operand ops[] = {ptx::addr(taddr), s_desc};
  detail::note_cta_group(group, where);
  dsl::RuntimeChain mn(inst::tcgen05.cp);
  mn.then(cta_group_modifier(group), where).then(cp_shape(shape), where).then(cp_source(src), where);
  detail::emit(mn, ops, nullptr, where);
}

void tmem_shift_down(CtaGroup group, const Reg& taddr, ptx::SourceLocation where) {
  detail::check_int_reg(taddr, 32, "tcgen05.shift: the tensor-memory address", where);
  const Operand ops[] = {ptx::addr(taddr)};
  detail::note_cta_group(group, where);
  detail::emit(dsl::RuntimeChain(inst::tcgen05.shift).then(cta_group_modifier(group), where).then(".down", where), ops, nullptr, where);
}

}  // namespace ptx::blackwell
