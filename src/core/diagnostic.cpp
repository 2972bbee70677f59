#include "ptxpp/core/diagnostic.hpp"

namespace ptx {

std::string Diagnostic::format() const {
  const char* kind = severity == Severity::Warning ? ": warning: " : ": error: ";
  std::string out = file + ":" + std::to_string(line) + ":" + std::to_string(column) + kind + message;
  if (line == 0) return out;
  out += '\n';
  out += source_line;
  out += '\n';
  // Keep tabs so the caret lines up under the column in a terminal.
  for (uint32_t i = 0; i + 1 < column && i < source_line.size(); ++i) out += source_line[i] == '\t' ? '\t' : ' ';
  out += '^';
  return out;
}

}  // namespace ptx
