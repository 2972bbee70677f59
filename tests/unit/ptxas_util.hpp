// Runs ptxas (found at configure time) on PTX text, for tests that check that
// what the project emits assembles.
#pragma once

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>
#include <unistd.h>

namespace ptx::test {

inline bool have_ptxas() { return std::string(PTXPP_PTXAS).find("NOTFOUND") == std::string::npos && std::filesystem::exists(PTXPP_PTXAS); }

struct PtxasResult {
  bool ok = false;
  std::string log;
};

// `arch` like "sm_90a"; the PTX's own .target must allow it. `flags`: more options ("-v").
inline PtxasResult run_ptxas(const std::string& ptx, const std::string& arch, const std::string& flags = "") {
  namespace fs = std::filesystem;
  char dir_template[] = "/tmp/ptxpp-test-XXXXXX";
  const char* dir = mkdtemp(dir_template);
  if (!dir) return {false, "mkdtemp failed"};
  const fs::path in = fs::path(dir) / "in.ptx", out = fs::path(dir) / "out.cubin", log = fs::path(dir) / "log.txt";
  std::ofstream(in, std::ios::binary) << ptx;
  const std::string cmd = std::string(PTXPP_PTXAS) + " -arch=" + arch + (flags.empty() ? "" : " " + flags) + " " + in.string() + " -o " + out.string() +
                          " > " + log.string() + " 2>&1";
  const int rc = std::system(cmd.c_str());
  std::ifstream lf(log);
  PtxasResult r{rc == 0, std::string(std::istreambuf_iterator<char>(lf), std::istreambuf_iterator<char>())};
  std::error_code ec;
  fs::remove_all(dir, ec);
  return r;
}

}  // namespace ptx::test
