// The PTX text of a listing's typed declarations (listing_decls.hpp): what
// ptx::Listing writes for them, and what the transpiler compares the input with
// before it writes a declaration as a DSL call (it must print the same PTX).
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "ptxpp/dsl/listing_decls.hpp"

namespace ptx::listing::detail {

std::string_view space_name(Space s);      // ".global"
std::string_view linkage_name(Linkage l);  // ".visible"; none: ""
std::string_view directive_name(DirectiveKind k);

// What is wrong with a declaration (empty: nothing); `entry`: a kernel's parameters (.ptr allowed).
std::string param_problem(const Param& p, bool entry);
std::string directive_problem(const FunctionDirective& d);
std::string variable_problem(Space s, DType t, const VarOptions& o);

// `.param .align 8 .b8 p[16]`
std::string param_text(const Param& p);
// `.visible .entry k(\n\t.param .u64 p\n)\n.maxntid 128, 1, 1` (ret: nullptr when there is no return list)
std::string function_header(bool entry, std::string_view name, const std::vector<Param>* ret,
                            const std::vector<Param>& params, const FunctionOptions& o);
// `.global .align 4 .b32 counter[4];`
std::string variable_text(Space s, DType t, std::string_view name, const VarOptions& o);

}  // namespace ptx::listing::detail
