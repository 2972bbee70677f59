// What the fuzzer checks of the validator on any module the parser accepts: it
// returns (no crash, no hang; ASan/UBSan watch the rest) and every diagnostic
// it gives has a message and a location inside the input.
#pragma once

#include <string>
#include <string_view>

#include "ptxpp/spec/validator.hpp"
#include "ptxpp/text/parser.hpp"

namespace ptx::fuzz {

inline std::string check_validator_property(std::string_view text) {
  auto r = text::parse(text);
  if (!r) return {};
  for (const spec::Diagnostic& d : spec::check(r.module())) {
    if (d.message.empty()) return "a validator diagnostic without a message";
    if (d.offset > text.size()) return "a validator diagnostic outside the input: " + d.message;
  }
  return {};
}

}  // namespace ptx::fuzz
