#include "ptxpp/spec/isa.hpp"

#include <algorithm>
#include <array>
#include <charconv>

namespace ptx::spec {

namespace {
#include "isa_tables.inc"

// Lowest PTX ISA version ptxas 13.0 accepts for each target (probed with ptxas).
struct TargetMinPtx {
  uint16_t number;
  char suffix;
  PtxVersion min;
};
// Targets below sm_75 cannot be compiled for any more, but ptxas still reads
// modules written for them (compiling for sm_75 or later); their minimums were
// probed that way, with `.address_size 64` (itself PTX 2.3).
constexpr TargetMinPtx kTargetMinPtx[] = {
    {10, 0, {1, 0}},    {11, 0, {1, 0}},    {12, 0, {1, 2}},    {13, 0, {1, 2}},    {20, 0, {2, 0}},    {21, 0, {2, 0}},
    {30, 0, {3, 0}},    {32, 0, {4, 0}},    {35, 0, {3, 1}},    {37, 0, {4, 1}},    {50, 0, {4, 0}},    {52, 0, {4, 1}},
    {53, 0, {4, 2}},    {60, 0, {5, 0}},    {61, 0, {5, 0}},    {62, 0, {5, 0}},    {70, 0, {6, 0}},    {72, 0, {6, 1}},
    {75, 0, {6, 3}},    {80, 0, {7, 0}},    {86, 0, {7, 1}},    {87, 0, {7, 4}},    {88, 0, {7, 3}},    {89, 0, {7, 8}},
    {90, 0, {7, 8}},    {90, 'a', {8, 0}},  {100, 0, {8, 6}},   {100, 'a', {8, 6}}, {100, 'f', {8, 8}}, {103, 0, {8, 8}},
    {103, 'a', {8, 8}}, {103, 'f', {8, 8}}, {110, 0, {9, 0}},   {110, 'a', {9, 0}}, {110, 'f', {9, 0}}, {120, 0, {8, 7}},
    {120, 'a', {8, 7}}, {120, 'f', {8, 8}}, {121, 0, {8, 8}},   {121, 'a', {8, 8}}, {121, 'f', {8, 8}},
};
}  // namespace

bool satisfies(Target t, const TargetCond& c) {
  switch (c.kind) {
    case TargetKind::Plus: return t.number >= c.number;
    case TargetKind::Arch: return t.number == c.number && t.suffix == 'a';
    case TargetKind::Family:
      return (t.suffix == 'a' || t.suffix == 'f') && t.number / 10 == c.number / 10 && t.number >= c.number;
    case TargetKind::Exact: return t.number == c.number && t.suffix == 0;
  }
  return false;
}

bool allows(const Requirement& r, Target t) {
  for (const TargetSet& s : target_sets(r)) {
    bool any = false;
    for (const TargetCond& c : conds(s)) any = any || satisfies(t, c);
    if (!any) return false;
  }
  return true;
}

std::string describe(const Requirement& r) {
  std::string out;
  if (r.ptx != PtxVersion{1, 0}) out = "PTX ISA " + r.ptx.str();
  for (const TargetSet& s : target_sets(r)) {
    std::string alts;
    for (const TargetCond& c : conds(s)) {
      if (!alts.empty()) alts += " or ";
      alts += "sm_" + std::to_string(c.number);
      switch (c.kind) {
        case TargetKind::Plus: alts += " or later"; break;
        case TargetKind::Arch: alts += "a"; break;
        case TargetKind::Family: alts += "f (family)"; break;
        case TargetKind::Exact: break;
      }
    }
    out += (out.empty() ? "" : ", ") + alts;
  }
  if (r.texmode != TexMode::Any)
    out += std::string(out.empty() ? "" : ", ") +
           (r.texmode == TexMode::Independent ? "texmode_independent" : "texmode_unified");
  return out.empty() ? "any target" : out;
}

PtxVersion min_ptx_for(Target t) {
  for (const auto& e : kTargetMinPtx)
    if (e.number == t.number && e.suffix == t.suffix) return e.min;
  return {0, 0};
}

std::span<const SpecialRegister> special_registers() { return kSpecialRegisters; }

std::span<const DirectiveSpec> directives() { return kDirectives; }

const DirectiveSpec* find_directive(std::string_view name) {
  auto it = std::lower_bound(kDirectives.begin(), kDirectives.end(), name,
                             [](const DirectiveSpec& d, std::string_view n) { return d.name < n; });
  return it != kDirectives.end() && it->name == name ? &*it : nullptr;
}

bool value_matches(const Value& v, std::string_view text) {
  // ".b[0-7][0-7]": each [...] class matches one character (ranges a-b or single characters)
  size_t i = 0, j = 0;
  const std::string_view p = v.text;
  while (i < p.size()) {
    if (p[i] != '[') {
      if (j >= text.size() || text[j] != p[i]) return false;
      ++i, ++j;
      continue;
    }
    const size_t close = p.find(']', i);
    if (close == std::string_view::npos || j >= text.size()) return false;
    bool hit = false;
    for (size_t k = i + 1; k < close; ++k) {
      if (k + 2 < close && p[k + 1] == '-') {
        hit = hit || (text[j] >= p[k] && text[j] <= p[k + 2]);
        k += 2;
      } else {
        hit = hit || text[j] == p[k];
      }
    }
    if (!hit) return false;
    i = close + 1, ++j;
  }
  return j == text.size();
}

const SpecialRegister* find_special_register(std::string_view name) {
  auto by_name = [](const SpecialRegister& r, std::string_view n) { return r.name < n; };
  auto it = std::lower_bound(kSpecialRegisters.begin(), kSpecialRegisters.end(), name, by_name);
  if (it != kSpecialRegisters.end() && it->name == name && it->count == 0) return &*it;
  // A numbered family: %envreg7 -> %envreg with count 32.
  size_t digits = name.size();
  while (digits > 0 && name[digits - 1] >= '0' && name[digits - 1] <= '9') --digits;
  if (digits == name.size() || digits == 0) return nullptr;
  if (name[digits] == '0' && name.size() - digits > 1) return nullptr;  // %envreg07 names no register
  const std::string_view base = name.substr(0, digits);
  uint32_t index = 0;
  std::from_chars(name.data() + digits, name.data() + name.size(), index);
  it = std::lower_bound(kSpecialRegisters.begin(), kSpecialRegisters.end(), base, by_name);
  if (it != kSpecialRegisters.end() && it->name == base && it->count > index) return &*it;
  return nullptr;
}

std::span<const Form> forms() { return kForms; }

std::span<const Form> forms_for(std::string_view opcode) {
  auto lo = std::lower_bound(kForms.begin(), kForms.end(), opcode,
                             [](const Form& f, std::string_view op) { return f.opcode < op; });
  auto hi = std::upper_bound(lo, kForms.end(), opcode,
                             [](std::string_view op, const Form& f) { return op < f.opcode; });
  return {lo, hi};
}

std::span<const Block> blocks() { return kBlocks; }
std::span<const Chapter> chapter() { return kChapters; }
std::span<const Slot> slots(const Form& f) { return {kSlots.data() + f.first_slot, f.slot_count}; }
std::span<const SlotItem> items(const Slot& s) { return {kSlotItems.data() + s.first_item, s.item_count}; }
std::span<const Operand> operands(const Form& f) { return {kOperands.data() + f.first_operand, f.operand_count}; }
std::span<const Kind> kinds(const Operand& o) { return {kKinds.data() + o.first_kind, o.kind_count}; }
std::span<const Kind> pair_kinds(const Operand& o) { return {kKinds.data() + o.first_pair_kind, o.pair_kind_count}; }
std::span<const Operand> members(const Operand& o) {
  if (!o.member_count) return {};
  return {kMembers.data() + o.first_member, o.member_count};
}
std::span<const ImmRange> imm_values(const Kind& k) {
  if (!k.imm_value_count) return {};
  return {kImmValues.data() + k.first_imm_value, k.imm_value_count};
}
const Group& group(uint32_t index) { return kGroups[index]; }
std::span<const Value> values(const Group& g) { return {kValues.data() + g.first_value, g.value_count}; }
std::span<const TargetSet> target_sets(const Requirement& r) { return {kTargetSets.data() + r.first_set, r.set_count}; }
std::span<const TargetCond> conds(const TargetSet& s) { return {kTargetConds.data() + s.first, s.count}; }

}  // namespace ptx::spec
