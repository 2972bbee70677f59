#include "ptxpp/dsl/chains.hpp"

#include "ptxpp/dsl/runtime_chain.hpp"

#include <algorithm>
#include <cstdint>
#include <unordered_map>

#include "ptxpp/dsl/python_names.hpp"

namespace ptx::dsl {

namespace {
struct ChainToken {
  std::string_view ptx;  // ".shared::cta"
  std::string_view cxx;  // "shared_cta"
};
struct ChainState {
  uint32_t first_edge;
  uint32_t edge_count;
  bool accepting;
};
struct ChainEdge {
  uint32_t token;
  uint32_t to;  // a state (kChainEdges), or an opcode's start state (kChainOpcodes)
};
#include "chains.inc"

std::optional<uint32_t> token_of(std::string_view text) {
  static const std::unordered_map<std::string_view, uint32_t> index = [] {
    std::unordered_map<std::string_view, uint32_t> m;
    for (uint32_t i = 0; i < std::size(kChainTokens); ++i) m.emplace(kChainTokens[i].ptx, i);
    return m;
  }();
  const auto it = index.find(text);
  if (it == index.end()) return std::nullopt;
  return it->second;
}
}  // namespace

std::optional<std::string> chain_spelling(std::string_view opcode, std::span<const std::string_view> modifiers,
                                          bool python) {
  const auto op = token_of(opcode);
  if (!op) return std::nullopt;
  const ChainEdge* start = std::find_if(std::begin(kChainOpcodes), std::end(kChainOpcodes),
                                        [&](const ChainEdge& e) { return e.token == *op; });
  if (start == std::end(kChainOpcodes)) return std::nullopt;
  uint32_t state = start->to;
  const auto spell = [python](uint32_t t) {
    return python ? python_name(kChainTokens[t].ptx) : std::string(kChainTokens[t].cxx);
  };
  std::string out = spell(*op);
  for (std::string_view m : modifiers) {
    const auto t = token_of(m);
    if (!t) return std::nullopt;
    const ChainState& s = kChainStates[state];
    const ChainEdge* e = std::find_if(kChainEdges + s.first_edge, kChainEdges + s.first_edge + s.edge_count,
                                      [&](const ChainEdge& x) { return x.token == *t; });
    if (e == kChainEdges + s.first_edge + s.edge_count) return std::nullopt;
    state = e->to;
    out += '.';
    out += spell(*t);
  }
  if (!kChainStates[state].accepting) return std::nullopt;
  return out;
}

std::vector<ChainMove> chain_opcodes() {
  std::vector<ChainMove> out;
  out.reserve(std::size(kChainOpcodes));
  for (const ChainEdge& e : kChainOpcodes)
    out.push_back({kChainTokens[e.token].ptx, kChainTokens[e.token].cxx, static_cast<uint16_t>(e.token), e.to});
  return out;
}

std::vector<ChainMove> chain_moves(uint32_t state) {
  std::vector<ChainMove> out;
  if (state >= std::size(kChainStates)) return out;
  const ChainState& s = kChainStates[state];
  for (uint32_t i = s.first_edge; i < s.first_edge + s.edge_count; ++i) {
    const ChainEdge& e = kChainEdges[i];
    out.push_back({kChainTokens[e.token].ptx, kChainTokens[e.token].cxx, static_cast<uint16_t>(e.token), e.to});
  }
  return out;
}

bool chain_accepting(uint32_t state) { return state < std::size(kChainStates) && kChainStates[state].accepting; }

namespace detail {

uint32_t chain_start(uint16_t opcode_token) {
  for (const ChainEdge& e : kChainOpcodes)
    if (e.token == opcode_token) return e.to;
  return UINT32_MAX;  // not an opcode: ptx::inst has no such chain
}

std::optional<uint32_t> chain_next(uint32_t state, std::string_view token) {
  if (state >= std::size(kChainStates)) return std::nullopt;
  const ChainState& s = kChainStates[state];
  for (uint32_t i = s.first_edge; i < s.first_edge + s.edge_count; ++i)
    if (kChainTokens[kChainEdges[i].token].ptx == token) return kChainEdges[i].to;
  return std::nullopt;
}

bool chain_complete(uint32_t state) { return chain_accepting(state); }

std::string chain_next_list(uint32_t state) {
  std::string out;
  for (const ChainMove& m : chain_moves(state)) {
    if (!out.empty()) out += ", ";
    out += m.ptx;
  }
  return out.empty() ? "nothing" : out;
}

std::string_view chain_token_text(uint16_t token) { return token < std::size(kChainTokens) ? kChainTokens[token].ptx : ""; }

}  // namespace detail

}  // namespace ptx::dsl
