// The emulator's value types (Ty) that the vocabulary's type modifiers name.
#pragma once

#include <optional>
#include <span>
#include <string_view>

#include "program.hpp"
#include "ptxpp/spec/vocab.hpp"

namespace ptx::emu {

// A register or instruction type (.u32, .f16x2, .e4m3x2, .pred, ...); nullopt for other modifiers.
std::optional<Ty> data_type(spec::Mod m);
// A declaration's type as written (`.reg .u32 %r;`): the same types, from their spelling.
std::optional<Ty> parse_type(std::string_view text);
// cvt.pack's convert types: .u2, .s2, .u4, .s4, .u8, .s8, .u16, .s16.
std::optional<Ty> pack_type(spec::Mod m);
// The first of `mods` that is one of cvt.pack's convert types (.u8 where none is).
Ty cvt_pack_type(std::span<const spec::Mod> mods);

}  // namespace ptx::emu
