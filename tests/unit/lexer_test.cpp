#include <gtest/gtest.h>

#include <vector>

#include "ptxpp/text/lexer.hpp"
#include "ptxpp/text/parser.hpp"

using ptx::text::Lexer;
using ptx::text::Tok;
using ptx::text::Token;

namespace {

std::vector<Token> lex(std::string_view s) {
  Lexer l(s);
  std::vector<Token> out;
  for (;;) {
    Token t = l.next();
    out.push_back(t);
    if (t.kind == Tok::Eof) break;
  }
  return out;
}

TEST(Lexer, TokensAndTrivia) {
  auto t = lex("  ld.global.f32 %f1, [%rd1+-4]; // c\n");
  ASSERT_EQ(t.size(), 13u);
  EXPECT_EQ(t[0].kind, Tok::Ident);
  EXPECT_EQ(t[0].text, "ld");
  EXPECT_EQ(t[0].lead, "  ");
  EXPECT_EQ(t[1].kind, Tok::DotWord);
  EXPECT_EQ(t[1].text, ".global");
  EXPECT_EQ(t[3].text, "%f1");
  EXPECT_EQ(t[3].lead, " ");
  EXPECT_EQ(t[4].kind, Tok::Comma);
  EXPECT_EQ(t[5].kind, Tok::LBracket);
  EXPECT_EQ(t[7].kind, Tok::Plus);
  EXPECT_EQ(t[8].kind, Tok::Minus);
  EXPECT_EQ(t[9].kind, Tok::Number);
  EXPECT_EQ(t[10].kind, Tok::RBracket);
  EXPECT_EQ(t[12].kind, Tok::Eof);
  EXPECT_EQ(t[12].lead, " // c\n");
}

TEST(Lexer, ModifiersWithScopes) {
  auto t = lex("mbarrier.try_wait.parity.shared::cta.b64");
  ASSERT_GE(t.size(), 5u);
  EXPECT_EQ(t[3].text, ".shared::cta");
  auto u = lex("cp.async.bulk.tensor.2d.L2::cache_hint");
  EXPECT_EQ(u[4].text, ".2d");
  EXPECT_EQ(u[5].text, ".L2::cache_hint");
}

TEST(Lexer, IdentifierForms) {
  auto t = lex("%r1 $L__BB0_1 _ __cudart_x %tid.x % 5");
  EXPECT_EQ(t[0].text, "%r1");
  EXPECT_EQ(t[1].text, "$L__BB0_1");
  EXPECT_EQ(t[2].kind, Tok::Ident);
  EXPECT_EQ(t[2].text, "_");
  EXPECT_EQ(t[3].text, "__cudart_x");
  EXPECT_EQ(t[4].text, "%tid");
  EXPECT_EQ(t[5].text, ".x");
  EXPECT_EQ(t[5].lead, "");
  EXPECT_EQ(t[6].kind, Tok::Percent);
}

TEST(Lexer, Operators) {
  auto t = lex("<< >> <= >= == != && || < > ! ~ ^ ? = |");
  const Tok want[] = {Tok::Shl, Tok::Shr, Tok::LtEq, Tok::GtEq, Tok::EqEq, Tok::NotEq, Tok::AndAnd, Tok::OrOr,
                      Tok::Lt, Tok::Gt, Tok::Bang, Tok::Tilde, Tok::Caret, Tok::Question, Tok::Assign, Tok::Pipe};
  for (size_t i = 0; i < std::size(want); ++i) EXPECT_EQ(t[i].kind, want[i]) << i;
}

TEST(Lexer, CommentsAreTrivia) {
  auto t = lex("/* a\n b */ x /**/ // y\r\n z");
  EXPECT_EQ(t[0].text, "x");
  EXPECT_EQ(t[0].lead, "/* a\n b */ ");
  EXPECT_EQ(t[1].text, "z");
  EXPECT_EQ(t[1].lead, " /**/ // y\r\n ");
}

TEST(Lexer, StringsKeepEscapes) {
  auto t = lex(R"("a\"b" x)");
  EXPECT_EQ(t[0].kind, Tok::String);
  EXPECT_EQ(t[0].text, R"("a\"b")");
}

// Malformed tokens are reported through parse() with a location.
TEST(Lexer, ErrorsHaveLocations) {
  struct Case {
    const char* text;
    const char* message;
    uint32_t line, column;
  } cases[] = {
      {"/* open", "unterminated block comment", 1, 1},
      {".version 9.0\n  \"abc", "unterminated string literal", 2, 3},
      {".version 9.0\n\"a\nb\"", "unterminated string literal", 2, 1},
      {"#include <x>", "preprocessor lines are not PTX (ptxas does not accept them)", 1, 1},
      {".version 9.0\n`", "unexpected character", 2, 1},
      {".version 9.0\n\x01", "unexpected byte outside a comment or string", 2, 1},
      {".version 9.0\n\xc3\xa9", "unexpected byte outside a comment or string", 2, 1},
      {". x", "expected a directive or modifier name after '.'", 1, 1},
      {".version 0x", "hexadecimal literal needs at least one digit", 1, 10},
  };
  for (const Case& c : cases) {
    auto r = ptx::text::parse(c.text);
    ASSERT_FALSE(r.ok()) << c.text;
    EXPECT_EQ(r.error().message, c.message) << c.text;
    EXPECT_EQ(r.error().line, c.line) << c.text;
    EXPECT_EQ(r.error().column, c.column) << c.text;
  }
}

}  // namespace
