// Clusters of several CTAs on the emulator: the CTAs of a cluster run interleaved,
// synchronize with barrier.cluster and reach each other's shared memory (mapa,
// .shared::cluster accesses, remote mbarriers, bulk copies). Each kernel is written
// by hand and also assembled by ptxas for sm_90a; expected values are computed here.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "../unit/ptxas_util.hpp"
#include "emu_test_util.hpp"

namespace ptx::test {
namespace {

void expect_assembles(const std::string& text) {
  if (!have_ptxas()) return;
  const auto r = run_ptxas(text, "sm_90a");
  EXPECT_TRUE(r.ok) << r.log;
}

// The line (1-based) of the first line of `text` containing `what`.
int line_of(const std::string& text, const std::string& what) {
  const size_t at = text.find(what);
  return at == std::string::npos ? 0 : 1 + static_cast<int>(std::count(text.begin(), text.begin() + static_cast<long>(at), '\n'));
}

// Each CTA writes rank * 100 + tid into its shared memory, then (after a cluster
// barrier) reads the slot of the next CTA of its cluster through mapa.shared::cluster
// and ld.shared::cluster.
const std::string kPull = R"(.version 8.0
.target sm_90a
.address_size 64

.visible .entry pull(.param .u64 out)
{
	.reg .b32 %r<16>;
	.reg .b64 %rd<4>;
	.shared .align 4 .b32 buf[64];
	ld.param.u64 %rd1, [out];
	cvta.to.global.u64 %rd1, %rd1;
	mov.u32 %r1, %tid.x;
	mov.u32 %r2, %cluster_ctarank;
	mov.u32 %r3, %cluster_nctarank;
	mad.lo.u32 %r4, %r2, 100, %r1;
	mov.u32 %r5, buf;
	shl.b32 %r6, %r1, 2;
	add.u32 %r7, %r5, %r6;
	st.shared.u32 [%r7], %r4;
	barrier.cluster.arrive.release.aligned;
	barrier.cluster.wait.acquire.aligned;
	add.u32 %r8, %r2, 1;
	rem.u32 %r8, %r8, %r3;
	mapa.shared::cluster.u32 %r9, %r7, %r8;
	ld.shared::cluster.u32 %r10, [%r9];
	mov.u32 %r11, %ctaid.x;
	mov.u32 %r12, %ntid.x;
	mad.lo.u32 %r13, %r11, %r12, %r1;
	mul.wide.u32 %rd2, %r13, 4;
	add.u64 %rd3, %rd1, %rd2;
	st.global.u32 [%rd3], %r10;
	barrier.cluster.arrive.aligned;
	barrier.cluster.wait.aligned;
	ret;
}
)";

class ClusterSize : public ::testing::TestWithParam<uint32_t> {};

TEST_P(ClusterSize, DsmemPullFromTheNextCta) {
  const uint32_t n = GetParam(), ctas = 8, threads = 64;
  EmuRun r;
  const uint64_t out = r.buffer(std::vector<uint32_t>(ctas * threads), "out");
  r.launch(kPull, "pull", {ctas, 1, 1}, {threads, 1, 1}, 0, {n, 1, 1});
  const auto got = r.read<uint32_t>(out, ctas * threads);
  for (uint32_t c = 0; c < ctas; ++c)
    for (uint32_t t = 0; t < threads; ++t) ASSERT_EQ(got[c * threads + t], (c % n + 1) % n * 100 + t) << c << " " << t;
  expect_assembles(kPull);
}

// Each CTA pushes into the previous CTA's shared memory through a generic mapa
// address, and every thread adds 1 to a counter in rank 0's shared memory
// (atom and red on .shared::cluster).
const std::string kPush = R"(.version 8.0
.target sm_90a
.address_size 64

.visible .entry push(.param .u64 out, .param .u64 count)
{
	.reg .pred %p<4>;
	.reg .b32 %r<20>;
	.reg .b64 %rd<12>;
	.shared .align 4 .b32 buf[64];
	.shared .align 4 .b32 counter;
	ld.param.u64 %rd1, [out];
	cvta.to.global.u64 %rd1, %rd1;
	mov.u32 %r1, %tid.x;
	mov.u32 %r2, %cluster_ctarank;
	mov.u32 %r3, %cluster_nctarank;
	setp.eq.u32 %p1, %r1, 0;
	@%p1 st.shared.u32 [counter], 0;
	barrier.cluster.arrive.aligned;
	barrier.cluster.wait.aligned;
	add.u32 %r4, %r2, %r3;
	sub.u32 %r4, %r4, 1;
	rem.u32 %r4, %r4, %r3;
	mov.u64 %rd2, buf;
	cvta.shared.u64 %rd3, %rd2;
	mul.wide.u32 %rd4, %r1, 4;
	add.u64 %rd5, %rd3, %rd4;
	mapa.u64 %rd6, %rd5, %r4;
	mad.lo.u32 %r5, %r2, 1000, %r1;
	st.u32 [%rd6], %r5;
	mov.u32 %r6, counter;
	mapa.shared::cluster.u32 %r7, %r6, 0;
	and.b32 %r8, %r1, 1;
	setp.eq.u32 %p2, %r8, 0;
	@%p2 red.shared::cluster.add.u32 [%r7], 1;
	@!%p2 atom.shared::cluster.add.u32 %r9, [%r7], 1;
	barrier.cluster.arrive.aligned;
	barrier.cluster.wait.aligned;
	mov.u32 %r10, buf;
	shl.b32 %r11, %r1, 2;
	add.u32 %r12, %r10, %r11;
	ld.shared.u32 %r13, [%r12];
	mov.u32 %r14, %ctaid.x;
	mov.u32 %r15, %ntid.x;
	mad.lo.u32 %r16, %r14, %r15, %r1;
	mul.wide.u32 %rd7, %r16, 4;
	add.u64 %rd8, %rd1, %rd7;
	st.global.u32 [%rd8], %r13;
	setp.eq.u32 %p3, %r2, 0;
	and.pred %p3, %p3, %p1;
	@!%p3 bra $done;
	ld.shared.u32 %r17, [counter];
	ld.param.u64 %rd9, [count];
	cvta.to.global.u64 %rd9, %rd9;
	mul.wide.u32 %rd10, %r14, 4;
	add.u64 %rd11, %rd9, %rd10;
	st.global.u32 [%rd11], %r17;
$done:
	ret;
}
)";

TEST_P(ClusterSize, DsmemPushThroughGenericAddressesAndRemoteAtomics) {
  const uint32_t n = GetParam(), ctas = 8, threads = 64;
  EmuRun r;
  const uint64_t out = r.buffer(std::vector<uint32_t>(ctas * threads), "out");
  const uint64_t count = r.buffer(std::vector<uint32_t>(ctas, 0xFFFFFFFFu), "count");
  r.launch(kPush, "push", {ctas, 1, 1}, {threads, 1, 1}, 0, {n, 1, 1});
  const auto got = r.read<uint32_t>(out, ctas * threads);
  for (uint32_t c = 0; c < ctas; ++c)
    for (uint32_t t = 0; t < threads; ++t) ASSERT_EQ(got[c * threads + t], (c % n + 1) % n * 1000 + t) << c << " " << t;
  const auto counts = r.read<uint32_t>(count, ctas);
  for (uint32_t c = 0; c < ctas; ++c) EXPECT_EQ(counts[c], c % n == 0 ? n * threads : 0xFFFFFFFFu) << c;
  expect_assembles(kPush);
}

INSTANTIATE_TEST_SUITE_P(Clusters, ClusterSize, ::testing::Values(2u, 4u));

// Three rounds: in round k each CTA writes k * 10 + rank into its slot, then after a
// cluster barrier reads its neighbour's slot; a second barrier ends the round. If
// barrier.cluster.wait did not wait, a CTA would read a stale (or unwritten) slot.
const std::string kRounds = R"(.version 8.0
.target sm_90a
.address_size 64

.visible .entry rounds(.param .u64 out)
{
	.reg .pred %p<4>;
	.reg .b32 %r<20>;
	.reg .b64 %rd<4>;
	.shared .align 4 .b32 slot;
	mov.u32 %r1, %cluster_ctarank;
	mov.u32 %r2, %cluster_nctarank;
	add.u32 %r3, %r1, 1;
	rem.u32 %r3, %r3, %r2;
	mov.u32 %r4, slot;
	mapa.shared::cluster.u32 %r5, %r4, %r3;
	mov.u32 %r6, 0;
	mov.u32 %r7, 0;
	mov.u32 %r8, %tid.x;
	setp.eq.u32 %p2, %r8, 0;
$round:
	mad.lo.u32 %r9, %r6, 10, %r1;
	@%p2 st.shared.u32 [%r4], %r9;
	barrier.cluster.arrive.release.aligned;
	barrier.cluster.wait.acquire.aligned;
	ld.shared::cluster.u32 %r10, [%r5];
	mul.lo.u32 %r7, %r7, 100;
	add.u32 %r7, %r7, %r10;
	barrier.cluster.arrive.relaxed.aligned;
	barrier.cluster.wait.aligned;
	add.u32 %r6, %r6, 1;
	setp.lt.u32 %p1, %r6, 3;
	@%p1 bra $round;
	@!%p2 bra $done;
	ld.param.u64 %rd1, [out];
	cvta.to.global.u64 %rd1, %rd1;
	mov.u32 %r11, %ctaid.x;
	mul.wide.u32 %rd2, %r11, 4;
	add.u64 %rd3, %rd1, %rd2;
	st.global.u32 [%rd3], %r7;
$done:
	ret;
}
)";

TEST(EmuCluster, BarrierOrdersRounds) {
  const uint32_t n = 4, ctas = 8;
  EmuRun r;
  const uint64_t out = r.buffer(std::vector<uint32_t>(ctas), "out");
  r.launch(kRounds, "rounds", {ctas, 1, 1}, {96, 1, 1}, 0, {n, 1, 1});
  const auto got = r.read<uint32_t>(out, ctas);
  for (uint32_t c = 0; c < ctas; ++c) {
    const uint32_t next = (c % n + 1) % n;
    uint32_t want = 0;
    for (uint32_t k = 0; k < 3; ++k) want = want * 100 + k * 10 + next;
    EXPECT_EQ(got[c], want) << c;
  }
  expect_assembles(kRounds);
}

// The cluster special registers, from a 2D grid of 2 x 2 clusters.
const std::string kSregs = R"(.version 8.0
.target sm_90a
.address_size 64

.visible .entry sregs(.param .u64 out)
{
	.reg .pred %p<2>;
	.reg .b32 %r<20>;
	.reg .b64 %rd<4>;
	mov.u32 %r1, %tid.x;
	setp.ne.u32 %p1, %r1, 0;
	@%p1 bra $done;
	mov.u32 %r2, %ctaid.x;
	mov.u32 %r3, %ctaid.y;
	mov.u32 %r4, %nctaid.x;
	mad.lo.u32 %r5, %r3, %r4, %r2;
	mul.lo.u32 %r5, %r5, 12;
	ld.param.u64 %rd1, [out];
	cvta.to.global.u64 %rd1, %rd1;
	mul.wide.u32 %rd2, %r5, 4;
	add.u64 %rd3, %rd1, %rd2;
	mov.u32 %r6, %cluster_ctaid.x;
	st.global.u32 [%rd3], %r6;
	mov.u32 %r6, %cluster_ctaid.y;
	st.global.u32 [%rd3+4], %r6;
	mov.u32 %r6, %cluster_nctaid.x;
	st.global.u32 [%rd3+8], %r6;
	mov.u32 %r6, %cluster_nctaid.y;
	st.global.u32 [%rd3+12], %r6;
	mov.u32 %r6, %cluster_ctarank;
	st.global.u32 [%rd3+16], %r6;
	mov.u32 %r6, %cluster_nctarank;
	st.global.u32 [%rd3+20], %r6;
	mov.u32 %r6, %clusterid.x;
	st.global.u32 [%rd3+24], %r6;
	mov.u32 %r6, %clusterid.y;
	st.global.u32 [%rd3+28], %r6;
	mov.u32 %r6, %nclusterid.x;
	st.global.u32 [%rd3+32], %r6;
	mov.u32 %r6, %nclusterid.y;
	st.global.u32 [%rd3+36], %r6;
	mov.pred %p1, %is_explicit_cluster;
	selp.u32 %r6, 1, 0, %p1;
	st.global.u32 [%rd3+40], %r6;
	mov.u32 %r6, %cluster_ctaid.z;
	st.global.u32 [%rd3+44], %r6;
$done:
	ret;
}
)";

TEST(EmuCluster, SpecialRegisters) {
  const uint32_t gx = 4, gy = 4, cx = 2, cy = 2;
  EmuRun r;
  const uint64_t out = r.buffer(std::vector<uint32_t>(gx * gy * 12), "out");
  r.launch(kSregs, "sregs", {gx, gy, 1}, {32, 1, 1}, 0, {cx, cy, 1});
  const auto got = r.read<uint32_t>(out, gx * gy * 12);
  for (uint32_t y = 0; y < gy; ++y)
    for (uint32_t x = 0; x < gx; ++x) {
      const uint32_t* g = &got[(y * gx + x) * 12];
      const std::vector<uint32_t> want = {x % cx, y % cy, cx, cy, (y % cy) * cx + x % cx, cx * cy, x / cx, y / cy, gx / cx, gy / cy, 1, 0};
      for (size_t i = 0; i < want.size(); ++i) EXPECT_EQ(g[i], want[i]) << "CTA (" << x << "," << y << ") field " << i;
    }
  expect_assembles(kSregs);
}

// .reqnctapercluster gives the shape when the launch gives none.
TEST(EmuCluster, ReqnctaperclusterShapesTheLaunch) {
  std::string text = kSregs;
  text.replace(text.find("\n{\n"), 3, "\n.reqnctapercluster 2, 1, 1\n{\n");
  EmuRun r;
  const uint64_t out = r.buffer(std::vector<uint32_t>(4 * 12), "out");
  r.launch(text, "sregs", {4, 1, 1}, {32, 1, 1});
  const auto got = r.read<uint32_t>(out, 4 * 12);
  for (uint32_t x = 0; x < 4; ++x) {
    EXPECT_EQ(got[x * 12 + 4], x % 2) << x;   // %cluster_ctarank
    EXPECT_EQ(got[x * 12 + 5], 2u) << x;      // %cluster_nctarank
    EXPECT_EQ(got[x * 12 + 6], x / 2) << x;   // %clusterid.x
    EXPECT_EQ(got[x * 12 + 10], 1u) << x;     // %is_explicit_cluster
  }
  // without a cluster: one CTA, not explicit
  EmuRun one;
  const uint64_t o1 = one.buffer(std::vector<uint32_t>(2 * 12), "out");
  one.launch(kSregs, "sregs", {2, 1, 1}, {32, 1, 1});
  const auto g1 = one.read<uint32_t>(o1, 2 * 12);
  EXPECT_EQ(g1[12 + 5], 1u);
  EXPECT_EQ(g1[12 + 6], 1u);
  EXPECT_EQ(g1[12 + 10], 0u);
  expect_assembles(text);
  // a grid that is not a whole number of clusters
  EmuRun bad;
  bad.buffer(std::vector<uint32_t>(3 * 12), "out");
  EXPECT_THROW(bad.launch(kSregs, "sregs", {3, 1, 1}, {32, 1, 1}, 0, {2, 1, 1}), emu::Error);
}

// Rank 0 fills 16 words of its shared memory and sends them to rank 1 with a bulk copy
// (cp.async.bulk shared::cta -> shared::cluster, complete_tx on rank 1's mbarrier), then
// stores a flag into rank 1's shared memory and arrives on rank 1's mbarrier remotely.
// Rank 1 waits on its mbarrier (one local arrive.expect_tx and the remote arrival).
const std::string kRemoteBarrier = R"(.version 8.0
.target sm_90a
.address_size 64

.visible .entry remote(.param .u64 out)
{
	.reg .pred %p<6>;
	.reg .b32 %r<24>;
	.reg .b64 %rd<6>;
	.shared .align 16 .b32 src[16];
	.shared .align 16 .b32 dst[16];
	.shared .align 4 .b32 flag;
	.shared .align 8 .b64 bar;
	mov.u32 %r1, %tid.x;
	mov.u32 %r2, %cluster_ctarank;
	setp.eq.u32 %p1, %r1, 0;
	setp.eq.u32 %p2, %r2, 0;
	mov.u32 %r3, bar;
	and.pred %p3, %p1, %p2;
	@%p2 bra $init_done;
	@%p1 mbarrier.init.shared::cta.b64 [%r3], 2;
$init_done:
	fence.mbarrier_init.release.cluster;
	barrier.cluster.arrive.release.aligned;
	barrier.cluster.wait.acquire.aligned;
	@!%p2 bra $rank1;
	setp.lt.u32 %p4, %r1, 16;
	mov.u32 %r4, src;
	shl.b32 %r5, %r1, 2;
	add.u32 %r6, %r4, %r5;
	add.u32 %r7, %r1, 1000;
	@%p4 st.shared.u32 [%r6], %r7;
	fence.proxy.async.shared::cta;
	bar.sync 0;
	@!%p1 bra $end;
	mov.u32 %r8, dst;
	mapa.shared::cluster.u32 %r9, %r8, 1;
	mapa.shared::cluster.u32 %r10, %r3, 1;
	cp.async.bulk.shared::cluster.shared::cta.mbarrier::complete_tx::bytes [%r9], [%r4], 64, [%r10];
	mov.u32 %r11, flag;
	mapa.shared::cluster.u32 %r12, %r11, 1;
	st.shared::cluster.u32 [%r12], 77;
	mbarrier.arrive.release.cluster.shared::cluster.b64 _, [%r10];
	bra $end;
$rank1:
	@%p1 mbarrier.arrive.expect_tx.shared::cta.b64 _, [%r3], 64;
$wait:
	mbarrier.try_wait.parity.shared::cta.b64 %p5, [%r3], 0;
	@!%p5 bra $wait;
	ld.param.u64 %rd1, [out];
	cvta.to.global.u64 %rd1, %rd1;
	mul.wide.u32 %rd2, %r1, 4;
	add.u64 %rd3, %rd1, %rd2;
	setp.lt.u32 %p4, %r1, 16;
	mov.u32 %r13, dst;
	shl.b32 %r14, %r1, 2;
	add.u32 %r15, %r13, %r14;
	@%p4 ld.shared.u32 %r16, [%r15];
	@%p4 st.global.u32 [%rd3], %r16;
	@!%p1 bra $end;
	ld.shared.u32 %r17, [flag];
	st.global.u32 [%rd1+64], %r17;
$end:
	barrier.cluster.arrive.aligned;
	barrier.cluster.wait.aligned;
	ret;
}
)";

TEST(EmuCluster, RemoteMbarrierAndBulkCopy) {
  EmuRun r;
  const uint64_t out = r.buffer(std::vector<uint32_t>(17), "out");
  r.launch(kRemoteBarrier, "remote", {2, 1, 1}, {32, 1, 1}, 0, {2, 1, 1});
  const auto got = r.read<uint32_t>(out, 17);
  for (uint32_t i = 0; i < 16; ++i) EXPECT_EQ(got[i], 1000 + i) << i;
  EXPECT_EQ(got[16], 77u);
  expect_assembles(kRemoteBarrier);
}

// st.async and red.async: rank 0 writes eight words into rank 1's shared memory and adds
// to a counter there, each completing bytes on rank 1's mbarrier, which expects 64.
const std::string kAsyncStores = R"(.version 8.1
.target sm_90a
.address_size 64

.visible .entry async_stores(.param .u64 out)
{
	.reg .pred %p<6>;
	.reg .b32 %r<24>;
	.reg .b64 %rd<6>;
	.shared .align 16 .b32 data[8];
	.shared .align 4 .b32 count;
	.shared .align 8 .b64 bar;
	mov.u32 %r1, %tid.x;
	mov.u32 %r2, %cluster_ctarank;
	setp.eq.u32 %p1, %r1, 0;
	setp.eq.u32 %p2, %r2, 0;
	setp.lt.u32 %p3, %r1, 8;
	mov.u32 %r3, bar;
	@%p2 bra $synced;
	@%p1 mbarrier.init.shared::cta.b64 [%r3], 1;
	@%p1 st.shared.u32 [count], 0;
$synced:
	fence.mbarrier_init.release.cluster;
	barrier.cluster.arrive.release.aligned;
	barrier.cluster.wait.acquire.aligned;
	@!%p2 bra $rank1;
	@!%p3 bra $end;
	mov.u32 %r4, data;
	shl.b32 %r5, %r1, 2;
	add.u32 %r6, %r4, %r5;
	mapa.shared::cluster.u32 %r7, %r6, 1;
	mapa.shared::cluster.u32 %r8, %r3, 1;
	mov.u32 %r9, count;
	mapa.shared::cluster.u32 %r10, %r9, 1;
	mul.lo.u32 %r11, %r1, 7;
	st.async.shared::cluster.mbarrier::complete_tx::bytes.u32 [%r7], %r11, [%r8];
	add.u32 %r12, %r1, 1;
	red.async.relaxed.cluster.shared::cluster.mbarrier::complete_tx::bytes.add.u32 [%r10], %r12, [%r8];
	bra $end;
$rank1:
	@%p1 mbarrier.arrive.expect_tx.shared::cta.b64 _, [%r3], 64;
$wait:
	mbarrier.try_wait.parity.shared::cta.b64 %p4, [%r3], 0;
	@!%p4 bra $wait;
	ld.param.u64 %rd1, [out];
	cvta.to.global.u64 %rd1, %rd1;
	mul.wide.u32 %rd2, %r1, 4;
	add.u64 %rd3, %rd1, %rd2;
	mov.u32 %r13, data;
	shl.b32 %r14, %r1, 2;
	add.u32 %r15, %r13, %r14;
	@%p3 ld.shared.u32 %r16, [%r15];
	@%p3 st.global.u32 [%rd3], %r16;
	@!%p1 bra $end;
	ld.shared.u32 %r17, [count];
	st.global.u32 [%rd1+32], %r17;
$end:
	barrier.cluster.arrive.aligned;
	barrier.cluster.wait.aligned;
	ret;
}
)";

TEST(EmuCluster, StAsyncAndRedAsyncCompleteRemoteTransactions) {
  EmuRun r;
  const uint64_t out = r.buffer(std::vector<uint32_t>(9), "out");
  r.launch(kAsyncStores, "async_stores", {2, 1, 1}, {32, 1, 1}, 0, {2, 1, 1});
  const auto got = r.read<uint32_t>(out, 9);
  for (uint32_t i = 0; i < 8; ++i) EXPECT_EQ(got[i], i * 7) << i;
  EXPECT_EQ(got[8], 36u);
  expect_assembles(kAsyncStores);
}

// cp.async.bulk with .multicast::cluster: rank 0 copies 64 bytes of global memory into
// the same offsets of every CTA of a 4-CTA cluster (ctaMask 0b1111).
const std::string kBulkMulticast = R"(.version 8.0
.target sm_90a
.address_size 64

.visible .entry bulk_mc(.param .u64 src, .param .u64 out)
{
	.reg .pred %p<6>;
	.reg .b16 %rs<2>;
	.reg .b32 %r<16>;
	.reg .b64 %rd<8>;
	.shared .align 16 .b32 dst[16];
	.shared .align 8 .b64 bar;
	mov.u32 %r1, %tid.x;
	mov.u32 %r2, %cluster_ctarank;
	setp.eq.u32 %p1, %r1, 0;
	mov.u32 %r3, bar;
	mov.u32 %r4, dst;
	@%p1 mbarrier.init.shared::cta.b64 [%r3], 1;
	fence.mbarrier_init.release.cluster;
	barrier.cluster.arrive.release.aligned;
	barrier.cluster.wait.acquire.aligned;
	@%p1 mbarrier.arrive.expect_tx.shared::cta.b64 _, [%r3], 64;
	setp.eq.u32 %p2, %r2, 0;
	and.pred %p2, %p2, %p1;
	ld.param.u64 %rd1, [src];
	cvta.to.global.u64 %rd1, %rd1;
	mov.u16 %rs1, 15;
	@%p2 cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes.multicast::cluster [%r4], [%rd1], 64, [%r3], %rs1;
$wait:
	mbarrier.try_wait.parity.shared::cta.b64 %p3, [%r3], 0;
	@!%p3 bra $wait;
	setp.lt.u32 %p4, %r1, 16;
	@!%p4 bra $end;
	shl.b32 %r5, %r1, 2;
	add.u32 %r6, %r4, %r5;
	ld.shared.u32 %r7, [%r6];
	mad.lo.u32 %r8, %r2, 16, %r1;
	ld.param.u64 %rd2, [out];
	cvta.to.global.u64 %rd2, %rd2;
	mul.wide.u32 %rd3, %r8, 4;
	add.u64 %rd4, %rd2, %rd3;
	st.global.u32 [%rd4], %r7;
$end:
	barrier.cluster.arrive.aligned;
	barrier.cluster.wait.aligned;
	ret;
}
)";

TEST(EmuCluster, BulkCopyMulticastsToEveryCtaOfTheMask) {
  EmuRun r;
  std::vector<uint32_t> src(16);
  for (uint32_t i = 0; i < 16; ++i) src[i] = 0xA000 + i * i;
  r.buffer(src, "src");
  const uint64_t out = r.buffer(std::vector<uint32_t>(64), "out");
  r.launch(kBulkMulticast, "bulk_mc", {4, 1, 1}, {32, 1, 1}, 0, {4, 1, 1});
  const auto got = r.read<uint32_t>(out, 64);
  for (uint32_t rank = 0; rank < 4; ++rank)
    for (uint32_t i = 0; i < 16; ++i) EXPECT_EQ(got[rank * 16 + i], src[i]) << rank << " " << i;
  expect_assembles(kBulkMulticast);
}

// Exited threads count as arrived at the cluster barrier: warp 1 of each CTA exits at once,
// warp 0 synchronizes with the cluster (with one CTA per cluster and with two).
const std::string kExited = R"(.version 8.0
.target sm_90a
.address_size 64

.visible .entry exited(.param .u64 out)
{
	.reg .pred %p<2>;
	.reg .b32 %r<4>;
	.reg .b64 %rd<4>;
	mov.u32 %r1, %tid.x;
	setp.ge.u32 %p1, %r1, 32;
	@%p1 exit;
	barrier.cluster.arrive;
	barrier.cluster.wait;
	ld.param.u64 %rd1, [out];
	cvta.to.global.u64 %rd1, %rd1;
	mov.u32 %r2, %ctaid.x;
	mad.lo.u32 %r3, %r2, 32, %r1;
	mul.wide.u32 %rd2, %r3, 4;
	add.u64 %rd3, %rd1, %rd2;
	st.global.u32 [%rd3], %r3;
	ret;
}
)";

TEST(EmuCluster, ExitedThreadsCountAsArrived) {
  for (uint32_t n : {1u, 2u}) {
    EmuRun r;
    const uint64_t out = r.buffer(std::vector<uint32_t>(64), "out");
    r.launch(kExited, "exited", {2, 1, 1}, {64, 1, 1}, 0, {n, 1, 1});
    const auto got = r.read<uint32_t>(out, 64);
    for (uint32_t i = 0; i < 64; ++i) EXPECT_EQ(got[i], i) << n;
  }
  expect_assembles(kExited);
}

// Non-.aligned cluster barriers in divergent code: odd and even lanes arrive and wait on
// different paths; each lane then reads the neighbour CTA's slot of the same thread.
const std::string kDivergent = R"(.version 8.0
.target sm_90a
.address_size 64

.visible .entry divergent(.param .u64 out)
{
	.reg .pred %p<2>;
	.reg .b32 %r<16>;
	.reg .b64 %rd<4>;
	.shared .align 4 .b32 buf[64];
	mov.u32 %r1, %tid.x;
	mov.u32 %r2, %cluster_ctarank;
	mov.u32 %r3, buf;
	shl.b32 %r4, %r1, 2;
	add.u32 %r5, %r3, %r4;
	mad.lo.u32 %r6, %r2, 1000, %r1;
	st.shared.u32 [%r5], %r6;
	xor.b32 %r7, %r2, 1;
	mapa.shared::cluster.u32 %r8, %r5, %r7;
	and.b32 %r9, %r1, 1;
	setp.eq.u32 %p1, %r9, 0;
	@%p1 bra $even;
	barrier.cluster.arrive.release;
	barrier.cluster.wait.acquire;
	ld.shared::cluster.u32 %r10, [%r8];
	add.u32 %r10, %r10, 500000;
	bra.uni $join;
$even:
	barrier.cluster.arrive.release;
	barrier.cluster.wait.acquire;
	ld.shared::cluster.u32 %r10, [%r8];
$join:
	mov.u32 %r11, %ctaid.x;
	mad.lo.u32 %r12, %r11, 64, %r1;
	ld.param.u64 %rd1, [out];
	cvta.to.global.u64 %rd1, %rd1;
	mul.wide.u32 %rd2, %r12, 4;
	add.u64 %rd3, %rd1, %rd2;
	st.global.u32 [%rd3], %r10;
	barrier.cluster.arrive;
	barrier.cluster.wait;
	ret;
}
)";

TEST(EmuCluster, DivergentLanesSynchronizeWithoutAligned) {
  EmuRun r;
  const uint64_t out = r.buffer(std::vector<uint32_t>(4 * 64), "out");
  r.launch(kDivergent, "divergent", {4, 1, 1}, {64, 1, 1}, 0, {2, 1, 1});
  const auto got = r.read<uint32_t>(out, 4 * 64);
  for (uint32_t c = 0; c < 4; ++c)
    for (uint32_t t = 0; t < 64; ++t) ASSERT_EQ(got[c * 64 + t], ((c % 2) ^ 1) * 1000 + t + (t % 2 ? 500000 : 0)) << c << " " << t;
  expect_assembles(kDivergent);
}

// Rank 0 waits at the cluster barrier; rank 1 waits on an mbarrier that only rank 0
// would complete, after the barrier: a deadlock, reported with where each CTA waits.
const std::string kDeadlock = R"(.version 8.0
.target sm_90a
.address_size 64

.visible .entry deadlock()
{
	.reg .pred %p<4>;
	.reg .b32 %r<8>;
	.shared .align 8 .b64 bar;
	mov.u32 %r1, %cluster_ctarank;
	mov.u32 %r2, bar;
	setp.eq.u32 %p1, %r1, 0;
	@%p1 bra $rank0;
	mbarrier.init.shared::cta.b64 [%r2], 1;
$wait:
	mbarrier.try_wait.parity.shared::cta.b64 %p2, [%r2], 0;
	@!%p2 bra $wait;
$rank0:
	barrier.cluster.arrive.aligned;
	barrier.cluster.wait.aligned;
	@!%p1 bra $done;
	mapa.shared::cluster.u32 %r3, %r2, 1;
	mbarrier.arrive.release.cluster.shared::cluster.b64 _, [%r3];
$done:
	ret;
}
)";

TEST(EmuCluster, DeadlockIsReported) {
  EmuRun r;
  try {
    r.launch(kDeadlock, "deadlock", {2, 1, 1}, {32, 1, 1}, 0, {2, 1, 1});
    FAIL() << "no report";
  } catch (const emu::Error& e) {
    const std::string m = e.what();
    EXPECT_NE(m.find("deadlock"), std::string::npos) << m;
    EXPECT_NE(m.find("barrier.cluster.wait"), std::string::npos) << m;
    EXPECT_NE(m.find("mbarrier.try_wait"), std::string::npos) << m;
    EXPECT_NE(m.find(":" + std::to_string(line_of(kDeadlock, "barrier.cluster.wait"))), std::string::npos) << m;
  }
  expect_assembles(kDeadlock);
}

// In one CTA: warp 0 waits at bar.sync while warp 1 spins on an mbarrier that warp 0
// would arrive at after the barrier. Reported at once, not after max_steps.
const std::string kCtaDeadlock = R"(.version 8.0
.target sm_90a
.address_size 64

.visible .entry cta_deadlock()
{
	.reg .pred %p<4>;
	.reg .b32 %r<8>;
	.shared .align 8 .b64 bar;
	mov.u32 %r1, %tid.x;
	mov.u32 %r2, bar;
	setp.lt.u32 %p1, %r1, 32;
	@%p1 bra $warp0;
	setp.eq.u32 %p3, %r1, 32;
	@%p3 mbarrier.init.shared::cta.b64 [%r2], 1;
$wait:
	mbarrier.try_wait.parity.shared::cta.b64 %p2, [%r2], 0;
	@!%p2 bra $wait;
	bra.uni $done;
$warp0:
	bar.sync 0;
	mbarrier.arrive.shared::cta.b64 _, [%r2];
$done:
	ret;
}
)";

TEST(EmuDeadlock, BarrierAndMbarrierInOneCta) {
  EmuRun r;
  try {
    r.launch(kCtaDeadlock, "cta_deadlock", {1, 1, 1}, {64, 1, 1});
    FAIL() << "no report";
  } catch (const emu::Error& e) {
    const std::string m = e.what();
    EXPECT_NE(m.find("deadlock"), std::string::npos) << m;
    EXPECT_NE(m.find("waiting at 'bar.sync"), std::string::npos) << m;
    EXPECT_NE(m.find("spinning at 'mbarrier.try_wait"), std::string::npos) << m;
  }
  expect_assembles(kCtaDeadlock);
}

// mapa to a rank outside the cluster, and a .shared::cluster load from an address of
// no CTA of the cluster: reported with the instruction and its line.
const std::string kBadRank = R"(.version 8.0
.target sm_90a
.address_size 64

.visible .entry badrank(.param .u32 rank, .param .u32 raw)
{
	.reg .pred %p<2>;
	.reg .b32 %r<8>;
	.shared .align 4 .b32 buf[32];
	mov.u32 %r1, %tid.x;
	mov.u32 %r2, buf;
	shl.b32 %r3, %r1, 2;
	add.u32 %r2, %r2, %r3;
	st.shared.u32 [%r2], %r1;
	barrier.cluster.arrive.aligned;
	barrier.cluster.wait.aligned;
	ld.param.u32 %r4, [rank];
	ld.param.u32 %r5, [raw];
	setp.eq.u32 %p1, %r5, 0;
	@%p1 mapa.shared::cluster.u32 %r6, %r2, %r4;
	@!%p1 mov.u32 %r6, %r5;
	ld.shared::cluster.u32 %r7, [%r6];
	barrier.cluster.arrive.aligned;
	barrier.cluster.wait.aligned;
	ret;
}
)";

TEST(EmuCluster, BadRankIsReported) {
  {
    EmuRun r;
    r.scalar(uint32_t{2});
    r.scalar(uint32_t{0});
    try {
      r.launch(kBadRank, "badrank", {2, 1, 1}, {32, 1, 1}, 0, {2, 1, 1});
      FAIL() << "no report";
    } catch (const emu::Error& e) {
      const std::string m = e.what();
      EXPECT_NE(m.find("mapa to CTA rank 2: out of range (the cluster has 2 CTAs)"), std::string::npos) << m;
      EXPECT_NE(m.find("mapa.shared::cluster.u32"), std::string::npos) << m;
      EXPECT_NE(m.find(":" + std::to_string(line_of(kBadRank, "mapa.shared::cluster"))), std::string::npos) << m;
    }
  }
  {
    EmuRun r;
    r.scalar(uint32_t{0});
    r.scalar(uint32_t{0x05000010});  // rank 4's shared+16
    try {
      r.launch(kBadRank, "badrank", {2, 1, 1}, {32, 1, 1}, 0, {2, 1, 1});
      FAIL() << "no report";
    } catch (const emu::Error& e) {
      const std::string m = e.what();
      EXPECT_NE(m.find("CTA rank 4 is out of range (the cluster has 2 CTAs)"), std::string::npos) << m;
      EXPECT_NE(m.find("ld.shared::cluster.u32"), std::string::npos) << m;
      EXPECT_NE(m.find(":" + std::to_string(line_of(kBadRank, "ld.shared::cluster"))), std::string::npos) << m;
    }
  }
  {  // rank 1 of the cluster is fine
    EmuRun r;
    r.scalar(uint32_t{1});
    r.scalar(uint32_t{0});
    EXPECT_NO_THROW(r.launch(kBadRank, "badrank", {2, 1, 1}, {32, 1, 1}, 0, {2, 1, 1}));
  }
  expect_assembles(kBadRank);
}

// Race checking across the CTAs of a cluster: rank 1 writes a word of rank 0's shared memory
// (thread 0, and in modes 3 and 4 thread 1 after it), rank 0's thread 0 reads it. mode 0: no
// synchronization between the CTAs (rank 0 only passes a bar.sync of its own): a race. mode 1:
// a barrier.cluster between. mode 2: rank 1 arrives on rank 0's mbarrier after writing, rank 0
// waits for that phase. mode 3: rank 1's two writes are ordered by its bar.sync. mode 4: they
// are not: a race between two threads of rank 1 in rank 0's memory.
const std::string kRemoteRace = R"(.version 8.0
.target sm_90a
.address_size 64

.visible .entry remote_race(.param .u64 out, .param .u32 mode)
{
	.reg .pred %p<8>;
	.reg .b32 %r<12>;
	.reg .b64 %rd<2>;
	.shared .align 8 .b64 bar;
	.shared .align 4 .b32 slot;
	mov.u32 %r1, %tid.x;
	mov.u32 %r2, %cluster_ctarank;
	ld.param.u32 %r3, [mode];
	setp.eq.u32 %p1, %r1, 0;
	setp.eq.u32 %p2, %r2, 0;
	mov.u32 %r4, bar;
	mov.u32 %r5, slot;
	and.pred %p3, %p1, %p2;
	@%p3 mbarrier.init.shared::cta.b64 [%r4], 1;
	@%p3 st.shared.u32 [%r5], 5;
	fence.mbarrier_init.release.cluster;
	barrier.cluster.arrive.release.aligned;
	barrier.cluster.wait.acquire.aligned;
	mapa.shared::cluster.u32 %r6, %r5, 0;
	mapa.shared::cluster.u32 %r7, %r4, 0;
	@%p2 bra $rank0;
	@%p1 st.shared::cluster.u32 [%r6], 7;
	setp.eq.u32 %p4, %r3, 3;
	@%p4 bar.sync 0;
	setp.eq.u32 %p5, %r1, 1;
	setp.ge.u32 %p4, %r3, 3;
	and.pred %p5, %p5, %p4;
	@%p5 st.shared::cluster.u32 [%r6], 8;
	setp.eq.u32 %p4, %r3, 2;
	and.pred %p4, %p4, %p1;
	@%p4 mbarrier.arrive.release.cluster.shared::cluster.b64 _, [%r7];
	bra $middle;
$rank0:
	setp.eq.u32 %p4, %r3, 0;
	@%p4 bar.sync 0;
	setp.ne.u32 %p4, %r3, 2;
	@%p4 bra $middle;
$wait:
	mbarrier.try_wait.parity.shared::cta.b64 %p6, [%r4], 0;
	@!%p6 bra $wait;
$middle:
	setp.eq.u32 %p4, %r3, 0;
	setp.eq.u32 %p6, %r3, 2;
	or.pred %p4, %p4, %p6;
	@%p4 bra $read;
	barrier.cluster.arrive.release.aligned;
	barrier.cluster.wait.acquire.aligned;
$read:
	@!%p3 bra $end;
	ld.shared.u32 %r8, [%r5];
	ld.param.u64 %rd1, [out];
	cvta.to.global.u64 %rd1, %rd1;
	st.global.u32 [%rd1], %r8;
$end:
	barrier.cluster.arrive.aligned;
	barrier.cluster.wait.aligned;
	ret;
}
)";

// Runs kRemoteRace in one cluster of two CTAs: the word rank 0 read, or the race report.
std::string run_remote_race(uint32_t mode, uint32_t* read = nullptr) {
  EmuRun r;
  const uint64_t out = r.buffer(std::vector<uint32_t>(1), "out");
  r.scalar(mode);
  try {
    r.launch(kRemoteRace, "remote_race", {2, 1, 1}, {32, 1, 1}, 0, {2, 1, 1});
  } catch (const emu::Error& e) {
    return e.what();
  }
  if (read) *read = r.read<uint32_t>(out, 1)[0];
  return "";
}

TEST(EmuClusterRaces, UnsynchronizedRemoteWriteAndLocalReadAreReported) {
  const std::string m = run_remote_race(0);
  EXPECT_NE(m.find("shared-memory race"), std::string::npos) << m;
  EXPECT_NE(m.find("CTA rank"), std::string::npos) << m;  // the remote side is named by its rank
  EXPECT_TRUE(m.find("st.shared::cluster.u32") != std::string::npos || m.find("ld.shared.u32") != std::string::npos) << m;
  expect_assembles(kRemoteRace);
}

TEST(EmuClusterRaces, ClusterBarrierAndRemoteMbarrierOrderTheAccesses) {
  for (uint32_t mode : {1u, 2u}) {
    uint32_t got = 0;
    EXPECT_EQ(run_remote_race(mode, &got), "") << mode;
    EXPECT_EQ(got, 7u) << mode;
  }
}

TEST(EmuClusterRaces, RemoteWritesOfOneCtaAreOrderedByItsBarrier) {
  uint32_t got = 0;
  EXPECT_EQ(run_remote_race(3, &got), "");
  EXPECT_EQ(got, 8u);
  const std::string m = run_remote_race(4);
  EXPECT_NE(m.find("shared-memory race: a write of shared+"), std::string::npos) << m;
  EXPECT_NE(m.find(" of CTA rank 0 after a write by thread (0,0,0) of CTA rank 1"), std::string::npos) << m;
  EXPECT_NE(m.find(":" + std::to_string(line_of(kRemoteRace, "@%p5 st.shared::cluster"))), std::string::npos) << m;
}

}  // namespace
}  // namespace ptx::test
