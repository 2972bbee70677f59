// text::LineIndex locates offsets exactly as text::locate does (which counts lines
// from the start every time), on text where lines are easy to get wrong.
#include <gtest/gtest.h>

#include <string>

#include "ptxpp/text/diagnostic.hpp"

namespace {

using ptx::text::Diagnostic;
using ptx::text::LineIndex;

void expect_same(const Diagnostic& want, const Diagnostic& got) {
  EXPECT_EQ(want.file, got.file);
  EXPECT_EQ(want.line, got.line);
  EXPECT_EQ(want.column, got.column);
  EXPECT_EQ(want.message, got.message);
  EXPECT_EQ(want.source_line, got.source_line);
}

// Every offset of the text, and two past its end.
void expect_same_everywhere(const std::string& text) {
  const LineIndex index(text);
  for (size_t offset = 0; offset <= text.size() + 2; ++offset) {
    SCOPED_TRACE("offset " + std::to_string(offset));
    expect_same(ptx::text::locate("f.ptx", text, offset, "m"), index.locate("f.ptx", offset, "m"));
  }
}

TEST(LineIndex, SameAsLocateOnTrickyText) {
  const std::string long_line(1000, 'x');
  for (const std::string& text :
       {std::string(), std::string("\n"), std::string("\n\n\n"), std::string("no newline"), std::string("a\nb"),
        std::string("a\r\nb\r\n"), std::string("\r\n\r\n"), std::string("one\ntwo\n"),
        std::string("\ttab\n\x01\x7f\xff\n"), long_line + "\n" + long_line, "short\n" + long_line + "\r\nend"}) {
    SCOPED_TRACE(::testing::PrintToString(text.substr(0, 40)));
    expect_same_everywhere(text);
  }
}

TEST(LineIndex, LinesAndColumns) {
  const std::string text = "ab\r\ncd\n\nlast";
  const LineIndex index(text);
  EXPECT_EQ(index.line_count(), 4u);
  struct Case {
    size_t offset;
    uint32_t line, column;
    const char* source_line;
  };
  for (const Case& c :
       {Case{0, 1, 1, "ab"}, Case{2, 1, 3, "ab"}, Case{3, 1, 4, "ab"}, Case{4, 2, 1, "cd"}, Case{6, 2, 3, "cd"},
        Case{7, 3, 1, ""}, Case{8, 4, 1, "last"}, Case{12, 4, 5, "last"}, Case{99, 4, 5, "last"}}) {
    SCOPED_TRACE(c.offset);
    const Diagnostic d = index.locate("f", c.offset, "m");
    EXPECT_EQ(d.line, c.line);
    EXPECT_EQ(d.column, c.column);
    EXPECT_EQ(d.source_line, c.source_line);
  }
  // empty text: line 1, column 1
  const Diagnostic d = LineIndex("").locate("f", 0, "m");
  EXPECT_EQ(d.line, 1u);
  EXPECT_EQ(d.column, 1u);
  // a long line is cut to a window around the column
  const std::string long_line = std::string(500, 'a') + "^" + std::string(500, 'b');
  const Diagnostic w = LineIndex(long_line).locate("f", 500, "m");
  EXPECT_EQ(w.source_line.size(), 120u);
  EXPECT_EQ(w.source_line[w.column - 1], '^');
}

}  // namespace
