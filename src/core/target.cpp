#include "ptxpp/core/target.hpp"

#include <charconv>

namespace ptx {

std::optional<Target> Target::parse(std::string_view text) {
  if (text.substr(0, 3) != "sm_") return std::nullopt;
  Target t;
  const char* b = text.data() + 3;
  const char* e = text.data() + text.size();
  auto r = std::from_chars(b, e, t.number);
  if (r.ec != std::errc{} || r.ptr == b) return std::nullopt;
  if (r.ptr != e) {
    if (r.ptr + 1 != e || (*r.ptr != 'a' && *r.ptr != 'f')) return std::nullopt;
    t.suffix = *r.ptr;
  }
  return t;
}

std::string Target::name() const {
  std::string s = "sm_" + std::to_string(number);
  if (suffix) s += suffix;
  return s;
}

}  // namespace ptx
