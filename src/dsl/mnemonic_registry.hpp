// Internal: every mnemonic the DSL emits ("ld.global.f32"), resolved once per
// process against the ISA table: the forms it can be, with the values chosen and
// what each requires. Keys are small integers, stable for the process.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "../spec/form_match.hpp"
#include "ptxpp/dsl/runtime_chain.hpp"
#include "ptxpp/spec/isa.hpp"

namespace ptx::dsl::detail {

struct Candidate {
  const spec::Form* form;
  std::vector<spec::detail::Choice> choices;
  std::vector<spec::Requirement> reqs;  // the form's and the chosen values'
  PtxVersion ptx{1, 0};  // the highest of reqs
};

struct MnemonicInfo {
  std::string text;                  // "ld.global.f32"
  std::string_view opcode;           // view into text
  std::vector<std::string_view> mods;  // views into text
  std::vector<Candidate> candidates; // empty: not in the ISA table
  bool known_opcode = false;
};

uint32_t mnemonic_key(std::string_view text);
// A complete runtime chain's key (throws at `where` when it is not complete); internal, so that
// registry keys stay out of the public API (runtime_chain.hpp).
uint32_t mnemonic_key(const RuntimeChain& c, ptx::SourceLocation where);
const MnemonicInfo& mnemonic_info(uint32_t key);
// The type/count/space a kind refers to, with the candidate's chosen values ("" when absent).
std::string_view resolve(const spec::Ref& r, const Candidate& c);

}  // namespace ptx::dsl::detail
