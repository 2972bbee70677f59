// Modules built through the IR API (as the DSL will) print canonically and assemble.
#include <gtest/gtest.h>

#include <tuple>

#include "ptxas_util.hpp"
#include "test_util.hpp"

using namespace ptx::ir;

namespace {

// Builds: a kernel y[tid] = x[tid] * 2.0f
Module build_scale_kernel() {
  Module m;
  std::vector<Stmt> root;  // m.blocks may grow while building: fill a copy
  root.push_back(m.add_directive(".version", {m.add_float_spelled(9.0, "9.0")}));
  root.push_back(m.add_directive(".target", {m.add_name("sm_90a")}));
  root.push_back(m.add_directive(".address_size", {m.add_int(64)}));
  const uint32_t params[] = {m.add_decl({".param", ".u64"}, "x", {}, {}, {}, false),
                             m.add_decl({".param", ".u64"}, "y", {}, {}, {}, false)};
  const uint32_t body_block = m.add_block();
  std::vector<Stmt> body;
  for (auto [type, name, count] : {std::tuple{".b32", "%r", 3}, {".f32", "%f", 3}, {".b64", "%rd", 6}})
    body.push_back(Stmt{StmtKind::Decl, m.add_decl({".reg", type}, name, m.add_list(Delim::Angle, {m.add_int(count)}))});
  auto inst = [&](const char* mnemonic, std::initializer_list<ExprId> ops) {
    body.push_back(m.add_instruction(m.make_instruction(mnemonic, ops)));
  };
  inst("ld.param.u64", {m.add_name("%rd1"), m.add_list(Delim::Bracket, {m.add_name("x")})});
  inst("ld.param.u64", {m.add_name("%rd2"), m.add_list(Delim::Bracket, {m.add_name("y")})});
  inst("cvta.to.global.u64", {m.add_name("%rd3"), m.add_name("%rd1")});
  inst("cvta.to.global.u64", {m.add_name("%rd4"), m.add_name("%rd2")});
  inst("mov.u32", {m.add_name("%r1"), m.add_name("%tid", ".x")});
  inst("mul.wide.u32", {m.add_name("%rd5"), m.add_name("%r1"), m.add_int(4)});
  inst("add.s64", {m.add_name("%rd3"), m.add_name("%rd3"), m.add_name("%rd5")});
  inst("add.s64", {m.add_name("%rd4"), m.add_name("%rd4"), m.add_name("%rd5")});
  inst("ld.global.f32", {m.add_name("%f1"), m.add_list(Delim::Bracket, {m.add_name("%rd3")})});
  inst("mul.f32", {m.add_name("%f2"), m.add_name("%f1"), m.add_f32(2.0f)});
  inst("st.global.f32", {m.add_list(Delim::Bracket, {m.add_binary(Op::Add, m.add_name("%rd4"), m.add_int(0))}),
                         m.add_name("%f2")});
  inst("ret", {});
  m.blocks[body_block].stmts = std::move(body);
  root.push_back(m.add_function({".visible", ".entry"}, "scale", params, body_block));
  m.root().stmts = std::move(root);
  return m;
}

const char* kScalePtx =
    ".version 9.0\n.target sm_90a\n.address_size 64\n\n"
    ".visible .entry scale(\n\t.param .u64 x,\n\t.param .u64 y\n)\n{\n"
    "\t.reg .b32 %r<3>;\n\t.reg .f32 %f<3>;\n\t.reg .b64 %rd<6>;\n"
    "\tld.param.u64 \t%rd1, [x];\n\tld.param.u64 \t%rd2, [y];\n"
    "\tcvta.to.global.u64 \t%rd3, %rd1;\n\tcvta.to.global.u64 \t%rd4, %rd2;\n"
    "\tmov.u32 \t%r1, %tid.x;\n\tmul.wide.u32 \t%rd5, %r1, 4;\n"
    "\tadd.s64 \t%rd3, %rd3, %rd5;\n\tadd.s64 \t%rd4, %rd4, %rd5;\n"
    "\tld.global.f32 \t%f1, [%rd3];\n\tmul.f32 \t%f2, %f1, 0f40000000;\n"
    "\tst.global.f32 \t[%rd4+0], %f2;\n\tret;\n}\n";

TEST(Build, BuiltModulePrintsCanonically) {
  Module m = build_scale_kernel();
  EXPECT_EQ(ptx::text::print(m), kScalePtx);  // synthesized trivia: exact mode lays it out canonically
  EXPECT_EQ(ptx::text::print(m, ptx::text::PrintMode::Canonical), kScalePtx);
  EXPECT_EQ(ptx::test::exact(kScalePtx), kScalePtx);
  EXPECT_EQ(ptx::test::canonical(kScalePtx), kScalePtx);
}

TEST(Build, BuiltModuleAssembles) {
  if (!ptx::test::have_ptxas()) GTEST_SKIP() << "ptxas not found";
  const auto r = ptx::test::run_ptxas(ptx::text::print(build_scale_kernel()), "sm_90a");
  EXPECT_TRUE(r.ok) << r.log;
}

TEST(Build, MakeInstructionSplitsModifiers) {
  Module m;
  const Instruction in = m.make_instruction("cp.async.bulk.tensor.2d.shared::cluster.global.mbarrier::complete_tx::bytes", {});
  EXPECT_EQ(m.text(in.opcode), "cp");
  EXPECT_EQ(in.modifiers.count, 7u);
  EXPECT_EQ(m.mnemonic(in), "cp.async.bulk.tensor.2d.shared::cluster.global.mbarrier::complete_tx::bytes");
}

}  // namespace
