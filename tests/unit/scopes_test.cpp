// ir::Scopes: a scope per `{ }` block, names looked up outward, as ptxas resolves them
// (each case below was checked against ptxas 13.0).
#include <gtest/gtest.h>

#include <string>

#include "ptxpp/ir/scopes.hpp"
#include "test_util.hpp"

using namespace ptx::ir;

namespace {

// Where an instruction is: its scope, and its statement index in the scope's block.
struct Found {
  uint32_t scope = Scopes::kNone;
  uint32_t at = 0;
};

// The (skip+1)-th instruction with this mnemonic, in the order of scopes (outer first), then of statements.
Found where(const Module& m, const Scopes& sc, std::string_view opcode, int skip = 0) {
  for (uint32_t s = 0; s < sc.size(); ++s) {
    const auto& stmts = m.blocks[sc.scope(s).block].stmts;
    for (uint32_t i = 0; i < stmts.size(); ++i)
      if (stmts[i].kind == StmtKind::Instruction && m.mnemonic(m.instructions[stmts[i].index]) == opcode && skip-- == 0)
        return {s, i};
  }
  ADD_FAILURE() << "no instruction " << opcode;
  return {};
}

TEST(Scopes, SiblingBlocksHoldTheSameLabel) {
  // Triton's and CUTLASS's inline-asm wait loops: one label per block, repeated.
  Module m = ptx::test::parse_ok(ptx::test::kernel(
      "\t.reg .b64 %rd<2>;\n"
      "\t{ .reg .pred P1;\n\twaitLoop:\n\tmbarrier.try_wait.shared::cta.b64 P1, [%rd0], %rd1;\n\t@!P1 bra waitLoop; }\n"
      "\t{ .reg .pred P1;\n\twaitLoop:\n\tmbarrier.test_wait.shared::cta.b64 P1, [%rd0], %rd1;\n\t@!P1 bra waitLoop; "
      "}\n"
      "\tret;"));
  const Scopes sc(m);
  EXPECT_TRUE(sc.conflicts().empty());
  ASSERT_EQ(sc.size(), 4u);  // the module, the kernel, two blocks
  const Found first = where(m, sc, "bra", 0), second = where(m, sc, "bra", 1);
  ASSERT_NE(first.scope, second.scope);
  const Resolved a = sc.lookup(first.scope, first.at, "waitLoop"), b = sc.lookup(second.scope, second.at, "waitLoop");
  ASSERT_TRUE(a && b);
  EXPECT_NE(a.declaration, b.declaration);
  EXPECT_EQ(sc.declaration(a.declaration).scope, first.scope);
  EXPECT_EQ(sc.declaration(b.declaration).scope, second.scope);
  EXPECT_EQ(sc.declaration(a.declaration).kind, Declaration::Label);
  const Resolved pa = sc.lookup(first.scope, first.at, "P1"), pb = sc.lookup(second.scope, second.at, "P1");
  ASSERT_TRUE(pa && pb);
  EXPECT_NE(pa.declaration, pb.declaration);
  // neither label nor predicate is seen from the kernel's own block
  const Found ret = where(m, sc, "ret");
  EXPECT_FALSE(sc.lookup(ret.scope, ret.at, "waitLoop"));
  EXPECT_FALSE(sc.lookup(ret.scope, ret.at, "P1"));
}

TEST(Scopes, AnInnerRegisterShadowsOneNameOfARange) {
  Module m = ptx::test::parse_ok(
      ptx::test::kernel("\t.reg .b64 %tmp<2>;\n\t.reg .b32 %r<16>;\n"
                        "\t{ .reg .u64 %tmp; .reg .b32 %r<8>;\n\tmov.u64 %tmp, %tmp0;\n\tmov.u32 %r7, %r12;\n}\n"
                        "\tmov.u32 %r7, %r12;\n\tret;"));
  const Scopes sc(m);
  EXPECT_TRUE(sc.conflicts().empty());
  const Found in = where(m, sc, "mov.u64");
  const Resolved tmp = sc.lookup(in.scope, in.at, "%tmp"), tmp0 = sc.lookup(in.scope, in.at, "%tmp0");
  ASSERT_TRUE(tmp && tmp0);
  EXPECT_EQ(sc.declaration(tmp.declaration).scope, in.scope);
  EXPECT_EQ(sc.declaration(tmp.declaration).kind, Declaration::Variable);
  EXPECT_EQ(sc.declaration(tmp0.declaration).kind, Declaration::RegisterRange);  // the outer %tmp<2>
  EXPECT_EQ(sc.declaration(tmp0.declaration).scope, sc.scope(in.scope).parent);
  EXPECT_EQ(tmp0.element, 0u);
  // %r7 is the inner %r<8>'s; %r12 is past its end, so the outer %r<16>'s
  const Found outer_mov = where(m, sc, "mov.u32", 0), inner_mov = where(m, sc, "mov.u32", 1);
  const Resolved r7 = sc.lookup(inner_mov.scope, inner_mov.at, "%r7"),
                 r12 = sc.lookup(inner_mov.scope, inner_mov.at, "%r12");
  ASSERT_TRUE(r7 && r12);
  EXPECT_EQ(sc.declaration(r7.declaration).scope, inner_mov.scope);
  EXPECT_EQ(sc.declaration(r12.declaration).scope, outer_mov.scope);
  EXPECT_EQ(r12.element, 12u);
  // outside the block the inner declarations are gone
  const Resolved outer_r7 = sc.lookup(outer_mov.scope, outer_mov.at, "%r7");
  ASSERT_TRUE(outer_r7);
  EXPECT_EQ(sc.declaration(outer_r7.declaration).scope, outer_mov.scope);
  EXPECT_FALSE(sc.lookup(outer_mov.scope, outer_mov.at, "%tmp"));
  EXPECT_FALSE(sc.lookup(outer_mov.scope, outer_mov.at, "%r16"));
  EXPECT_FALSE(sc.lookup(outer_mov.scope, outer_mov.at, "%r012"));  // a leading zero names no register
}

TEST(Scopes, DeclarationsAreSeenAfterThemLabelsEverywhereInTheirBlock) {
  Module m = ptx::test::parse_ok(
      ptx::test::kernel("\t.reg .b32 %x;\n"
                        "\t{ mov.u32 %x, 1;\n\t.reg .b32 %x;\n\tmov.u32 %x, 2;\n\tbra done;\n\tdone:\n}\n"
                        "\tbra done;\n\tret;"));
  const Scopes sc(m);
  const Found before = where(m, sc, "mov.u32", 0), after = where(m, sc, "mov.u32", 1);
  const Resolved x1 = sc.lookup(before.scope, before.at, "%x"), x2 = sc.lookup(after.scope, after.at, "%x");
  ASSERT_TRUE(x1 && x2);
  EXPECT_EQ(sc.declaration(x1.declaration).scope, sc.scope(before.scope).parent);  // the inner %x is not declared yet
  EXPECT_EQ(sc.declaration(x2.declaration).scope, after.scope);
  const Found outer_bra = where(m, sc, "bra", 0), inner_bra = where(m, sc, "bra", 1);
  EXPECT_TRUE(sc.lookup(inner_bra.scope, inner_bra.at, "done"));   // a label before its definition
  EXPECT_FALSE(sc.lookup(outer_bra.scope, outer_bra.at, "done"));  // not from outside its block
  EXPECT_TRUE(sc.lookup(outer_bra.scope, Scopes::kAnywhere, "%x"));
}

TEST(Scopes, ConflictsInOneScope) {
  Module m = ptx::test::parse_ok(
      ".version 9.0\n.target sm_90a\n.address_size 64\n"
      ".func f();\n.func f() { ret; }\n"  // declared, then defined: one function
      ".visible .entry k(.param .u64 p)\n{\n"
      "\t.reg .b32 p;\n"                        // a parameter and a body register: one scope
      "\t.reg .b32 %r<4>;\n\t.reg .b32 %r1;\n"  // a range's register declared again
      "\tL:\n\t.reg .b32 L;\n"                  // labels and registers share the namespace
      "\t{ .reg .b32 p; L: ret; }\n"            // an inner block may declare them again
      "}\n");
  const Scopes sc(m);
  std::vector<std::string> names;
  for (const auto& [a, b] : sc.conflicts()) names.emplace_back(m.text(sc.declaration(b).name));
  EXPECT_EQ(names, (std::vector<std::string>{"p", "%r1", "L"}));
}

TEST(Scopes, FunctionsAndModuleVariablesAreSeenEverywhere) {
  Module m = ptx::test::parse_ok(
      ".version 9.0\n.target sm_90a\n.address_size 64\n"
      ".visible .entry k() { call g; ld.global.u32 %r, [later]; ret; }\n"
      ".func g() { ret; }\n.global .u32 later;\n");
  const Scopes sc(m);
  const Found call = where(m, sc, "call");
  ASSERT_TRUE(sc.lookup(call.scope, call.at, "g"));
  EXPECT_EQ(sc.declaration(sc.lookup(call.scope, call.at, "g").declaration).kind, Declaration::Function);
  EXPECT_TRUE(sc.lookup(call.scope, call.at, "later"));
  EXPECT_FALSE(sc.lookup(call.scope, call.at, "%r"));
}

}  // namespace
