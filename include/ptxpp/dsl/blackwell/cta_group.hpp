// The CTA group of a tcgen05 instruction: one CTA, or the pair of peer CTAs of a cluster
// (cluster ranks 2i and 2i+1) whose tensor memory and shared memory one instruction spans.
#pragma once

#include <cstdint>
#include <string_view>

namespace ptx::blackwell {

enum class CtaGroup : uint8_t { One = 1, Two = 2 };

// ".cta_group::1" / ".cta_group::2"
std::string_view cta_group_modifier(CtaGroup g);

}  // namespace ptx::blackwell
