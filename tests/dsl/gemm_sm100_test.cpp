// The sm_100 GEMM example (examples/kernels/gemm_sm100.hpp): its structure (per K tile, TMA
// loads and four tcgen05.mma; commits; the epilogue's tcgen05.ld), its errors, and its
// resources under ptxas -v for sm_100a (registers, no spills, shared memory).
#include <regex>

#include "../../examples/kernels/gemm_sm100.hpp"
#include "../../examples/kernels/gemm_sm100_grouped.hpp"
#include "dsl_test_util.hpp"

namespace ptx::test {
namespace {

size_t count(const std::string& text, const std::string& what) {
  size_t n = 0;
  for (size_t p = text.find(what); p != std::string::npos; p = text.find(what, p + 1)) ++n;
  return n;
}

// ptxas -v: the register count, and no spills (a spill fails the test).
int ptxas_registers(const std::string& ptx, const std::string& name) {
  if (!have_ptxas()) return -1;
  const auto r = run_ptxas(ptx, "sm_100a", "-v");
  EXPECT_TRUE(r.ok) << r.log;
  std::smatch m;
  EXPECT_TRUE(std::regex_search(r.log, m, std::regex("Used (\\d+) registers"))) << r.log;
  EXPECT_NE(r.log.find("0 bytes spill stores, 0 bytes spill loads"), std::string::npos) << r.log;
  const int regs = m.size() > 1 ? std::stoi(m[1]) : -1;
  std::cout << "[ " << name << " sm_100a ] ptxas -v: " << regs << " registers, 0 spills\n";
  return regs;
}

TEST(GemmSm100, RefusesShapesThatAreNotTileMultiplesAndOtherTargets) {
  for (const Bindings& b : {Bindings{{"M", 100}, {"N", 256}, {"K", 64}}, Bindings{{"M", 128}, {"N", 128}, {"K", 64}},
                            Bindings{{"M", 128}, {"N", 256}, {"K", 96}}}) {
    try {
      (void)examples::gemm_sm100("sm_100a").trace(b);
      ADD_FAILURE() << "no error";
    } catch (const Error& e) {
      EXPECT_NE(std::string(e.what()).find("M must be a multiple of 128, N of 256 and K a positive multiple of 64"),
                std::string::npos)
          << e.what();
    }
  }
  try {
    (void)examples::gemm_sm100("sm_100a", 2).trace({{"M", 128}, {"N", 256}, {"K", 64}});
    ADD_FAILURE() << "no error";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("with cta_group 2 (a pair of CTAs along M), M must be a multiple of 256; got M=128"),
              std::string::npos)
        << e.what();
  }
  try {
    (void)examples::gemm_sm100("sm_90a").trace({{"M", 128}, {"N", 256}, {"K", 64}});
    ADD_FAILURE() << "no error";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("sm_90a"), std::string::npos) << e.what();
  }
  EXPECT_THROW((void)examples::gemm_sm100("sm_100a", 3), Error);
  EXPECT_THROW((void)examples::gemm_sm100("sm_100a", 1, f16), Error);
}

// 8192^3: 128 K tiles. The producer's loop body covers the 4 stages (no leftover: 8 TMA loads);
// the MMA issuer peels tile 0, loops over 4 and unrolls the 3 left (8 x 4 = 32 tcgen05.mma).
TEST(GemmSm100, OneSmStructureAndResourcesUnderPtxas) {
  for (DType out : {f32, bf16}) {
    const auto t = examples::gemm_sm100("sm_100a", 1, out).trace({{"M", 8192}, {"N", 8192}, {"K", 8192}});
    EXPECT_EQ(t->dynamic_smem_bytes, 4u * 49152 + 9 * 8 + 8 + 4);  // 4 stages; 9 mbarriers; the tensor-memory slot (16-aligned)
    EXPECT_EQ(t->block.x, 192u);
    EXPECT_EQ(t->grid.x, 32u);
    EXPECT_EQ(t->grid.y, 64u);
    const std::string& p = t->ptx;
    EXPECT_EQ(count(p, "cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes \t"), 8u);
    EXPECT_EQ(count(p, "tcgen05.mma.cta_group::1.kind::f16 \t"), 32u);
    EXPECT_EQ(count(p, ", 138413200, "), 32u);  // the M 128 x N 256 bf16 -> f32 instruction descriptor
    EXPECT_EQ(count(p, "tcgen05.commit.cta_group::1.mbarrier::arrive::one.shared::cluster.b64"), 8u + 1u);
    EXPECT_EQ(count(p, "tcgen05.alloc.cta_group::1.sync.aligned.shared::cta.b32 \t[dyn_smem+"), 1u);
    EXPECT_EQ(count(p, "tcgen05.dealloc.cta_group::1.sync.aligned.b32"), 1u);
    EXPECT_EQ(count(p, "tcgen05.ld.sync.aligned.32x32b.x32.b32"), 8u);
    EXPECT_EQ(count(p, "tcgen05.wait::ld.sync.aligned"), 8u);
    EXPECT_EQ(count(p, "cvt.rn.bf16x2.f32"), out == bf16 ? 128u : 0u);
    expect_clean(p, "sm_100a");
    const int regs = ptxas_registers(p, out == f32 ? "gemm_sm100" : "gemm_sm100_bf16");
    if (regs >= 0) {
      EXPECT_LE(regs, 128);
    }
  }
}

TEST(GemmSm100, TwoSmStructureAndResourcesUnderPtxas) {
  const auto t = examples::gemm_sm100("sm_100a", 2).trace({{"M", 8192}, {"N", 8192}, {"K", 8192}});
  EXPECT_EQ(t->cluster.y, 2u);
  EXPECT_EQ(t->dynamic_smem_bytes, 4u * 32768 + 9 * 8 + 8 + 4);
  const std::string& p = t->ptx;
  EXPECT_EQ(count(p, "tcgen05.mma.cta_group::2.kind::f16 \t"), 32u);
  EXPECT_EQ(count(p, ", 272630928, "), 32u);  // M 256 x N 256
  EXPECT_EQ(count(p, "mbarrier::complete_tx::bytes.cta_group::2 \t"), 8u);
  EXPECT_EQ(count(p, "tcgen05.commit.cta_group::2.mbarrier::arrive::one.shared::cluster.multicast::cluster.b64"), 9u);
  EXPECT_EQ(count(p, "tcgen05.alloc.cta_group::2"), 1u);
  EXPECT_EQ(count(p, "cta_group::1"), 0u);
  EXPECT_EQ(count(p, "barrier.cluster.wait.acquire.aligned"), 2u);
  expect_clean(p, "sm_100a");
  const int regs = ptxas_registers(p, "gemm_sm100_2sm");
  if (regs >= 0) {
    EXPECT_LE(regs, 128);
  }
}

// The grouped variant: per CTA, the group search (G - 1 loads of first tiles), the group's maps
// from global memory; run-time K loops of whole rounds of the ring.
TEST(GemmSm100, GroupedStructureAndResourcesUnderPtxas) {
  const auto t = examples::gemm_sm100_grouped("sm_100a").trace({{"G", 3}, {"T", 100}});
  EXPECT_EQ(t->grid.x, 100u);
  EXPECT_EQ(t->block.x, 192u);
  const std::string& p = t->ptx;
  EXPECT_EQ(count(p, "selp.u32"), 2u);
  EXPECT_EQ(count(p, "tcgen05.mma.cta_group::1.kind::f16 \t"), 32u);  // the peeled round and the loop's
  EXPECT_EQ(count(p, "cp.async.bulk.tensor.2d"), 8u);
  EXPECT_EQ(count(p, "tcgen05.ld.sync.aligned.32x32b.x32.b32"), 8u);
  expect_clean(p, "sm_100a");
  const int regs = ptxas_registers(p, "gemm_sm100_grouped");
  if (regs >= 0) {
    EXPECT_LE(regs, 128);
  }
  try {
    (void)examples::gemm_sm100_grouped("sm_100a").trace({{"G", 65}, {"T", 1}});
    ADD_FAILURE() << "no error";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("1 to 64 groups, not 65"), std::string::npos) << e.what();
  }
}

TEST(GemmSm100, GroupedArgsRefuseShapesOffTheTile) {
  Device cpu = device::cpu();
  DevicePtr p = cpu.alloc(1 << 20, "x");
  try {
    (void)examples::gemm_sm100_grouped_args(cpu, {{128, 256, 256, p, p, p}, {128, 256, 192, p, p, p}});
    ADD_FAILURE() << "no error";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("group 1: M must be a multiple of 128, N of 256 and K of 256 (C under 4 GiB); got M=128, N=256, K=192"),
              std::string::npos)
        << e.what();
  }
  EXPECT_THROW((void)examples::gemm_sm100_grouped_args(cpu, {}), Error);
  cpu.free(p);
}

}  // namespace
}  // namespace ptx::test
