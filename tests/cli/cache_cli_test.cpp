// `ptxpp cache`: a cache it cannot use is an error on stderr with a non-zero exit,
// never "removed 0 entries"; clear removes only the cache's own files.
#include <sys/wait.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

namespace fs = std::filesystem;

namespace {

struct Outcome {
  int rc = -1;
  std::string out, err;
};

class CacheCli : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / ("ptxpp-cache-cli-" + std::to_string(::getpid()) + "-" +
                                        ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(dir_);
    fs::create_directories(dir_);
  }
  void TearDown() override {
    std::error_code ec;
    fs::permissions(dir_, fs::perms::owner_all, fs::perm_options::add, ec);
    fs::remove_all(dir_, ec);
  }
  static std::string slurp(const fs::path& p) {
    std::ostringstream ss;
    ss << std::ifstream(p, std::ios::binary).rdbuf();
    return ss.str();
  }
  // `ptxpp cache <what>` with the environment changed by `env` (arguments of env(1)).
  Outcome cache(const std::string& what, const std::string& env) {
    const fs::path out = dir_ / ".stdout", err = dir_ / ".stderr";
    const std::string cmd =
        "env " + env + " " + PTXPP_CLI + " cache " + what + " > " + out.string() + " 2> " + err.string();
    const int status = std::system(cmd.c_str());
    return {WIFEXITED(status) ? WEXITSTATUS(status) : -1, slurp(out), slurp(err)};
  }

  fs::path dir_;
};

TEST_F(CacheCli, APathThatIsAFileIsAnError) {
  const fs::path file = dir_ / "file";
  std::ofstream(file) << "x";
  for (const char* what : {"stats", "clear", "dir"}) {
    SCOPED_TRACE(what);
    const Outcome r = cache(what, "PTXPP_CACHE_DIR=" + file.string());
    EXPECT_EQ(r.rc, 1);
    EXPECT_NE(r.err.find("the kernel cache " + file.string() + " is not a directory\n"), std::string::npos) << r.err;
  }
}

TEST_F(CacheCli, AReadOnlyDirectoryIsAnError) {
  if (::geteuid() == 0) GTEST_SKIP() << "running as root: permissions do not stop root's writes";
  const fs::path ro = dir_ / "cache";
  fs::create_directory(ro);
  fs::permissions(ro, fs::perms::owner_read | fs::perms::owner_exec);
  for (const char* what : {"clear", "stats"}) {
    SCOPED_TRACE(what);
    const Outcome r = cache(what, "PTXPP_CACHE_DIR=" + ro.string());
    EXPECT_EQ(r.rc, 1);
    EXPECT_EQ(r.out, "");
    EXPECT_NE(r.err.find("the kernel cache " + ro.string() + " is not writable: Permission denied\n"),
              std::string::npos)
        << r.err;
  }
  fs::permissions(ro, fs::perms::owner_all);
}

TEST_F(CacheCli, BadSizeLimitIsAnError) {
  const Outcome r = cache("stats", "PTXPP_CACHE_DIR=" + dir_.string() + " PTXPP_CACHE_MAX_BYTES=abc");
  EXPECT_EQ(r.rc, 1);
  EXPECT_NE(r.err.find("PTXPP_CACHE_MAX_BYTES='abc' is not a decimal number of bytes"), std::string::npos) << r.err;
}

TEST_F(CacheCli, ClearRemovesOnlyTheCachesFiles) {
  const std::string entry = std::string(32, '0') + ".cubin";
  std::ofstream(dir_ / entry) << "PTXPPCB1 and the rest of an entry";
  std::ofstream(dir_ / "mine.cubin") << "the user's own";
  const Outcome r = cache("clear", "PTXPP_CACHE_DIR=" + dir_.string());
  EXPECT_EQ(r.rc, 0) << r.err;
  EXPECT_EQ(r.out, "removed 1 entries from " + dir_.string() + "\n");
  EXPECT_FALSE(fs::exists(dir_ / entry));
  EXPECT_TRUE(fs::exists(dir_ / "mine.cubin"));
}

TEST_F(CacheCli, WithoutAHomeTheCacheIsPrivate) {
  const Outcome r = cache("dir", "-u HOME -u XDG_CACHE_HOME -u PTXPP_CACHE_DIR TMPDIR=" + dir_.string());
  const fs::path want = dir_ / ("ptxpp-cache-" + std::to_string(::geteuid()));
  EXPECT_EQ(r.rc, 0) << r.err;
  EXPECT_EQ(r.out, want.string() + "\n");
  EXPECT_EQ(fs::status(want).permissions(), fs::perms::owner_all);
}

}  // namespace
