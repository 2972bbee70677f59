// tcgen05.mma: D (tensor memory) = A * B (+ D), issued by one thread for the whole CTA (or
// CTA pair), completing asynchronously (tcgen05.commit tracks it).
#pragma once

#include "ptxpp/dsl/blackwell/instr_descriptor.hpp"
#include "ptxpp/dsl/reg.hpp"
#include "ptxpp/dsl/source_location.hpp"

namespace ptx::blackwell {

// A and B from shared memory, the descriptor a trace-time value (checked, then an immediate):
//   tcgen05.mma.cta_group::1.kind::f16 [d_tmem], a_desc, b_desc, IDESC, enable_input_d;
// d_tmem: a .b32 register holding a tensor-memory address (ptxas wants .b32 here);
// a_desc, b_desc: 64-bit shared-memory descriptors (make_smem_descriptor);
// enable_input_d: a predicate (false: D = A*B, true: D += A*B).
void mma(const InstrDescriptor& id, const Reg& d_tmem, const Reg& a_desc, const Reg& b_desc, const Reg& enable_input_d,
         ptx::SourceLocation where = ptx::SourceLocation::current());
// The same with a run-time descriptor (a 32-bit register):
//   tcgen05.mma.cta_group::N.kind::K [d_tmem], a_desc, b_desc, idesc, enable_input_d;
void mma(CtaGroup group, MmaKind kind, const Reg& d_tmem, const Reg& a_desc, const Reg& b_desc, const Reg& idesc,
         const Reg& enable_input_d, ptx::SourceLocation where = ptx::SourceLocation::current());
// A from tensor memory (a .b32 register holding its address):
//   tcgen05.mma.cta_group::1.kind::f16 [d_tmem], [a_tmem], b_desc, IDESC, enable_input_d;
void mma_tmem_a(const InstrDescriptor& id, const Reg& d_tmem, const Reg& a_tmem, const Reg& b_desc, const Reg& enable_input_d,
                ptx::SourceLocation where = ptx::SourceLocation::current());

}  // namespace ptx::blackwell
