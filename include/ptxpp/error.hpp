// ptx::Error: misuse of the library (the DSL, the IR editing API), reported at the caller's own source line.
#pragma once

#include "ptxpp/source_location.hpp"
#include <stdexcept>
#include <string>

namespace ptx {

class Error : public std::runtime_error {
 public:
  Error(const std::string& message, ptx::SourceLocation where)
      : std::runtime_error(std::string(where.file_name()) + ":" + std::to_string(where.line()) + ": " + message),
        where_(where),
        message_(message) {}
  const ptx::SourceLocation& where() const { return where_; }
  // The message without the location.
  const std::string& message() const { return message_; }

 private:
  ptx::SourceLocation where_;
  std::string message_;
};

}  // namespace ptx
