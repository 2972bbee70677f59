#include "fold_repeats.hpp"

#include "language.hpp"

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

namespace {

constexpr size_t kMaxPeriod = 32;
constexpr size_t kMinRepeats = 3;        // an affine loop
constexpr size_t kMinTableRepeats = 4;   // a loop over a table
constexpr size_t kMaxTableColumns = 3;   // literals per period read from the table

// One candidate loop at some line: `n` repeats of `p` lines; columns are the
// literals of one period in order, table[c] says whether column c is read from
// the table (else it is affine in the loop variable).
struct Candidate {
  size_t p = 0, n = 0;
  std::vector<bool> table;
  size_t columns_in_table() const { return static_cast<size_t>(std::count(table.begin(), table.end(), true)); }
  // Tables are harder to read than affine expressions: they win only by a margin.
  size_t score() const { return columns_in_table() ? p * n * 3 / 4 : p * n; }
};

std::string unique(const std::string& base, std::vector<std::string>& taken) {
  std::string name = base;
  for (int n = 2; std::find(taken.begin(), taken.end(), name) != taken.end(); ++n) name = fmt::format("{}{}", base, n);
  taken.push_back(name);
  return name;
}

}  // namespace

void fold_repeats(std::vector<Line>& lines, const std::vector<std::string>& taken_names, const Language& lang) {
  std::vector<std::string> taken = taken_names;
  const std::string var = unique("i", taken);
  std::vector<Cut> cuts;
  cuts.reserve(lines.size());
  for (const Line& l : lines) cuts.push_back(l.foldable ? cut(l.text) : Cut{});
  auto same_shape = [&](size_t a, size_t b) {
    return lines[a].foldable && lines[b].foldable && lines[a].depth == lines[b].depth && cuts[a].text == cuts[b].text;
  };
  std::vector<Line> out;
  out.reserve(lines.size());
  for (size_t i = 0; i < lines.size();) {
    const int base = lines[i].depth;
    Candidate best;
    for (size_t p = 1; p <= kMaxPeriod && i + p * kMinRepeats <= lines.size(); ++p) {
      const Line& last = lines[i + p - 1];
      if (!last.foldable || last.depth < base) break;  // a longer period would contain the same line
      int open = 0;
      bool balanced = lines[i].nest >= 0;
      for (size_t k = 0; k < p && balanced; ++k) balanced = (open += lines[i + k].nest) >= 0;
      if (!balanced || open != 0 || lines[i].nest < 0) continue;  // the period must not cut a C++ scope
      // the literals of every repeat, column by column
      std::vector<std::vector<int64_t>> columns;
      for (size_t k = 0; k < p; ++k)
        for (const int64_t v : cuts[i + k].values) columns.push_back({v});
      Candidate affine{p, 1, std::vector<bool>(columns.size(), false)};
      Candidate table = affine;
      for (size_t n = 1; i + (n + 1) * p <= lines.size(); ++n) {
        bool fits = true;
        for (size_t k = 0; k < p && fits; ++k) fits = same_shape(i + k, i + n * p + k);
        if (!fits) break;
        size_t c = 0;
        for (size_t k = 0; k < p; ++k)
          for (const int64_t v : cuts[i + n * p + k].values) columns[c++].push_back(v);
        std::vector<bool> in_table(columns.size(), false);
        for (size_t c2 = 0; c2 < columns.size(); ++c2) {
          const auto& col = columns[c2];
          const int64_t step = col[1] - col[0];
          for (size_t r = 2; r < col.size() && !in_table[c2]; ++r) in_table[c2] = col[r] != col[0] + static_cast<int64_t>(r) * step;
        }
        const Candidate now{p, n + 1, in_table};
        if (now.columns_in_table() > kMaxTableColumns) break;
        table = now;  // until a column leaves the affine form, both are the same loop
        if (!now.columns_in_table()) affine = now;
      }
      if (affine.n >= kMinRepeats && affine.score() > best.score()) best = affine;
      if (table.columns_in_table() && table.n >= kMinTableRepeats && table.n * p >= 8 && table.score() > best.score())
        best = table;
    }
    if (best.n == 0) {
      out.push_back(std::move(lines[i]));
      ++i;
      continue;
    }
    const size_t p = best.p, n = best.n;
    // The table's columns: each literal read from the table, unless it is an
    // earlier column plus a constant (then written as that: table[i][0] + 32).
    struct TableColumn {
      std::vector<int64_t> values;
      size_t stored = 0;   // its column in the table, or that of the column it follows
      int64_t offset = 0;  // ... plus this
    };
    std::vector<TableColumn> table_columns;
    size_t stored_columns = 0;
    for (size_t k = 0, c = 0; k < p; ++k)
      for (size_t t = 0; t < cuts[i + k].values.size(); ++t, ++c) {
        if (!best.table[c]) continue;
        TableColumn col;
        for (size_t r = 0; r < n; ++r) col.values.push_back(cuts[i + r * p + k].values[t]);
        bool follows = false;
        for (const TableColumn& earlier : table_columns) {
          if (earlier.offset != 0) continue;
          const int64_t d = col.values[0] - earlier.values[0];
          follows = d != 0;
          for (size_t r = 0; r < n && follows; ++r) follows = col.values[r] - earlier.values[r] == d;
          if (follows) {
            col.stored = earlier.stored;
            col.offset = d;
            break;
          }
        }
        if (!follows) col.stored = stored_columns++;
        table_columns.push_back(std::move(col));
      }
    std::string table_name;
    if (!table_columns.empty()) {
      table_name = unique("table", taken);
      std::vector<std::string> rows;
      for (size_t r = 0; r < n; ++r) {
        std::string row;
        for (const TableColumn& col : table_columns)
          if (col.offset == 0) row += fmt::format("{}{}", row.empty() ? "" : ", ", col.values[r]);
        rows.push_back(std::move(row));
      }
      out.push_back({base, lang.table(table_name, n, stored_columns, rows)});
    }
    out.push_back({base, lang.for_loop(var, n)});
    size_t column = 0, table_column = 0;
    for (size_t k = 0; k < p; ++k) {
      const Cut& first = cuts[i + k];
      const Cut& second = cuts[i + p + k];
      std::string text = first.text[0];
      for (size_t t = 0; t < first.values.size(); ++t, ++column) {
        std::string v;
        if (best.table[column]) {
          const TableColumn& col = table_columns[table_column++];
          v = stored_columns == 1 ? fmt::format("{}[{}]", table_name, var)
                                  : fmt::format("{}[{}][{}]", table_name, var, col.stored);
          if (col.offset) v = fmt::format("({} {} {})", v, col.offset < 0 ? '-' : '+', col.offset < 0 ? -col.offset : col.offset);
        } else {
          v = affine(first.values[t], second.values[t] - first.values[t], var);
        }
        // r[(4 + i)] -> r[4 + i]; f(a, (4 + i)) -> f(a, 4 + i)
        const std::string& next = first.text[t + 1];
        const bool opens = text.ends_with("[") || text.ends_with("(") || text.ends_with(", ");
        const bool closes = next.starts_with("]") || next.starts_with(")") || next.starts_with(",");
        if (v.front() == '(' && opens && closes) v = v.substr(1, v.size() - 2);
        text += v + first.text[t + 1];
      }
      Line l = lines[i + k];
      l.depth += 1;
      l.text = std::move(text);
      out.push_back(std::move(l));
    }
    if (const auto close = lang.close_for()) out.push_back({base, *close});
    i += p * n;
  }
  lines = std::move(out);
}

}  // namespace ptx::transpile
