// Sugar pass: runs of generated lines that repeat with only integer literals
// changing become one for-loop over the period (in the output's language). Literals that change by a
// constant step become `base + step * i`; the others (at most a few per period)
// are read from a table declared next to the loop. The loop emits the same lines
// in the same order, so nothing moves across a barrier, fence or wait.
#pragma once

#include <string>
#include <vector>

namespace ptx::transpile {

struct Line {
  int depth = 0;
  std::string text;
  bool foldable = false;  // may become part of a loop body (an instruction call, a C++ scope's braces)
  int nest = 0;           // +1: opens a C++ scope, -1: closes one (a period must not cut a scope)
  bool omitted = false;   // writes nothing: the end of a scope the language does not close (Python)
};

class Language;

// Rewrites `lines` in place; `taken` are names the loop variable must avoid.
void fold_repeats(std::vector<Line>& lines, const std::vector<std::string>& taken, const Language& lang);

}  // namespace ptx::transpile
