// Internal: how the lexer and parser abandon a parse. parse() turns it into a Diagnostic.
#pragma once

#include <cstddef>
#include <string>

namespace ptx::text::detail {

struct SyntaxError {
  size_t offset;
  std::string message;
};

}  // namespace ptx::text::detail
