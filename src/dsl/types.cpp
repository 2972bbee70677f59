#include "ptxpp/dsl/types.hpp"

#include <array>

namespace ptx {

namespace {
using enum TypeClass;
// Registers are declared by width like nvcc does (.b32 %r for 32-bit integers), so
// one range serves u32, s32 and b32 values; f16/bf16 values live in .b16 registers.
constexpr std::array<TypeFacts, static_cast<size_t>(DType::none) + 1> kFacts = {{
    {".b8", 8, Bits, ".b8", "%rc"},      {".b16", 16, Bits, ".b16", "%rs"},
    {".b32", 32, Bits, ".b32", "%r"},    {".b64", 64, Bits, ".b64", "%rd"},
    {".b128", 128, Bits, ".b128", "%rq"},
    {".u8", 8, Unsigned, ".b8", "%rc"},  {".u16", 16, Unsigned, ".b16", "%rs"},
    {".u32", 32, Unsigned, ".b32", "%r"}, {".u64", 64, Unsigned, ".b64", "%rd"},
    {".s8", 8, Signed, ".b8", "%rc"},    {".s16", 16, Signed, ".b16", "%rs"},
    {".s32", 32, Signed, ".b32", "%r"},  {".s64", 64, Signed, ".b64", "%rd"},
    {".f16", 16, Float, ".b16", "%h"},   {".f16x2", 32, Float, ".b32", "%hh"},
    {".bf16", 16, Float, ".b16", "%h"},  {".bf16x2", 32, Float, ".b32", "%hh"},
    {".tf32", 32, Float, ".b32", "%r"},  {".f32", 32, Float, ".f32", "%f"},
    {".f64", 64, Float, ".f64", "%fd"},
    {".e4m3", 8, Float, ".b8", "%rc"},   {".e5m2", 8, Float, ".b8", "%rc"},
    {".b1", 1, Bits, "", ""},
    {".pred", 1, Pred, ".pred", "%p"},
    {"", 0, None, "", ""},
}};
}  // namespace

const TypeFacts& facts(DType t) { return kFacts[static_cast<size_t>(t)]; }

DType integer_like(DType t) {
  switch (bits(t)) {
    case 8: return is_signed(t) ? DType::s8 : DType::u8;
    case 16: return is_signed(t) ? DType::s16 : DType::u16;
    case 32: return is_signed(t) ? DType::s32 : DType::u32;
    case 64: return is_signed(t) ? DType::s64 : DType::u64;
    default: return t;
  }
}

}  // namespace ptx
