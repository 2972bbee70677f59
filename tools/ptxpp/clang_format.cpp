#include "clang_format.hpp"

#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <vector>

#include <fmt/format.h>

#include "clang_format_style.hpp"  // generated: kClangFormatStyle

extern char** environ;

namespace ptxpp_cli {

namespace {

namespace fs = std::filesystem;

// Runs `program args...`; the exit status, or -1 with errno set when it could not start.
int run(const std::string& program, const std::vector<std::string>& args) {
  std::vector<char*> argv{const_cast<char*>(program.c_str())};
  for (const std::string& a : args) argv.push_back(const_cast<char*>(a.c_str()));
  argv.push_back(nullptr);
  pid_t pid = 0;
  if (const int err = posix_spawnp(&pid, program.c_str(), nullptr, nullptr, argv.data(), environ); err != 0) {
    errno = err;
    return -1;
  }
  int status = 0;
  while (waitpid(pid, &status, 0) < 0)
    if (errno != EINTR) return -1;
  return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

// A fresh private directory, removed with what it holds.
struct TempDir {
  fs::path path;
  TempDir() {
    std::string tmpl = (fs::temp_directory_path() / "ptxpp-format-XXXXXX").string();
    if (mkdtemp(tmpl.data())) path = tmpl;
  }
  ~TempDir() {
    std::error_code ec;
    if (!path.empty()) fs::remove_all(path, ec);
  }
};

}  // namespace

Formatted clang_format(const std::string& code) {
  std::vector<std::string> programs;
  if (const char* env = std::getenv("PTXPP_CLANG_FORMAT"); env && *env) programs.emplace_back(env);
  else {
    programs.emplace_back("clang-format");
    for (int v = 19; v >= 14; --v) programs.push_back(fmt::format("clang-format-{}", v));
  }
  TempDir dir;
  if (dir.path.empty()) return {code, fmt::format("cannot create a temporary directory: {}", std::strerror(errno))};
  const fs::path file = dir.path / "generated.cpp";
  {
    std::ofstream style(dir.path / ".clang-format", std::ios::binary);
    style << kClangFormatStyle;
    std::ofstream out(file, std::ios::binary);
    out << code;
    if (!style || !out) return {code, "cannot write a temporary file"};
  }
  for (const std::string& program : programs) {
    const int status = run(program, {"-i", "--style=file", file.string()});
    if (status < 0 && errno == ENOENT) continue;
    if (status != 0) return {code, status < 0 ? fmt::format("cannot run {}: {}", program, std::strerror(errno))
                                              : fmt::format("{} failed (exit status {})", program, status)};
    std::ifstream in(file, std::ios::binary);
    std::stringstream formatted;
    formatted << in.rdbuf();
    if (!in) return {code, "cannot read clang-format's output"};
    return {formatted.str(), {}};
  }
  return {code, programs.size() == 1 ? fmt::format("{} (PTXPP_CLANG_FORMAT) not found", programs[0])
                                     : "clang-format not found on PATH"};
}

}  // namespace ptxpp_cli
