#include "value_types.hpp"

namespace ptx::emu {

using spec::Mod;

namespace {

// The formats with kinds of their own: h (f16), B (bf16), E (e4m3), M (e5m2), t (tf32); in
// cvt's packed pairs, e2m1x2 (two nibbles of a byte), e2m3x2/e3m2x2 (two bytes, each value in
// bits 0-5), ue8m0x2 (two bytes); F two .f32 in a .b64 register (sm_100 add/sub/mul/fma);
// S/U two 16-bit integers (sm_90 add/sub/min/max).
std::optional<Ty> narrow_type(Mod m) {
  switch (m) {
    case Mod::pred: return Ty{'p', 1};
    case Mod::f16: return Ty{'h', 16};
    case Mod::f16x2: return Ty{'h', 32};
    case Mod::bf16: return Ty{'B', 16};
    case Mod::bf16x2: return Ty{'B', 32};
    case Mod::f32x2: return Ty{'F', 64};
    case Mod::e4m3: return Ty{'E', 8};
    case Mod::e4m3x2: return Ty{'E', 16};
    case Mod::e5m2: return Ty{'M', 8};
    case Mod::e5m2x2: return Ty{'M', 16};
    case Mod::tf32: return Ty{'t', 32};
    case Mod::e2m1x2: return Ty{'4', 8};
    case Mod::e2m3x2: return Ty{'6', 16};
    case Mod::e3m2x2: return Ty{'7', 16};
    case Mod::ue8m0x2: return Ty{'8', 16};
    case Mod::s16x2: return Ty{'S', 32};
    case Mod::u16x2: return Ty{'U', 32};
    default: return std::nullopt;
  }
}

}  // namespace

std::optional<Ty> data_type(Mod m) {
  switch (m) {
    case Mod::u8: return Ty{'u', 8};
    case Mod::u16: return Ty{'u', 16};
    case Mod::u32: return Ty{'u', 32};
    case Mod::u64: return Ty{'u', 64};
    case Mod::s8: return Ty{'s', 8};
    case Mod::s16: return Ty{'s', 16};
    case Mod::s32: return Ty{'s', 32};
    case Mod::s64: return Ty{'s', 64};
    case Mod::f32: return Ty{'f', 32};
    case Mod::f64: return Ty{'f', 64};
    case Mod::b8: return Ty{'b', 8};
    case Mod::b16: return Ty{'b', 16};
    case Mod::b32: return Ty{'b', 32};
    case Mod::b64: return Ty{'b', 64};
    case Mod::b128: return Ty{'b', 128};
    default: return narrow_type(m);
  }
}

std::optional<Ty> parse_type(std::string_view text) {
  const auto m = spec::mod_of(text);
  return m ? data_type(*m) : std::nullopt;
}

std::optional<Ty> pack_type(Mod m) {
  switch (m) {
    case Mod::u2: return Ty{'u', 2};
    case Mod::s2: return Ty{'s', 2};
    case Mod::u4: return Ty{'u', 4};
    case Mod::s4: return Ty{'s', 4};
    case Mod::u8: return Ty{'u', 8};
    case Mod::s8: return Ty{'s', 8};
    case Mod::u16: return Ty{'u', 16};
    case Mod::s16: return Ty{'s', 16};
    default: return std::nullopt;
  }
}

Ty cvt_pack_type(std::span<const Mod> mods) {
  for (Mod m : mods)
    if (auto t = pack_type(m)) return *t;
  return Ty{'u', 8};  // (the validator refuses a cvt.pack without one)
}

}  // namespace ptx::emu
