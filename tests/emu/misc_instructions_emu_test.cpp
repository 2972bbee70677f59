// Module data and initializers, lop3 with a predicate result, fma.oob, movmatrix, vector
// reductions (red.v4.f32, red.v2.f16x2, multimem.red.v2.f32), f16x2 atomics and st.bulk on the
// emulator. Expected values are computed here; the kernel is assembled by ptxas.
#include <gtest/gtest.h>

#include <cstring>
#include <string>
#include <utility>
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

// tests/emu/kernels/module_data.ptx: nested, partial and inferred-size initializers, address
// initializers, float immediates as vector elements, lop3 with a predicate result, fma.oob and
// a call through .alias.
TEST(EmuMiscInstructions, ModuleDataLop3PredicateFmaOobAlias) {
  const std::string text = emu_kernel("module_data.ptx");
  EmuRun r;
  const uint64_t out = r.buffer(std::vector<uint32_t>(33), "out");
  r.launch(text, "module_data", {1, 1, 1}, {1, 1, 1});
  const auto w = r.read<uint32_t>(out, 33);
  const std::vector<uint32_t> arrays = {6, 2, 1, 0, 2, 3, 105, 12};  // grid2[1][2], grid2[0][1], part row 0, row 1, str[1], rows[2][1]
  for (size_t i = 0; i < arrays.size(); ++i) EXPECT_EQ(w[i], arrays[i]) << i;
  const auto f = r.read<float>(out + 32, 2);
  EXPECT_EQ(f[0], 3.0f);
  EXPECT_EQ(f[1], -4.0f);
  EXPECT_EQ(r.read<double>(out + 48, 1)[0], 1.25);  // .const f64 {0d3FF8..., -0.25}
  EXPECT_EQ(w[16], 0u);  // grid2 - &grid2
  EXPECT_EQ(w[17], 8u);  // generic(grid2) + 8
  EXPECT_EQ(w[18], 2u);  // str + 2
  EXPECT_EQ(w[19], 0u);  // {0xFF(generic(grid2)), 0xFF00(generic(grid2))}: the address's two low bytes
  const auto imm = r.read<float>(out + 80, 4);
  EXPECT_EQ(imm, (std::vector<float>{1.0f, 1.5f, 5.0f, -2.0f}));
  EXPECT_EQ(w[24], 2u);  // lop3 0x80: a & b & c
  EXPECT_EQ(w[25], 1u);  // .or: d != 0 || false
  EXPECT_EQ(w[26], 0u);  // .and: d == 0
  EXPECT_EQ(w[27], 1u);  // .and with !q
  EXPECT_EQ(w[28], 0x00004200u);  // fma.oob.f16x2: {2 x 1 + 1, OOB -> 0}
  EXPECT_EQ(w[29], 0x40800000u);  // fma.oob.relu.bf16x2: {OOB -> 0, 1 x 2 + 2}
  for (int half = 0; half < 2; ++half) {  // plain fma: a NaN
    const uint32_t h = w[30] >> (16 * half) & 0xFFFF;
    EXPECT_TRUE((h & 0x7C00) == 0x7C00 && (h & 0x3FF) != 0) << std::hex << h;
  }
  EXPECT_EQ(w[32], 49u);  // square_alias(7): .alias square_alias, square
  if (have_ptxas()) {
    const auto as = run_ptxas(text, "sm_90");
    EXPECT_TRUE(as.ok) << as.log;
  }
}

// Initializers ptxas refuses are reported, not half-written (the emulator's own report: the
// validator, which rejects them first, is off here).
TEST(EmuMiscInstructions, BadInitializersAreReported) {
  const std::string head = ".version 8.3\n.target sm_90\n.address_size 64\n";
  const std::string body = "\n.visible .entry k(.param .u64 out)\n{\n\tret;\n}\n";
  const std::pair<std::string, std::string> cases[] = {
      {".global .u32 a[2][2] = {21, 22};", "the initializer of a has a value where a braced list is expected"},
      {".global .u32 a[2] = {1, 2, 3};", "the initializer of a has more elements or levels of braces than the variable"},
      {".global .u32 a[2][2] = {{1, 2}, {3, 4}, {5, 6}};", "the initializer of a has more elements or levels of braces"},
      {".global .u32 a[2] = {{1}, {2}};", "the initializer of a has more elements or levels of braces"},
  };
  emu::Options unvalidated;
  unvalidated.validate = false;
  for (const auto& [decl, want] : cases) {
    EmuRun r{emu::Emulator(unvalidated), {}};
    r.buffer(std::vector<uint32_t>(1), "out");
    try {
      r.launch(head + decl + body, "k", {1, 1, 1}, {1, 1, 1});
      ADD_FAILURE() << "no report for " << decl;
    } catch (const emu::Error& e) {
      EXPECT_NE(std::string(e.what()).find(want), std::string::npos) << decl << ": " << e.what();
    }
  }
}

// Parentheses in an initializer group an expression; only braces make a list.
TEST(EmuMiscInstructions, ParenthesizedInitializersAreValues) {
  const std::string text = R"(.version 8.3
.target sm_90
.address_size 64
.global .u32 scalar = ((((1 + 1) * (2 + 2)) << ((1))) - (~0 & 0xF));
.global .u32 pair[] = {(1 + 2), ((4))};
.visible .entry k(.param .u64 out)
{
	.reg .b32 %r<4>;
	.reg .b64 %rd<2>;
	ld.param.u64 %rd1, [out];
	ld.global.u32 %r1, [scalar];
	ld.global.u32 %r2, [pair];
	ld.global.u32 %r3, [pair+4];
	st.global.v2.u32 [%rd1], {%r1, %r2};
	st.global.u32 [%rd1+8], %r3;
	ret;
}
)";
  EmuRun r;
  const uint64_t out = r.buffer(std::vector<uint32_t>(3), "out");
  r.launch(text, "k", {1, 1, 1}, {1, 1, 1});
  EXPECT_EQ(r.read<uint32_t>(out, 3), (std::vector<uint32_t>{1, 3, 4}));  // (2 * 4) << 1 - 15
  if (have_ptxas()) {
    const auto as = run_ptxas(text, "sm_90");
    EXPECT_TRUE(as.ok) << as.log;
  }
}

}  // namespace
}  // namespace ptx::test
