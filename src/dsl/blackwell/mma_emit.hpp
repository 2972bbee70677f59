// Shared by the tcgen05.mma helpers (mma.cpp, mma_block_scaled.cpp): the register checks of
// their operands and the emission of one tcgen05.mma of any form.
#pragma once

#include <span>
#include <string>
#include <string_view>

#include "ptxpp/dsl/blackwell/cta_group.hpp"
#include "ptxpp/dsl/operand.hpp"
#include "ptxpp/dsl/reg.hpp"
#include "ptxpp/dsl/source_location.hpp"

namespace ptx::blackwell::detail {

// An error unless r is a .b32 register of this trace (ptxas takes only .b32 for the
// tensor-memory addresses of tcgen05.mma); `what` names the operand.
void check_mma_tmem(const Reg& r, std::string_view what, ptx::SourceLocation where);

// The A operand: a 64-bit descriptor register or [a_tmem] (checked).
Operand mma_a_operand(const Reg& a, bool a_tmem, ptx::SourceLocation where);

// An error unless the metadata address is given exactly when the descriptor is sparse; `inst`
// is "tcgen05.mma" or "tcgen05.mma.ws".
void check_sparse_metadata(bool sparse, const Reg* meta, std::string_view inst, ptx::SourceLocation where);

// One tcgen05.mma of any form:
//   tcgen05.mma{.ws}{.sp}.cta_group::N.KIND{modifiers} [d_tmem], a, b_desc, {[meta],} idesc, tail...;
// `kind` is "kind::f16", ...; `modifiers` what follows it (".ashift.collector::a::fill", ...);
// meta is the sparse metadata's tensor-memory address (null: dense). Checks D, B, meta and
// the kernel's CTA group.
void emit_mma(bool ws, CtaGroup group, std::string_view kind, const std::string& modifiers, const Reg& d_tmem,
              const Operand& a, const Reg& b_desc, const Reg* meta, const Operand& idesc, std::span<const Operand> tail,
              ptx::SourceLocation where);

}  // namespace ptx::blackwell::detail
