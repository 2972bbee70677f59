// Arguments of the Blackwell bindings checked one by one, so that a wrong value is a TypeError
// that names the argument and starts with the user's file:line (nanobind's own overload error
// lists the signature, not which argument was wrong).
#pragma once

#include <optional>
#include <string>
#include <vector>

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

// "file:line: fn: argument 'arg' is a T, not U"
[[noreturn]] inline void wrong_argument(const char* fn, const char* arg, std::string_view want, nb::handle got) {
  throw nb::type_error(
      fmt::format("{}{}: argument '{}' is {}, not {}", at_user(), fn, arg, want, short_type_name(got.type())).c_str());
}

template <class E>
E enum_arg(nb::handle h, const char* fn, const char* arg) {
  if (!nb::isinstance<E>(h)) wrong_argument(fn, arg, "a ptx.blackwell." + short_type_name(nb::type<E>()), h);
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

// The keywords of mma / mma_tmem_a that make its MmaOptions (blackwell_forms.cpp); `lanes`
// holds the disable-output-lane registers the options point into.
struct MmaKeywords {
  nb::handle collector_a, scale_input_d, sparse_metadata, disable_output_lane;
  bool ashift = false;
};
ptx::blackwell::MmaOptions mma_options(const MmaKeywords& k, std::vector<ptx::Reg>& lanes, const char* fn);

// blackwell_forms.cpp: the sparse, .ws and block-scaled forms, tcgen05.cp/shift, TMA gather/scatter.
// bind_blackwell_form_enums runs before the descriptors are bound (their defaults are these enums).
void bind_blackwell_form_enums(nb::module_& blackwell);
void bind_blackwell_forms(nb::module_& blackwell);

}  // namespace ptxpy
