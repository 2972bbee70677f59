// The decoded instruction (ptxpp/spec/decoded.hpp): the modifiers in the ISA's vocabulary and
// the forms they fit, computed once per mnemonic; check_and_decode() is in validator.cpp.
#include "ptxpp/spec/decoded.hpp"

#include <string>
#include <unordered_map>

#include "form_match.hpp"

namespace ptx::spec {

const Value* FormFit::chosen(std::string_view name) const {
  for (const Chosen& c : choices)
    if (group(c.group).name == name) return c.value;
  return nullptr;
}

const DecodedInstruction* CheckedModule::find(uint32_t instruction) const {
  auto it = std::lower_bound(instructions.begin(), instructions.end(), instruction,
                             [](const DecodedInstruction& d, uint32_t i) { return d.instruction < i; });
  return it != instructions.end() && it->instruction == instruction ? &*it : nullptr;
}

namespace {

DecodedModifiers match(std::string_view opcode, std::span<const std::string_view> mods) {
  DecodedModifiers d;
  d.opcode = opcode_of(opcode);
  for (size_t i = 0; i < mods.size(); ++i) {
    const auto m = mod_of(mods[i]);
    if (!m) {
      if (!d.unknown_at) d.unknown_at = i;
      continue;
    }
    d.mods.push_back(*m);
  }
  std::vector<Chosen> scratch;
  const auto candidates = forms_for(opcode);
  for (detail::MatchResult pass : {detail::MatchResult::InOrder, detail::MatchResult::Reordered})
    for (const Form& f : candidates)
      if (detail::match_modifiers(f, mods, scratch) == pass)
        d.fits.push_back({&f, pass == detail::MatchResult::InOrder ? ModifierOrder::Manual : ModifierOrder::Reordered, scratch});
  return d;
}

}  // namespace

DecodedModifiersPtr decode_modifiers(std::string_view opcode, std::span<const std::string_view> mods) {
  std::string mnemonic(opcode);
  for (std::string_view m : mods) mnemonic += m;
  // Modules share their mnemonics: kept per thread across modules, bounded.
  thread_local std::unordered_map<std::string, DecodedModifiersPtr> cache;
  if (auto hit = cache.find(mnemonic); hit != cache.end()) return hit->second;
  auto decoded = std::make_shared<const DecodedModifiers>(match(opcode, mods));
  if (cache.size() < 65536) cache.emplace(std::move(mnemonic), decoded);
  return decoded;
}

DecodedModifiersPtr decode_modifiers(const ir::Module& m, const ir::Instruction& in) {
  std::vector<std::string_view> mods;
  for (const ir::Modifier& mod : m.modifiers_of(in)) mods.push_back(m.text(mod.name));
  return decode_modifiers(m.text(in.opcode), mods);
}

}  // namespace ptx::spec
