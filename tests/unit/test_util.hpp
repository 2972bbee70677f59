// Helpers shared by the unit tests.
#pragma once

#include <gtest/gtest.h>

#include <string>
#include <string_view>

#include "ptxpp/text/parser.hpp"
#include "ptxpp/text/printer.hpp"

namespace ptx::test {

inline ir::Module parse_ok(std::string_view text) {
  auto r = text::parse(text);
  EXPECT_TRUE(r.ok()) << r.error().format() << "\n--- input ---\n" << text;
  if (!r.ok()) return ir::Module{};
  return r.take();
}

// The error message of a parse that must fail ("" if it parsed).
inline text::Diagnostic parse_error(std::string_view text) {
  auto r = text::parse(text);
  EXPECT_FALSE(r.ok()) << "parsed although it should not:\n" << text;
  return r.ok() ? text::Diagnostic{} : r.error();
}

inline std::string exact(std::string_view text) { return text::print(parse_ok(text)); }
inline std::string canonical(std::string_view text) {
  return text::print(parse_ok(text), text::PrintMode::Canonical);
}

// Wraps body statements in a minimal module.
inline std::string kernel(std::string_view body) {
  return ".version 9.0\n.target sm_90a\n.address_size 64\n\n.visible .entry k()\n{\n" + std::string(body) + "\n}\n";
}

}  // namespace ptx::test
