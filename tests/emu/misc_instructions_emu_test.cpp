// movmatrix, vector reductions (red.v4.f32, red.v2.f16x2, multimem.red.v2.f32), f16x2 atomics and
// st.bulk on the emulator. Expected values are computed here; the kernel is assembled by ptxas.
#include <gtest/gtest.h>

#include <cstring>
#include <string>
#include <vector>

#include "../unit/ptxas_util.hpp"
#include "emu_test_util.hpp"

namespace ptx::test {
namespace {

TEST(EmuMiscInstructions, MovmatrixVectorReductionsStBulk) {
  const std::string text = emu_kernel("matrix_misc.ptx");
  EmuRun r;
  const uint64_t out = r.buffer(std::vector<uint32_t>(64), "out");
  const uint64_t acc = r.buffer(std::vector<uint32_t>(12), "acc");
  r.launch(text, "matrix_misc", {1, 1, 1}, {32, 1, 1});
  const auto got = r.read<uint32_t>(out, 64);
  // lane l holds row l/4, columns 2(l%4) (low half) and +1 (high half) of M: low = 2l, high = 2l + 2
  auto m = [](uint32_t row, uint32_t col) { const uint32_t l = 4 * row + col / 2; return col % 2 ? 2 * l + 2 : 2 * l; };
  for (uint32_t l = 0; l < 32; ++l) {  // the transpose in the same layout
    const uint32_t row = l / 4, col = 2 * (l % 4);
    EXPECT_EQ(got[l], m(col, row) | m(col + 1, row) << 16) << l;
  }
  EXPECT_EQ(got[32], 0u);  // st.bulk zeroed the word thread 0 wrote
  const auto sums = r.read<float>(acc, 4);
  EXPECT_EQ(sums[0], 496.0f);  // red.add.v4.f32: the thread ids
  EXPECT_EQ(sums[1], 16.0f);   // 32 x 0.5
  EXPECT_EQ(sums[2], 496.0f);
  EXPECT_EQ(sums[3], 16.0f);
  const auto halves = r.read<uint16_t>(acc + 16, 4);
  for (int i = 0; i < 4; ++i) EXPECT_EQ(halves[static_cast<size_t>(i)], 0x5000) << i;  // 32 x 1.0 as f16: 32.0
  const auto mm = r.read<float>(acc + 32, 2);
  EXPECT_EQ(mm[0], 16.0f);  // multimem.red.v2.f32: a group of one device
  EXPECT_EQ(mm[1], 16.0f);
  if (have_ptxas()) {
    const auto as = run_ptxas(text, "sm_100a");
    EXPECT_TRUE(as.ok) << as.log;
  }
}

// brx.idx through a .branchtargets table: each lane of a warp to the case its index names (the
// lanes diverge and meet again); an index past the table is reported.
const std::string kSwitch = R"(.version 8.0
.target sm_90
.address_size 64

.visible .entry lanes_switch(.param .u64 out, .param .u32 shift)
{
	.reg .b32 %r<6>;
	.reg .b64 %rd<3>;
	mov.u32 %r1, %tid.x;
	ld.param.u32 %r5, [shift];
	add.u32 %r2, %r1, %r5;
	rem.u32 %r2, %r2, 3;
	add.u32 %r2, %r2, %r5;
	$cases: .branchtargets $c0, $c1, $c2;
	brx.idx %r2, $cases;
$c0:
	mov.u32 %r3, 100;
	bra.uni $join;
$c1:
	mov.u32 %r3, 200;
	bra.uni $join;
$c2:
	mov.u32 %r3, 300;
$join:
	add.u32 %r3, %r3, %r1;
	ld.param.u64 %rd1, [out];
	mul.wide.u32 %rd2, %r1, 4;
	add.u64 %rd1, %rd1, %rd2;
	st.global.u32 [%rd1], %r3;
	ret;
}
)";

TEST(EmuMiscInstructions, BrxIdxJumpsEachLaneThroughTheTable) {
  EmuRun r;
  const uint64_t out = r.buffer(std::vector<uint32_t>(64), "out");
  r.scalar(uint32_t{0});
  r.launch(kSwitch, "lanes_switch", {1, 1, 1}, {64, 1, 1});
  const auto got = r.read<uint32_t>(out, 64);
  for (uint32_t t = 0; t < 64; ++t) EXPECT_EQ(got[t], 100 * (t % 3 + 1) + t) << t;
  if (have_ptxas()) {
    const auto as = run_ptxas(kSwitch, "sm_90");
    EXPECT_TRUE(as.ok) << as.log;
  }
  EmuRun bad;
  bad.buffer(std::vector<uint32_t>(64), "out");
  bad.scalar(uint32_t{2});  // indices 2, 3, 4: past the table's 3
  try {
    bad.launch(kSwitch, "lanes_switch", {1, 1, 1}, {64, 1, 1});
    FAIL() << "no report";
  } catch (const emu::Error& e) {
    EXPECT_NE(std::string(e.what()).find("thread (0,0,0): 'brx.idx \t%r2, $cases;', <input>:15: brx.idx with index 4: the table has 3 targets (undefined)"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace ptx::test
