// Maps byte offsets of the parsed text to file:line:column for diagnostics.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace ptx::ir {

struct LineColumn {
  uint32_t line = 0;    // 1-based
  uint32_t column = 0;  // 1-based, in bytes
};

class SourceMap {
 public:
  SourceMap() = default;
  SourceMap(std::string name, std::string_view text);

  const std::string& name() const { return name_; }
  // Size in bytes of the text the module was parsed from (0 for built modules).
  size_t size() const { return size_; }
  LineColumn locate(uint32_t offset) const;
  // Byte offset where the 1-based line starts.
  uint32_t line_start(uint32_t line) const;
  uint32_t line_count() const { return static_cast<uint32_t>(line_starts_.size()); }

 private:
  std::string name_ = "<input>";
  size_t size_ = 0;
  std::vector<uint32_t> line_starts_{0};
};

}  // namespace ptx::ir
