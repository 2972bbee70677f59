// The module-level statements the transpiler writes as typed listing declarations
// (ptx::Listing::entry/func/func_decl/global/..., and the .version/.target/.address_size
// options) instead of text. Each is recognized from the IR, then checked: the PTX the
// listing writes for it must print as the statement does (canonical form), else the
// statement stays text. What to write is decided here; transpile.cpp spells it.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "ptxpp/dsl/listing_decls.hpp"
#include "ptxpp/ir/module.hpp"

namespace ptx::transpile {

// `.version V` `.target T` `.address_size N`: the first three statements, one a line.
struct ModuleHeader {
  std::string version;
  uint32_t address_size = 64;
};
std::optional<ModuleHeader> typed_header(const ir::Module& m, std::string_view target);

struct TypedFunction {
  bool entry = false;
  std::string name;
  std::vector<listing::Param> ret;  // empty: no return list
  std::vector<listing::Param> params;
  listing::FunctionOptions options;
};
// `header`: the function as written, up to its body's `{` (or through its `;`).
std::optional<TypedFunction> typed_function(const ir::Module& m, const ir::Function& f, std::string_view header);

struct TypedVariable {
  listing::Space space;
  DType type;
  std::string name;
  listing::VarOptions options;
};
// `text`: the declaration as written.
std::optional<TypedVariable> typed_variable(const ir::Module& m, const ir::Decl& d, std::string_view text);

// The arguments of the listing call that writes each, in the output's language (declaration_calls.cpp).
class Language;
std::string variable_args(const Language& lang, const TypedVariable& v);
std::string function_args(const Language& lang, const TypedFunction& t);

}  // namespace ptx::transpile
