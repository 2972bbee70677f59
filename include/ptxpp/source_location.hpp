// Where a DSL call was written. std::source_location is not usable with Clang 14
// and libstdc++ 12, so this is the same idea on the builtins both compilers have:
// as a default argument, current() is evaluated at the caller's line.
#pragma once

#include <cstdint>

#if defined(__has_builtin)
#if __has_builtin(__builtin_COLUMN)
#define PTXPP_BUILTIN_COLUMN() __builtin_COLUMN()
#endif
#endif
#ifndef PTXPP_BUILTIN_COLUMN
#define PTXPP_BUILTIN_COLUMN() 0u  // GCC 12 has no __builtin_COLUMN
#endif

namespace ptx {

class SourceLocation {
 public:
  static constexpr SourceLocation current(const char* file = __builtin_FILE(), uint32_t line = __builtin_LINE(),
                                          uint32_t column = PTXPP_BUILTIN_COLUMN()) noexcept {
    SourceLocation l;
    l.file_ = file;
    l.line_ = line;
    l.column_ = column;
    return l;
  }
  constexpr SourceLocation() = default;
  constexpr const char* file_name() const { return file_; }
  constexpr uint32_t line() const { return line_; }
  constexpr uint32_t column() const { return column_; }

 private:
  const char* file_ = "";
  uint32_t line_ = 0, column_ = 0;
};

}  // namespace ptx
