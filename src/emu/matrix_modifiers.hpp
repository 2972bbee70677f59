// The type and shape modifiers shared by the warp and warpgroup matrix instructions (mma.sync,
// wmma, wgmma): each decoder reads them with these, then checks the combination against its own
// forms of the ISA.
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include "program.hpp"
#include "ptxpp/spec/vocab.hpp"

namespace ptx::emu {

// .f16 .bf16 .tf32 .e4m3 .e5m2 .f32 .f64 .s32 .s8 .u8 .s4 .u4 .b1, and the 6- and 4-bit types
// of .kind::f8f6f4 in their 8-bit containers (kinds '4' e2m1, '6' e2m3, '7' e3m2).
std::optional<Ty> matrix_element_type(spec::Mod modifier);
// The type's PTX name without the dot ("bf16", "s4"), for reports.
std::string matrix_type_name(Ty t);
// .mMnNkK (the table's shapes).
bool parse_matrix_shape(spec::Mod modifier, unsigned& m, unsigned& n, unsigned& k);

}  // namespace ptx::emu
