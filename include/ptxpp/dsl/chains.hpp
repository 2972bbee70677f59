// The modifier chains of ptx::inst as data: whether a mnemonic can be written
// as an instruction call, and how it is spelled in C++. For code that writes
// DSL source (the transpiler); generated from the same table as ptx::inst.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace ptx::dsl {

// The C++ spelling of `opcode` followed by `modifiers` (each with its dot), e.g.
// ("and", {".b32"}) -> "and_.b32", ("cp", {".async", ".bulk", ".shared::cluster", ...})
// -> "cp.async.bulk.shared_cluster...". nullopt when no chain of ptx::inst spells it
// (an opcode or modifier order the ISA table does not have). `python`: the Python front
// end's spelling of the same chain (python_names.hpp: "and_.b32", "ld.global_.f32").
std::optional<std::string> chain_spelling(std::string_view opcode, std::span<const std::string_view> modifiers,
                                          bool python = false);

// The automaton itself, for front ends that build chains one modifier at a time at run
// time (the Python DSL): a state, and from it the legal next modifiers in the manual's order.
struct ChainMove {
  std::string_view ptx;  // ".shared::cta" (an opcode: "ld")
  std::string_view cxx;  // "shared_cta"
  uint16_t token;        // the token id ptx::inst's chains use (detail::chain_key)
  uint32_t to;           // the state after it
};
// Every opcode, with its start state.
std::vector<ChainMove> chain_opcodes();
std::vector<ChainMove> chain_moves(uint32_t state);
// Whether a chain that ends in `state` is a complete mnemonic (callable).
bool chain_accepting(uint32_t state);

}  // namespace ptx::dsl
