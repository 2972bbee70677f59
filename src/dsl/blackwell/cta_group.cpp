#include "ptxpp/dsl/blackwell/cta_group.hpp"

namespace ptx::blackwell {

std::string_view cta_group_modifier(CtaGroup g) { return g == CtaGroup::Two ? ".cta_group::2" : ".cta_group::1"; }

}  // namespace ptx::blackwell
