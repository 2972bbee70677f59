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

#include "ptxpp/core/diagnostic.hpp"
#include "ptxpp/ir/module.hpp"
#include "ptxpp/spec/isa.hpp"

namespace ptx::spec {

// The library's one diagnostic type (ptxpp/core/diagnostic.hpp): check() sets offset,
// severity and message; text::locate adds the line and column.
using ptx::Diagnostic;
using ptx::Severity;
// The old name of ptx::PtxVersion, kept for source compatibility.
using PtxIsaVersion = PtxVersion;

struct CheckOptions {
  std::optional<Target> target;          // instead of the module's .target
  std::optional<PtxVersion> version;     // instead of the module's .version
  bool pedantic = false;                 // also warn about modifiers ptxas accepts out of the manual's order
};

std::vector<Diagnostic> check(const ir::Module& m, const CheckOptions& options = {});

}  // namespace ptx::spec
