// Internal: the calling convention ptxas 13 enforces at a call: no predicate, 8-bit or
// 16-bit integer parameters or return values (.u8/.s8/.u16/.s16/.pred; .b8/.b16/.f16
// pass), for a direct call (the callee's declaration) and an indirect one (its
// .callprototype). Each problem is reported at the call.
#pragma once

#include <vector>

#include "ptxpp/ir/module.hpp"
#include "ptxpp/ir/scopes.hpp"
#include "ptxpp/spec/validator.hpp"

namespace ptx::spec::detail {

void check_call_abi(const ir::Module& m, const ir::Scopes& scopes, std::vector<Diagnostic>& out);

}  // namespace ptx::spec::detail
