// The TMA modes past the tile load: im2col loads and prefetches, L2 prefetches, cache hints
// on stores and reductions, every reduction operation, and Blackwell's row gather/scatter.
#include <gtest/gtest.h>

#include "dsl_test_util.hpp"

namespace ptx::test {
namespace {

using namespace ptx::hopper;
using ptx::blackwell::tma_load_gather4;
using ptx::blackwell::tma_store_scatter4;

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
  EXPECT_NE(thrown_by([&] { (void)ptx::kernel("g4").tensor_map("m").arch("sm_90a").body(body).trace(); }).find("needs"),
            std::string::npos);
}

TEST(TmaModes, MisuseIsReported) {
  auto traced = [](const std::function<void(const ptx::Reg& map, Mbarrier& bar, ptx::smem::Buffer& buf)>& f) {
    return thrown_by([&] {
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

TEST(TmaModes, TensormapEditingEmitsExactlyItsInstructions) {
  auto t = ptx::kernel("edit").in("tmpl", ptx::tensor(u8, {128})).in("ws", ptx::tensor(u8, {128})).arch("sm_90a")
               .body([](ptx::Tensor tmpl, ptx::Tensor ws) {
                 auto smap = ptx::smem::alloc(b64, {16}, 128);
                 ptx::Reg src = tmpl.global_ptr();
                 ptx::Reg dst = ws.global_ptr();
                 ptx::Reg ptr = ws.ptr();
                 ptx::Reg rows(u32);
                 inst::mov.u32(rows, 40);
                 ptx::Reg stride(u64);
                 inst::mov.u64(stride, 256);
                 tensormap_replace_global_address(TensormapSpace::shared, smap.addr(0), ptr);
                 tensormap_replace_rank(TensormapSpace::shared, smap.addr(0), 2);
                 tensormap_replace_box_dim(TensormapSpace::shared, smap.addr(0), 1, 8);
                 tensormap_replace_global_dim(TensormapSpace::shared, smap.addr(0), 1, rows);
                 tensormap_replace_global_stride(TensormapSpace::shared, smap.addr(0), 1, stride);
                 tensormap_replace_element_stride(TensormapSpace::global, ptx::addr(src), 0, 1);
                 tensormap_replace(TensormapSpace::shared, smap.addr(0), TensormapElemtype::bf16);
                 tensormap_replace(TensormapSpace::shared, smap.addr(0), TensormapInterleave::none);
                 tensormap_replace(TensormapSpace::shared, smap.addr(0), TensormapSwizzle::b128);
                 tensormap_replace(TensormapSpace::global, ptx::addr(src), TensormapFill::nan_request_zero_fma);
                 tensormap_publish(ptx::addr(dst), smap.addr(0));
                 tensormap_acquire(ptr);
                 ptx::ret();
               })
               .trace();
  const std::string r = "tensormap.replace.tile.";
  EXPECT_EQ(listing_of(t->ptx),
            "ld.param.u64 \t%rd1, [edit_tmpl];\n"
            "cvta.to.global.u64 \t%rd2, %rd1;\n"
            "ld.param.u64 \t%rd3, [edit_ws];\n"
            "cvta.to.global.u64 \t%rd4, %rd3;\n"
            "ld.param.u64 \t%rd5, [edit_ws];\n"
            "mov.u32 \t%r1, 40;\n"
            "mov.u64 \t%rd6, 256;\n" +
                r + "global_address.shared::cta.b1024.b64 \t[smem], %rd5;\n" + r + "rank.shared::cta.b1024.b32 \t[smem], 1;\n" + r +
                "box_dim.shared::cta.b1024.b32 \t[smem], 1, 8;\n" + r + "global_dim.shared::cta.b1024.b32 \t[smem], 1, %r1;\n" + r +
                "global_stride.shared::cta.b1024.b64 \t[smem], 0, %rd6;\n" + r + "element_stride.global.b1024.b32 \t[%rd2], 0, 1;\n" +
                r + "elemtype.shared::cta.b1024.b32 \t[smem], 10;\n" + r + "interleave_layout.shared::cta.b1024.b32 \t[smem], 0;\n" + r +
                "swizzle_mode.shared::cta.b1024.b32 \t[smem], 3;\n" + r +
                "fill_mode.global.b1024.b32 \t[%rd2], 1;\n"
                "tensormap.cp_fenceproxy.global.shared::cta.tensormap::generic.release.gpu.sync.aligned \t[%rd4], [smem], 128;\n"
                "fence.proxy.tensormap::generic.acquire.gpu \t[%rd5], 128;\n"
                "ret;\n");
  expect_clean(t->ptx, "sm_90a");
}

TEST(TmaModes, TensormapEditingMisuseIsReported) {
  auto traced = [](const std::function<void(ptx::smem::Buffer& buf)>& f) {
    return thrown_by([&] {
      (void)trace_body([&] {
        auto buf = ptx::smem::alloc(b64, {16}, 128);
        f(buf);
      });
    });
  };
  // the swizzle atomicity is Blackwell's (the ISA table's requirement)
  EXPECT_NE(traced([](ptx::smem::Buffer& b) { tensormap_replace(TensormapSpace::shared, b.addr(0), TensormapSwizzleAtomicity::b32); })
                .find("needs PTX ISA 8.6"),
            std::string::npos);
  const auto bw = trace_body(
      [] {
        auto buf = ptx::smem::alloc(b64, {16}, 128);
        tensormap_replace(TensormapSpace::shared, buf.addr(0), TensormapSwizzleAtomicity::b32_flip_8b);
      },
      "sm_100a");
  EXPECT_EQ(listing_of(bw->ptx), "tensormap.replace.tile.swizzle_atomicity.shared::cta.b1024.b32 \t[smem], 2;\n");
  expect_clean(bw->ptx, "sm_100a");
  EXPECT_NE(traced([](ptx::smem::Buffer& b) { tensormap_replace_rank(TensormapSpace::shared, b.addr(0), 6); })
                .find("tensormap.replace .rank: a tensor map has rank 1 to 5, not 6"),
            std::string::npos);
  EXPECT_NE(traced([](ptx::smem::Buffer& b) { tensormap_replace_box_dim(TensormapSpace::shared, b.addr(0), 5, 8); })
                .find("tensormap.replace .box_dim: dimension 5 (this field has 0 to 4)"),
            std::string::npos);
  EXPECT_NE(traced([](ptx::smem::Buffer& b) { tensormap_replace_global_stride(TensormapSpace::shared, b.addr(0), 0, 16); })
                .find("tensormap.replace .global_stride: dimension 0 (this field has 1 to 4)"),
            std::string::npos);
  EXPECT_NE(traced([](ptx::smem::Buffer& b) {
              ptx::Reg r(u32);
              inst::mov.u32(r, 0);
              tensormap_replace_global_address(TensormapSpace::shared, b.addr(0), r);
            }).find("tensormap.replace .global_address: the new value is a 64-bit integer register or an immediate"),
            std::string::npos);
  EXPECT_NE(traced([](ptx::smem::Buffer&) { tensormap_replace_global_dim(TensormapSpace::shared, ptx::Operand(0), 0, 1); })
                .find("the tensor map is an address"),
            std::string::npos);
  EXPECT_NE(traced([](ptx::smem::Buffer& b) { tensormap_replace(TensormapSpace::shared, b.addr(0), static_cast<TensormapSwizzle>(9)); })
                .find("tensormap.replace .swizzle_mode: 9 is not one of its 5 values"),
            std::string::npos);
  EXPECT_NE(traced([](ptx::smem::Buffer&) {
              ptx::Reg r(u32);
              inst::mov.u32(r, 0);
              tensormap_acquire(r);
            }).find("tensormap_acquire: the map's generic address is a 64-bit register"),
            std::string::npos);
}

}  // namespace
}  // namespace ptx::test
