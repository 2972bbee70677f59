// The modifier chains of ptx::inst as data: whether a mnemonic can be written
// as an instruction call, and how it is spelled in C++. For code that writes
// DSL source (the transpiler); generated from the same table as ptx::inst.
#pragma once

#include <optional>
#include <span>
#include <string>
#include <string_view>

namespace ptx::dsl {

// The C++ spelling of `opcode` followed by `modifiers` (each with its dot), e.g.
// ("and", {".b32"}) -> "and_.b32", ("cp", {".async", ".bulk", ".shared::cluster", ...})
// -> "cp.async.bulk.shared_cluster...". nullopt when no chain of ptx::inst spells it
// (an opcode or modifier order the ISA table does not have).
std::optional<std::string> chain_spelling(std::string_view opcode, std::span<const std::string_view> modifiers);

}  // namespace ptx::dsl
