#include "type_rules.hpp"

#include <algorithm>
#include <array>
#include <utility>

namespace ptx::spec::detail {

namespace {

struct Entry {
  std::string_view name;
  TypeInfo info;
};

// Instruction types that name a format stored in bit-typed registers are
// Opaque: they take .b registers of their size (and same-size integers).
constexpr std::array kTypes{
    Entry{".pred", {TypeClass::Pred, 1}},       Entry{".b8", {TypeClass::Bits, 8}},
    Entry{".b16", {TypeClass::Bits, 16}},       Entry{".b32", {TypeClass::Bits, 32}},
    Entry{".b64", {TypeClass::Bits, 64}},       Entry{".b128", {TypeClass::Bits, 128}},
    Entry{".u8", {TypeClass::Unsigned, 8}},     Entry{".u16", {TypeClass::Unsigned, 16}},
    Entry{".u32", {TypeClass::Unsigned, 32}},   Entry{".u64", {TypeClass::Unsigned, 64}},
    Entry{".s8", {TypeClass::Signed, 8}},       Entry{".s16", {TypeClass::Signed, 16}},
    Entry{".s32", {TypeClass::Signed, 32}},     Entry{".s64", {TypeClass::Signed, 64}},
    Entry{".f16", {TypeClass::Float, 16}},      Entry{".f16x2", {TypeClass::Float, 32, 2}},
    Entry{".f32", {TypeClass::Float, 32}},      Entry{".f64", {TypeClass::Float, 64}},
    Entry{".bf16", {TypeClass::Opaque, 16}},    Entry{".bf16x2", {TypeClass::Opaque, 32, 2}},
    Entry{".tf32", {TypeClass::Opaque, 32}},    Entry{".u16x2", {TypeClass::Opaque, 32, 2}},
    Entry{".s16x2", {TypeClass::Opaque, 32, 2}},   Entry{".f32x2", {TypeClass::Opaque, 64, 2}},
    Entry{".e4m3", {TypeClass::Opaque, 8}},     Entry{".e5m2", {TypeClass::Opaque, 8}},
    Entry{".e4m3x2", {TypeClass::Opaque, 16, 2}},  Entry{".e5m2x2", {TypeClass::Opaque, 16, 2}},
    Entry{".e2m3x2", {TypeClass::Opaque, 16, 2}},  Entry{".e3m2x2", {TypeClass::Opaque, 16, 2}},
    Entry{".e2m1x2", {TypeClass::Opaque, 8, 2}},   Entry{".ue8m0x2", {TypeClass::Opaque, 16, 2}},
    Entry{".e4m3x4", {TypeClass::Opaque, 32, 4}},  Entry{".e5m2x4", {TypeClass::Opaque, 32, 4}},
    Entry{".e2m3x4", {TypeClass::Opaque, 32, 4}},  Entry{".e3m2x4", {TypeClass::Opaque, 32, 4}},
    Entry{".e2m1x4", {TypeClass::Opaque, 16, 4}},
};

constexpr std::array<std::pair<std::string_view, std::string_view>, 11> kDoubled{{
    {".u8", ".u16"}, {".u16", ".u32"}, {".u32", ".u64"}, {".s8", ".s16"}, {".s16", ".s32"}, {".s32", ".s64"},
    {".b8", ".b16"}, {".b16", ".b32"}, {".b32", ".b64"}, {".f16", ".f32"}, {".f32", ".f64"},
}};

}  // namespace

// Type names are at most 8 bytes: packed into an integer they compare in one step.
constexpr uint64_t pack(std::string_view s) {
  if (s.size() > 8) return 0;
  uint64_t k = 0;
  for (char c : s) k = (k << 8) | static_cast<unsigned char>(c);
  return k;
}

struct PackedEntry {
  uint64_t key;
  TypeInfo info;
};

std::optional<TypeInfo> type_info(std::string_view type) {
  // Sorted by packed name once; then a binary search on integers (validation calls this per operand).
  static const auto table = [] {
    std::array<PackedEntry, kTypes.size()> t{};
    for (size_t i = 0; i < kTypes.size(); ++i) t[i] = {pack(kTypes[i].name), kTypes[i].info};
    std::sort(t.begin(), t.end(), [](const PackedEntry& a, const PackedEntry& b) { return a.key < b.key; });
    return t;
  }();
  const uint64_t key = pack(type);
  if (!key) return std::nullopt;
  auto it = std::lower_bound(table.begin(), table.end(), key, [](const PackedEntry& e, uint64_t k) { return e.key < k; });
  if (it == table.end() || it->key != key) return std::nullopt;
  return it->info;
}

std::string_view doubled(std::string_view type) {
  for (const auto& [t, d] : kDoubled)
    if (t == type) return d;
  return {};
}

bool register_matches(std::string_view reg, std::string_view inst, bool wide) {
  if (reg == inst) return true;
  const auto r = type_info(reg);
  const auto i = type_info(inst);
  if (!r || !i) return false;
  if (r->cls == TypeClass::Pred || i->cls == TypeClass::Pred) return false;
  const bool wider = r->bits > i->bits;
  if (r->bits != i->bits && !(wide && wider)) return false;
  switch (i->cls) {
    case TypeClass::Bits: return true;
    case TypeClass::Unsigned:
    case TypeClass::Signed: return r->cls == TypeClass::Bits || r->cls == TypeClass::Unsigned || r->cls == TypeClass::Signed;
    // A float type takes itself (matched above) or a .b register: not another float type of
    // its size (.f32 for .f16x2), and when wider only a .b register (ld.f32 %rd: .b64 yes, .f64 no).
    case TypeClass::Float: return r->cls == TypeClass::Bits;
    // .bf16, .tf32, packed formats: a .b register of exactly their size.
    case TypeClass::Opaque: return r->cls == TypeClass::Bits && !wider;
    case TypeClass::Pred:
    case TypeClass::None: return false;
  }
  return false;
}

bool integer_immediates(std::string_view inst) {
  const auto i = type_info(inst);
  return !i || i->cls != TypeClass::Float;
}

}  // namespace ptx::spec::detail
