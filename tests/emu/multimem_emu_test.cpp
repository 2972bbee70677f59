// multimem on the emulator: one device, so a multimem address is that device's memory (a
// multicast group of one): ld_reduce reduces over one copy, st stores, red reduces into it.
// The kernel is assembled by ptxas; expected values are computed here.
#include <gtest/gtest.h>

#include <cstring>
#include <string>
#include <vector>

#include "../unit/ptxas_util.hpp"
#include "emu_test_util.hpp"

namespace ptx::test {
namespace {

uint32_t bits(float f) {
  uint32_t u;
  std::memcpy(&u, &f, 4);
  return u;
}

TEST(EmuMultimem, AGroupOfOneDevice) {
  const std::string text = emu_kernel("multimem.ptx");
  std::vector<uint32_t> buf(24, 0);
  buf[0] = 7, buf[1] = static_cast<uint32_t>(-5);
  const uint32_t halves[4] = {0x3c004000, 0x44004200, 0xbc00c000, 0x7bff0001};
  std::memcpy(&buf[4], halves, sizeof halves);
  buf[8] = bits(1.5f), buf[9] = bits(-2.25f);
  buf[16] = 100, buf[17] = static_cast<uint32_t>(-9);
  EmuRun r;
  const uint64_t a = r.buffer(buf, "buf");
  r.launch(text, "multimem", {1, 1, 1}, {1, 1, 1});
  const auto got = r.read<uint32_t>(a, 24);
  EXPECT_EQ(got[10], 7u);                                 // st of ld_reduce.add over one copy
  const uint32_t pair[4] = {bits(1.5f), bits(-2.25f), bits(1.5f), bits(-2.25f)};
  for (int i = 0; i < 4; ++i) EXPECT_EQ(got[12 + i], pair[i]) << i;  // ld_reduce.v2.f32, st.v4.f32
  EXPECT_EQ(got[16], 95u);                                // red.add of ld_reduce.min's -5
  EXPECT_EQ(got[17], static_cast<uint32_t>(-5));          // red.max
  for (int i = 0; i < 4; ++i) EXPECT_EQ(got[20 + i], halves[i]) << i;  // ld_reduce.acc::f32.v4.f16x2, st.v4.f16x2
  if (have_ptxas()) {
    const auto as = run_ptxas(text, "sm_90a");
    EXPECT_TRUE(as.ok) << as.log;
  }
}

}  // namespace
}  // namespace ptx::test
