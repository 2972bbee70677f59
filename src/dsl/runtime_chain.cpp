#include "ptxpp/dsl/runtime_chain.hpp"

#include <fmt/format.h>

#include "mnemonic_registry.hpp"
#include "ptxpp/dsl/error.hpp"
#include "trace.hpp"

namespace ptx::dsl {

RuntimeChain RuntimeChain::from_tokens(std::span<const uint16_t> tokens) {
  uint32_t state = detail::chain_start(tokens[0]);
  std::string text(detail::chain_token_text(tokens[0]));
  for (size_t i = 1; i < tokens.size(); ++i) {
    const std::string_view token = detail::chain_token_text(tokens[i]);
    state = *detail::chain_next(state, token);  // ptx::inst's chains are the automaton's paths
    text += token;
  }
  return RuntimeChain(state, std::move(text));
}

RuntimeChain& RuntimeChain::then(std::string_view modifiers, ptx::SourceLocation where) {
  while (!modifiers.empty()) {
    const size_t end = modifiers.find('.', 1);  // each modifier starts with its dot; none has two
    const std::string_view token = modifiers.substr(0, end);
    const std::optional<uint32_t> next = token.size() > 1 && token[0] == '.' ? detail::chain_next(state_, token) : std::nullopt;
    if (!next)
      throw Error(fmt::format("'{}' does not follow '{}' in the ISA table; it goes on with {}", token, text_,
                              detail::chain_next_list(state_)),
                  where);
    state_ = *next;
    text_ += token;
    modifiers.remove_prefix(token.size());
  }
  return *this;
}

void RuntimeChain::check_complete(ptx::SourceLocation where) const {
  if (!detail::chain_complete(state_))
    throw Error(fmt::format("'{}' is not a complete instruction of the ISA table; it goes on with {}", text_,
                            detail::chain_next_list(state_)),
                where);
}

uint32_t detail::mnemonic_key(const RuntimeChain& c, ptx::SourceLocation where) {
  c.check_complete(where);
  return mnemonic_key(c.text());
}

void RuntimeChain::emit(std::span<const Operand> ops, ptx::SourceLocation where) const {
  Trace::current(where).emit(*this, ops, where);
}

}  // namespace ptx::dsl
