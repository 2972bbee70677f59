// Typed declarations outside function bodies (listing_decls.hpp): what ptx::Listing
// writes for function headers, parameters, performance directives and module
// variables, their errors, and that the transpiler writes them as those calls
// (C++ and Python alike) instead of text. The Python side: python/tests/test_transpile.py.
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

// Canonical PTX (`ptxpp fmt`) with every typed declaration; python/tests/test_transpile.py has the same text.
const char* kModule = R"(.version 8.0
.target sm_90a
.address_size 64

.global .align 4 .b32 counter[4] = {1, 2, 3, 4};
.extern .shared .align 16 .b8 smem[];
.const .align 8 .u64 limit = 100;

.extern .func (.param .b32 func_retval0) vprintf(
	.param .b64 vprintf_param_0,
	.param .b64 vprintf_param_1
);

.func (.reg .b32 r) addone(
	.reg .b32 a
)
{
	add.s32 	r, a, 1;
	ret;
}

.visible .entry k(
	.param .u64 .ptr .global .align 16 p,
	.param .u32 n,
	.param .align 8 .b8 blob[16]
)
.maxntid 128, 1, 1
.minnctapersm 2
{
	.reg .b32 %r<2>;
	ld.param.u32 	%r1, [n];
	ret;
}
)";

// kModule written with the typed calls; `n`: the name of k's second parameter.
ptx::Listing module_with(const std::string& n) {
  ptx::Listing m({.target = "sm_90a", .validate = true, .version = "8.0"});
  m.blank_line();
  m.global(DType::b32, "counter", {.align = 4, .dims = {4}, .init = {1, 2, 3, 4}});
  m.shared(DType::b8, "smem", {.linkage = lst::Linkage::extern_, .align = 16, .dims = {0}});
  m.const_(DType::u64, "limit", {.align = 8, .init = {100}});
  m.func_decl("vprintf", {lst::param(DType::b32, "func_retval0")},
              {lst::param(DType::b64, "vprintf_param_0"), lst::param(DType::b64, "vprintf_param_1")},
              {.linkage = lst::Linkage::extern_});
  m.func("addone", {lst::reg_param(DType::b32, "r")}, {lst::reg_param(DType::b32, "a")}, [] {
    inst::add.s32(lst::reg_ref(DType::b32, "r"), lst::reg_ref(DType::b32, "a"), 1);
    inst::ret();
  });
  m.entry("k",
          {lst::param(DType::u64, "p", {.ptr = lst::ptr(lst::Space::global, 16)}), lst::param(DType::u32, n),
           lst::param(DType::b8, "blob", {.align = 8, .dims = {16}})},
          {.linkage = lst::Linkage::visible, .directives = {lst::maxntid(128, 1, 1), lst::minnctapersm(2)}}, [n] {
            ptx::RegArray r = lst::regs(DType::b32, "%r", 2);
            inst::ld.param.u32(r[1], ptx::addr(n));
            inst::ret();
          });
  return m;
}

TEST(ListingDeclarations, WriteTheirPtx) {
  EXPECT_EQ(module_with("n").ptx(), kModule);
  if (have_ptxas()) {
    const PtxasResult r = run_ptxas(kModule, "sm_90a");
    EXPECT_TRUE(r.ok) << r.log;
  }
}

TEST(ListingDeclarations, EditingAParameterNameChangesThePtx) {
  const std::string edited = module_with("count").ptx();
  std::string want = kModule;
  want.replace(want.find(".u32 n,"), 7, ".u32 count,");
  want.replace(want.find("[n]"), 3, "[count]");
  EXPECT_EQ(edited, want);
}

// The header options go first, or where m.header() is (after the comments that open a file).
TEST(ListingDeclarations, HeaderOptionsAndModuleComments) {
  ptx::Listing m({.target = "sm_80", .version = "7.8", .address_size = 32});
  m.comment("// made by hand");
  m.blank_line();
  m.header();
  m.blank_line();
  m.global(DType::u32, "x");
  m.trail("// one word");
  m.func("f", {}, {}, {.directives = {lst::noreturn()}}, [] { inst::trap(); });
  EXPECT_EQ(m.ptx(),
            "// made by hand\n\n.version 7.8\n.target sm_80\n.address_size 32\n\n.global .u32 x; // one word\n\n"
            ".func f()\n.noreturn\n{\n\ttrap;\n}\n");
  ptx::Listing first({.target = "sm_90a", .version = "8.0"});
  first.global(DType::u32, "x");
  EXPECT_EQ(first.ptx(), ".version 8.0\n.target sm_90a\n.address_size 64\n.global .u32 x;\n");
}

TEST(ListingDeclarations, ErrorsNameTheLine) {
  auto error_of = [](const std::function<void(ptx::Listing&)>& f) -> std::string {
    ptx::Listing m({.target = "sm_90a", .version = "8.0"});
    try {
      f(m);
      (void)m.ptx();
    } catch (const ptx::Error& e) {
      return e.what();
    }
    return "no error";
  };
  std::string e = error_of([](ptx::Listing& m) { m.entry("k", {lst::param(DType::none, "p")}, [] {}); });
  EXPECT_NE(e.find("parameter 'p': "), std::string::npos) << e;
  EXPECT_NE(e.find(" is not a type to declare"), std::string::npos) << e;
  EXPECT_NE(e.find("declarations_test.cpp:"), std::string::npos) << e;
  e = error_of([](ptx::Listing& m) { m.func("f", {}, {lst::param(DType::u64, "p", {.ptr = lst::ptr(8)})}, [] {}); });
  EXPECT_NE(e.find(".ptr is for kernel (.entry) parameters"), std::string::npos) << e;
  e = error_of([](ptx::Listing& m) { m.entry("k", {}, {.directives = {{lst::DirectiveKind::maxnreg, {}}}}, [] {}); });
  EXPECT_NE(e.find(".maxnreg takes 1 values, not 0"), std::string::npos) << e;
  e = error_of([](ptx::Listing& m) { m.var(lst::Space::reg, DType::b32, "x"); });
  EXPECT_NE(e.find("a module variable is not .reg"), std::string::npos) << e;
  e = error_of([](ptx::Listing& m) { m.global(DType::b32, "x", {.init = {1, 2}}); });
  EXPECT_NE(e.find("a scalar variable has one initial value"), std::string::npos) << e;
  e = error_of([](ptx::Listing& m) { m.entry("", {}, [] {}); });
  EXPECT_NE(e.find("the function needs a name"), std::string::npos) << e;
  e = error_of([](ptx::Listing& m) { m.header().header(); });
  EXPECT_NE(e.find("the header is written once"), std::string::npos) << e;
  ptx::Listing none({.target = "sm_90a"});
  EXPECT_THROW(none.header(), ptx::Error);
}

std::string transpiled(const std::string& src, transpile::Lang lang) {
  auto parsed = text::parse(src);
  EXPECT_TRUE(bool(parsed)) << (parsed ? "" : parsed.error().format());
  transpile::Options o;
  o.language = lang;
  return transpile::transpile(parsed.module(), src, o);
}

// kModule becomes the calls of module_with("n"): no header, parameter or variable is text.
TEST(TranspileDeclarations, AreTypedCallsInCpp) {
  const std::string cpp = transpiled(kModule, transpile::Lang::Cpp);
  for (const char* want : {
           "ptx::Listing m({.target = \"sm_90a\", .validate = true, .version = \"8.0\"});\n  m.blank_line();\n",
           "m.global(DType::b32, \"counter\", {.align = 4, .dims = {4}, .init = {1, 2, 3, 4}});",
           "m.shared(DType::b8, \"smem\", {.linkage = lst::Linkage::extern_, .align = 16, .dims = {0}});",
           "m.const_(DType::u64, \"limit\", {.align = 8, .init = {100}});",
           "m.func_decl(\"vprintf\", {lst::param(DType::b32, \"func_retval0\")}, {lst::param(DType::b64, "
           "\"vprintf_param_0\"), lst::param(DType::b64, \"vprintf_param_1\")}, {.linkage = lst::Linkage::extern_});",
           "m.func(\"addone\", {lst::reg_param(DType::b32, \"r\")}, {lst::reg_param(DType::b32, \"a\")}, [] {",
           "m.entry(\"k\", {lst::param(DType::u64, \"p\", {.ptr = lst::ptr(lst::Space::global, 16)}), "
           "lst::param(DType::u32, \"n\"), lst::param(DType::b8, \"blob\", {.align = 8, .dims = {16}})}, "
           "{.linkage = lst::Linkage::visible, .directives = {lst::maxntid(128, 1, 1), lst::minnctapersm(2)}}, [] {"})
    EXPECT_NE(cpp.find(want), std::string::npos) << want << "\n" << cpp;
  for (const char* text : {"m.text(", "m.stmt(", "m.body(", ".entry k", ".func (", ".global .", ".version 8", ".param ."})
    EXPECT_EQ(cpp.find(text), std::string::npos) << text << "\n" << cpp;
}

TEST(TranspileDeclarations, AreTypedCallsInPython) {
  const std::string py = transpiled(kModule, transpile::Lang::Python);
  for (const char* want : {
           "    m = Listing(target=\"sm_90a\", validate=True, version=\"8.0\")\n    m.blank_line()\n",
           "    m.global_(DType.b32, \"counter\", align=4, dims=[4], init=[1, 2, 3, 4])\n",
           "    m.shared(DType.b8, \"smem\", linkage=lst.Linkage.extern, align=16, dims=[0])\n",
           "    m.const(DType.u64, \"limit\", align=8, init=[100])\n",
           "    m.func_decl(\"vprintf\", [lst.param(DType.b32, \"func_retval0\")], [lst.param(DType.b64, "
           "\"vprintf_param_0\"), lst.param(DType.b64, \"vprintf_param_1\")], linkage=lst.Linkage.extern)\n",
           "    @m.func(\"addone\", [lst.reg_param(DType.b32, \"r\")], [lst.reg_param(DType.b32, \"a\")])\n    def _():\n",
           "    @m.entry(\"k\", [lst.param(DType.u64, \"p\", ptr=lst.ptr(lst.Space.global_, 16)), "
           "lst.param(DType.u32, \"n\"), lst.param(DType.b8, \"blob\", align=8, dims=[16])], "
           "linkage=lst.Linkage.visible, directives=[lst.maxntid(128, 1, 1), lst.minnctapersm(2)])\n    def _():\n"})
    EXPECT_NE(py.find(want), std::string::npos) << want << "\n" << py;
  for (const char* text : {"m.text(", "m.stmt(", "m.body", ".entry k", ".func (", ".global .", ".version 8", ".param ."})
    EXPECT_EQ(py.find(text), std::string::npos) << text << "\n" << py;
}

// What the typed calls cannot say stays text, and the round trip still holds (corpus tests):
// a .target with more than the target, an f32 initializer, a directive the calls have not (.pragma),
// a header with a comment inside. Comments before .version put the header after them.
TEST(TranspileDeclarations, WhatTheyCannotSayStaysText) {
  const std::string src = "// made by hand\n\n.version 8.0\n.target sm_90a, debug\n.address_size 64\n"
                          ".global .f32 one = 0f3F800000;\n.entry k() .pragma \"nounroll\"; { ret; }\n"
                          ".entry j( // no parameters\n) { ret; }\n";
  const std::string cpp = transpiled(src, transpile::Lang::Cpp);
  EXPECT_EQ(cpp.find(".version = "), std::string::npos) << cpp;
  for (const char* want : {"m.stmt(\".version 8.0\");",
                           "m.stmt(\".target sm_90a, debug\");", "m.stmt(\".global .f32 one = 0f3F800000;\");",
                           "m.text(\".entry k() .pragma \\\"nounroll\\\"; \");\n  m.body([] {",
                           "m.text(R\"ptx(.entry j( // no parameters\n) )ptx\");\n  m.body([] {"})
    EXPECT_NE(cpp.find(want), std::string::npos) << want << "\n" << cpp;
  const std::string abi = transpiled(std::string(kModule) + ".func f() .abi_preserve 4 .noreturn { trap; }\n", transpile::Lang::Cpp);
  EXPECT_NE(abi.find("m.func(\"f\", {}, {}, {.directives = {lst::abi_preserve(4), lst::noreturn()}}, [] {"), std::string::npos)
      << abi;
  const std::string header = transpiled("// made by hand\n\n" + std::string(kModule), transpile::Lang::Cpp);
  EXPECT_NE(header.find("m.comment(\"// made by hand\");\n  m.blank_line();\n  m.header();\n"), std::string::npos)
      << header;
}

}  // namespace
}  // namespace ptx::test
