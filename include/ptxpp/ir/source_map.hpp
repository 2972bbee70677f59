// Maps byte offsets of the parsed text to file:line:column for diagnostics.
#pragma once

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
  LineColumn locate(uint32_t offset) const;
  // Byte offset where the 1-based line starts.
  uint32_t line_start(uint32_t line) const;
  uint32_t line_count() const { return static_cast<uint32_t>(line_starts_.size()); }

 private:
  std::string name_ = "<input>";
  std::vector<uint32_t> line_starts_{0};
};

}  // namespace ptx::ir
