#include "ptxpp/dsl/blackwell/mma_block_scaled.hpp"

#include <fmt/format.h>

#include "emit.hpp"
#include "mma_emit.hpp"
#include "ptxpp/dsl/error.hpp"

namespace ptx::blackwell {

namespace {

void emit_block_scaled(CtaGroup group, ScaledKind kind, ScaleVec vec, const Reg& d_tmem, const Reg& a, bool a_tmem,
                       const Reg& b_desc, const Operand& idesc, const Reg& scale_a_tmem, const Reg& scale_b_tmem,
                       const Reg& enable_input_d, const BlockScaledOptions& opt, ptx::SourceLocation where) {
  const Operand a_op = detail::mma_a_operand(a, a_tmem, where);
  detail::check_mma_tmem(scale_a_tmem, "the scale-A address", where);
  detail::check_mma_tmem(scale_b_tmem, "the scale-B address", where);
  detail::check_pred(enable_input_d, "tcgen05.mma: enable-input-d", where);
  std::string modifiers = fmt::format(".block_scale{}", scale_vec_modifier(vec));
  if (opt.collector_a) modifiers += collector_modifier(*opt.collector_a);
  const Operand tail[] = {ptx::addr(scale_a_tmem), ptx::addr(scale_b_tmem), enable_input_d};
  detail::emit_mma(false, group, kind_name(kind), modifiers, d_tmem, a_op, b_desc, opt.sparse_metadata, idesc, tail,
                   where);
}

void block_scaled_known(const BlockScaledDescriptor& id, const Reg& d_tmem, const Reg& a, bool a_tmem,
                        const Reg& b_desc, const Reg& scale_a_tmem, const Reg& scale_b_tmem, const Reg& enable_input_d,
                        const BlockScaledOptions& opt, ptx::SourceLocation where) {
  const uint32_t bits = id.bits(where);
  if (a_tmem && id.transpose_a) throw Error("tcgen05.mma: A in tensor memory cannot be transposed (MN-major)", where);
  detail::check_sparse_metadata(id.sparse, opt.sparse_metadata, "tcgen05.mma", where);
  emit_block_scaled(id.group, id.kind, id.vec, d_tmem, a, a_tmem, b_desc, Operand(bits), scale_a_tmem, scale_b_tmem,
                    enable_input_d, opt, where);
}

}  // namespace

void mma_block_scaled(const BlockScaledDescriptor& id, const Reg& d_tmem, const Reg& a_desc, const Reg& b_desc,
                      const Reg& scale_a_tmem, const Reg& scale_b_tmem, const Reg& enable_input_d,
                      const BlockScaledOptions& opt, ptx::SourceLocation where) {
  block_scaled_known(id, d_tmem, a_desc, false, b_desc, scale_a_tmem, scale_b_tmem, enable_input_d, opt, where);
}

void mma_block_scaled_tmem_a(const BlockScaledDescriptor& id, const Reg& d_tmem, const Reg& a_tmem, const Reg& b_desc,
                             const Reg& scale_a_tmem, const Reg& scale_b_tmem, const Reg& enable_input_d,
                             const BlockScaledOptions& opt, ptx::SourceLocation where) {
  block_scaled_known(id, d_tmem, a_tmem, true, b_desc, scale_a_tmem, scale_b_tmem, enable_input_d, opt, where);
}

void mma_block_scaled(CtaGroup group, ScaledKind kind, ScaleVec vec, const Reg& d_tmem, const Reg& a_desc,
                      const Reg& b_desc, const Reg& idesc, const Reg& scale_a_tmem, const Reg& scale_b_tmem,
                      const Reg& enable_input_d, const BlockScaledOptions& opt, ptx::SourceLocation where) {
  detail::check_int_reg(idesc, 32, "tcgen05.mma: the instruction descriptor", where);
  BlockScaledDescriptor probe;  // only the kind and vector size: is the pair one of the ISA's
  probe.kind = kind;
  probe.vec = vec;
  (void)scale_factors_per_row(probe, where);
  emit_block_scaled(group, kind, vec, d_tmem, a_desc, false, b_desc, idesc, scale_a_tmem, scale_b_tmem, enable_input_d,
                    opt, where);
}

}  // namespace ptx::blackwell
