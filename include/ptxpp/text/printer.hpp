// ir::Module -> PTX text.
//   Exact:     parsed nodes print with their own trivia, so parse-then-print gives
//              the input back byte for byte; built or edited nodes get canonical spacing.
//   Canonical: nvcc-like layout (one statement a line, tab indents, ", " between
//              operands); comments are kept, blank lines collapse to one. A fixpoint.
#pragma once

#include <string>

#include "ptxpp/ir/module.hpp"

namespace ptx::text {

enum class PrintMode { Exact, Canonical };

std::string print(const ir::Module& m, PrintMode mode = PrintMode::Exact);
void print(const ir::Module& m, std::string& out, PrintMode mode = PrintMode::Exact);
// One expression or statement, for messages and tools.
std::string print_expr(const ir::Module& m, ir::ExprId e);
// Canonical by default; Exact writes the statement's own trivia (its lead included, its trail not).
std::string print_stmt(const ir::Module& m, ir::Stmt s, PrintMode mode = PrintMode::Canonical);

}  // namespace ptx::text
