// Helpers for emulator tests: run a traced kernel's PTX text on the emulator.
#pragma once

#include <cstdio>
#include <cstring>
#include <stdexcept>
#include <string>
#include <vector>

#include <gtest/gtest.h>
#include <ptxpp/dsl.hpp>
#include <ptxpp/emu/emulator.hpp>
#include <ptxpp/text/parser.hpp>

namespace ptx::test {

using namespace ptx::types;
namespace inst = ptx::inst;

// Device buffers for host vectors, and the launch.
struct EmuRun {
  emu::Emulator emu;
  std::vector<emu::Arg> args;

  template <class T>
  uint64_t buffer(const std::vector<T>& host, const std::string& name) {
    const uint64_t a = emu.memory().alloc(host.size() * sizeof(T), name);
    if (!host.empty()) emu.memory().write(a, host.data(), host.size() * sizeof(T));
    args.push_back(emu::Arg::pointer(a));
    return a;
  }
  template <class T>
  void scalar(T v) {
    args.push_back(emu::Arg::of(v));
  }
  template <class T>
  std::vector<T> read(uint64_t a, size_t n) {
    std::vector<T> out(n);
    emu.memory().read(out.data(), a, n * sizeof(T));
    return out;
  }
  void launch(const std::string& ptx_text, const std::string& entry, emu::Dim3 grid, emu::Dim3 block, uint32_t dyn_smem = 0,
              emu::Dim3 cluster = {}) {
    auto parsed = text::parse(ptx_text);
    ASSERT_TRUE(bool(parsed)) << parsed.error().format();
    emu::LaunchConfig cfg;
    cfg.grid = grid;
    cfg.block = block;
    cfg.dynamic_smem = dyn_smem;
    cfg.cluster = cluster;
    emu.launch(parsed.module(), entry, cfg, args);
  }
  void launch(const Traced& t, uint32_t dyn_smem = 0) {
    launch(t.ptx, t.name, {t.grid.x, t.grid.y, t.grid.z}, {t.block.x, t.block.y, t.block.z}, dyn_smem);
  }
};

// The report of launching entry `t` of `text` ("" and a test failure when it runs).
inline std::string report_of(EmuRun& r, const std::string& text, emu::Dim3 grid, emu::Dim3 block, uint32_t dyn = 0, emu::Dim3 cluster = {}) {
  try {
    r.launch(text, "t", grid, block, dyn, cluster);
  } catch (const emu::Error& e) {
    return e.what();
  }
  ADD_FAILURE() << "no report";
  return {};
}

// What the emulator itself reports for a kernel the validator does not see first (the
// decoder's own errors): `text` launched as entry `t` with one warp; "" when it runs.
inline std::string unvalidated_report(const std::string& text) {
  emu::Options unvalidated;
  unvalidated.validate = false;
  EmuRun r{emu::Emulator(unvalidated), {}};
  try {
    r.launch(text, "t", {1, 1, 1}, {32, 1, 1});
  } catch (const emu::Error& e) {
    return e.what();
  }
  return "";
}

// A kernel of tests/emu/kernels: PTX files that scripts/emu-vs-gpu also runs on a GPU.
inline std::string emu_kernel(const std::string& file) {
  const std::string path = std::string(PTXPP_EMU_KERNELS_DIR) + "/" + file;
  std::FILE* f = std::fopen(path.c_str(), "rb");
  if (!f) throw std::runtime_error("cannot open " + path);
  std::string text;
  char buf[4096];
  for (size_t n; (n = std::fread(buf, 1, sizeof buf, f)) > 0;) text.append(buf, n);
  std::fclose(f);
  return text;
}

inline std::vector<float> random_floats(size_t n, uint32_t seed, float lo = -2.0f, float hi = 2.0f) {
  std::vector<float> v(n);
  uint32_t s = seed * 2654435761u + 1;
  for (auto& x : v) {
    s = s * 1664525u + 1013904223u;
    x = lo + (hi - lo) * static_cast<float>(s >> 8) / static_cast<float>(1u << 24);
  }
  return v;
}

}  // namespace ptx::test
