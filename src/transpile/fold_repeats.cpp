#include "fold_repeats.hpp"

#include <algorithm>
#include <cstdint>
#include <optional>

#include <fmt/format.h>

namespace ptx::transpile {

namespace {

// A line cut at its integer literals: the text around them, and their values.
// Integers inside string literals and inside identifiers or other literals
// (f32, 1.0f, 10ull) are part of the text.
struct Cut {
  std::vector<std::string> text;  // text.size() == values.size() + 1
  std::vector<int64_t> values;
};

bool ident_char(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' || c == '.';
}

Cut cut(const std::string& s) {
  Cut c;
  c.text.emplace_back();
  for (size_t i = 0; i < s.size();) {
    const char ch = s[i];
    if (ch == '"') {  // a string literal, escapes included
      size_t j = i + 1;
      while (j < s.size() && s[j] != '"') j += s[j] == '\\' ? 2 : 1;
      j = std::min(j + 1, s.size());
      c.text.back() += s.substr(i, j - i);
      i = j;
      continue;
    }
    if (ch >= '0' && ch <= '9' && (i == 0 || !ident_char(s[i - 1]))) {
      size_t j = i;
      while (j < s.size() && ident_char(s[j])) ++j;
      const std::string tok = s.substr(i, j - i);
      if (tok.size() <= 9 && tok.find_first_not_of("0123456789") == std::string::npos &&
          (tok.size() == 1 || tok[0] != '0')) {
        c.values.push_back(std::stoll(tok));
        c.text.emplace_back();
      } else {
        c.text.back() += tok;
      }
      i = j;
      continue;
    }
    if (ident_char(ch)) {  // an identifier (its digits stay in it)
      size_t j = i;
      while (j < s.size() && ident_char(s[j])) ++j;
      c.text.back() += s.substr(i, j - i);
      i = j;
      continue;
    }
    c.text.back() += ch;
    ++i;
  }
  return c;
}

std::string affine(int64_t base, int64_t step, const std::string& var) {
  if (step == 0) return std::to_string(base);
  std::string term = step == 1 ? var : step == -1 ? "-" + var : fmt::format("{} * {}", step, var);
  if (base == 0) return step == -1 ? fmt::format("(-{})", var) : (step < 0 ? "(" + term + ")" : term);
  if (step < 0) return fmt::format("({} - {})", base, step == -1 ? var : fmt::format("{} * {}", -step, var));
  return fmt::format("({} + {})", base, term);
}

}  // namespace

void fold_repeats(std::vector<Line>& lines, const std::vector<std::string>& taken) {
  std::string var = "i";
  for (int n = 2; std::find(taken.begin(), taken.end(), var) != taken.end(); ++n) var = fmt::format("i{}", n);
  std::vector<Cut> cuts;
  cuts.reserve(lines.size());
  for (const Line& l : lines) cuts.push_back(l.foldable ? cut(l.text) : Cut{});
  auto same_shape = [&](size_t a, size_t b) {
    return lines[a].foldable && lines[b].foldable && lines[a].depth == lines[b].depth && cuts[a].text == cuts[b].text;
  };
  constexpr size_t kMaxPeriod = 32, kMinRepeats = 3;
  std::vector<Line> out;
  out.reserve(lines.size());
  for (size_t i = 0; i < lines.size();) {
    size_t best_p = 0, best_n = 0;
    for (size_t p = 1; p <= kMaxPeriod && i + p * kMinRepeats <= lines.size(); ++p) {
      bool ok = true;
      for (size_t k = 0; k < p && ok; ++k) ok = lines[i + k].foldable && lines[i + k].depth == lines[i].depth;
      if (!ok) break;  // a longer period would contain the same line
      // steps from the first two repeats; then as many repeats as keep them
      std::vector<std::vector<int64_t>> step(p);
      size_t n = 1;
      for (; i + (n + 1) * p <= lines.size(); ++n) {
        bool fits = true;
        for (size_t k = 0; k < p && fits; ++k) {
          const size_t a = i + k, b = i + n * p + k;
          if (!same_shape(a, b)) {
            fits = false;
            break;
          }
          const auto& va = cuts[a].values;
          const auto& vb = cuts[b].values;
          if (n == 1) {
            step[k].resize(va.size());
            for (size_t t = 0; t < va.size(); ++t) step[k][t] = vb[t] - va[t];
          } else {
            for (size_t t = 0; t < va.size() && fits; ++t)
              fits = vb[t] == va[t] + static_cast<int64_t>(n) * step[k][t];
          }
        }
        if (!fits) break;
      }
      if (n >= kMinRepeats && n * p > best_n * best_p) {
        best_p = p;
        best_n = n;
      }
    }
    if (best_n == 0) {
      out.push_back(std::move(lines[i]));
      ++i;
      continue;
    }
    const int depth = lines[i].depth;
    out.push_back({depth, fmt::format("for (int {0} = 0; {0} < {1}; ++{0}) {{", var, best_n), false});
    for (size_t k = 0; k < best_p; ++k) {
      const Cut& first = cuts[i + k];
      const Cut& second = cuts[i + best_p + k];
      std::string text = first.text[0];
      for (size_t t = 0; t < first.values.size(); ++t) {
        std::string v = affine(first.values[t], second.values[t] - first.values[t], var);
        // r[(4 + i)] -> r[4 + i]; f(a, (4 + i)) -> f(a, 4 + i)
        const std::string& next = first.text[t + 1];
        const bool opens = text.ends_with("[") || text.ends_with("(") || text.ends_with(", ");
        const bool closes = next.starts_with("]") || next.starts_with(")") || next.starts_with(",");
        if (v.front() == '(' && opens && closes) v = v.substr(1, v.size() - 2);
        text += v + first.text[t + 1];
      }
      out.push_back({depth + 1, std::move(text), false});
    }
    out.push_back({depth, "}", false});
    i += best_p * best_n;
  }
  lines = std::move(out);
}

}  // namespace ptx::transpile
