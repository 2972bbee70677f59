// Every example kernel, for sm_80, sm_90a and sm_100a: traces, passes the
// validator, and assembles with ptxas (promise 5).
#include "../../examples/kernels/elementwise.hpp"
#include "../../examples/kernels/gemm_sm80.hpp"
#include "../../examples/kernels/rows.hpp"
#include "dsl_test_util.hpp"

namespace ptx::test {
namespace {

struct Case {
  const char* name;
  Kernel (*make)(const std::string&);
  Bindings dims;
};

const Case kCases[] = {
    {"identity", examples::identity, {{"N", 1 << 20}}},
    {"vector_add", examples::vector_add, {{"N", 1 << 20}}},
    {"swiglu", examples::swiglu, {{"N", 1 << 20}}},
    {"rmsnorm", examples::rmsnorm, {{"M", 1024}, {"N", 4096}}},
    {"layernorm", examples::layernorm, {{"M", 1024}, {"N", 4096}}},
    {"softmax", examples::softmax, {{"M", 1024}, {"N", 4096}}},
    {"gemm_sm80", examples::gemm_sm80, {{"M", 4096}, {"N", 4096}, {"K", 4096}}},
};

TEST(Examples, AllAssembleForEveryTarget) {
  for (const Case& c : kCases)
    for (const char* arch : {"sm_80", "sm_90a", "sm_100a"}) {
      SCOPED_TRACE(std::string(c.name) + " " + arch);
      const auto t = c.make(arch).trace(c.dims);
      EXPECT_GT(t->instructions, 5u);
      expect_clean(t->ptx, arch);
    }
  if (!have_ptxas()) GTEST_SKIP() << "ptxas not found: the modules were validated but not assembled";
}

}  // namespace
}  // namespace ptx::test
