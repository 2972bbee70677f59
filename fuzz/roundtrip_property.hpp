// The property the parse fuzzer checks, shared with the regression test that
// replays inputs the fuzzer once found: for any bytes, parse gives a module or a
// located diagnostic; a module prints back to exactly the input; its canonical
// form parses again and is a fixpoint. Returns "" or what went wrong.
#pragma once

#include <string>
#include <string_view>

#include "ptxpp/text/parser.hpp"
#include "ptxpp/text/printer.hpp"

namespace ptx::fuzz {

inline std::string check_roundtrip_property(std::string_view text) {
  auto r = text::parse(text);
  if (!r) {
    const auto& d = r.error();
    if (d.line == 0 || d.column == 0 || d.message.empty()) return "diagnostic without a location: " + d.format();
    return {};
  }
  const std::string exact = text::print(r.module());
  if (exact != text) return "exact print differs from the input:\n" + exact;
  const std::string canon = text::print(r.module(), text::PrintMode::Canonical);
  auto again = text::parse(canon);
  if (!again) return "canonical output does not parse:\n" + again.error().format() + "\n" + canon;
  const std::string canon2 = text::print(again.module(), text::PrintMode::Canonical);
  if (canon2 != canon) return "canonical output is not a fixpoint:\n" + canon + "\n----\n" + canon2;
  return {};
}

}  // namespace ptx::fuzz
