// The TMA modes past the tile load: im2col loads and prefetches, L2 prefetches, cache hints
// on stores and reductions, every reduction operation, and Blackwell's row gather/scatter.
#include <gtest/gtest.h>

#include "dsl_test_util.hpp"

namespace ptx::test {
namespace {

using namespace ptx::hopper;
using ptx::blackwell::tma_load_gather4;
using ptx::blackwell::tma_store_scatter4;

std::string listing_of(const std::string& ptx) {
  std::string s;
  for (const auto& line : instructions_of(ptx)) s += line + "\n";
  return s;
}

std::string error_of(const std::function<void()>& f) {
  try {
    f();
  } catch (const Error& e) {
    return e.what();
  }
  return "(no error)";
}

std::shared_ptr<const Traced> modes_kernel() {
  return ptx::kernel("modes").tensor_map("m").arch("sm_90a").body([](ptx::TensorMapParam m) {
    auto buf = ptx::smem::alloc(f32, {256}, 128);
    auto bars = ptx::smem::alloc(b64, {1}, 8);
    Mbarrier bar(bars.addr(0));
    ptx::Reg map = m.generic_address();
    ptx::Reg x = ptx::read(ptx::special::tid.x(), u32);
    ptx::Reg p = x == 0u;
    ptx::Reg off(u16);
    inst::mov.u16(off, 2);
    ptx::Reg policy(b64);
    inst::createpolicy.fractional.L2_evict_first.b64(policy, 1.0f);
    ptx::Reg mask(b16);
    inst::mov.b16(mask, 1);
    tma_load_im2col(buf.addr(0), map, {x, 0, 0}, {off}, bar);
    tma_load_im2col(buf.addr(0), map, {x, 0, 0, 0, 1}, {off, 1, 65535}, bar,
                    {.guard = &p, .multicast = &mask, .cache_hint = &policy});
    tma_prefetch(map, {x, 4});
    tma_prefetch(map, {x}, {.guard = &p, .cache_hint = &policy});
    tma_prefetch_im2col(map, {x, 0, 0, 0}, {off, 0}, {.cache_hint = &policy});
    tma_store(map, {x, 8}, buf.addr(0), {.cache_hint = &policy});
    for (TmaReduceOp op : {TmaReduceOp::add, TmaReduceOp::min, TmaReduceOp::max, TmaReduceOp::inc, TmaReduceOp::dec,
                           TmaReduceOp::bit_and, TmaReduceOp::bit_or, TmaReduceOp::bit_xor})
      tma_reduce(op, map, {x}, buf.addr(0));
    tma_reduce(TmaReduceOp::max, map, {x, 1, 2, 3, 4}, buf.addr(0), {.guard = &p, .cache_hint = &policy});
    bulk_commit();
    bulk_wait(0);
    ptx::ret();
  }).trace();
}

TEST(TmaModes, HopperModesEmitExactlyTheirInstructions) {
  const auto t = modes_kernel();
  const std::string ld = "cp.async.bulk.tensor.";
  const std::string im = ".shared::cluster.global.im2col.mbarrier::complete_tx::bytes";
  const std::string red = "cp.reduce.async.bulk.tensor.1d.global.shared::cta";
  EXPECT_EQ(listing_of(t->ptx),
            "mov.b64 \t%rd1, modes_m;\n"
            "cvta.param.u64 \t%rd2, %rd1;\n"
            "mov.u32 \t%r1, %tid.x;\n"
            "setp.eq.u32 \t%p1, %r1, 0;\n"
            "mov.u16 \t%rs1, 2;\n"
            "createpolicy.fractional.L2::evict_first.b64 \t%rd3, 0f3F800000;\n"
            "mov.b16 \t%rs2, 1;\n" +
                ld + "3d" + im + " \t[smem], [%rd2, {%r1, 0, 0}], [smem_2], {%rs1};\n@%p1 " + ld + "5d" + im +
                ".multicast::cluster.L2::cache_hint \t[smem], [%rd2, {%r1, 0, 0, 0, 1}], [smem_2], {%rs1, 1, 65535}, %rs2, %rd3;\n"
                "cp.async.bulk.prefetch.tensor.2d.L2.global.tile \t[%rd2, {%r1, 4}];\n"
                "@%p1 cp.async.bulk.prefetch.tensor.1d.L2.global.tile.L2::cache_hint \t[%rd2, {%r1}], %rd3;\n"
                "cp.async.bulk.prefetch.tensor.4d.L2.global.im2col.L2::cache_hint \t[%rd2, {%r1, 0, 0, 0}], {%rs1, 0}, %rd3;\n"
                "cp.async.bulk.tensor.2d.global.shared::cta.tile.bulk_group.L2::cache_hint \t[%rd2, {%r1, 8}], [smem], %rd3;\n" +
                red + ".add.tile.bulk_group \t[%rd2, {%r1}], [smem];\n" + red + ".min.tile.bulk_group \t[%rd2, {%r1}], [smem];\n" +
                red + ".max.tile.bulk_group \t[%rd2, {%r1}], [smem];\n" + red + ".inc.tile.bulk_group \t[%rd2, {%r1}], [smem];\n" +
                red + ".dec.tile.bulk_group \t[%rd2, {%r1}], [smem];\n" + red + ".and.tile.bulk_group \t[%rd2, {%r1}], [smem];\n" +
                red + ".or.tile.bulk_group \t[%rd2, {%r1}], [smem];\n" + red + ".xor.tile.bulk_group \t[%rd2, {%r1}], [smem];\n" +
                "@%p1 cp.reduce.async.bulk.tensor.5d.global.shared::cta.max.tile.bulk_group.L2::cache_hint \t[%rd2, {%r1, 1, 2, 3, 4}], "
                "[smem], %rd3;\n"
                "cp.async.bulk.commit_group;\n"
                "cp.async.bulk.wait_group \t0;\n"
                "ret;\n");
  expect_clean(t->ptx, "sm_90a");
}

TEST(TmaModes, Gather4AndScatter4AreSm100) {
  auto body = [](ptx::TensorMapParam m) {
    auto buf = ptx::smem::alloc(bf16, {4, 64}, 128);
    auto bars = ptx::smem::alloc(b64, {1}, 8);
    Mbarrier bar(bars.addr(0));
    ptx::Reg map = m.generic_address();
    ptx::Reg r = ptx::read(ptx::special::tid.x(), s32);
    ptx::Reg policy(b64);
    inst::createpolicy.fractional.L2_evict_last.b64(policy, 1.0f);
    tma_load_gather4(buf.addr(0), map, 0, {r, 7, r, 3}, bar);
    tma_load_gather4(buf.addr(0), map, 64, {0, 1, 2, 3}, bar, {.cache_hint = &policy});
    fence_proxy_async();
    tma_store_scatter4(map, 0, {3, r, 1, 0}, buf.addr(0));
    tma_store_scatter4(map, 64, {3, 2, 1, r}, buf.addr(0), {.cache_hint = &policy});
    bulk_commit();
    bulk_wait(0);
    ptx::ret();
  };
  const auto t = ptx::kernel("g4").tensor_map("m").arch("sm_100a").body(body).trace();
  const std::string g = "cp.async.bulk.tensor.2d.shared::cluster.global.tile::gather4.mbarrier::complete_tx::bytes";
  const std::string s = "cp.async.bulk.tensor.2d.global.shared::cta.tile::scatter4.bulk_group";
  EXPECT_EQ(listing_of(t->ptx),
            "mov.b64 \t%rd1, g4_m;\n"
            "cvta.param.u64 \t%rd2, %rd1;\n"
            "mov.s32 \t%r1, %tid.x;\n"
            "createpolicy.fractional.L2::evict_last.b64 \t%rd3, 0f3F800000;\n" +
                g + " \t[smem], [%rd2, {0, %r1, 7, %r1, 3}], [smem_2];\n" + g +
                ".L2::cache_hint \t[smem], [%rd2, {64, 0, 1, 2, 3}], [smem_2], %rd3;\n"
                "fence.proxy.async.shared::cta;\n" +
                s + " \t[%rd2, {0, 3, %r1, 1, 0}], [smem];\n" + s + ".L2::cache_hint \t[%rd2, {64, 3, 2, 1, %r1}], [smem], %rd3;\n" +
                "cp.async.bulk.commit_group;\n"
                "cp.async.bulk.wait_group \t0;\n"
                "ret;\n");
  expect_clean(t->ptx, "sm_100a");
  // Hopper has no row gather: the ISA table's requirement, at trace time
  EXPECT_NE(error_of([&] { (void)ptx::kernel("g4").tensor_map("m").arch("sm_90a").body(body).trace(); }).find("needs"),
            std::string::npos);
}

TEST(TmaModes, MisuseIsReported) {
  auto traced = [](const std::function<void(const ptx::Reg& map, Mbarrier& bar, ptx::smem::Buffer& buf)>& f) {
    return error_of([&] {
      (void)ptx::kernel("bad").tensor_map("m").arch("sm_90a").body([&](ptx::TensorMapParam m) {
        auto buf = ptx::smem::alloc(f32, {64}, 128);
        auto bars = ptx::smem::alloc(b64, {1}, 8);
        Mbarrier bar(bars.addr(0));
        f(m.generic_address(), bar, buf);
      }).trace();
    });
  };
  EXPECT_NE(traced([](const ptx::Reg& map, Mbarrier& bar, ptx::smem::Buffer& buf) { tma_load_im2col(buf.addr(0), map, {0, 0}, {}, bar); })
                .find("tma_load_im2col: im2col needs 3 to 5 coordinates, not 2"),
            std::string::npos);
  EXPECT_NE(traced([](const ptx::Reg& map, Mbarrier& bar, ptx::smem::Buffer& buf) { tma_load_im2col(buf.addr(0), map, {0, 0, 0, 0}, {1}, bar); })
                .find("tma_load_im2col: 4 coordinates take 2 im2col offsets, not 1"),
            std::string::npos);
  EXPECT_NE(traced([](const ptx::Reg& map, Mbarrier& bar, ptx::smem::Buffer& buf) {
              ptx::Reg o(u32);
              inst::mov.u32(o, 1);
              tma_load_im2col(buf.addr(0), map, {0, 0, 0}, {o}, bar);
            }).find("tma_load_im2col: an im2col offset is a 16-bit integer register, not .u32"),
            std::string::npos);
  EXPECT_NE(traced([](const ptx::Reg& map, Mbarrier&, ptx::smem::Buffer&) { tma_prefetch_im2col(map, {0, 0, 0}, {65536}); })
                .find("tma_prefetch_im2col: an im2col offset immediate is an integer in 0..65535"),
            std::string::npos);
  EXPECT_NE(traced([](const ptx::Reg& map, Mbarrier&, ptx::smem::Buffer&) { tma_prefetch_im2col(map, {0, 0, 0}, {-1}); })
                .find("an im2col offset immediate is an integer in 0..65535"),
            std::string::npos);
  EXPECT_NE(traced([](const ptx::Reg& map, Mbarrier&, ptx::smem::Buffer& buf) {
              ptx::Reg policy(b32);
              inst::mov.b32(policy, 0);
              tma_store(map, {0}, buf.addr(0), TmaCacheOptions{.cache_hint = &policy});
            }).find("tma_store: the L2 cache policy is a 64-bit register"),
            std::string::npos);
  EXPECT_NE(traced([](const ptx::Reg& map, Mbarrier&, ptx::smem::Buffer&) { tma_reduce(TmaReduceOp::min, map, {0}, ptx::Operand(0)); })
                .find("tma_reduce: the source is a shared address"),
            std::string::npos);
  EXPECT_NE(traced([](const ptx::Reg& map, Mbarrier&, ptx::smem::Buffer& buf) { tma_reduce(TmaReduceOp::min, map, {0, 0, 0, 0, 0, 0}, buf.addr(0)); })
                .find("tma_reduce: a tensor has 1 to 5 coordinates, not 6"),
            std::string::npos);
  EXPECT_NE(traced([](const ptx::Reg& map, Mbarrier&, ptx::smem::Buffer& buf) { tma_reduce(static_cast<TmaReduceOp>(42), map, {0}, buf.addr(0)); })
                .find("tma_reduce: not a TmaReduceOp"),
            std::string::npos);
  EXPECT_NE(traced([](const ptx::Reg& map, Mbarrier&, ptx::smem::Buffer&) { tma_prefetch(map, {}); })
                .find("tma_prefetch: a tensor has 1 to 5 coordinates, not 0"),
            std::string::npos);
}

}  // namespace
}  // namespace ptx::test
