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

// Names and trivia are short: an inline loop beats a call to memcmp.
bool same(std::string_view a, std::string_view b) {
  if (a.size() != b.size()) return false;
  for (size_t i = 0; i < a.size(); ++i)
    if (a[i] != b[i]) return false;
  return true;
}
}  // namespace

StringPool::StringPool() : table_(kInitialTable, 0) {
  strings_.push_back(std::string_view{});  // id 0: the empty string
  hashes_.push_back(hash_of({}));
  table_[hashes_[0] & (table_.size() - 1)] = 1;
}

std::string_view StringPool::store(std::string_view s) {
  if (s.empty()) return {};
  if (s.size() > kFirstChunk / 4) {
    // Large strings (long comments) get a chunk of their own.
    chunks_.push_back(std::make_unique<char[]>(s.size()));
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
    chunks_.push_back(std::make_unique<char[]>(size));
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
  std::vector<uint32_t> bigger(table_.size() * 2, 0);
  const size_t mask = bigger.size() - 1;
  for (uint32_t id = 0; id < strings_.size(); ++id) {
    size_t i = hashes_[id] & mask;
    while (bigger[i] != 0) i = (i + 1) & mask;
    bigger[i] = id + 1;
  }
  table_.swap(bigger);
}

uint32_t StringPool::intern_id(std::string_view s) {
  const uint64_t h = hash_of(s);
  const size_t mask = table_.size() - 1;
  size_t i = h & mask;
  while (uint32_t slot = table_[i]) {
    const uint32_t id = slot - 1;
    if (hashes_[id] == h && same(strings_[id], s)) return id;
    i = (i + 1) & mask;
  }
  const auto id = static_cast<uint32_t>(strings_.size());
  strings_.push_back(store(s));
  hashes_.push_back(h);
  table_[i] = id + 1;
  if (strings_.size() * 2 > table_.size()) grow();
  return id;
}

bool StringPool::find(std::string_view s, Symbol& out) const {
  const uint64_t h = hash_of(s);
  const size_t mask = table_.size() - 1;
  for (size_t i = h & mask; uint32_t slot = table_[i]; i = (i + 1) & mask) {
    const uint32_t id = slot - 1;
    if (hashes_[id] == h && same(strings_[id], s)) {
      out = Symbol{id};
      return true;
    }
  }
  return false;
}

size_t StringPool::bytes_reserved() const {
  return chunk_bytes_total_ + strings_.capacity() * sizeof(std::string_view) +
         hashes_.capacity() * sizeof(uint64_t) + table_.capacity() * sizeof(uint32_t);
}

}  // namespace ptx::ir
