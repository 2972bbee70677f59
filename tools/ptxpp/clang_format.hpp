// Formats generated C++ with the repository's clang-format style (.clang-format,
// embedded at build time), by running the clang-format program when there is one.
#pragma once

#include <optional>
#include <string>

namespace ptxpp_cli {

struct Formatted {
  std::string code;
  std::string problem;  // why the code is returned unformatted; empty when it was formatted
};

// `code` formatted; when clang-format is missing or fails, the code as given and the reason.
// The program is $PTXPP_CLANG_FORMAT, else the first of clang-format, clang-format-19 .. -14 on PATH.
Formatted clang_format(const std::string& code);

}  // namespace ptxpp_cli
