// ptx::PtxVersion: a PTX ISA version (`.version 8.7` is {8, 7}), ordered. The one
// version type of every layer: the IR's `.version`, the ISA table's requirements,
// the validator's options, a traced kernel's version.
#pragma once

#include <compare>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace ptx {

struct PtxVersion {
  uint16_t major = 0, minor = 0;

  // "8.7" -> {8, 7}; nullopt unless the text is exactly MAJOR.MINOR in decimal.
  static std::optional<PtxVersion> parse(std::string_view text);
  // "8.7"
  std::string str() const { return std::to_string(major) + "." + std::to_string(minor); }
  friend constexpr auto operator<=>(PtxVersion, PtxVersion) = default;
};

}  // namespace ptx
