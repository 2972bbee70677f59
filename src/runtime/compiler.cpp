// Choosing a PTX compiler, and compiling with ptxas (a child process; the PTX and
// cubin go through a private temporary directory).
#include "ptxpp/runtime/compiler.hpp"

#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <mutex>
#include <random>

#include <fmt/format.h>

#include "nvjitlink.hpp"
#include "ptxpp/runtime/error.hpp"

namespace ptx::runtime {

namespace {

namespace fs = std::filesystem;

std::string env(const char* name) {
  const char* v = std::getenv(name);
  return v ? v : "";
}

// stdout and stderr of a shell command, and whether it exited with 0.
std::pair<std::string, bool> run_capture(const std::string& cmd) {
  std::string out;
  FILE* f = ::popen((cmd + " 2>&1").c_str(), "r");
  if (!f) return {"cannot start: " + cmd, false};
  char buf[512];
  while (size_t n = std::fread(buf, 1, sizeof buf, f)) out.append(buf, n);
  const int status = ::pclose(f);
  return {out, status != -1 && WIFEXITED(status) && WEXITSTATUS(status) == 0};
}

std::string shell_quoted(const std::string& path) { return "'" + path + "'"; }  // paths here hold no quote

std::string line_of(std::string_view text, long n) {
  size_t begin = 0;
  for (long i = 1; i < n; ++i) {
    begin = text.find('\n', begin);
    if (begin == std::string_view::npos) return {};
    ++begin;
  }
  const size_t end = text.find('\n', begin);
  return std::string(text.substr(begin, end == std::string_view::npos ? std::string_view::npos : end - begin));
}

}  // namespace

std::string quote_ptx_lines(const std::string& log, std::string_view ptx) {
  std::string out = log;
  size_t pos = 0;
  while ((pos = log.find("line ", pos)) != std::string::npos) {
    pos += 5;
    const long n = std::strtol(log.c_str() + pos, nullptr, 10);
    if (n > 0) out += fmt::format("\n  PTX line {}: {}", n, line_of(ptx, n));
  }
  return out;
}

std::optional<Compiler> ptxas_compiler() {
  std::string path = env("PTXAS");
  if (path.empty()) {
    for (const std::string& root : {env("CUDA_HOME"), std::string("/usr/local/cuda")})
      if (!root.empty() && fs::exists(fs::path(root) / "bin" / "ptxas")) {
        path = (fs::path(root) / "bin" / "ptxas").string();
        break;
      }
  }
  if (path.empty() || !fs::exists(path)) return std::nullopt;
  // `ptxas --version` once per path: every kernel load asks, cache hits included
  static std::mutex mu;
  static std::map<std::string, std::optional<std::string>> versions;
  std::lock_guard lock(mu);
  auto it = versions.find(path);
  if (it == versions.end()) {
    auto [version, ok] = run_capture(shell_quoted(path) + " --version");
    it = versions.emplace(path, ok ? std::optional<std::string>("ptxas " + version) : std::nullopt).first;
  }
  if (!it->second) return std::nullopt;
  return Compiler{CompilerKind::ptxas, path, *it->second};
}

std::optional<Compiler> nvjitlink_compiler() {
  const NvJitLink* lib = NvJitLink::load();
  if (!lib) return std::nullopt;
  return Compiler{CompilerKind::nvjitlink, lib->path, fmt::format("nvJitLink {}.{}", lib->major, lib->minor)};
}

std::optional<Compiler> find_compiler() {
  std::string name = env("PTXPP_COMPILER");
  if (name.empty()) {
    const std::string no = env("PTXPP_NO_PTXAS");
    if (!no.empty() && no != "0") return std::nullopt;
    if (auto c = nvjitlink_compiler()) return c;
    return ptxas_compiler();
  }
  if (name == "driver") return std::nullopt;
  if (name == "nvjitlink") {
    if (auto c = nvjitlink_compiler()) return c;
    throw Error("PTXPP_COMPILER=nvjitlink, but libnvJitLink could not be loaded (set PTXPP_NVJITLINK to its path)");
  }
  if (name == "ptxas") {
    if (auto c = ptxas_compiler()) return c;
    throw Error("PTXPP_COMPILER=ptxas, but ptxas was not found (set PTXAS to its path)");
  }
  throw Error(fmt::format("PTXPP_COMPILER='{}' is not a compiler: use nvjitlink, ptxas or driver", name));
}

std::vector<uint8_t> compile_cubin(const Compiler& compiler, std::string_view ptx, std::string_view target,
                                   std::string_view what) {
  if (target.empty() || target.find_first_not_of("abcdefghijklmnopqrstuvwxyz0123456789_") != std::string_view::npos)
    throw Error(fmt::format("compiling {}: '{}' is not a target (sm_90a, ...)", what, target));
  if (compiler.kind == CompilerKind::nvjitlink) {
    const NvJitLink* lib = NvJitLink::load();
    if (!lib) throw Error(fmt::format("compiling {}: libnvJitLink ({}) is no longer loadable", what, compiler.path));
    auto [cubin, log] = lib->compile(ptx, target);
    if (cubin.empty())
      throw Error(fmt::format("nvJitLink rejected {} for {}:\n{}", what, target, quote_ptx_lines(log, ptx)));
    return cubin;
  }
  std::error_code ec;
  const fs::path dir = fs::temp_directory_path() / fmt::format("ptxpp-ptxas-{}-{:x}", ::getpid(), std::random_device{}());
  fs::create_directories(dir, ec);
  if (ec) throw Error(fmt::format("compiling {}: cannot create {}: {}", what, dir.string(), ec.message()));
  const fs::path in = dir / "kernel.ptx", out = dir / "kernel.cubin";
  std::ofstream(in, std::ios::binary) << ptx;
  auto [log, ok] = run_capture(fmt::format("{} -arch={} {} -o {}", shell_quoted(compiler.path), target, shell_quoted(in.string()),
                                           shell_quoted(out.string())));
  std::vector<uint8_t> cubin;
  if (ok) {
    std::ifstream f(out, std::ios::binary);
    cubin.assign(std::istreambuf_iterator<char>(f), std::istreambuf_iterator<char>());
  }
  fs::remove_all(dir, ec);
  if (cubin.empty())
    throw Error(fmt::format("ptxas rejected {} for {}:\n{}", what, target, quote_ptx_lines(log, ptx)));
  return cubin;
}

}  // namespace ptx::runtime
