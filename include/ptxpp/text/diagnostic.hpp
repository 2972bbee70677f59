// An error located in PTX text: file:line:column, the message, and the source
// line with a caret under the column.
#pragma once

#include <cstdint>
#include <stdexcept>
#include <string>
#include <string_view>

namespace ptx::text {

struct Diagnostic {
  std::string file;
  uint32_t line = 0;
  uint32_t column = 0;
  std::string message;
  std::string source_line;  // the offending line, without its newline

  // "file:line:col: error: message\n<line>\n    ^"
  std::string format() const;
};

// Builds a diagnostic for byte `offset` of `text`.
Diagnostic locate(std::string_view file, std::string_view text, size_t offset, std::string message);

// Thrown by the *_or_throw entry points.
class ParseFailure : public std::runtime_error {
 public:
  explicit ParseFailure(Diagnostic d) : std::runtime_error(d.format()), diagnostic_(std::move(d)) {}
  const Diagnostic& diagnostic() const { return diagnostic_; }

 private:
  Diagnostic diagnostic_;
};

}  // namespace ptx::text
