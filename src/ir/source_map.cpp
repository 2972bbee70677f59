#include "ptxpp/ir/source_map.hpp"

#include <algorithm>
#include <cstring>

namespace ptx::ir {

SourceMap::SourceMap(std::string name, std::string_view text) : name_(std::move(name)), size_(text.size()) {
  line_starts_.reserve(text.size() / 32 + 1);
  const char* base = text.data();
  const char* p = base;
  const char* end = base + text.size();
  while (p < end) {
    const void* nl = std::memchr(p, '\n', static_cast<size_t>(end - p));
    if (!nl) break;
    p = static_cast<const char*>(nl) + 1;
    line_starts_.push_back(static_cast<uint32_t>(p - base));
  }
}

LineColumn SourceMap::locate(uint32_t offset) const {
  auto it = std::upper_bound(line_starts_.begin(), line_starts_.end(), offset);
  const auto line = static_cast<uint32_t>(it - line_starts_.begin());  // >= 1
  return {line, offset - line_starts_[line - 1] + 1};
}

uint32_t SourceMap::line_start(uint32_t line) const {
  if (line == 0 || line > line_starts_.size()) return 0;
  return line_starts_[line - 1];
}

}  // namespace ptx::ir
