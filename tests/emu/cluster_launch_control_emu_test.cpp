// clusterlaunchcontrol on the emulator: persistent kernels take work from clusters that have not
// started (try_cancel), decode the response (query_cancel), and misuse the manual calls
// undefined is reported. Also the .b128 registers that carry the response (ld/st/mov/atom).
// Each kernel is written by hand and assembled by ptxas for its target; expected values are
// computed here.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "../unit/ptxas_util.hpp"
#include "emu_test_util.hpp"

namespace ptx::test {
namespace {

void expect_assembles(const std::string& text, const char* arch) {
  if (!have_ptxas()) return;
  const auto r = run_ptxas(text, arch);
  EXPECT_TRUE(r.ok) << r.log;
}

// Every CTA writes out[x] = its ctaid.x + 1 for its own x, then asks to cancel clusters that have
// not started and does their work too, until a request fails. ran[0] counts the CTAs that ran.
// mode 1: after the failed request, decode the failed response's ctaid (undefined); mode 2: ask
// again after seeing the failure (undefined).
const std::string kPersistent = R"(.version 8.6
.target sm_100a
.address_size 64

.visible .entry persistent(.param .u64 out, .param .u64 ran, .param .u32 mode)
{
	.reg .pred %p<6>;
	.reg .b32 %r<12>;
	.reg .b64 %rd<6>;
	.reg .b128 %q1;
	.shared .align 16 .b8 resp[16];
	.shared .align 8 .b64 bar;
	ld.param.u64 %rd1, [out];
	cvta.to.global.u64 %rd1, %rd1;
	ld.param.u64 %rd2, [ran];
	cvta.to.global.u64 %rd2, %rd2;
	ld.param.u32 %r9, [mode];
	mov.u32 %r1, %tid.x;
	setp.eq.u32 %p1, %r1, 0;
	mov.u32 %r2, %ctaid.x;
	@%p1 atom.global.add.u32 %r3, [%rd2], 1;
	@%p1 mbarrier.init.shared::cta.b64 [bar], 1;
	bar.sync 0;
	mov.u32 %r4, 0;
	mov.u32 %r5, %r2;
$work:
	mul.wide.u32 %rd3, %r5, 4;
	add.u64 %rd4, %rd1, %rd3;
	add.u32 %r6, %r2, 1;
	@%p1 st.global.u32 [%rd4], %r6;
	@%p1 mbarrier.arrive.expect_tx.shared::cta.b64 _, [bar], 16;
	@%p1 clusterlaunchcontrol.try_cancel.async.shared::cta.mbarrier::complete_tx::bytes.b128 [resp], [bar];
$wait:
	mbarrier.try_wait.parity.shared::cta.b64 %p2, [bar], %r4;
	@!%p2 bra $wait;
	xor.b32 %r4, %r4, 1;
	ld.shared.b128 %q1, [resp];
	clusterlaunchcontrol.query_cancel.is_canceled.pred.b128 %p3, %q1;
	@!%p3 bra $done;
	clusterlaunchcontrol.query_cancel.get_first_ctaid::x.b32.b128 %r5, %q1;
	bar.sync 0;
	bra $work;
$done:
	setp.eq.u32 %p4, %r9, 1;
	@%p4 clusterlaunchcontrol.query_cancel.get_first_ctaid::y.b32.b128 %r7, %q1;
	setp.eq.u32 %p4, %r9, 2;
	and.pred %p5, %p4, %p1;
	@%p5 clusterlaunchcontrol.try_cancel.async.shared::cta.mbarrier::complete_tx::bytes.b128 [resp], [bar];
	ret;
}
)";

// Clusters of two CTAs: rank 0 asks with .multicast::cluster::all, so both CTAs get the response
// and together do the canceled cluster's work (rank r: the canceled cluster's first ctaid + r).
const std::string kPersistentCluster = R"(.version 8.6
.target sm_100a
.address_size 64

.visible .entry persistent_cluster(.param .u64 out, .param .u64 ran)
{
	.reg .pred %p<6>;
	.reg .b32 %r<16>;
	.reg .b64 %rd<6>;
	.reg .b128 %q1;
	.shared .align 16 .b8 resp[16];
	.shared .align 8 .b64 bar;
	ld.param.u64 %rd1, [out];
	cvta.to.global.u64 %rd1, %rd1;
	ld.param.u64 %rd2, [ran];
	cvta.to.global.u64 %rd2, %rd2;
	mov.u32 %r1, %tid.x;
	setp.eq.u32 %p1, %r1, 0;
	mov.u32 %r2, %ctaid.x;
	mov.u32 %r10, %cluster_ctarank;
	setp.eq.u32 %p4, %r10, 0;
	and.pred %p5, %p1, %p4;
	@%p1 atom.global.add.u32 %r3, [%rd2], 1;
	@%p1 mbarrier.init.shared::cta.b64 [bar], 1;
	fence.mbarrier_init.release.cluster;
	barrier.cluster.arrive.release.aligned;
	barrier.cluster.wait.acquire.aligned;
	mov.u32 %r4, 0;
	mov.u32 %r5, %r2;
$work:
	mul.wide.u32 %rd3, %r5, 4;
	add.u64 %rd4, %rd1, %rd3;
	add.u32 %r6, %r2, 1;
	@%p1 st.global.u32 [%rd4], %r6;
	@%p1 mbarrier.arrive.expect_tx.shared::cta.b64 _, [bar], 16;
	@%p5 clusterlaunchcontrol.try_cancel.async.shared::cta.mbarrier::complete_tx::bytes.multicast::cluster::all.b128 [resp], [bar];
$wait:
	mbarrier.try_wait.parity.shared::cta.b64 %p2, [bar], %r4;
	@!%p2 bra $wait;
	xor.b32 %r4, %r4, 1;
	ld.shared.b128 %q1, [resp];
	clusterlaunchcontrol.query_cancel.is_canceled.pred.b128 %p3, %q1;
	barrier.cluster.arrive.release.aligned;
	barrier.cluster.wait.acquire.aligned;
	@!%p3 bra $done;
	clusterlaunchcontrol.query_cancel.get_first_ctaid.v4.b32.b128 {%r7, %r8, %r9, %r11}, %q1;
	add.u32 %r5, %r7, %r10;
	add.u32 %r12, %r8, %r9;
	@%p1 atom.global.add.u32 %r13, [%rd2+4], %r12;
	bra $work;
$done:
	ret;
}
)";

struct ClcRun {
  std::vector<uint32_t> out, ran;
  std::string error;
};

ClcRun run_persistent(const std::string& text, const std::string& entry, uint32_t ctas, uint32_t cluster, unsigned threads,
                      int mode = -1) {
  emu::Options opt;
  opt.threads = threads;
  EmuRun r{emu::Emulator(opt), {}};
  const uint64_t out = r.buffer(std::vector<uint32_t>(ctas), "out");
  const uint64_t ran = r.buffer(std::vector<uint32_t>(2), "ran");
  if (mode >= 0) r.scalar(static_cast<uint32_t>(mode));
  ClcRun res;
  try {
    r.launch(text, entry, {ctas, 1, 1}, {64, 1, 1}, 0, {cluster, 1, 1});
  } catch (const emu::Error& e) {
    res.error = e.what();
    return res;
  }
  res.out = r.read<uint32_t>(out, ctas);
  res.ran = r.read<uint32_t>(ran, 2);
  return res;
}

TEST(EmuClusterLaunchControl, OneCtaTakesTheWorkOfEveryClusterThatHasNotStarted) {
  // one host thread: CTA 0 runs first and cancels every other cluster
  const ClcRun one = run_persistent(kPersistent, "persistent", 24, 1, 1, 0);
  ASSERT_EQ(one.error, "");
  EXPECT_EQ(one.ran[0], 1u);
  for (uint32_t x = 0; x < 24; ++x) EXPECT_EQ(one.out[x], 1u) << x;
  // two host threads: the CTAs that ran share the work; each item is done exactly once, by a CTA that ran
  const ClcRun two = run_persistent(kPersistent, "persistent", 64, 1, 2, 0);
  ASSERT_EQ(two.error, "");
  EXPECT_GE(two.ran[0], 1u);
  EXPECT_LE(two.ran[0], 2u);
  std::vector<bool> ran_cta(65, false);
  for (uint32_t x = 0; x < 64; ++x) {
    ASSERT_GE(two.out[x], 1u) << x;
    ran_cta[two.out[x]] = true;
  }
  EXPECT_TRUE(ran_cta[1]);  // CTA 0 always runs (the first cluster taken)
  expect_assembles(kPersistent, "sm_100a");
}

TEST(EmuClusterLaunchControl, MulticastResponseReachesEveryCtaOfTheCluster) {
  const ClcRun r = run_persistent(kPersistentCluster, "persistent_cluster", 8, 2, 1);
  ASSERT_EQ(r.error, "");
  EXPECT_EQ(r.ran[0], 2u);  // the first cluster's two CTAs
  EXPECT_EQ(r.ran[1], 0u);  // get_first_ctaid's y and z
  for (uint32_t x = 0; x < 8; ++x) EXPECT_EQ(r.out[x], x % 2 + 1) << x;  // done by rank x % 2 of cluster 0
  expect_assembles(kPersistentCluster, "sm_100a");
}

TEST(EmuClusterLaunchControl, UndefinedUsesAreReported) {
  const ClcRun ctaid = run_persistent(kPersistent, "persistent", 4, 1, 1, 1);
  EXPECT_NE(ctaid.error.find("get_first_ctaid of a response whose try_cancel failed"), std::string::npos) << ctaid.error;
  EXPECT_NE(ctaid.error.find("get_first_ctaid::y"), std::string::npos) << ctaid.error;
  const ClcRun again = run_persistent(kPersistent, "persistent", 4, 1, 1, 2);
  EXPECT_NE(again.error.find("try_cancel after this CTA observed a failed one"), std::string::npos) << again.error;
}

// .b128 registers: ld/st, mov's unpack/pack/copy, atom.cas.b128 (a hit and a miss) and atom.exch.b128.
const std::string kB128 = emu_kernel("b128.ptx");

TEST(EmuB128, LoadStoreMovAndAtomics) {
  EmuRun r;
  std::vector<uint64_t> buf(16, 0);
  buf[0] = 0x1111222233334444ull, buf[1] = 0x5555666677778888ull;  // q1
  buf[4] = buf[0], buf[5] = buf[1];                                 // cas target equal to q1: swapped in
  buf[8] = buf[0], buf[9] = 7;                                      // cas target differing in the high half: kept
  buf[12] = 0xAAull, buf[13] = 0xBBull;                             // exch target
  const uint64_t a = r.buffer(buf, "buf");
  r.launch(kB128, "b128", {1, 1, 1}, {1, 1, 1});
  const auto got = r.read<uint64_t>(a, 16);
  const uint64_t q2[2] = {0x5555666677778888ull, 0x1111222233334445ull};  // halves swapped, old low half + 1
  EXPECT_EQ(got[2], q2[0]);
  EXPECT_EQ(got[3], q2[1]);
  EXPECT_EQ(got[4], q2[0]);  // cas hit: the new value
  EXPECT_EQ(got[5], q2[1]);
  EXPECT_EQ(got[6], buf[0]);  // and the old one returned
  EXPECT_EQ(got[7], buf[1]);
  EXPECT_EQ(got[8], buf[0]);  // cas miss: unchanged
  EXPECT_EQ(got[9], 7u);
  EXPECT_EQ(got[10], buf[0]);
  EXPECT_EQ(got[11], 7u);
  EXPECT_EQ(got[12], q2[0]);  // exch
  EXPECT_EQ(got[13], q2[1]);
  EXPECT_EQ(got[14], 0xAAu);
  EXPECT_EQ(got[15], 0xBBu);
  expect_assembles(kB128, "sm_90");
}

TEST(EmuB128, A128BitValueNeedsA128BitRegister) {
  const std::string bad = R"(.version 8.3
.target sm_90
.address_size 64
.visible .entry bad(.param .u64 buf)
{
	.reg .b64 %rd<3>;
	ld.param.u64 %rd1, [buf];
	ld.global.b128 %rd2, [%rd1];
	ret;
}
)";
  emu::Options opt;
  opt.validate = false;  // the validator refuses it first; the emulator must not read past the register
  EmuRun r{emu::Emulator(opt), {}};
  r.buffer(std::vector<uint64_t>(2), "buf");
  try {
    r.launch(bad, "bad", {1, 1, 1}, {1, 1, 1});
    FAIL() << "no report";
  } catch (const emu::Error& e) {
    EXPECT_NE(std::string(e.what()).find("ld.b128 needs a .b128 register"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace ptx::test
