#include "ptxpp/ir/identifier.hpp"

#include <fmt/format.h>

namespace ptx::ir {

namespace {

bool letter(char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z'); }
bool digit(char c) { return c >= '0' && c <= '9'; }
// May continue an identifier (the lexer's followsym).
bool follows(char c) { return letter(c) || digit(c) || c == '_' || c == '$'; }

// A byte as it can be shown in a message.
std::string shown(char c) {
  const auto u = static_cast<unsigned char>(c);
  return u >= 0x20 && u < 0x7f ? fmt::format("'{}'", c) : fmt::format("byte {:#04x}", u);
}

}  // namespace

std::string identifier_problem(std::string_view name) {
  if (name.empty()) return "a name cannot be empty";
  const char first = name[0];
  if (name == "_") return "'_' alone is the sink operand, not a name";
  if (name == "%" || name == "$") return fmt::format("'{}' needs a letter, digit, '_' or '$' after it", first);
  if (!letter(first) && first != '_' && first != '$' && first != '%') {
    return digit(first) ? "a name cannot start with a digit" : fmt::format("a name cannot start with {}", shown(first));
  }
  for (size_t i = 1; i < name.size(); ++i)
    if (!follows(name[i])) return fmt::format("{} at offset {} cannot be part of a name", shown(name[i]), i);
  return "";
}

}  // namespace ptx::ir
