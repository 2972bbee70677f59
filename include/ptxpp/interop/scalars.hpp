// Shared by the framework interops (torch.hpp, jax.hpp): a kernel's scalar argument,
// as a framework gives it (a float, or a signed or unsigned integer), checked against
// the parameter's type and packed into the bytes a launch takes.
#pragma once

#include <array>
#include <cstdint>
#include <cstring>
#include <optional>
#include <string>
#include <string_view>

#include "ptxpp/dsl/kernel.hpp"
#include "ptxpp/runtime/launch.hpp"

namespace ptx::interop {

// The scalar types a framework call can pass: f32, f64 and the integers.
inline bool float_scalar(DType t) { return t == DType::f32 || t == DType::f64; }
inline bool signed_integer(DType t) { return t == DType::s8 || t == DType::s16 || t == DType::s32 || t == DType::s64; }
inline bool integer_scalar(DType t) {
  return signed_integer(t) || t == DType::u8 || t == DType::u16 || t == DType::u32 || t == DType::u64;
}

// "f32" (ptx::name without its dot), for messages.
inline std::string type_name(DType t) {
  const std::string_view n = ptx::name(t);
  return std::string(n.substr(!n.empty() && n[0] == '.' ? 1 : 0));
}

// A number as the framework gave it.
struct ScalarValue {
  enum class Kind : uint8_t { floating, signed_integer, unsigned_integer };
  Kind kind = Kind::floating;
  double d = 0;    // floating
  int64_t i = 0;   // signed_integer
  uint64_t u = 0;  // unsigned_integer

  static ScalarValue of_float(double v) { return {Kind::floating, v, 0, 0}; }
  static ScalarValue of_int(int64_t v) { return {Kind::signed_integer, 0, v, 0}; }
  static ScalarValue of_uint(uint64_t v) { return {Kind::unsigned_integer, 0, 0, v}; }
  bool integer() const { return kind != Kind::floating; }
  std::string text() const {
    return kind == Kind::floating ? std::to_string(d) : kind == Kind::signed_integer ? std::to_string(i) : std::to_string(u);
  }
};

// A scalar's bytes (little-endian, the low `bits(type) / 8` of them used).
using ScalarBytes = std::array<uint8_t, 8>;

// Packs `v` for a scalar parameter of `type` (f32, f64 or an integer type): a float for
// a float type (rounded to f32 for .f32), an integer in the type's range for an integer
// type. Else the error, as "<what> '<name>' must be an integer scalar (s32)" or
// "<what> '<name>': 4294967296 does not fit a s32" (`what`: "argument", "attribute").
inline std::optional<std::string> pack_scalar(DType type, const ScalarValue& v, std::string_view what,
                                              std::string_view name, ScalarBytes& out) {
  out = {};
  const auto label = [&] { return std::string(what) + " '" + std::string(name) + "'"; };
  if (v.integer() == float_scalar(type))
    return label() + " must be " + (float_scalar(type) ? "a floating-point" : "an integer") + " scalar (" +
           type_name(type) + ")";
  if (type == DType::f32) {
    const float f = static_cast<float>(v.d);
    std::memcpy(out.data(), &f, 4);
    return std::nullopt;
  }
  if (type == DType::f64) {
    std::memcpy(out.data(), &v.d, 8);
    return std::nullopt;
  }
  const size_t size = ptx::bits(type) / 8u;
  const bool is_unsigned = v.kind == ScalarValue::Kind::unsigned_integer;
  bool fits = true;
  if (signed_integer(type)) {
    const int64_t lo = size < 8 ? -(int64_t{1} << (size * 8 - 1)) : INT64_MIN;
    const int64_t hi = size < 8 ? (int64_t{1} << (size * 8 - 1)) - 1 : INT64_MAX;
    fits = is_unsigned ? v.u <= static_cast<uint64_t>(hi) : (v.i >= lo && v.i <= hi);
  } else {
    const uint64_t hi = size < 8 ? (uint64_t{1} << (size * 8)) - 1 : UINT64_MAX;
    fits = is_unsigned ? v.u <= hi : (v.i >= 0 && static_cast<uint64_t>(v.i) <= hi);
  }
  if (!fits) return label() + ": " + v.text() + " does not fit a " + type_name(type);
  const uint64_t raw = is_unsigned ? v.u : static_cast<uint64_t>(v.i);
  std::memcpy(out.data(), &raw, size);  // little-endian: the low bytes
  return std::nullopt;
}

// The launch argument for a packed scalar of `type` (views `bytes`: keep them alive).
inline LaunchArg scalar_arg(DType type, const ScalarBytes& bytes) {
  return LaunchArg{false, type, static_cast<uint8_t>(ptx::bits(type) / 8u), bytes.data(), nullptr, false};
}

}  // namespace ptx::interop
