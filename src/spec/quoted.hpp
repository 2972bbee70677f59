// Internal: a name as diagnostics quote it ('name').
#pragma once

#include <string>
#include <string_view>

namespace ptx::spec::detail {

inline std::string quoted(std::string_view s) {
  // Built by appending: `"'" + std::string(s)` trips GCC 12's -Wrestrict false positive.
  std::string out;
  out.reserve(s.size() + 2);
  out += '\'';
  out += s;
  out += '\'';
  return out;
}

}  // namespace ptx::spec::detail
