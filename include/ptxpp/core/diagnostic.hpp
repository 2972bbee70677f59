// ptx::Diagnostic: a problem in PTX text. The one diagnostic type of every layer: the
// validator reports each at a byte offset of the module's source; text::locate (and
// text::LineIndex) fill in file, line, column and the source line for display, and
// the parser's errors come located.
#pragma once

#include <cstdint>
#include <string>

namespace ptx {

enum class Severity : uint8_t { Error, Warning };

struct Diagnostic {
  uint32_t offset = 0;  // byte offset in the source text (see ir::Module::source)
  Severity severity = Severity::Error;
  std::string message;
  // Where `offset` is, once located (line 0: not located).
  std::string file{};
  uint32_t line = 0;
  uint32_t column = 0;
  std::string source_line{};  // the offending line, without its newline

  // "file:line:col: error: message\n<line>\n    ^" ("warning:" for a warning)
  std::string format() const;
};

}  // namespace ptx
