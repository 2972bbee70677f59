#include <gtest/gtest.h>

#include "ptxpp/ir/queries.hpp"
#include "test_util.hpp"

using namespace ptx::ir;

namespace {

TEST(Queries, ModuleHeader) {
  Module m = ptx::test::parse_ok(".version 8.7\n.target sm_100a, texmode_independent\n.address_size 32\n");
  ASSERT_TRUE(ptx_version(m));
  EXPECT_EQ(*ptx_version(m), (PtxVersion{8, 7}));
  EXPECT_EQ(target_words(m), (std::vector<std::string_view>{"sm_100a", "texmode_independent"}));
  EXPECT_EQ(address_size(m), 32u);
  Module empty = ptx::test::parse_ok("");
  EXPECT_FALSE(ptx_version(empty));
  EXPECT_TRUE(target_words(empty).empty());
  EXPECT_FALSE(address_size(empty));
}

TEST(Queries, DeclInfo) {
  Module m = ptx::test::parse_ok(
      ".visible .entry k(.param .u64 .ptr .global .align 16 p) { ret; }\n"
      ".extern .shared .align 8 .v4 .f32 s[];\n"
      ".global .attribute(.managed) .s32 g;\n");
  const DeclInfo p = decl_info(m, m.decls[0]);
  EXPECT_EQ(p.space, StateSpace::Param);
  EXPECT_EQ(p.type, ".u64");
  EXPECT_TRUE(p.ptr);
  EXPECT_EQ(p.ptr_space, StateSpace::Global);
  EXPECT_EQ(p.ptr_align, 16u);
  EXPECT_FALSE(p.align);
  const DeclInfo s = decl_info(m, m.decls[1]);
  EXPECT_EQ(s.space, StateSpace::Shared);
  EXPECT_EQ(s.linkage, ".extern");
  EXPECT_EQ(s.vector, 4u);
  EXPECT_EQ(s.align, 8u);
  EXPECT_EQ(to_string(s.space), ".shared");
  const DeclInfo g = decl_info(m, m.decls[2]);
  EXPECT_TRUE(g.managed);
  EXPECT_EQ(g.type, ".s32");
}

TEST(Queries, EvalInt) {
  Module m = ptx::test::parse_ok(
      ".global .s32 a = -(3 << 2) ^ ~1;\n.global .s32 b = 7 % 3 * (10 / 4) - +2;\n"
      ".global .s32 c = 1 < 2 && 3 >= 3 ? 0x10 : 017;\n.global .s32 d = 1 / 0;\n.global .s32 e = x + 1;\n"
      ".global .s32 f = 1 << 64;\n.global .s32 g = !5 || (2 != 2);\n");
  auto init = [&](size_t i) { return m.declarators[m.decls[i].declarators.first].init; };
  EXPECT_EQ(eval_int(m, init(0)), (-(3 << 2)) ^ ~1);
  EXPECT_EQ(eval_int(m, init(1)), 7 % 3 * (10 / 4) - 2);
  EXPECT_EQ(eval_int(m, init(2)), 16);
  EXPECT_FALSE(eval_int(m, init(3)));
  EXPECT_FALSE(eval_int(m, init(4)));
  EXPECT_FALSE(eval_int(m, init(5)));
  EXPECT_EQ(eval_int(m, init(6)), 0);
}

}  // namespace
