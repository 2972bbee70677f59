#include <gtest/gtest.h>

#include <bit>

#include "test_util.hpp"

using namespace ptx::ir;
using ptx::test::kernel;
using ptx::test::parse_ok;

namespace {

const Function& only_function(const Module& m) {
  EXPECT_EQ(m.functions.size(), 1u);
  return m.functions.at(0);
}

std::vector<Stmt> body(const Module& m) { return m.blocks[only_function(m).body].stmts; }

const Instruction& first_instruction(const Module& m) {
  for (Stmt s : body(m))
    if (s.kind == StmtKind::Instruction) return m.instructions[s.index];
  ADD_FAILURE() << "no instruction";
  return m.instructions.at(0);
}

TEST(Parser, ModuleDirectives) {
  Module m = parse_ok(".version 9.0\n.target sm_100a, texmode_independent, debug\n.address_size 64\n");
  ASSERT_EQ(m.root().stmts.size(), 3u);
  const Directive& v = m.directives[0];
  EXPECT_EQ(m.text(v.name), ".version");
  ASSERT_EQ(v.items.count, 1u);
  const Expr& ver = m.expr(ExprId{m.items[v.items.first].node});
  EXPECT_EQ(ver.kind, ExprKind::Float);
  EXPECT_EQ(std::bit_cast<double>(ver.value), 9.0);
  const Directive& t = m.directives[1];
  ASSERT_EQ(t.items.count, 3u);
  EXPECT_EQ(m.name_of(ExprId{m.items[t.items.first + 1].node}), "texmode_independent");
  EXPECT_EQ(m.expr(ExprId{m.items[m.directives[2].items.first].node}).value, 64u);
}

TEST(Parser, EntryWithParametersAndHeaderDirectives) {
  Module m = parse_ok(
      ".visible .entry k(.param .u64 .ptr .global .align 16 p, .param .align 8 .b8 s[16], .param .u32 n)\n"
      ".maxntid 256, 1, 1\n.minnctapersm 2\n.reqnctapercluster 2, 1, 1\n.explicitcluster\n{\n ret;\n}\n");
  const Function& f = only_function(m);
  EXPECT_EQ(m.text(f.name), "k");
  ASSERT_EQ(f.specs.count, 2u);
  EXPECT_EQ(m.text(m.specs[f.specs.first].word), ".visible");
  EXPECT_EQ(m.text(m.specs[f.specs.first + 1].word), ".entry");
  ASSERT_TRUE(f.params.present);
  ASSERT_EQ(f.params.params.count, 3u);
  const Decl& p0 = m.decls[m.items[f.params.params.first].node];
  ASSERT_EQ(p0.specs.count, 5u);
  EXPECT_EQ(m.text(m.specs[p0.specs.first + 2].word), ".ptr");
  const Spec& align = m.specs[p0.specs.first + 4];
  EXPECT_EQ(m.text(align.word), ".align");
  EXPECT_EQ(m.expr(align.arg).value, 16u);
  const Decl& p1 = m.decls[m.items[f.params.params.first + 1].node];
  const Declarator& s = m.declarators[p1.declarators.first];
  EXPECT_EQ(m.text(s.name), "s");
  ASSERT_EQ(s.dims.count, 1u);
  EXPECT_FALSE(p1.has_semi);
  ASSERT_EQ(f.header.size(), 4u);
  EXPECT_EQ(m.text(m.directives[f.header[0]].name), ".maxntid");
  EXPECT_EQ(m.directives[f.header[0]].items.count, 3u);
  EXPECT_EQ(m.directives[f.header[3]].items.count, 0u);
  EXPECT_TRUE(f.has_body());
}

TEST(Parser, FuncWithReturnParameterAndPrototypeDeclaration) {
  Module m = parse_ok(
      ".extern .func (.param .b32 func_retval0) vprintf\n(\n\t.param .b64 a,\n\t.param .b64 b\n)\n;\n"
      ".func (.reg .b32 rv) f(.reg .b32 a) .noreturn { ret; }\n");
  ASSERT_EQ(m.functions.size(), 2u);
  const Function& decl = m.functions[0];
  EXPECT_FALSE(decl.has_body());
  EXPECT_TRUE(decl.ret.present);
  EXPECT_EQ(decl.ret.params.count, 1u);
  EXPECT_EQ(decl.params.params.count, 2u);
  const Function& f = m.functions[1];
  EXPECT_EQ(m.text(m.specs[m.decls[m.items[f.ret.params.first].node].specs.first].word), ".reg");
  ASSERT_EQ(f.header.size(), 1u);
  EXPECT_EQ(m.text(m.directives[f.header[0]].name), ".noreturn");
}

TEST(Parser, VariablesOfEveryForm) {
  Module m = parse_ok(
      ".global .align 4 .b8 gv[16] = {1, 0, 0, 0};\n"
      ".const .align 8 .f64 d = 0d3FF0000000000000;\n"
      ".global .u32 arr[2][3] = {{1, 2, 3}, {4, 5, 6}};\n"
      ".global .v4 .f32 v = {1.0, 2.5e1, 0f3F800000, -1.0};\n"
      ".global .u64 g = generic(gv) + 8;\n"
      ".global .u8 mask[2] = {0xff(gv), 0xff00(gv)};\n"
      ".extern .shared .align 16 .b8 dyn[];\n"
      ".global .attribute(.managed) .s32 mg;\n"
      ".global .texref tr;\n"
      ".common .global .align 4 .u32 c1, c2;\n");
  ASSERT_EQ(m.decls.size(), 10u);
  const Declarator& gv = m.declarators[m.decls[0].declarators.first];
  EXPECT_EQ(m.text(gv.name), "gv");
  const Expr& init = m.expr(gv.init);
  EXPECT_EQ(init.kind, ExprKind::List);
  EXPECT_EQ(static_cast<Delim>(init.sub), Delim::Brace);
  EXPECT_EQ(init.b, 4u);
  const Declarator& arr = m.declarators[m.decls[2].declarators.first];
  EXPECT_EQ(arr.dims.count, 2u);
  const Expr& g = m.expr(m.declarators[m.decls[4].declarators.first].init);
  EXPECT_EQ(g.kind, ExprKind::Binary);
  EXPECT_EQ(m.expr(ExprId{g.a}).kind, ExprKind::Apply);
  const Expr& mk = m.expr(m.declarators[m.decls[5].declarators.first].init);
  const Expr& first = m.expr(ExprId{m.items[mk.a].node});
  EXPECT_EQ(first.kind, ExprKind::Apply);
  EXPECT_EQ(m.expr(ExprId{first.a}).value, 0xffu);
  const Declarator& dyn = m.declarators[m.decls[6].declarators.first];
  ASSERT_EQ(dyn.dims.count, 1u);
  EXPECT_EQ(m.expr(ExprId{m.items[dyn.dims.first].node}).b, 0u);  // []
  const Spec& attr = m.specs[m.decls[7].specs.first + 1];
  EXPECT_EQ(m.text(attr.word), ".attribute");
  EXPECT_EQ(m.expr(attr.arg).kind, ExprKind::List);
  EXPECT_EQ(m.decls[9].declarators.count, 2u);
}

TEST(Parser, SamplerInitializer) {
  Module m = parse_ok(".target sm_80, texmode_independent\n"
                      ".global .samplerref s = { addr_mode_0 = clamp_to_edge, filter_mode = linear };");
  const Expr& init = m.expr(m.declarators[m.decls[0].declarators.first].init);
  ASSERT_EQ(init.b, 2u);
  const Expr& first = m.expr(ExprId{m.items[init.a].node});
  EXPECT_EQ(first.kind, ExprKind::Binary);
  EXPECT_EQ(static_cast<Op>(first.sub), Op::Assign);
  EXPECT_EQ(m.name_of(ExprId{first.a}), "addr_mode_0");
  EXPECT_EQ(m.name_of(ExprId{first.b}), "clamp_to_edge");
  EXPECT_EQ(ptx::test::canonical(".global .samplerref s={filter_mode=linear};"),
            ".global .samplerref s = {filter_mode = linear};\n");
}

TEST(Parser, RegisterDeclarations) {
  Module m = parse_ok(kernel(".reg .b32 %r<45>;\n.reg .pred %p, %q;\n.reg .v2 .f32 %v;\n.local .align 8 .b8 depot[16];"));
  const auto stmts = body(m);
  ASSERT_EQ(stmts.size(), 4u);
  const Decl& r = m.decls[stmts[0].index];
  const Declarator& dr = m.declarators[r.declarators.first];
  EXPECT_EQ(m.text(dr.name), "%r");
  ASSERT_TRUE(dr.range);
  const Expr& range = m.expr(dr.range);
  EXPECT_EQ(static_cast<Delim>(range.sub), Delim::Angle);
  EXPECT_EQ(m.expr(ExprId{m.items[range.a].node}).value, 45u);
  EXPECT_EQ(m.decls[stmts[1].index].declarators.count, 2u);
}

TEST(Parser, InstructionParts) {
  Module m = parse_ok(kernel("@!%p1 ld.global.nc.v2.f32 {%f1, _}, [%rd1+-8];"));
  const Instruction& in = first_instruction(m);
  ASSERT_TRUE(in.guard);
  const Expr& g = m.expr(in.guard);
  EXPECT_EQ(g.kind, ExprKind::Unary);
  EXPECT_EQ(static_cast<Op>(g.sub), Op::Not);
  EXPECT_EQ(m.name_of(ExprId{g.a}), "%p1");
  EXPECT_EQ(m.text(in.opcode), "ld");
  EXPECT_EQ(m.mnemonic(in), "ld.global.nc.v2.f32");
  ASSERT_EQ(in.operands.count, 2u);
  const Expr& vec = m.expr(m.operand(in, 0));
  EXPECT_EQ(static_cast<Delim>(vec.sub), Delim::Brace);
  EXPECT_EQ(m.name_of(ExprId{m.items[vec.a + 1].node}), "_");
  const Expr& addr = m.expr(m.operand(in, 1));
  EXPECT_EQ(static_cast<Delim>(addr.sub), Delim::Bracket);
  const Expr& sum = m.expr(ExprId{m.items[addr.a].node});
  EXPECT_EQ(static_cast<Op>(sum.sub), Op::Add);
  const Expr& neg = m.expr(ExprId{sum.b});
  EXPECT_EQ(static_cast<Op>(neg.sub), Op::Neg);
  EXPECT_EQ(m.expr(ExprId{neg.a}).value, 8u);
}

TEST(Parser, OperandForms) {
  Module m = parse_ok(kernel(
      "setp.lt.s32 %p|%q, %r1, 0x10;\n"
      "mov.u32 %r1, %tid.x;\n"
      "vadd.s32.u32.s32.sat %r1, %r2.b0, %r3.h1, %r1;\n"
      "tex.2d.v4.f32.f32 {%f1, %f2, %f3, %f4}, [tex, smp, {%f5, %f6}];\n"
      "call.uni (retval0), _Z3fooi, (param0, param1);\n"
      "mov.f32 %f1, 0f3F800000;\n"
      "mov.u32 %r1, 1+2*3;"));
  const auto stmts = body(m);
  const Instruction& setp = m.instructions[stmts[0].index];
  const Expr& pair = m.expr(m.operand(setp, 0));
  EXPECT_EQ(pair.kind, ExprKind::Binary);
  EXPECT_EQ(static_cast<Op>(pair.sub), Op::BitOr);
  const Instruction& mov = m.instructions[stmts[1].index];
  const Expr& tid = m.expr(m.operand(mov, 1));
  EXPECT_EQ(m.text(Symbol{tid.a}), "%tid");
  EXPECT_EQ(m.text(Symbol{tid.b}), ".x");
  const Instruction& vadd = m.instructions[stmts[2].index];
  EXPECT_EQ(m.text(Symbol{m.expr(m.operand(vadd, 1)).b}), ".b0");
  const Instruction& tex = m.instructions[stmts[3].index];
  const Expr& taddr = m.expr(m.operand(tex, 1));
  EXPECT_EQ(taddr.b, 3u);
  const Instruction& call = m.instructions[stmts[4].index];
  ASSERT_EQ(call.operands.count, 3u);
  EXPECT_EQ(static_cast<Delim>(m.expr(m.operand(call, 0)).sub), Delim::Paren);
  EXPECT_EQ(m.expr(m.operand(call, 2)).b, 2u);
  const Instruction& movf = m.instructions[stmts[5].index];
  EXPECT_EQ(std::bit_cast<float>(static_cast<uint32_t>(m.expr(m.operand(movf, 1)).value)), 1.0f);
  const Instruction& expr = m.instructions[stmts[6].index];
  const Expr& add = m.expr(m.operand(expr, 1));
  EXPECT_EQ(static_cast<Op>(add.sub), Op::Add);
  EXPECT_EQ(static_cast<Op>(m.expr(ExprId{add.b}).sub), Op::Mul);  // precedence
}

TEST(Parser, SuffixedAddress) {
  Module m = parse_ok(kernel("ld.global.u32 %r1, [%rd1] .unified;"));
  const Expr& a = m.expr(m.operand(first_instruction(m), 1));
  ASSERT_EQ(a.kind, ExprKind::Suffixed);
  EXPECT_EQ(m.text(Symbol{a.b}), ".unified");
  EXPECT_EQ(m.expr(ExprId{a.a}).kind, ExprKind::List);
  EXPECT_EQ(ptx::test::exact(kernel("ld.global.u32 %r1, [%rd1] .unified;")), kernel("ld.global.u32 %r1, [%rd1] .unified;"));
  EXPECT_NE(ptx::test::canonical(kernel("ld.global.u32 %r1, [%rd1] .unified;")).find("[%rd1].unified;"), std::string::npos);
}

TEST(Parser, LabelsBlocksPrototypesTargets) {
  Module m = parse_ok(kernel(
      "$L__BB0_1:\n"
      "{ // callseq 0\n .reg .b32 temp;\n { .param .b32 p; }\n}\n"
      "proto: .callprototype (.param .b32 _) _ (.param .b32 _, .param .b64 _);\n"
      "noret: .callprototype ()_ (.param .b64 _);\n"
      "ts: .branchtargets L1, L2;\n"
      "ct: .calltargets f1, f2;\n"
      ".pragma \"nounroll\";\n"
      ".loc 1 2 30\n"
      ".loc 1 1 73, function_name $L__info_string0, inlined_at 1 2 30\n"
      "brx.idx %r1, ts;"));
  const auto stmts = body(m);
  ASSERT_EQ(stmts.size(), 14u);
  EXPECT_EQ(stmts[0].kind, StmtKind::Label);
  EXPECT_EQ(m.text(m.labels[stmts[0].index].name), "$L__BB0_1");
  ASSERT_EQ(stmts[1].kind, StmtKind::Block);
  const Block& blk = m.blocks[stmts[1].index];
  ASSERT_EQ(blk.stmts.size(), 2u);
  EXPECT_EQ(blk.stmts[1].kind, StmtKind::Block);
  EXPECT_EQ(stmts[3].kind, StmtKind::Prototype);
  const Prototype& p = m.prototypes[stmts[3].index];
  EXPECT_TRUE(p.ret.present);
  EXPECT_EQ(p.params.params.count, 2u);
  const Prototype& q = m.prototypes[stmts[5].index];
  EXPECT_TRUE(q.ret.present);
  EXPECT_EQ(q.ret.params.count, 0u);
  EXPECT_EQ(m.text(q.name), "_");
  const Directive& bt = m.directives[stmts[7].index];
  EXPECT_EQ(m.text(bt.name), ".branchtargets");
  EXPECT_EQ(bt.items.count, 2u);
  EXPECT_TRUE(bt.has_semi);
  EXPECT_EQ(stmts[11].kind, StmtKind::Directive);
  const Directive& loc = m.directives[stmts[12].index];
  ASSERT_EQ(loc.items.count, 9u);
  EXPECT_FALSE(m.items[loc.items.first].comma);
  EXPECT_TRUE(m.items[loc.items.first + 2].comma);
  EXPECT_EQ(m.name_of(ExprId{m.items[loc.items.first + 4].node}), "$L__info_string0");
}

TEST(Parser, SectionsFileAndAlias) {
  Module m = parse_ok(
      ".version 9.0\n.target sm_80, debug\n.address_size 64\n"
      ".func f() { ret; }\n.alias g, f;\n"
      ".file 1 \"/tmp/a.cu\", 1700000000, 1234\n"
      ".section .debug_info\n{\n$L__info_start:\n.b32 577\n.b8 2, 0\n.b32 .debug_abbrev\n.b64 $L__func_begin0+4\n}\n");
  ASSERT_EQ(m.sections.size(), 1u);
  const Section& s = m.sections[0];
  EXPECT_EQ(m.text(s.name), ".debug_info");
  const Block& b = m.blocks[s.body];
  ASSERT_EQ(b.stmts.size(), 5u);
  EXPECT_EQ(b.stmts[0].kind, StmtKind::Label);
  const Directive& d = m.directives[b.stmts[3].index];
  EXPECT_EQ(m.name_of(ExprId{m.items[d.items.first].node}), ".debug_abbrev");
  bool found_file = false;
  for (const Directive& dir : m.directives)
    if (m.text(dir.name) == ".file") {
      found_file = true;
      EXPECT_EQ(dir.items.count, 4u);
      EXPECT_EQ(m.expr(ExprId{m.items[dir.items.first + 1].node}).kind, ExprKind::String);
    }
  EXPECT_TRUE(found_file);
}

TEST(Parser, ConstantExpressions) {
  Module m = parse_ok(".global .s32 x = -(3 << 2) ^ ~1 | 4 & 5 == 5 ? 1 : 2;\n.global .s32 y = 7 % 3 / 1 - +2 || !0 && 1 <= 2;");
  const Expr& x = m.expr(m.declarators[m.decls[0].declarators.first].init);
  EXPECT_EQ(x.kind, ExprKind::Ternary);
  const Expr& y = m.expr(m.declarators[m.decls[1].declarators.first].init);
  EXPECT_EQ(static_cast<Op>(y.sub), Op::LogOr);
}

TEST(Parser, SourceLocations) {
  Module m = parse_ok(kernel("  mov.u32 %r1, 1;"));
  const Instruction& in = first_instruction(m);
  const LineColumn lc = m.source.locate(in.loc);
  EXPECT_EQ(lc.line, 7u);
  EXPECT_EQ(lc.column, 3u);
  const LineColumn oc = m.source.locate(m.expr(m.operand(in, 1)).loc);
  EXPECT_EQ(oc.column, 16u);
}

}  // namespace
