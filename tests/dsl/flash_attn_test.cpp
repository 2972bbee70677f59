// The sm_90 flash attention example (examples/kernels/flash_attn_sm90.hpp): every variant
// assembles with ptxas for sm_90a, its structure (loads, wgmmas, masks) is what the design
// says, its resources under ptxas -v (no spills), and the errors for unsupported shapes.
#include <regex>
#include <string>

#include "../../examples/kernels/flash_attn_sm90.hpp"
#include "dsl_test_util.hpp"

namespace ptx::test {
namespace {

size_t count(const std::string& text, const std::string& what) {
  size_t n = 0;
  for (size_t p = text.find(what); p != std::string::npos; p = text.find(what, p + 1)) ++n;
  return n;
}

struct Variant {
  int d;
  bool causal, lse;
  bool pingpong = false;
};

size_t matches(const std::string& text, const std::string& pattern) {
  const std::regex re(pattern);
  return static_cast<size_t>(std::distance(std::sregex_iterator(text.begin(), text.end(), re), std::sregex_iterator()));
}

// Ping-pong's named barriers in `ptx`: `steps` turns taken (bar.sync on this warpgroup's barrier,
// kFlashPingpongBarrier + wg, for the 256 threads of both consumer warpgroups) and passed
// (bar.arrive on the other's, kFlashPingpongBarrier + 1 - wg), the pass of the last step guarded
// (warpgroup 1 only) on each of the `last_steps` paths, and warpgroup 2's first arrival on
// warpgroup 1's barrier. None without ping-pong.
void expect_pingpong_turns(const std::string& ptx, size_t steps, size_t last_steps) {
  const std::string threads = std::to_string(examples::kFlashPingpongThreads);
  const std::string first = std::to_string(examples::kFlashPingpongBarrier);
  EXPECT_EQ(examples::kFlashPingpongThreads, 256u);
  EXPECT_EQ(examples::kFlashPingpongBarrier, 1u);  // bar 0 is the CTA-wide one
  EXPECT_EQ(count(ptx, "bar.sync"), 1 + steps);
  EXPECT_EQ(count(ptx, "bar.arrive"), steps == 0 ? 0 : steps + 1);
  if (steps == 0) return;
  std::smatch m;
  // this warpgroup's barrier: wg + 1; the other's: 2 - wg
  ASSERT_TRUE(std::regex_search(ptx, m, std::regex(R"(\tbar\.sync \t(%r\d+), )" + threads + ";"))) << "no bar.sync on a register";
  const std::string mine = m[1];
  EXPECT_EQ(count(ptx, "\tbar.sync \t" + mine + ", " + threads + ";"), steps);
  ASSERT_TRUE(std::regex_search(ptx, m, std::regex(R"(add\.[us]32 \t)" + mine + R"(, (%r\d+), )" + first + ";")))
      << mine << " is not wg + " << first;
  const std::string wg = m[1];
  const std::string two = std::to_string(examples::kFlashPingpongBarrier + 1);
  ASSERT_TRUE(std::regex_search(ptx, m, std::regex(R"(sub\.u32 \t(%r\d+), )" + two + ", " + wg + ";"))) << "no " << two << " - " << wg;
  const std::string theirs = m[1];
  EXPECT_EQ(count(ptx, "\tbar.arrive \t" + theirs + ", " + threads + ";"), steps - last_steps);
  EXPECT_EQ(matches(ptx, R"(@%p\d+ bar\.arrive \t)" + theirs + ", " + threads + ";"), last_steps);
  EXPECT_EQ(matches(ptx, R"(@%p\d+ bar\.arrive \t)" + first + ", " + threads + ";"), 1u);
}

class FlashAttnVariants : public ::testing::TestWithParam<Variant> {};

// The bench shape (S = 4096: 32 tiles) and a partial one (S = 4000: the last tile has 32 keys).
TEST_P(FlashAttnVariants, AssembleWithPtxasAndHaveTheDesignedStructure) {
  const Variant v = GetParam();
  for (const int64_t S : {4096, 4000}) {
    const auto t = examples::flash_attn_sm90("sm_90a", v.d, {.causal = v.causal, .with_lse = v.lse, .pingpong = v.pingpong})
                       .trace({{"B", 4}, {"H", 16}, {"S", S}, {"D", v.d}});
    SCOPED_TRACE(t->name);
    SCOPED_TRACE(S);
    EXPECT_EQ(t->block.x, 384u);
    EXPECT_EQ(t->grid.x, 32u);
    EXPECT_EQ(t->grid.y, 16u);
    EXPECT_EQ(t->grid.z, 4u);
    // Q once + K and V per stage, D / 64 boxes each; 3 mbarriers per stage (K full, empty, V full) and Q's
    const uint64_t tile = static_cast<uint64_t>(v.d) * 128 * 2;
    const size_t st = static_cast<size_t>(examples::flash_attn_sm90_stages(v.d));
    EXPECT_EQ(st, v.d == 64 ? 4u : 3u);
    EXPECT_EQ(t->dynamic_smem_bytes, tile + st * 2 * tile + 8 * (3 * st + 1));
    // Tiles traced: the peeled first one, a round of the ring in the loop, then the tiles left:
    // non-causal 31 % stages of them; causal (a run-time count) nested ifs for 1 to stages - 1.
    const size_t tiles = 1 + st + (v.causal ? st - 1 : 31 % st);
    // P V lags one tile behind Q K^T, and the last one is traced on each path out of the
    // leftover tiles (causal: one per count of tiles left, 0 to stages - 1)
    const size_t pv = tiles - 1 + (v.causal ? st : 1);
    // waits: the producer's empty per tile; the consumers' Q once, K per tile, V per P V
    EXPECT_EQ(count(t->ptx, "mbarrier.try_wait.parity.shared::cta.b64"), tiles + 1 + tiles + pv);
    EXPECT_EQ(count(t->ptx, "mbarrier.arrive.expect_tx.shared::cta.b64"), 1 + 2 * tiles);
    const size_t halves = static_cast<size_t>(v.d / 64);
    EXPECT_EQ(count(t->ptx, "cp.async.bulk.tensor.3d.shared::cluster.global.tile.mbarrier::complete_tx::bytes"),
              halves * (1 + 2 * tiles));
    EXPECT_EQ(count(t->ptx, "wgmma.mma_async.sync.aligned.m64n128k16.f32.bf16.bf16"), tiles * static_cast<size_t>(v.d / 16) +
                                                                                           (v.d == 128 ? pv * 8 : 0));
    EXPECT_EQ(count(t->ptx, "wgmma.mma_async.sync.aligned.m64n" + std::to_string(v.d) + "k16.f32.bf16.bf16 \t{%o0"), pv * 8);
    // the softmax of tile j overlaps P_{j-1} V_{j-1}: wait_group 1 once per tile after the first
    EXPECT_EQ(count(t->ptx, "wgmma.wait_group.sync.aligned \t1;"), tiles - 1);
    EXPECT_EQ(count(t->ptx, "wgmma.wait_group.sync.aligned \t0;"), 1 + (tiles - 1) + (pv - (tiles - 1)));
    EXPECT_EQ(count(t->ptx, "ex2.approx.ftz.f32"), tiles * 64 + (tiles - 1) * 2);
    // masks: causal on the diagonal tile (a setp per distinct column offset), the partial tile
    // when S = 4000 (32 keys: columns 32..127 masked without a compare); none otherwise
    const size_t masked = count(t->ptx, "mov.f32 \t%s");
    if (v.causal) EXPECT_EQ(masked, 64u);
    else EXPECT_EQ(masked, S == 4096 ? 0u : 48u);
    EXPECT_EQ(count(t->ptx, "setmaxnreg.dec.sync.aligned.u32 \t40;"), 1u);
    EXPECT_EQ(count(t->ptx, "setmaxnreg.inc.sync.aligned.u32 \t232;"), 1u);
    EXPECT_EQ(count(t->ptx, "st.global.f32"), v.lse ? 2u : 0u);
    // bar 0 once (after the mbarrier inits); ping-pong: one turn per step (each tile's wgmmas,
    // and the last P V on each path), see below
    EXPECT_EQ(count(t->ptx, "\tbar.sync \t0;"), 1u);
    const size_t steps = tiles + (pv - (tiles - 1));
    expect_pingpong_turns(t->ptx, v.pingpong ? steps : 0, v.pingpong ? pv - (tiles - 1) : 0);
    // (ping-pong at S = 4096 is assembled, with L, by ResourcesUnderPtxasHaveNoSpills: ptxas time saved)
    if (!v.pingpong || S != 4096) expect_clean(t->ptx, "sm_90a");
  }
}

INSTANTIATE_TEST_SUITE_P(All, FlashAttnVariants,
                         ::testing::Values(Variant{64, false, false}, Variant{64, true, false}, Variant{128, false, false},
                                           Variant{128, true, false}, Variant{64, false, true}, Variant{64, true, true},
                                           Variant{128, false, true}, Variant{128, true, true},
                                           // ping-pong (all four head dims x masks: ResourcesUnderPtxasHaveNoSpills)
                                           Variant{64, false, false, true}, Variant{128, true, true, true}),
                         [](const ::testing::TestParamInfo<Variant>& i) {
                           std::string name(1, 'D');  // appended piecewise: GCC 12's -Wrestrict misfires on "D" + std::string
                           name += std::to_string(i.param.d);
                           if (i.param.causal) name += "Causal";
                           if (i.param.lse) name += "Lse";
                           if (i.param.pingpong) name += "PingPong";
                           return name;
                         });

// ptxas -v: 168 registers at launch (65536 / 384, which setmaxnreg redistributes as 128 x 40 +
// 256 x 232), no spill stores or loads (the consumers' S, P and O fit in 232), no wgmma the
// compiler had to fence or serialize; with ping-pong too (its named barriers sit between the
// mbarrier waits and the wgmma.fence, and between the commit and the wait).
TEST(FlashAttn, ResourcesUnderPtxasHaveNoSpills) {
  if (!have_ptxas()) GTEST_SKIP() << "ptxas not found";
  for (const int d : {64, 128})
    for (const bool causal : {false, true})
      for (const bool pingpong : {false, true}) {
        const auto t = examples::flash_attn_sm90("sm_90a", d, {.causal = causal, .with_lse = true, .pingpong = pingpong})
                           .trace({{"B", 16}, {"H", 32}, {"S", 4096}, {"D", d}});
        const auto r = run_ptxas(t->ptx, "sm_90a", "-v");
        ASSERT_TRUE(r.ok) << r.log;
        std::smatch m;
        ASSERT_TRUE(std::regex_search(r.log, m, std::regex("Used (\\d+) registers"))) << r.log;
        EXPECT_EQ(std::stoi(m[1]), 168) << r.log;
        EXPECT_NE(r.log.find("0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads"), std::string::npos) << r.log;
        // no warpgroup.arrive injected by ptxas (registers of an in-flight wgmma touched, or a
        // branch between wgmma.fence and a wgmma) and no serialized wgmmas
        EXPECT_EQ(r.log.find("injected"), std::string::npos) << r.log;
        EXPECT_EQ(r.log.find("serialized"), std::string::npos) << r.log;
        std::cout << "[ " << t->name << " sm_90a ] ptxas -v: " << m[1] << " registers, 0 spills, " << t->dynamic_smem_bytes
                  << " bytes dynamic smem\n";
      }
}

TEST(FlashAttn, RefusesUnsupportedShapesAndHeadDims) {
  auto error_of = [](const std::function<void()>& f) -> std::string {
    try {
      f();
    } catch (const Error& e) {
      return e.what();
    }
    return "no error";
  };
  auto has = [](const std::string& what, const std::string& part) { return what.find(part) != std::string::npos; };
  EXPECT_TRUE(has(error_of([] { (void)examples::flash_attn_sm90("sm_90a", 96, false); }), "the head dim is 64 or 128, not 96"));
  EXPECT_TRUE(has(error_of([] { (void)examples::flash_attn_sm90("sm_90a", 64, false).trace({{"B", 1}, {"H", 1}, {"S", 128}, {"D", 128}}); }),
                  "the head dim D must be 64 for this variant; got D=128"));
  EXPECT_TRUE(has(error_of([] { (void)examples::flash_attn_sm90("sm_90a", 128, true).trace({{"B", 70000}, {"H", 1}, {"S", 128}, {"D", 128}}); }),
                  "B and H must be at most 65535"));
  EXPECT_TRUE(has(error_of([] {
                    (void)examples::flash_attn_sm90("sm_90a", 128, false).trace({{"B", 64}, {"H", 64}, {"S", 4096}, {"D", 128}});
                  }),
                  "O must be under 4 GiB"));
  EXPECT_TRUE(has(error_of([] {  // the largest B and H
                    (void)examples::flash_attn_sm90("sm_90a", 128, false).trace({{"B", 65535}, {"H", 65535}, {"S", int64_t{1} << 22}, {"D", 128}});
                  }),
                  "O must be under 4 GiB"));
  EXPECT_TRUE(has(error_of([] { (void)examples::flash_attn_sm90("sm_90a", 64, true).trace({{"B", 1}, {"H", 1}, {"S", 0}, {"D", 64}}); }),
                  "B, H and S must be positive; got B=1, H=1, S=0"));
  EXPECT_TRUE(has(error_of([] { (void)examples::flash_attn_sm90("sm_90a", 64, false).trace({{"B", 1}, {"H", 1}, {"D", 64}}); }),
                  "dimension 'S' is not bound"));
  EXPECT_TRUE(has(error_of([] { (void)examples::flash_attn_sm90("sm_80", 64, false).trace({{"B", 1}, {"H", 1}, {"S", 128}, {"D", 64}}); }),
                  "sm_80"));
}

}  // namespace
}  // namespace ptx::test
