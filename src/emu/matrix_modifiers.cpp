#include "matrix_modifiers.hpp"

#include <charconv>
#include <utility>

#include <fmt/format.h>

namespace ptx::emu {

std::optional<Ty> matrix_element_type(std::string_view m) {
  if (m == ".f16") return Ty{'h', 16};
  if (m == ".bf16") return Ty{'B', 16};
  if (m == ".tf32") return Ty{'t', 32};
  if (m == ".e4m3") return Ty{'E', 8};
  if (m == ".e5m2") return Ty{'M', 8};
  // the 6- and 4-bit types of .kind::f8f6f4, one per 8-bit container (the kinds of cvt's pairs)
  if (m == ".e2m1") return Ty{'4', 8};
  if (m == ".e2m3") return Ty{'6', 8};
  if (m == ".e3m2") return Ty{'7', 8};
  if (m == ".f32") return Ty{'f', 32};
  if (m == ".f64") return Ty{'f', 64};
  if (m == ".s32") return Ty{'s', 32};
  if (m == ".s8") return Ty{'s', 8};
  if (m == ".u8") return Ty{'u', 8};
  if (m == ".s4") return Ty{'s', 4};
  if (m == ".u4") return Ty{'u', 4};
  if (m == ".b1") return Ty{'b', 1};
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

bool parse_matrix_shape(std::string_view mo, unsigned& m, unsigned& n, unsigned& k) {
  if (mo.size() < 2 || mo.substr(0, 2) != ".m") return false;
  const char* p = mo.data() + 2;
  const char* end = mo.data() + mo.size();
  for (auto [letter, out] : {std::pair{'\0', &m}, std::pair{'n', &n}, std::pair{'k', &k}}) {
    if (letter) {
      if (p == end || *p != letter) return false;
      ++p;
    }
    auto [q, ec] = std::from_chars(p, end, *out);
    if (ec != std::errc{}) return false;
    p = q;
  }
  return p == end;
}

}  // namespace ptx::emu
