#include "form_match.hpp"

#include <algorithm>
#include <array>

namespace ptx::spec::detail {

namespace {

// Whether value v (".relaxed.cta" is two modifiers) is written at mods[j].
bool value_at(const Value& v, std::span<const std::string_view> mods, size_t j) {
  if (j + v.parts > mods.size()) return false;
  std::string_view rest = v.text;
  for (size_t p = 0; p < v.parts; ++p) {
    const std::string_view mod = mods[j + p];
    if (rest.substr(0, mod.size()) != mod) return false;
    rest.remove_prefix(mod.size());
    if (!rest.empty() && rest[0] != '.') return false;
  }
  return rest.empty();
}

class Matcher {
 public:
  Matcher(const Form& f, std::span<const std::string_view> mods, std::vector<Choice>& choices)
      : slots_(slots(f)), mods_(mods), choices_(choices), head_(blocks()[f.block].head) {}

  // Modifiers mods[j..] against slots [i..] (item k of slot i), in order.
  bool strict(uint32_t i, uint32_t k, size_t j) {
    if (i == slots_.size()) return j == mods_.size();
    const Slot& slot = slots_[i];
    const auto its = items(slot);
    if (k == 0 && slot.optional) {
      const size_t saved = choices_.size();
      if (strict(i + 1, 0, j)) return true;
      choices_.resize(saved);
    }
    if (k == its.size()) return strict(i + 1, 0, j);
    const SlotItem& item = its[k];
    if (!item.is_group) return j < mods_.size() && mods_[j] == item.text && strict(i, k + 1, j + 1);
    for (const Value& v : values(group(item.group))) {
      if (!value_at(v, mods_, j)) continue;
      choices_.push_back({item.group, &v});
      if (strict(i, k + 1, j + v.parts)) return true;
      choices_.pop_back();
    }
    return false;
  }

  // Any order; type items keep their relative order.
  bool relaxed() {
    flat_.clear();
    for (uint32_t i = 0; i < slots_.size(); ++i)
      for (const SlotItem& it : items(slots_[i])) flat_.push_back({&it, i, false});
    Last last;
    last.fill(-1);
    return relaxed_from(0, last);
  }

 private:
  struct Flat {
    const SlotItem* item;
    uint32_t slot;
    bool used;
  };

  bool complete() const {
    for (uint32_t i = 0; i < slots_.size(); ++i) {
      bool all = true, any = false;
      for (const Flat& fl : flat_)
        if (fl.slot == i) {
          all = all && fl.used;
          any = any || fl.used;
        }
      if (slots_[i].optional ? (any && !all) : !all) return false;
    }
    return true;
  }

  // `order head N`: the items of the first N slots come first, in the form's
  // order; an optional one may be left out, but not given later.
  bool head_allows(size_t k) const {
    if (head_ == 0) return true;
    const bool is_head = flat_[k].slot < head_;
    for (size_t h = 0; h < flat_.size(); ++h) {
      if (h < k || !is_head) {
        if (flat_[h].slot < head_ && !flat_[h].used && !slots_[flat_[h].slot].optional) return false;
      } else if (h > k && flat_[h].used) {
        return false;
      }
    }
    return true;
  }

  // Per order class (SlotItem::order_class), the flat index of the last item used.
  using Last = std::array<int, 8>;

  bool relaxed_from(size_t j, const Last& last_type) {
    if (j == mods_.size()) return complete();
    for (size_t k = 0; k < flat_.size(); ++k) {
      Flat& fl = flat_[k];
      const size_t cls = std::min<size_t>(fl.item->order_class, last_type.size() - 1);
      if (fl.used || !head_allows(k) ||
          (cls && static_cast<int>(k) < last_type[cls]))
        continue;
      Last next_type = last_type;
      if (cls) next_type[cls] = static_cast<int>(k);
      if (!fl.item->is_group) {
        if (mods_[j] != fl.item->text) continue;
        fl.used = true;
        if (relaxed_from(j + 1, next_type)) return true;
        fl.used = false;
        continue;
      }
      for (const Value& v : values(group(fl.item->group))) {
        if (!value_at(v, mods_, j)) continue;
        fl.used = true;
        choices_.push_back({fl.item->group, &v});
        if (relaxed_from(j + v.parts, next_type)) return true;
        choices_.pop_back();
        fl.used = false;
      }
    }
    return false;
  }

  std::span<const Slot> slots_;
  std::span<const std::string_view> mods_;
  std::vector<Choice>& choices_;
  std::vector<Flat> flat_;
  uint32_t head_ = 0;
};

}  // namespace

namespace {

// What a form's modifiers can be, to reject most non-matching forms before searching:
// every modifier any of its slots can take, and how many modifiers it takes at least / most.
struct Vocabulary {
  std::vector<std::string_view> words;  // sorted
  size_t min_mods = 0, max_mods = 0;
};

const std::vector<Vocabulary>& vocabularies() {
  static const std::vector<Vocabulary> all = [] {
    std::vector<Vocabulary> out;
    const auto fs = forms();
    out.reserve(fs.size());
    for (const Form& f : fs) {
      Vocabulary v;
      for (const Slot& s : slots(f)) {
        size_t lo = 0, hi = 0;
        for (const SlotItem& it : items(s)) {
          if (!it.is_group) {
            v.words.push_back(it.text);
            ++lo;
            ++hi;
            continue;
          }
          size_t item_lo = ~size_t{0}, item_hi = 0;
          for (const Value& val : values(group(it.group))) {
            item_lo = std::min<size_t>(item_lo, val.parts);
            item_hi = std::max<size_t>(item_hi, val.parts);
            // ".relaxed.cta" -> ".relaxed", ".cta" (a modifier may contain "::" but not '.')
            std::string_view rest = val.text;
            while (!rest.empty()) {
              const size_t next = rest.find('.', 1);
              v.words.push_back(rest.substr(0, next));
              rest = next == std::string_view::npos ? std::string_view{} : rest.substr(next);
            }
          }
          lo += item_lo;
          hi += item_hi;
        }
        if (!s.optional) v.min_mods += lo;
        v.max_mods += hi;
      }
      std::sort(v.words.begin(), v.words.end());
      v.words.erase(std::unique(v.words.begin(), v.words.end()), v.words.end());
      out.push_back(std::move(v));
    }
    return out;
  }();
  return all;
}

bool could_match(const Form& f, std::span<const std::string_view> mods) {
  const Vocabulary& v = vocabularies()[static_cast<size_t>(&f - forms().data())];
  if (mods.size() < v.min_mods || mods.size() > v.max_mods) return false;
  for (std::string_view m : mods)
    if (!std::binary_search(v.words.begin(), v.words.end(), m)) return false;
  return true;
}

}  // namespace

MatchResult match_modifiers(const Form& f, std::span<const std::string_view> mods, std::vector<Choice>& choices) {
  choices.clear();
  // Component groups may use character classes (value_matches); they are not modifiers, so the
  // quick check only ever sees literal texts and modifier values.
  if (!could_match(f, mods)) return MatchResult::None;
  Matcher m(f, mods, choices);
  if (m.strict(0, 0, 0)) return MatchResult::InOrder;
  if (blocks()[f.block].strict_order) return MatchResult::None;
  choices.clear();
  if (m.relaxed()) return MatchResult::Reordered;
  choices.clear();
  return MatchResult::None;
}

}  // namespace ptx::spec::detail
