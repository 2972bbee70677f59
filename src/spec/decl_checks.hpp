// Internal: the rules on declarations that ptxas 13 enforces and the ISA table
// does not describe: 64-bit addressing only, module symbols declared before
// they are used, functions defined unless .extern, .extern functions not defined and
// .extern variables not initialized, complete arrays, power-of-two
// alignments, .v2/.v4 vectors of at most 128 bits and scalar predicates,
// register counts below 2^32, one linkage word, consistent prototypes, and
// initializers. Each problem is reported at its declaration.
#pragma once

#include <vector>

#include "ptxpp/ir/module.hpp"
#include "ptxpp/ir/queries.hpp"
#include "ptxpp/ir/scopes.hpp"
#include "ptxpp/spec/validator.hpp"

namespace ptx::spec::detail {

void check_declarations(const ir::Module& m, const ir::Scopes& scopes, std::vector<Diagnostic>& out);

// The declarations and the definition of a function agree on its prototype (prototype_checks.cpp).
void check_prototypes(const ir::Module& m, std::vector<Diagnostic>& out);

// The initializer of a .global or .const variable: its shape, value types and names (initializer_checks.cpp).
void check_initializer(const ir::Module& m, const ir::Scopes& scopes, const ir::Decl& d, const ir::Declarator& dc,
                       const ir::DeclInfo& info, std::vector<Diagnostic>& out);

}  // namespace ptx::spec::detail
