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
  uint8_t major, minor;
};
constexpr TargetMinPtx kTargetMinPtx[] = {
    {75, 0, 6, 3},    {80, 0, 7, 0},    {86, 0, 7, 1},    {87, 0, 7, 4},    {88, 0, 7, 3},    {89, 0, 7, 8},
    {90, 0, 7, 8},    {90, 'a', 8, 0},  {100, 0, 8, 6},   {100, 'a', 8, 6}, {100, 'f', 8, 8}, {103, 0, 8, 8},
    {103, 'a', 8, 8}, {103, 'f', 8, 8}, {110, 0, 9, 0},   {110, 'a', 9, 0}, {110, 'f', 9, 0}, {120, 0, 8, 7},
    {120, 'a', 8, 7}, {120, 'f', 8, 8}, {121, 0, 8, 8},   {121, 'a', 8, 8}, {121, 'f', 8, 8},
};
}  // namespace

std::optional<Target> Target::parse(std::string_view text) {
  if (text.substr(0, 3) != "sm_") return std::nullopt;
  Target t;
  const char* b = text.data() + 3;
  const char* e = text.data() + text.size();
  auto r = std::from_chars(b, e, t.number);
  if (r.ec != std::errc{} || r.ptr == b) return std::nullopt;
  if (r.ptr != e) {
    if (r.ptr + 1 != e || (*r.ptr != 'a' && *r.ptr != 'f')) return std::nullopt;
    t.suffix = *r.ptr;
  }
  return t;
}

std::string Target::name() const {
  std::string s = "sm_" + std::to_string(number);
  if (suffix) s += suffix;
  return s;
}

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
  if (r.ptx_major != 1 || r.ptx_minor != 0)
    out = "PTX ISA " + std::to_string(r.ptx_major) + "." + std::to_string(r.ptx_minor);
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
  return out.empty() ? "any target" : out;
}

std::pair<uint8_t, uint8_t> min_ptx_for(Target t) {
  for (const auto& e : kTargetMinPtx)
    if (e.number == t.number && e.suffix == t.suffix) return {e.major, e.minor};
  return {0, 0};
}

std::span<const SpecialRegister> special_registers() { return kSpecialRegisters; }

const SpecialRegister* find_special_register(std::string_view name) {
  auto by_name = [](const SpecialRegister& r, std::string_view n) { return r.name < n; };
  auto it = std::lower_bound(kSpecialRegisters.begin(), kSpecialRegisters.end(), name, by_name);
  if (it != kSpecialRegisters.end() && it->name == name && it->count == 0) return &*it;
  // A numbered family: %envreg7 -> %envreg with count 32.
  size_t digits = name.size();
  while (digits > 0 && name[digits - 1] >= '0' && name[digits - 1] <= '9') --digits;
  if (digits == name.size() || digits == 0) return nullptr;
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
const Group& group(uint32_t index) { return kGroups[index]; }
std::span<const Value> values(const Group& g) { return {kValues.data() + g.first_value, g.value_count}; }
std::span<const TargetSet> target_sets(const Requirement& r) { return {kTargetSets.data() + r.first_set, r.set_count}; }
std::span<const TargetCond> conds(const TargetSet& s) { return {kTargetConds.data() + s.first, s.count}; }

}  // namespace ptx::spec
