// The on-disk cache of compiled kernels (cubins), keyed by a hash of the PTX, the
// target, the compiler and the driver. Directory: $PTXPP_CACHE_DIR, else
// $XDG_CACHE_HOME/ptxpp, else ~/.cache/ptxpp, else (neither HOME nor
// XDG_CACHE_HOME set) a private $TMPDIR/ptxpp-cache-<uid>, created with mode 0700
// and refused when it is not a directory of the user's own that only they can
// write. Entries are written atomically (temporary file + rename), carry a size
// and a checksum checked against the file (a corrupt or truncated entry is
// recompiled), and the directory is kept under $PTXPP_CACHE_MAX_BYTES (default
// 1 GiB) by evicting the least recently used entries. Only files the cache wrote
// (named <hex key>.cubin, starting with its header) are counted, evicted or
// cleared. Safe with concurrent processes.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace ptx::runtime {

class CubinCache {
 public:
  // The default directory and size limit. Throws Error naming the variable when
  // PTXPP_CACHE_MAX_BYTES is not a decimal number of bytes.
  CubinCache();
  explicit CubinCache(std::string dir, uint64_t max_bytes = 1ull << 30);

  const std::string& dir() const { return dir_; }
  // Why the directory cannot be used (not a directory, not writable, refused as
  // unsafe), or "" when it can. A missing directory can: put creates it.
  std::string problem() const;

  // A hit, or nullopt for a miss. A compiler run must not fail because its cache
  // cannot be used: get and put then miss and skip, and say why once per process
  // and directory on stderr.
  std::optional<std::vector<uint8_t>> get(std::string_view key) const;
  void put(std::string_view key, const std::vector<uint8_t>& cubin) const;

  struct Stats {
    uint64_t entries = 0, bytes = 0, max_bytes = 0;
  };
  // Both throw Error when the directory cannot be used (see problem()); clear also
  // when an entry cannot be removed, saying how many were.
  Stats stats() const;
  uint64_t clear() const;  // removes every entry; returns how many

  // The key of a compilation: a hex digest of everything that decides the cubin.
  static std::string key(std::string_view ptx, std::string_view target, std::string_view compiler, int driver_version);

 private:
  void evict() const;
  void warn_once(const std::string& why) const;
  std::string dir_;
  uint64_t max_bytes_;
  std::string refused_;  // why the private fallback directory is not safe, if it is not
};

}  // namespace ptx::runtime
