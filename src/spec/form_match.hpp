// Internal: matching an instruction's modifiers against a form's slots, the way
// ptxas reads them: in the manual's order, or (unless the block is `order
// strict`) in any order as long as the type modifiers keep their relative order.
// spec/gen/ptxisa.py (match_form) implements the same rules for the sample generator.
#pragma once

#include <span>
#include <string_view>
#include <vector>

#include "ptxpp/spec/decoded.hpp"
#include "ptxpp/spec/isa.hpp"

namespace ptx::spec::detail {

// One group's value (decoded.hpp).
using Choice = Chosen;

enum class MatchResult : uint8_t { None, InOrder, Reordered };

// On a match, `choices` holds one value per group of the form that was written.
MatchResult match_modifiers(const Form& f, std::span<const std::string_view> mods, std::vector<Choice>& choices);

}  // namespace ptx::spec::detail
