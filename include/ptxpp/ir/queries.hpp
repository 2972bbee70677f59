// Typed views of what the IR stores as written: the module header, what a
// declaration's leading words mean, and the value of constant expressions.
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>
#include <vector>

#include "ptxpp/core/ptx_version.hpp"
#include "ptxpp/ir/module.hpp"

namespace ptx::ir {

// The library's one PTX version type (ptxpp/core/ptx_version.hpp).
using ptx::PtxVersion;

// `.version 9.0` -> {9, 0}; nullopt when absent or malformed.
std::optional<PtxVersion> ptx_version(const Module& m);
// `.target sm_90a, debug` -> {"sm_90a", "debug"}.
std::vector<std::string_view> target_words(const Module& m);
// `.address_size 64` -> 64.
std::optional<uint64_t> address_size(const Module& m);

enum class StateSpace : uint8_t { None, Reg, SReg, Const, Global, Local, Param, Shared, Tex };
std::string_view to_string(StateSpace s);

// The meaning of a declaration's leading words, e.g.
// `.param .u64 .ptr .global .align 16 p`: space Param, type ".u64", ptr_space Global, ptr_align 16.
struct DeclInfo {
  StateSpace space = StateSpace::None;
  std::string_view linkage;   // ".visible", ".extern", ".weak", ".common" or ""
  std::string_view type;      // ".u32", ".pred", ".texref", ... or ""
  uint32_t vector = 1;        // 1, 2, 4 or 8 (.v2/.v4/.v8)
  std::optional<uint64_t> align;
  bool ptr = false;           // `.ptr` (kernel parameters)
  StateSpace ptr_space = StateSpace::None;
  std::optional<uint64_t> ptr_align;
  bool managed = false;       // `.attribute(.managed)`
};
DeclInfo decl_info(const Module& m, const Decl& d);

// The value of an integer constant expression (literals, unary and binary
// operators, ?:), with C semantics on 64-bit integers; nullopt when it names a
// symbol, divides by zero or is not an integer expression.
std::optional<int64_t> eval_int(const Module& m, ExprId e);

}  // namespace ptx::ir
