// What the fuzzer checks of the transpiler on any module the parser accepts: it
// writes C++ and Python (no crash, no hang, no exception; ASan/UBSan watch the
// rest), with one function body per function body (typed header or not). (Compiling and running the
// output is tests/transpile/corpus-roundtrip.sh and python/tests/test_transpile.py,
// on the corpus.)
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
  for (const transpile::Lang lang : {transpile::Lang::Cpp, transpile::Lang::Python}) {
    const bool python = lang == transpile::Lang::Python;
    transpile::Options o;
    o.language = lang;
    std::string out;
    try {
      out = transpile::transpile(r.module(), text, o);
    } catch (const std::exception& e) {
      return std::string("the transpiler threw on a parsed module: ") + e.what();
    }
    size_t bodies = 0;
    for (const ir::Stmt& s : r.module().root().stmts)
      if (s.kind == ir::StmtKind::Function && r.module().functions[s.index].has_body()) ++bodies;
    // a body is `m.body([] {`, `m.entry(..., [] {` or `m.func(..., [] {` (C++), or a `def _():`
    // under `@m.body` / `@m.entry(...)` / `@m.func(...)` (Python), at the listing's depth
    size_t written = 0;
    const std::string_view mark = python ? "\n    def _():\n" : "[] {\n";
    for (size_t at = out.find(mark); at != std::string::npos; at = out.find(mark, at + 1)) {
      const size_t line = python ? 0 : out.rfind('\n', at) + 1;
      if (python || std::string_view(out).substr(line, 4) == "  m.") ++written;
    }
    if (written != bodies)
      return std::string("the transpiler wrote ") + std::to_string(written) + (python ? " Python" : " C++") +
             " bodies for " + std::to_string(bodies);
  }
  return {};
}

}  // namespace ptx::fuzz
