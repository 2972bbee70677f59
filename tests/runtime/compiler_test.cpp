// PTX → cubin compilers (nvJitLink, ptxas), the choice between them, and the
// cubin cache under concurrent processes. None of this needs a GPU.
#include <sys/wait.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <string>

#include <ptxpp/runtime.hpp>

namespace ptx::test {
namespace {

namespace fs = std::filesystem;
using runtime::CompilerKind;

const char* kGood = R"(.version 8.7
.target sm_90a
.address_size 64

.visible .entry add_one(.param .u64 p)
{
  .reg .b32 %r<2>;
  .reg .b64 %rd<2>;
  ld.param.u64 %rd1, [p];
  cvta.to.global.u64 %rd1, %rd1;
  ld.global.u32 %r1, [%rd1];
  add.s32 %r1, %r1, 1;
  st.global.u32 [%rd1], %r1;
  ret;
}
)";

// line 10 reads an undeclared register
const char* kBad = R"(.version 8.0
.target sm_90a
.address_size 64

.visible .entry broken(.param .u64 p)
{
  .reg .b32 %r<2>;
  .reg .b64 %rd<2>;
  ld.param.u64 %rd1, [p];
  add.s32 %r1, %r9, 1;
  ret;
}
)";

bool is_elf(const std::vector<uint8_t>& b) { return b.size() > 64 && b[0] == 0x7f && b[1] == 'E' && b[2] == 'L' && b[3] == 'F'; }

std::string error_of(auto&& f) {
  try {
    f();
  } catch (const runtime::Error& e) {
    return e.what();
  }
  return "(no error)";
}

struct ScopedEnv {
  std::string name;
  ScopedEnv(const char* n, const char* v) : name(n) { ::setenv(n, v, 1); }
  ~ScopedEnv() { ::unsetenv(name.c_str()); }
};

std::vector<runtime::Compiler> compilers() {
  std::vector<runtime::Compiler> out;
  if (auto c = runtime::nvjitlink_compiler()) out.push_back(*c);
  if (auto c = runtime::ptxas_compiler()) out.push_back(*c);
  return out;
}

TEST(Compiler, EachToolkitCompilerMakesACubin) {
  const auto all = compilers();
  if (all.empty()) GTEST_SKIP() << "neither libnvJitLink nor ptxas is installed here";
  for (const auto& c : all) {
    SCOPED_TRACE(c.identity);
    EXPECT_FALSE(c.identity.empty());
    const std::vector<uint8_t> cubin = runtime::compile_cubin(c, kGood, "sm_90a", "kernel add_one");
    EXPECT_TRUE(is_elf(cubin)) << cubin.size() << " bytes";
    // the kernel's name is in the image's symbol table
    const std::string bytes(cubin.begin(), cubin.end());
    EXPECT_NE(bytes.find("add_one"), std::string::npos);
    std::string blackwell = kGood;
    blackwell.replace(blackwell.find("sm_90a"), 6, "sm_100a");
    EXPECT_TRUE(is_elf(runtime::compile_cubin(c, blackwell, "sm_100a", "kernel add_one")));
    // arch-specific PTX for another GPU: the compiler's reason is in the error
    EXPECT_NE(error_of([&] { runtime::compile_cubin(c, kGood, "sm_100a", "kernel add_one"); })
                  .find("cannot be compiled to future architecture"),
              std::string::npos);
  }
}

TEST(Compiler, ARejectionQuotesTheOffendingLine) {
  const auto all = compilers();
  if (all.empty()) GTEST_SKIP() << "neither libnvJitLink nor ptxas is installed here";
  for (const auto& c : all) {
    SCOPED_TRACE(c.identity);
    const std::string msg = error_of([&] { runtime::compile_cubin(c, kBad, "sm_90a", "kernel broken"); });
    EXPECT_NE(msg.find(c.kind == CompilerKind::ptxas ? "ptxas rejected kernel broken for sm_90a" :
                                                       "nvJitLink rejected kernel broken for sm_90a"),
              std::string::npos)
        << msg;
    EXPECT_NE(msg.find("PTX line 10:   add.s32 %r1, %r9, 1;"), std::string::npos) << msg;
    // a target string that is not one never reaches a command line
    EXPECT_NE(error_of([&] { runtime::compile_cubin(c, kGood, "sm_90a; rm -rf /", "k"); }).find("is not a target"),
              std::string::npos);
  }
}

TEST(Compiler, TheChoiceFollowsTheEnvironment) {
  {
    ScopedEnv e("PTXPP_COMPILER", "driver");
    EXPECT_FALSE(runtime::find_compiler());
  }
  {
    ScopedEnv e("PTXPP_NO_PTXAS", "1");
    EXPECT_FALSE(runtime::find_compiler());
  }
  {
    ScopedEnv e("PTXPP_COMPILER", "nvcc");
    EXPECT_NE(error_of([] { runtime::find_compiler(); }).find("PTXPP_COMPILER='nvcc' is not a compiler: use nvjitlink, ptxas or driver"),
              std::string::npos);
  }
  {
    ScopedEnv e("PTXPP_COMPILER", "ptxas"), p("PTXAS", "/nonexistent/ptxas");
    EXPECT_NE(error_of([] { runtime::find_compiler(); }).find("ptxas was not found"), std::string::npos);
  }
  if (runtime::ptxas_compiler()) {
    ScopedEnv e("PTXPP_COMPILER", "ptxas");
    EXPECT_EQ(runtime::find_compiler()->kind, CompilerKind::ptxas);
  }
  if (runtime::nvjitlink_compiler()) {
    EXPECT_EQ(runtime::find_compiler()->kind, CompilerKind::nvjitlink);  // the default when both are there
    ScopedEnv e("PTXPP_COMPILER", "nvjitlink");
    EXPECT_EQ(runtime::find_compiler()->kind, CompilerKind::nvjitlink);
    EXPECT_NE(runtime::find_compiler()->identity.find("nvJitLink 13."), std::string::npos);
  }
}

// Many processes putting and getting overlapping keys in a small cache (so eviction
// runs all the time): a get returns the exact bytes that were put, or nothing.
TEST(CubinCache, ConcurrentProcessesNeverSeeATornEntry) {
  const fs::path dir = fs::temp_directory_path() / ("ptxpp-cache-concurrent-" + std::to_string(::getpid()));
  fs::remove_all(dir);
  constexpr int kProcesses = 6, kRounds = 150, kKeys = 12;
  auto blob = [](int k) {
    std::vector<uint8_t> b(4000 + 997 * k);
    for (size_t i = 0; i < b.size(); ++i) b[i] = static_cast<uint8_t>(i * 31 + k);
    return b;
  };
  auto key = [](int k) { return runtime::CubinCache::key("ptx " + std::to_string(k), "sm_90a", "test", 1); };
  std::vector<pid_t> children;
  for (int p = 0; p < kProcesses; ++p) {
    const pid_t pid = ::fork();
    ASSERT_GE(pid, 0);
    if (pid == 0) {
      const runtime::CubinCache cache(dir.string(), 60000);  // holds about 6 of the 12 entries
      int bad = 0, hits = 0;
      for (int r = 0; r < kRounds; ++r) {
        const int k = (r / 3 + p * 5) % kKeys;  // each key three times running: a put, then (mostly) hits
        if (auto got = cache.get(key(k))) {
          ++hits;
          if (*got != blob(k)) ++bad;
        } else {
          cache.put(key(k), blob(k));
        }
      }
      ::_exit(bad != 0 ? 2 : hits == 0 ? 3 : 0);
    }
    children.push_back(pid);
  }
  for (pid_t pid : children) {
    int status = 0;
    ASSERT_EQ(::waitpid(pid, &status, 0), pid);
    ASSERT_TRUE(WIFEXITED(status)) << "status " << status;
    EXPECT_NE(WEXITSTATUS(status), 2) << "a process read a torn entry";
    EXPECT_NE(WEXITSTATUS(status), 3) << "a process never hit the cache";
  }
  const runtime::CubinCache cache(dir.string(), 60000);
  EXPECT_LE(cache.stats().bytes, 60000u + 4000u + 997u * kKeys);  // bounded (one put may land after an eviction)
  size_t leftovers = 0;
  for (const auto& e : fs::directory_iterator(dir))
    if (e.path().extension() != ".cubin") ++leftovers;
  EXPECT_EQ(leftovers, 0u) << "temporary files were left behind";
  fs::remove_all(dir);
}

}  // namespace
}  // namespace ptx::test
