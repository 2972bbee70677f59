// PTX -> ptxpp C++ or Python: a program that rebuilds the module with the public DSL
// (ptx::Listing and ptx::inst; in Python ptxpp.listing and ptx.inst), so that running
// it prints the same module again (equal after canonical formatting). See docs/transpile.md.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "ptxpp/ir/module.hpp"

namespace ptx::transpile {

// The output's language: C++ (a header of the C++ DSL) or Python (a module of the ptxpp package).
enum class Lang : uint8_t { Cpp, Python };

struct Options {
  Lang language = Lang::Cpp;
  std::string name = "ptx_module";  // the function that returns the module's listing
  bool main = false;                // C++: also define main(), printing the module's PTX (Python always can)
  // Output to edit: back-edge loops as lst::repeat_while / repeat_until, repeated blocks as
  // for-loops, long register lists as ranges, demangled names in comments. Same instructions.
  bool sugar = false;
  std::string source_name;          // for the header comment
};

// `m` must be the parse of `source` (text::parse): text between function bodies
// is carried over from it as written.
std::string transpile(const ir::Module& m, std::string_view source, const Options& options = {});
// transpile() in C++, whatever options.language says.
std::string to_cpp(const ir::Module& m, std::string_view source, const Options& options = {});

// Whether `name` can name the generated function (a C++ identifier, not a keyword).
bool is_cxx_identifier(std::string_view name);
// The same for `language` (Python: an identifier that is no keyword and no name the output uses).
bool is_identifier(std::string_view name, Lang language);

}  // namespace ptx::transpile
