#include <gtest/gtest.h>

#include "test_util.hpp"

using ptx::test::canonical;
using ptx::test::exact;
using ptx::test::kernel;

namespace {

TEST(Printer, ExactReproducesOddLayout) {
  const char* inputs[] = {
      "",
      "   \n\t// only a comment",
      ".version 9.0 // trailing, no newline at end",
      ".version   9.0\r\n.target\tsm_90a ,debug\r\n",
      ".visible .entry k ( .param .u64 .ptr .global .align 16 p )\n.maxntid 256 , 1,1\n{\n  @ ! %p1  bra  L ;\n L : ret ;\n}\n",
      ".global .u32 a [ 2 ] [ 3 ] = { { 1 , 2 , 3 } , { 4 , 5 , 6 } } ;\n",
      ".global .u64 g = generic ( x ) + 0xFF00 ( y ) * -( 3 << 2 ) ;",
      ".entry k() { ld.global.f32 %f1, [ %rd1 + -4 ]; st.shared.v2.u32 [ s + 8 ], { %r1 , _ }; }",
      ".entry k() { mov.u32 %r1, /* a */ %tid.x /* b */ ; // c\n}",
      ".entry k() { call.uni (retval0), \n\tf, \n\t(\n\tparam0, \n\tparam1\n\t);\n}",
      ".entry k() { x: .callprototype ()_ (.param .b64 _); y : .branchtargets a , b ; }",
      ".entry k() { x: .callprototype _ (.param .b32 _) .noreturn .abi_preserve 8 ; .alias g, f; }",
      ".section\t.debug_str\n\t{\n$L__info_string0:\n.b8 95,90,0\n\n\t}",
      ".entry k() { mov.u32 %r1, 0b1010U; mov.u32 %r2, 0017; mov.u64 %rd1, 0XABCDEFU; mov.f64 %fd1, 0D3ff0000000000000; mov.f32 %f1, 1.50e+00; }",
      ".entry k() { add .s32 %r1, %r2, %r3; }",
      ".entry k() .maxnctapersm 4 .abi_preserve 8 .abi_preserve_control 2 .blocksareclusters { ret; }",
      ".alias a , b ;\n.weak .func b() { ret; }\n.common .global .align 8 .b8 c[8];",
      ".global .f32 f[2] = {0f3f800000, 0F3F800000};",
      ".file 1 \"a\\\"b.cu\"\n.file 2 \"c.cu\", 1, 2",
      ".entry k() { .loc\t1 1 73, function_name $L__info_string0, inlined_at 1 2 30\n ret; }",
  };
  for (const char* in : inputs) EXPECT_EQ(exact(in), in);
}

TEST(Printer, CanonicalLayout) {
  const std::string in =
      ".version 9.0\n.target sm_90a\n.address_size 64\n"
      ".visible .entry k(.param .u64 p, .param .u32 n) .maxntid 128 .minnctapersm 2 {\n"
      "  .reg .b32 %r<4>;   .reg .pred %p;\n"
      "@%p   bra   L1;\n"
      "L1:  ld.param.u64   %rd1,[p];\n"
      "{ .param .b32 q; call.uni (r),\n f,\n (q); }\n"
      "  ret;\n}\n";
  const std::string want =
      ".version 9.0\n.target sm_90a\n.address_size 64\n\n"
      ".visible .entry k(\n\t.param .u64 p,\n\t.param .u32 n\n)\n.maxntid 128\n.minnctapersm 2\n{\n"
      "\t.reg .b32 %r<4>;\n\t.reg .pred %p;\n"
      "\t@%p bra \tL1;\n"
      "L1:\n\tld.param.u64 \t%rd1, [p];\n"
      "\t{\n\t\t.param .b32 q;\n\t\tcall.uni \t(r), f, (q);\n\t}\n"
      "\tret;\n}\n";
  EXPECT_EQ(canonical(in), want);
  EXPECT_EQ(canonical(want), want);
}

TEST(Printer, CanonicalKeepsCommentsAndOneBlankLine) {
  const std::string in =
      "//\n// header\n//\n\n\n.version 9.0 // v\n.target sm_90a\n\n\n\n/* block */ .address_size 64\n"
      ".entry k()\n{\n\tmov.u32 %r1, // why\n %r2;\n\n\n\t// own line\n\tret; /* end */\n}\n// tail\n";
  const std::string want =
      "//\n// header\n//\n\n.version 9.0 // v\n.target sm_90a\n\n/* block */\n.address_size 64\n\n"
      ".entry k()\n{\n\tmov.u32 \t%r1, // why\n\t\t%r2;\n\n\t// own line\n\tret; /* end */\n}\n// tail\n";
  EXPECT_EQ(canonical(in), want);
  EXPECT_EQ(canonical(want), want);
}

TEST(Printer, CanonicalIsAFixpointOnOddInputs) {
  const char* inputs[] = {
      ".version 9.0 /* a */ /* b */",
      "// only comment",
      ".entry k() { mov.u32 %r1, /* a */ %tid.x /* b */ ; // c\n}",
      ".entry k() { ld.global.f32 %f1, [ /* x */ %rd1 + /* y */ 4 /* z */ ]; }",
      ".global .u32 a[2] = { // first\n 1, /* second */ 2 };",
      ".entry k() /* before body */ { } // after",
      ".entry k() { L: // label comment\n ret; }",
      ".entry k() { @ /*g*/ %p bra L; }",
      ".entry k() { mov.u32 %r1, 1 /* x */ // y\n ; }",
  };
  for (const char* in : inputs) {
    const std::string once = canonical(in);
    EXPECT_EQ(canonical(once), once) << in;
  }
}

TEST(Printer, PrintExprAndStmt) {
  auto m = ptx::test::parse_ok(kernel("ld.global.f32 %f1, [%rd1 + 4];"));
  const auto& body = m.blocks[m.functions[0].body];
  EXPECT_EQ(ptx::text::print_stmt(m, body.stmts[0]), "ld.global.f32 \t%f1, [%rd1+4];");
  EXPECT_EQ(ptx::text::print_expr(m, m.operand(m.instructions[0], 1)), "[%rd1+4]");
}

}  // namespace
