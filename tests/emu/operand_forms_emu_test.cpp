// Operand forms ptxas accepts that compilers write: immediates where a predicate goes
// (selp, vote, setp's c), constant expressions in parentheses, a call with a result and no
// arguments; and a register plus a constant.
#include <vector>

#include "../unit/ptxas_util.hpp"
#include "emu_test_util.hpp"

namespace ptx::test {
namespace {

const char* kForms = R"(.version 8.0
.target sm_90a
.address_size 64
.func (.param .b32 r) seven()
{
	st.param.b32 [r], 7;
	ret;
}
.visible .entry t(.param .u64 out)
{
	.reg .pred %p<4>;
	.reg .b16 %rs<4>;
	.reg .b32 %r<12>;
	.reg .b64 %rd<4>;
	ld.param.u64 %rd1, [out];
	cvta.to.global.u64 %rd1, %rd1;
	mov.u16 %rs1, 5;
	mov.u16 %rs2, 9;
	selp.u16 %rs3, %rs1, %rs2, 0;
	cvt.u32.u16 %r1, %rs3;
	st.global.u32 [%rd1], %r1;
	selp.b32 %r2, 11, 22, 1;
	st.global.u32 [%rd1+4], %r2;
	vote.sync.all.pred %p1, 1, 0xffffffff;
	selp.b32 %r3, 1, 0, %p1;
	st.global.u32 [%rd1+8], %r3;
	vote.sync.ballot.b32 %r4, 1, 0xffffffff;
	st.global.u32 [%rd1+12], %r4;
	mov.b64 %rd2, 1;
	or.b64 %rd2, %rd2, ((128 >> 4) << 16);
	cvt.u32.u64 %r5, %rd2;
	st.global.u32 [%rd1+16], %r5;
	mov.u32 %r6, 40;
	{
	.param .b32 rv;
	call (rv), seven;
	ld.param.b32 %r8, [rv];
	}
	st.global.u32 [%rd1+20], %r8;
	setp.eq.and.s32 %p2, %r6, 40, 0;
	selp.b32 %r9, 1, 0, %p2;
	st.global.u32 [%rd1+24], %r9;
	ret;
}
)";

TEST(EmuOperandForms, ImmediatePredicatesConstantExpressionsAndCallsWithoutArguments) {
  if (have_ptxas()) {
    const PtxasResult r = run_ptxas(kForms, "sm_90a");
    EXPECT_TRUE(r.ok) << r.log;
  }
  EmuRun run;
  const uint64_t out = run.buffer(std::vector<uint32_t>(7, 0), "out");
  run.launch(kForms, "t", {1, 1, 1}, {32, 1, 1});
  const std::vector<uint32_t> got = run.read<uint32_t>(out, 7);
  EXPECT_EQ(got[0], 9u);            // selp with a false selector: b
  EXPECT_EQ(got[1], 11u);           // selp with a true one: a
  EXPECT_EQ(got[2], 1u);            // vote.all of true
  EXPECT_EQ(got[3], 0xffffffffu);   // ballot of true over 32 lanes
  EXPECT_EQ(got[4], 1u | (8u << 16));
  EXPECT_EQ(got[5], 7u);            // the callee's result
  EXPECT_EQ(got[6], 0u);            // (r6 == 40) and false
}

// %r+c is the register's value plus the constant, cut to the instruction's type (ptxas
// folds it the same way); the expected values are computed here, not by the emulator.
TEST(EmuOperandForms, RegisterPlusConstantAddsTheConstant) {
  std::string text = kForms;
  const std::string from = "\tst.global.u32 [%rd1+20], %r8;";
  text.replace(text.find(from), from.size(),
               "\tadd.u32 %r8, %r6+2, 0;\n\tst.global.u32 [%rd1+20], %r8;\n"
               "\tmov.u32 %r10, 0xffffffff;\n\tadd.u32 %r11, %r10+3, %r6 + 0x10;");
  const std::string last = "\tst.global.u32 [%rd1+24], %r9;";
  text.replace(text.find(last), last.size(), "\tst.global.u32 [%rd1+24], %r11;");
  if (have_ptxas()) {
    const PtxasResult r = run_ptxas(text, "sm_90a");
    EXPECT_TRUE(r.ok) << r.log;
  }
  EmuRun run;
  const uint64_t out = run.buffer(std::vector<uint32_t>(7, 0), "out");
  run.launch(text, "t", {1, 1, 1}, {32, 1, 1});
  const std::vector<uint32_t> got = run.read<uint32_t>(out, 7);
  EXPECT_EQ(got[5], 40u + 2u);
  EXPECT_EQ(got[6], static_cast<uint32_t>(0xffffffffu + 3u + 40u + 0x10u));  // wraps at 32 bits
}

}  // namespace
}  // namespace ptx::test
