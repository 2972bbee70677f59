// The IR editing API checks its arguments: an operand index, node id, range or
// new name that does not fit the module is a ptx::Error saying what was wrong,
// never another node, a crash, a merge or PTX that no longer parses.
#include <gtest/gtest.h>

#include <functional>

#include "ptxpp/ir/identifier.hpp"
#include "ptxpp/text/lexer.hpp"
#include "test_util.hpp"

using namespace ptx::ir;

namespace {

const std::string kInput =
    ".version 9.0\n.target sm_90a\n.address_size 64\n\n"
    ".visible .entry k(\n\t.param .u64 k_param_0\n)\n{\n"
    "\t.reg .b64 \t%SP;\n"
    "\t.reg .b32 \t%r<4>;\n"
    "\t.reg .b32 \t%a, %b;\n"
    "\tmov.u32  %r1, 42;\n"
    "\tadd.u32  %a, %b, %r1;\n"
    "\tret;\n}\n";

// The message of the ptx::Error that `f` throws ("" when it throws none).
std::string error_of(const std::function<void()>& f) {
  try {
    f();
  } catch (const ptx::Error& e) {
    return e.message();
  }
  return "";
}

const Instruction& mov(const Module& m) { return m.instructions[0]; }

TEST(IrChecks, OperandPastTheEndIsAnErrorNotAnotherNode) {
  Module m = ptx::test::parse_ok(kInput);
  ASSERT_EQ(m.mnemonic(mov(m)), "mov.u32");
  for (uint32_t n : {2u, 5u}) {
    SCOPED_TRACE(n);
    EXPECT_EQ(error_of([&] { (void)m.operand(mov(m), n); }),
              "operand " + std::to_string(n) + " of 'mov.u32' does not exist: the instruction has 2 operands");
  }
  EXPECT_EQ(ptx::text::print(m), kInput);  // .version 9.0 and the rest untouched
}

TEST(IrChecks, FarOutIndicesAreErrorsNotCrashes) {
  Module m = ptx::test::parse_ok(kInput);
  const uint32_t far = 1u << 30;
  EXPECT_NE(error_of([&] { (void)m.operand(mov(m), far); }).find("operand 1073741824 of 'mov.u32' does not exist"),
            std::string::npos);
  EXPECT_NE(error_of([&] { m.expr(ExprId{far}); }).find("expression id 1073741824 is out of range: the module has"),
            std::string::npos);
  EXPECT_EQ(error_of([&] { m.expr(ExprId{}); }), "expression id none (ExprId{}) does not name an expression");
  EXPECT_NE(error_of([&] { (void)m.name_of(ExprId{far}); }).find("is out of range"), std::string::npos);
  EXPECT_NE(error_of([&] { (void)m.text(Symbol{far}); }).find("string id 1073741824 is out of range"),
            std::string::npos);
  EXPECT_NE(error_of([&] {
              (void)m.slice(Range{far, 2});
            }).find("2 items from index 1073741824 are out of range"),
            std::string::npos);
  // a count that wraps first + count past 2^32
  EXPECT_NE(error_of([&] { (void)m.slice(Range{1, 0xFFFFFFFFu}); }).find("are out of range"), std::string::npos);
  EXPECT_NE(error_of([&] { (void)m.specs_of(Range{far, 1}); }).find("1 specs from index"), std::string::npos);
  Instruction broken = mov(m);
  broken.operands.first = far;
  EXPECT_NE(error_of([&] { (void)m.operand(broken, 0); }).find("2 items from index 1073741824"), std::string::npos);
  EXPECT_NE(error_of([&] { (void)m.operands_of(broken); }).find("2 items from index"), std::string::npos);
  broken.modifiers.first = far;
  EXPECT_NE(error_of([&] { (void)m.mnemonic(broken); }).find("1 modifiers from index"), std::string::npos);
  Decl bad_decl = m.decls[0];
  bad_decl.declarators.count = far;
  EXPECT_NE(error_of([&] { (void)m.declarators_of(bad_decl); }).find("declarators from index"), std::string::npos);
  EXPECT_NE(error_of([&] {
              (void)ptx::text::print_stmt(m, Stmt{StmtKind::Instruction, far});
            }).find("statement index 1073741824 is out of range: the module has 3 instructions"),
            std::string::npos);
  EXPECT_NE(error_of([&] { (void)ptx::text::print_expr(m, ExprId{far}); }).find("is out of range"), std::string::npos);
  EXPECT_EQ(ptx::text::print(m), kInput);
}

// The error is located at the caller's line, like the DSL's errors.
TEST(IrChecks, ErrorsNameTheCallersLine) {
  Module m = ptx::test::parse_ok(kInput);
  const uint32_t call_line = __LINE__ + 2;
  try {
    (void)m.operand(mov(m), 9);
    ADD_FAILURE() << "no error";
  } catch (const ptx::Error& e) {
    EXPECT_NE(std::string(e.where().file_name()).find("ir_checks_test.cpp"), std::string::npos) << e.what();
    EXPECT_EQ(e.where().line(), call_line) << e.what();
  }
}

TEST(IrChecks, BuildersCheckTheNodesTheyAreGiven) {
  Module m = ptx::test::parse_ok(kInput);
  const ExprId bad{1u << 20}, ok = m.add_int(1);
  const std::string out_of_range = "expression id 1048576 is out of range";
  auto fails = [&](const std::function<void()>& f) { return error_of(f).find(out_of_range) != std::string::npos; };
  EXPECT_TRUE(fails([&] { m.add_unary(Op::Neg, bad); }));
  EXPECT_TRUE(fails([&] { m.add_binary(Op::Add, ok, bad); }));
  EXPECT_TRUE(fails([&] { m.add_list(Delim::Brace, {ok, bad}); }));
  EXPECT_TRUE(fails([&] { m.add_apply(bad, ok); }));
  const ExprId ops[] = {ok, bad};
  EXPECT_TRUE(fails([&] { m.add_items(ops); }));
  EXPECT_TRUE(fails([&] { m.make_instruction("add.u32", ops); }));
  EXPECT_TRUE(fails([&] { m.make_instruction("add.u32", {ok}, bad); }));
  EXPECT_TRUE(fails([&] { m.add_directive(".pragma", {bad}); }));
  EXPECT_TRUE(fails([&] { m.add_decl({".reg", ".b32"}, "%x", {}, {}, bad); }));
  Expr unary;
  unary.kind = ExprKind::Unary;
  unary.a = bad.v;
  EXPECT_TRUE(fails([&] { m.add_expr(unary); }));
  Instruction inst = m.make_instruction("add.u32", {ok});
  inst.operands.count = 1u << 30;
  EXPECT_NE(error_of([&] { m.add_instruction(inst); }).find("1073741824 items from index"), std::string::npos);
  const uint32_t params[] = {1u << 20};
  EXPECT_NE(error_of([&] {
              m.add_function({".entry"}, "f", params, Function::kNoBody);
            }).find("statement index 1048576 is out of range: the module has 4 declarations"),
            std::string::npos);
  EXPECT_NE(error_of([&] {
              m.add_function({".entry"}, "f", {}, 77);
            }).find("statement index 77 is out of range: the module has 2 blocks"),
            std::string::npos);
  // nothing half-built was left in the printed module
  EXPECT_EQ(ptx::text::print(m), kInput);
}

TEST(IrChecks, SetIntOnlyChangesIntegerLiterals) {
  Module m = ptx::test::parse_ok(kInput);
  const Instruction& add = m.instructions[1];
  EXPECT_EQ(error_of([&] { m.set_int(m.operand(add, 0), 7); }),
            "set_int: expression " + std::to_string(m.operand(add, 0).v) + " is a name ('%a'), not an integer literal");
  const Directive& version = m.directives[0];
  ASSERT_EQ(m.text(version.name), ".version");
  const ExprId nine = ExprId{m.slice(version.items)[0].node};
  EXPECT_NE(error_of([&] { m.set_int(nine, 7); }).find("is a floating-point literal, not an integer literal"),
            std::string::npos);
  EXPECT_EQ(ptx::text::print(m), kInput);
  m.set_int(m.operand(mov(m), 1), 7);
  EXPECT_NE(ptx::text::print(m).find("mov.u32  %r1, 7;"), std::string::npos);
}

TEST(IrChecks, IdentifierRules) {
  for (const char* good : {"a", "Z9", "x$1", "_tmp", "_0", "$x", "%r1", "%1", "%SP", "__cuda_local_var_1"}) {
    SCOPED_TRACE(good);
    EXPECT_EQ(identifier_problem(good), "");
    // the lexer reads it as one identifier
    ptx::text::Lexer lex(good);
    const ptx::text::Token t = lex.next();
    EXPECT_EQ(t.kind, ptx::text::Tok::Ident);
    EXPECT_EQ(t.text, good);
  }
  EXPECT_EQ(identifier_problem(""), "a name cannot be empty");
  EXPECT_EQ(identifier_problem("_"), "'_' alone is the sink operand, not a name");
  EXPECT_EQ(identifier_problem("%"), "'%' needs a letter, digit, '_' or '$' after it");
  EXPECT_EQ(identifier_problem("1a"), "a name cannot start with a digit");
  EXPECT_EQ(identifier_problem(".x"), "a name cannot start with '.'");
  EXPECT_EQ(identifier_problem("bad name; ret"), "' ' at offset 3 cannot be part of a name");
  EXPECT_EQ(identifier_problem("a-b"), "'-' at offset 1 cannot be part of a name");
  EXPECT_EQ(identifier_problem("a\nb"), "byte 0x0a at offset 1 cannot be part of a name");
}

TEST(IrChecks, RenameRefusesNamesThatAreNotIdentifiers) {
  Module m = ptx::test::parse_ok(kInput);
  EXPECT_EQ(error_of([&] { m.rename("%SP", ""); }),
            "rename('%SP', ''): the new name is not a PTX identifier: a name cannot be empty");
  EXPECT_EQ(error_of([&] { m.rename("%SP", "bad name; ret"); }),
            "rename('%SP', 'bad name; ret'): the new name is not a PTX identifier: ' ' at offset 3 cannot be part of a "
            "name");
  EXPECT_NE(error_of([&] { m.rename("%SP", "_"); }).find("sink operand"), std::string::npos);
  EXPECT_NE(error_of([&] { m.rename("", "%x"); }).find("the old name is not a PTX identifier"), std::string::npos);
  EXPECT_EQ(ptx::text::print(m), kInput);
}

TEST(IrChecks, RenameToAnExistingNameIsAnErrorNotAMerge) {
  Module m = ptx::test::parse_ok(kInput);
  EXPECT_EQ(error_of([&] { m.rename("%a", "%b"); }),
            "rename('%a', '%b'): '%b' is already a name in function 'k'; renaming '%a' to it would merge the two");
  EXPECT_NE(error_of([&] { m.rename("%SP", "k_param_0"); }).find("already a name in function 'k'"), std::string::npos);
  // a register the range %r<4> declares
  EXPECT_NE(error_of([&] {
              m.rename("%a", "%r3");
            }).find("'%r3' is already a name in function 'k' (the range '%r<4>' declares it)"),
            std::string::npos);
  EXPECT_EQ(ptx::text::print(m), kInput);
  // outside the range: a new name
  EXPECT_EQ(m.rename("%a", "%r4"), 2u);
  EXPECT_EQ(m.rename("%r4", "%r04"), 2u);  // %r04 is not %r4: the range declares only %r0 .. %r3
  ptx::test::parse_ok(ptx::text::print(m));
}

TEST(IrChecks, RenameKeepsRangesWhole) {
  Module m = ptx::test::parse_ok(kInput);
  EXPECT_EQ(
      error_of([&] { m.rename("%r1", "%x"); }),
      "rename('%r1', '%x'): '%r1' is one of the registers the range '%r<4>' declares in function 'k'; renaming it "
      "would leave '%x' undeclared");
  EXPECT_NE(
      error_of([&] {
        m.rename("%r", "%q");
      }).find("'%r' is declared as the range '%r<4>' in function 'k', whose registers are used by their own names"),
      std::string::npos);
  EXPECT_EQ(ptx::text::print(m), kInput);
}

TEST(IrChecks, RenameLooksAtScopes) {
  const std::string text =
      ".version 9.0\n.target sm_90a\n.address_size 64\n"
      ".global .b32 g;\n"
      ".func f()\n{\n\t.reg .b32 %x;\n\tmov.u32 %x, 1;\n\tret;\n}\n"
      ".func h()\n{\n\t.reg .b32 %y;\n\tmov.u32 %y, 2;\n\tst.global.u32 [g], %y;\n\tret;\n}\n"
      ".func e()\n{\n\t{ .reg .b32 %a; mov.u32 %a, 3; }\n\t{ .reg .b32 %b; mov.u32 %b, 4; }\n"
      "\t{ .reg .b32 %c; { mov.u32 %c, 5; .reg .b32 %d; } }\n\tret;\n}\n";
  Module m = ptx::test::parse_ok(text);
  // %y is a name in h only: f may use it too
  EXPECT_EQ(m.rename("%x", "%y"), 2u);
  // h names g and declares %y: g becoming %y would make h's [g] its register
  EXPECT_EQ(error_of([&] { m.rename("%y", "g"); }),
            "rename('%y', 'g'): 'g' is named in function 'h', where it would then refer to the '%y' declared in "
            "function 'h'; renaming '%y' to it would merge the two");
  EXPECT_EQ(error_of([&] { m.rename("g", "%y"); }),
            "rename('g', '%y'): '%y' is already a name in function 'h'; renaming 'g' to it would merge the two");
  EXPECT_NE(error_of([&] { m.rename("f", "h"); }).find("'h' is already a name at the module's top level"),
            std::string::npos);
  // sibling blocks never see each other's names; an inner block sees the outer one's
  EXPECT_EQ(m.rename("%a", "%b"), 2u);
  EXPECT_EQ(error_of([&] { m.rename("%c", "%d"); }),
            "rename('%c', '%d'): '%d' is already a name in a block of function 'e'; renaming '%c' to it would merge "
            "the two");
  EXPECT_EQ(m.rename("h", "h2"), 1u);
  EXPECT_EQ(m.rename("nothing", "x"), 0u);  // no such name: nothing renamed
  EXPECT_EQ(m.rename("g", "g"), 2u);        // to itself: nothing changes
  const std::string printed = ptx::text::print(m);
  EXPECT_NE(printed.find(".func h2()"), std::string::npos) << printed;
  EXPECT_NE(printed.find("{ .reg .b32 %b; mov.u32 %b, 3; }"), std::string::npos) << printed;
  ptx::test::parse_ok(printed);
}

}  // namespace
