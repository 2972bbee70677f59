// The cubin cache against hostile or broken directories: lying headers, files it
// did not write, read-only and not-a-directory paths, bad environment values, and
// a private directory when there is no home.
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <functional>
#include <map>
#include <new>
#include <optional>
#include <string>

#include <ptxpp/runtime.hpp>

namespace ptx::test {
namespace {

namespace fs = std::filesystem;

#if defined(__SANITIZE_ADDRESS__)
constexpr bool kAsan = true;
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
constexpr bool kAsan = true;
#else
constexpr bool kAsan = false;
#endif
#else
constexpr bool kAsan = false;
#endif

// Sets environment variables for one test and puts the old values back.
class Env {
 public:
  ~Env() {
    for (const auto& [name, value] : saved_) {
      if (value)
        ::setenv(name.c_str(), value->c_str(), 1);
      else
        ::unsetenv(name.c_str());
    }
  }
  void set(const std::string& name, const std::optional<std::string>& value) {
    if (!saved_.count(name)) {
      const char* old = std::getenv(name.c_str());
      saved_[name] = old ? std::optional<std::string>(old) : std::nullopt;
    }
    if (value)
      ::setenv(name.c_str(), value->c_str(), 1);
    else
      ::unsetenv(name.c_str());
  }

 private:
  std::map<std::string, std::optional<std::string>> saved_;
};

class Cache : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / ("ptxpp-cache-" + std::to_string(::getpid()) + "-" +
                                        ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(dir_);
    fs::create_directories(dir_);
  }
  void TearDown() override {
    std::error_code ec;
    fs::permissions(dir_, fs::perms::owner_all, fs::perm_options::add, ec);
    fs::remove_all(dir_, ec);
  }
  static void write(const fs::path& p, const std::string& bytes) { std::ofstream(p, std::ios::binary) << bytes; }
  static std::string key(int n) { return runtime::CubinCache::key("ptx " + std::to_string(n), "sm_90a", "test", 1); }
  // What `f` throws as runtime::Error ("" when nothing).
  static std::string error_of(const std::function<void()>& f) {
    try {
      f();
    } catch (const runtime::Error& e) {
      return e.what();
    }
    return "";
  }
  static bool root() { return ::geteuid() == 0; }

  fs::path dir_;
};

// An entry's header: the magic, then the cubin's size and checksum.
std::string header(uint64_t size, uint64_t sum = 0) {
  std::string h = "PTXPPCB1";
  h.append(reinterpret_cast<const char*>(&size), 8);
  h.append(reinterpret_cast<const char*>(&sum), 8);
  return h;
}

TEST_F(Cache, AHeaderClaimingMoreThanTheFileIsAMissWithoutAllocatingIt) {
  const runtime::CubinCache cache(dir_.string());
  const std::string k = key(1);
  write(dir_ / (k + ".cubin"), header(4ull << 30));  // 24 bytes that claim 4 GiB
  // In a child whose address space cannot hold 4 GiB more: allocating first aborts it.
  const pid_t pid = ::fork();
  ASSERT_GE(pid, 0);
  if (pid == 0) {
    if (!kAsan) {  // ASan reserves terabytes of shadow memory: no limit fits it
      unsigned long pages = 0;
      std::ifstream("/proc/self/statm") >> pages;
      const rlim_t room = pages * static_cast<rlim_t>(::sysconf(_SC_PAGESIZE)) + (1ull << 30);
      const rlimit limit{room, room};
      ::setrlimit(RLIMIT_AS, &limit);
    }
    try {
      ::_exit(cache.get(k) ? 2 : 0);
    } catch (const std::bad_alloc&) {
      ::_exit(3);
    }
  }
  int status = 0;
  ASSERT_EQ(::waitpid(pid, &status, 0), pid);
  ASSERT_TRUE(WIFEXITED(status)) << "status " << status;
  EXPECT_NE(WEXITSTATUS(status), 3) << "get allocated the 4 GiB the header claims";
  EXPECT_EQ(WEXITSTATUS(status), 0) << "a hit on a 24-byte entry";
  // one byte more or less than the header says: a miss too
  const std::vector<uint8_t> blob(100, 7);
  cache.put(k, blob);
  ASSERT_EQ(cache.get(k), blob);
  fs::resize_file(dir_ / (k + ".cubin"), 24 + 99);
  EXPECT_FALSE(cache.get(k));
  cache.put(k, blob);
  { std::ofstream(dir_ / (k + ".cubin"), std::ios::binary | std::ios::app) << 'x'; }
  EXPECT_FALSE(cache.get(k));
}

TEST_F(Cache, ClearAndEvictionTouchOnlyTheCachesOwnFiles) {
  runtime::CubinCache cache(dir_.string(), 3000);
  const std::vector<uint8_t> blob(1000, 7);
  cache.put(key(1), blob);
  // the user's files: wrong names, a right name without the header, a link, a directory
  const std::string lookalike = std::string(32, 'a') + ".cubin";
  write(dir_ / "mine.cubin", "PTXPPCB1 but not a key");
  write(dir_ / lookalike, std::string(5000, 'u'));  // larger than the whole cache limit
  write(dir_ / "README", "notes");
  write(dir_ / ".tmp-notes", "PTXPPCB1");
  write(dir_ / ".tmp-1-2-3", "user data, not an entry");
  fs::create_directory(dir_ / (std::string(32, 'b') + ".cubin"));
  fs::create_symlink(dir_ / (key(1) + ".cubin"), dir_ / (std::string(32, 'c') + ".cubin"));
  // stale temporary files: a dead writer's (removed by eviction) and the user's (kept)
  write(dir_ / ".tmp-9-9-9", "PTXPP");
  const auto old = fs::file_time_type::clock::now() - std::chrono::hours(2);
  for (const char* t : {".tmp-9-9-9", ".tmp-1-2-3", ".tmp-notes"}) fs::last_write_time(dir_ / t, old);

  EXPECT_EQ(cache.stats().entries, 1u);  // the user's files are not counted
  EXPECT_EQ(cache.stats().bytes, 1024u);
  for (int i = 2; i < 8; ++i) cache.put(key(i), blob);  // eviction runs: the limit holds two entries
  EXPECT_LE(cache.stats().bytes, 3000u);
  EXPECT_FALSE(fs::exists(dir_ / ".tmp-9-9-9"));
  EXPECT_GE(cache.clear(), 1u);
  EXPECT_EQ(cache.stats().entries, 0u);
  for (const std::string name : {"mine.cubin", lookalike.c_str(), "README", ".tmp-notes", ".tmp-1-2-3"})
    EXPECT_TRUE(fs::exists(dir_ / name)) << name << " was deleted";
  EXPECT_EQ(fs::file_size(dir_ / lookalike), 5000u);
  EXPECT_TRUE(fs::is_directory(dir_ / (std::string(32, 'b') + ".cubin")));
  EXPECT_TRUE(fs::is_symlink(dir_ / (std::string(32, 'c') + ".cubin")));
}

TEST_F(Cache, APathThatIsAFileIsReported) {
  const fs::path file = dir_ / "not-a-dir";
  write(file, "x");
  const runtime::CubinCache cache(file.string());
  EXPECT_EQ(cache.problem(), "the kernel cache " + file.string() + " is not a directory");
  EXPECT_EQ(error_of([&] { cache.stats(); }), cache.problem());
  EXPECT_EQ(error_of([&] { cache.clear(); }), cache.problem());
  // the runtime goes on without a cache, and says so once
  ::testing::internal::CaptureStderr();
  EXPECT_FALSE(cache.get(key(1)));
  cache.put(key(1), std::vector<uint8_t>(10, 1));
  EXPECT_FALSE(cache.get(key(1)));
  cache.put(key(2), std::vector<uint8_t>(10, 1));
  const std::string err = ::testing::internal::GetCapturedStderr();
  const std::string warning = "ptxpp: warning: cannot read " + (file / (key(1) + ".cubin")).string() +
                              ": Not a directory; compiled kernels are not cached";
  EXPECT_NE(err.find(warning), std::string::npos) << err;
  EXPECT_EQ(err.find("warning", err.find("warning") + 1), std::string::npos) << "said more than once:\n" << err;
  EXPECT_EQ(std::ifstream(file).get(), 'x');
}

TEST_F(Cache, AReadOnlyDirectoryIsReported) {
  if (root())
    GTEST_SKIP() << "running as root: permissions do not stop root's writes (the not-a-directory test covers "
                    "the report path)";
  const runtime::CubinCache cache(dir_.string());
  const std::vector<uint8_t> blob(10, 1);
  cache.put(key(1), blob);
  fs::permissions(dir_, fs::perms::owner_read | fs::perms::owner_exec);
  EXPECT_EQ(cache.problem(), "the kernel cache " + dir_.string() + " is not writable: Permission denied");
  EXPECT_EQ(error_of([&] { cache.clear(); }), cache.problem());
  EXPECT_EQ(error_of([&] { cache.stats(); }), cache.problem());
  EXPECT_EQ(cache.get(key(1)), blob);  // reading still works
  ::testing::internal::CaptureStderr();
  cache.put(key(2), blob);
  cache.put(key(3), blob);
  const std::string err = ::testing::internal::GetCapturedStderr();
  EXPECT_NE(err.find("ptxpp: warning: the kernel cache " + dir_.string() + " is not writable"), std::string::npos)
      << err;
  EXPECT_EQ(err.find("warning", err.find("warning") + 1), std::string::npos) << "said more than once:\n" << err;
  EXPECT_FALSE(cache.get(key(2)));
}

TEST_F(Cache, BadSizeLimitsAreErrorsNamingTheVariable) {
  Env env;
  for (const auto& [value, why] : std::initializer_list<std::pair<const char*, const char*>>{
           {"abc", "is not a decimal number of bytes"},
           {"12abc", "is not a decimal number of bytes"},
           {" 5", "is not a decimal number of bytes"},
           {"1e9", "is not a decimal number of bytes"},
           {"-5", "cannot be negative"},
           {"99999999999999999999999", "is larger than 18446744073709551615"}}) {
    SCOPED_TRACE(value);
    env.set("PTXPP_CACHE_MAX_BYTES", value);
    EXPECT_EQ(error_of([] { runtime::CubinCache c; }),
              std::string("PTXPP_CACHE_MAX_BYTES='") + value + "' " + why +
                  ": set it to the cache's size limit in bytes, e.g. 1073741824");
  }
  env.set("PTXPP_CACHE_MAX_BYTES", "12345");
  env.set("PTXPP_CACHE_DIR", dir_.string());
  EXPECT_EQ(runtime::CubinCache().stats().max_bytes, 12345u);
  env.set("PTXPP_CACHE_MAX_BYTES", "");  // empty: the default
  EXPECT_EQ(runtime::CubinCache().stats().max_bytes, 1ull << 30);
}

TEST_F(Cache, WithoutAHomeTheCacheIsAPrivateDirectory) {
  Env env;
  for (const char* v : {"PTXPP_CACHE_DIR", "XDG_CACHE_HOME", "HOME"}) env.set(v, std::nullopt);
  env.set("TMPDIR", dir_.string());
  const fs::path want = dir_ / ("ptxpp-cache-" + std::to_string(::geteuid()));
  {
    const runtime::CubinCache cache;
    EXPECT_EQ(cache.dir(), want.string());
    EXPECT_EQ(cache.problem(), "");
    struct stat st {};
    ASSERT_EQ(::lstat(want.c_str(), &st), 0);  // created
    EXPECT_EQ(st.st_mode & 0777, 0700u);
    EXPECT_EQ(st.st_uid, ::geteuid());
    cache.put(key(1), std::vector<uint8_t>(10, 1));
    EXPECT_TRUE(cache.get(key(1)));
  }
  const std::string why = " (the cache directory when neither HOME nor XDG_CACHE_HOME is set)";
  // someone else could write there: refused, and the runtime stores nothing in it
  fs::permissions(want, fs::perms::group_write | fs::perms::others_write, fs::perm_options::add);
  {
    const runtime::CubinCache cache;
    EXPECT_EQ(cache.problem(),
              want.string() + why + " can be written by other users (mode 0722): they could plant kernels in it");
    EXPECT_EQ(error_of([&] { cache.stats(); }), cache.problem());
    ::testing::internal::CaptureStderr();
    EXPECT_FALSE(cache.get(key(1)));  // even the entry that is there
    cache.put(key(2), std::vector<uint8_t>(10, 1));
    EXPECT_NE(::testing::internal::GetCapturedStderr().find("can be written by other users"), std::string::npos);
    EXPECT_FALSE(fs::exists(want / (key(2) + ".cubin")));
  }
  // a link or a file in its place: refused
  fs::remove_all(want);
  fs::create_directory(dir_ / "elsewhere");
  fs::create_directory_symlink(dir_ / "elsewhere", want);
  EXPECT_EQ(runtime::CubinCache().problem(),
            want.string() + why + " is not a directory but a symbolic link; not using it");
  fs::remove(want);
  write(want, "x");
  EXPECT_EQ(runtime::CubinCache().problem(), want.string() + why + " is not a directory but a file; not using it");
  fs::remove(want);
  // another user's directory (only root can make one to test with)
  if (root()) {
    fs::create_directory(want);
    fs::permissions(want, fs::perms::owner_all, fs::perm_options::replace);
    ASSERT_EQ(::chown(want.c_str(), 65534, 65534), 0);
    EXPECT_EQ(runtime::CubinCache().problem(),
              want.string() + why +
                  " belongs to uid 65534, not to this user (uid 0): another user could plant kernels in it");
  }
}

}  // namespace
}  // namespace ptx::test
