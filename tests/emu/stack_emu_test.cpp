// The thread's stack on the emulator: alloca (in a kernel and a device function), stacksave and
// stackrestore, and a stackrestore outside the frame reported. Expected values are computed here;
// the kernel (tests/emu/kernels/alloca.ptx) is assembled by ptxas.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "../unit/ptxas_util.hpp"
#include "emu_test_util.hpp"

namespace ptx::test {
namespace {

TEST(EmuStack, AllocaStacksaveStackrestore) {
  const std::string text = emu_kernel("alloca.ptx");
  const uint32_t n = 40;
  EmuRun r;
  const uint64_t out = r.buffer(std::vector<uint32_t>(3 * n), "out");
  r.scalar(uint32_t{0});
  r.launch(text, "stack", {1, 1, 1}, {n, 1, 1});
  const auto got = r.read<uint32_t>(out, 3 * n);
  for (uint32_t t = 0; t < n; ++t) {
    uint32_t sum = 0;
    for (uint32_t i = 0; i < 16; ++i) sum += i * t + 1;  // the device function's alloca'd words
    EXPECT_EQ(got[3 * t], sum) << t;
    EXPECT_EQ(got[3 * t + 1], 1234 + 7 * t) << t;  // the kernel's alloca'd word survived the call
    EXPECT_EQ(got[3 * t + 2], 0u) << t;            // after stackrestore, alloca gives the same address
  }
  if (have_ptxas()) {
    const auto as = run_ptxas(text, "sm_90");
    EXPECT_TRUE(as.ok) << as.log;
  }
  EmuRun bad;
  bad.buffer(std::vector<uint32_t>(3 * n), "out");
  bad.scalar(uint32_t{1});
  try {
    bad.launch(text, "stack", {1, 1, 1}, {n, 1, 1});
    FAIL() << "no report";
  } catch (const emu::Error& e) {
    EXPECT_NE(std::string(e.what()).find("stackrestore to 0x1010: not a stack pointer of this frame"), std::string::npos) << e.what();
  }
}

// .reg parameters and results (hand-written PTX may pass them so; nvcc uses .param), recursively.
TEST(EmuStack, RegisterParametersAndRecursion) {
  const std::string text = emu_kernel("reg_params.ptx");
  EmuRun r;
  const uint64_t out = r.buffer(std::vector<uint32_t>(20), "out");
  r.launch(text, "reg_params", {1, 1, 1}, {20, 1, 1});
  const auto got = r.read<uint32_t>(out, 20);
  uint32_t a = 0, b = 1;
  for (uint32_t t = 0; t < 20; ++t, b = a + b, a = b - a) EXPECT_EQ(got[t], a) << t;
  if (have_ptxas()) {
    const auto as = run_ptxas(text, "sm_90");
    EXPECT_TRUE(as.ok) << as.log;
  }
}

// ld.param::func / st.param::func: the device function's own parameter and result (its frame).
TEST(EmuStack, ParamFuncStateSpace) {
  const std::string text = emu_kernel("param_func.ptx");
  EmuRun r;
  const uint64_t out = r.buffer(std::vector<uint32_t>(32), "out");
  r.launch(text, "k", {1, 1, 1}, {32, 1, 1});
  const auto got = r.read<uint32_t>(out, 32);
  for (uint32_t t = 0; t < 32; ++t) EXPECT_EQ(got[t], 2 * t) << t;
  if (have_ptxas()) {
    const auto as = run_ptxas(text, "sm_90a");
    EXPECT_TRUE(as.ok) << as.log;
  }
}

}  // namespace
}  // namespace ptx::test
