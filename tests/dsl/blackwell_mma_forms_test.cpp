// Every form of tcgen05.mma the Blackwell helpers emit beyond the dense one: block-scaled
// kinds (mxf8f6f4, mxf4, mxf4nvf4) with their scale vector sizes, sparse (.sp), weight
// stationary (.ws), collector hints, .ashift, disable-output-lane and scale-input-d. The exact
// PTX of each, ptxas acceptance for sm_100a, the block-scaled instruction descriptor's bit
// fields against values worked out by hand from the manual's table, and every misuse error.
#include <array>

#include "dsl_test_util.hpp"

namespace ptx::test {
namespace {

using namespace ptx::blackwell;

// The error tracing `body` for sm_100a gives.
std::string sm100_error_of(const std::function<void()>& body) { return error_of(body, "sm_100a"); }

BlockScaledDescriptor scaled(ScaledKind kind, MmaType t, ScaleVec vec, int m, int n, CtaGroup g = CtaGroup::One) {
  BlockScaledDescriptor d;
  d.kind = kind;
  d.a = d.b = t;
  d.vec = vec;
  d.m = m;
  d.n = n;
  d.group = g;
  return d;
}

// Values worked out by hand from the manual's tables for .kind::mxf8f6f4 and .kind::mxf4/mxf4nvf4.
TEST(BlackwellMmaForms, BlockScaledDescriptorBitFields) {
  // e4m3 x e5m2, M 128 N 64: B ID 3 at 4, B type 1 at 10, N/8 = 8 at 17, ue8m0 1 at 23, M/128 = 1 at 27, A ID 1 at 29
  BlockScaledDescriptor f8 = scaled(ScaledKind::MXF8F6F4, MmaType::e4m3, ScaleVec::X1, 128, 64);
  f8.b = MmaType::e5m2;
  f8.scale_a_id = 1;
  f8.scale_b_id = 3;
  EXPECT_EQ(f8.bits(), 0x28900430u);
  // nvf4 4X with ue4m3 (bit 23 clear), M 256 N 256 for the pair: e2m1 is 1 in both type fields
  BlockScaledDescriptor nv = scaled(ScaledKind::MXF4NVF4, MmaType::e2m1, ScaleVec::X4, 256, 256, CtaGroup::Two);
  nv.scale_type = ScaleType::ue4m3;
  EXPECT_EQ(nv.bits(), 0x10400480u);
  // mxf4 2X, sparse (bit 2), IDs 2 and 2, negate A (13), M 256 N 128
  BlockScaledDescriptor f4 = scaled(ScaledKind::MXF4, MmaType::e2m1, ScaleVec::X2, 256, 128, CtaGroup::Two);
  f4.sparse = true;
  f4.scale_a_id = f4.scale_b_id = 2;
  f4.negate_a = true;
  EXPECT_EQ(f4.bits(), 0x50A024A4u);
  // K = 96 (bit 31): nvf4 .block32, M 256 N 64
  BlockScaledDescriptor k96 = scaled(ScaledKind::MXF4NVF4, MmaType::e2m1, ScaleVec::Block32, 256, 64, CtaGroup::Two);
  k96.k96 = true;
  EXPECT_EQ(k96.bits(), 0x90900480u);
  // e2m1 5 x e3m2 4 (mxf8f6f4 codes), both transposed, M 128 N 8
  BlockScaledDescriptor f6 = scaled(ScaledKind::MXF8F6F4, MmaType::e2m1, ScaleVec::Block32, 128, 8);
  f6.b = MmaType::e3m2;
  f6.transpose_a = f6.transpose_b = true;
  EXPECT_EQ(f6.bits(), 0x08839280u);
  for (const BlockScaledDescriptor& d : {f8, nv, f4, k96, f6})
    EXPECT_EQ(BlockScaledDescriptor::decode(d.bits(), d.kind, d.vec, d.group), d);
  // every type pair of mxf8f6f4 and every ID its vector size allows survive the round trip
  const MmaType f8types[] = {MmaType::e4m3, MmaType::e5m2, MmaType::e2m3, MmaType::e3m2, MmaType::e2m1};
  for (MmaType a : f8types)
    for (MmaType b : f8types)
      for (int id = 0; id < 4; ++id) {
        BlockScaledDescriptor d = scaled(ScaledKind::MXF8F6F4, a, ScaleVec::X1, 128, 8 * (id + 1));
        d.b = b;
        d.scale_a_id = id;
        d.scale_b_id = 3 - id;
        EXPECT_EQ(BlockScaledDescriptor::decode(d.bits(), d.kind, d.vec, d.group), d);
      }
  EXPECT_EQ(mma_k(f8), 32);
  EXPECT_EQ(mma_k(f4), 128);
  EXPECT_EQ(mma_k(k96), 96);
  EXPECT_EQ(scale_factors_per_row(f8), 1);
  EXPECT_EQ(scale_factors_per_row(nv), 4);
  EXPECT_EQ(scale_factors_per_row(k96), 3);
  EXPECT_EQ(scale_factors_per_row(scaled(ScaledKind::MXF4NVF4, MmaType::e2m1, ScaleVec::Block16, 128, 8)), 4);
  EXPECT_EQ(scale_factors_per_row(scaled(ScaledKind::MXF4, MmaType::e2m1, ScaleVec::Default, 128, 8)), 2);
}

TEST(BlackwellMmaForms, SparseAndWeightStationaryDescriptorFields) {
  // sparse bf16 M 128 N 64 with sparsity selector 2: bits 0-1 and bit 2 on top of the dense value
  InstrDescriptor sp = bf16_f32(128, 64);
  sp.sparse = true;
  sp.sparsity_selector = 2;
  EXPECT_EQ(sp.bits(), 0x08100496u);
  EXPECT_EQ(sp.bits(), bf16_f32(128, 64).bits() | 6u);
  // .ws M 64 N 128 with a maximum B shift of 16 (2 at bits 30-31)
  InstrDescriptor ws = bf16_f32(64, 128);
  ws.ws = true;
  ws.max_shift = WsMaxShift::By16;
  EXPECT_EQ(ws.bits(), 0x84200490u);
  EXPECT_EQ(InstrDescriptor::decode(sp.bits(), sp.kind, sp.group), sp);
  EXPECT_EQ(InstrDescriptor::decode(ws.bits(), ws.kind, ws.group, true), ws);
  InstrDescriptor ws32 = bf16_f32(32, 256);  // .ws's M = 32
  ws32.ws = true;
  EXPECT_EQ(ws32.bits() >> 24, 2u);
  EXPECT_EQ(mma_k(MmaKind::F16, true), 32);
  EXPECT_EQ(mma_k(MmaKind::TF32, true), 16);
  EXPECT_EQ(mma_k(MmaKind::I8, true), 64);
}

// One kernel per CTA group (ptxas refuses a function that mixes them).
TEST(BlackwellMmaForms, EveryFormEmitsExactlyItsInstruction) {
  auto t = trace_body(
      [] {
        ptx::Reg d(b32), at(b32), sa(b32), sb(b32), meta(b32), da(b64), db(b64), zcm(b64), idesc(b32), p(pred);
        inst::mov.b32(d, 0);
        inst::mov.b32(at, 64);
        inst::mov.b32(sa, 128);
        inst::mov.b32(sb, 132);
        inst::mov.b32(meta, 136);
        inst::mov.b64(da, 0);
        inst::mov.b64(db, 0);
        inst::mov.b64(zcm, 0);
        inst::mov.b32(idesc, 0);
        inst::setp.ne.b32(p, d, 0);
        std::array<ptx::Reg, 4> lanes{ptx::Reg(b32), ptx::Reg(b32), ptx::Reg(b32), ptx::Reg(b32)};
        for (auto& l : lanes) inst::mov.b32(l, 0);
        // block-scaled, each kind and vector size
        mma_block_scaled(scaled(ScaledKind::MXF8F6F4, MmaType::e4m3, ScaleVec::X1, 128, 64), d, da, db, sa, sb, p);
        mma_block_scaled(scaled(ScaledKind::MXF8F6F4, MmaType::e2m3, ScaleVec::Default, 128, 8), d, da, db, sa, sb, p,
                         {.collector_a = CollectorOp::Fill});
        mma_block_scaled(scaled(ScaledKind::MXF4, MmaType::e2m1, ScaleVec::Block32, 128, 32), d, da, db, sa, sb, p);
        BlockScaledDescriptor nv = scaled(ScaledKind::MXF4NVF4, MmaType::e2m1, ScaleVec::Block16, 128, 16);
        nv.scale_type = ScaleType::ue4m3;
        mma_block_scaled_tmem_a(nv, d, at, db, sa, sb, p, {.collector_a = CollectorOp::LastUse});
        mma_block_scaled(CtaGroup::One, ScaledKind::MXF4NVF4, ScaleVec::X2, d, da, db, idesc, sa, sb, p);
        BlockScaledDescriptor sparse_f4 = scaled(ScaledKind::MXF4, MmaType::e2m1, ScaleVec::X2, 128, 64);
        sparse_f4.sparse = true;
        mma_block_scaled(sparse_f4, d, da, db, sa, sb, p, {.sparse_metadata = &meta});
        // sparse, collector hints, .ashift, disable-output-lane, scale-input-d
        InstrDescriptor sp = bf16_f32(128, 64);
        sp.sparse = true;
        sp.sparsity_selector = 1;
        mma(sp, d, da, db, p,
            {.collector_a = CollectorOp::Use,
             .sparse_metadata = &meta,
             .disable_output_lane = lanes,
             .scale_input_d = 3});
        mma_tmem_a(bf16_f32(128, 64), d, at, db, p, {.collector_a = CollectorOp::Discard, .ashift = true});
        InstrDescriptor tf32{.kind = MmaKind::TF32, .a = MmaType::tf32, .b = MmaType::tf32, .m = 64, .n = 8};
        mma(tf32, d, da, db, p, {.scale_input_d = 15});
        mma(CtaGroup::One, MmaKind::I8, d, da, db, idesc, p, {.sparse_metadata = &meta, .disable_output_lane = lanes});
        // weight stationary
        mma_ws(bf16_f32(128, 64), d, da, db, p);
        mma_ws(bf16_f32(32, 256), d, da, db, p,
               {.collector_b = CollectorB{CollectorBuffer::B2, CollectorOp::Fill}, .zero_column_mask = &zcm});
        InstrDescriptor ws_sp{
            .kind = MmaKind::I8, .a = MmaType::s8, .b = MmaType::u8, .d = AccType::s32, .m = 64, .n = 128};
        ws_sp.sparse = true;
        mma_ws_tmem_a(ws_sp, d, at, db, p,
                      {.collector_b = CollectorB{CollectorBuffer::B3, CollectorOp::LastUse}, .sparse_metadata = &meta});
        mma_ws(MmaKind::F8F6F4, d, da, db, idesc, p, {.zero_column_mask = &zcm});
      },
      "sm_100a");
  const auto lines = instructions_of(t->ptx);
  ASSERT_EQ(lines.size(), 28u) << t->ptx;
  const std::vector<std::string> mmas(lines.begin() + 14, lines.end());
  const std::vector<std::string> want = {
      "tcgen05.mma.cta_group::1.kind::mxf8f6f4.block_scale.scale_vec::1X \t[%r1], %rd1, %rd2, 143654912, [%r3], [%r4], "
      "%p1;",
      "tcgen05.mma.cta_group::1.kind::mxf8f6f4.block_scale.collector::a::fill \t[%r1], %rd1, %rd2, 142740864, [%r3], "
      "[%r4], %p1;",
      "tcgen05.mma.cta_group::1.kind::mxf4.block_scale.block32 \t[%r1], %rd1, %rd2, 143131776, [%r3], [%r4], %p1;",
      "tcgen05.mma.cta_group::1.kind::mxf4nvf4.block_scale.block16.collector::a::lastuse \t[%r1], [%r2], %rd2, "
      "134481024, [%r3], [%r4], %p1;",
      "tcgen05.mma.cta_group::1.kind::mxf4nvf4.block_scale.scale_vec::2X \t[%r1], %rd1, %rd2, %r6, [%r3], [%r4], %p1;",
      "tcgen05.mma.sp.cta_group::1.kind::mxf4.block_scale.scale_vec::2X \t[%r1], %rd1, %rd2, [%r5], 143656068, [%r3], "
      "[%r4], %p1;",
      "tcgen05.mma.sp.cta_group::1.kind::f16.collector::a::use \t[%r1], %rd1, %rd2, [%r5], 135267477, {%r7, %r8, %r9, "
      "%r10}, %p1, 3;",
      "tcgen05.mma.cta_group::1.kind::f16.ashift.collector::a::discard \t[%r1], [%r2], %rd2, 135267472, %p1;",
      "tcgen05.mma.cta_group::1.kind::tf32 \t[%r1], %rd1, %rd2, 67242256, %p1, 15;",
      "tcgen05.mma.sp.cta_group::1.kind::i8 \t[%r1], %rd1, %rd2, [%r5], %r6, {%r7, %r8, %r9, %r10}, %p1;",
      "tcgen05.mma.ws.cta_group::1.kind::f16 \t[%r1], %rd1, %rd2, 135267472, %p1;",
      "tcgen05.mma.ws.cta_group::1.kind::f16.collector::b2::fill \t[%r1], %rd1, %rd2, 37749904, %p1, %rd3;",
      "tcgen05.mma.ws.sp.cta_group::1.kind::i8.collector::b3::lastuse \t[%r1], [%r2], %rd2, [%r5], 69206180, %p1;",
      "tcgen05.mma.ws.cta_group::1.kind::f8f6f4 \t[%r1], %rd1, %rd2, %r6, %p1, %rd3;",
  };
  EXPECT_EQ(mmas, want) << t->ptx;
  expect_clean(t->ptx, "sm_100a");
}

TEST(BlackwellMmaForms, CtaPairFormsEmitExactlyTheirInstruction) {
  auto t = trace_body(
      [] {
        ptx::Reg d(b32), sa(b32), sb(b32), meta(b32), da(b64), p(pred);
        inst::mov.b32(d, 0);
        inst::mov.b32(sa, 128);
        inst::mov.b32(sb, 132);
        inst::mov.b32(meta, 136);
        inst::mov.b64(da, 0);
        inst::setp.ne.b32(p, d, 0);
        std::array<ptx::Reg, 8> lanes{ptx::Reg(u32), ptx::Reg(u32), ptx::Reg(u32), ptx::Reg(u32),
                                      ptx::Reg(u32), ptx::Reg(u32), ptx::Reg(u32), ptx::Reg(u32)};
        for (auto& l : lanes) inst::mov.u32(l, 0);
        mma(bf16_f32(256, 128, CtaGroup::Two), d, da, da, p, {.disable_output_lane = lanes, .scale_input_d = 1});
        BlockScaledDescriptor f4 = scaled(ScaledKind::MXF4, MmaType::e2m1, ScaleVec::X2, 256, 128, CtaGroup::Two);
        f4.sparse = true;
        f4.scale_a_id = f4.scale_b_id = 2;
        mma_block_scaled(f4, d, da, da, sa, sb, p, {.sparse_metadata = &meta});
        mma_block_scaled(scaled(ScaledKind::MXF8F6F4, MmaType::e5m2, ScaleVec::Block32, 256, 256, CtaGroup::Two), d, da,
                         da, sa, sb, p);
      },
      "sm_100a");
  const auto lines = instructions_of(t->ptx);
  ASSERT_EQ(lines.size(), 17u) << t->ptx;
  const std::vector<std::string> mmas(lines.begin() + 14, lines.end());
  const std::vector<std::string> want = {
      "tcgen05.mma.cta_group::2.kind::f16 \t[%r1], %rd1, %rd1, 270533776, {%r5, %r6, %r7, %r8, %r9, %r10, %r11, %r12}, "
      "%p1, 1;",
      "tcgen05.mma.sp.cta_group::2.kind::mxf4.block_scale.scale_vec::2X \t[%r1], %rd1, %rd1, [%r4], 1352664228, [%r2], "
      "[%r3], %p1;",
      "tcgen05.mma.cta_group::2.kind::mxf8f6f4.block_scale.block32 \t[%r1], %rd1, %rd1, 281019520, [%r2], [%r3], %p1;",
  };
  EXPECT_EQ(mmas, want) << t->ptx;
  expect_clean(t->ptx, "sm_100a");
}

// Each misuse and the message naming it (a substring of the ptx::Error).
struct Misuse {
  std::function<void()> body;
  const char* message;
};

void expect_misuse(const std::vector<Misuse>& cases) {
  for (const Misuse& c : cases)
    EXPECT_NE(sm100_error_of(c.body).find(c.message), std::string::npos) << sm100_error_of(c.body) << "\nwanted: " << c.message;
}

// The operands every misuse case starts from: D, A in tensor memory, the scale factors and the
// metadata (.b32), descriptors (.b64), a predicate.
struct Ops {
  ptx::Reg d{b32}, at{b32}, sa{b32}, sb{b32}, meta{b32}, da{b64}, idesc{b32}, p{pred};
};

// A body that makes the operands and hands them to f.
template <class F>
std::function<void()> with(F f) {
  return [f] {
    Ops o;
    f(o);
  };
}

TEST(BlackwellMmaForms, BlockScaledMisuseIsReported) {
  auto bs = [](const BlockScaledDescriptor& id) {
    return [id](Ops& o) { mma_block_scaled(id, o.d, o.da, o.da, o.sa, o.sb, o.p); };
  };
  BlockScaledDescriptor e4m3_f4 = scaled(ScaledKind::MXF4, MmaType::e4m3, ScaleVec::X2, 128, 64);
  BlockScaledDescriptor bf16_f8 = scaled(ScaledKind::MXF8F6F4, MmaType::bf16, ScaleVec::X1, 128, 64);
  BlockScaledDescriptor x4_f4 = scaled(ScaledKind::MXF4, MmaType::e2m1, ScaleVec::X4, 128, 64);
  BlockScaledDescriptor block16_f8 = scaled(ScaledKind::MXF8F6F4, MmaType::e4m3, ScaleVec::Block16, 128, 64);
  BlockScaledDescriptor unnamed_nv = scaled(ScaledKind::MXF4NVF4, MmaType::e2m1, ScaleVec::Default, 128, 64);
  BlockScaledDescriptor ue4m3_2x = scaled(ScaledKind::MXF4NVF4, MmaType::e2m1, ScaleVec::X2, 128, 64);
  ue4m3_2x.scale_type = ScaleType::ue4m3;
  BlockScaledDescriptor ue4m3_f8 = scaled(ScaledKind::MXF8F6F4, MmaType::e4m3, ScaleVec::X1, 128, 64);
  ue4m3_f8.scale_type = ScaleType::ue4m3;
  BlockScaledDescriptor id1_2x = scaled(ScaledKind::MXF4, MmaType::e2m1, ScaleVec::X2, 128, 64);
  id1_2x.scale_a_id = 1;
  BlockScaledDescriptor id2_4x = scaled(ScaledKind::MXF4NVF4, MmaType::e2m1, ScaleVec::X4, 128, 64);
  id2_4x.scale_b_id = 2;
  BlockScaledDescriptor m64 = scaled(ScaledKind::MXF8F6F4, MmaType::e4m3, ScaleVec::X1, 64, 64);
  BlockScaledDescriptor n12 = scaled(ScaledKind::MXF8F6F4, MmaType::e4m3, ScaleVec::X1, 128, 12);
  BlockScaledDescriptor sparse_pair_128 =
      scaled(ScaledKind::MXF8F6F4, MmaType::e4m3, ScaleVec::X1, 128, 64, CtaGroup::Two);
  sparse_pair_128.sparse = true;
  BlockScaledDescriptor k96_f8 = scaled(ScaledKind::MXF8F6F4, MmaType::e4m3, ScaleVec::X1, 256, 64, CtaGroup::Two);
  k96_f8.k96 = true;
  BlockScaledDescriptor k96_one = scaled(ScaledKind::MXF4, MmaType::e2m1, ScaleVec::Block32, 128, 64);
  k96_one.k96 = true;
  BlockScaledDescriptor transposed_f4 = scaled(ScaledKind::MXF4, MmaType::e2m1, ScaleVec::X2, 128, 64);
  transposed_f4.transpose_b = true;
  BlockScaledDescriptor sparse_f8 = scaled(ScaledKind::MXF8F6F4, MmaType::e4m3, ScaleVec::X1, 128, 64);
  sparse_f8.sparse = true;
  const BlockScaledDescriptor ok = scaled(ScaledKind::MXF8F6F4, MmaType::e4m3, ScaleVec::X1, 128, 64);
  expect_misuse({
      {with(bs(e4m3_f4)), "A e4m3 / B e4m3 are not types of .kind::mxf4 (e2m1 only)"},
      {with(bs(bf16_f8)), "A bf16 / B bf16 are not types of .kind::mxf8f6f4 (e4m3, e5m2, e2m3, e3m2, e2m1)"},
      {with(bs(x4_f4)),
       "tcgen05.mma.kind::mxf4: .scale_vec::4X is not a scale vector size of it (kind::mxf4 takes .scale_vec::2X or "
       ".block32)"},
      {with(bs(block16_f8)),
       ".block16 is not a scale vector size of it (kind::mxf8f6f4 takes .scale_vec::1X or .block32)"},
      {with(bs(unnamed_nv)), "kind::mxf4nvf4 must name its scale vector size"},
      {with(bs(ue4m3_2x)),
       "ue4m3 scale factors are only for .kind::mxf4nvf4 with .scale_vec::4X or .block16 (.kind::mxf4nvf4 with "
       ".scale_vec::2X takes ue8m0)"},
      {with(bs(ue4m3_f8)), "ue4m3 scale factors are only for .kind::mxf4nvf4"},
      {with(bs(id1_2x)), "scale factor A ID 1 is not one of 0 or 2 (2 factors per row)"},
      {with(bs(id2_4x)), "scale factor B ID 2 is not one of 0 (4 factors fill the word) (4 factors per row)"},
      {with(bs(m64)), "M = 64, N = 64 is not a tcgen05.mma.kind::mxf8f6f4 shape (cta_group::1 takes M = 128)"},
      {with(bs(n12)), "(with cta_group::1, N is 8..256 step 8)"},
      {with(bs(sparse_pair_128)), "(sparse with cta_group::2 takes M = 256)"},
      {with(bs(k96_f8)), "K = 96 is for kind::mxf4 and kind::mxf4nvf4 only"},
      {with(bs(k96_one)), "K = 96 is a dense cta_group::2 shape with M = 256"},
      {with(bs(transposed_f4)), ".kind::mxf4 does not transpose A or B (both K-major)"},
      {with(bs(sparse_f8)), "the descriptor is sparse: tcgen05.mma.sp needs the metadata address (sparse_metadata)"},
      {with([ok](Ops& o) { mma_block_scaled(ok, o.d, o.da, o.da, o.sa, o.sb, o.p, {.sparse_metadata = &o.meta}); }),
       "sparse metadata given, but the descriptor is dense"},
      {with([ok](Ops& o) {
         ptx::Reg sa(u32);
         mma_block_scaled(ok, o.d, o.da, o.da, sa, o.sb, o.p);
       }),
       "tcgen05.mma: the scale-A address is a .b32 register (ptxas refuses .u32 here)"},
      {with([ok](Ops& o) { mma_block_scaled(ok, o.d, o.da, o.da, o.sa, o.da, o.p); }),
       "the scale-B address is a .b32 register (ptxas refuses .b64 here)"},
      {with([ok](Ops& o) { mma_block_scaled_tmem_a(ok, o.d, o.da, o.da, o.sa, o.sb, o.p); }),
       "the A address is a .b32 register (ptxas refuses .b64 here)"},
      {with([](Ops& o) {
         mma_block_scaled(CtaGroup::One, ScaledKind::MXF8F6F4, ScaleVec::Block16, o.d, o.da, o.da, o.idesc, o.sa, o.sb,
                          o.p);
       }),
       ".block16 is not a scale vector size of it"},
      {with([](Ops& o) {
         mma_block_scaled(CtaGroup::One, ScaledKind::MXF4, ScaleVec::X2, o.d, o.da, o.da, o.da, o.sa, o.sb, o.p);
       }),
       "the instruction descriptor is a 32-bit integer register, not .b64"},
  });
}

TEST(BlackwellMmaForms, OptionsMisuseIsReported) {
  InstrDescriptor i8{.kind = MmaKind::I8, .a = MmaType::s8, .b = MmaType::s8, .d = AccType::s32, .m = 128, .n = 64};
  InstrDescriptor sparse = bf16_f32(128, 64);
  sparse.sparse = true;
  expect_misuse({
      // scale-input-d
      {with([i8](Ops& o) { mma(i8, o.d, o.da, o.da, o.p, {.scale_input_d = 1}); }),
       "tcgen05.mma: scale-input-d is for .kind::f16 and .kind::tf32 only, not .kind::i8"},
      {with([](Ops& o) { mma(CtaGroup::One, MmaKind::F8F6F4, o.d, o.da, o.da, o.idesc, o.p, {.scale_input_d = 0}); }),
       "scale-input-d is for .kind::f16 and .kind::tf32 only, not .kind::f8f6f4"},
      {with([](Ops& o) { mma(bf16_f32(128, 64), o.d, o.da, o.da, o.p, {.scale_input_d = 16}); }),
       "scale-input-d is an immediate 0 to 15 (D scaled by 2^-s), not 16"},
      // disable-output-lane
      {with([](Ops& o) {
         std::array<ptx::Reg, 3> m{ptx::Reg(b32), ptx::Reg(b32), ptx::Reg(b32)};
         mma(bf16_f32(128, 64), o.d, o.da, o.da, o.p, {.disable_output_lane = m});
       }),
       "tcgen05.mma: disable-output-lane of cta_group::1 is 4 registers, not 3"},
      {with([](Ops& o) {
         std::array<ptx::Reg, 4> m{ptx::Reg(b32), ptx::Reg(b32), ptx::Reg(b32), ptx::Reg(b32)};
         mma(bf16_f32(256, 64, CtaGroup::Two), o.d, o.da, o.da, o.p, {.disable_output_lane = m});
       }),
       "disable-output-lane of cta_group::2 is 8 registers, not 4"},
      {with([](Ops& o) {
         std::array<ptx::Reg, 4> m{ptx::Reg(b32), ptx::Reg(f32), ptx::Reg(b32), ptx::Reg(b32)};
         mma(bf16_f32(128, 64), o.d, o.da, o.da, o.p, {.disable_output_lane = m});
       }),
       "tcgen05.mma: a disable-output-lane register is a 32-bit integer register, not .f32"},
      // sparse
      {with([sparse](Ops& o) { mma(sparse, o.d, o.da, o.da, o.p); }),
       "tcgen05.mma: the descriptor is sparse: tcgen05.mma.sp needs the metadata address"},
      {with([](Ops& o) { mma(bf16_f32(128, 64), o.d, o.da, o.da, o.p, {.sparse_metadata = &o.meta}); }),
       "sparse metadata given, but the descriptor is dense (set sparse in it)"},
      {with([sparse](Ops& o) {
         ptx::Reg m(u32);
         mma(sparse, o.d, o.da, o.da, o.p, {.sparse_metadata = &m});
       }),
       "tcgen05.mma: the sparse metadata address is a .b32 register (ptxas refuses .u32 here)"},
      // .ashift
      {with([](Ops& o) { mma(bf16_f32(128, 64), o.d, o.da, o.da, o.p, {.ashift = true}); }),
       ".ashift shifts A in tensor memory (mma_tmem_a), not A from a shared-memory descriptor"},
      {with([](Ops& o) { mma_tmem_a(bf16_f32(64, 64), o.d, o.at, o.da, o.p, {.ashift = true}); }),
       ".ashift needs M = 128 or 256, not 64"},
      {with([](Ops& o) {
         mma_tmem_a(bf16_f32(128, 64), o.d, o.at, o.da, o.p, {.collector_a = CollectorOp::Fill, .ashift = true});
       }),
       ".ashift does not take .collector::a::fill or ::use"},
      // .ws
      {with([](Ops& o) { mma_ws(bf16_f32(256, 128, CtaGroup::Two), o.d, o.da, o.da, o.p); }),
       "M = 256, N = 128 is not a tcgen05.mma shape (tcgen05.mma.ws is cta_group::1 only)"},
      {with([](Ops& o) { mma_ws(bf16_f32(128, 32), o.d, o.da, o.da, o.p); }), "(.ws takes N = 64, 128 or 256)"},
      {with([sparse](Ops& o) {
         InstrDescriptor s = sparse;
         s.n = 256;
         mma_ws(s, o.d, o.da, o.da, o.p, {.sparse_metadata = &o.meta});
       }),
       "(sparse .ws takes N = 64 or 128)"},
      {with([sparse](Ops& o) { mma_ws(sparse, o.d, o.da, o.da, o.p); }),
       "tcgen05.mma.ws: the descriptor is sparse: tcgen05.mma.ws.sp needs the metadata address (sparse_metadata)"},
      {with([](Ops& o) {
         InstrDescriptor w = bf16_f32(128, 64);
         w.ws = true;
         mma(w, o.d, o.da, o.da, o.p);
       }),
       "tcgen05.mma: the descriptor is for tcgen05.mma.ws (ws set): use mma_ws"},
      {with([](Ops& o) {
         InstrDescriptor w = bf16_f32(128, 64);
         w.max_shift = WsMaxShift::By8;
         mma(w, o.d, o.da, o.da, o.p);
       }),
       "the maximum B shift (bits 30-31) is for tcgen05.mma.ws only"},
      {with([](Ops& o) { mma_ws(bf16_f32(128, 64), o.d, o.da, o.da, o.p, {.zero_column_mask = &o.idesc}); }),
       "tcgen05.mma.ws: the zero-column mask descriptor is a 64-bit integer register, not .b32"},
      {with([](Ops& o) { mma_ws(bf16_f32(128, 64), o.d, o.da, o.da, o.d); }),
       "tcgen05.mma.ws: enable-input-d: a predicate register is needed here"},
      // sparsity selector
      {with([i8](Ops& o) {
         InstrDescriptor s = i8;
         s.sparse = true;
         s.sparsity_selector = 1;
         mma(s, o.d, o.da, o.da, o.p, {.sparse_metadata = &o.meta});
       }),
       "the sparsity selector of .kind::i8 must be 0"},
      {with([](Ops& o) {
         InstrDescriptor s = bf16_f32(128, 64);
         s.sparsity_selector = 2;
         mma(s, o.d, o.da, o.da, o.p);
       }),
       "a sparsity selector needs sparse = true"},
      {with([sparse](Ops& o) {
         InstrDescriptor s = sparse;
         s.sparsity_selector = 4;
         mma(s, o.d, o.da, o.da, o.p, {.sparse_metadata = &o.meta});
       }),
       "the sparsity selector is 0 to 3, not 4"},
  });
}

}  // namespace
}  // namespace ptx::test
