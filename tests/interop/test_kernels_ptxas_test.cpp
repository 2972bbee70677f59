// Every kernel the interop tests make ops of (test_kernels.hpp), for each target it is
// meant for: traces, passes the validator, and assembles with ptxas.
#include "../dsl/dsl_test_util.hpp"
#include "test_kernels.hpp"

namespace ptx::test {
namespace {

struct Case {
  const char* name;
  Kernel (*make)(const std::string&);
  Bindings dims;
  std::vector<const char*> archs;
};

const std::vector<const char*> kAll = {"sm_80", "sm_90a", "sm_100a"};

const Case kCases[] = {
    {"axpb", interop_test::axpb, {{"N", 1000}}, kAll},
    {"axpb_backward", interop_test::axpb_backward, {{"N", 1000}}, kAll},
    {"axpb_backward_f64", interop_test::axpb_backward_f64, {{"N", 1000}}, kAll},
    {"axpb_backward_fixed", interop_test::axpb_backward_fixed, {{"N", 64}}, kAll},
    {"swiglu_backward", interop_test::swiglu_backward, {{"N", 1000}}, kAll},
    {"row_stats", interop_test::row_stats, {{"M", 40}}, kAll},
    {"unsized_output", interop_test::unsized_output, {{"N", 8}, {"K", 8}}, kAll},
    // a tensor-map parameter: sm_90 and later
    {"with_tensor_map", interop_test::with_tensor_map, {}, {"sm_90a", "sm_100a"}},
};

TEST(InteropTestKernels, AllAssembleForTheirTargets) {
  for (const Case& c : kCases)
    for (const char* arch : c.archs) {
      SCOPED_TRACE(std::string(c.name) + " " + arch);
      const auto t = c.make(arch).trace(c.dims);
      EXPECT_NE(t->ptx.find(".target " + std::string(arch)), std::string::npos) << t->ptx;
      EXPECT_GE(t->instructions, 1u);
      expect_clean(t->ptx, arch);
    }
  if (!have_ptxas()) GTEST_SKIP() << "ptxas not found: the kernels were validated but not assembled";
}

}  // namespace
}  // namespace ptx::test
