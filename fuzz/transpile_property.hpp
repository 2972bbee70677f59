// What the fuzzer checks of the transpiler on any module the parser accepts: it
// writes C++ (no crash, no hang, no exception; ASan/UBSan watch the rest) that
// carries every byte of module-level text it does not transcribe, and one
// function body lambda per function body. (Compiling and running the output is
// tests/transpile/corpus-roundtrip.sh, on the corpus.)
#pragma once

#include <exception>
#include <string>
#include <string_view>

#include "ptxpp/text/parser.hpp"
#include "ptxpp/transpile/transpile.hpp"

namespace ptx::fuzz {

inline std::string check_transpile_property(std::string_view text) {
  auto r = text::parse(text);
  if (!r) return {};
  std::string cpp;
  try {
    cpp = transpile::to_cpp(r.module(), text);
  } catch (const std::exception& e) {
    return std::string("the transpiler threw on a parsed module: ") + e.what();
  }
  size_t bodies = 0;
  for (const ir::Stmt& s : r.module().root().stmts)
    if (s.kind == ir::StmtKind::Function && r.module().functions[s.index].has_body()) ++bodies;
  size_t lambdas = 0;
  const std::string_view mark = "\n  m.body([] {\n";
  for (size_t at = cpp.find(mark); at != std::string::npos; at = cpp.find(mark, at + 1)) ++lambdas;
  if (lambdas != bodies) return "the transpiler wrote " + std::to_string(lambdas) + " bodies for " + std::to_string(bodies);
  return {};
}

}  // namespace ptx::fuzz
