// Where the cubin cache lives and how large it may grow, from the environment.
#pragma once

#include <cstdint>
#include <string>

namespace ptx::runtime {

struct CacheLocation {
  std::string dir;
  std::string refused;  // why `dir` must not be used, or ""
};

// $PTXPP_CACHE_DIR, $XDG_CACHE_HOME/ptxpp, ~/.cache/ptxpp, or the user's private
// $TMPDIR/ptxpp-cache-<uid> (created with mode 0700; refused unless it is a
// directory the user owns that no one else can write).
CacheLocation default_cache_location();

// $PTXPP_CACHE_MAX_BYTES (1 GiB when unset or empty); Error naming the variable
// when it is not a decimal number of bytes that fits in 64 bits.
uint64_t cache_max_bytes_from_environment();

}  // namespace ptx::runtime
