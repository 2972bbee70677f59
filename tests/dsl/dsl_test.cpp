// The DSL: one call = one instruction, exact output, the rename rule, errors at the
// user's line, targets and versions, shared memory, debug info, caching.
#include <atomic>
#include <random>
#include <thread>

#include "dsl_test_util.hpp"

namespace ptx::test {
namespace {

TEST(Dsl, GoldenSmallKernel) {
  auto k = kernel("scale")
               .in(tensor(f32, {"N"}))
               .scalar("s", f32)
               .arch("sm_80")
               .block(128)
               .body([](Tensor x, Scalar s) {
                 Reg p = x.global_ptr();
                 Reg i = read(special::tid.x(), u32);
                 Reg a = p + i * 4;
                 Reg v(f32);
                 inst::ld.global.f32(v, addr(a));
                 v *= s.load();
                 inst::st.global.f32(addr(a, 0), v);
                 ret();
               });
  const std::string expected = R"(.version 7.0
.target sm_80
.address_size 64

.visible .entry scale(
	.param .u64 scale_param_0,
	.param .f32 scale_s
)
{
	.reg .f32 %f<3>;
	.reg .b32 %r<3>;
	.reg .b64 %rd<4>;
	ld.param.u64 	%rd1, [scale_param_0];
	cvta.to.global.u64 	%rd2, %rd1;
	mov.u32 	%r1, %tid.x;
	mul.lo.u32 	%r2, %r1, 4;
	mad.wide.u32 	%rd3, %r2, 1, %rd2;
	ld.global.f32 	%f1, [%rd3];
	ld.param.f32 	%f2, [scale_s];
	mul.rn.f32 	%f1, %f1, %f2;
	st.global.f32 	[%rd3], %f1;
	ret;
}
)";
  EXPECT_EQ(k.ptx({{"N", 1024}}), expected);
  expect_clean(k.ptx({{"N", 1024}}), "sm_80");
}

TEST(Dsl, OperatorsPickOpcodeAndTypeFromTheRegister) {
  auto t = trace_body([] {
    Reg a(s32), b(s32), u(u32), f(f32), d(f64), p(pred), q(pred);
    a = 1;
    b = -2;
    u = 3u;
    f = 1.5f;
    d = 0.25;
    p = a < b;
    q = u >= 4u;
    Reg r1 = a + b, r2 = a - b, r3 = a * b, r4 = a / b, r5 = a % b;
    Reg r6 = a << 3, r7 = a >> 1, r8 = u >> 1, r9 = a & b, r10 = a | b, r11 = a ^ b;
    Reg r12 = ~a, r13 = -a, r14 = f + f, r15 = f / f, r16 = d * d, r17 = f - 2, r18 = p & q;
    Reg r19 = f == f;
    (void)r1, (void)r2, (void)r3, (void)r4, (void)r5, (void)r6, (void)r7, (void)r8, (void)r9, (void)r10;
    (void)r11, (void)r12, (void)r13, (void)r14, (void)r15, (void)r16, (void)r17, (void)r18, (void)r19;
  });
  const std::vector<std::string> want = {
      "mov.s32 \t%r1, 1;",           "mov.s32 \t%r2, -2;",           "mov.u32 \t%r3, 3;",
      "mov.f32 \t%f1, 0f3FC00000;",  "mov.f64 \t%fd1, 0d3FD0000000000000;",
      "setp.lt.s32 \t%p1, %r1, %r2;",  // p = a < b: the setp writes p (the rename rule)
      "setp.ge.u32 \t%p2, %r3, 4;",
      "add.s32 \t%r4, %r1, %r2;",    "sub.s32 \t%r5, %r1, %r2;",     "mul.lo.s32 \t%r6, %r1, %r2;",
      "div.s32 \t%r7, %r1, %r2;",    "rem.s32 \t%r8, %r1, %r2;",     "shl.b32 \t%r9, %r1, 3;",
      "shr.s32 \t%r10, %r1, 1;",     "shr.u32 \t%r11, %r3, 1;",      "and.b32 \t%r12, %r1, %r2;",
      "or.b32 \t%r13, %r1, %r2;",    "xor.b32 \t%r14, %r1, %r2;",    "not.b32 \t%r15, %r1;",
      "neg.s32 \t%r16, %r1;",        "add.rn.f32 \t%f2, %f1, %f1;",  "div.rn.f32 \t%f3, %f1, %f1;",
      "mul.rn.f64 \t%fd2, %fd1, %fd1;", "sub.rn.f32 \t%f4, %f1, 0f40000000;", "and.pred \t%p5, %p1, %p2;",
      "setp.eq.f32 \t%p6, %f1, %f1;",
  };
  EXPECT_EQ(instructions_of(t->ptx), want) << t->ptx;
  expect_clean(t->ptx, "sm_90a");
}

TEST(Dsl, RenameRuleAssignsIntoTheDestination) {
  auto t = trace_body([] {
    Reg a(f32), b(f32);
    a = 1.0f;
    b = 2.0f;
    RegArray acc(f32, 2, "acc");
    acc[0] = a + b;     // the add writes %acc0 directly
    acc[1] = acc[0];    // an lvalue: mov
    Reg x = a * b;      // a new register holds the product
    x = x + a;          // renamed: add.rn.f32 %f4, %f4, %f1
    a = b;              // copy assignment: mov
    Reg y(f32);
    y = std::move(x);   // x is not what the last instruction wrote: mov
    Reg z(f32);
    z = y * y;          // renamed into z
  });
  const std::vector<std::string> want = {
      "mov.f32 \t%f1, 0f3F800000;",     "mov.f32 \t%f2, 0f40000000;", "add.rn.f32 \t%acc0, %f1, %f2;",
      "mov.f32 \t%acc1, %acc0;",        "mul.rn.f32 \t%f4, %f1, %f2;", "add.rn.f32 \t%f4, %f4, %f1;",
      "mov.f32 \t%f1, %f2;",       "mov.f32 \t%f6, %f4;",       "mul.rn.f32 \t%f7, %f6, %f6;",
  };
  EXPECT_EQ(instructions_of(t->ptx), want) << t->ptx;
  // every register used is declared (%f<7> covers %f3 and %f5, whose values were renamed away)
  expect_clean(t->ptx, "sm_90a");
}

TEST(Dsl, ReadsOfPackedAndHalfValuesUseBitMoves) {
  auto t = trace_body([] {
    Reg h = read(imm(b32, 0x3c003c00), f16x2);
    Reg b = read(imm(b16, 0x3c00), bf16);
    Reg u = read(special::laneid, u32);
    (void)h, (void)b, (void)u;
  });
  const std::vector<std::string> want = {"mov.b32 \t%hh1, 0x3c003c00;", "mov.b16 \t%h1, 0x3c00;", "mov.u32 \t%r1, %laneid;"};
  EXPECT_EQ(instructions_of(t->ptx), want) << t->ptx;
  expect_clean(t->ptx, "sm_90a");
}

TEST(Dsl, MixedWidthAddressArithmetic) {
  auto t = trace_body([] {
    Reg base(u64), off(u32), soff(s32);
    base = 0;
    off = 4u;
    soff = -4;
    Reg a = base + off;   // mad.wide.u32
    Reg b = base + soff;  // mad.wide.s32
    (void)a, (void)b;
  });
  const auto ins = instructions_of(t->ptx);
  ASSERT_EQ(ins.size(), 5u) << t->ptx;
  EXPECT_EQ(ins[3], "mad.wide.u32 \t%rd2, %r1, 1, %rd1;");
  EXPECT_EQ(ins[4], "mad.wide.s32 \t%rd3, %r2, 1, %rd1;");
  expect_clean(t->ptx, "sm_90a");
}

TEST(Dsl, ImmediatesAreExact) {
  auto t = trace_body([] {
    Reg f(f32), d(f64), i(s64), u(u64);
    inst::mov.f32(f, 0.1f);
    inst::mov.f64(d, 0.1);
    inst::mov.s64(i, INT64_MIN);
    inst::mov.u64(u, UINT64_MAX);
    inst::mov.b32(f, imm(b32, 0x7fc00000));
  });
  const std::vector<std::string> want = {
      "mov.f32 \t%f1, 0f3DCCCCCD;", "mov.f64 \t%fd1, 0d3FB999999999999A;",
      "mov.s64 \t%rd1, -9223372036854775808;", "mov.u64 \t%rd2, 18446744073709551615;",
      "mov.b32 \t%f1, 0x7fc00000;",
  };
  EXPECT_EQ(instructions_of(t->ptx), want) << t->ptx;
  expect_clean(t->ptx, "sm_90a");
}

TEST(Dsl, GuardsLabelsAndStructuredControlFlow) {
  auto t = trace_body([] {
    Reg i = read(special::tid.x(), u32);
    Reg p = i < 16u;
    Reg e = i == i;
    Reg ne = i != 3u;
    (void)e, (void)ne;
    Label skip("skip");
    inst::bra[p](skip);
    inst::add.u32[!p](i, i, 1);
    place(skip);
    if_(p, [&] { i += 2; }, [&] { i += 3; });
    loop(0u, 4u, 1, [&](const Reg& k) { i += k; });
    Reg n(u32);
    n = 0u;
    while_([&] { return n < 3u; }, [&] { n += 1; });
    ret();
  });
  const std::vector<std::string> want = {
      "mov.u32 \t%r1, %tid.x;", "setp.lt.u32 \t%p1, %r1, 16;", "setp.eq.u32 \t%p2, %r1, %r1;",
      "setp.ne.u32 \t%p3, %r1, 3;", "@%p1 bra \t$L__skip;", "@!%p1 add.u32 \t%r1, %r1, 1;",
      "@!%p1 bra \t$L__else;", "add.u32 \t%r1, %r1, 2;", "bra.uni \t$L__endif;", "add.u32 \t%r1, %r1, 3;",
      "mov.u32 \t%r2, 0;", "setp.ge.u32 \t%p4, %r2, 4;", "@%p4 bra \t$L__loop_end;", "add.u32 \t%r1, %r1, %r2;",
      "add.u32 \t%r2, %r2, 1;", "setp.lt.u32 \t%p4, %r2, 4;", "@%p4 bra \t$L__loop;", "mov.u32 \t%r3, 0;",
      "setp.lt.u32 \t%p5, %r3, 3;", "@!%p5 bra \t$L__while_end;", "add.u32 \t%r3, %r3, 1;", "bra.uni \t$L__while;",
      "ret;",
  };
  EXPECT_EQ(instructions_of(t->ptx), want) << t->ptx;
  for (const char* label : {"$L__skip:", "$L__else:", "$L__endif:", "$L__loop:", "$L__loop_end:", "$L__while:", "$L__while_end:"})
    EXPECT_NE(t->ptx.find(std::string("\n") + label + "\n"), std::string::npos) << label;
  expect_clean(t->ptx, "sm_90a");
}

// Promise 1: every instruction call and every operator adds exactly one instruction;
// helpers add exactly what they document. Random programs, counted call by call.
TEST(Dsl, OneCallOneInstructionProperty) {
  for (uint32_t seed = 1; seed <= 40; ++seed) {
    size_t expected = 0;
    auto t = trace_body([&] {
      std::mt19937 rng(seed);
      std::vector<Reg> ints, floats;
      ints.push_back(read(special::tid.x(), u32));
      floats.emplace_back(f32);
      floats.back() = 1.0f;
      expected = 2;
      auto pick = [&](std::vector<Reg>& v) -> Reg& { return v[rng() % v.size()]; };
      for (int step = 0; step < 60; ++step) {
        switch (rng() % 9) {
          case 0: ints.push_back(pick(ints) + pick(ints)); expected += 1; break;
          case 1: ints.push_back(pick(ints) * static_cast<uint32_t>(rng() % 100)); expected += 1; break;
          case 2: floats.push_back(pick(floats) * pick(floats)); expected += 1; break;
          case 3: pick(floats) += 0.5f; expected += 1; break;
          case 4: { Reg p = pick(ints) < pick(ints); (void)p; expected += 1; break; }
          case 5: inst::fma.rn.f32(pick(floats), pick(floats), pick(floats), pick(floats)); expected += 1; break;
          case 6: floats.push_back(warp::reduce(pick(floats))); expected += 10; break;
          case 7: ints.push_back(smem::swizzle(pick(ints), smem::Swizzle::B128)); expected += 3; break;
          case 8: { Reg c(pick(ints)); ints.push_back(std::move(c)); expected += 1; break; }  // copy = mov
        }
      }
    });
    EXPECT_EQ(instructions_of(t->ptx).size(), expected) << "seed " << seed;
    EXPECT_EQ(t->instructions, expected) << "seed " << seed;
    if (seed <= 3) expect_clean(t->ptx, "sm_90a");
  }
}

TEST(Dsl, WarpHelpersEmitTheirDocumentedSequences) {
  auto t = trace_body([] {
    Reg v(u64), w(s32);
    v = 5;
    w = 7;
    Reg s = warp::reduce(v);                     // 25
    Reg m = warp::reduce(w, warp::Reduce::Max);  // 10
    Reg b = warp::broadcast(m, 0);               // 1
    Reg bal = warp::ballot(b > 3);               // 2 (setp + vote)
    Reg any = warp::any(b > 3);                  // 2
    Reg mm = warp::match_any(s);                 // 1
    (void)bal, (void)any, (void)mm;
  });
  EXPECT_EQ(instructions_of(t->ptx).size(), 2u + 25 + 10 + 1 + 2 + 2 + 1) << t->ptx;
  expect_clean(t->ptx, "sm_90a");
}

TEST(Dsl, ElectOneIsSm90) {
  auto t = trace_body([] { (void)warp::elect_one(); });
  EXPECT_EQ(instructions_of(t->ptx), std::vector<std::string>{"elect.sync \t%r1|%p1, 0xffffffff;"});
  try {
    (void)trace_body([] { (void)warp::elect_one(); }, "sm_80");
    ADD_FAILURE() << "elect.sync accepted for sm_80";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("sm_90"), std::string::npos) << e.what();
  }
}

TEST(Dsl, SwizzleIsThreeInstructions) {
  auto t = trace_body([] {
    Reg off = read(special::tid.x(), u32);
    Reg s = smem::swizzle(off, smem::Swizzle::B64);
    (void)s;
  });
  const std::vector<std::string> want = {"mov.u32 \t%r1, %tid.x;", "shr.u32 \t%r2, %r1, 3;", "and.b32 \t%r3, %r2, 48;",
                                         "xor.b32 \t%r4, %r1, %r3;"};
  EXPECT_EQ(instructions_of(t->ptx), want);
}

TEST(Dsl, SharedMemoryStaticThenDynamicAbove48K) {
  auto small = trace_body([] {
    auto a = smem::alloc(f32, {64, 64}, 128);
    auto b = smem::alloc(bf16, {128}, 16);
    Reg v(f32);
    inst::ld.shared.f32(v, a.addr(8));
    Reg h(b16);
    inst::mov.b16(h, imm(b16, 0));
    inst::st.shared.b16(b.addr(2), h);
    Reg base = b.base();
    (void)base;
  });
  EXPECT_NE(small->ptx.find(".shared .align 128 .b8 smem[16384];"), std::string::npos) << small->ptx;
  EXPECT_NE(small->ptx.find(".shared .align 16 .b8 smem_2[256];"), std::string::npos) << small->ptx;
  EXPECT_EQ(small->static_smem_bytes, 16384u + 256u);
  EXPECT_EQ(small->dynamic_smem_bytes, 0u);
  expect_clean(small->ptx, "sm_90a");

  auto big = trace_body([] {
    auto a = smem::alloc(f32, {128, 128}, 1024, smem::Swizzle::B128);  // 64 KB
    auto b = smem::alloc(f32, {32}, 16);
    Reg v(f32);
    inst::ld.shared.f32(v, a.addr(4));
    inst::st.shared.f32(b.addr(0), v);
    Reg base = b.base();
    (void)base;
  });
  EXPECT_NE(big->ptx.find(".extern .shared .align 1024 .b8 dyn_smem[];"), std::string::npos) << big->ptx;
  EXPECT_NE(big->ptx.find("[dyn_smem+65536]"), std::string::npos) << big->ptx;
  EXPECT_NE(big->ptx.find("mov.u32 \t%r1, dyn_smem+65536;"), std::string::npos) << big->ptx;
  EXPECT_EQ(big->dynamic_smem_bytes, 65536u + 128u);
  EXPECT_EQ(big->static_smem_bytes, 0u);
  expect_clean(big->ptx, "sm_90a");
}

TEST(Dsl, SharedArraysIndexedWithRegisters) {
  const auto t = trace_body([] {
    auto partials = smem::alloc(f32, {8, 2});
    Reg warp = read(special::tid.x(), u32) >> 5;
    Reg acc(f32);
    partials[warp][1] = acc;        // mov.u32 a, smem; mad.lo.u32 a, warp, 8, a; st.shared.f32 [a+4], acc
    partials[3][0] = acc;           // constants only: st.shared.f32 [smem+24], acc
    Reg lane = read(special::laneid(), u32);
    [[maybe_unused]] Reg v = partials[lane][lane];   // two register indices: one mad each
    const smem::Index idx[] = {warp, 1};
    Reg w = partials.at(idx);
    partials[0][0] = w;
    ret();
  });
  const std::string body = t->ptx.substr(t->ptx.find("mov.u32"));
  EXPECT_NE(body.find("mov.u32 \t%r3, smem;\n\tmad.lo.u32 \t%r3, %r2, 8, %r3;\n\tst.shared.f32 \t[%r3+4], %f1;\n"
                      "\tst.shared.f32 \t[smem+24], %f1;\n\tmov.u32 \t%r4, %laneid;\n\tmov.u32 \t%r5, smem;\n"
                      "\tmad.lo.u32 \t%r5, %r4, 8, %r5;\n\tmad.lo.u32 \t%r5, %r4, 4, %r5;\n\tld.shared.f32 \t%f2, [%r5];\n"),
            std::string::npos)
      << t->ptx;
  expect_clean(t->ptx, "sm_90a");
}

TEST(DslErrors, SharedArrayIndices) {
  EXPECT_NE(error_of([] { smem::alloc(f32, {8, 2})[8]; }).find("index 8 is outside dimension 0 of the shared array (size 8)"), std::string::npos);
  EXPECT_NE(error_of([] { [[maybe_unused]] Reg v = smem::alloc(f32, {8, 2})[1]; }).find("a shared array of rank 2 accessed with 1 indices"), std::string::npos);
  EXPECT_NE(error_of([] { smem::alloc(f32, {8})[1][0]; }).find("2 indices for a shared array of rank 1"), std::string::npos);
  EXPECT_NE(error_of([] { smem::alloc(f32, {8})[Reg(s32)]; }).find("index register must be .u32 or .b32, not .s32"), std::string::npos);
  EXPECT_NE(error_of([] { [[maybe_unused]] Reg v = smem::alloc(u8, {8})[1]; }).find("16-, 32- or 64-bit elements, not .u8"), std::string::npos);
}

TEST(Dsl, DebugInfoMapsInstructionsToTheseLines) {
  int line_a = 0, line_b = 0;
  auto t = trace_body(
      [&] {
        Reg a(u32);
        line_a = __LINE__ + 1;
        inst::mov.u32(a, 1);
        line_b = __LINE__ + 1;
        inst::add.u32(a, a, 2);
      },
      "sm_90a", true);
  EXPECT_NE(t->ptx.find(".file 1 \"" + std::string(__FILE__) + "\""), std::string::npos) << t->ptx;
  EXPECT_NE(t->ptx.find(".loc 1 " + std::to_string(line_a) + " "), std::string::npos) << t->ptx;
  EXPECT_NE(t->ptx.find(".loc 1 " + std::to_string(line_b) + " "), std::string::npos) << t->ptx;
  expect_clean(t->ptx, "sm_90a");
}

TEST(Dsl, PtxVersionIsTheLowestNeeded) {
  auto plain = trace_body([] { ret(); }, "sm_90a");
  EXPECT_EQ(plain->ptx_version.major * 10 + plain->ptx_version.minor, 80);
  auto elect = trace_body([] {
    Reg r(u32), p(pred);
    inst::elect.sync(r, 0xffffffffu);
    inst::elect.sync(pair(r, p), 0xffffffffu);
  }, "sm_90a");
  EXPECT_EQ(elect->ptx_version.major * 10 + elect->ptx_version.minor, 80);
  auto cluster = trace_body([] { Reg r = read(special::cluster_ctarank, u32); (void)r; }, "sm_90a");
  EXPECT_GE(cluster->ptx_version.major * 10 + cluster->ptx_version.minor, 78);
  auto explicit_version = kernel("k").arch("sm_90a").ptx_version(8, 7).body([] { ret(); }).trace();
  EXPECT_EQ(explicit_version->ptx.substr(0, 13), ".version 8.7\n");
}

TEST(Dsl, DirectivesAndLaunchShape) {
  auto k = kernel("dirs")
               .arch("sm_90a")
               .block(128)
               .grid([](const Bindings& b) { return Dim3(static_cast<uint32_t>(b.at("M") / 128), 2); })
               .maxntid(128)
               .minnctapersm(2)
               .maxnreg(128)
               .explicitcluster()
               .reqnctapercluster(Dim3(2, 1, 1))
               .body([] { ret(); });
  auto t = k.trace({{"M", 1024}});
  EXPECT_EQ(t->grid, Dim3(8, 2));
  EXPECT_EQ(t->cluster, Dim3(2, 1, 1));
  for (const char* d : {".maxntid 128, 1, 1", ".minnctapersm 2", ".maxnreg 128", ".explicitcluster", ".reqnctapercluster 2, 1, 1"})
    EXPECT_NE(t->ptx.find(d), std::string::npos) << d << "\n" << t->ptx;
  expect_clean(t->ptx, "sm_90a");
}

TEST(Dsl, EscapeHatchIsValidated) {
  auto t = trace_body([] {
    Reg a(f32, "x");
    asm_("mov.f32 %x, 0f3F800000;");
    asm_("cp.async.bulk.commit_group;");
    (void)a;
  });
  EXPECT_NE(t->ptx.find("mov.f32 \t%x, 0f3F800000;"), std::string::npos) << t->ptx;
  expect_clean(t->ptx, "sm_90a");
  EXPECT_THROW(trace_body([] { asm_("frobnicate.u32 %r1, 2;"); }), Error);
  EXPECT_THROW(trace_body([] { asm_("add.u33 %r1, %r1, 2;"); }), Error);
  EXPECT_THROW(trace_body([] { asm_("add.u32 %r1, %r1"); }), Error);
  EXPECT_THROW(trace_body([] { asm_("cp.async.bulk.commit_group;"); }, "sm_80"), Error);
}

TEST(Dsl, TypedChainsOfModernInstructions) {
  auto t = trace_body([] {
    auto bar = smem::alloc(b64, {1}, 8);
    Reg count(u32), state(b64), done(pred), phase(u32);
    count = 1u;
    phase = 0u;
    inst::mbarrier.init.shared_cta.b64(bar.addr(), count);
    inst::mbarrier.arrive.shared_cta.b64(state, bar.addr());
    inst::mbarrier.try_wait.parity.shared_cta.b64(done, bar.addr(), phase);
    inst::fence.proxy.async.shared_cta();
    inst::barrier.cluster.arrive.relaxed();
    inst::barrier.cluster.wait();
    RegArray a(b32, 4, "a"), b(b32, 2, "b"), c(f32, 4, "c");
    inst::mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32(vec(c[0], c[1], c[2], c[3]), vec(a[0], a[1], a[2], a[3]),
                                                               vec(b[0], b[1]), vec(c[0], c[1], c[2], c[3]));
    inst::setmaxnreg.inc.sync.aligned.u32(240);
    inst::griddepcontrol.wait();
  });
  expect_clean(t->ptx, "sm_90a");
}

// ---- misuse: ptx::Error at the user's line -------------------------------------------------

template <class F>
Error error_of(F f) {
  try {
    f();
  } catch (const Error& e) {
    return e;
  }
  ADD_FAILURE() << "no ptx::Error";
  return Error("none", {});
}

TEST(DslErrors, OutsideATrace) {
  const int line = __LINE__ + 1;
  Error e = error_of([] { Reg r(u32); });
  EXPECT_EQ(e.where().line(), static_cast<uint32_t>(line));
  EXPECT_NE(std::string(e.what()).find("dsl_test.cpp"), std::string::npos) << e.what();
  EXPECT_NE(e.message().find("outside a kernel trace"), std::string::npos);
}

TEST(DslErrors, OperandKindOrTypeMismatch) {
  int line = 0;
  Error e = error_of([&] {
    trace_body([&] {
      Reg a(f32), b(u32);
      line = __LINE__ + 1;
      inst::add.u32(a, b, b);
    });
  });
  EXPECT_EQ(e.where().line(), static_cast<uint32_t>(line)) << e.what();
  EXPECT_NE(e.message().find("do not fit"), std::string::npos) << e.what();

  e = error_of([&] {
    trace_body([&] {
      Reg a(u32), b(u32);
      line = __LINE__ + 1;
      inst::ld.global.u32(a, b);  // a register where an address goes
    });
  });
  EXPECT_EQ(e.where().line(), static_cast<uint32_t>(line)) << e.what();

  e = error_of([&] {
    trace_body([&] {
      Reg a(f32), b(u32);
      line = __LINE__ + 1;
      Reg c = a + b;
      (void)c;
    });
  });
  EXPECT_EQ(e.where().line(), static_cast<uint32_t>(line)) << e.what();
  EXPECT_NE(e.message().find("types differ"), std::string::npos) << e.what();

  e = error_of([&] {
    trace_body([&] {
      Reg a(f32);
      line = __LINE__ + 1;
      Reg c = a + 16777217;  // no exact f32
      (void)c;
    });
  });
  EXPECT_EQ(e.where().line(), static_cast<uint32_t>(line)) << e.what();
}

// A register's DSL type fits the instruction type: no integer register for a float type and no
// float register for an integer type (ptxas would take both: they are declared .b32 / .b16); .bN
// registers, and .bN and packed instruction types, take any register of their size.
TEST(DslErrors, RegisterClassMustFitTheInstructionType) {
  int line = 0;
  Error e = error_of([&] {
    trace_body([&] {
      Reg f(f32), u(u32);
      line = __LINE__ + 1;
      inst::add.f32(f, u, f);
    });
  });
  EXPECT_EQ(e.where().line(), static_cast<uint32_t>(line)) << e.what();
  EXPECT_NE(e.message().find("do not fit"), std::string::npos) << e.what();

  e = error_of([&] {
    trace_body([&] {
      Reg h(f16), s(u16);
      line = __LINE__ + 1;
      inst::add.u16(s, h, s);  // an f16 register (declared .b16) in an integer instruction
    });
  });
  EXPECT_EQ(e.where().line(), static_cast<uint32_t>(line)) << e.what();

  e = error_of([&] {
    trace_body([&] {
      Reg h(f16), s(s16);
      line = __LINE__ + 1;
      inst::add.f16(h, h, s);
    });
  });
  EXPECT_EQ(e.where().line(), static_cast<uint32_t>(line)) << e.what();

  // .bN instruction types, packed types and .bN registers take any register of their size
  const auto t = trace_body([&] {
    Reg f(f32), u(u32), b(b32), hh(f16x2), bb(bf16x2);
    inst::mov.b32(f, u);
    inst::and_.b32(u, f, u);
    inst::add.f32(f, b, f);
    inst::add.u32(u, b, u);
    inst::add.rn.f16x2(hh, hh, u);
    inst::fma.rn.bf16x2(bb, u, bb, b);
    inst::add.s16x2(u, hh, b);
  });
  EXPECT_NE(t->ptx.find("add.rn.f16x2"), std::string::npos) << t->ptx;
  expect_clean(t->ptx, "sm_90a");
}

TEST(DslErrors, UndefinedAndDuplicateLabels) {
  int line = 0;
  Error e = error_of([&] {
    trace_body([&] {
      line = __LINE__ + 1;
      Label never("never");
      bra(never);
    });
  });
  EXPECT_EQ(e.where().line(), static_cast<uint32_t>(line)) << e.what();
  EXPECT_NE(e.message().find("never placed"), std::string::npos) << e.what();
  e = error_of([&] {
    trace_body([&] {
      Label l("twice");
      place(l);
      line = __LINE__ + 1;
      place(l);
    });
  });
  EXPECT_EQ(e.where().line(), static_cast<uint32_t>(line)) << e.what();
}

TEST(DslErrors, InstructionAboveTheTarget) {
  int line = 0;
  Error e = error_of([&] {
    trace_body([&] {
      Reg r(u32);
      line = __LINE__ + 1;
      inst::elect.sync(r, 0xffffffffu);
    }, "sm_80");
  });
  EXPECT_EQ(e.where().line(), static_cast<uint32_t>(line)) << e.what();
  EXPECT_NE(e.message().find("sm_90"), std::string::npos) << e.what();
  e = error_of([&] {
    trace_body([&] {
      line = __LINE__ + 1;
      Reg r = read(special::cluster_ctarank(), u32);
      (void)r;
    }, "sm_80");
  });
  EXPECT_EQ(e.where().line(), static_cast<uint32_t>(line)) << e.what();
  EXPECT_THROW(kernel("k").arch("sm_80").explicitcluster().body([] { ret(); }).trace(), Error);
  EXPECT_THROW(kernel("k").arch("sm_90a").ptx_version(7, 0).body([] { ret(); }).trace(), Error);
  EXPECT_THROW(kernel("k").arch("sm_42"), Error);
  EXPECT_THROW(kernel("bad name"), Error);
}

TEST(DslErrors, SharedMemoryOverTheTargetLimit) {
  int line = 0;
  Error e = error_of([&] {
    trace_body([&] {
      line = __LINE__ + 1;
      auto a = smem::alloc(f32, {1024, 60}, 16);  // 240 KB > 227 KB
      (void)a;
    });
  });
  EXPECT_EQ(e.where().line(), static_cast<uint32_t>(line)) << e.what();  // the allocation that went over
  EXPECT_EQ(e.message(), "this shared memory allocation (.f32[1024][60], 245760 bytes) brings the kernel to 245760 bytes; "
                         "sm_90a allows 232448") << e.what();
  EXPECT_THROW(trace_body([] { smem::alloc(f32, {64}, 3); }), Error);
  EXPECT_THROW(trace_body([] { smem::alloc(f32, {0}, 16); }), Error);
  EXPECT_THROW(trace_body([] { smem::alloc(f32, {64}, 16, smem::Swizzle::B128); }), Error);
}

TEST(DslErrors, RegistersOfAnotherTraceOrMovedFrom) {
  std::optional<Reg> leaked;
  trace_body([&] { leaked.emplace(u32); });
  EXPECT_THROW(trace_body([&] { Reg r = *leaked + 1; (void)r; }), Error);
  EXPECT_THROW(trace_body([] {
    Reg a(u32);
    Reg b = std::move(a);
    Reg c = a + 1;
    (void)b, (void)c;
  }), Error);
  EXPECT_THROW(trace_body([] {
    RegArray r(u32, 2);
    r[2] = 1u;
  }), Error);
  EXPECT_THROW(trace_body([] { Reg a(f32); Reg b = a % a; (void)b; }), Error);
  EXPECT_THROW(trace_body([] { Reg a(u32); inst::bra[a](Label("x")); }), Error);
}

TEST(DslErrors, BodyParametersMustMatchTheSpecs) {
  EXPECT_THROW(kernel("k").in(tensor(f32, {4})).body([](Scalar) {}).trace(), Error);
  EXPECT_THROW(kernel("k").in(tensor(f32, {4})).body([](Tensor, Tensor) {}).trace(), Error);
  EXPECT_THROW(kernel("k").in(tensor(f32, {"N"})).body([](Tensor t) { (void)t.dim(0); }).trace(), Error);
  EXPECT_THROW(kernel("nobody").trace(), Error);
  EXPECT_THROW(kernel("k").scalar("flag", pred), Error);  // predicates are not parameters: pass a .u32
}

// ---- caching and threads ---------------------------------------------------------------------

TEST(DslTrace, CachedPerBindingsAndThreadSafe) {
  std::atomic<int> traces{0};
  auto k = kernel("cached").in(tensor(f32, {"N"})).arch("sm_90a").body([&](Tensor x) {
    ++traces;
    for (int64_t i = 0; i < x.dim(0); ++i) {
      Reg r(u32);
      r = static_cast<uint32_t>(i);
    }
    ret();
  });
  auto a = k.trace({{"N", 4}});
  auto b = k.trace({{"N", 4}});
  EXPECT_EQ(a.get(), b.get());
  EXPECT_EQ(traces.load(), 1);
  auto c = k.trace({{"N", 5}});
  EXPECT_NE(a->ptx, c->ptx);

  std::vector<std::thread> threads;
  std::vector<std::string> results(8);
  for (int i = 0; i < 8; ++i)
    threads.emplace_back([&, i] { results[static_cast<size_t>(i)] = k.ptx({{"N", 10 + i % 4}}); });
  for (auto& th : threads) th.join();
  for (int i = 0; i < 8; ++i) EXPECT_EQ(results[static_cast<size_t>(i)], k.ptx({{"N", 10 + i % 4}}));
}

}  // namespace
}  // namespace ptx::test

namespace ptx::test {
namespace {

TEST(DslModule, KernelsFunctionsCallsAndVariables) {
  auto add1 = func("add1").ret(u32).param(u32).param(f32).body([](const FuncArgs& a) {
    Reg x = a.param(0);
    a.ret(x + 1);
  });
  auto twice = func("twice").ret(u32).param(u32).body([&](const FuncArgs& a) {
    Reg y = call(add1, {a.param(0), 1.0f});
    a.ret(call(add1, {y, 2.0f}));
  });
  auto store = func("store").param(u64).param(u32).body([](const FuncArgs& a) {
    Reg p = a.param(0), v = a.param(1);
    inst::st.global.u32(addr(p), v);
    ret();
  });
  auto k1 = kernel("first").in(tensor(u32, {32})).body([&](Tensor t) {
    Reg p = t.global_ptr();
    Reg v(u32);
    inst::ld.global.u32(v, addr(p));
    call(store, {p, call(twice, {v})});
    Reg f(f32);
    inst::ld.global.f32(f, addr("table", 4));
    ret();
  });
  auto k2 = kernel("second").body([] {
    Reg c(f32);
    inst::ld.const_.f32(c, addr("coeffs"));
    ret();
  });
  Module mod;
  mod.arch("sm_90a").global("table", f32, 4, {1, 2.5, 3}, 16).constant("coeffs", f32, 2, {0.5, -1}).add(add1).add(twice).add(store).add(k1).add(k2);
  const std::string text = mod.ptx();
  for (const char* s : {".global .align 16 .f32 table[4] = {0f3F800000, 0f40200000, 0f40400000};",
                        ".const .f32 coeffs[2] = {0f3F000000, 0fBF800000};",
                        "call.uni \t(retval_0), add1, (param_0_0, param_0_1);", "call.uni \tstore, (param_", ".visible .entry first(",
                        ".visible .entry second()"})
    EXPECT_NE(text.find(s), std::string::npos) << s << "\n" << text;
  expect_clean(text, "sm_90a");
}

// Module::trace: the whole module's text with one kernel's launch metadata (what running it needs).
TEST(DslModule, TraceOfOneKernelCarriesTheModule) {
  auto f = func("f").ret(u32).param(u32).body([](const FuncArgs& a) { a.ret(a.param(0) + 1); });
  auto k1 = kernel("first").in(tensor(u32, {"N"})).grid(Dim3(2)).block(Dim3(32)).body([&](Tensor t) {
    Reg p = t.global_ptr();
    inst::st.global.u32(addr(p), call(f, {7u}));
    ret();
  });
  auto k2 = kernel("second").scalar("x", f32).body([](Scalar) { ret(); });
  Module mod;
  mod.arch("sm_90a").add(f).add(k1).add(k2);
  const Bindings b{{"N", 64}};
  const auto t = mod.trace("first", b);
  EXPECT_EQ(t->ptx, mod.ptx(b));
  EXPECT_EQ(t->name, "first");
  EXPECT_EQ(t->target, "sm_90a");
  EXPECT_EQ(t->grid.x, 2u);
  EXPECT_EQ(t->block.x, 32u);
  ASSERT_EQ(t->params.size(), 1u);
  EXPECT_EQ(t->params[0].shape, std::vector<int64_t>{64});
  ASSERT_EQ(mod.trace("second", b)->params.size(), 1u);
  EXPECT_EQ(mod.trace("second", b)->params[0].name, "second_x");
  EXPECT_NE(thrown_by([&] { (void)mod.trace("third", b); }).find("the module has no kernel 'third'"), std::string::npos);
}

TEST(DslModule, Misuse) {
  auto f = func("f").ret(u32).param(u32).body([](const FuncArgs& a) { a.ret(a.param(0)); });
  EXPECT_THROW(trace_body([&] { Reg x(u32); Reg y = call(f, {x}); (void)y; }), Error);  // not in a module
  auto bad_args = kernel("k").body([&] { Reg x(u32); call(f, {x, x}); });
  EXPECT_THROW(Module().add(f).add(bad_args).ptx(), Error);
  auto bad_ret = func("g").ret(u32).body([](const FuncArgs& a) { Reg x(f64); a.ret(x); });
  EXPECT_THROW(Module().add(bad_ret).ptx(), Error);
  auto bad_param = func("h").param(u32).body([](const FuncArgs& a) { Reg x = a.param(1); (void)x; });
  EXPECT_THROW(Module().add(bad_param).ptx(), Error);
  EXPECT_THROW(func("1f"), Error);
  EXPECT_THROW(func("p").param(pred), Error);
  EXPECT_THROW(Module().arch("sm_1"), Error);
}

// A TMA descriptor parameter: declared 64-byte aligned, 128 bytes; `at` writes the
// tensor-coordinate operand of cp.async.bulk.tensor; ptxas takes the kernel.
TEST(Dsl, TensorMapParameters) {
  auto k = ptx::kernel("tma_load").tensor_map("a").arch("sm_90a").block(128).body([](ptx::TensorMapParam a) {
    auto tile = ptx::smem::alloc(bf16, {64, 64}, 128);
    auto bar = ptx::smem::alloc(b64, {1}, 8);
    ptx::Reg x(s32), y(s32), dst(u32), mb(u32);
    x = 0;
    y = 64;
    dst = tile.base();
    mb = bar.base();
    ptx::Reg map = a.generic_address();
    inst::cp.async.bulk.tensor._2d.shared_cluster.global.tile.mbarrier_complete_tx_bytes(ptx::addr(dst), ptx::tensor_coords(map, {x, y}),
                                                                                         ptx::addr(mb));
    ptx::ret();
  });
  const std::string text = k.ptx();
  EXPECT_NE(text.find(".param .align 64 .b8 tma_load_a[128]"), std::string::npos) << text;
  EXPECT_NE(text.find("mov.b64 \t%rd1, tma_load_a;"), std::string::npos) << text;
  EXPECT_NE(text.find("cvta.param.u64 \t%rd2, %rd1;"), std::string::npos) << text;
  EXPECT_NE(text.find("[%rd2, {%r1, %r2}]"), std::string::npos) << text;
  expect_clean(text, "sm_90a");
  EXPECT_EQ(k.trace()->params.at(0).is_tensor_map, true);
  // the body must take it as a TensorMapParam, and 1 to 5 coordinates
  auto wrong = ptx::kernel("w").tensor_map("a").arch("sm_90a").body([](ptx::Scalar) { ptx::ret(); });
  EXPECT_THROW((void)wrong.ptx(), Error);
  auto six = ptx::kernel("six").tensor_map("a").arch("sm_90a").body([](ptx::TensorMapParam a) {
    ptx::Reg m = a.generic_address();
    (void)ptx::tensor_coords(m, {1, 2, 3, 4, 5, 6});
  });
  EXPECT_THROW((void)six.ptx(), Error);
}

// Named tensors: the .param symbol is kernel_name, params() reports the declaration
// (what the torch/JAX interop builds signatures from), and ptxas takes the kernel.
TEST(Dsl, NamedParametersAndTheirSpecs) {
  auto k = ptx::kernel("named").in("x", tensor(f32, {"N"})).out("y", tensor(f32, {"N"})).scalar("alpha", f32).arch("sm_90a").block(32).body(
      [](Tensor x, Tensor y, Scalar alpha) {
        auto [px, py] = global_ptrs(x, y);
        Reg a = alpha.load();
        Reg v(f32);
        inst::ld.global.f32(v, addr(px));
        inst::mul.rn.f32(v, v, a);
        inst::st.global.f32(addr(py), v);
        ret();
      });
  const std::string text = k.ptx({{"N", 32}});
  EXPECT_NE(text.find(".param .u64 named_x"), std::string::npos) << text;
  EXPECT_NE(text.find(".param .u64 named_y"), std::string::npos) << text;
  expect_clean(text, "sm_90a");
  const std::vector<ParamSpec> p = k.params();
  ASSERT_EQ(p.size(), 3u);
  EXPECT_EQ(p[0].kind, ParamSpec::Kind::input);
  EXPECT_EQ(p[0].name, "x");
  EXPECT_EQ(p[0].spec.shape.at(0).symbol, "N");
  EXPECT_EQ(p[1].kind, ParamSpec::Kind::output);
  EXPECT_EQ(p[2].kind, ParamSpec::Kind::scalar);
  EXPECT_EQ(p[2].dtype, DType::f32);
  EXPECT_TRUE(ptx::kernel("unnamed").in(tensor(f32, {4})).params().at(0).name.empty());
}

TEST(DslErrors, ParameterNamesAreIdentifiersAndUnique) {
  int line = 0;
  Error e = error_of([&] {
    line = __LINE__ + 1;
    ptx::kernel("k").in("x", tensor(f32, {4})).scalar("x", f32);
  });
  EXPECT_EQ(e.where().line(), static_cast<uint32_t>(line)) << e.what();
  EXPECT_NE(e.message().find("kernel k: two parameters named 'x'"), std::string::npos) << e.what();
  e = error_of([&] {
    line = __LINE__ + 1;
    ptx::kernel("k").in("x-1", tensor(f32, {4}));
  });
  EXPECT_EQ(e.where().line(), static_cast<uint32_t>(line)) << e.what();
  EXPECT_NE(e.message().find("parameter name 'x-1' is not an identifier"), std::string::npos) << e.what();
  EXPECT_THROW(ptx::kernel("k").tensor_map(""), Error);
}

}  // namespace
}  // namespace ptx::test
