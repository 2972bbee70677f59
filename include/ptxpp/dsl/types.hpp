// Data types of registers and operands: ptx::types::f32 and friends.
#pragma once

#include <cstdint>
#include <string_view>

#include "ptxpp/core/type_class.hpp"

namespace ptx {

enum class DType : uint8_t {
  b8, b16, b32, b64, b128,
  u8, u16, u32, u64,
  s8, s16, s32, s64,
  f16, f16x2, bf16, bf16x2, tf32, f32, f64,
  e4m3, e5m2,
  b1,    // single-bit matrix elements (wgmma, mma .b1): a value type, no .b1 registers
  pred,
  none,  // not a register type (labels, symbols, ...)
};


struct TypeFacts {
  std::string_view name;   // ".f32"
  uint16_t bits;
  TypeClass cls;
  std::string_view decl;   // the .reg type a register of this type is declared with
  std::string_view prefix; // auto-named registers: %r, %rd, %f, ...
};

const TypeFacts& facts(DType t);
inline std::string_view name(DType t) { return facts(t).name; }
inline uint16_t bits(DType t) { return facts(t).bits; }
inline bool is_float(DType t) { return facts(t).cls == TypeClass::Float; }
inline bool is_signed(DType t) { return facts(t).cls == TypeClass::Signed; }
inline bool is_integer(DType t) {
  const TypeClass c = facts(t).cls;
  return c == TypeClass::Unsigned || c == TypeClass::Signed || c == TypeClass::Bits;
}
// The integer type of the same width and signedness as `t` (b32 -> u32).
DType integer_like(DType t);

namespace types {
inline constexpr DType b8 = DType::b8, b16 = DType::b16, b32 = DType::b32, b64 = DType::b64, b128 = DType::b128;
inline constexpr DType u8 = DType::u8, u16 = DType::u16, u32 = DType::u32, u64 = DType::u64;
inline constexpr DType s8 = DType::s8, s16 = DType::s16, s32 = DType::s32, s64 = DType::s64;
inline constexpr DType f16 = DType::f16, f16x2 = DType::f16x2, bf16 = DType::bf16, bf16x2 = DType::bf16x2;
inline constexpr DType tf32 = DType::tf32, f32 = DType::f32, f64 = DType::f64;
inline constexpr DType e4m3 = DType::e4m3, e5m2 = DType::e5m2, b1 = DType::b1;
inline constexpr DType pred = DType::pred;
}  // namespace types

}  // namespace ptx
