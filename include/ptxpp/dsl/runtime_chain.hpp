// A chain of ptx::inst continued at run time, for code whose modifiers depend on values (a
// register's type, a shape, .trans or not), as the library's own helpers do:
//
//   ptx::dsl::RuntimeChain ld(ptx::inst::ld.param);      // the fixed part: checked when compiled
//   ld.then(ptx::name(r.type()), where);                 // ".u32": checked when it is added
//   ld(r, ptx::addr("n"));                               // ld.param.u32 %r1, [n];
//
// Each modifier is checked, when it is added, against the same automaton ptx::inst is generated
// from (spec/isa, in the manual's order): one the ISA table does not allow there is a ptx::Error
// at trace time naming what may follow, never text left for ptxas to refuse.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>

#include "ptxpp/dsl/instruction_call.hpp"
#include "ptxpp/dsl/operand.hpp"
#include "ptxpp/dsl/source_location.hpp"

namespace ptx::dsl {

class RuntimeChain {
 public:
  // Starts from a chain of ptx::inst, complete or not: RuntimeChain(inst::ld.param).
  template <template <class> class S, uint16_t... T>
  explicit RuntimeChain(const S<detail::Chain<T...>>&) : RuntimeChain(start<T...>()) {}
  // Adds modifiers, each with its dot (".x4", ".shared::cta.b16"); throws ptx::Error at `where`
  // when no chain of the table goes on so.
  RuntimeChain& then(std::string_view modifiers, ptx::SourceLocation where = ptx::SourceLocation::current());
  RuntimeChain& then_if(bool cond, std::string_view modifiers, ptx::SourceLocation where = ptx::SourceLocation::current()) {
    return cond ? then(modifiers, where) : *this;
  }
  // Throws ptx::Error at `where` unless the chain is a complete mnemonic.
  void check_complete(ptx::SourceLocation where = ptx::SourceLocation::current()) const;
  const std::string& text() const { return text_; }
  // Emits the instruction into the running trace, like a complete chain of ptx::inst.
  template <class... Rest>
  void operator()(Located first, const Rest&... rest) const {
    const Operand ops[] = {first.op, as_operand(rest)...};
    emit(ops, first.where);
  }
  void operator()(ptx::SourceLocation where = ptx::SourceLocation::current()) const { emit({}, where); }

 private:
  RuntimeChain(uint32_t state, std::string text) : state_(state), text_(std::move(text)) {}
  static RuntimeChain from_tokens(std::span<const uint16_t> tokens);
  void emit(std::span<const Operand> ops, ptx::SourceLocation where) const;
  template <uint16_t... T>
  static RuntimeChain start() {
    static const RuntimeChain first = [] {
      const uint16_t tokens[] = {T...};
      return from_tokens(tokens);
    }();
    return first;
  }
  uint32_t state_;    // in the chain automaton (chains.inc)
  std::string text_;  // "ld.param"
};

// The mnemonic's text, for messages.
template <class C>
std::string_view text_of(const detail::Complete<C>&) {
  return detail::Complete<C>::mnemonic();
}
inline std::string_view text_of(const RuntimeChain& c) { return c.text(); }

namespace detail {
// The automaton of chains.inc (src/dsl/chains.cpp): the start state of an opcode token,
// the state after `token` (its text, with the dot), and the next modifiers as text.
uint32_t chain_start(uint16_t opcode_token);
std::optional<uint32_t> chain_next(uint32_t state, std::string_view token);
bool chain_complete(uint32_t state);
std::string chain_next_list(uint32_t state);
std::string_view chain_token_text(uint16_t token);
}  // namespace detail

}  // namespace ptx::dsl
