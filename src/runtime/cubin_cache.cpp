#include "ptxpp/runtime/cache.hpp"

#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <random>

#include <fmt/format.h>
#define XXH_INLINE_ALL
#include <xxhash.h>

namespace ptx::runtime {

namespace fs = std::filesystem;

namespace {

constexpr char kMagic[8] = {'P', 'T', 'X', 'P', 'P', 'C', 'B', '1'};

std::string default_dir() {
  if (const char* d = std::getenv("PTXPP_CACHE_DIR"); d && *d) return d;
  if (const char* x = std::getenv("XDG_CACHE_HOME"); x && *x) return (fs::path(x) / "ptxpp").string();
  if (const char* h = std::getenv("HOME"); h && *h) return (fs::path(h) / ".cache" / "ptxpp").string();
  return (fs::temp_directory_path() / "ptxpp-cache").string();
}

uint64_t default_max() {
  if (const char* m = std::getenv("PTXPP_CACHE_MAX_BYTES"); m && *m) return std::strtoull(m, nullptr, 10);
  return 1ull << 30;
}

bool valid_key(std::string_view key) {
  return !key.empty() && key.size() <= 64 && key.find_first_not_of("0123456789abcdef") == std::string_view::npos;
}

}  // namespace

CubinCache::CubinCache() : CubinCache(default_dir(), default_max()) {}
CubinCache::CubinCache(std::string dir, uint64_t max_bytes) : dir_(std::move(dir)), max_bytes_(max_bytes) {}

std::string CubinCache::key(std::string_view ptx, std::string_view target, std::string_view compiler, int driver_version) {
  XXH3_state_t* st = XXH3_createState();
  XXH3_128bits_reset(st);
  auto add = [&](std::string_view s) {
    const uint64_t n = s.size();
    XXH3_128bits_update(st, &n, sizeof n);
    XXH3_128bits_update(st, s.data(), s.size());
  };
  add(ptx);
  add(target);
  add(compiler);
  add(std::to_string(driver_version));
  const XXH128_hash_t h = XXH3_128bits_digest(st);
  XXH3_freeState(st);
  return fmt::format("{:016x}{:016x}", h.high64, h.low64);
}

std::optional<std::vector<uint8_t>> CubinCache::get(std::string_view key) const {
  if (!valid_key(key)) return std::nullopt;
  const fs::path p = fs::path(dir_) / (std::string(key) + ".cubin");
  std::ifstream in(p, std::ios::binary);
  if (!in) return std::nullopt;
  char magic[8];
  uint64_t size = 0, sum = 0;
  in.read(magic, 8);
  in.read(reinterpret_cast<char*>(&size), 8);
  in.read(reinterpret_cast<char*>(&sum), 8);
  if (!in || std::memcmp(magic, kMagic, 8) != 0 || size > (1ull << 32)) return std::nullopt;
  std::vector<uint8_t> data(size);
  in.read(reinterpret_cast<char*>(data.data()), static_cast<std::streamsize>(size));
  if (!in || in.gcount() != static_cast<std::streamsize>(size) || XXH3_64bits(data.data(), data.size()) != sum)
    return std::nullopt;  // truncated or corrupt: the caller recompiles and overwrites it
  std::error_code ec;
  fs::last_write_time(p, fs::file_time_type::clock::now(), ec);  // recently used
  return data;
}

void CubinCache::put(std::string_view key, const std::vector<uint8_t>& cubin) const {
  if (!valid_key(key)) return;
  std::error_code ec;
  fs::create_directories(dir_, ec);
  static std::atomic<uint64_t> counter{0};
  const fs::path tmp = fs::path(dir_) / fmt::format(".tmp-{}-{}-{}", ::getpid(), counter++, std::random_device{}());
  {
    std::ofstream out(tmp, std::ios::binary);
    if (!out) return;  // an unwritable cache is not an error: the kernel still runs
    const uint64_t size = cubin.size(), sum = XXH3_64bits(cubin.data(), cubin.size());
    out.write(kMagic, 8);
    out.write(reinterpret_cast<const char*>(&size), 8);
    out.write(reinterpret_cast<const char*>(&sum), 8);
    out.write(reinterpret_cast<const char*>(cubin.data()), static_cast<std::streamsize>(cubin.size()));
    if (!out) {
      fs::remove(tmp, ec);
      return;
    }
  }
  fs::rename(tmp, fs::path(dir_) / (std::string(key) + ".cubin"), ec);  // atomic: readers see all or nothing
  if (ec) fs::remove(tmp, ec);
  evict();
}

CubinCache::Stats CubinCache::stats() const {
  Stats s;
  s.max_bytes = max_bytes_;
  std::error_code ec;
  for (const auto& e : fs::directory_iterator(dir_, ec)) {
    if (e.path().extension() != ".cubin") continue;
    const uint64_t bytes = e.file_size(ec);
    if (ec) continue;  // removed by another process meanwhile
    ++s.entries;
    s.bytes += bytes;
  }
  return s;
}

uint64_t CubinCache::clear() const {
  uint64_t n = 0;
  std::error_code ec;
  for (const auto& e : fs::directory_iterator(dir_, ec))
    if (e.path().extension() == ".cubin" && fs::remove(e.path(), ec)) ++n;
  return n;
}

void CubinCache::evict() const {
  std::error_code ec;
  struct Entry {
    fs::path path;
    fs::file_time_type used;
    uint64_t bytes;
  };
  std::vector<Entry> entries;
  uint64_t total = 0;
  const auto now = fs::file_time_type::clock::now();
  for (const auto& e : fs::directory_iterator(dir_, ec)) {
    if (e.path().filename().string().starts_with(".tmp-")) {
      // a writer that died before its rename: gone after an hour (live writers take milliseconds)
      const fs::file_time_type t = e.last_write_time(ec);
      if (!ec && now - t > std::chrono::hours(1)) fs::remove(e.path(), ec);
      continue;
    }
    if (e.path().extension() != ".cubin") continue;
    const fs::file_time_type used = e.last_write_time(ec);
    if (ec) continue;  // removed by another process meanwhile
    const uint64_t bytes = e.file_size(ec);
    if (ec) continue;
    entries.push_back({e.path(), used, bytes});
    total += bytes;
  }
  if (total <= max_bytes_) return;
  std::sort(entries.begin(), entries.end(), [](const Entry& a, const Entry& b) { return a.used < b.used; });
  for (const Entry& e : entries) {
    if (total <= max_bytes_ / 10 * 9) break;
    if (fs::remove(e.path, ec)) total -= e.bytes;
  }
}

}  // namespace ptx::runtime
