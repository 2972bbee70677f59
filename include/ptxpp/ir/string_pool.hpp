// Interned strings: every name, modifier, string literal and piece of trivia in a
// module is stored once and referred to by a 32-bit handle.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string_view>
#include <vector>

namespace ptx::ir {

// Handle to an interned string. Symbol{0} is the empty string.
struct Symbol {
  uint32_t id = 0;
  constexpr bool empty() const { return id == 0; }
  friend constexpr bool operator==(Symbol, Symbol) = default;
};

// Handle to the whitespace and comments before a token. A default-constructed
// Trivia is "synthesized": the node was built, not parsed, and the printer
// chooses the spacing. Trivia::none() is present but empty.
struct Trivia {
  static constexpr uint32_t kSynthesized = 0xFFFFFFFFu;
  uint32_t id = kSynthesized;
  constexpr bool synthesized() const { return id == kSynthesized; }
  static constexpr Trivia none() { return Trivia{0}; }
  friend constexpr bool operator==(Trivia, Trivia) = default;
};

class StringPool {
 public:
  // Every stored string is followed by at least this many readable bytes, so a
  // reader may copy a fixed 16 bytes and keep only size() of them (the printer
  // does, to avoid a memcpy call per token).
  static constexpr size_t kReadPadding = 16;

  StringPool();
  StringPool(StringPool&&) noexcept = default;
  StringPool& operator=(StringPool&&) noexcept = default;
  StringPool(const StringPool&) = delete;
  StringPool& operator=(const StringPool&) = delete;

  // Returns the id of `s`, adding it if new. Ids are dense and stable.
  uint32_t intern_id(std::string_view s);
  Symbol intern(std::string_view s) { return Symbol{intern_id(s)}; }
  Trivia trivia(std::string_view s) { return Trivia{intern_id(s)}; }
  // Looks `s` up without adding it.
  bool find(std::string_view s, Symbol& out) const;

  std::string_view view(Symbol s) const { return strings_[s.id]; }
  std::string_view view(Trivia t) const { return t.synthesized() ? std::string_view{} : strings_[t.id]; }
  std::string_view view_id(uint32_t id) const { return strings_[id]; }

  size_t size() const { return strings_.size(); }
  // Bytes held by the pool (arena chunks and tables), for memory accounting.
  size_t bytes_reserved() const;

 private:
  std::string_view store(std::string_view s);
  void grow();

  // Open-addressing slot: the id + 1 (0 = free) and the high half of the hash,
  // so most probes are settled without touching the strings.
  struct Slot {
    uint32_t id_plus_1 = 0;
    uint32_t tag = 0;
  };
  std::vector<std::string_view> strings_;   // id -> text (points into chunks_)
  std::vector<uint64_t> hashes_;            // id -> hash (for rehashing)
  std::vector<Slot> table_;
  std::vector<std::unique_ptr<char[]>> chunks_;
  size_t chunk_used_ = 0;
  size_t chunk_size_ = 0;
  size_t chunk_bytes_total_ = 0;
};

}  // namespace ptx::ir
