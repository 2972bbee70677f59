// The on-disk cache of compiled kernels (cubins), keyed by a hash of the PTX, the
// target, the compiler and the driver. Directory: $PTXPP_CACHE_DIR, else
// $XDG_CACHE_HOME/ptxpp, else ~/.cache/ptxpp. Entries are written atomically
// (temporary file + rename), carry a checksum (a corrupt or truncated entry is
// recompiled), and the directory is kept under $PTXPP_CACHE_MAX_BYTES (default
// 1 GiB) by evicting the least recently used entries. Safe with concurrent processes.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace ptx::runtime {

class CubinCache {
 public:
  CubinCache();  // the default directory
  explicit CubinCache(std::string dir, uint64_t max_bytes = 1ull << 30);

  const std::string& dir() const { return dir_; }
  std::optional<std::vector<uint8_t>> get(std::string_view key) const;
  void put(std::string_view key, const std::vector<uint8_t>& cubin) const;

  struct Stats {
    uint64_t entries = 0, bytes = 0, max_bytes = 0;
  };
  Stats stats() const;
  uint64_t clear() const;  // removes every entry; returns how many

  // The key of a compilation: a hex digest of everything that decides the cubin.
  static std::string key(std::string_view ptx, std::string_view target, std::string_view compiler, int driver_version);

 private:
  void evict() const;
  std::string dir_;
  uint64_t max_bytes_;
};

}  // namespace ptx::runtime
