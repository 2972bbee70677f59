// Sugar pass: runs of generated lines that repeat with only integer literals
// changing, each by a constant step, become one C++ for-loop over the period.
// The loop emits the same lines in the same order, so nothing moves across a
// barrier, fence or wait.
#pragma once

#include <string>
#include <vector>

namespace ptx::transpile {

struct Line {
  int depth = 0;
  std::string text;
  bool foldable = false;  // one instruction call: may become part of a loop body
};

// Rewrites `lines` in place; `taken` are C++ names the loop variable must avoid.
void fold_repeats(std::vector<Line>& lines, const std::vector<std::string>& taken);

}  // namespace ptx::transpile
