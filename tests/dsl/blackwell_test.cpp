// The Blackwell helpers (ptx::blackwell): the exact PTX of each, ptxas acceptance for
// sm_100a, the instruction and shared-memory descriptor bit fields against values worked
// out by hand from the ISA manual's tables, the tcgen05.ld/st fragment maps, and the errors.
#include <regex>
#include <set>

#include "dsl_test_util.hpp"

namespace ptx::test {
namespace {

using namespace ptx::blackwell;

// The error tracing `body` for sm_100a gives.
std::string sm100_error_of(const std::function<void()>& body) { return error_of(body, "sm_100a"); }

TEST(Blackwell, TensorMemoryAllocationEmitsExactlyItsInstructions) {
  auto t = trace_body(
      [] {
        auto slot = ptx::smem::alloc(u32, {1}, 16);
        tmem_alloc(slot.addr(0), 256);
        tmem_relinquish_alloc_permit();
        ptx::Reg taddr(b32);
        inst::ld.shared.b32(taddr, slot.addr(0));
        tmem_dealloc(taddr, 256);
      },
      "sm_100a");
  EXPECT_EQ(listing_of(t->ptx),
            "tcgen05.alloc.cta_group::1.sync.aligned.shared::cta.b32 \t[smem], 256;\n"
            "tcgen05.relinquish_alloc_permit.cta_group::1.sync.aligned;\n"
            "ld.shared.b32 \t%r1, [smem];\n"
            "tcgen05.dealloc.cta_group::1.sync.aligned.b32 \t%r1, 256;\n");
  expect_clean(t->ptx, "sm_100a");
  // ptxas refuses a function with both CTA groups: the pair's own kernel
  auto t2 = trace_body(
      [] {
        auto slot = ptx::smem::alloc(u32, {1}, 16);
        tmem_alloc(slot.addr(0), 32, CtaGroup::Two);
        tmem_relinquish_alloc_permit(CtaGroup::Two);
        ptx::Reg taddr(b32);
        inst::ld.shared.b32(taddr, slot.addr(0));
        tmem_dealloc(taddr, 512, CtaGroup::Two);
      },
      "sm_100a");
  EXPECT_EQ(listing_of(t2->ptx),
            "tcgen05.alloc.cta_group::2.sync.aligned.shared::cta.b32 \t[smem], 32;\n"
            "tcgen05.relinquish_alloc_permit.cta_group::2.sync.aligned;\n"
            "ld.shared.b32 \t%r1, [smem];\n"
            "tcgen05.dealloc.cta_group::2.sync.aligned.b32 \t%r1, 512;\n");
  expect_clean(t2->ptx, "sm_100a");
  EXPECT_NE(sm100_error_of([] {
              auto slot = ptx::smem::alloc(u32, {1}, 16);
              tmem_alloc(slot.addr(0), 32);
              tmem_relinquish_alloc_permit(CtaGroup::Two);
            }).find("tcgen05: this kernel already uses .cta_group::1; ptxas refuses a function that mixes"),
            std::string::npos);
  EXPECT_EQ(tmem_address(0, 0), 0u);
  EXPECT_EQ(tmem_address(32, 128), 0x200080u);
  EXPECT_EQ(tmem_address(127, 511), 0x7F01FFu);
}

TEST(Blackwell, TensorMemoryColumnCountsAreCheckedAtTraceTime) {
  for (uint32_t bad : {0u, 16u, 48u, 96u, 1024u}) {
    EXPECT_NE(sm100_error_of([bad] { tmem_alloc(ptx::smem::alloc(u32, {1}, 16).addr(0), bad); })
                  .find("tcgen05.alloc: " + std::to_string(bad) + " columns is not a power of 2 in [32, 512]"),
              std::string::npos);
    EXPECT_NE(sm100_error_of([bad] {
                ptx::Reg r(b32);
                tmem_dealloc(r, bad);
              }).find("tcgen05.dealloc: " + std::to_string(bad) + " columns"),
              std::string::npos);
  }
  for (uint32_t good : {32u, 64u, 128u, 256u, 512u})
    EXPECT_EQ(sm100_error_of([good] { tmem_alloc(ptx::smem::alloc(u32, {1}, 16).addr(0), good); }), "no error");
  EXPECT_NE(sm100_error_of([] { tmem_alloc(ptx::Operand(4), 32); }).find("the destination is a shared address"), std::string::npos);
  EXPECT_NE(sm100_error_of([] {
              ptx::Reg r(f32);
              tmem_dealloc(r, 32);
            }).find("is a 32-bit integer register, not .f32"),
            std::string::npos);
  EXPECT_THROW((void)tmem_address(128, 0), Error);
  EXPECT_THROW((void)tmem_address(0, 512), Error);
}

// Expected values worked out by hand from the manual's instruction-descriptor table.
TEST(Blackwell, InstructionDescriptorBitFields) {
  // bf16 x bf16 -> f32, M 128, N 256: D 1<<4, A 1<<7, B 1<<10, N/8 = 32 at 17, M/16 = 8 at 24
  EXPECT_EQ(bf16_f32(128, 256).bits(), 0x08400490u);
  InstrDescriptor f16{.kind = MmaKind::F16, .a = MmaType::f16, .b = MmaType::f16, .d = AccType::f16, .m = 64, .n = 8};
  f16.transpose_b = true;
  EXPECT_EQ(f16.bits(), 0x04030000u);
  InstrDescriptor tf32{.kind = MmaKind::TF32, .a = MmaType::tf32, .b = MmaType::tf32, .m = 128, .n = 128};
  tf32.negate_a = true;
  EXPECT_EQ(tf32.bits(), 0x08202910u);
  InstrDescriptor f4{.kind = MmaKind::F8F6F4, .a = MmaType::e2m1, .b = MmaType::e4m3, .m = 256, .n = 256, .group = CtaGroup::Two};
  EXPECT_EQ(f4.bits(), 0x10400290u);
  InstrDescriptor i8{.kind = MmaKind::I8, .a = MmaType::s8, .b = MmaType::u8, .d = AccType::s32, .m = 64, .n = 24};
  i8.saturate = true;
  EXPECT_EQ(i8.bits(), 0x040600A8u);
  InstrDescriptor f6{.kind = MmaKind::F8F6F4, .a = MmaType::e3m2, .b = MmaType::e2m3, .d = AccType::f16, .m = 128, .n = 16};
  f6.transpose_a = true;
  f6.negate_b = true;
  EXPECT_EQ(f6.bits(), (4u << 7) | (3u << 10) | (1u << 14) | (1u << 15) | (2u << 17) | (8u << 24));
  // decode gives the fields back
  for (const InstrDescriptor& d : {bf16_f32(128, 256), f16, tf32, f4, i8, f6})
    EXPECT_EQ(InstrDescriptor::decode(d.bits(), d.kind, d.group), d);
  EXPECT_EQ(mma_k(MmaKind::F16), 16);
  EXPECT_EQ(mma_k(MmaKind::TF32), 8);
  EXPECT_EQ(mma_k(MmaKind::F8F6F4), 32);
  EXPECT_EQ(mma_k(MmaKind::I8), 32);
}

TEST(Blackwell, InstructionDescriptorShapesAndTypesAreChecked) {
  auto err = [](const InstrDescriptor& d) {
    try {
      (void)d.bits();
    } catch (const Error& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  // every legal dense (M, N) of kind::f16 (the manual's table) passes; every other fails
  int legal = 0;
  for (CtaGroup g : {CtaGroup::One, CtaGroup::Two})
    for (int m : {32, 64, 128, 256, 512})
      for (int n = 8; n <= 264; n += 8) {
        const bool ok = g == CtaGroup::One ? (m == 64 || m == 128) && n <= 256
                                           : (m == 128 || m == 256) && n % 16 == 0 && n <= 256;
        const InstrDescriptor d = bf16_f32(m, n, g);
        EXPECT_EQ(err(d) == "no error", ok) << m << "x" << n << " " << err(d);
        legal += ok;
      }
  EXPECT_EQ(legal, 32 + 32 + 16 + 16);
  EXPECT_NE(err(bf16_f32(128, 264)).find("M = 128, N = 264 is not a tcgen05.mma shape (with cta_group::1, N is 8..256 step 8)"), std::string::npos);
  EXPECT_NE(err(bf16_f32(256, 24, CtaGroup::Two)).find("(with cta_group::2, N is 16..256 step 16)"), std::string::npos);
  EXPECT_NE(err(bf16_f32(256, 256)).find("cta_group::1 takes M = 64 or 128"), std::string::npos);
  EXPECT_NE(err(bf16_f32(64, 64, CtaGroup::Two)).find("cta_group::2 takes M = 128 or 256"), std::string::npos);
  InstrDescriptor i8{.kind = MmaKind::I8, .a = MmaType::s8, .b = MmaType::s8, .d = AccType::s32, .m = 64, .n = 40};
  EXPECT_NE(err(i8).find("kind::i8 with cta_group::1 takes N = 8, 16, 24 or 32..256 step 16"), std::string::npos);
  i8.n = 48;
  EXPECT_EQ(err(i8), "no error");
  i8.m = 256, i8.group = CtaGroup::Two;  // the CTA pair: steps of 32
  EXPECT_NE(err(i8).find("with cta_group::2, kind::i8 takes N = 32..256 step 32"), std::string::npos);
  i8.n = 64;
  EXPECT_EQ(err(i8), "no error");
  i8.m = 64, i8.n = 48, i8.group = CtaGroup::One;
  // A in tensor memory with M = 128: N in steps of 16 (from shared memory: steps of 8)
  EXPECT_NE(sm100_error_of([] {
              ptx::Reg d(b32), b(b64);
              inst::mov.b32(d, 0);
              inst::mov.b64(b, 0);
              ptx::Reg p = d == d;
              mma_tmem_a(bf16_f32(128, 24), d, d, b, p);
            }).find("with A in tensor memory and M = 128, N is 16..256 step 16, not 24"),
            std::string::npos);
  i8.d = AccType::f32;
  EXPECT_NE(err(i8).find("D of type f32 is not one .kind::i8 accumulates into"), std::string::npos);
  InstrDescriptor mixed{.kind = MmaKind::F16, .a = MmaType::f16, .b = MmaType::bf16};
  EXPECT_NE(err(mixed).find(".kind::f16 needs A and B of one type, not f16 and bf16"), std::string::npos);
  InstrDescriptor wrong{.kind = MmaKind::TF32, .a = MmaType::bf16, .b = MmaType::bf16};
  EXPECT_NE(err(wrong).find("A bf16 / B bf16 are not types of .kind::tf32"), std::string::npos);
  InstrDescriptor neg{.kind = MmaKind::I8, .a = MmaType::u8, .b = MmaType::u8, .d = AccType::s32, .m = 128, .n = 128};
  neg.negate_a = true;
  EXPECT_NE(err(neg).find(".kind::i8 has no negate"), std::string::npos);
  InstrDescriptor sat = bf16_f32(128, 128);
  sat.saturate = true;
  EXPECT_NE(err(sat).find("saturate is for .kind::i8 only"), std::string::npos);
}

// Expected values worked out by hand from the manual's shared-memory descriptor table.
TEST(Blackwell, SharedMemoryDescriptorBitFields) {
  // start 1024 (64), LBO 16 (1), SBO 1024 (64), version 1 at 46, swizzle 2 (128B) at 61
  EXPECT_EQ(k_major(1024, SmemSwizzle::B128, 1024).bits(), 0x4000404000010040ull);
  EXPECT_EQ(k_major(0, SmemSwizzle::B128_Base32B, 1024).bits(), 0x2000404000010000ull);
  EXPECT_EQ(k_major(0, SmemSwizzle::B64, 512).bits(), 0x8000402000010000ull);
  EXPECT_EQ(k_major(0, SmemSwizzle::B32, 256).bits(), 0xC000401000010000ull);
  EXPECT_EQ(k_major(0, SmemSwizzle::None, 128, 256).bits(), 0x0000400800100000ull);
  SmemDescriptor d = mn_major(0x30, SmemSwizzle::None, 0x80, 0x100);
  d.base_offset = 3;
  d.lbo_absolute = true;
  EXPECT_EQ(d.bits(), 0x0016401000080003ull);
  for (const SmemDescriptor& x : {d, k_major(1024, SmemSwizzle::B128, 1024), mn_major(2048, SmemSwizzle::B64, 4096, 512)})
    EXPECT_EQ(SmemDescriptor::decode(x.bits()), x);
  EXPECT_EQ(swizzle_bytes(SmemSwizzle::B128_Base32B), 128u);
  EXPECT_EQ(swizzle_bytes(SmemSwizzle::B32), 32u);
  EXPECT_EQ(swizzle_bytes(SmemSwizzle::None), 16u);
  EXPECT_THROW((void)SmemDescriptor{.start = 8}.bits(), Error);
  EXPECT_THROW((void)SmemDescriptor{.sbo = 1u << 18}.bits(), Error);
  EXPECT_THROW((void)SmemDescriptor{.base_offset = 8}.bits(), Error);
  try {
    (void)SmemDescriptor::decode(0x4000000000000040ull);  // no version bit
    ADD_FAILURE() << "no error";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("the version field (bits 46-48) is 0, not 1"), std::string::npos) << e.what();
  }
  EXPECT_THROW((void)SmemDescriptor::decode(0x6000400000000000ull), Error);  // swizzle mode 3
  // a descriptor with bit 63 set (32B swizzle) is written as an unsigned immediate ptxas takes
  auto t = trace_body(
      [] {
        ptx::Reg base = ptx::smem::alloc(b8, {4096}, 1024).base();
        (void)make_smem_descriptor(base, k_major(0, SmemSwizzle::B32, 256));
      },
      "sm_100a");
  EXPECT_NE(t->ptx.find("or.b64 \t%rd2, %rd1, 13835128492745883648;"), std::string::npos) << t->ptx;
  expect_clean(t->ptx, "sm_100a");
}

TEST(Blackwell, MmaCommitAndFencesEmitExactlyTheirInstructions) {
  auto t = trace_body(
      [] {
        auto slot = ptx::smem::alloc(u32, {4}, 16);
        auto bars = ptx::smem::alloc(b64, {1}, 8);
        hopper::Mbarrier bar(bars.addr(0));
        ptx::Reg tid = ptx::read(ptx::special::tid.x(), u32);
        ptx::Reg p = tid == 0u;
        ptx::Reg d(b32);
        inst::ld.shared.b32(d, slot.addr(0));
        ptx::Reg base = slot.base();
        ptx::Reg da = make_smem_descriptor(base, k_major(0, SmemSwizzle::B128, 1024));
        ptx::Reg db = da + 64;
        fence_after_thread_sync();
        mma(bf16_f32(128, 256), d, da, db, p);
        InstrDescriptor i8{.kind = MmaKind::I8, .a = MmaType::s8, .b = MmaType::s8, .d = AccType::s32, .m = 128, .n = 64};
        mma(i8, d, da, db, p);
        ptx::Reg idesc(b32);
        inst::mov.b32(idesc, 0x08400490);
        mma(CtaGroup::One, MmaKind::F16, d, da, db, idesc, p);
        mma_tmem_a(bf16_f32(128, 64), d, d, db, p);
        commit(CtaGroup::One, bar, &p);
        ptx::Reg mask(b16);
        inst::mov.b16(mask, 3);
        commit_multicast(CtaGroup::One, bar, mask);
        fence_before_thread_sync();
      },
      "sm_100a");
  EXPECT_EQ(listing_of(t->ptx),
            "mov.u32 \t%r1, %tid.x;\n"
            "setp.eq.u32 \t%p1, %r1, 0;\n"
            "ld.shared.b32 \t%r2, [smem];\n"
            "mov.u32 \t%r3, smem;\n"
            "shr.u32 \t%r4, %r3, 4;\n"
            "and.b32 \t%r5, %r4, 16383;\n"
            "cvt.u64.u32 \t%rd1, %r5;\n"
            "or.b64 \t%rd2, %rd1, 4611756662049538048;\n"
            "add.u64 \t%rd3, %rd2, 64;\n"
            "tcgen05.fence::after_thread_sync;\n"
            "tcgen05.mma.cta_group::1.kind::f16 \t[%r2], %rd2, %rd3, 138413200, %p1;\n"
            "tcgen05.mma.cta_group::1.kind::i8 \t[%r2], %rd2, %rd3, 135267488, %p1;\n"
            "mov.b32 \t%r6, 138413200;\n"
            "tcgen05.mma.cta_group::1.kind::f16 \t[%r2], %rd2, %rd3, %r6, %p1;\n"
            "tcgen05.mma.cta_group::1.kind::f16 \t[%r2], [%r2], %rd3, 135267472, %p1;\n"
            "@%p1 tcgen05.commit.cta_group::1.mbarrier::arrive::one.shared::cluster.b64 \t[smem_2];\n"
            "mov.b16 \t%rs1, 3;\n"
            "tcgen05.commit.cta_group::1.mbarrier::arrive::one.shared::cluster.multicast::cluster.b64 \t[smem_2], %rs1;\n"
            "tcgen05.fence::before_thread_sync;\n");
  expect_clean(t->ptx, "sm_100a");
  // the pair's forms (their own kernel: ptxas refuses a function with both CTA groups)
  auto t2 = trace_body(
      [] {
        auto bars = ptx::smem::alloc(b64, {1}, 8);
        ptx::Reg d(b32), da(b64), pr(pred), mask(b16);
        inst::mov.b32(d, 0);
        inst::mov.b64(da, 0);
        inst::setp.ne.b32(pr, d, 0);
        inst::mov.b16(mask, 3);
        mma(bf16_f32(256, 256, CtaGroup::Two), d, da, da, pr);
        commit_multicast(CtaGroup::Two, hopper::Mbarrier(bars.addr(0)), mask);
        commit(CtaGroup::Two, hopper::Mbarrier(bars.addr(0)));
      },
      "sm_100a");
  const auto l2 = instructions_of(t2->ptx);
  ASSERT_EQ(l2.size(), 7u) << t2->ptx;
  EXPECT_EQ(l2[4], "tcgen05.mma.cta_group::2.kind::f16 \t[%r1], %rd1, %rd1, 272630928, %p1;");
  EXPECT_EQ(l2[5], "tcgen05.commit.cta_group::2.mbarrier::arrive::one.shared::cluster.multicast::cluster.b64 \t[smem], %rs1;");
  EXPECT_EQ(l2[6], "tcgen05.commit.cta_group::2.mbarrier::arrive::one.shared::cluster.b64 \t[smem];");
  expect_clean(t2->ptx, "sm_100a");
  // 0x4000404000010000: k_major(0, B128, 1024) without its start
  EXPECT_EQ(k_major(0, SmemSwizzle::B128, 1024).bits(), 4611756662049538048ull);
  EXPECT_EQ(bf16_f32(128, 256).bits(), 138413200u);
  EXPECT_EQ(bf16_f32(128, 64).bits(), 135267472u);
  EXPECT_EQ(bf16_f32(256, 256, CtaGroup::Two).bits(), 272630928u);
}

TEST(Blackwell, MmaMisuseIsReported) {
  EXPECT_NE(sm100_error_of([] {
              ptx::Reg d(u32), a(b64), p(pred);
              mma(bf16_f32(128, 256), d, a, a, p);
            }).find("the D address is a .b32 register (ptxas refuses .u32 here)"),
            std::string::npos);
  EXPECT_NE(sm100_error_of([] {
              ptx::Reg d(b32), a(b32), p(pred);
              mma(bf16_f32(128, 256), d, a, a, p);
            }).find("the A descriptor is a 64-bit integer register, not .b32"),
            std::string::npos);
  EXPECT_NE(sm100_error_of([] {
              ptx::Reg d(b32), a(b64), p(b32);
              mma(bf16_f32(128, 256), d, a, a, p);
            }).find("enable-input-d: a predicate register is needed here"),
            std::string::npos);
  EXPECT_NE(sm100_error_of([] {
              ptx::Reg d(b32), a(b64), p(pred);
              mma(bf16_f32(128, 260), d, a, a, p);
            }).find("M = 128, N = 260 is not a tcgen05.mma shape"),
            std::string::npos);
  EXPECT_NE(sm100_error_of([] {
              ptx::Reg d(b32), a(b64), p(pred);
              InstrDescriptor id = bf16_f32(128, 64);
              id.transpose_a = true;
              mma_tmem_a(id, d, d, a, p);
            }).find("A in tensor memory cannot be transposed"),
            std::string::npos);
  EXPECT_NE(sm100_error_of([] {
              auto bars = ptx::smem::alloc(b64, {1}, 8);
              ptx::Reg m(b32);
              commit_multicast(CtaGroup::One, hopper::Mbarrier(bars.addr(0)), m);
            }).find("the CTA mask is a 16-bit integer register"),
            std::string::npos);
}

TEST(Blackwell, TensorMemoryLoadsStoresCopiesEmitExactlyTheirInstructions) {
  auto t = trace_body(
      [] {
        ptx::Reg ta(b32);
        inst::mov.b32(ta, 0x200000);
        ptx::RegArray r(b32, 32, "v");
        tmem_load(TmemShape::S32x32b, 8, r, 0, ta);
        tmem_load(TmemShape::S16x64b, 4, r, 8, ta, 16);
        tmem_load(TmemShape::S16x128b, 2, r, 12, ta);
        tmem_load(TmemShape::S16x256b, 4, r, 16, ta, 32, true);
        tmem_wait_ld();
        tmem_store(TmemShape::S32x32b, 1, ta, r, 31);
        tmem_store(TmemShape::S16x256b, 1, ta, r, 0, 8, true);
        tmem_wait_st();
        ptx::Reg sa = ptx::smem::alloc(b8, {4096}, 128).base();
        ptx::Reg sd = make_smem_descriptor(sa, k_major(0, SmemSwizzle::None, 128, 256));
        tmem_copy(CtaGroup::One, CpShape::S128x256b, ta, sd);
        tmem_copy(CtaGroup::One, CpShape::S4x256b, ta, sd);
        tmem_copy(CtaGroup::One, CpShape::S128x128b, ta, sd, CpSource::B6x16_P32);
        tmem_copy(CtaGroup::One, CpShape::S64x128b_02_13, ta, sd);
        tmem_copy(CtaGroup::One, CpShape::S64x128b_01_23, ta, sd, CpSource::B4x16_P64);
        tmem_copy(CtaGroup::One, CpShape::S32x128b, ta, sd);
        tmem_shift_down(CtaGroup::One, ta);
      },
      "sm_100a");
  auto vec = [](int first, int n) {
    std::string s = "{";
    for (int i = first; i < first + n; ++i) s += (i > first ? ", %v" : "%v") + std::to_string(i);
    return s + "}";
  };
  EXPECT_EQ(listing_of(t->ptx),
            "mov.b32 \t%r1, 2097152;\n"
            "tcgen05.ld.sync.aligned.32x32b.x8.b32 \t" + vec(0, 8) + ", [%r1];\n"
            "tcgen05.ld.sync.aligned.16x64b.x4.b32 \t" + vec(8, 4) + ", [%r1+16];\n"
            "tcgen05.ld.sync.aligned.16x128b.x2.b32 \t" + vec(12, 4) + ", [%r1];\n"
            "tcgen05.ld.sync.aligned.16x256b.x4.pack::16b.b32 \t" + vec(16, 16) + ", [%r1+32];\n"
            "tcgen05.wait::ld.sync.aligned;\n"
            "tcgen05.st.sync.aligned.32x32b.x1.b32 \t[%r1], {%v31};\n"
            "tcgen05.st.sync.aligned.16x256b.x1.unpack::16b.b32 \t[%r1+8], " + vec(0, 4) + ";\n"
            "tcgen05.wait::st.sync.aligned;\n"
            "mov.u32 \t%r2, smem;\n"
            "shr.u32 \t%r3, %r2, 4;\n"
            "and.b32 \t%r4, %r3, 16383;\n"
            "cvt.u64.u32 \t%rd1, %r4;\n"
            "or.b64 \t%rd2, %rd1, 70403104964608;\n"
            "tcgen05.cp.cta_group::1.128x256b \t[%r1], %rd2;\n"
            "tcgen05.cp.cta_group::1.4x256b \t[%r1], %rd2;\n"
            "tcgen05.cp.cta_group::1.128x128b.b8x16.b6x16_p32 \t[%r1], %rd2;\n"
            "tcgen05.cp.cta_group::1.64x128b.warpx2::02_13 \t[%r1], %rd2;\n"
            "tcgen05.cp.cta_group::1.64x128b.warpx2::01_23.b8x16.b4x16_p64 \t[%r1], %rd2;\n"
            "tcgen05.cp.cta_group::1.32x128b.warpx4 \t[%r1], %rd2;\n"
            "tcgen05.shift.cta_group::1.down \t[%r1];\n");
  EXPECT_EQ(k_major(0, SmemSwizzle::None, 128, 256).bits(), 70403104964608ull);
  expect_clean(t->ptx, "sm_100a");
  auto t2 = trace_body(
      [] {
        ptx::Reg ta(b32), sd(b64);
        inst::mov.b32(ta, 0);
        inst::mov.b64(sd, 0);
        tmem_copy(CtaGroup::Two, CpShape::S128x256b, ta, sd);
        tmem_shift_down(CtaGroup::Two, ta);
      },
      "sm_100a");
  EXPECT_EQ(listing_of(t2->ptx),
            "mov.b32 \t%r1, 0;\n"
            "mov.b64 \t%rd1, 0;\n"
            "tcgen05.cp.cta_group::2.128x256b \t[%r1], %rd1;\n"
            "tcgen05.shift.cta_group::2.down \t[%r1];\n");
  expect_clean(t2->ptx, "sm_100a");
  EXPECT_NE(sm100_error_of([] {
              ptx::Reg ta(b32);
              ptx::RegArray r(b32, 256);
              tmem_load(TmemShape::S16x256b, 64, r, 0, ta);
            }).find(".16x256b.x64 would be 256 registers per thread (128 at most)"),
            std::string::npos);
  EXPECT_NE(sm100_error_of([] {
              ptx::Reg ta(b32);
              ptx::RegArray r(b32, 8);
              tmem_load(TmemShape::S32x32b, 3, r, 0, ta);
            }).find(".x3 is not a power of 2 in 1..128"),
            std::string::npos);
  EXPECT_NE(sm100_error_of([] {
              ptx::Reg ta(b32);
              ptx::RegArray r(b32, 8);
              tmem_load(TmemShape::S32x32b, 8, r, 4, ta);
            }).find("tcgen05.ld: 8 registers from 4 are needed; the array has 8"),
            std::string::npos);
  EXPECT_NE(sm100_error_of([] {
              ptx::Reg ta(b32);
              ptx::RegArray r(f64, 8);
              tmem_store(TmemShape::S32x32b, 8, ta, r, 0);
            }).find("the registers are 32-bit, not .f64"),
            std::string::npos);
}

TEST(Blackwell, CopyShiftCommitAndPairTmaMisuseIsReported) {
  EXPECT_NE(sm100_error_of([] {
              ptx::Reg ta(b32), sd(b32);
              tmem_copy(CtaGroup::One, CpShape::S128x256b, ta, sd);
            }).find("tcgen05.cp: the shared-memory descriptor is a 64-bit integer register, not .b32"),
            std::string::npos);
  EXPECT_NE(sm100_error_of([] {
              ptx::Reg ta(b64);
              tmem_shift_down(CtaGroup::One, ta);
            }).find("tcgen05.shift: the tensor-memory address is a 32-bit integer register, not .b64"),
            std::string::npos);
  EXPECT_NE(sm100_error_of([] {
              auto bars = ptx::smem::alloc(b64, {1}, 8);
              ptx::Reg g(u32);
              commit(CtaGroup::One, hopper::Mbarrier(bars.addr(0)), &g);
            }).find("a predicate register is needed here"),
            std::string::npos);
  EXPECT_NE(sm100_error_of([] {
              auto bars = ptx::smem::alloc(b64, {1}, 8);
              ptx::Reg map(b64);
              tma_load_pair(bars.addr(0), map, {0, 0, 0, 0, 0, 0}, hopper::Mbarrier(bars.addr(0)));
            }).find("tma_load_pair: a tensor has 1 to 5 coordinates, not 6"),
            std::string::npos);
}

// The fragment maps: each is a bijection between (thread, register) and the shape's
// rows x columns, matches the manual's figures at hand-picked points, and inverts.
TEST(Blackwell, TensorMemoryFragmentMaps) {
  struct Case {
    TmemShape s;
    int num, rows, cols;
  };
  for (const Case& c : {Case{TmemShape::S32x32b, 4, 32, 4}, Case{TmemShape::S16x64b, 2, 16, 4}, Case{TmemShape::S16x128b, 4, 16, 16},
                        Case{TmemShape::S16x256b, 2, 16, 16}}) {
    const int n = tmem_regs(c.s, c.num);
    EXPECT_EQ(32 * n, c.rows * c.cols);
    std::set<std::pair<int, int>> seen;
    for (int t = 0; t < 32; ++t)
      for (int r = 0; r < n; ++r) {
        const auto rc = tmem_fragment_row_col(c.s, c.num, t, r);
        EXPECT_TRUE(rc.first >= 0 && rc.first < c.rows && rc.second >= 0 && rc.second < c.cols);
        seen.insert(rc);
        EXPECT_EQ(tmem_fragment_thread_reg(c.s, c.num, rc.first, rc.second), std::make_pair(t, r));
      }
    EXPECT_EQ(seen.size(), static_cast<size_t>(c.rows * c.cols)) << shape_name(c.s);
  }
  using P = std::pair<int, int>;
  EXPECT_EQ(tmem_fragment_row_col(TmemShape::S32x32b, 8, 5, 7), P(5, 7));
  // 16x64b: lane rows 0 and 8 hold threads 0/2 and 1/3
  EXPECT_EQ(tmem_fragment_row_col(TmemShape::S16x64b, 1, 0, 0), P(0, 0));
  EXPECT_EQ(tmem_fragment_row_col(TmemShape::S16x64b, 1, 1, 0), P(8, 0));
  EXPECT_EQ(tmem_fragment_row_col(TmemShape::S16x64b, 1, 2, 0), P(0, 1));
  EXPECT_EQ(tmem_fragment_row_col(TmemShape::S16x64b, 2, 31, 1), P(15, 3));
  // 16x128b: threads 4g..4g+3 across row g, register 1 at row g + 8
  EXPECT_EQ(tmem_fragment_row_col(TmemShape::S16x128b, 1, 7, 1), P(9, 3));
  EXPECT_EQ(tmem_fragment_row_col(TmemShape::S16x128b, 2, 7, 3), P(9, 7));
  // 16x256b: the mma.sync m16n8 accumulator layout per repetition
  EXPECT_EQ(tmem_fragment_row_col(TmemShape::S16x256b, 1, 5, 0), P(1, 2));
  EXPECT_EQ(tmem_fragment_row_col(TmemShape::S16x256b, 1, 5, 3), P(9, 3));
  EXPECT_EQ(tmem_fragment_row_col(TmemShape::S16x256b, 2, 5, 6), P(9, 10));
  EXPECT_THROW((void)tmem_fragment_row_col(TmemShape::S32x32b, 4, 32, 0), Error);
  EXPECT_THROW((void)tmem_fragment_thread_reg(TmemShape::S16x64b, 1, 16, 0), Error);
}

TEST(Blackwell, PairTmaLoadEmitsExactlyItsInstruction) {
  const auto t = ptx::kernel("tma2").tensor_map("m").arch("sm_100a").body([](ptx::TensorMapParam m) {
    auto buf = ptx::smem::alloc(bf16, {64, 64}, 1024);
    auto bars = ptx::smem::alloc(b64, {1}, 8);
    ptx::Reg map = m.generic_address();
    ptx::Reg x = ptx::read(ptx::special::tid.x(), u32);
    ptx::Reg p = x == 0u;
    ptx::Reg base = bars.base();
    ptx::Reg leader = hopper::map_shared_rank(base, 0);
    tma_load_pair(buf.addr(0), map, {x, 0}, hopper::Mbarrier(ptx::addr(leader)), &p);
    tma_load_pair(buf.addr(0), map, {x}, hopper::Mbarrier(bars.addr(0)));
    ptx::ret();
  }).trace();
  const auto l = instructions_of(t->ptx);
  ASSERT_GE(l.size(), 3u);
  EXPECT_EQ(l[l.size() - 3],
            "@%p1 cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes.cta_group::2 \t[smem], [%rd2, {%r1, 0}], [%r3];");
  EXPECT_EQ(l[l.size() - 2],
            "cp.async.bulk.tensor.1d.shared::cluster.global.tile.mbarrier::complete_tx::bytes.cta_group::2 \t[smem], [%rd2, {%r1}], [smem_2];");
  expect_clean(t->ptx, "sm_100a");
  EXPECT_NE(sm100_error_of([] {
              auto bars = ptx::smem::alloc(b64, {1}, 8);
              ptx::Reg map(b64);
              tma_load_pair(ptx::Operand(0), map, {0}, hopper::Mbarrier(bars.addr(0)));
            }).find("tma_load_pair: the destination is a shared address"),
            std::string::npos);
}

}  // namespace
}  // namespace ptx::test
