// Locating diagnostics in PTX text: file:line:column and the source line with a
// caret under the column.
#pragma once

#include <cstdint>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "ptxpp/core/diagnostic.hpp"

namespace ptx::text {

// The library's one diagnostic type (ptxpp/core/diagnostic.hpp), located.
using Diagnostic = ptx::Diagnostic;

// Builds a diagnostic for byte `offset` of `text` (an offset past the end means the
// end). Counts the lines before it: for many offsets of one text, use a LineIndex.
Diagnostic locate(std::string_view file, std::string_view text, size_t offset, std::string message);

// Where each line of a text starts, found once: each locate is then a binary
// search instead of a count from the start. Keeps a view of the text, which must
// outlive it.
class LineIndex {
 public:
  explicit LineIndex(std::string_view text);
  // The same diagnostic as text::locate(file, text, offset, message).
  Diagnostic locate(std::string_view file, size_t offset, std::string message) const;
  size_t line_count() const { return starts_.size(); }

 private:
  std::string_view text_;
  std::vector<size_t> starts_;  // byte offset of each line's first byte; starts_[0] == 0
};

// Thrown by the *_or_throw entry points.
class ParseFailure : public std::runtime_error {
 public:
  explicit ParseFailure(Diagnostic d) : std::runtime_error(d.format()), diagnostic_(std::move(d)) {}
  const Diagnostic& diagnostic() const { return diagnostic_; }

 private:
  Diagnostic diagnostic_;
};

}  // namespace ptx::text
