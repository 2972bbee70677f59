// What makes a PTX identifier (PTX ISA, "Identifiers"): a letter followed by
// letters, digits, '_' or '$'; or '_', '$' or '%' followed by at least one of
// those. `_` alone is the sink operand and `%` alone the remainder operator.
#pragma once

#include <string>
#include <string_view>

namespace ptx::ir {

// Why `name` is not a PTX identifier, or "" when it is one.
std::string identifier_problem(std::string_view name);

}  // namespace ptx::ir
