// Vector operands, against the manual's definitions computed here in plain C++: .reg .v2/.v4
// registers whose elements (%v.x .y .z .w, or .r .g .b .a) are read and written as scalars, mov.v4
// between a vector register and a brace list in any order, device functions with .reg parameters
// of any type (.u16, .b64, .v2, .v4) and several results. The emulator kept one register for a
// whole vector (every element the same value) and refused .reg vector parameters.
#include <fmt/format.h>

#include <cstring>

#include "../unit/ptxas_util.hpp"
#include "emu_test_util.hpp"

namespace ptx::test {
namespace {

const char* kHeader = ".version 8.0\n.target sm_80\n.address_size 64\n\n";

void expect_assembles(const std::string& text) {
  if (!have_ptxas()) return;
  const auto as = run_ptxas(text, "sm_80");
  EXPECT_TRUE(as.ok) << as.log;
}

// Thread i reads in[4i .. 4i+3] and writes `outs` words at out[outs * i].
std::vector<uint32_t> run_threads(const std::string& text, const std::vector<uint32_t>& in, unsigned outs) {
  expect_assembles(text);
  EmuRun r;
  r.buffer(in, "in");
  const uint64_t out = r.buffer(std::vector<uint32_t>(in.size() / 4 * outs), "out");
  r.launch(text, "t", {1, 1, 1}, {static_cast<uint32_t>(in.size() / 4), 1, 1});
  return r.read<uint32_t>(out, in.size() / 4 * outs);
}

const std::vector<uint32_t> kIn = {10, 20, 30, 40, 0xdeadbeef, 0x12345678, 0xffffffff, 0, 7, 0x80000000, 3, 0x0001ffff};

// A vector register holds one value per element; mov.v4 copies element by element (a reversed
// brace list of the elements, into scalars); an element is a scalar operand (add into .y); .r .g
// .b .a name .x .y .z .w; a .v2 register packs (mov.b64) and unpacks (mov.b32 into .v2 .b16).
TEST(EmuVectorOperands, VectorRegistersAndTheirElements) {
  const std::string text = std::string(kHeader) + R"(.visible .entry t(.param .u64 in, .param .u64 out)
{
	.reg .b32 %r<12>;
	.reg .v4 .u32 %v<3>;
	.reg .v2 .u32 %w;
	.reg .v4 .f32 %f;
	.reg .v2 .b16 %h;
	.reg .b64 %rd<6>;
	ld.param.u64 %rd1, [in];
	ld.param.u64 %rd2, [out];
	mov.u32 %r11, %tid.x;
	mul.wide.u32 %rd3, %r11, 16;
	add.u64 %rd3, %rd1, %rd3;
	mul.wide.u32 %rd4, %r11, 64;
	add.u64 %rd4, %rd2, %rd4;
	ld.global.v4.u32 %v1, [%rd3];
	mov.v4.u32 %v2, {%v1.w, %v1.z, %v1.y, %v1.x};
	mov.v4.u32 {%r5, %r6, %r7, %r8}, %v2;
	add.u32 %v1.y, %v1.x, %v2.x;
	mov.v2.u32 %w, {%v1.y, %r6};
	mov.f32 %f.r, 0f3F800000;
	mov.b32 %f.g, %v1.z;
	add.f32 %f.b, %f.r, %f.r;
	mov.f32 %f.a, 0fBF800000;
	mov.v4.b32 %v0, %f;
	mov.b64 %rd5, %w;
	mov.b32 %h, %v1.x;
	mov.b32 %r9, {%h.y, %h.x};
	st.global.v4.u32 [%rd4], %v2;
	st.global.v2.u32 [%rd4+16], %w;
	st.global.u64 [%rd4+24], %rd5;
	st.global.v4.u32 [%rd4+32], %v0;
	st.global.v4.u32 [%rd4+48], {%r5, %r8, %r9, %v1.y};
	ret;
}
)";
  const auto got = run_threads(text, kIn, 16);
  for (size_t i = 0; i < kIn.size() / 4; ++i) {
    const uint32_t a = kIn[4 * i], b = kIn[4 * i + 1], c = kIn[4 * i + 2], d = kIn[4 * i + 3];
    const uint32_t want[16] = {
        d, c, b, a, a + d, c, a + d, c, 0x3f800000, c, 0x40000000, 0xbf800000, d, a, a << 16 | a >> 16, a + d};
    for (size_t k = 0; k < 16; ++k) EXPECT_EQ(got[16 * i + k], want[k]) << "thread " << i << " word " << k;
  }
}

// mov.v4 reads a whole .v4 special register (%tid, %ntid, %ctaid: x, y, z, and w, which is 0),
// as ptxas takes it. (The emulator moved %tid.x alone, or split one value into bytes.)
TEST(EmuVectorOperands, WholeSpecialRegisterVectors) {
  const std::string text = std::string(kHeader) + R"(.visible .entry t(.param .u64 out)
{
	.reg .v4 .u32 %v;
	.reg .b32 %r<8>;
	.reg .b64 %rd<4>;
	ld.param.u64 %rd1, [out];
	mov.v4.u32 %v, %tid;
	mov.v4.u32 {%r1, %r2, _, %r3}, %ntid;
	mov.v4.u32 {%r4, _, %r5, _}, %ctaid;
	mov.u32 %r6, %tid.w;
	mov.u32 %r7, %tid.y;
	mad.lo.u32 %r7, %r7, 4, %v.x;
	mov.u32 %r0, %ctaid.x;
	mad.lo.u32 %r7, %r0, 8, %r7;
	mul.wide.u32 %rd2, %r7, 32;
	add.u64 %rd2, %rd1, %rd2;
	st.global.v4.u32 [%rd2], %v;
	st.global.v4.u32 [%rd2+16], {%r1, %r2, %r3, %r4};
	ret;
}
)";
  expect_assembles(text);
  EmuRun r;
  const uint64_t out = r.buffer(std::vector<uint32_t>(16 * 8), "out");
  r.launch(text, "t", {2, 1, 1}, {4, 2, 1});
  const auto got = r.read<uint32_t>(out, 16 * 8);
  for (uint32_t c = 0; c < 2; ++c)
    for (uint32_t y = 0; y < 2; ++y)
      for (uint32_t x = 0; x < 4; ++x) {
        const uint32_t* w = &got[8 * (8 * c + 4 * y + x)];
        const uint32_t want[8] = {x, y, 0, 0, 4, 2, 0, c};
        for (int k = 0; k < 8; ++k) EXPECT_EQ(w[k], want[k]) << c << " " << y << " " << x << " word " << k;
      }
}

// .reg parameters of any type (.u16, .v2, .v4, .b64) and three results, one a vector:
// r0 = h + (u32)d, r1 = {v.x + q.w, v.y - q.z}, r2 = (u16)q.y + (u16)q.x.
TEST(EmuVectorOperands, RegisterParametersOfAnyTypeAndSeveralResults) {
  const std::string text =
      std::string(kHeader) +
      R"(.func (.reg .u32 r0, .reg .v2 .u32 r1, .reg .u16 r2) two(.reg .u16 h, .reg .v2 .u32 v, .reg .v4 .u32 q, .reg .b64 d)
{
	.reg .u32 %t;
	.reg .u16 %h9;
	cvt.u32.u16 r0, h;
	add.u32 r1.x, v.x, q.w;
	sub.u32 r1.y, v.y, q.z;
	cvt.u32.u64 %t, d;
	add.u32 r0, r0, %t;
	cvt.u16.u32 r2, q.y;
	cvt.u16.u32 %h9, q.x;
	add.u16 r2, r2, %h9;
	ret;
}

.visible .entry t(.param .u64 in, .param .u64 out)
{
	.reg .b32 %r<12>;
	.reg .v4 .u32 %q;
	.reg .v2 .u32 %w, %res;
	.reg .u16 %h, %h2;
	.reg .b64 %rd<6>;
	ld.param.u64 %rd1, [in];
	ld.param.u64 %rd2, [out];
	mov.u32 %r11, %tid.x;
	mul.wide.u32 %rd3, %r11, 16;
	add.u64 %rd3, %rd1, %rd3;
	mul.wide.u32 %rd4, %r11, 16;
	add.u64 %rd4, %rd2, %rd4;
	ld.global.v4.u32 %q, [%rd3];
	mov.v2.u32 %w, {%q.z, %q.x};
	cvt.u16.u32 %h, %r11;
	mul.wide.u32 %rd5, %q.y, 3;
	call (%r9, %res, %h2), two, (%h, %w, %q, %rd5);
	cvt.u32.u16 %r10, %h2;
	st.global.v4.u32 [%rd4], {%r9, %res.x, %res.y, %r10};
	ret;
}
)";
  const auto got = run_threads(text, kIn, 4);
  for (size_t i = 0; i < kIn.size() / 4; ++i) {
    const uint32_t a = kIn[4 * i], b = kIn[4 * i + 1], c = kIn[4 * i + 2], d = kIn[4 * i + 3];
    const uint64_t wide = uint64_t{b} * 3;
    EXPECT_EQ(got[4 * i], static_cast<uint32_t>(i) + static_cast<uint32_t>(wide)) << i;
    EXPECT_EQ(got[4 * i + 1], c + d) << i;  // v = {c, a}, q = {a, b, c, d}
    EXPECT_EQ(got[4 * i + 2], a - c) << i;
    EXPECT_EQ(got[4 * i + 3], static_cast<uint16_t>(static_cast<uint16_t>(b) + static_cast<uint16_t>(a))) << i;
  }
}

// Vector operands the emulator cannot make sense of are reported, naming what is wrong.
TEST(EmuVectorOperands, MisusedVectorsAreReported) {
  auto kernel = [](const std::string& decls, const std::string& body) {
    return std::string(kHeader) +
           ".visible .entry t()\n{\n\t.reg .b32 %r<4>;\n\t.reg .v2 .u32 %w;\n\t.reg .v4 .u32 %q;\n" + decls + body +
           "\tret;\n}\n";
  };
  const struct {
    std::string text, want;
  } cases[] = {
      {kernel("", "\tmov.u32 %r1, %w.z;\n"), "%w.z names no element of the .v2 register %w"},
      {kernel("", "\tmov.u32 %r1, %r2.x;\n"), "%r2.x names no element of a scalar register"},
      {kernel("", "\tadd.u32 %r1, %w.q, 1;\n"), "%w.q names no element"},
      {kernel("", "\tmov.v4.u32 %q, %w;\n"),
       "operand 2 of mov.v4 must be a vector of 4 elements (in braces, or a .v4 register); it has 2"},
      {kernel("\t.reg .b64 %a;\n", "\tld.global.v2.u32 %q, [%a];\n"),
       "operand 1 of ld.v2 must be a vector of 2 elements"},
      {kernel("", "\tld.global.u32 %r1, [%w];\n"), "%w is a .v2 register where a scalar is expected"},
  };
  for (const auto& c : cases) {
    const std::string report = unvalidated_report(c.text);
    EXPECT_NE(report.find(c.want), std::string::npos) << c.text << "\n" << report;
  }
}

// A call whose argument's shape differs from the parameter's is reported (ptxas refuses it too).
TEST(EmuVectorOperands, ArgumentOfAnotherShapeIsReported) {
  const std::string text = std::string(kHeader) + R"(.func (.reg .u32 r) f(.reg .v4 .u32 q)
{
	add.u32 r, q.x, q.w;
	ret;
}

.visible .entry t()
{
	.reg .v2 .u32 %w;
	.reg .u32 %r;
	mov.v2.u32 %w, {1, 2};
	call (%r), f, (%w);
	ret;
}
)";
  EXPECT_NE(unvalidated_report(text).find("call to f: argument 1 is a .v2 vector; the function's is a .v4 vector"),
            std::string::npos)
      << unvalidated_report(text);
}

}  // namespace
}  // namespace ptx::test
