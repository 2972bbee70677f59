// The Hopper helpers (ptx::hopper): the exact PTX of each, ptxas acceptance for sm_90a,
// matrix descriptor bit fields against the ISA manual, the wgmma accumulator fragment map
// against the manual's formula and against the emulator, and the sm_90 GEMM example's
// resources under ptxas -v.
#include <algorithm>
#include <cstring>
#include <random>
#include <regex>
#include <set>

#include <ptxpp/runtime.hpp>

#include "../../examples/kernels/gemm_sm90.hpp"
#include "../../examples/kernels/gemm_sm90_grouped.hpp"
#include "../../examples/kernels/gemm_sm90_grouped_contiguous.hpp"
#include "../../examples/kernels/gemm_sm90_persistent.hpp"
#include "dsl_test_util.hpp"

namespace ptx::test {
namespace {

using namespace ptx::hopper;

TEST(Hopper, WarpSpecializeEmitsTheRolesAndSetmaxnreg) {
  auto t = trace_body([] {
    ptx::Reg tid = ptx::read(ptx::special::tid.x(), u32);
    warp_specialize(
        tid, {.producer_regs = 24, .consumer_regs = 240},
        [] {
          ptx::Reg elected = ptx::warp::elect_one();
          ptx::Reg one(u32);
          inst::mov.u32(one, 1u);
          (void)elected;
        },
        [](const ptx::Reg& ct) {
          ptx::Reg next = ct + 1u;
          (void)next;
        });
  });
  EXPECT_EQ(listing_of(t->ptx),
            "mov.u32 \t%r1, %tid.x;\n"
            "setp.lt.u32 \t%p1, %r1, 128;\n"
            "@!%p1 bra \t$L__endif;\n"
            "setmaxnreg.dec.sync.aligned.u32 \t24;\n"
            "setp.lt.u32 \t%p2, %r1, 32;\n"
            "@!%p2 bra \t$L__endif_2;\n"
            "elect.sync \t%r2|%p3, 0xffffffff;\n"
            "mov.u32 \t%r3, 1;\n"
            "setp.ge.u32 \t%p4, %r1, 128;\n"
            "@!%p4 bra \t$L__endif_3;\n"
            "setmaxnreg.inc.sync.aligned.u32 \t240;\n"
            "sub.u32 \t%r4, %r1, 128;\n"
            "add.u32 \t%r5, %r4, 1;\n")
      << t->ptx;
  expect_clean(t->ptx, "sm_90a");
}

TEST(Hopper, WarpSpecializeMisuseIsReported) {
  const std::pair<WarpRoles, std::string> cases[] = {
      {{.producer_regs = 20, .consumer_regs = 232}, "setmaxnreg takes 24 to 256 registers, a multiple of 8; got 20"},
      {{.producer_regs = 40, .consumer_regs = 260}, "got 260"},
      {{.producer_regs = 44, .consumer_regs = 232}, "got 44"},
      {{.producer_regs = 240, .consumer_regs = 232}, "the producer keeps fewer registers than the consumers get (240 > 232)"},
  };
  for (const auto& c : cases) {  // (not a structured binding: Clang 14 cannot capture one)
    const WarpRoles& roles = c.first;
    const std::string& want = c.second;
    try {
      (void)trace_body([&] {
        ptx::Reg tid = ptx::read(ptx::special::tid.x(), u32);
        warp_specialize(tid, roles, [] {}, [](const ptx::Reg&) {});
      });
      ADD_FAILURE() << "no error for " << want;
    } catch (const ptx::Error& e) {
      EXPECT_NE(std::string(e.what()).find(want), std::string::npos) << e.what();
    }
  }
  try {
    (void)trace_body([] {
      ptx::Reg tid(u64);
      inst::mov.u64(tid, 0);
      warp_specialize(tid, {}, [] {}, [](const ptx::Reg&) {});
    });
    ADD_FAILURE() << "no error for a 64-bit tid";
  } catch (const ptx::Error& e) {
    EXPECT_NE(std::string(e.what()).find("tid is a 32-bit register (%tid.x), not .u64"), std::string::npos) << e.what();
  }
  try {  // setmaxnreg is sm_90a: a plain sm_90 target refuses it
    (void)trace_body([] {
      ptx::Reg tid = ptx::read(ptx::special::tid.x(), u32);
      warp_specialize(tid, {}, [] {}, [](const ptx::Reg&) {});
    }, "sm_90");
    ADD_FAILURE() << "no error for sm_90";
  } catch (const ptx::Error& e) {
    EXPECT_NE(std::string(e.what()).find("setmaxnreg"), std::string::npos) << e.what();
  }
}

TEST(Hopper, MbarrierEmitsExactlyItsInstructions) {
  auto t = trace_body([] {
    auto bars = ptx::smem::alloc(b64, {1}, 8);
    Mbarrier bar(bars.addr(0));
    ptx::Reg tid = ptx::read(ptx::special::tid.x(), u32);
    ptx::Reg p = tid == 0u;
    bar.init(1, &p);
    fence_mbarrier_init();
    bar.arrive();
    bar.arrive_expect_tx(1024, &p);
    bar.expect_tx(64);
    bar.wait(0);
    ptx::Reg ph(b32);
    inst::mov.b32(ph, 1);
    bar.wait(ph);
  });
  EXPECT_EQ(listing_of(t->ptx),
            "mov.u32 \t%r1, %tid.x;\n"
            "setp.eq.u32 \t%p1, %r1, 0;\n"
            "@%p1 mbarrier.init.shared::cta.b64 \t[smem], 1;\n"
            "fence.mbarrier_init.release.cluster;\n"
            "mbarrier.arrive.shared::cta.b64 \t_, [smem];\n"
            "@%p1 mbarrier.arrive.expect_tx.shared::cta.b64 \t_, [smem], 1024;\n"
            "mbarrier.expect_tx.shared::cta.b64 \t[smem], 64;\n"
            "mbarrier.try_wait.parity.shared::cta.b64 \t%p2, [smem], 0;\n"
            "@!%p2 bra \t$L__mbar_wait;\n"
            "mov.b32 \t%r2, 1;\n"
            "mbarrier.try_wait.parity.shared::cta.b64 \t%p3, [smem], %r2;\n"
            "@!%p3 bra \t$L__mbar_wait_2;\n");
  // the wait loops' labels stand right before their try_wait
  EXPECT_NE(t->ptx.find("$L__mbar_wait:\n\tmbarrier.try_wait.parity"), std::string::npos) << t->ptx;
  EXPECT_NE(t->ptx.find("$L__mbar_wait_2:\n\tmbarrier.try_wait.parity"), std::string::npos) << t->ptx;
  expect_clean(t->ptx, "sm_90a");
}

TEST(Hopper, PipelineInitAndStatesTrackStagesAndPhases) {
  auto t = trace_body([] {
    auto bars = ptx::smem::alloc(b64, {6}, 8);
    Pipeline pipe(bars, 3);
    ptx::Reg tid = ptx::read(ptx::special::tid.x(), u32);
    ptx::Reg p = tid == 0u;
    pipe.init(1, 4, &p);
    PipelineState prod(pipe, 1);
    EXPECT_EQ(prod.stage(), 0);
    for (int i = 0; i < 4; ++i) {
      prod.wait_empty();
      prod.full().arrive();
      prod.advance();
    }
    EXPECT_EQ(prod.stage(), 1);
  });
  EXPECT_EQ(listing_of(t->ptx),
            "mov.u32 \t%r1, %tid.x;\n"
            "setp.eq.u32 \t%p1, %r1, 0;\n"
            "@%p1 mbarrier.init.shared::cta.b64 \t[smem], 1;\n"
            "@%p1 mbarrier.init.shared::cta.b64 \t[smem+24], 4;\n"
            "@%p1 mbarrier.init.shared::cta.b64 \t[smem+8], 1;\n"
            "@%p1 mbarrier.init.shared::cta.b64 \t[smem+32], 4;\n"
            "@%p1 mbarrier.init.shared::cta.b64 \t[smem+16], 1;\n"
            "@%p1 mbarrier.init.shared::cta.b64 \t[smem+40], 4;\n"
            "fence.mbarrier_init.release.cluster;\n"
            "mov.b32 \t%r2, 1;\n"
            "mbarrier.try_wait.parity.shared::cta.b64 \t%p2, [smem+24], %r2;\n"
            "@!%p2 bra \t$L__mbar_wait;\n"
            "mbarrier.arrive.shared::cta.b64 \t_, [smem];\n"
            "mbarrier.try_wait.parity.shared::cta.b64 \t%p3, [smem+32], %r2;\n"
            "@!%p3 bra \t$L__mbar_wait_2;\n"
            "mbarrier.arrive.shared::cta.b64 \t_, [smem+8];\n"
            "mbarrier.try_wait.parity.shared::cta.b64 \t%p4, [smem+40], %r2;\n"
            "@!%p4 bra \t$L__mbar_wait_3;\n"
            "mbarrier.arrive.shared::cta.b64 \t_, [smem+16];\n"
            "xor.b32 \t%r2, %r2, 1;\n"
            "mbarrier.try_wait.parity.shared::cta.b64 \t%p5, [smem+24], %r2;\n"
            "@!%p5 bra \t$L__mbar_wait_4;\n"
            "mbarrier.arrive.shared::cta.b64 \t_, [smem];\n");
  expect_clean(t->ptx, "sm_90a");
}

TEST(Hopper, ClusterHelpersEmitExactlyTheirInstructions) {
  auto t = trace_body([] {
    auto bars = ptx::smem::alloc(b64, {2}, 8);
    ptx::Reg base = bars.base();
    ptx::Reg peer = map_shared_rank(base, 1);
    ptx::Reg rank = ptx::read(ptx::special::cluster_ctarank, u32);
    ptx::Reg mine = map_shared_rank(base, rank);
    cluster_sync();
    Mbarrier(ptx::addr(peer, 8)).arrive_cluster();
    ptx::Reg p = rank == 0u;
    Mbarrier(ptx::addr(mine)).arrive_cluster(&p);
  });
  EXPECT_EQ(listing_of(t->ptx),
            "mov.u32 \t%r1, smem;\n"
            "mapa.shared::cluster.u32 \t%r2, %r1, 1;\n"
            "mov.u32 \t%r3, %cluster_ctarank;\n"
            "mapa.shared::cluster.u32 \t%r4, %r1, %r3;\n"
            "barrier.cluster.arrive.release.aligned;\n"
            "barrier.cluster.wait.acquire.aligned;\n"
            "mbarrier.arrive.release.cluster.shared::cluster.b64 \t_, [%r2+8];\n"
            "setp.eq.u32 \t%p1, %r3, 0;\n"
            "@%p1 mbarrier.arrive.release.cluster.shared::cluster.b64 \t_, [%r4];\n");
  expect_clean(t->ptx, "sm_90a");
}

TEST(Hopper, MisuseIsReported) {
  EXPECT_NE(error_of([] { Pipeline(ptx::smem::alloc(b64, {4}, 8), 3); }).find("a 3-stage pipeline needs 48 bytes of mbarriers"),
            std::string::npos);
  EXPECT_NE(error_of([] { Pipeline(ptx::smem::alloc(b64, {4}, 8), 2).full(2); }).find("pipeline stage 2 of 2"), std::string::npos);
  EXPECT_NE(error_of([] { Mbarrier(ptx::Operand(4)); }).find("an mbarrier is at a shared address"), std::string::npos);
  EXPECT_NE(error_of([] {
              ptx::RegArray acc(f32, 64);
              ptx::Reg d(b64), p(pred);
              mma_async(12, bf16, acc, 0, d, d, p);
            }).find("N = 12 is not a multiple of 8"),
            std::string::npos);
  EXPECT_NE(error_of([] {
              ptx::RegArray acc(f32, 64);
              ptx::Reg d(b64), p(pred);
              mma_async(256, bf16, acc, 0, d, d, p);
            }).find("m64n256 needs 128 accumulators from 0; the array has 64"),
            std::string::npos);
  EXPECT_NE(error_of([] {
              ptx::RegArray acc(f32, 4);
              ptx::Reg d(b64), p(pred);
              mma_async(8, f32, acc, 0, d, d, p);
            }).find("A and B are bf16 or f16 here"),
            std::string::npos);
  EXPECT_NE(error_of([] { (void)MatrixDescriptor{.start = 8}.bits(); }).find("start address = 8 bytes is not a multiple of 16"),
            std::string::npos);
  EXPECT_NE(error_of([] { (void)MatrixDescriptor{.sbo = 1u << 18}.bits(); }).find("stride byte offset = 262144 bytes"),
            std::string::npos);
  EXPECT_NE(error_of([] { wgmma_wait(8); }).find("wgmma.wait_group 8: the count is 0 to 7"), std::string::npos);
}

// A kernel taking a tensor map: every TMA helper.
std::shared_ptr<const Traced> tma_kernel() {
  return ptx::kernel("tma").tensor_map("m").arch("sm_90a").body([](ptx::TensorMapParam m) {
    auto buf = ptx::smem::alloc(bf16, {64, 64}, 1024);
    auto bars = ptx::smem::alloc(b64, {1}, 8);
    Mbarrier bar(bars.addr(0));
    ptx::Reg map = m.generic_address();
    ptx::Reg x = ptx::read(ptx::special::tid.x(), u32);
    ptx::Reg p = x == 0u;
    tma_load(buf.addr(0), map, {x}, bar);
    tma_load(buf.addr(128), map, {x, 0}, bar, {.guard = &p});
    tma_load(buf.addr(0), map, {x, 1, 2}, bar);
    tma_load(buf.addr(0), map, {x, 1, 2, 3}, bar);
    ptx::Reg mask(b16);
    inst::mov.b16(mask, 3);
    ptx::Reg policy(b64);
    inst::createpolicy.fractional.L2_evict_last.b64(policy, 0.5f);
    tma_load(buf.addr(0), map, {x, 1, 2, 3, 4}, bar, {.multicast = &mask, .cache_hint = &policy});
    fence_proxy_async();
    tma_store(map, {x, 8}, buf.addr(0));
    tma_reduce_add(map, {x, 8, 0}, buf.addr(0), &p);
    bulk_commit();
    bulk_wait(0, true);
    bulk_wait(1);
    ptx::ret();
  }).trace();
}

TEST(Hopper, TmaEmitsExactlyItsInstructions) {
  const auto t = tma_kernel();
  const std::string l = "cp.async.bulk.tensor.";
  const std::string ld = ".shared::cluster.global.tile.mbarrier::complete_tx::bytes";
  EXPECT_EQ(listing_of(t->ptx),
            "mov.b64 \t%rd1, tma_m;\n"
            "cvta.param.u64 \t%rd2, %rd1;\n"
            "mov.u32 \t%r1, %tid.x;\n"
            "setp.eq.u32 \t%p1, %r1, 0;\n" +
                l + "1d" + ld + " \t[smem], [%rd2, {%r1}], [smem_2];\n@%p1 " + l + "2d" + ld +
                " \t[smem+128], [%rd2, {%r1, 0}], [smem_2];\n" + l + "3d" + ld + " \t[smem], [%rd2, {%r1, 1, 2}], [smem_2];\n" +
                l + "4d" + ld + " \t[smem], [%rd2, {%r1, 1, 2, 3}], [smem_2];\n" +
                "mov.b16 \t%rs1, 3;\n"
                "createpolicy.fractional.L2::evict_last.b64 \t%rd3, 0f3F000000;\n" +
                l + "5d" + ld + ".multicast::cluster.L2::cache_hint \t[smem], [%rd2, {%r1, 1, 2, 3, 4}], [smem_2], %rs1, %rd3;\n" +
                "fence.proxy.async.shared::cta;\n"
                "cp.async.bulk.tensor.2d.global.shared::cta.tile.bulk_group \t[%rd2, {%r1, 8}], [smem];\n"
                "@%p1 cp.reduce.async.bulk.tensor.3d.global.shared::cta.add.tile.bulk_group \t[%rd2, {%r1, 8, 0}], [smem];\n"
                "cp.async.bulk.commit_group;\n"
                "cp.async.bulk.wait_group.read \t0;\n"
                "cp.async.bulk.wait_group \t1;\n"
                "ret;\n");
  expect_clean(t->ptx, "sm_90a");
}

TEST(Hopper, WgmmaEmitsExactlyItsInstructions) {
  auto t = trace_body([] {
    auto sa = ptx::smem::alloc(bf16, {64, 64}, 1024);
    ptx::Reg base = sa.base();
    ptx::Reg da = make_descriptor(base, k_major(0, DescSwizzle::B128, 1024));
    ptx::Reg db = da + 2;
    ptx::RegArray acc(f32, 72, "acc");
    ptx::Reg tid = ptx::read(ptx::special::tid.x(), u32);
    ptx::Reg p = tid == tid;
    wgmma_fence();
    mma_async(8, bf16, acc, 0, da, db, p);
    mma_async(128, f16, acc, 4, da, db, p, 1, 1);
    wgmma_commit();
    wgmma_wait(0);
  });
  const std::string acc128 = [] {
    std::string s;
    for (int i = 4; i < 68; ++i) s += (i > 4 ? ", %acc" : "%acc") + std::to_string(i);
    return s;
  }();
  EXPECT_EQ(listing_of(t->ptx),
            "mov.u32 \t%r1, smem;\n"
            "shr.u32 \t%r2, %r1, 4;\n"
            "and.b32 \t%r3, %r2, 16383;\n"
            "cvt.u64.u32 \t%rd2, %r3;\n"
            "or.b64 \t%rd1, %rd2, 4611686293305360384;\n"  // 1 << 62 | 64 << 32 | 1 << 16
            "add.u64 \t%rd3, %rd1, 2;\n"
            "mov.u32 \t%r4, %tid.x;\n"
            "setp.eq.u32 \t%p1, %r4, %r4;\n"
            "wgmma.fence.sync.aligned;\n"
            "wgmma.mma_async.sync.aligned.m64n8k16.f32.bf16.bf16 \t{%acc0, %acc1, %acc2, %acc3}, %rd1, %rd3, %p1, 1, 1, 0, 0;\n"
            "wgmma.mma_async.sync.aligned.m64n128k16.f32.f16.f16 \t{" +
                acc128 +
                "}, %rd1, %rd3, %p1, 1, 1, 1, 1;\n"
                "wgmma.commit_group.sync.aligned;\n"
                "wgmma.wait_group.sync.aligned \t0;\n");
  EXPECT_EQ(uint64_t{4611686293305360384u}, uint64_t{1} << 62 | uint64_t{64} << 32 | uint64_t{1} << 16);
  expect_clean(t->ptx, "sm_90a");
}

// A from registers: four .b32 registers in braces, no imm-trans-a.
TEST(Hopper, WgmmaWithARegistersEmitsExactlyItsInstruction) {
  auto t = trace_body([] {
    auto sb = ptx::smem::alloc(bf16, {64, 64}, 1024);
    ptx::Reg base = sb.base();
    ptx::Reg db = make_descriptor(base, mn_major(0, DescSwizzle::B128, 8192, 1024));
    ptx::RegArray acc(f32, 32, "acc");
    ptx::RegArray a(b32, 8, "a");
    for (auto& r : a) inst::mov.b32(r, 0);
    ptx::Reg tid = ptx::read(ptx::special::tid.x(), u32);
    ptx::Reg p = tid == tid;
    wgmma_fence();
    mma_async(64, bf16, acc, 0, a, 4, db, p, 1);
    mma_async(16, f16, acc, 8, a, 0, db, p);
    wgmma_commit();
    wgmma_wait(0);
  });
  const auto lines = instructions_of(t->ptx);
  std::string acc64;
  for (int i = 0; i < 32; ++i) acc64 += (i > 0 ? ", %acc" : "%acc") + std::to_string(i);
  EXPECT_NE(std::find(lines.begin(), lines.end(),
                      "wgmma.mma_async.sync.aligned.m64n64k16.f32.bf16.bf16 \t{" + acc64 + "}, {%a4, %a5, %a6, %a7}, %rd1, %p1, 1, 1, 1;"),
            lines.end())
      << t->ptx;
  EXPECT_NE(std::find(lines.begin(), lines.end(),
                      "wgmma.mma_async.sync.aligned.m64n16k16.f32.f16.f16 \t{%acc8, %acc9, %acc10, %acc11, %acc12, %acc13, %acc14, "
                      "%acc15}, {%a0, %a1, %a2, %a3}, %rd1, %p1, 1, 1, 0;"),
            lines.end())
      << t->ptx;
  expect_clean(t->ptx, "sm_90a");
  EXPECT_NE(error_of([] {
              ptx::RegArray acc(f32, 32), a(b32, 4);
              ptx::Reg d(b64), p(pred);
              mma_async(64, bf16, acc, 0, a, 2, d, p);
            }).find("A from registers needs 4 registers from 2; the array has 4"),
            std::string::npos);
  EXPECT_NE(error_of([] {
              ptx::RegArray acc(f32, 32), a(f32, 4);
              ptx::Reg d(b64), p(pred);
              mma_async(64, bf16, acc, 0, a, 0, d, p);
            }).find("the A registers are 32-bit integer registers"),
            std::string::npos);
  EXPECT_NE(error_of([] {
              ptx::RegArray acc(f32, 32), a(b32, 4);
              ptx::Reg d(b64), p(pred);
              mma_async(64, bf16, acc, 0, a, 0, d, p, 2);
            }).find("imm-trans-b is 0 (K-major) or 1 (MN-major)"),
            std::string::npos);
  EXPECT_NE(error_of([] {
              ptx::RegArray acc(f32, 32), a(b32, 4);
              ptx::Reg d(b32), p(pred);
              mma_async(64, bf16, acc, 0, a, 0, d, p);
            }).find("descriptors are 64-bit integer registers"),
            std::string::npos);
}

// The manual's "Matrix Descriptor Format": start >> 4 in bits 0-13, LBO >> 4 in 16-29, SBO >> 4
// in 32-45, base offset in 49-51, swizzle mode in 62-63 (0 none, 1 128B, 2 64B, 3 32B).
TEST(Hopper, MatrixDescriptorBitFields) {
  const uint64_t d = MatrixDescriptor{.start = 0x3FFF0, .lbo = 0x20, .sbo = 0x400, .base_offset = 5, .swizzle = DescSwizzle::B64}.bits();
  EXPECT_EQ(d & 0x3FFF, 0x3FFFu);
  EXPECT_EQ(d >> 14 & 3, 0u);
  EXPECT_EQ(d >> 16 & 0x3FFF, 2u);
  EXPECT_EQ(d >> 30 & 3, 0u);
  EXPECT_EQ(d >> 32 & 0x3FFF, 0x40u);
  EXPECT_EQ(d >> 46 & 7, 0u);
  EXPECT_EQ(d >> 49 & 7, 5u);
  EXPECT_EQ(d >> 52 & 0x3FF, 0u);
  EXPECT_EQ(d >> 62, 2u);
  EXPECT_EQ(MatrixDescriptor::decode(d), (MatrixDescriptor{0x3FFF0, 0x20, 0x400, 5, DescSwizzle::B64}));
  for (DescSwizzle s : {DescSwizzle::None, DescSwizzle::B128, DescSwizzle::B64, DescSwizzle::B32})
    EXPECT_EQ(MatrixDescriptor{.swizzle = s}.bits() >> 62, static_cast<uint64_t>(s));
  EXPECT_EQ(static_cast<int>(DescSwizzle::B128), 1);
  EXPECT_EQ(static_cast<int>(DescSwizzle::B32), 3);
  EXPECT_EQ(swizzle_bytes(DescSwizzle::B128), 128u);
  EXPECT_EQ(swizzle_bytes(DescSwizzle::None), 16u);
  // the canonical K-major 128B layout of a TMA box of 8-row x 128-byte atoms: SBO 1024, LBO 16 (unused)
  EXPECT_EQ(k_major(0x800, DescSwizzle::B128, 1024).bits(), 0x80u | uint64_t{1} << 16 | uint64_t{64} << 32 | uint64_t{1} << 62);
  EXPECT_EQ(mn_major(0, DescSwizzle::B64, 4096, 512).bits(), uint64_t{256} << 16 | uint64_t{32} << 32 | uint64_t{2} << 62);
}

// The manual's m64nNk16 D fragment figure: thread t, register i at row 16 * warp + lane / 4
// (+ 8 for registers 2, 3 of each group of 4), column 8 * (i / 4) + 2 * (lane % 4) + i % 2.
TEST(Hopper, AccumulatorFragmentMapFollowsTheManual) {
  using P = std::pair<int, int>;
  EXPECT_EQ(accumulator_row_col(128, 0, 0), P(0, 0));
  EXPECT_EQ(accumulator_row_col(128, 0, 1), P(0, 1));
  EXPECT_EQ(accumulator_row_col(128, 0, 2), P(8, 0));
  EXPECT_EQ(accumulator_row_col(128, 0, 3), P(8, 1));
  EXPECT_EQ(accumulator_row_col(128, 0, 4), P(0, 8));
  EXPECT_EQ(accumulator_row_col(128, 1, 0), P(0, 2));
  EXPECT_EQ(accumulator_row_col(128, 3, 1), P(0, 7));
  EXPECT_EQ(accumulator_row_col(128, 4, 0), P(1, 0));
  EXPECT_EQ(accumulator_row_col(128, 31, 63), P(15, 127));
  EXPECT_EQ(accumulator_row_col(128, 32, 0), P(16, 0));
  EXPECT_EQ(accumulator_row_col(128, 127, 2), P(63, 6));
  for (int n : {8, 16, 64, 128, 256}) {
    std::set<P> seen;
    for (int t = 0; t < 128; ++t)
      for (int i = 0; i < n / 2; ++i) {
        const auto [r, c] = accumulator_row_col(n, t, i);
        ASSERT_TRUE(r >= 0 && r < 64 && c >= 0 && c < n) << n << " " << t << " " << i;
        seen.insert({r, c});
        EXPECT_EQ(accumulator_thread_reg(n, r, c), P(t, i));
      }
    EXPECT_EQ(seen.size(), static_cast<size_t>(64 * n));  // one (thread, register) per element
  }
}

uint16_t to_bf16(float x) {
  uint32_t u;
  std::memcpy(&u, &x, 4);
  return static_cast<uint16_t>((u + 0x7fffu + ((u >> 16) & 1u)) >> 16);
}
double from_bf16(uint16_t h) {
  const uint32_t u = static_cast<uint32_t>(h) << 16;
  float x;
  std::memcpy(&x, &u, 4);
  return x;
}

// One warpgroup through the helpers on the emulator: TMA loads of A (64 x 64) and B (N = 64 x
// 64) with the 128B swizzle completing an mbarrier, descriptors from make_descriptor, four
// mma_async m64n64k16 (the first with scale-d false), and each thread's 32 accumulator
// registers stored raw; placed through accumulator_row_col they are A * B^T.
TEST(HopperOnEmulator, WgmmaThroughTheHelpersMatchesTheFragmentMap) {
  constexpr int kM = 64, kN = 64, kK = 64;
  auto k = ptx::kernel("wg")
               .tensor_map("a")
               .tensor_map("b")
               .out(ptx::tensor(f32, {128, kN / 2}))
               .block(128)
               .arch("sm_90a")
               .body([](ptx::TensorMapParam a, ptx::TensorMapParam b, ptx::Tensor out) {
                 auto sa = ptx::smem::alloc(bf16, {kM, kK}, 1024);
                 auto sb = ptx::smem::alloc(bf16, {kN, kK}, 1024);
                 auto bars = ptx::smem::alloc(b64, {1}, 8);
                 Mbarrier bar(bars.addr(0));
                 ptx::Reg tid = ptx::read(ptx::special::tid.x(), u32);
                 ptx::Reg t0 = tid == 0u;
                 bar.init(1, &t0);
                 fence_mbarrier_init();
                 inst::bar.sync(0);
                 ptx::Reg ma = a.generic_address();
                 ptx::Reg mb = b.generic_address();
                 bar.arrive_expect_tx(2 * kM * kK * 2, &t0);
                 tma_load(sa.addr(0), ma, {0, 0}, bar, {.guard = &t0});
                 tma_load(sb.addr(0), mb, {0, 0}, bar, {.guard = &t0});
                 bar.wait(0);
                 ptx::Reg pa = sa.base();
                 ptx::Reg pb = sb.base();
                 ptx::Reg da = make_descriptor(pa, k_major(0, DescSwizzle::B128, 1024));
                 ptx::Reg db = make_descriptor(pb, k_major(0, DescSwizzle::B128, 1024));
                 ptx::RegArray acc(f32, kN / 2, "acc");
                 ptx::Reg zero = tid != tid;
                 ptx::Reg one = tid == tid;
                 wgmma_fence();
                 for (int ks = 0; ks < kK / 16; ++ks) {
                   ptx::Reg dak = da + 2 * ks;  // + 32 bytes
                   ptx::Reg dbk = db + 2 * ks;
                   mma_async(kN, bf16, acc, 0, dak, dbk, ks == 0 ? zero : one);
                 }
                 wgmma_commit();
                 wgmma_wait(0);
                 ptx::Reg po = out.global_ptr();
                 ptx::Reg off = tid * static_cast<uint32_t>(kN / 2 * 4);
                 ptx::Reg row = po + off;
                 for (int i = 0; i < kN / 2; ++i) inst::st.global.f32(ptx::addr(row, 4 * i), acc[static_cast<size_t>(i)]);
                 ptx::ret();
               });
  std::mt19937 g(5);
  std::uniform_real_distribution<float> d(-1.0f, 1.0f);
  std::vector<uint16_t> ha(kM * kK), hb(kN * kK);
  for (auto& x : ha) x = to_bf16(d(g));
  for (auto& x : hb) x = to_bf16(d(g));
  Device cpu = device::cpu();
  DevicePtr pa = cpu.alloc(ha.size() * 2), pb = cpu.alloc(hb.size() * 2), po = cpu.alloc(128 * kN / 2 * 4);
  cpu.copy_to_device(pa, ha.data(), ha.size() * 2);
  cpu.copy_to_device(pb, hb.data(), hb.size() * 2);
  TensorMapSpec s;
  s.type = TmaType::bf16;
  s.dims = {kK, kM};
  s.box = {kK, kM};
  s.swizzle = TmaSwizzle::b128;
  const TensorMap mapa = make_tensor_map(cpu, pa, s);
  s.dims = {kK, kN};
  s.box = {kK, kN};
  const TensorMap mapb = make_tensor_map(cpu, pb, s);
  bind(cpu, k)(mapa, mapb, po);
  cpu.synchronize();
  std::vector<float> got(128 * kN / 2);
  cpu.copy_to_host(got.data(), po, got.size() * 4);
  for (int t = 0; t < 128; ++t)
    for (int i = 0; i < kN / 2; ++i) {
      const auto [r, c] = accumulator_row_col(kN, t, i);
      double ref = 0;
      for (int kk = 0; kk < kK; ++kk) ref += from_bf16(ha[static_cast<size_t>(r * kK + kk)]) * from_bf16(hb[static_cast<size_t>(c * kK + kk)]);
      ASSERT_NEAR(got[static_cast<size_t>(t * kN / 2 + i)], ref, 1e-4 * (1 + std::fabs(ref))) << "thread " << t << " register " << i;
    }
  cpu.free(pa);
  cpu.free(pb);
  cpu.free(po);
  expect_clean(k.ptx(), "sm_90a");
}

TEST(Hopper, GemmRefusesShapesThatAreNotTileMultiples) {
  for (const Bindings& b : {Bindings{{"M", 100}, {"N", 256}, {"K", 64}}, Bindings{{"M", 128}, {"N", 128}, {"K", 64}},
                            Bindings{{"M", 128}, {"N", 256}, {"K", 96}}}) {
    try {
      (void)examples::gemm_sm90("sm_90a").trace(b);
      ADD_FAILURE() << "no error";
    } catch (const Error& e) {
      EXPECT_NE(std::string(e.what()).find("M must be a multiple of 128, N of 256 and K a positive multiple of 64"), std::string::npos)
          << e.what();
    }
  }
  try {
    (void)examples::gemm_sm90("sm_90a").trace({{"M", 128}, {"N", 256}});
    ADD_FAILURE() << "no error";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("dimension 'K' is not bound"), std::string::npos) << e.what();
  }
  try {
    (void)examples::gemm_sm90("sm_80").trace({{"M", 128}, {"N", 256}, {"K", 64}});
    ADD_FAILURE() << "no error";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("sm_80"), std::string::npos) << e.what();
  }
}

// The GEMM's PTX: per K tile, two TMA loads and four m64n256k16 wgmmas; a 4-stage pipeline in
// 192 KB + 64 bytes of dynamic shared memory; setmaxnreg 40 / 232; ptxas -v: 168 registers at
// launch (the whole register file for 384 threads, which setmaxnreg redistributes), no spills.
TEST(Hopper, GemmStructureAndResourcesUnderPtxas) {
  const auto t = examples::gemm_sm90("sm_90a").trace({{"M", 8192}, {"N", 8192}, {"K", 8192}});
  EXPECT_EQ(t->dynamic_smem_bytes, 4u * 49152 + 64);
  EXPECT_EQ(t->block.x, 384u);
  EXPECT_EQ(t->grid.x, 32u);
  EXPECT_EQ(t->grid.y, 64u);
  auto count = [&](const std::string& what) {
    size_t n = 0;
    for (size_t p = t->ptx.find(what); p != std::string::npos; p = t->ptx.find(what, p + 1)) ++n;
    return n;
  };
  // 128 K tiles: the producer's loop body covers 4 (no leftover); the consumers peel tile 0,
  // loop over 4 and unroll the 3 left
  EXPECT_EQ(count("cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes"), 8u);
  EXPECT_EQ(count("wgmma.mma_async.sync.aligned.m64n256k16.f32.bf16.bf16"), 32u);
  EXPECT_EQ(count("mbarrier.try_wait.parity.shared::cta.b64"), 12u);
  EXPECT_EQ(count("wgmma.wait_group.sync.aligned \t1;"), 7u);  // one group stays in flight
  EXPECT_EQ(count("wgmma.wait_group.sync.aligned \t0;"), 1u);
  EXPECT_EQ(count("setmaxnreg.dec.sync.aligned.u32 \t40;"), 1u);
  EXPECT_EQ(count("setmaxnreg.inc.sync.aligned.u32 \t232;"), 1u);
  EXPECT_NE(t->ptx.find(".maxntid 384, 1, 1"), std::string::npos);
  expect_clean(t->ptx, "sm_90a");
  if (!have_ptxas()) GTEST_SKIP() << "ptxas not found";
  const auto r = run_ptxas(t->ptx, "sm_90a", "-v");
  ASSERT_TRUE(r.ok) << r.log;
  std::smatch m;
  ASSERT_TRUE(std::regex_search(r.log, m, std::regex("Used (\\d+) registers"))) << r.log;
  const int regs = std::stoi(m[1]);
  EXPECT_EQ(regs, 168) << r.log;  // 65536 / 384: setmaxnreg's 128 x 40 + 256 x 232 is exactly this pool
  EXPECT_NE(r.log.find("0 bytes spill stores, 0 bytes spill loads"), std::string::npos) << r.log;
  std::cout << "[ gemm_sm90 sm_90a ] ptxas -v: " << regs << " registers, 0 spills, " << t->dynamic_smem_bytes
            << " bytes dynamic smem\n";
}

// The cluster variant: B multicast to both CTAs of a (1, 2, 1) cluster.
TEST(Hopper, GemmClusterVariantStructureAndResourcesUnderPtxas) {
  const auto t = examples::gemm_sm90("sm_90a", 2).trace({{"M", 8192}, {"N", 8192}, {"K", 8192}});
  EXPECT_EQ(t->cluster.y, 2u);
  EXPECT_NE(t->ptx.find(".multicast::cluster"), std::string::npos);
  EXPECT_NE(t->ptx.find("mbarrier.arrive.release.cluster.shared::cluster.b64"), std::string::npos);
  try {
    (void)examples::gemm_sm90("sm_90a", 2).trace({{"M", 128}, {"N", 256}, {"K", 64}});
    ADD_FAILURE() << "no error";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("with clusters of 2 CTAs along M, M must be a multiple of 256; got M=128"), std::string::npos)
        << e.what();
  }
  expect_clean(t->ptx, "sm_90a");
  if (!have_ptxas()) GTEST_SKIP() << "ptxas not found";
  const auto r = run_ptxas(t->ptx, "sm_90a", "-v");
  ASSERT_TRUE(r.ok) << r.log;
  EXPECT_NE(r.log.find("Used 168 registers"), std::string::npos) << r.log;
  EXPECT_NE(r.log.find("0 bytes spill stores, 0 bytes spill loads"), std::string::npos) << r.log;
}

// ptxas -v on a kernel: the register count, and that nothing spills.
void expect_no_spills(const std::string& ptx, const std::string& what, int expected_regs) {
  expect_clean(ptx, "sm_90a");
  if (!have_ptxas()) GTEST_SKIP() << "ptxas not found";
  const auto r = run_ptxas(ptx, "sm_90a", "-v");
  ASSERT_TRUE(r.ok) << r.log;
  std::smatch m;
  ASSERT_TRUE(std::regex_search(r.log, m, std::regex("Used (\\d+) registers"))) << r.log;
  EXPECT_EQ(std::stoi(m[1]), expected_regs) << r.log;
  EXPECT_NE(r.log.find("0 bytes spill stores, 0 bytes spill loads"), std::string::npos) << r.log;
  EXPECT_NE(r.log.find("0 bytes stack frame"), std::string::npos) << r.log;
  std::cout << "[ " << what << " sm_90a ] ptxas -v: " << m[1] << " registers, 0 spills\n";
}

size_t count_of(const std::string& text, const std::string& what) {
  size_t n = 0;
  for (size_t p = text.find(what); p != std::string::npos; p = text.find(what, p + 1)) ++n;
  return n;
}

// The persistent GEMM: grid = min(SMS, tiles), the PTX independent of SMS (each CTA reads
// %nctaid.x), one run-time K loop per role (two TMA loads, 4 + 4 wgmmas: the consumers'
// peeled first K tile and the loop body), f32 and bf16 epilogues; ptxas -v: 168 registers
// at launch, no spills.
TEST(Hopper, GemmPersistentStructureAndResourcesUnderPtxas) {
  const Bindings big = {{"M", 8192}, {"N", 8192}, {"K", 8192}, {"SMS", 132}};
  const auto t = examples::gemm_sm90_persistent("sm_90a").trace(big);
  EXPECT_EQ(t->grid.x, 132u);
  EXPECT_EQ(t->grid.y, 1u);
  EXPECT_EQ(t->dynamic_smem_bytes, 4u * 49152 + 64);
  Bindings other = big;
  other["SMS"] = 114;  // H100 PCIe
  const auto t2 = examples::gemm_sm90_persistent("sm_90a").trace(other);
  EXPECT_EQ(t2->grid.x, 114u);
  EXPECT_EQ(t2->ptx, t->ptx);
  EXPECT_EQ(examples::gemm_sm90_persistent("sm_90a").trace({{"M", 256}, {"N", 256}, {"K", 64}})->grid.x, 2u);  // 2 tiles
  EXPECT_NE(t->ptx.find("%nctaid.x"), std::string::npos);
  EXPECT_EQ(count_of(t->ptx, "cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes"), 2u);
  EXPECT_EQ(count_of(t->ptx, "wgmma.mma_async.sync.aligned.m64n256k16.f32.bf16.bf16"), 8u);
  EXPECT_EQ(count_of(t->ptx, "st.global.v2.f32"), 64u);
  expect_no_spills(t->ptx, "gemm_sm90_persistent", 168);
  const auto tb = examples::gemm_sm90_persistent("sm_90a", bf16).trace(big);
  EXPECT_EQ(count_of(tb->ptx, "cvt.rn.bf16x2.f32"), 64u);
  EXPECT_EQ(count_of(tb->ptx, "st.global.b32"), 64u);
  expect_no_spills(tb->ptx, "gemm_sm90_persistent_bf16", 168);
}

TEST(Hopper, GemmPersistentMisuseIsReported) {
  try {
    (void)examples::gemm_sm90_persistent("sm_90a").trace({{"M", 100}, {"N", 256}, {"K", 64}});
    ADD_FAILURE() << "no error";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("M must be a multiple of 128"), std::string::npos) << e.what();
  }
  try {
    (void)examples::gemm_sm90_persistent("sm_90a", f16);
    ADD_FAILURE() << "no error";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("C is f32 or bf16"), std::string::npos) << e.what();
  }
}

// The grouped GEMM for a MoE layer (N = 4096, K = 7168, 8 experts): prefetch.tensormap on
// the group's two maps, guarded epilogue stores; ptxas -v: 168 registers, no spills.
TEST(Hopper, GemmGroupedStructureAndResourcesUnderPtxas) {
  const auto t = examples::gemm_sm90_grouped("sm_90a", 4096, 7168).trace({{"G", 8}, {"SMS", 132}});
  EXPECT_EQ(t->grid.x, 132u);
  EXPECT_EQ(count_of(t->ptx, "prefetch.tensormap"), 2u);
  EXPECT_EQ(count_of(t->ptx, "cvt.rn.bf16x2.f32"), 64u);
  EXPECT_EQ(count_of(t->ptx, "wgmma.mma_async.sync.aligned.m64n256k16.f32.bf16.bf16"), 8u);
  expect_no_spills(t->ptx, "gemm_sm90_grouped_bf16", 168);
  const auto tf = examples::gemm_sm90_grouped("sm_90a", 4096, 7168, f32).trace({{"G", 8}});
  expect_no_spills(tf->ptx, "gemm_sm90_grouped", 168);
  try {
    (void)examples::gemm_sm90_grouped("sm_90a", 4000, 7168);
    ADD_FAILURE() << "no error";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("N must be a positive multiple of 256 and K of 64; got N=4000"), std::string::npos) << e.what();
  }
  try {
    (void)examples::gemm_sm90_grouped("sm_90a", 4096, 7168, f16);
    ADD_FAILURE() << "no error";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("D is f32 or bf16"), std::string::npos) << e.what();
  }
  Device cpu = device::cpu();
  const DevicePtr p = cpu.alloc(256 * 64 * 2, "B");
  try {
    (void)examples::gemm_sm90_grouped_args(cpu, {examples::GroupedGemmProblem{p, p, p, -1}}, 256, 64);
    ADD_FAILURE() << "no error";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("M_g must not be negative"), std::string::npos) << e.what();
  }
  cpu.free(p);
}

// The contiguous grouped GEMM (group sizes read on the device; 8 experts, N = 4096,
// K = 7168, M = 8192 routed tokens): each role reads offsets[0] once and offsets[g + 1] on
// entering group g, clamping the group's rows to [previous end, M]; A is one 2-D TMA load
// at the group's first row plus the tile's, B one 3-D load whose third coordinate is the
// walk's group; D rows offset in 64 bits; guarded stores; ptxas -v: 168 registers, no spills.
TEST(Hopper, GemmGroupedContiguousStructureAndResourcesUnderPtxas) {
  const Bindings big = {{"M", 8192}, {"SMS", 132}};
  const auto t = examples::gemm_sm90_grouped_contiguous("sm_90a", 8, 4096, 7168).trace(big);
  EXPECT_EQ(t->name, "gemm_sm90_grouped_contiguous_bf16");
  EXPECT_EQ(t->grid.x, 132u);
  Bindings other = big;
  other["SMS"] = 114;
  EXPECT_EQ(examples::gemm_sm90_grouped_contiguous("sm_90a", 8, 4096, 7168).trace(other)->ptx, t->ptx);
  // grid = min(SMS, most tiles): M = 100 rows in at most 3 groups of one N tile: 3 tiles
  EXPECT_EQ(examples::gemm_sm90_grouped_contiguous("sm_90a", 3, 256, 64).trace({{"M", 100}})->grid.x, 3u);
  const std::string l = listing_of(t->ptx);
  const std::regex before_walk("ld\\.global\\.u32 \t(%r\\d+), \\[%rd\\d+\\];\nmin\\.u32 \t\\1, \\1, 8192;\n");
  EXPECT_EQ(std::distance(std::sregex_iterator(l.begin(), l.end(), before_walk), std::sregex_iterator()), 2) << l;
  const std::regex enter_group(
      "ld\\.global\\.u32 \t(%r\\d+), \\[%rd\\d+\\+4\\];\n"
      "mov\\.u32 \t(%r\\d+), (%r\\d+);\n"
      "max\\.u32 \t\\1, \\1, \\2;\n"
      "min\\.u32 \t\\3, \\1, 8192;\n"
      "sub\\.u32 \t%r\\d+, \\3, \\2;\n");
  EXPECT_EQ(std::distance(std::sregex_iterator(l.begin(), l.end(), enter_group), std::sregex_iterator()), 2) << l;
  std::smatch g;
  ASSERT_TRUE(std::regex_search(l, g, std::regex("add\\.u32 \t(%r\\d+), \\1, 1;\nsetp\\.lt\\.u32 \t%p\\d+, \\1, 8;\n"))) << l;
  EXPECT_TRUE(std::regex_search(
      l, std::regex("cp\\.async\\.bulk\\.tensor\\.3d\\.shared::cluster\\.global\\.tile\\.mbarrier::complete_tx::bytes \t\\[%r\\d+\\], "
                    "\\[%rd\\d+, \\{%r\\d+, %r\\d+, " + g[1].str() + "\\}\\]")))
      << l;
  EXPECT_EQ(count_of(t->ptx, "cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes"), 1u);
  EXPECT_EQ(count_of(t->ptx, "cp.async.bulk.tensor.3d.shared::cluster.global.tile.mbarrier::complete_tx::bytes"), 1u);
  EXPECT_EQ(count_of(t->ptx, "prefetch.tensormap"), 0u);
  EXPECT_EQ(count_of(t->ptx, "mul.wide.u32"), 1u);
  EXPECT_EQ(count_of(t->ptx, "wgmma.mma_async.sync.aligned.m64n256k16.f32.bf16.bf16"), 8u);
  EXPECT_EQ(count_of(t->ptx, "cvt.rn.bf16x2.f32"), 64u);
  EXPECT_EQ(count_of(t->ptx, "st.global.b32"), 64u);
  expect_no_spills(t->ptx, "gemm_sm90_grouped_contiguous_bf16", 168);
  const auto tf = examples::gemm_sm90_grouped_contiguous("sm_90a", 8, 4096, 7168, f32).trace(big);
  EXPECT_EQ(count_of(tf->ptx, "st.global.v2.f32"), 64u);
  expect_no_spills(tf->ptx, "gemm_sm90_grouped_contiguous", 168);
}

TEST(Hopper, GemmGroupedContiguousMisuseIsReported) {
  auto expect_error = [](const std::function<void()>& f, const std::string& what) {
    try {
      f();
      ADD_FAILURE() << "no error for " << what;
    } catch (const Error& e) {
      EXPECT_NE(std::string(e.what()).find(what), std::string::npos) << e.what();
    }
  };
  expect_error([] { (void)examples::gemm_sm90_grouped_contiguous("sm_90a", 8, 4000, 7168); },
               "gemm_sm90_grouped_contiguous: N must be a positive multiple of 256 (below 2^28) and K of 64; got N=4000, K=7168");
  expect_error([] { (void)examples::gemm_sm90_grouped_contiguous("sm_90a", 8, 4096, 100); }, "got N=4096, K=100");
  expect_error([] { (void)examples::gemm_sm90_grouped_contiguous("sm_90a", 0, 4096, 7168); },
               "gemm_sm90_grouped_contiguous: G must be 1 to 2^31 - 1; got 0");
  expect_error([] { (void)examples::gemm_sm90_grouped_contiguous("sm_90a", 8, 4096, 7168, f16); }, "D is f32 or bf16");
  expect_error([] { (void)examples::gemm_sm90_grouped_contiguous("sm_90a", 8, 4096, 7168).trace({{"M", (int64_t{1} << 30) + 1}}); },
               "M must be 1 to 2^30 with under 2^31 tiles; got M=1073741825");
  Device cpu = device::cpu();
  const DevicePtr p = cpu.alloc(256 * 64 * 2, "AB");
  expect_error([&] { (void)examples::gemm_sm90_grouped_contiguous_tensor_maps(cpu, p, p, 0, 1, 256, 64); },
               "gemm_sm90_grouped_contiguous_tensor_maps: M, G, N and K must be positive; got M=0, G=1, N=256, K=64");
  cpu.free(p);
}

}  // namespace
}  // namespace ptx::test
