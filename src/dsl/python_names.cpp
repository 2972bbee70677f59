#include "ptxpp/dsl/python_names.hpp"

namespace ptx::dsl {

bool is_python_keyword(std::string_view name) {
  static constexpr std::string_view kKeywords[] = {
      "False", "None",     "True",  "and",    "as",   "assert", "async",  "await",    "break",
      "class", "continue", "def",   "del",    "elif", "else",   "except", "finally",  "for",
      "from",  "global",   "if",    "import", "in",   "is",     "lambda", "nonlocal", "not",
      "or",    "pass",     "raise", "return", "try",  "while",  "with",   "yield"};
  for (std::string_view k : kKeywords)
    if (k == name) return true;
  return false;
}

std::string python_name(std::string_view ptx_spelling) {
  if (!ptx_spelling.empty() && ptx_spelling[0] == '.') ptx_spelling.remove_prefix(1);
  std::string n;
  if (!ptx_spelling.empty() && ptx_spelling[0] >= '0' && ptx_spelling[0] <= '9') n += '_';
  for (size_t i = 0; i < ptx_spelling.size(); ++i) {
    const bool scope = ptx_spelling.substr(i, 2) == "::";
    n += scope ? '_' : ptx_spelling[i];
    i += scope ? 1 : 0;
  }
  if (is_python_keyword(n)) n += '_';
  return n;
}

bool python_floats_are_f64(std::string_view mnemonic) { return mnemonic.find(".f64") != std::string_view::npos; }

}  // namespace ptx::dsl
