// "Did you mean ...?": the known word closest to a misspelt one.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace ptxpp_cli {

// The candidate closest to `word` in edit distance (insertions, deletions, substitutions and swaps
// of neighbours, each 1), when close enough to be a typo: at most 2 edits, and at most half the
// candidate's length. "" when none is.
std::string closest(std::string_view word, const std::vector<std::string>& candidates);

// "; did you mean 'X'?" for the closest candidate, or "".
std::string did_you_mean(std::string_view word, const std::vector<std::string>& candidates);

}  // namespace ptxpp_cli
