#include "ptxpp/text/diagnostic.hpp"

#include <algorithm>

namespace ptx::text {

namespace {

// The diagnostic for `offset` on the line that starts at byte `begin` and is line
// number `line_number` (1-based).
Diagnostic on_line(std::string_view file, std::string_view text, size_t begin, size_t line_number, size_t offset,
                   std::string message) {
  Diagnostic d;
  d.offset = static_cast<uint32_t>(offset);
  d.file = std::string(file);
  d.message = std::move(message);
  size_t end = text.find('\n', begin);
  if (end == std::string_view::npos) end = text.size();
  d.line = static_cast<uint32_t>(line_number);
  d.column = static_cast<uint32_t>(offset - begin + 1);
  std::string_view line = text.substr(begin, end - begin);
  if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
  // Very long lines are cut to a window around the column.
  constexpr size_t kWindow = 120;
  if (line.size() > 2 * kWindow && d.column > kWindow) {
    const size_t cut = d.column - 1 - kWindow / 2;
    line = line.substr(cut, kWindow);
    d.column = static_cast<uint32_t>(offset - begin - cut + 1);
  } else if (line.size() > 2 * kWindow) {
    line = line.substr(0, 2 * kWindow);
  }
  // Show control and non-ASCII bytes as '?', so the caret line stays printable.
  d.source_line.reserve(line.size());
  for (char c : line) {
    const auto u = static_cast<unsigned char>(c);
    d.source_line += (u == '\t' || (u >= 0x20 && u < 0x7f)) ? c : '?';
  }
  return d;
}

}  // namespace

Diagnostic locate(std::string_view file, std::string_view text, size_t offset, std::string message) {
  offset = std::min(offset, text.size());
  const size_t line_begin = text.rfind('\n', offset == 0 ? std::string_view::npos : offset - 1);
  const size_t begin = (line_begin == std::string_view::npos || offset == 0) ? 0 : line_begin + 1;
  const auto newlines = std::count(text.begin(), text.begin() + static_cast<ptrdiff_t>(begin), '\n');
  return on_line(file, text, begin, static_cast<size_t>(newlines) + 1, offset, std::move(message));
}

LineIndex::LineIndex(std::string_view text) : text_(text) {
  starts_.push_back(0);
  for (size_t nl = text.find('\n'); nl != std::string_view::npos; nl = text.find('\n', nl + 1))
    starts_.push_back(nl + 1);
}

Diagnostic LineIndex::locate(std::string_view file, size_t offset, std::string message) const {
  offset = std::min(offset, text_.size());
  const auto after =
      std::upper_bound(starts_.begin(), starts_.end(), offset);  // never starts_.begin(): starts_[0] == 0
  const auto line = static_cast<size_t>(after - starts_.begin());
  return on_line(file, text_, starts_[line - 1], line, offset, std::move(message));
}

}  // namespace ptx::text
