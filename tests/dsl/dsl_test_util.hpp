// Helpers for the DSL tests: trace a body for a target, count instructions,
// and check a module with the validator and ptxas.
#pragma once

#include <functional>
#include <string>

#include <gtest/gtest.h>
#include <ptxpp/dsl.hpp>
#include <ptxpp/spec/validator.hpp>
#include <ptxpp/text/parser.hpp>

#include "ptxas_util.hpp"

namespace ptx::test {

using namespace ptx::types;
namespace inst = ptx::inst;

// A kernel with no parameters whose body is `body`.
inline std::shared_ptr<const Traced> trace_body(const std::function<void()>& body, const std::string& arch = "sm_90a",
                                                bool debug = false) {
  return kernel("k").arch(arch).debug(debug).body([body]() { body(); }).trace();
}

// The message of the ptx::Error `f` throws, or "no error".
inline std::string thrown_by(const std::function<void()>& f) {
  try {
    f();
  } catch (const Error& e) {
    return e.what();
  }
  return "no error";
}

// The message of the ptx::Error tracing `body` for `arch` throws, or "no error".
inline std::string error_of(const std::function<void()>& body, const std::string& arch = "sm_90a") {
  return thrown_by([&] { (void)trace_body(body, arch); });
}

// The instruction lines of a traced module: every line that starts with a tab and is
// not a declaration, label or directive.
inline std::vector<std::string> instructions_of(const std::string& ptx) {
  std::vector<std::string> out;
  size_t pos = 0;
  while (pos < ptx.size()) {
    size_t end = ptx.find('\n', pos);
    if (end == std::string::npos) end = ptx.size();
    const std::string line = ptx.substr(pos, end - pos);
    pos = end + 1;
    if (line.size() < 2 || line[0] != '\t' || line[1] == '.') continue;
    out.push_back(line.substr(1));
  }
  return out;
}

// The instruction lines of a traced module, each ending in a newline.
inline std::string listing_of(const std::string& ptx) {
  std::string s;
  for (const auto& line : instructions_of(ptx)) s += line + "\n";
  return s;
}

// The module parses, passes the validator for its own target, and ptxas accepts it.
inline void expect_clean(const std::string& ptx, const std::string& arch) {
  auto parsed = text::parse(ptx);
  ASSERT_TRUE(bool(parsed)) << parsed.error().format() << "\n" << ptx;
  const auto diags = spec::check(parsed.module());
  for (const auto& d : diags) ADD_FAILURE() << "validator: " << d.message << "\n" << ptx;
  if (have_ptxas()) {
    const auto r = run_ptxas(ptx, arch);
    EXPECT_TRUE(r.ok) << r.log << "\n" << ptx;
  }
}

}  // namespace ptx::test
