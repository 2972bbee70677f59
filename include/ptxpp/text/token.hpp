// Tokens of PTX source text. A token is a view of the input plus the view of
// the trivia (whitespace and comments) in front of it; nothing is allocated.
#pragma once

#include <cstdint>
#include <string_view>

#include "ptxpp/text/number_literal.hpp"

namespace ptx::text {

enum class Tok : uint8_t {
  Eof,
  Ident,    // foo, %r1, $L__BB0_1, _
  DotWord,  // .global, .shared::cta, .1d
  Number,   // see Token::number
  String,   // "text"
  Comma, Semi, Colon, LBrace, RBrace, LBracket, RBracket, LParen, RParen,
  Lt, Gt, Plus, Minus, Star, Slash, Percent, Amp, Pipe, Caret, Tilde, Bang, At, Assign, Question,
  Shl, Shr, AndAnd, OrOr, EqEq, NotEq, LtEq, GtEq,
};

const char* describe(Tok t);

struct Token {
  Tok kind = Tok::Eof;
  std::string_view text;
  std::string_view lead;  // trivia before the token
  uint32_t offset = 0;    // of `text` in the input
  NumberLiteral number;   // for Tok::Number
};

}  // namespace ptx::text
