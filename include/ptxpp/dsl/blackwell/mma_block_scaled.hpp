// Block-scaled tcgen05.mma (.kind::mxf8f6f4, .kind::mxf4, .kind::mxf4nvf4): D (tensor memory,
// f32) = (A * scale_A) * (B * scale_B) (+ D), the scale factors read from tensor memory. One
// instruction per call.
#pragma once

#include "ptxpp/dsl/blackwell/block_scaled_descriptor.hpp"
#include "ptxpp/dsl/blackwell/mma_options.hpp"
#include "ptxpp/dsl/reg.hpp"
#include "ptxpp/dsl/source_location.hpp"

namespace ptx::blackwell {

// A and B from shared memory, the descriptor a trace-time value (checked, then an immediate):
//   tcgen05.mma.cta_group::1.kind::mxf8f6f4.block_scale.scale_vec::1X [d_tmem], a_desc, b_desc,
//       IDESC, [scale_a_tmem], [scale_b_tmem], enable_input_d;
// d_tmem, scale_a_tmem, scale_b_tmem: .b32 registers holding tensor-memory addresses. The
// scale factors of row r of A (column n of B) sit in lane r % 32 of column r / 32 from the
// address, their bytes from the descriptor's scale factor ID on, copied into all four 32-lane
// quarters of tensor memory. A sparse descriptor makes it tcgen05.mma.sp with
// [opt.sparse_metadata] after b_desc.
void mma_block_scaled(const BlockScaledDescriptor& id, const Reg& d_tmem, const Reg& a_desc, const Reg& b_desc,
                      const Reg& scale_a_tmem, const Reg& scale_b_tmem, const Reg& enable_input_d,
                      const BlockScaledOptions& opt = {}, ptx::SourceLocation where = ptx::SourceLocation::current());
// A from tensor memory: ... [d_tmem], [a_tmem], b_desc, IDESC, [scale_a_tmem], [scale_b_tmem], p;
void mma_block_scaled_tmem_a(const BlockScaledDescriptor& id, const Reg& d_tmem, const Reg& a_tmem, const Reg& b_desc,
                             const Reg& scale_a_tmem, const Reg& scale_b_tmem, const Reg& enable_input_d,
                             const BlockScaledOptions& opt = {},
                             ptx::SourceLocation where = ptx::SourceLocation::current());
// With a run-time descriptor (a 32-bit register; .sp when opt.sparse_metadata is set); the
// kind and scale vector size are checked against each other.
void mma_block_scaled(CtaGroup group, ScaledKind kind, ScaleVec vec, const Reg& d_tmem, const Reg& a_desc,
                      const Reg& b_desc, const Reg& idesc, const Reg& scale_a_tmem, const Reg& scale_b_tmem,
                      const Reg& enable_input_d, const BlockScaledOptions& opt = {},
                      ptx::SourceLocation where = ptx::SourceLocation::current());

}  // namespace ptx::blackwell
