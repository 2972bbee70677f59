#include "matrix_modifiers.hpp"
#include "vocab_util.hpp"

#include <utility>

#include <fmt/format.h>

namespace ptx::emu {

using spec::Mod;
using spec::Opcode;

std::optional<Ty> matrix_element_type(Mod m) {
  if (m == Mod::f16) return Ty{'h', 16};
  if (m == Mod::bf16) return Ty{'B', 16};
  if (m == Mod::tf32) return Ty{'t', 32};
  if (m == Mod::e4m3) return Ty{'E', 8};
  if (m == Mod::e5m2) return Ty{'M', 8};
  // the 6- and 4-bit types of .kind::f8f6f4, one per 8-bit container (the kinds of cvt's pairs)
  if (m == Mod::e2m1) return Ty{'4', 8};
  if (m == Mod::e2m3) return Ty{'6', 8};
  if (m == Mod::e3m2) return Ty{'7', 8};
  if (m == Mod::f32) return Ty{'f', 32};
  if (m == Mod::f64) return Ty{'f', 64};
  if (m == Mod::s32) return Ty{'s', 32};
  if (m == Mod::s8) return Ty{'s', 8};
  if (m == Mod::u8) return Ty{'u', 8};
  if (m == Mod::s4) return Ty{'s', 4};
  if (m == Mod::u4) return Ty{'u', 4};
  if (m == Mod::b1) return Ty{'b', 1};
  return std::nullopt;
}

std::string matrix_type_name(Ty t) {
  switch (t.k) {
    case 'h': return "f16";
    case 'B': return "bf16";
    case 't': return "tf32";
    case 'E': return "e4m3";
    case 'M': return "e5m2";
    case '4': return "e2m1";
    case '6': return "e2m3";
    case '7': return "e3m2";
    default: return fmt::format("{}{}", t.k, static_cast<unsigned>(t.bits));
  }
}

bool parse_matrix_shape(Mod mo, unsigned& m, unsigned& n, unsigned& k) {
  const auto shape = spec::matrix_shape(mo);
  if (!shape || !shape->k) return false;
  m = shape->m, n = shape->n, k = shape->k;
  return true;
}

}  // namespace ptx::emu
