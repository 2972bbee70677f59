// Block scopes in the emulator: each `{ }` block's registers and labels are its own
// (ir::Scopes), as ptxas assembles them. Inner registers used to alias the outer
// ones of the same name, and a label repeated in sibling blocks jumped to the last one.
#include <vector>

#include "../unit/ptxas_util.hpp"
#include "emu_test_util.hpp"

namespace ptx::test {
namespace {

// out[0]: the outer %x after an inner block wrote its own %x; out[1]: two sibling loops with
// one label (3 steps of 1, then 5 of 10); out[2]: the outer %r1 after an inner %r<2> wrote its
// %r1, plus the inner %r1 (which read the outer %r5); out[3]: the Triton wait loop twice, with
// its own predicate and label each time.
const char* kKernel = R"(.version 8.0
.target sm_90a
.address_size 64

.visible .entry scopes(.param .u64 out)
{
	.reg .pred %p<2>;
	.reg .b32 %r<8>;
	.reg .b32 %x, %i, %acc;
	.reg .b64 %rd<4>;
	.shared .align 8 .b64 bar;
	ld.param.u64 %rd1, [out];
	cvta.to.global.u64 %rd1, %rd1;
	mov.u32 %x, 7;
	{
	.reg .b32 %x;
	mov.u32 %x, 100;
	st.global.u32 [%rd1+16], %x;
	}
	st.global.u32 [%rd1], %x;
	mov.u32 %acc, 0;
	{
	.reg .pred P1;
	mov.u32 %i, 0;
	L:
	add.u32 %i, %i, 1;
	add.u32 %acc, %acc, 1;
	setp.lt.u32 P1, %i, 3;
	@P1 bra L;
	}
	{
	.reg .pred P1;
	mov.u32 %i, 0;
	L:
	add.u32 %i, %i, 1;
	add.u32 %acc, %acc, 10;
	setp.lt.u32 P1, %i, 5;
	@P1 bra L;
	}
	st.global.u32 [%rd1+4], %acc;
	mov.u32 %r1, 11;
	mov.u32 %r5, 5;
	{
	.reg .b32 %r<2>;
	mov.u32 %r0, 1000;
	add.u32 %r1, %r5, %r0;
	st.global.u32 [%rd1+20], %r1;
	}
	st.global.u32 [%rd1+8], %r1;
	mov.u64 %rd2, bar;
	mbarrier.init.shared::cta.b64 [%rd2], 1;
	mbarrier.arrive.shared::cta.b64 %rd3, [%rd2];
	{
	.reg .pred P1;
	waitLoop:
	mbarrier.try_wait.parity.shared::cta.b64 P1, [%rd2], 0;
	@!P1 bra waitLoop;
	}
	mbarrier.arrive.shared::cta.b64 %rd3, [%rd2];
	{
	.reg .pred P1;
	waitLoop:
	mbarrier.try_wait.parity.shared::cta.b64 P1, [%rd2], 1;
	@!P1 bra waitLoop;
	}
	st.global.u32 [%rd1+12], 1;
	ret;
}
)";

TEST(EmuScopes, InnerBlocksHaveTheirOwnRegistersAndLabels) {
  if (have_ptxas()) {
    const PtxasResult r = run_ptxas(kKernel, "sm_90a");
    EXPECT_TRUE(r.ok) << r.log;
  }
  EmuRun run;
  const uint64_t out = run.buffer(std::vector<uint32_t>(6, 0), "out");
  run.launch(kKernel, "scopes", {1, 1, 1}, {1, 1, 1});
  const std::vector<uint32_t> got = run.read<uint32_t>(out, 6);
  EXPECT_EQ(got[0], 7u) << "the inner %x is not the outer one";
  EXPECT_EQ(got[4], 100u);
  EXPECT_EQ(got[1], 3u + 50u) << "each loop branches to its own block's label";
  EXPECT_EQ(got[2], 11u) << "the inner %r<2> declares its own %r1";
  EXPECT_EQ(got[5], 1005u) << "%r5 inside the block is the outer range's";
  EXPECT_EQ(got[3], 1u);
}

}  // namespace
}  // namespace ptx::test
