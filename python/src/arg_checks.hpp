// Arguments of the architecture bindings checked one by one, so that a wrong value is a TypeError
// that names the argument and starts with the user's file:line (nanobind's own overload error
// lists the signature, not which argument was wrong). Used by blackwell*.cpp and hopper*.cpp.
#pragma once

#include <optional>
#include <string>

#include <fmt/format.h>
#include <nanobind/stl/string.h>

#include "common.hpp"

namespace ptxpy {

// "file:line: " of the user's line (empty outside Python code).
inline std::string at_user() {
  const ptx::SourceLocation l = python_location();
  return l.line() ? fmt::format("{}:{}: ", l.file_name(), l.line()) : std::string();
}

inline std::string short_type_name(nb::handle type) { return nb::cast<std::string>(nb::getattr(type, "__name__")); }

// "ptx.hopper.TensormapSpace" for an enum bound in ptxpp._core.hopper (what ptx.hopper names).
inline std::string ptx_type_name(nb::handle type) {
  const std::string module = nb::cast<std::string>(nb::getattr(type, "__module__"));
  return fmt::format("ptx.{}.{}", module.substr(module.rfind('.') + 1), short_type_name(type));
}

// "file:line: fn: argument 'arg' is a T, not U"
[[noreturn]] inline void wrong_argument(const char* fn, const char* arg, std::string_view want, nb::handle got) {
  throw nb::type_error(
      fmt::format("{}{}: argument '{}' is {}, not {}", at_user(), fn, arg, want, short_type_name(got.type())).c_str());
}

template <class E>
E enum_arg(nb::handle h, const char* fn, const char* arg) {
  if (!nb::isinstance<E>(h)) wrong_argument(fn, arg, "a " + ptx_type_name(nb::type<E>()), h);
  return nb::cast<E>(h);
}

template <class E>
std::optional<E> optional_enum_arg(nb::handle h, const char* fn, const char* arg) {
  if (h.is_none()) return std::nullopt;
  return enum_arg<E>(h, fn, arg);
}

inline ptx::Reg& reg_arg(nb::handle h, const char* fn, const char* arg) {
  if (!nb::isinstance<PyReg>(h)) wrong_argument(fn, arg, "a register", h);
  return reg_of(h);
}

inline const ptx::Reg* optional_reg_arg(nb::handle h, const char* fn, const char* arg) {
  return h.is_none() ? nullptr : &reg_arg(h, fn, arg);
}

// An operand (register, immediate, ptx.addr(...), a buffer's addr(off), ...), else the TypeError.
inline ptx::Operand operand_arg(nb::handle h, const char* fn, const char* arg) {
  ptx::Operand op(ptx::OperandKind::Sink, ptx::DType::none, {});
  if (!try_operand(h, FloatAs::F32, op)) wrong_argument(fn, arg, "an operand (a register, an int or an address)", h);
  return op;
}

inline int int_arg(nb::handle h, const char* fn, const char* arg) {
  if (!PyLong_Check(h.ptr())) wrong_argument(fn, arg, "an int", h);
  return nb::cast<int>(h);
}

}  // namespace ptxpy
