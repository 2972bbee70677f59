// ptx::Target: a `.target` architecture (sm_90a is {90, 'a'}; sm_80 is {80, 0}). The
// one target type of every layer; APIs that take a target from a user as text
// ("sm_90a", Kernel::arch) parse it with Target::parse.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace ptx {

struct Target {
  uint16_t number = 0;
  char suffix = 0;  // 0, 'a' or 'f'

  // "sm_90a" -> {90, 'a'}; nullopt for any other spelling (the number is not checked
  // against known GPUs: spec::min_ptx_for says whether ptxas knows it).
  static std::optional<Target> parse(std::string_view text);
  // "sm_90a"
  std::string name() const;
  friend constexpr bool operator==(Target, Target) = default;
};

}  // namespace ptx
