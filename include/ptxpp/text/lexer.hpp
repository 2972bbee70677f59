// Splits PTX text into tokens with their leading trivia. Throws ParseFailure
// (see parse_failure.hpp) on a malformed token.
#pragma once

#include <string_view>

#include "ptxpp/text/token.hpp"

namespace ptx::text {

class Lexer {
 public:
  explicit Lexer(std::string_view src) : src_(src) {}
  // Reads the next token into `t` (reusing it avoids copying tokens around).
  void next(Token& t);
  Token next() {
    Token t;
    next(t);
    return t;
  }
  // Whether the next token is ':' (tells a label from an instruction without lexing ahead).
  bool colon_follows() const;
  std::string_view source() const { return src_; }

 private:
  [[noreturn]] void fail(size_t at, const char* msg) const;
  size_t skip_trivia(size_t p) const;

  std::string_view src_;
  size_t pos_ = 0;
};

}  // namespace ptx::text
