// Named barriers on the emulator: thread counts (producer warps bar.arrive, consumer warps
// bar.sync, consumers among themselves on a smaller barrier), bar.red (popc, and, or), and
// misuse reported. Expected values are computed here; kernels are assembled by ptxas.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "../unit/ptxas_util.hpp"
#include "emu_test_util.hpp"

namespace ptx::test {
namespace {

TEST(EmuNamedBarriers, ProducersArriveConsumersSyncAndBarRedReduces) {
  const std::string text = emu_kernel("named_barriers.ptx");
  EmuRun r;
  const uint64_t out = r.buffer(std::vector<uint32_t>(192), "out");
  r.launch(text, "named_barriers", {1, 1, 1}, {128, 1, 1});
  const auto got = r.read<uint32_t>(out, 192);
  auto data = [](uint32_t i) { return 3 * i + 1; };  // what producer thread 64 + i wrote
  for (uint32_t t = 0; t < 64; ++t) {
    const uint32_t u = t ^ 32;  // the other consumer warp's sum, read after barrier 2
    EXPECT_EQ(got[t], data(u) + data(u ^ 1)) << t;
  }
  // popc of the 64 odd threads, and of (tid != 77) false, or of (tid == 77) true
  for (uint32_t t = 0; t < 128; ++t) EXPECT_EQ(got[64 + t], 64u + 0 * 1000 + 1 * 10000) << t;
  if (have_ptxas()) {
    const auto as = run_ptxas(text, "sm_90");
    EXPECT_TRUE(as.ok) << as.log;
  }
}

// Misuse: a thread count that is not a multiple of 32 (from a register: ptxas checks immediates),
// a barrier number past 15, and two counts for one barrier at once.
TEST(EmuNamedBarriers, MisuseIsReported) {
  auto run = [](const std::string& body) {
    const std::string text = ".version 8.0\n.target sm_90\n.address_size 64\n.visible .entry k(.param .u32 n)\n{\n"
                             "\t.reg .pred %p<3>;\n\t.reg .b32 %r<4>;\n\tld.param.u32 %r1, [n];\n\tmov.u32 %r2, %tid.x;\n\t" +
                             body + "\n\tret;\n}\n";
    EmuRun r;
    r.scalar(uint32_t{48});
    try {
      r.launch(text, "k", {1, 1, 1}, {96, 1, 1});
    } catch (const emu::Error& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  EXPECT_NE(run("bar.sync 1, %r1;").find("barrier 1 with a thread count of 48: a multiple of 32"), std::string::npos);
  EXPECT_NE(run("add.u32 %r3, %r1, 2;\n\tbar.sync %r3;").find("barrier 50: there are 16"), std::string::npos);
  const std::string two = run("setp.lt.u32 %p1, %r2, 32;\n\t@%p1 bra $a;\n\tbar.sync 1, 64;\n\tbra $b;\n$a:\n\tbar.sync 1, 96;\n$b:");
  EXPECT_NE(two.find("barrier 1 is in use with"), std::string::npos) << two;
  // counts that never fill deadlock, reported
  const std::string stuck = run("bar.sync 2, 96;\n\tsetp.lt.u32 %p1, %r2, 32;\n\t@%p1 bra $x;\n\tbar.sync 3, 96;\n$x:");
  EXPECT_NE(stuck.find("deadlock"), std::string::npos) << stuck;
}

}  // namespace
}  // namespace ptx::test
