// The transpiler's output for small inputs, and ptx::Listing (what that output
// is written with): exact names, statements in place, comments, blank lines, errors.
// The whole-corpus round trip (generated C++ compiled and run) is
// tests/transpile/corpus-roundtrip.sh (ctest transpile.corpus_roundtrip).
#include <gtest/gtest.h>

#include <ptxpp/dsl.hpp>
#include <ptxpp/text/parser.hpp>
#include <ptxpp/text/printer.hpp>
#include <ptxpp/transpile/transpile.hpp>

#include "ptxas_util.hpp"

namespace ptx::test {
namespace {

namespace lst = ptx::listing;
namespace inst = ptx::inst;

const char* kHeader = ".version 8.0\n.target sm_90a\n.address_size 64\n";

std::string canonical(const std::string& text) {
  auto parsed = text::parse(text);
  EXPECT_TRUE(bool(parsed)) << (parsed ? "" : parsed.error().format());
  return parsed ? text::print(parsed.module(), text::PrintMode::Canonical) : "";
}

std::string cpp_of(const std::string& ptx_text, transpile::Options o = {}) {
  auto parsed = text::parse(ptx_text);
  EXPECT_TRUE(bool(parsed)) << (parsed ? "" : parsed.error().format());
  return transpile::to_cpp(parsed.module(), ptx_text, o);
}

// A listing written by hand: the statements come out in order, with their names,
// comments and blank lines, and the module assembles.
TEST(Listing, StatementsInPlaceWithExactNames) {
  ptx::Listing m({.target = "sm_90a"});
  m.text(std::string(kHeader) + "\n// adds one\n.visible .entry add_one(\n\t.param .u64 p,\n\t.param .u32 n\n)\n");
  m.body([] {
    ptx::RegArray r = lst::regs(DType::b32, "%r", 4);
    ptx::RegArray rd = lst::regs(DType::b64, "%rd", 3);
    ptx::Reg p = lst::reg(DType::pred, "%done");
    ptx::Label exit = lst::label("$L__BB0_2");
    lst::blank_line();
    lst::comment("// load the pointer and the count");
    inst::ld.param.u64(rd[1], ptx::addr("p"));
    inst::ld.param.u32(r[1], ptx::addr("n"));
    inst::mov.u32(r[2], ptx::special::tid.x());
    inst::setp.ge.u32(p, r[2], r[1]);
    lst::trail("// past the end?");
    inst::bra[p](exit);
    inst::cvta.to.global.u64(rd[2], rd[1]);
    inst::mul.wide.u32(rd[1], r[2], 4);
    inst::add.s64(rd[2], rd[2], rd[1]);
    lst::block([&] {
      lst::stmt(".reg .b32 %t;");
      lst::instruction("ld.global.u32 %t, [%rd2];");
      inst::add.s32(lst::reg_ref(DType::b32, "%t"), lst::reg_ref(DType::b32, "%t"), 1);
      inst::st.global.u32(ptx::addr(rd[2]), lst::reg_ref(DType::b32, "%t"));
    });
    ptx::place(exit);
    inst::ret();
    lst::comment("// end");
  });
  const std::string want = std::string(kHeader) + R"(
// adds one
.visible .entry add_one(
	.param .u64 p,
	.param .u32 n
)
{
	.reg .b32 	%r<4>;
	.reg .b64 	%rd<3>;
	.reg .pred 	%done;

	// load the pointer and the count
	ld.param.u64 	%rd1, [p];
	ld.param.u32 	%r1, [n];
	mov.u32 	%r2, %tid.x;
	setp.ge.u32 	%done, %r2, %r1; // past the end?
	@%done bra 	$L__BB0_2;
	cvta.to.global.u64 	%rd2, %rd1;
	mul.wide.u32 	%rd1, %r2, 4;
	add.s64 	%rd2, %rd2, %rd1;
	{
		.reg .b32 %t;
		ld.global.u32 %t, [%rd2];
		add.s32 	%t, %t, 1;
		st.global.u32 	[%rd2], %t;
	}
$L__BB0_2:
	ret;
	// end
}
)";
  const std::string got = m.ptx();
  EXPECT_EQ(got, canonical(want));
  EXPECT_EQ(canonical(got), got);  // canonical form
  if (have_ptxas()) {
    const PtxasResult r = run_ptxas(got, "sm_90a");
    EXPECT_TRUE(r.ok) << r.log << got;
  }
}

// Blocks with the same label, as Triton and CUTLASS inline asm repeat their wait loops:
// each block's label is its own ptx::Label, declared in its block (the C++ runs).
TEST(Listing, SiblingBlocksWithTheSameLabel) {
  ptx::Listing m({.target = "sm_90a"});
  m.text(std::string(kHeader) + ".visible .entry k()\n");
  m.body([] {
    ptx::Reg bar = lst::reg(DType::b64, "%bar");
    inst::mov.u64(bar, 0);
    for (int i = 0; i < 2; ++i)
      lst::block([&] {
        ptx::Label wait = lst::label("waitLoop");
        ptx::Reg p = lst::reg(DType::pred, "P1");
        lst::repeat_until(wait, p, [&] { inst::mbarrier.try_wait.parity.shared_cta.b64(p, ptx::addr(bar), i); });
      });
    inst::ret();
  });
  std::string block;
  for (int i = 0; i < 2; ++i)
    block += "\t{\n\t.reg .pred P1;\nwaitLoop:\n\tmbarrier.try_wait.parity.shared::cta.b64 P1, [%bar], " +
             std::to_string(i) + ";\n\t@!P1 bra waitLoop;\n\t}\n";
  const std::string want =
      std::string(kHeader) + ".visible .entry k()\n{\n\t.reg .b64 %bar;\n\tmov.u64 %bar, 0;\n" + block + "\tret;\n}\n";
  const std::string got = m.ptx();
  EXPECT_EQ(got, canonical(want));
  if (have_ptxas()) {
    const PtxasResult r = run_ptxas(got, "sm_90a");
    EXPECT_TRUE(r.ok) << r.log << got;
  }
}

// Operands written as text that are constant expressions in parentheses, or a register plus
// a constant (as the transpiler writes them with lst::operand): immediates and registers,
// not argument lists (the listing threw "operands ... do not fit" when it ran).
TEST(Listing, ConstantExpressionAndRegisterPlusConstantOperands) {
  ptx::Listing m({.target = "sm_90a"});
  m.text(std::string(kHeader) + ".visible .entry k()\n");
  m.body([] {
    ptx::RegArray rd = lst::regs(DType::b64, "%rd", 2);
    ptx::RegArray r = lst::regs(DType::b32, "%r", 3);
    inst::or_.b64(rd[1], rd[1], lst::operand("((128 >> 4) << 16)"));
    inst::mov.u32(r[1], lst::operand("(1 << 3)"));
    inst::add.u32(r[2], lst::operand("%r1+2"), 0);
    inst::ret();
  });
  const std::string got = m.ptx();
  for (const char* want : {"or.b64 \t%rd1, %rd1, ((128>>4)<<16);", "mov.u32 \t%r1, (1<<3);", "add.u32 \t%r2, %r1+2, 0;"})
    EXPECT_NE(got.find(want), std::string::npos) << want << "\n" << got;
  if (have_ptxas()) {
    const PtxasResult res = run_ptxas(got, "sm_90a");
    EXPECT_TRUE(res.ok) << res.log << got;
  }
}

// ptx::offset keeps a zero offset ([param0+0], as nvcc writes it) and ptx::args
// writes a call's parameter lists; the module assembles.
TEST(Listing, ZeroOffsetsAndCallArguments) {
  ptx::Listing m({.target = "sm_90a"});
  m.text(std::string(kHeader) + R"(
.func  (.param .b32 func_retval0) twice(
	.param .b32 twice_param_0
)
)");
  m.body([] {
    ptx::RegArray r = lst::regs(DType::b32, "%r", 3);
    inst::ld.param.u32(r[1], ptx::addr("twice_param_0", ptx::offset(0)));
    inst::add.s32(r[2], r[1], r[1]);
    inst::st.param.b32(ptx::addr("func_retval0", ptx::offset(0)), r[2]);
    inst::ret();
  });
  m.text("\n.visible .entry k(\n\t.param .u64 k_param_0\n)\n");
  m.body([] {
    ptx::RegArray r = lst::regs(DType::b32, "%r", 3);
    ptx::RegArray rd = lst::regs(DType::b64, "%rd", 3);
    inst::ld.param.u64(rd[1], ptx::addr("k_param_0"));
    inst::cvta.to.global.u64(rd[2], rd[1]);
    inst::ld.global.u32(r[1], ptx::addr(rd[2], ptx::offset(0)));
    lst::block([&] {
      lst::stmt(".param .b32 param0;");
      inst::st.param.b32(ptx::addr("param0", ptx::offset(0)), r[1]);
      lst::stmt(".param .b32 retval0;");
      inst::call.uni(ptx::args({"retval0"}), ptx::symbol("twice"), ptx::args({"param0"}));
      inst::ld.param.b32(r[2], ptx::addr("retval0", ptx::offset(0)));
    });
    inst::st.global.u32(ptx::addr(rd[2], 4), r[2]);
    inst::ret();
  });
  const std::string got = m.ptx();
  for (const char* want : {"ld.param.u32 \t%r1, [twice_param_0+0];", "st.param.b32 \t[func_retval0+0], %r2;",
                           "ld.global.u32 \t%r1, [%rd2+0];", "call.uni \t(retval0), twice, (param0);",
                           "ld.global.u32", "st.global.u32 \t[%rd2+4], %r2;"})
    EXPECT_NE(got.find(want), std::string::npos) << want << "\n" << got;
  if (have_ptxas()) {
    const PtxasResult r = run_ptxas(got, "sm_90a");
    EXPECT_TRUE(r.ok) << r.log << got;
  }
}

TEST(Listing, ErrorsNameTheLine) {
  auto error_of = [](std::function<void()> body, ListingOptions o = {}) -> std::string {
    ptx::Listing m(std::move(o));
    m.text(std::string(kHeader) + ".entry k()\n").body(std::move(body));
    try {
      (void)m.ptx();
    } catch (const ptx::Error& e) {
      return e.what();
    }
    return "no error";
  };
  const std::string here = __FILE__;
  std::string e = error_of([] { lst::stmt(".reg .b32 %r<"); });
  EXPECT_NE(e.find("ptx::listing::stmt"), std::string::npos) << e;
  EXPECT_NE(e.find(here), std::string::npos) << e;
  e = error_of([] { lst::stmt(".reg .b32 %a; .reg .b32 %b;"); });
  EXPECT_NE(e.find("exactly one statement"), std::string::npos) << e;
  e = error_of([] { lst::instruction("ret; ret;"); });
  EXPECT_NE(e.find("exactly one instruction"), std::string::npos) << e;
  e = error_of([] { lst::instruction(".reg .b32 %a;"); });
  EXPECT_NE(e.find("exactly one instruction"), std::string::npos) << e;
  e = error_of([] { inst::mov.u32(lst::reg(DType::b32, "%a"), lst::operand("1, 2")); });
  EXPECT_NE(e.find("is not one operand"), std::string::npos) << e;
  e = error_of([] { (void)lst::regs(DType::b32, "%9x", 2); });
  EXPECT_NE(e.find("not a PTX identifier"), std::string::npos) << e;
  e = error_of([] { (void)lst::regs(DType::b32, "%r", 0); });
  EXPECT_NE(e.find("at least one register"), std::string::npos) << e;
  e = error_of([] {
    ptx::Label l = lst::label("$L__x");
    inst::bra(l);
  });
  EXPECT_NE(e.find("used but never placed"), std::string::npos) << e;
  e = error_of([] { lst::trail("// nothing before"); });
  EXPECT_NE(e.find("no statement before it"), std::string::npos) << e;
  // instructions are checked against the target unless validate is off
  e = error_of([] { inst::setmaxnreg.inc.sync.aligned.u32(32); }, {.target = "sm_80"});
  EXPECT_NE(e.find("the kernel's target is sm_80"), std::string::npos) << e;
  EXPECT_EQ(error_of([] { inst::setmaxnreg.inc.sync.aligned.u32(32); }, {.target = "sm_80", .validate = false}), "no error");
  e = error_of([] {}, {.target = "sm_x"});
  EXPECT_NE(e.find("'sm_x' is not a target"), std::string::npos) << e;
  // text that does not parse once joined: an error, not a silent drop
  ptx::Listing broken;
  broken.text(std::string(kHeader) + ".entry k( {}\n");
  EXPECT_THROW((void)broken.ptx(), ptx::Error);
  // outside a listing body
  EXPECT_THROW(lst::comment("// no trace"), ptx::Error);
}

// What the transpiler writes: typed instruction calls, registers and labels by
// name, comments and blank lines as calls, text only where nothing else fits.
TEST(Transpile, WritesTypedCalls) {
  const std::string src = std::string(kHeader) + R"(
// a comment before the kernel
.visible .entry k(.param .u64 p)   // trailing
{
	.reg .pred 	%p<2>;
	.reg .b32 	%r<5>;
	.reg .b64 	%rd<3>;

	// the pointer
	ld.param.u64 	%rd1, [p];
	mov.u32 	%r1, %tid.x;
	and.b32 	%r2, %r1, 0xFF;
	setp.ne.s32 	%p1, %r2, -3;
	@!%p1 bra 	$L__BB0_2;
	st.global.f32 	[%rd1+-4], 0f3F800000;
$L__BB0_2:
	add /* inside */ .s32 %r3, %r2, 1;
	ret;
}
)";
  transpile::Options o;
  o.name = "my_module";
  o.main = true;
  o.source_name = "k.ptx";
  const std::string cpp = cpp_of(src, o);
  for (const char* want :
       {"inline ptx::Listing my_module() {", "ptx::Listing m({.target = \"sm_90a\", .validate = true, .version = \"8.0\"});",
        "ptx::RegArray p = lst::regs(DType::pred, \"%p\", 2);", "ptx::RegArray r = lst::regs(DType::b32, \"%r\", 5);",
        "ptx::Label L_BB0_2 = lst::label(\"$L__BB0_2\");", "lst::blank_line();", "lst::comment(\"// the pointer\");",
        "inst::ld.param.u64(rd[1], ptx::addr(\"p\"));", "inst::mov.u32(r[1], ptx::special::tid.x());",
        "inst::and_.b32(r[2], r[1], lst::operand(\"0xFF\"));", "inst::setp.ne.s32(p[1], r[2], -3);",
        "inst::bra[!p[1]](L_BB0_2);", "inst::st.global.f32(ptx::addr(rd[1], -4), 1.0f);",
        "ptx::place(L_BB0_2);", "lst::instruction(\"add /* inside */ .s32 %r3, %r2, 1;\");", "inst::ret();",
        "int main() {", "std::fputs(my_module().ptx().c_str(), stdout);", "// a comment before the kernel"})
    EXPECT_NE(cpp.find(want), std::string::npos) << want << "\n" << cpp;
}

// The same decisions as the C++ above (typed calls, text where no chain spells it), in Python's
// spelling; python/tests/test_transpile.py runs the output on the corpus.
TEST(Transpile, WritesTheSameCallsInPython) {
  const std::string src = std::string(kHeader) + R"(
.visible .entry k(.param .u64 p)
{
	.reg .pred 	%p<2>;
	.reg .b32 	%r<5>;
	.reg .b64 	%rd<3>;
	.reg .f64 	%fd<2>;
	ld.param.u64 	%rd1, [p];
	mov.u32 	%r1, %tid.x;
	and.b32 	%r2, %r1, 0xFF;
	setp.ne.s32 	%p1, %r2, -3;
	@!%p1 bra 	$L__BB0_2;
	st.global.f32 	[%rd1+-4], 0f3F800000;
	cvt.f64.f32 	%fd1, 0f3F800000;
	ld.global.u32 	%r3, [%rd1+0];
$L__BB0_2:
	add /* inside */ .s32 %r3, %r2, 1;
	{
	}
	ret;
}
)";
  auto parsed = text::parse(src);
  ASSERT_TRUE(bool(parsed));
  transpile::Options o;
  o.language = transpile::Lang::Python;
  o.name = "my_module";
  const std::string py = transpile::transpile(parsed.module(), src, o);
  for (const char* want :
       {"from ptxpp import listing as lst\n", "def my_module():\n    m = Listing(target=\"sm_90a\", validate=True, version=\"8.0\")\n",
        "        p = lst.regs(DType.pred, \"%p\", 2)\n", "        L_BB0_2 = lst.label(\"$L__BB0_2\")\n",
        "        ptx.inst.ld.param.u64(rd[1], ptx.addr(\"p\"))\n", "        ptx.inst.mov.u32(r[1], ptx.special.tid.x())\n",
        "        ptx.inst.and_.b32(r[2], r[1], lst.operand(\"0xFF\"))\n", "        ptx.inst.bra[~p[1]](L_BB0_2)\n",
        "        ptx.inst.st.global_.f32(ptx.addr(rd[1], -4), 1.0)\n",
        // a Python float in a .f64 instruction is an f64: this f32 literal says what it is
        "        ptx.inst.cvt.f64.f32(fd[1], ptx.f32imm(1.0))\n", "        ptx.inst.ld.global_.u32(r[3], ptx.addr0(rd[1]))\n",
        "        ptx.place(L_BB0_2)\n", "        lst.instruction(\"add /* inside */ .s32 %r3, %r2, 1;\")\n",
        "        @lst.block\n        def _():\n            pass\n", "        ptx.inst.ret()\n",
        "if __name__ == \"__main__\":\n    print(my_module().ptx(), end=\"\")\n"})
    EXPECT_NE(py.find(want), std::string::npos) << want << "\n" << py;
  EXPECT_EQ(py.find(";\n"), std::string::npos) << "a C++ statement end: " << py;
  EXPECT_TRUE(transpile::is_identifier("my_module", transpile::Lang::Python));
  EXPECT_TRUE(transpile::is_identifier("int", transpile::Lang::Python));
  EXPECT_FALSE(transpile::is_identifier("lambda", transpile::Lang::Python));
  EXPECT_FALSE(transpile::is_identifier("range", transpile::Lang::Python));
  EXPECT_FALSE(transpile::is_identifier("int", transpile::Lang::Cpp));
}

TEST(Transpile, BlocksDeclareTheirOwnLabelsAndRegisters) {
  const std::string loop =
      "\t{\n\t.reg .pred P1;\n\twaitLoop:\n\tmbarrier.try_wait.parity.shared::cta.b64 P1, [%rd1], 0;\n"
      "\t@!P1 bra waitLoop;\n\t}\n";
  const std::string src = std::string(kHeader) + ".entry k()\n{\n\t.reg .b64 %rd<2>;\n\t.reg .b64 %tmp<2>;\n" + loop +
                          loop + "\t{\n\t.reg .u64 %tmp;\n\tadd.u64 %tmp, %tmp0, %tmp1;\n\t}\n\tret;\n}\n";
  const std::string cpp = cpp_of(src);
  // each block: its own label and predicate, declared inside it; %tmp0 stays the outer range's
  for (const char* want : {"lst::block([&] {\n      ptx::Label L_waitLoop = lst::label(\"waitLoop\");\n"
                           "      ptx::Reg P1 = lst::reg(DType::pred, \"P1\");",
                           "inst::bra[!P1](L_waitLoop);",
                           "lst::block([&] {\n      ptx::Label L_waitLoop_2 = lst::label(\"waitLoop\");\n"
                           "      ptx::Reg P1_2 = lst::reg(DType::pred, \"P1\");",
                           "inst::bra[!P1_2](L_waitLoop_2);", "ptx::Reg tmp_2 = lst::reg(DType::u64, \"%tmp\");",
                           "inst::add.u64(tmp_2, tmp[0], tmp[1]);"})
    EXPECT_NE(cpp.find(want), std::string::npos) << want << "\n" << cpp;
  EXPECT_NE(cpp.find(".validate = true"), std::string::npos) << cpp;
}

TEST(Transpile, InvalidModulesTurnTheCheckOff) {
  // the validator rejects this (an undeclared register); the listing must still re-emit it
  const std::string src = std::string(kHeader) + ".entry k()\n{\n\tadd.s32 %nope, %nope, 1;\n\tfrobnicate.u32 %nope;\n}\n";
  const std::string cpp = cpp_of(src);
  EXPECT_NE(cpp.find(".validate = false"), std::string::npos) << cpp;
  EXPECT_NE(cpp.find("lst::instruction(\"frobnicate.u32 %nope;\");"), std::string::npos) << cpp;
  EXPECT_NE(cpp.find("inst::add.s32(lst::operand(\"%nope\"), lst::operand(\"%nope\"), 1);"), std::string::npos) << cpp;
}

TEST(Transpile, NamesAreValidCxx) {
  EXPECT_TRUE(transpile::is_cxx_identifier("corpus_1"));
  EXPECT_FALSE(transpile::is_cxx_identifier("1abc"));
  EXPECT_FALSE(transpile::is_cxx_identifier("int"));
  EXPECT_FALSE(transpile::is_cxx_identifier("a-b"));
  EXPECT_FALSE(transpile::is_cxx_identifier(""));
  // registers named like C++ keywords or the generated code's own names get a suffix
  const std::string src = std::string(kHeader) + ".entry k()\n{\n\t.reg .b32 %int;\n\t.reg .b32 %m;\n\t.reg .b32 inst;\n"
                                                 "\tmov.u32 %int, %m;\n\tmov.u32 inst, 1;\n}\n";
  const std::string cpp = cpp_of(src);
  EXPECT_NE(cpp.find("ptx::Reg int_2 = lst::reg(DType::b32, \"%int\");"), std::string::npos) << cpp;
  EXPECT_NE(cpp.find("ptx::Reg m_2 = lst::reg(DType::b32, \"%m\");"), std::string::npos) << cpp;
  EXPECT_NE(cpp.find("ptx::Reg inst_2 = lst::reg(DType::b32, \"inst\");"), std::string::npos) << cpp;
  EXPECT_NE(cpp.find("inst::mov.u32(int_2, m_2);"), std::string::npos) << cpp;
}

TEST(Transpile, TextNeedingEscapesIsQuoted) {
  // a raw string cannot hold a carriage return safely, and ")ptx\"" would end it (a header
  // with a comment inside stays text)
  const std::string src = std::string(kHeader) + ".entry k( // )ptx\" inside\r\n)\r\n{\r\n\tret;\r\n}\r\n";
  const std::string cpp = cpp_of(src);
  EXPECT_NE(cpp.find("\\r\\n"), std::string::npos) << cpp;
  const std::string src2 = std::string(kHeader) + ".entry k( // )ptx\" inside\n)\n{\n\tret;\n}\n";
  EXPECT_NE(cpp_of(src2).find("R\"ptx1("), std::string::npos) << cpp_of(src2);
  // and so does a comment between the module's statements, quoted
  const std::string src3 = std::string(kHeader) + "// )ptx\" inside\n.entry k()\n{\n\tret;\n}\n";
  EXPECT_NE(cpp_of(src3).find("m.comment(\"// )ptx\\\" inside\");"), std::string::npos) << cpp_of(src3);
}

// The loop helpers write exactly the statements a back edge or a forward wait is made of.
TEST(Listing, LoopHelpersWriteTheBranches) {
  ptx::Listing m({.target = "sm_90a"});
  m.text(std::string(kHeader) + ".visible .entry k(.param .u64 p)\n");
  m.body([] {
    ptx::RegArray r = lst::regs(DType::b32, "%r", 3);
    ptx::RegArray p = lst::regs(DType::pred, "%p", 3);
    ptx::Label top = lst::label("$L__BB0_1"), spin = lst::label("$L__BB0_2");
    ptx::Label w = lst::label("W"), d = lst::label("D");
    inst::mov.u32(r[1], 0);
    lst::repeat_while(top, p[1], [&] {
      inst::add.s32(r[1], r[1], 1);
      inst::setp.lt.s32(p[1], r[1], 10);
    });
    lst::repeat_until(spin, p[2], [&] { inst::setp.ge.s32(p[2], r[1], 10); }, true);
    lst::wait_loop(w, d, p[0], [&] { inst::setp.ge.s32(p[0], r[1], 10); });
    inst::ret();
  });
  const std::string want = std::string(kHeader) + R"(.visible .entry k(.param .u64 p)
{
	.reg .b32 	%r<3>;
	.reg .pred 	%p<3>;
	mov.u32 	%r1, 0;
$L__BB0_1:
	add.s32 	%r1, %r1, 1;
	setp.lt.s32 	%p1, %r1, 10;
	@%p1 bra 	$L__BB0_1;
$L__BB0_2:
	setp.ge.s32 	%p2, %r1, 10;
	@!%p2 bra.uni 	$L__BB0_2;
W:
	setp.ge.s32 	%p0, %r1, 10;
	@%p0 bra 	D;
	bra.uni 	W;
D:
	ret;
}
)";
  const std::string got = m.ptx();
  EXPECT_EQ(got, canonical(want));
  if (have_ptxas()) {
    const PtxasResult r = run_ptxas(got, "sm_90a");
    EXPECT_TRUE(r.ok) << r.log << got;
  }
}

// --sugar: the same statements, written for a person to edit.
TEST(Transpile, SugarRaisesLoopsFoldsRepeatsAndUsesRanges) {
  std::string src = std::string(kHeader) + R"(
.visible .entry _Z4loopPfi(.param .u64 p)
{
	.reg .pred 	%p<3>;
	.reg .b32 	%r<20>;
	.reg .f32 	%f<20>;
	mov.u32 	%r1, 0;
$L__BB0_1:
	add.s32 	%r1, %r1, 1;
	setp.lt.s32 	%p1, %r1, 10;
	@%p1 bra 	$L__BB0_1;
	mov.f32 	%f2, %f1;
	mov.f32 	%f3, %f1;
	mov.f32 	%f4, %f1;
	mov.f32 	%f5, %f1;
	add.s32 	%r2, %r1, 4;
	add.s32 	%r3, %r1, 8;
	add.s32 	%r4, %r1, 12;
	mov.b32 	{%f1, %f2, %f3, %f4, %f5, %f6, %f7, %f8}, {%r1, %r2, %r3, %r4, %r5, %r6, %r7, %r8};
	{
	.reg .pred P;
	WAIT:
	setp.ge.s32 P, %r1, 10;
	@P bra DONE;
	bra.uni WAIT;
	DONE:
	}
	ret;
}
)";
  transpile::Options o;
  o.sugar = true;
  const std::string cpp = cpp_of(src, o);
  for (const char* want : {"// loop(float*, int)", "lst::repeat_while(bb1, p[1], [&] {",
                           "for (int i = 0; i < 4; ++i) {", "inst::mov.f32(f[2 + i], f[1]);",
                           "for (int i = 0; i < 3; ++i) {", "inst::add.s32(r[2 + i], r[1], 4 + 4 * i);",
                           "lst::wait_loop(WAIT, DONE, P, [&] {", "f.range(1, 8)", "r.range(1, 8)"})
    EXPECT_NE(cpp.find(want), std::string::npos) << want << "\n" << cpp;
  // without --sugar: none of it
  EXPECT_EQ(cpp_of(src).find("repeat_while"), std::string::npos);
  EXPECT_EQ(cpp_of(src).find("for (int"), std::string::npos);
}

// --sugar: literals that do not step evenly come from a table; address arithmetic
// is grouped above the access; mangled symbols get the names they demangle to.
TEST(Transpile, SugarTablesAddressGroupsAndSymbolNames) {
  const std::string src = std::string(kHeader) + R"(
.shared .align 4 .b8 _ZZ4tblsPfE4tile[64];
.visible .entry _Z4tblsPf(.param .u64 _Z4tblsPf_param_0)
{
	.reg .b32 	%r<40>;
	.reg .f32 	%f<40>;
	.reg .b64 	%rd<10>;
	ld.param.u64 	%rd1, [_Z4tblsPf_param_0];
	mov.u32 	%r1, %tid.x;
	mul.wide.u32 	%rd2, %r1, 4;
	add.s64 	%rd3, %rd1, %rd2;
	ld.global.f32 	%f1, [%rd3];
	mov.u32 	%r2, _ZZ4tblsPfE4tile;
	st.shared.f32 	[%r2], %f1;
	mov.f32 	%f10, %f21;
	mov.f32 	%f13, %f24;
	mov.f32 	%f11, %f22;
	mov.f32 	%f17, %f28;
	mov.f32 	%f12, %f23;
	mov.f32 	%f15, %f26;
	mov.f32 	%f14, %f25;
	mov.f32 	%f16, %f27;
	add.s32 	%r3, %r1, 1;
	add.s32 	%r4, %r3, %r3;
	st.shared.u32 	[%r2+4], %r4;
$L__BB0_7:
	ret;
}
)";
  transpile::Options o;
  o.sugar = true;
  const std::string cpp = cpp_of(src, o);
  for (const char* want :
       {"constexpr std::string_view param_0 = \"_Z4tblsPf_param_0\";", "inst::ld.param.u64(rd[1], ptx::addr(param_0));",
        "constexpr std::string_view tile = \"_ZZ4tblsPfE4tile\";", "inst::mov.u32(r[2], ptx::symbol(tile));",
        "{  // address for the ld.global.f32 below\n      inst::mul.wide.u32(rd[2], r[1], 4);\n"
        "      inst::add.s64(rd[3], rd[1], rd[2]);\n    }\n    inst::ld.global.f32(f[1], ptx::addr(rd[3]));",
        "constexpr int table[8] = {10, 13, 11, 17, 12, 15, 14, 16};", "inst::mov.f32(f[table[i]], f[table[i] + 11]);",
        "ptx::Label bb7 = lst::label(\"$L__BB0_7\");"})
    EXPECT_NE(cpp.find(want), std::string::npos) << want << "\n" << cpp;
  // %r3 is read twice (by the add and as its own operand): no group for the st.shared.u32
  EXPECT_EQ(cpp.find("address for the st.shared.u32"), std::string::npos) << cpp;
  // %r2 is read twice: the mov is not grouped with the first st.shared
  EXPECT_EQ(cpp.find("address for the st.shared.f32"), std::string::npos) << cpp;
}

}  // namespace
}  // namespace ptx::test
