// ptx::TypeClass: what kind of value a PTX data type holds. The one class enum of every layer:
// the DSL's register types (ptx::TypeFacts) and the validator's type rules.
#pragma once

#include <cstdint>

namespace ptx {

enum class TypeClass : uint8_t {
  Bits,      // .b8 ... .b128
  Unsigned,  // .u8 ... .u64
  Signed,    // .s8 ... .s64
  Float,     // .f16, .f32, .f64 (and, for the DSL's registers, every floating-point format)
  Opaque,    // the validator's formats stored in .b registers: .bf16, .tf32, fp8, packed pairs
  Pred,      // .pred
  None,      // not a data type (the DSL's DType::none)
};

}  // namespace ptx
