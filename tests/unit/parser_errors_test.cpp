// Bad input gets a clear error with file:line:column and a caret, never a crash.
#include <gtest/gtest.h>

#include <random>
#include <string>

#include "test_util.hpp"

using ptx::test::kernel;
using ptx::test::parse_error;

namespace {

struct Case {
  std::string text;
  std::string message;
  uint32_t line, column;
};

TEST(ParserErrors, MessagesAndLocations) {
  const std::string head = ".version 9.0\n.target sm_90a\n.address_size 64\n\n.visible .entry k()\n{\n";  // body on line 7
  const Case cases[] = {
      {head + "mov.u32 %r1, 1\n}", "expected ',' or ';' after an operand, found '}'", 8, 1},
      {head + "mov.u32 %r1, , 1;\n}", "expected an operand or expression, found ','", 7, 14},
      {head + "@ ;\n}", "expected a guard predicate after '@', found ';'", 7, 3},
      {head + "@%p .x;\n}", "expected an instruction opcode, found directive or modifier '.x'", 7, 5},
      {head + "ld.global.f32 %f1, [%rd1;\n}", "expected ',' or ']', found ';'", 7, 25},
      {head + "mov.u32 %r1, {%r2, %r3;\n}", "expected ',' or '}', found ';'", 7, 23},
      {head + "mov.u32 %r1, %r2 ? 1;\n}", "expected ':' of a conditional expression, found ';'", 7, 21},
      {head + ".reg .b32 %r<4;\n}", "expected '>' after a register count, found ';'", 7, 15},
      {head + ".reg .b32 %r<4>\n}", "expected ',' or ';' after a declaration, found '}'", 8, 1},
      {head + ".reg .b32 ;\n}", "expected a name, found ';'", 7, 11},
      {head + ".reg .b32 a[1, 2];\n}", "an array dimension takes one value", 7, 12},
      {head + ".foo 1;\n}", "unknown directive '.foo' inside a function body", 7, 1},
      {head + ".version 9.0\n}", "directive '.version' is not allowed inside a function body", 7, 1},
      {head + ".maxntid 1\n}", "directive '.maxntid' is not allowed inside a function body", 7, 1},
      {head + ".section .a { }\n}", "'.section' is only allowed at module scope", 7, 1},
      {head + ".func f() { ret; }\n}", "functions can only be defined at module scope", 7, 1},
      {head + ".loc 1 2\n}", "'.loc' takes at least 3 operands, found 2", 7, 1},
      {head + ".pragma \"x\"\n}", "expected ';' after the directive, found '}'", 8, 1},
      {head + "ret;\n", "this '{' is never closed", 6, 1},
      {head + "ret;\n}}", "expected a directive, declaration or function, found '}'", 8, 2},
      {head + "x: .callprototype _ .param;\n}", "expected '(' for the parameters of '.callprototype', found directive or modifier '.param'", 7, 21},
      {".version 9.0 9.1", "expected a directive, declaration or function, found number '9.1'", 1, 14},
      {".version", "'.version' takes 1 operand, found 0", 1, 1},
      {".target", "'.target' takes at least 1 operand, found 0", 1, 1},
      {".target ,", "'.target' takes at least 1 operand, found 0", 1, 1},
      {".target a,", "expected an operand or expression, found end of input", 1, 11},
      {".version 9.0\nmov.u32 %r1, 1;", "expected a directive, declaration or function, found identifier 'mov'", 2, 1},
      {".version 9.0\nL1:", "expected a directive, declaration or function, found identifier 'L1'", 2, 1},
      {".entry k(.param .u32) {}", "expected a name, found ')'", 1, 21},
      {".entry k(.param .u32 a = 1) {}", "parameters cannot have initializers", 1, 24},
      {".entry k(a) {}", "expected a parameter declaration such as '.param .u64 name', found identifier 'a'", 1, 10},
      {".entry k(.param .u32 a .param .u32 b) {}", "expected ',' or ')' in a parameter list, found directive or modifier '.param'", 1, 24},
      {".entry k() .maxntid 1 .foo {}", "'.foo' is not a function header directive", 1, 23},
      {".entry k() .maxntid 1, 2, 3, 4 {}", "'.maxntid' takes 1 to 3 operands, found 4", 1, 12},
      {".entry k() .noreturn 1 {}", "expected '{' or ';' after a function header, found number '1'", 1, 22},
      {".entry (.param .b32 r) {}", "expected a function name, found '{'", 1, 24},
      {".entry .func 1", "expected a function name, found number '1'", 1, 14},
      {".global .u32 g = ;", "expected an operand or expression, found ';'", 1, 18},
      {".global .u32 g", "expected ',' or ';' after a declaration, found end of input", 1, 15},
      {".global .align .u32 g;", "expected an alignment after '.align', found directive or modifier '.u32'", 1, 16},
      {".global .attribute .managed .u32 g;", "expected '(' after '.attribute', found directive or modifier '.managed'", 1, 20},
      {".section .x { mov.u32 %r1, 1; }", "expected a label or data directive, found identifier 'mov'", 1, 15},
      {".section .x { .b8 1 ", "this '{' is never closed", 1, 13},
      {".section { }", "expected a section name, found '{'", 1, 10},
      {".section .x .b8", "expected '{' to open the section, found directive or modifier '.b8'", 1, 13},
      {".alias a;", "'.alias' takes 2 operands, found 1", 1, 1},
      {".visible .global .u32 g;\n.weak", "expected a name, found end of input", 2, 6},
  };
  for (const Case& c : cases) {
    const auto d = parse_error(c.text);
    EXPECT_EQ(d.message, c.message) << c.text;
    EXPECT_EQ(d.line, c.line) << c.text << "\n" << d.format();
    EXPECT_EQ(d.column, c.column) << c.text << "\n" << d.format();
  }
}

TEST(ParserErrors, FormatHasFileLineColumnAndCaret) {
  ptx::text::ParseOptions o;
  o.file_name = "k.ptx";
  auto r = ptx::text::parse(".version 9.0\n\tmov.u32 %r1, 1;\n", o);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().format(),
            "k.ptx:2:2: error: expected a directive, declaration or function, found identifier 'mov'\n"
            "\tmov.u32 %r1, 1;\n"
            "\t^");
}

TEST(ParserErrors, ParseOrThrowThrowsParseFailure) {
  try {
    (void)ptx::text::parse_or_throw(".version");
    FAIL() << "no exception";
  } catch (const ptx::text::ParseFailure& e) {
    EXPECT_EQ(e.diagnostic().line, 1u);
    EXPECT_NE(std::string(e.what()).find("error: '.version' takes 1 operand"), std::string::npos);
  }
}

TEST(ParserErrors, DeepNestingIsAnErrorNotAStackOverflow) {
  for (const char* open : {"(", "{", "[", "-", "!", "~"}) {
    std::string s = ".global .u32 g = ";
    for (int i = 0; i < 100000; ++i) s += open;
    s += "1;";
    const auto d = parse_error(s);
    EXPECT_EQ(d.message, "nesting is too deep") << open;
  }
  std::string blocks = ".entry k() ";
  for (int i = 0; i < 100000; ++i) blocks += "{";
  EXPECT_EQ(parse_error(blocks).message, "nesting is too deep");
  std::string ternary = ".global .u32 g = ";
  for (int i = 0; i < 100000; ++i) ternary += "1 ? 1 : ";
  ternary += "1;";
  EXPECT_EQ(parse_error(ternary).message, "nesting is too deep");
}

TEST(ParserErrors, LongLinesAreCutAroundTheColumn) {
  std::string s = ".global .u32 g[] = {";
  for (int i = 0; i < 5000; ++i) s += "1, ";
  s += ";";
  const auto d = parse_error(s);
  EXPECT_LE(d.source_line.size(), 240u);
  const std::string f = d.format();
  const size_t caret_line = f.rfind('\n');
  EXPECT_EQ(f.back(), '^');
  // The caret sits under the ';' in the shown window.
  const size_t caret_col = f.size() - caret_line - 2;
  EXPECT_EQ(d.source_line[caret_col], ';') << f;
}

// Every prefix of a valid module parses or fails cleanly.
TEST(ParserErrors, EveryPrefixIsHandled) {
  const std::string text = kernel(
      ".reg .b32 %r<4>;\n.reg .pred %p;\n@!%p bra $L1; // c\n$L1:\n"
      "ld.global.v2.f32 {%f1, _}, [%rd1+-8]; /* x */\nmov.f32 %f1, 0f3F800000;\nret;");
  for (size_t n = 0; n <= text.size(); ++n) {
    auto r = ptx::text::parse(std::string_view(text).substr(0, n));
    if (r.ok()) EXPECT_EQ(ptx::text::print(r.module()), text.substr(0, n));
    else EXPECT_FALSE(r.error().message.empty());
  }
}

// Random byte edits of a valid module: each parses (and round-trips) or gives an error.
TEST(ParserErrors, RandomMutationsNeverCrash) {
  const std::string text = kernel(
      ".reg .b32 %r<4>;\n.reg .pred %p|%q;\nsetp.lt.s32 %p|%q, %r1, 0x10;\n"
      "tex.2d.v4.f32.f32 {%f1, %f2, %f3, %f4}, [tex, {%f5, %f6}];\n.loc 1 2 3\n");
  std::mt19937 rng(12345);
  const std::string alphabet = "{}[]()<>;:,.%$_@!-+*/\"\n \t0123456789abcfxU";
  for (int iter = 0; iter < 20000; ++iter) {
    std::string s = text;
    const int edits = 1 + static_cast<int>(rng() % 4);
    for (int e = 0; e < edits; ++e) {
      const size_t pos = rng() % s.size();
      switch (rng() % 3) {
        case 0: s[pos] = alphabet[rng() % alphabet.size()]; break;
        case 1: s.erase(pos, 1 + rng() % 3); break;
        default: s.insert(s.begin() + static_cast<ptrdiff_t>(pos), alphabet[rng() % alphabet.size()]); break;
      }
      if (s.empty()) s.push_back(' ');
    }
    auto r = ptx::text::parse(s);
    if (r.ok()) {
      ASSERT_EQ(ptx::text::print(r.module()), s);
    } else {
      ASSERT_GE(r.error().line, 1u);
      ASSERT_FALSE(r.error().message.empty());
    }
  }
}

}  // namespace
