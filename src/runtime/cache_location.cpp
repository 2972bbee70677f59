#include "cache_location.hpp"

#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <charconv>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <string_view>

#include <fmt/format.h>

#include "ptxpp/runtime/error.hpp"

namespace ptx::runtime {

namespace fs = std::filesystem;

namespace {

constexpr const char* kWhy = "the cache directory when neither HOME nor XDG_CACHE_HOME is set";

// Why the private directory `dir` must not hold the cache of user `uid`, or "".
// mkdir is atomic, and in a sticky /tmp no one else can replace the directory once
// it is ours, so the check holds for the directory's life.
std::string private_dir_problem(const std::string& dir, uid_t uid) {
  if (::mkdir(dir.c_str(), 0700) != 0 && errno != EEXIST)
    return fmt::format("cannot create {} ({}): {}", dir, kWhy, std::strerror(errno));
  struct stat st {};
  if (::lstat(dir.c_str(), &st) != 0) return fmt::format("cannot inspect {} ({}): {}", dir, kWhy, std::strerror(errno));
  if (!S_ISDIR(st.st_mode))
    return fmt::format("{} ({}) is not a directory but a {}; not using it", dir, kWhy,
                       S_ISLNK(st.st_mode) ? "symbolic link" : "file");
  if (st.st_uid != uid)
    return fmt::format("{} ({}) belongs to uid {}, not to this user (uid {}): another user could plant kernels in it",
                       dir, kWhy, st.st_uid, uid);
  if (st.st_mode & (S_IWGRP | S_IWOTH))
    return fmt::format("{} ({}) can be written by other users (mode {:04o}): they could plant kernels in it", dir, kWhy,
                       st.st_mode & 07777);
  return "";
}

CacheLocation private_tmp_dir() {
  std::error_code ec;
  fs::path tmp = fs::temp_directory_path(ec);  // $TMPDIR, else /tmp
  if (ec) tmp = "/tmp";
  const uid_t uid = ::geteuid();
  CacheLocation loc;
  loc.dir = (tmp / fmt::format("ptxpp-cache-{}", uid)).string();
  loc.refused = private_dir_problem(loc.dir, uid);
  return loc;
}

}  // namespace

CacheLocation default_cache_location() {
  if (const char* d = std::getenv("PTXPP_CACHE_DIR"); d && *d) return {d, ""};
  if (const char* x = std::getenv("XDG_CACHE_HOME"); x && *x) return {(fs::path(x) / "ptxpp").string(), ""};
  if (const char* h = std::getenv("HOME"); h && *h) return {(fs::path(h) / ".cache" / "ptxpp").string(), ""};
  return private_tmp_dir();
}

uint64_t cache_max_bytes_from_environment() {
  const char* env = std::getenv("PTXPP_CACHE_MAX_BYTES");
  if (!env || !*env) return 1ull << 30;
  const std::string_view v = env;
  uint64_t n = 0;
  const auto [end, ec] = std::from_chars(v.data(), v.data() + v.size(), n);
  if (ec == std::errc{} && end == v.data() + v.size()) return n;
  const char* why = v.front() == '-'                       ? "cannot be negative"
                    : ec == std::errc::result_out_of_range ? "is larger than 18446744073709551615"
                                                           : "is not a decimal number of bytes";
  throw Error(
      fmt::format("PTXPP_CACHE_MAX_BYTES='{}' {}: set it to the cache's size limit in bytes, e.g. 1073741824", v, why));
}

}  // namespace ptx::runtime
