#include "mnemonic_registry.hpp"

#include <algorithm>
#include <array>
#include <atomic>
#include <memory>
#include <mutex>
#include <unordered_map>

#include "../spec/type_rules.hpp"
#include "ptxpp/spec/decoded.hpp"

namespace ptx::dsl::detail {

namespace {

// Chunks of infos that never move once published, so readers need no lock.
constexpr uint32_t kChunkBits = 10, kChunk = 1u << kChunkBits, kChunks = 1024;

struct Registry {
  std::mutex mu;
  std::unordered_map<std::string, uint32_t> keys;
  std::array<std::atomic<MnemonicInfo*>, kChunks> chunks{};
  uint32_t count = 0;
  std::vector<std::unique_ptr<MnemonicInfo[]>> owned;
};

Registry& registry() {
  static Registry r;
  return r;
}

void resolve_into(MnemonicInfo& info) {
  std::string_view t = info.text;
  const size_t dot = t.find('.');
  info.opcode = t.substr(0, dot);
  size_t i = dot;
  while (i != std::string_view::npos && i < t.size()) {
    // a modifier runs to the next '.' that is not part of "::"
    size_t j = i + 1;
    while (j < t.size() && t[j] != '.') ++j;
    info.mods.push_back(t.substr(i, j - i));
    i = j;
  }
  info.known_opcode = !spec::forms_for(info.opcode).empty();
  // The validator's matching (spec/decoded.hpp): the forms in the manual's order first.
  const spec::DecodedModifiersPtr decoded = spec::decode_modifiers(info.opcode, info.mods);
  for (const spec::FormFit& fit : decoded->fits) {
    const spec::Form& f = *fit.form;
    Candidate c{&f, fit.choices, {f.req}, f.req.ptx};
    for (const auto& ch : c.choices) {
      c.reqs.push_back(ch.value->req);
      c.ptx = std::max(c.ptx, ch.value->req.ptx);
    }
    info.candidates.push_back(std::move(c));
  }
}

}  // namespace

uint32_t mnemonic_key(std::string_view text) {
  Registry& r = registry();
  std::lock_guard lock(r.mu);
  if (auto it = r.keys.find(std::string(text)); it != r.keys.end()) return it->second;
  const uint32_t key = r.count;
  const uint32_t chunk = key >> kChunkBits;
  if (chunk >= kChunks) std::abort();  // a million distinct mnemonics: not a real program
  if (r.chunks[chunk].load(std::memory_order_relaxed) == nullptr) {
    r.owned.emplace_back(new MnemonicInfo[kChunk]);
    r.chunks[chunk].store(r.owned.back().get(), std::memory_order_release);
  }
  MnemonicInfo& info = r.chunks[chunk].load(std::memory_order_relaxed)[key & (kChunk - 1)];
  info.text = std::string(text);
  resolve_into(info);
  r.keys.emplace(info.text, key);
  ++r.count;
  return key;
}

const MnemonicInfo& mnemonic_info(uint32_t key) {
  return registry().chunks[key >> kChunkBits].load(std::memory_order_acquire)[key & (kChunk - 1)];
}

std::string_view resolve(const spec::Ref& r, const Candidate& c) {
  if (!r.present()) return {};
  std::string_view text = r.text;
  if (r.is_group) {
    text = {};
    for (const auto& ch : c.choices)
      if (ch.group == r.group) text = ch.value->text;
    if (text.empty()) return {};
  }
  return r.doubled ? spec::detail::doubled(text) : text;
}

}  // namespace ptx::dsl::detail
