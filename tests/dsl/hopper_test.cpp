// The Hopper helpers (ptx::hopper): the exact PTX of each, ptxas acceptance for sm_90a,
// matrix descriptor bit fields against the ISA manual, the wgmma accumulator fragment map
// against the manual's formula and against the emulator, and the sm_90 GEMM example's
// resources under ptxas -v.
#include <cstring>
#include <random>
#include <regex>
#include <set>

#include <ptxpp/runtime.hpp>

#include "dsl_test_util.hpp"

namespace ptx::test {
namespace {

using namespace ptx::hopper;

[[maybe_unused]] std::string join(const std::vector<std::string>& v) {
  std::string s;
  for (const auto& x : v) s += x + "\n";
  return s;
}

TEST(Hopper, Dump) {
  auto t = trace_body([] {
    auto bars = ptx::smem::alloc(b64, {8}, 8);
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
    bar.wait(ph);
    Pipeline pipe(bars, 4);
    pipe.init(1, 2, &p);
    PipelineState st(pipe, 1);
    for (int i = 0; i < 4; ++i) {
      st.wait_empty();
      st.advance();
    }
  });
  std::cout << t->ptx;
}

}  // namespace
}  // namespace ptx::test
