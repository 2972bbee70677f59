#include "ptxpp/runtime/cache.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <chrono>
#include <cstring>
#include <filesystem>
#include <iostream>
#include <mutex>
#include <random>
#include <set>
#include <utility>

#include <fmt/format.h>
#define XXH_INLINE_ALL
#include <xxhash.h>

#include "cache_location.hpp"
#include "ptxpp/runtime/error.hpp"

namespace ptx::runtime {

namespace fs = std::filesystem;

namespace {

constexpr char kMagic[8] = {'P', 'T', 'X', 'P', 'P', 'C', 'B', '1'};

// What every entry starts with.
struct Header {
  char magic[8];
  uint64_t size;  // of the cubin that follows
  uint64_t sum;   // XXH3-64 of the cubin
};
static_assert(sizeof(Header) == 24);

bool valid_key(std::string_view key) {
  return !key.empty() && key.size() <= 64 && key.find_first_not_of("0123456789abcdef") == std::string_view::npos;
}

// Closes a file descriptor when it goes out of scope, unless closed before.
struct Fd {
  int fd;
  explicit Fd(int f) : fd(f) {}
  Fd(const Fd&) = delete;
  Fd& operator=(const Fd&) = delete;
  ~Fd() {
    if (fd >= 0) ::close(fd);
  }
  // A write can fail at close (NFS, quotas): writers check it.
  bool close() { return ::close(std::exchange(fd, -1)) == 0; }
};

bool read_all(int fd, void* data, size_t n) {
  auto* p = static_cast<char*>(data);
  while (n > 0) {
    const ssize_t got = ::read(fd, p, n);
    if (got < 0 && errno == EINTR) continue;
    if (got <= 0) return false;
    p += got;
    n -= static_cast<size_t>(got);
  }
  return true;
}

bool write_all(int fd, const void* data, size_t n) {
  const auto* p = static_cast<const char*>(data);
  while (n > 0) {
    const ssize_t put = ::write(fd, p, n);
    if (put < 0 && errno == EINTR) continue;
    if (put <= 0) return false;
    p += put;
    n -= static_cast<size_t>(put);
  }
  return true;
}

// The first n bytes of a regular file (not following links; fewer when it is
// shorter), or nullopt when `p` is not one.
std::optional<std::string> file_start(const fs::path& p, size_t n) {
  Fd f{::open(p.c_str(), O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK)};
  struct stat st {};
  if (f.fd < 0 || ::fstat(f.fd, &st) != 0 || !S_ISREG(st.st_mode)) return std::nullopt;
  std::string out(n, '\0');
  size_t got = 0;
  while (got < n) {
    const ssize_t r = ::read(f.fd, out.data() + got, n - got);
    if (r < 0 && errno == EINTR) continue;
    if (r <= 0) break;
    got += static_cast<size_t>(r);
  }
  out.resize(got);
  return out;
}

// A file the cache wrote: `<key>.cubin`, a regular file starting with the magic.
bool is_entry(const fs::directory_entry& e) {
  const fs::path& p = e.path();
  return p.extension() == ".cubin" && valid_key(p.stem().string()) &&
         file_start(p, sizeof kMagic) == std::string_view(kMagic, sizeof kMagic);
}

// A temporary file of a put: `.tmp-<pid>-<count>-<random>`, holding the start of an entry.
bool is_temporary(const fs::directory_entry& e) {
  const std::string name = e.path().filename().string();
  if (!name.starts_with(".tmp-")) return false;
  int dashes = 0;
  for (char c : std::string_view(name).substr(5)) {
    if (c == '-')
      ++dashes;
    else if (c < '0' || c > '9')
      return false;
  }
  if (dashes != 2) return false;
  const std::optional<std::string> start = file_start(e.path(), sizeof kMagic);
  return start && std::string_view(kMagic, start->size()) == *start;  // empty or a prefix of the header
}

// The cache's own files in `dir`, listed; Error when the directory cannot be read.
struct Listing {
  std::vector<fs::directory_entry> entries, temporaries;
};
Listing list(const std::string& dir) {
  Listing out;
  std::error_code ec;
  fs::directory_iterator it(dir, ec);
  if (ec == std::errc::no_such_file_or_directory) return out;  // nothing cached yet
  for (; !ec && it != fs::directory_iterator(); it.increment(ec)) {
    if (is_entry(*it))
      out.entries.push_back(*it);
    else if (is_temporary(*it))
      out.temporaries.push_back(*it);
  }
  if (ec) throw Error(fmt::format("cannot read the kernel cache {}: {}", dir, ec.message()));
  return out;
}

}  // namespace

CubinCache::CubinCache() : max_bytes_(cache_max_bytes_from_environment()) {
  CacheLocation loc = default_cache_location();
  dir_ = std::move(loc.dir);
  refused_ = std::move(loc.refused);
}

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

std::string CubinCache::problem() const {
  if (!refused_.empty()) return refused_;
  struct stat st {};
  if (::stat(dir_.c_str(), &st) != 0)
    return errno == ENOENT ? "" : fmt::format("cannot use the kernel cache {}: {}", dir_, std::strerror(errno));
  if (!S_ISDIR(st.st_mode)) return fmt::format("the kernel cache {} is not a directory", dir_);
  if (::access(dir_.c_str(), R_OK | W_OK | X_OK) != 0)
    return fmt::format("the kernel cache {} is not writable: {}", dir_, std::strerror(errno));
  return "";
}

void CubinCache::warn_once(const std::string& why) const {
  static std::mutex mu;
  static std::set<std::string> warned;  // directories
  const std::lock_guard<std::mutex> lock(mu);
  if (!warned.insert(dir_).second) return;
  std::cerr << "ptxpp: warning: " << why << "; compiled kernels are not cached (see `ptxpp cache stats`)\n";
}

std::optional<std::vector<uint8_t>> CubinCache::get(std::string_view key) const {
  if (!valid_key(key)) return std::nullopt;
  if (!refused_.empty()) {
    warn_once(refused_);
    return std::nullopt;
  }
  const fs::path p = fs::path(dir_) / (std::string(key) + ".cubin");
  Fd f{::open(p.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK)};
  if (f.fd < 0) {
    if (errno != ENOENT) warn_once(fmt::format("cannot read {}: {}", p.string(), std::strerror(errno)));
    return std::nullopt;  // ENOENT: not cached yet (or no directory yet)
  }
  struct stat st {};
  Header h{};
  // The size is checked against the file before anything is allocated for it.
  if (::fstat(f.fd, &st) != 0 || !S_ISREG(st.st_mode) || !read_all(f.fd, &h, sizeof h) ||
      std::memcmp(h.magic, kMagic, sizeof kMagic) != 0 || static_cast<uint64_t>(st.st_size) - sizeof h != h.size)
    return std::nullopt;  // truncated or not an entry: the caller recompiles and overwrites it
  std::vector<uint8_t> data(h.size);
  if (!read_all(f.fd, data.data(), data.size()) || XXH3_64bits(data.data(), data.size()) != h.sum)
    return std::nullopt;  // corrupt
  std::error_code ec;
  fs::last_write_time(p, fs::file_time_type::clock::now(), ec);  // recently used
  return data;
}

void CubinCache::put(std::string_view key, const std::vector<uint8_t>& cubin) const {
  if (!valid_key(key)) return;
  if (std::string why = problem(); !why.empty()) return warn_once(why);
  std::error_code ec;
  fs::create_directories(dir_, ec);
  if (ec) return warn_once(fmt::format("cannot create the kernel cache {}: {}", dir_, ec.message()));
  static std::atomic<uint64_t> counter{0};
  const fs::path tmp = fs::path(dir_) / fmt::format(".tmp-{}-{}-{}", ::getpid(), counter++, std::random_device{}());
  {
    Fd f{::open(tmp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644)};
    if (f.fd < 0) return warn_once(fmt::format("cannot write to the kernel cache {}: {}", dir_, std::strerror(errno)));
    Header h{};
    std::memcpy(h.magic, kMagic, sizeof kMagic);
    h.size = cubin.size();
    h.sum = XXH3_64bits(cubin.data(), cubin.size());
    if (!write_all(f.fd, &h, sizeof h) || !write_all(f.fd, cubin.data(), cubin.size()) || !f.close()) {
      const int err = errno;
      fs::remove(tmp, ec);
      return warn_once(fmt::format("cannot write {}: {}", tmp.string(), std::strerror(err)));
    }
  }
  const fs::path entry = fs::path(dir_) / (std::string(key) + ".cubin");
  fs::rename(tmp, entry, ec);  // atomic: readers see all or nothing
  if (ec) {
    fs::remove(tmp, ec);
    return warn_once(fmt::format("cannot write {}: {}", entry.string(), ec.message()));
  }
  evict();
}

CubinCache::Stats CubinCache::stats() const {
  if (std::string why = problem(); !why.empty()) throw Error(why);
  Stats s;
  s.max_bytes = max_bytes_;
  for (const fs::directory_entry& e : list(dir_).entries) {
    std::error_code ec;
    const uint64_t bytes = e.file_size(ec);
    if (ec) continue;  // removed by another process meanwhile
    ++s.entries;
    s.bytes += bytes;
  }
  return s;
}

uint64_t CubinCache::clear() const {
  if (std::string why = problem(); !why.empty()) throw Error(why);
  const Listing l = list(dir_);
  uint64_t removed = 0;
  std::string failure;
  for (const fs::directory_entry& e : l.entries) {
    std::error_code ec;
    if (fs::remove(e.path(), ec))
      ++removed;
    else if (ec && failure.empty())
      failure = fmt::format("{}: {}", e.path().string(), ec.message());
  }
  if (!failure.empty())
    throw Error(fmt::format("removed {} of the {} entries of the kernel cache {}; cannot remove {}", removed,
                            l.entries.size(), dir_, failure));
  return removed;
}

void CubinCache::evict() const {
  struct Entry {
    fs::path path;
    fs::file_time_type used;
    uint64_t bytes;
  };
  std::vector<Entry> entries;
  uint64_t total = 0;
  const auto now = fs::file_time_type::clock::now();
  Listing l;
  try {
    l = list(dir_);
  } catch (const Error& e) {
    return warn_once(e.what());
  }
  std::error_code ec;
  for (const fs::directory_entry& e : l.temporaries) {
    // a writer that died before its rename: gone after an hour (live writers take milliseconds)
    const fs::file_time_type t = e.last_write_time(ec);
    if (!ec && now - t > std::chrono::hours(1)) fs::remove(e.path(), ec);
  }
  for (const fs::directory_entry& e : l.entries) {
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
