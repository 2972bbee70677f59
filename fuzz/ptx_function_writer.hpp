// The body of one PTX function being generated: its instructions, fresh registers of each kind and
// fresh labels. The register declarations, sized to what the body used, go first in text().
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <utility>

#include <fmt/format.h>

namespace ptx::fuzz {

enum class RegKind : uint8_t { B32, B64, Pred, B128 };

class PtxFunctionWriter {
 public:
  std::string reg(RegKind k) { return fmt::format("%{}{}", prefix(k), counts_[static_cast<size_t>(k)]++); }
  std::string label(std::string_view what) { return fmt::format("$L_{}_{}", what, labels_++); }

  template <class... A>
  void line(fmt::format_string<A...> f, A&&... a) {
    body_ += '\t';
    body_ += fmt::format(f, std::forward<A>(a)...);
    body_ += ";\n";
    ++instructions_;
  }
  void place(const std::string& label) { body_ += label + ":\n"; }
  void raw(std::string_view text) { (body_ += text) += '\n'; }  // a directive or a brace of a call's scope

  size_t instructions() const { return instructions_; }

  // The declarations (`.reg .b32 %r<N>;` per kind used), then the body.
  std::string text() const {
    std::string s;
    constexpr std::array kTypes = {".b32", ".b64", ".pred", ".b128"};
    for (size_t k = 0; k < counts_.size(); ++k)
      if (counts_[k] > 0)
        s += fmt::format("\t.reg {} %{}<{}>;\n", kTypes[k], prefix(static_cast<RegKind>(k)), counts_[k]);
    return s + body_;
  }

 private:
  static const char* prefix(RegKind k) {
    switch (k) {
      case RegKind::B32:
        return "r";
      case RegKind::B64:
        return "rd";
      case RegKind::Pred:
        return "p";
      case RegKind::B128:
        return "q";
    }
    return "x";
  }

  std::array<unsigned, 4> counts_{};
  unsigned labels_ = 0;
  size_t instructions_ = 0;
  std::string body_;
};

}  // namespace ptx::fuzz
