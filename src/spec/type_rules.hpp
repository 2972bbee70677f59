// Internal: which register types an operand of a given instruction type
// accepts (PTX ISA §9.4, relaxed type checking, as ptxas applies it).
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>

#include "ptxpp/core/type_class.hpp"

namespace ptx::spec::detail {

using ptx::TypeClass;  // the library's one class enum (ptxpp/core/type_class.hpp)

struct TypeInfo {
  TypeClass cls;
  uint16_t bits;
  uint8_t lanes = 1;  // packed types: the values in one register (.f16x2: 2, .e2m1x4: 4)
};

// The class and size of a declared register type or an instruction type.
std::optional<TypeInfo> type_info(std::string_view type);

// The type twice as wide (".u32" -> ".u64"), or "" when there is none.
std::string_view doubled(std::string_view type);

// Whether a register declared with `reg` can be an operand of instruction type
// `inst`; `wide` also allows a larger register (ld, st, cvt).
bool register_matches(std::string_view reg, std::string_view inst, bool wide);

// Whether instruction type `inst` takes integer (vs floating-point) immediates.
bool integer_immediates(std::string_view inst);

}  // namespace ptx::spec::detail
