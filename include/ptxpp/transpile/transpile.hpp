// PTX -> ptxpp C++: a translation unit that rebuilds the module with the public
// DSL (ptx::Listing and ptx::inst), so that compiling and running it prints the
// same module again (equal after canonical formatting). See docs/transpile.md.
#pragma once

#include <string>
#include <string_view>

#include "ptxpp/ir/module.hpp"

namespace ptx::transpile {

struct Options {
  std::string name = "ptx_module";  // the C++ function that returns the module's ptx::Listing
  bool main = false;                // also define main(), printing the module's PTX to stdout
  // Output to edit: back-edge loops as lst::repeat_while / repeat_until, repeated blocks as
  // for-loops, long register lists as ranges, demangled names in comments. Same instructions.
  bool sugar = false;
  std::string source_name;          // for the header comment
};

// `m` must be the parse of `source` (text::parse): text between function bodies
// is carried over from it as written.
std::string to_cpp(const ir::Module& m, std::string_view source, const Options& options = {});

// Whether `name` can name the generated function (a C++ identifier, not a keyword).
bool is_cxx_identifier(std::string_view name);

}  // namespace ptx::transpile
