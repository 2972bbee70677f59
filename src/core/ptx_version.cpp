#include "ptxpp/core/ptx_version.hpp"

#include <charconv>

namespace ptx {

std::optional<PtxVersion> PtxVersion::parse(std::string_view text) {
  const size_t dot = text.find('.');
  if (dot == std::string_view::npos) return std::nullopt;
  PtxVersion v;
  const char* end = text.data() + text.size();
  auto r1 = std::from_chars(text.data(), text.data() + dot, v.major);
  auto r2 = std::from_chars(text.data() + dot + 1, end, v.minor);
  if (r1.ec != std::errc{} || r1.ptr != text.data() + dot || r2.ec != std::errc{} || r2.ptr != end)
    return std::nullopt;
  return v;
}

}  // namespace ptx
