// The Ampere helpers (ptx::ampere): the exact PTX of each, the mma.sync fragment
// layouts against the ISA manual's figures, errors, ptxas acceptance for sm_80 and
// sm_90a, and the GEMM example's resources under ptxas -v.
#include <regex>
#include <set>

#include "../../examples/kernels/gemm_sm80.hpp"
#include "dsl_test_util.hpp"

namespace ptx::test {
namespace {

using namespace ptx::ampere;

const MmaForm kAllForms[] = {
    forms::m16n8k8_f16_f32,   forms::m16n8k16_f16_f32, forms::m16n8k8_bf16_f32,  forms::m16n8k16_bf16_f32,
    forms::m16n8k8_tf32_f32,  forms::m16n8k16_s8_s32,  forms::m16n8k32_s8_s32,   forms::m16n8k16_u8_s32,
    forms::m16n8k32_u8_s32,   forms::m16n8k16_e4m3_f32, forms::m16n8k32_e4m3_f32, forms::m16n8k16_e5m2_f32,
    forms::m16n8k32_e5m2_f32,
};

TEST(Ampere, FormsMnemonicsAndFragmentSizes) {
  EXPECT_EQ(forms::m16n8k16_bf16_f32.mnemonic(), "mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32");
  EXPECT_EQ(forms::m16n8k8_tf32_f32.mnemonic(), "mma.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32");
  EXPECT_EQ(forms::m16n8k32_s8_s32.mnemonic(), "mma.sync.aligned.m16n8k32.row.col.s32.s8.s8.s32");
  EXPECT_EQ(mma_form(Shape::m16n8k32, s8, u8, s32).mnemonic(), "mma.sync.aligned.m16n8k32.row.col.s32.s8.u8.s32");
  EXPECT_EQ(forms::m16n8k32_e4m3_f32.mnemonic(), "mma.sync.aligned.m16n8k32.row.col.f32.e4m3.e4m3.f32");
  // registers per lane: A, B, C (the manual's fragment tables)
  struct Want {
    MmaForm f;
    int a, b, c;
  };
  const Want want[] = {{forms::m16n8k8_f16_f32, 2, 1, 4},  {forms::m16n8k16_bf16_f32, 4, 2, 4}, {forms::m16n8k8_tf32_f32, 4, 2, 4},
                       {forms::m16n8k16_s8_s32, 2, 1, 4},  {forms::m16n8k32_u8_s32, 4, 2, 4},   {forms::m16n8k16_e5m2_f32, 2, 1, 4},
                       {forms::m16n8k32_e4m3_f32, 4, 2, 4}};
  for (const Want& w : want) {
    SCOPED_TRACE(w.f.mnemonic());
    EXPECT_EQ(w.f.registers(MmaOperand::A), w.a);
    EXPECT_EQ(w.f.registers(MmaOperand::B), w.b);
    EXPECT_EQ(w.f.registers(MmaOperand::C), w.c);
    EXPECT_EQ(w.f.registers(MmaOperand::D), w.c);
    EXPECT_EQ(w.f.register_type(MmaOperand::A), b32);
  }
  EXPECT_EQ(forms::m16n8k32_s8_s32.register_type(MmaOperand::C), s32);
  EXPECT_EQ(forms::m16n8k16_bf16_f32.register_type(MmaOperand::D), f32);
  EXPECT_EQ(forms::m16n8k32_e4m3_f32.min_sm(), 89);
  EXPECT_THROW(mma_form(Shape::m16n8k32, bf16, bf16, f32), Error);
  EXPECT_THROW(mma_form(Shape::m16n8k16, tf32, tf32, f32), Error);
  EXPECT_THROW(mma_form(Shape::m16n8k8, s8, s8, s32), Error);
  EXPECT_THROW(mma_form(Shape::m16n8k16, f16, bf16, f32), Error);
  EXPECT_THROW(mma_form(Shape::m16n8k16, s8, s8, f32), Error);
}

// The manual's fragment figures, written out the way the manual states them
// (groupID = laneid >> 2, threadID_in_group = laneid % 4), independently of the library.
RowCol manual_row_col(const MmaForm& f, MmaOperand op, int lane, int i) {
  const int groupID = lane >> 2, tig = lane % 4;
  if (op == MmaOperand::C || op == MmaOperand::D)  // c0..c3 (16x8): rows groupID for c0, c1, else groupID + 8
    return {i < 2 ? groupID : groupID + 8, tig * 2 + (i & 0x1)};
  const int w = f.element_bits(op);
  if (w == 16) {
    if (op == MmaOperand::A) {
      if (f.k() == 16)  // a0..a7: rows groupID for a0, a1, a4, a5; columns +8 for i >= 4
        return {(i < 2 || (i >= 4 && i < 6)) ? groupID : groupID + 8, i < 4 ? tig * 2 + (i & 0x1) : tig * 2 + (i & 0x1) + 8};
      return {i < 2 ? groupID : groupID + 8, tig * 2 + (i & 0x1)};  // a0..a3
    }
    if (f.k() == 16) return {i < 2 ? tig * 2 + (i & 0x1) : tig * 2 + (i & 0x1) + 8, groupID};  // b0..b3
    return {tig * 2 + (i & 0x1), groupID};                                                     // b0, b1
  }
  if (w == 32) {  // tf32 m16n8k8
    if (op == MmaOperand::A) return {(i == 0 || i == 2) ? groupID : groupID + 8, i < 2 ? tig : tig + 4};
    return {i == 0 ? tig : tig + 4, groupID};
  }
  // 8-bit
  if (op == MmaOperand::A) {
    if (f.k() == 32)  // a0..a15: rows groupID for a0..a3, a8..a11; columns +16 for i >= 8
      return {(i < 4 || (i >= 8 && i < 12)) ? groupID : groupID + 8, i < 8 ? tig * 4 + (i & 0x3) : tig * 4 + (i & 0x3) + 16};
    return {i < 4 ? groupID : groupID + 8, tig * 4 + (i & 0x3)};  // a0..a7
  }
  if (f.k() == 32) return {i < 4 ? tig * 4 + (i & 0x3) : tig * 4 + (i & 0x3) + 16, groupID};  // b0..b7
  return {tig * 4 + i, groupID};                                                               // b0..b3
}

TEST(Ampere, FragmentMapsFollowTheManualAndAreBijections) {
  for (const MmaForm& f : kAllForms)
    for (MmaOperand op : {MmaOperand::A, MmaOperand::B, MmaOperand::C, MmaOperand::D}) {
      SCOPED_TRACE(f.mnemonic() + " operand " + std::to_string(static_cast<int>(op)));
      const int rows = op == MmaOperand::B ? f.k() : f.m(), cols = op == MmaOperand::A ? f.k() : f.n();
      ASSERT_EQ(32 * f.elements(op), rows * cols);
      std::set<std::pair<int, int>> seen;
      for (int lane = 0; lane < 32; ++lane)
        for (int e = 0; e < f.elements(op); ++e) {
          const RowCol rc = fragment_row_col(f, op, lane, e);
          ASSERT_EQ(rc, manual_row_col(f, op, lane, e)) << "lane " << lane << " element " << e;
          ASSERT_TRUE(seen.insert({rc.row, rc.col}).second) << rc.row << "," << rc.col;
          const LaneElement le = fragment_lane_element(f, op, rc.row, rc.col);
          ASSERT_EQ(le, (LaneElement{lane, e})) << rc.row << "," << rc.col;
        }
      EXPECT_EQ(seen.size(), static_cast<size_t>(rows * cols));
    }
  EXPECT_THROW(fragment_row_col(forms::m16n8k16_bf16_f32, MmaOperand::A, 32, 0), Error);
  EXPECT_THROW(fragment_row_col(forms::m16n8k16_bf16_f32, MmaOperand::B, 0, 4), Error);
  EXPECT_THROW(fragment_lane_element(forms::m16n8k16_bf16_f32, MmaOperand::B, 0, 8), Error);
}

TEST(Ampere, MmaAndZeroEmitExactlyThis) {
  auto t = trace_body([] {
    const MmaForm f = forms::m16n8k16_bf16_f32;
    Fragment a(f, MmaOperand::A, "a"), b(f, MmaOperand::B, "b"), c(f, MmaOperand::C, "c");
    zero(c);
    mma(f, c, a, b, c);
    const MmaForm q = forms::m16n8k32_s8_s32;
    RegArray acc(s32, 8, "acc");
    Fragment qa(q, MmaOperand::A, "qa"), qb(q, MmaOperand::B, "qb");
    Fragment qc = Fragment::view(q, MmaOperand::C, acc, 0), qd = Fragment::view(q, MmaOperand::D, acc, 4);
    zero(qc);
    mma(q, qd, qa, qb, qc);
    const MmaForm t32 = forms::m16n8k8_tf32_f32;
    Fragment ta(t32, MmaOperand::A, "ta"), tb(t32, MmaOperand::B, "tb"), tc(t32, MmaOperand::C, "tc");
    mma(t32, tc, ta, tb, tc);
  }, "sm_80");
  const std::vector<std::string> want = {
      "mov.f32 \t%c0, 0f00000000;",
      "mov.f32 \t%c1, 0f00000000;",
      "mov.f32 \t%c2, 0f00000000;",
      "mov.f32 \t%c3, 0f00000000;",
      "mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32 \t{%c0, %c1, %c2, %c3}, {%a0, %a1, %a2, %a3}, {%b0, %b1}, {%c0, %c1, %c2, %c3};",
      "mov.s32 \t%acc0, 0;",
      "mov.s32 \t%acc1, 0;",
      "mov.s32 \t%acc2, 0;",
      "mov.s32 \t%acc3, 0;",
      "mma.sync.aligned.m16n8k32.row.col.s32.s8.s8.s32 \t{%acc4, %acc5, %acc6, %acc7}, {%qa0, %qa1, %qa2, %qa3}, {%qb0, %qb1}, {%acc0, %acc1, %acc2, %acc3};",
      "mma.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32 \t{%tc0, %tc1, %tc2, %tc3}, {%ta0, %ta1, %ta2, %ta3}, {%tb0, %tb1}, {%tc0, %tc1, %tc2, %tc3};",
  };
  EXPECT_EQ(instructions_of(t->ptx), want);
  EXPECT_NE(t->ptx.find(".reg .b32 %a<4>;"), std::string::npos) << t->ptx;
  EXPECT_NE(t->ptx.find(".reg .f32 %c<4>;"), std::string::npos) << t->ptx;
  expect_clean(t->ptx, "sm_80");
  expect_clean(t->ptx, "sm_90a");
}

TEST(Ampere, EveryFormAssembles) {
  for (const MmaForm& f : kAllForms)
    for (const char* arch : {"sm_80", "sm_90a"}) {
      SCOPED_TRACE(f.mnemonic() + " " + arch);
      const bool fp8 = f.min_sm() > 80;
      auto body = [f] {
        Fragment a(f, MmaOperand::A, "a"), b(f, MmaOperand::B, "b"), c(f, MmaOperand::C, "c");
        zero(c);
        mma(f, c, a, b, c);
      };
      if (fp8 && std::string(arch) == "sm_80") {  // e4m3/e5m2 need sm_89: an error at the call
        EXPECT_THROW(trace_body(body, arch), Error);
        continue;
      }
      const auto t = trace_body(body, arch);
      expect_clean(t->ptx, arch);
    }
}

// Two fragments of one name: the second array is %a_2_<4> (ptxas does not know the
// elements of an array whose name ends in a digit, such as %a_2<4> or %fa0<4>).
TEST(Ampere, ArraysWhoseNamesEndInADigitAssemble) {
  auto t = trace_body([] {
    const MmaForm f = forms::m16n8k16_bf16_f32;
    Fragment a(f, MmaOperand::A, "a"), a2(f, MmaOperand::A, "a"), a0(f, MmaOperand::A, "fa0");
    Fragment b(f, MmaOperand::B, "b"), c(f, MmaOperand::C, "c");
    zero(c);
    mma(f, c, a, b, c);
    mma(f, c, a2, b, c);
    mma(f, c, a0, b, c);
  }, "sm_80");
  EXPECT_NE(t->ptx.find(".reg .b32 %a_2_<4>;"), std::string::npos) << t->ptx;
  EXPECT_NE(t->ptx.find(".reg .b32 %fa0_<4>;"), std::string::npos) << t->ptx;
  EXPECT_NE(t->ptx.find("{%a_2_0, %a_2_1, %a_2_2, %a_2_3}"), std::string::npos) << t->ptx;
  expect_clean(t->ptx, "sm_80");
}

TEST(Ampere, MmaRefusesMismatchedFragments) {
  EXPECT_THROW(trace_body([] {
                 const MmaForm f = forms::m16n8k16_bf16_f32;
                 Fragment a(f, MmaOperand::A), b(f, MmaOperand::B), c(f, MmaOperand::C);
                 mma(f, c, b, a, c);  // A and B swapped
               }),
               Error);
  EXPECT_THROW(trace_body([] {
                 Fragment a(forms::m16n8k8_bf16_f32, MmaOperand::A), b(forms::m16n8k16_bf16_f32, MmaOperand::B),
                     c(forms::m16n8k16_bf16_f32, MmaOperand::C);
                 mma(forms::m16n8k16_bf16_f32, c, a, b, c);  // A of another shape
               }),
               Error);
  EXPECT_THROW(trace_body([] {
                 RegArray r(f32, 4);
                 (void)Fragment::view(forms::m16n8k16_bf16_f32, MmaOperand::A, r, 0);  // A takes .b32
               }),
               Error);
  EXPECT_THROW(trace_body([] {
                 RegArray r(f32, 6);
                 (void)Fragment::view(forms::m16n8k16_bf16_f32, MmaOperand::C, r, 4);  // past the end
               }),
               Error);
}

TEST(Ampere, LdmatrixStmatrixEmitExactlyThis) {
  auto t = trace_body([] {
    auto buf = smem::alloc(b16, {64, 64}, 128);
    Reg base = buf.base();
    Fragment a(forms::m16n8k16_bf16_f32, MmaOperand::A, "a"), b(forms::m16n8k16_bf16_f32, MmaOperand::B, "b");
    ldmatrix(a, base);
    ldmatrix(b, base, 256, true);
    std::vector<Reg> one = ldmatrix(1, base, 16);
    stmatrix(base, a.operands(), 512);
    stmatrix(base, {one[0]}, 0, true);
  });
  const std::vector<std::string> want = {
      "mov.u32 \t%r1, smem;",
      "ldmatrix.sync.aligned.m8n8.x4.shared.b16 \t{%a0, %a1, %a2, %a3}, [%r1];",
      "ldmatrix.sync.aligned.m8n8.x2.trans.shared.b16 \t{%b0, %b1}, [%r1+256];",
      "ldmatrix.sync.aligned.m8n8.x1.shared.b16 \t{%r2}, [%r1+16];",
      "stmatrix.sync.aligned.m8n8.x4.shared.b16 \t[%r1+512], {%a0, %a1, %a2, %a3};",
      "stmatrix.sync.aligned.m8n8.x1.trans.shared.b16 \t[%r1], {%r2};",
  };
  EXPECT_EQ(instructions_of(t->ptx), want);
  expect_clean(t->ptx, "sm_90a");
  // ldmatrix alone on sm_80; stmatrix needs sm_90
  auto t80 = trace_body([] {
    auto buf = smem::alloc(b16, {64, 64}, 128);
    Reg base = buf.base();
    (void)ldmatrix(4, base, 0, true);
  }, "sm_80");
  expect_clean(t80->ptx, "sm_80");
  EXPECT_THROW(trace_body([] {
                 auto buf = smem::alloc(b16, {64, 64}, 128);
                 Reg base = buf.base();
                 stmatrix(base, {base}, 0);
               }, "sm_80"),
               Error);
  EXPECT_THROW(trace_body([] {
                 auto buf = smem::alloc(b16, {64, 64}, 128);
                 Reg base = buf.base();
                 (void)ldmatrix(3, base);  // x3 does not exist
               }),
               Error);
  EXPECT_THROW(trace_body([] {
                 Reg p(u64);
                 (void)ldmatrix(4, p);  // a 64-bit address
               }),
               Error);
}

// The 8-, 6- and 4-bit forms of the sm_100a/sm_120a families: exact PTX, ptxas for both, and
// misuse named at trace time (wrong counts, B8 for m8n16, an older target).
TEST(Ampere, SubByteLdmatrixStmatrixEmitExactlyThis) {
  auto body = [] {
    auto buf = smem::alloc(b8, {64, 64}, 128);
    Reg base = buf.base();
    std::vector<Reg> a = ldmatrix_m16n16(2, base);
    (void)ldmatrix_m16n16(1, base, 32, LdmatrixSource::B6x16_P32);
    ldmatrix_m16n16({a[0], a[1]}, base, 0, LdmatrixSource::B4x16_P64);
    (void)ldmatrix_m8n16(4, base, LdmatrixSource::B4x16_P64, 64);
    ldmatrix_m8n16({a[2]}, base, LdmatrixSource::B6x16_P32);
    stmatrix_m16n8(base, {a[0], a[1], a[2], a[3]}, 512);
    stmatrix_m16n8(base, {a[3]});
  };
  const std::vector<std::string> want = {
      "mov.u32 \t%r1, smem;",
      "ldmatrix.sync.aligned.m16n16.x2.trans.shared.b8 \t{%r2, %r3, %r4, %r5}, [%r1];",
      "ldmatrix.sync.aligned.m16n16.x1.trans.shared.b8x16.b6x16_p32 \t{%r6, %r7}, [%r1+32];",
      "ldmatrix.sync.aligned.m16n16.x1.trans.shared.b8x16.b4x16_p64 \t{%r2, %r3}, [%r1];",
      "ldmatrix.sync.aligned.m8n16.x4.shared.b8x16.b4x16_p64 \t{%r8, %r9, %r10, %r11}, [%r1+64];",
      "ldmatrix.sync.aligned.m8n16.x1.shared.b8x16.b6x16_p32 \t{%r4}, [%r1];",
      "stmatrix.sync.aligned.m16n8.x4.trans.shared.b8 \t[%r1+512], {%r2, %r3, %r4, %r5};",
      "stmatrix.sync.aligned.m16n8.x1.trans.shared.b8 \t[%r1], {%r5};",
  };
  for (const char* arch : {"sm_100a", "sm_120a"}) {
    auto t = trace_body(body, arch);
    EXPECT_EQ(instructions_of(t->ptx), want) << arch;
    expect_clean(t->ptx, arch);
  }
  auto expect_error = [](const std::function<void()>& f, const std::string& says, const std::string& arch = "sm_100a") {
    try {
      (void)trace_body(f, arch);
      ADD_FAILURE() << "no error; wanted: " << says;
    } catch (const Error& e) {
      EXPECT_NE(std::string(e.what()).find(says), std::string::npos) << e.what();
    }
  };
  auto base = [] { return smem::alloc(b8, {1024}, 128).base(); };
  expect_error([&] { (void)ldmatrix_m16n16(4, base()); }, "moves 1 or 2 matrices, not 4");
  expect_error([&] {
    Reg r = base();
    ldmatrix_m16n16({r, r, r}, r);
  }, "two registers per matrix, 2 or 4 (one or two matrices), not 3");
  expect_error([&] { (void)ldmatrix_m8n16(1, base(), LdmatrixSource::B8); }, "loads packed rows only");
  expect_error([&] { (void)ldmatrix_m8n16(3, base(), LdmatrixSource::B6x16_P32); }, "ldmatrix .m8n16 moves 1, 2 or 4 matrices, not 3");
  expect_error([&] {
    Reg r = base();
    stmatrix_m16n8(r, {});
  }, "stmatrix .m16n8 moves 1, 2 or 4 matrices, not 0");
  expect_error([&] {
    Reg p(u64);
    (void)ldmatrix_m16n16(1, p);
  }, "32-bit shared-window address");
  // sm_90a has none of them: the validator names the target
  expect_error([&] { (void)ldmatrix_m16n16(1, base()); }, "sm_90a", "sm_90a");
  expect_error([&] { stmatrix_m16n8(base(), {base()}); }, "sm_90a", "sm_90a");
}

TEST(Ampere, CpAsyncEmitsExactlyThis) {
  auto t = kernel("k").in(tensor(b8, {"N"})).arch("sm_80").body([](Tensor x) {
    Reg g = x.global_ptr();
    auto buf = smem::alloc(b8, {1024}, 128);
    Reg s = buf.base();
    cp_async_16(addr(s, 32), addr(g, 64));
    Reg p = s < 16u;
    cp_async_16(buf.addr(16), addr(g), &p);
    cp_async_commit();
    cp_async_wait(1);
    cp_async_wait_all();
  }).trace({{"N", 1024}});
  const std::vector<std::string> want = {
      "ld.param.u64 \t%rd1, [k_param_0];",
      "cvta.to.global.u64 \t%rd2, %rd1;",
      "mov.u32 \t%r1, smem;",
      "cp.async.cg.shared.global \t[%r1+32], [%rd2+64], 16;",
      "setp.lt.u32 \t%p1, %r1, 16;",
      "@%p1 cp.async.cg.shared.global \t[smem+16], [%rd2], 16;",
      "cp.async.commit_group;",
      "cp.async.wait_group \t1;",
      "cp.async.wait_all;",
  };
  EXPECT_EQ(instructions_of(t->ptx), want);
  expect_clean(t->ptx, "sm_80");
  expect_clean(t->ptx, "sm_90a");
  EXPECT_THROW(trace_body([] { cp_async_wait(-1); }), Error);
  EXPECT_THROW(trace_body([] {
                 Reg r(u32);
                 cp_async_16(r, addr(r));  // not an address
               }),
               Error);
}

TEST(Ampere, CpAsyncRingCountsStagesAndGroups) {
  auto t = trace_body([] {
    CpAsyncRing ring(3, 8192);
    EXPECT_EQ(ring.write_offset(), 0u);
    ring.commit();  // tile 0
    EXPECT_EQ(ring.write_offset(), 8192u);
    ring.commit();  // tile 1
    for (int kt = 0; kt < 4; ++kt) {
      EXPECT_EQ(ring.read_offset(), static_cast<uint64_t>(kt % 3) * 8192);
      EXPECT_EQ(ring.write_offset(), static_cast<uint64_t>((kt + 2) % 3) * 8192);
      ring.wait();  // wait_group 1
      ring.commit();
      ring.release();
    }
    ring.wait();  // 2 in flight: wait_group 1
    ring.release();
    ring.wait();  // 1 in flight: wait_group 0
    ring.release();
    EXPECT_EQ(ring.in_flight(), 0);
  });
  const auto ins = instructions_of(t->ptx);
  const std::vector<std::string> want = {
      "cp.async.commit_group;", "cp.async.commit_group;",
      "cp.async.wait_group \t1;", "cp.async.commit_group;", "cp.async.wait_group \t1;", "cp.async.commit_group;",
      "cp.async.wait_group \t1;", "cp.async.commit_group;", "cp.async.wait_group \t1;", "cp.async.commit_group;",
      "cp.async.wait_group \t1;", "cp.async.wait_group \t0;"};
  EXPECT_EQ(ins, want);
  // a 4th group while 3 stages hold unreleased tiles; wait/release with nothing in flight
  EXPECT_THROW(trace_body([] {
                 CpAsyncRing ring(3, 1024);
                 for (int i = 0; i < 4; ++i) ring.commit();
               }),
               Error);
  EXPECT_THROW(trace_body([] {
                 CpAsyncRing ring(2, 1024);
                 ring.wait();
               }),
               Error);
  EXPECT_THROW(trace_body([] {
                 CpAsyncRing ring(2, 1024);
                 ring.release();
               }),
               Error);
  EXPECT_THROW(CpAsyncRing(1, 1024), Error);
  EXPECT_THROW(CpAsyncRing(3, 1000), Error);
}

// The GEMM's shared tiles: 128 rows of 64 bytes, 16-byte chunk c of row r stored at chunk
// c ^ ((r / 2) % 4) (smem::swizzle with Swizzle::B64: off ^ ((off >> 3) & 0x30)). Each
// ldmatrix phase reads 8 rows at one logical chunk; cp.async writes 8 consecutive chunks
// per quarter warp. Both touch eight different 16-byte bank groups of a 128-byte line.
TEST(Ampere, GemmSwizzleMakesLdmatrixAndCpAsyncConflictFree) {
  auto swz = [](uint32_t off) { return off ^ ((off >> 3) & 0x30); };
  for (uint32_t r0 = 0; r0 < 128; r0 += 8)
    for (uint32_t c = 0; c < 4; ++c) {
      std::set<uint32_t> groups;
      for (uint32_t r = r0; r < r0 + 8; ++r) groups.insert((swz(r * 64 + c * 16) / 16) % 8);
      EXPECT_EQ(groups.size(), 8u) << "rows " << r0 << "+, chunk " << c;
    }
  for (uint32_t t0 = 0; t0 < 256; t0 += 8) {  // thread t copies chunk t % 4 of row t / 4 (byte t * 16)
    std::set<uint32_t> groups;
    for (uint32_t t = t0; t < t0 + 8; ++t) groups.insert((swz(t * 16) / 16) % 8);
    EXPECT_EQ(groups.size(), 8u) << "threads " << t0 << "+";
  }
  // without the swizzle the ldmatrix rows collide four ways
  std::set<uint32_t> plain;
  for (uint32_t r = 0; r < 8; ++r) plain.insert((r * 64 / 16) % 8);
  EXPECT_EQ(plain.size(), 2u);
  // and the kernel uses exactly that swizzle: shr 3, and 0x30 (48), xor
  const auto t = examples::gemm_sm80("sm_80").trace({{"M", 128}, {"N", 128}, {"K", 32}});
  EXPECT_NE(t->ptx.find("and.b32 \t%r12, %r11, 48;"), std::string::npos);
}

TEST(Ampere, GemmRefusesShapesThatAreNotTileMultiples) {
  for (const Bindings& b : {Bindings{{"M", 100}, {"N", 128}, {"K", 64}}, Bindings{{"M", 128}, {"N", 130}, {"K", 64}},
                            Bindings{{"M", 128}, {"N", 128}, {"K", 48}}}) {
    try {
      (void)examples::gemm_sm80("sm_80").trace(b);
      ADD_FAILURE() << "no error";
    } catch (const Error& e) {
      EXPECT_NE(std::string(e.what()).find("must be multiples of 128 and K of 32"), std::string::npos) << e.what();
    }
  }
}

// ptxas -v on the GEMM for sm_80: registers within the 255 a 256-thread CTA allows, no
// spills, the 48 KB of shared memory of the 3-stage ring.
TEST(Ampere, GemmResourcesUnderPtxas) {
  if (!have_ptxas()) GTEST_SKIP() << "ptxas not found";
  for (const char* arch : {"sm_80", "sm_90a"}) {
    SCOPED_TRACE(arch);
    const auto t = examples::gemm_sm80(arch).trace({{"M", 4096}, {"N", 4096}, {"K", 4096}});
    const auto r = run_ptxas(t->ptx, arch, "-v");
    ASSERT_TRUE(r.ok) << r.log;
    std::smatch m;
    ASSERT_TRUE(std::regex_search(r.log, m, std::regex("Used (\\d+) registers"))) << r.log;
    const int regs = std::stoi(m[1]);
    EXPECT_LE(regs, 255) << r.log;
    EXPECT_GE(regs, 64 + 24) << r.log;  // the accumulators and fragments are live
    EXPECT_NE(r.log.find("0 bytes spill stores, 0 bytes spill loads"), std::string::npos) << r.log;
    EXPECT_NE(r.log.find("49152 bytes smem"), std::string::npos) << r.log;
    std::cout << "[ gemm_sm80 " << arch << " ] ptxas -v: " << regs << " registers, 0 spills, 49152 bytes smem\n";
  }
}

}  // namespace
}  // namespace ptx::test
