#include "ptxpp/dsl/blackwell/mma.hpp"

#include <fmt/format.h>

#include "../trace.hpp"
#include "emit.hpp"
#include "ptxpp/dsl/error.hpp"

namespace ptx::blackwell {

namespace {

void check_tmem_b32(const Reg& r, const char* what, ptx::SourceLocation where) {
  dsl::Trace::current(where).check_reg(r, where);
  // ptxas takes only registers declared .b32 for the tensor-memory operands of tcgen05.mma
  if (r.type() != DType::b32)
    throw Error(fmt::format("tcgen05.mma: {} is a .b32 register (ptxas refuses {} here)", what, name(r.type())), where);
}

void emit_mma(CtaGroup group, MmaKind kind, const Reg& d_tmem, const Operand& a, const Reg& b_desc, const Operand& idesc,
              const Reg& enable_input_d, ptx::SourceLocation where) {
  check_tmem_b32(d_tmem, "the D address", where);
  detail::check_int_reg(b_desc, 64, "tcgen05.mma: the B descriptor", where);
  detail::check_pred(enable_input_d, "tcgen05.mma: enable-input-d", where);
  const Operand ops[] = {ptx::addr(d_tmem), a, b_desc, idesc, enable_input_d};
  detail::note_cta_group(group, where);
  detail::emit(fmt::format("tcgen05.mma{}.{}", cta_group_modifier(group), kind_name(kind)), ops, nullptr, where);
}

}  // namespace

void mma(const InstrDescriptor& id, const Reg& d_tmem, const Reg& a_desc, const Reg& b_desc, const Reg& enable_input_d,
         ptx::SourceLocation where) {
  const uint32_t bits = id.bits(where);
  detail::check_int_reg(a_desc, 64, "tcgen05.mma: the A descriptor", where);
  emit_mma(id.group, id.kind, d_tmem, a_desc, b_desc, Operand(bits), enable_input_d, where);
}

void mma(CtaGroup group, MmaKind kind, const Reg& d_tmem, const Reg& a_desc, const Reg& b_desc, const Reg& idesc,
         const Reg& enable_input_d, ptx::SourceLocation where) {
  detail::check_int_reg(a_desc, 64, "tcgen05.mma: the A descriptor", where);
  detail::check_int_reg(idesc, 32, "tcgen05.mma: the instruction descriptor", where);
  emit_mma(group, kind, d_tmem, a_desc, b_desc, idesc, enable_input_d, where);
}

void mma_tmem_a(const InstrDescriptor& id, const Reg& d_tmem, const Reg& a_tmem, const Reg& b_desc, const Reg& enable_input_d,
                ptx::SourceLocation where) {
  const uint32_t bits = id.bits(where);
  if (id.transpose_a) throw Error("tcgen05.mma: A in tensor memory cannot be transposed (MN-major)", where);
  check_tmem_b32(a_tmem, "the A address", where);
  emit_mma(id.group, id.kind, d_tmem, ptx::addr(a_tmem), b_desc, Operand(bits), enable_input_d, where);
}

}  // namespace ptx::blackwell
