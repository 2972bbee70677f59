// tcgen05.mma: D (tensor memory) = A * B (+ D), issued by one thread for the whole CTA (or
// CTA pair), completing asynchronously (tcgen05.commit tracks it). Kinds f16, tf32, f8f6f4 and
// i8, dense or sparse (.sp), and the weight-stationary form (.ws); the block-scaled kinds are in
// mma_block_scaled.hpp. Each call emits exactly one instruction.
#pragma once

#include "ptxpp/dsl/blackwell/instr_descriptor.hpp"
#include "ptxpp/dsl/blackwell/mma_options.hpp"
#include "ptxpp/dsl/reg.hpp"
#include "ptxpp/dsl/source_location.hpp"

namespace ptx::blackwell {

// A and B from shared memory, the descriptor a trace-time value (checked, then an immediate):
//   tcgen05.mma.cta_group::1.kind::f16 [d_tmem], a_desc, b_desc, IDESC, enable_input_d;
// d_tmem: a .b32 register holding a tensor-memory address (ptxas wants .b32 here);
// a_desc, b_desc: 64-bit shared-memory descriptors (make_smem_descriptor);
// enable_input_d: a predicate (false: D = A*B, true: D += A*B).
// With options (mma_options.hpp) and a sparse descriptor, e.g.
//   tcgen05.mma.sp.cta_group::1.kind::f16.collector::a::fill [d_tmem], a_desc, b_desc, [meta],
//       IDESC, {m0, m1, m2, m3}, enable_input_d, 3;
// A descriptor with ws set is an error here (mma_ws).
void mma(const InstrDescriptor& id, const Reg& d_tmem, const Reg& a_desc, const Reg& b_desc, const Reg& enable_input_d,
         const MmaOptions& opt = {}, ptx::SourceLocation where = ptx::SourceLocation::current());
// The same with a run-time descriptor (a 32-bit register); .sp when opt.sparse_metadata is set:
//   tcgen05.mma.cta_group::N.kind::K [d_tmem], a_desc, b_desc, idesc, enable_input_d;
void mma(CtaGroup group, MmaKind kind, const Reg& d_tmem, const Reg& a_desc, const Reg& b_desc, const Reg& idesc,
         const Reg& enable_input_d, const MmaOptions& opt = {},
         ptx::SourceLocation where = ptx::SourceLocation::current());
// A from tensor memory (a .b32 register holding its address):
//   tcgen05.mma.cta_group::1.kind::f16 [d_tmem], [a_tmem], b_desc, IDESC, enable_input_d;
void mma_tmem_a(const InstrDescriptor& id, const Reg& d_tmem, const Reg& a_tmem, const Reg& b_desc,
                const Reg& enable_input_d, const MmaOptions& opt = {},
                ptx::SourceLocation where = ptx::SourceLocation::current());

// Weight stationary (cta_group::1 only; the descriptor is checked with ws set, so the .ws
// shapes apply and a maximum B shift may be given):
//   tcgen05.mma.ws.cta_group::1.kind::f16{.collector::bN::OP} [d_tmem], a_desc, b_desc, IDESC,
//       enable_input_d{, zero_column_mask};
// and tcgen05.mma.ws.sp ... [d_tmem], a_desc, b_desc, [meta], IDESC, ... for a sparse descriptor.
void mma_ws(const InstrDescriptor& id, const Reg& d_tmem, const Reg& a_desc, const Reg& b_desc,
            const Reg& enable_input_d, const MmaWsOptions& opt = {},
            ptx::SourceLocation where = ptx::SourceLocation::current());
void mma_ws_tmem_a(const InstrDescriptor& id, const Reg& d_tmem, const Reg& a_tmem, const Reg& b_desc,
                   const Reg& enable_input_d, const MmaWsOptions& opt = {},
                   ptx::SourceLocation where = ptx::SourceLocation::current());
// With a run-time descriptor (.sp when opt.sparse_metadata is set).
void mma_ws(MmaKind kind, const Reg& d_tmem, const Reg& a_desc, const Reg& b_desc, const Reg& idesc,
            const Reg& enable_input_d, const MmaWsOptions& opt = {},
            ptx::SourceLocation where = ptx::SourceLocation::current());

}  // namespace ptx::blackwell
