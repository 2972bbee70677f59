// Checks a parsed module against the ISA table: the module header, symbols and
// registers (declared once, before use), labels, and every instruction's
// modifiers, operands and PTX version/target requirements. Reports all
// problems, each at a byte offset of the module's source.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "ptxpp/ir/module.hpp"
#include "ptxpp/spec/isa.hpp"

namespace ptx::spec {

enum class Severity : uint8_t { Error, Warning };

struct Diagnostic {
  uint32_t offset = 0;  // in the module's source text (see ir::Module::source)
  Severity severity = Severity::Error;
  std::string message;
};

struct PtxIsaVersion {
  uint8_t major = 0, minor = 0;
  friend constexpr auto operator<=>(PtxIsaVersion, PtxIsaVersion) = default;
};

struct CheckOptions {
  std::optional<Target> target;          // instead of the module's .target
  std::optional<PtxIsaVersion> version;  // instead of the module's .version
  bool pedantic = false;                 // also warn about modifiers ptxas accepts out of the manual's order
};

std::vector<Diagnostic> check(const ir::Module& m, const CheckOptions& options = {});

}  // namespace ptx::spec
