#include "ptxpp/ir/string_pool.hpp"

#include <algorithm>
#include <cstring>

#define XXH_INLINE_ALL
#include <xxhash.h>

namespace ptx::ir {

namespace {
constexpr size_t kChunk = 64 * 1024;
constexpr size_t kFirstChunk = 4 * 1024;
constexpr size_t kInitialTable = 256;

uint64_t hash_of(std::string_view s) { return XXH3_64bits(s.data(), s.size()); }

}  // namespace

StringPool::StringPool() : table_(kInitialTable) {
  strings_.push_back(std::string_view{});  // id 0: the empty string
  hashes_.push_back(hash_of({}));
  table_[hashes_[0] & (table_.size() - 1)] = Slot{1, static_cast<uint32_t>(hashes_[0] >> 32)};
}

std::string_view StringPool::store(std::string_view s) {
  if (s.empty()) return {};
  if (s.size() > kFirstChunk / 4) {
    // Large strings (long comments) get a chunk of their own.
    chunks_.push_back(std::make_unique<char[]>(s.size() + kReadPadding));
    chunk_bytes_total_ += s.size();
    std::memcpy(chunks_.back().get(), s.data(), s.size());
    std::string_view out{chunks_.back().get(), s.size()};
    // Keep using the previous small chunk: move the big one below it.
    if (chunks_.size() >= 2) std::swap(chunks_[chunks_.size() - 1], chunks_[chunks_.size() - 2]);
    return out;
  }
  if (chunks_.empty() || chunk_used_ + s.size() > chunk_size_) {
    // Chunks grow from 4 KiB to 64 KiB, so small modules stay small.
    const size_t size = std::clamp<size_t>(chunk_bytes_total_, kFirstChunk, kChunk);
    chunks_.push_back(std::make_unique<char[]>(size + kReadPadding));
    chunk_bytes_total_ += size;
    chunk_size_ = size;
    chunk_used_ = 0;
  }
  char* dst = chunks_.back().get() + chunk_used_;
  std::memcpy(dst, s.data(), s.size());
  chunk_used_ += s.size();
  return {dst, s.size()};
}

void StringPool::grow() {
  std::vector<Slot> bigger(table_.size() * 2);
  const size_t mask = bigger.size() - 1;
  for (uint32_t id = 0; id < strings_.size(); ++id) {
    size_t i = hashes_[id] & mask;
    while (bigger[i].id_plus_1 != 0) i = (i + 1) & mask;
    bigger[i] = Slot{id + 1, static_cast<uint32_t>(hashes_[id] >> 32)};
  }
  table_.swap(bigger);
}

uint32_t StringPool::intern_id(std::string_view s) {
  const uint64_t h = hash_of(s);
  const auto tag = static_cast<uint32_t>(h >> 32);
  const size_t mask = table_.size() - 1;
  size_t i = h & mask;
  for (Slot slot; (slot = table_[i]).id_plus_1 != 0; i = (i + 1) & mask) {
    if (slot.tag != tag) continue;
    const std::string_view e = strings_[slot.id_plus_1 - 1];
    if (e.size() == s.size() && (s.empty() || std::memcmp(e.data(), s.data(), s.size()) == 0)) return slot.id_plus_1 - 1;
  }
  const auto id = static_cast<uint32_t>(strings_.size());
  strings_.push_back(store(s));
  hashes_.push_back(h);
  table_[i] = Slot{id + 1, tag};
  if (strings_.size() * 2 > table_.size()) grow();
  return id;
}

bool StringPool::find(std::string_view s, Symbol& out) const {
  const uint64_t h = hash_of(s);
  const auto tag = static_cast<uint32_t>(h >> 32);
  const size_t mask = table_.size() - 1;
  for (size_t i = h & mask; table_[i].id_plus_1 != 0; i = (i + 1) & mask) {
    const Slot slot = table_[i];
    if (slot.tag != tag) continue;
    const std::string_view e = strings_[slot.id_plus_1 - 1];
    if (e.size() == s.size() && (s.empty() || std::memcmp(e.data(), s.data(), s.size()) == 0)) {
      out = Symbol{slot.id_plus_1 - 1};
      return true;
    }
  }
  return false;
}

size_t StringPool::bytes_reserved() const {
  return chunk_bytes_total_ + strings_.capacity() * sizeof(std::string_view) +
         hashes_.capacity() * sizeof(uint64_t) + table_.capacity() * sizeof(Slot);
}

}  // namespace ptx::ir
