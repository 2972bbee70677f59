// The printer rebuilds text from the IR: editing a node changes exactly that
// part of the output, and nothing else.
#include <gtest/gtest.h>

#include "test_util.hpp"

using namespace ptx::ir;

namespace {

const std::string kInput =
    "//\n// hand-written\n//\n.version 9.0\n.target sm_90a\n.address_size 64\n\n"
    ".visible .entry k(\n\t.param .u64 k_param_0\n)\n{\n"
    "\t.reg .b64 \t%SP;   // stack pointer\n"
    "\t.reg .b32 \t%r<4>;\n"
    "\tmov.u64 \t%SP, 0;\n"
    "\tmov.u32  %r1,   42;   /* answer */\n"
    "\tadd.s64 \t%SP,%SP , 8;\n"
    "\tret;\n}\n";

std::string replace_all(std::string s, std::string_view from, std::string_view to) {
  for (size_t p = s.find(from); p != std::string::npos; p = s.find(from, p + to.size())) s.replace(p, from.size(), to);
  return s;
}

const Block& body(const Module& m) { return m.blocks[m.functions[0].body]; }

TEST(Edit, UnchangedModulePrintsIdentically) {
  Module m = ptx::test::parse_ok(kInput);
  EXPECT_EQ(ptx::text::print(m), kInput);
}

TEST(Edit, RenameRegisterEverywhere) {
  Module m = ptx::test::parse_ok(kInput);
  EXPECT_EQ(m.rename("%SP", "%stack"), 4u);  // declaration + three uses
  EXPECT_EQ(ptx::text::print(m), replace_all(kInput, "%SP", "%stack"));
}

TEST(Edit, ChangeImmediateKeepsNotationAndSpacing) {
  Module m = ptx::test::parse_ok(kInput);
  const Instruction& mov = m.instructions[body(m).stmts[3].index];
  ASSERT_EQ(m.mnemonic(mov), "mov.u32");
  m.set_int(m.operand(mov, 1), 7);
  std::string want = kInput;
  want.replace(want.find("42"), 2, "7");
  EXPECT_EQ(ptx::text::print(m), want);
}

TEST(Edit, ChangeHexImmediate) {
  const std::string in = ".entry k() { mov.u32 %r1, 0x00FF; }";
  Module m = ptx::test::parse_ok(in);
  m.set_int(m.operand(m.instructions[0], 1), 0xABCD);
  EXPECT_EQ(ptx::text::print(m), ".entry k() { mov.u32 %r1, 0xABCD; }");
}

TEST(Edit, DropInstruction) {
  Module m = ptx::test::parse_ok(kInput);
  auto& stmts = m.blocks[m.functions[0].body].stmts;
  stmts.erase(stmts.begin() + 3);  // the mov.u32 line: newline and indent before it, comment after it
  std::string want = kInput;
  const std::string line = "\n\tmov.u32  %r1,   42;   /* answer */";
  want.erase(want.find(line), line.size());
  EXPECT_EQ(ptx::text::print(m), want);
}

TEST(Edit, InsertInstruction) {
  Module m = ptx::test::parse_ok(kInput);
  const ExprId ops[] = {m.add_name("%r2"), m.add_name("%r1"), m.add_int(1)};
  const Stmt s = m.add_instruction(m.make_instruction("add.s32", ops));
  auto& stmts = m.blocks[m.functions[0].body].stmts;
  stmts.insert(stmts.begin() + 4, s);  // after the mov.u32
  std::string want = kInput;
  const std::string anchor = "/* answer */";
  want.insert(want.find(anchor) + anchor.size(), "\n\tadd.s32 \t%r2, %r1, 1;");
  EXPECT_EQ(ptx::text::print(m), want);
}

TEST(Edit, ReplaceOperandAndModifier) {
  Module m = ptx::test::parse_ok(kInput);
  Instruction& add = m.instructions[body(m).stmts[4].index];
  ASSERT_EQ(m.mnemonic(add), "add.s64");
  m.modifiers[add.modifiers.first].name = m.intern(".u64");
  // A new operand node gets canonical spacing; the neighbours keep theirs.
  const ExprId sixteen = m.add_int(16);
  m.items[add.operands.first + 2].node = sixteen.v;
  std::string want = kInput;
  want.replace(want.find("add.s64 \t%SP,%SP , 8;"), 21, "add.u64 \t%SP,%SP , 16;");
  EXPECT_EQ(ptx::text::print(m), want);
}

}  // namespace
