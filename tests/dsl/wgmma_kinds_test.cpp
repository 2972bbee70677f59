// Every dense wgmma.mma_async kind (b1 included) through ptx::hopper: the exact PTX of each kind in both
// forms (A from a descriptor, A from registers) and ptxas acceptance for sm_90a; each kind run
// on the emulator against a C++ reference (m64n16, one warpgroup, shared memory written by the
// kernel, A's registers placed with a_fragment_row_col); the fragment maps' round trips; and
// the errors for kinds, shapes, accumulators and immediates the ISA does not have.
#include <algorithm>
#include <bit>
#include <cstdint>
#include <cmath>
#include <cstring>
#include <random>
#include <set>

#include <fmt/format.h>
#include <ptxpp/runtime.hpp>

#include "dsl_test_util.hpp"

namespace ptx::test {
namespace {

using namespace ptx::hopper;


// The register type a kind's accumulators are declared with here.
DType acc_type(WgmmaKind k) { return k.d == f32 ? f32 : b32; }

std::string braces(const std::string& prefix, int first, int count) {
  std::string s = "{";
  for (int i = first; i < first + count; ++i) s += (i > first ? ", %" : "%") + prefix + std::to_string(i);
  return s + "}";
}

struct Pinned {
  WgmmaKind kind;
  WgmmaImmediates imm;
  const char* mnemonic;  // after "wgmma.mma_async.sync.aligned."
  const char* desc_tail, *regs_tail;  // the immediates after scale-d ("" when none)
};

// One of every kind of the ISA (all fp8 and integer pairs), N = 16.
const Pinned kPinned[] = {
    {{f16, f16, f32}, {1, -1, 0, 1}, "m64n16k16.f32.f16.f16", ", 1, -1, 0, 1", ", 1, -1, 1"},
    {{f16, f16, f16}, {-1, 1, 1, 0}, "m64n16k16.f16.f16.f16", ", -1, 1, 1, 0", ", -1, 1, 0"},
    {{bf16, bf16, f32}, {1, 1, 1, 1}, "m64n16k16.f32.bf16.bf16", ", 1, 1, 1, 1", ", 1, 1, 1"},
    {{tf32, tf32, f32}, {-1, 1}, "m64n16k8.f32.tf32.tf32", ", -1, 1", ", -1, 1"},
    {{e4m3, e4m3, f32}, {}, "m64n16k32.f32.e4m3.e4m3", ", 1, 1", ", 1, 1"},
    {{e4m3, e5m2, f32}, {1, -1}, "m64n16k32.f32.e4m3.e5m2", ", 1, -1", ", 1, -1"},
    {{e5m2, e4m3, f16}, {-1, -1}, "m64n16k32.f16.e5m2.e4m3", ", -1, -1", ", -1, -1"},
    {{e5m2, e5m2, f16}, {}, "m64n16k32.f16.e5m2.e5m2", ", 1, 1", ", 1, 1"},
    {{e4m3, e4m3, f16}, {}, "m64n16k32.f16.e4m3.e4m3", ", 1, 1", ", 1, 1"},
    {{e4m3, e5m2, f16}, {}, "m64n16k32.f16.e4m3.e5m2", ", 1, 1", ", 1, 1"},
    {{e5m2, e4m3, f32}, {}, "m64n16k32.f32.e5m2.e4m3", ", 1, 1", ", 1, 1"},
    {{e5m2, e5m2, f32}, {}, "m64n16k32.f32.e5m2.e5m2", ", 1, 1", ", 1, 1"},
    {{s8, s8, s32}, {}, "m64n16k32.s32.s8.s8", "", ""},
    {{s8, u8, s32, true}, {}, "m64n16k32.satfinite.s32.s8.u8", "", ""},
    {{u8, s8, s32}, {}, "m64n16k32.s32.u8.s8", "", ""},
    {{u8, u8, s32, true}, {}, "m64n16k32.satfinite.s32.u8.u8", "", ""},
    {{s8, u8, s32}, {}, "m64n16k32.s32.s8.u8", "", ""},
    {{u8, s8, s32, true}, {}, "m64n16k32.satfinite.s32.u8.s8", "", ""},
    {{b1, b1, s32}, {}, "m64n16k256.s32.b1.b1.and.popc", "", ""},
};

TEST(WgmmaKinds, EachKindEmitsExactlyItsInstructionInBothForms) {
  for (const Pinned& c : kPinned) {
    const int count = 16 / wgmma_kind_info(c.kind).acc_per_n;
    auto t = trace_body([&] {
      ptx::RegArray acc(acc_type(c.kind), count, "acc");
      ptx::RegArray a(b32, 4, "a");
      for (auto& r : a) inst::mov.b32(r, 0);
      for (auto& r : acc) inst::mov.b32(r, 0);
      ptx::Reg da(b64, "da"), db(b64, "db");
      inst::mov.b64(da, 0);
      inst::mov.b64(db, 0);
      ptx::Reg tid = ptx::read(ptx::special::tid.x(), u32);
      ptx::Reg p = tid == tid;
      wgmma_fence();
      mma_async(16, c.kind, acc, 0, da, db, p, c.imm);
      WgmmaImmediates rs = c.imm;
      rs.trans_a = 0;
      mma_async(16, c.kind, acc, 0, a, 0, db, p, rs);
      wgmma_commit();
      wgmma_wait(0);
    });
    const auto lines = instructions_of(t->ptx);
    const std::string head = std::string("wgmma.mma_async.sync.aligned.") + c.mnemonic + " \t" + braces("acc", 0, count);
    const std::string want_desc = head + ", %da, %db, %p1" + c.desc_tail + ";";
    const std::string want_regs = head + ", {%a0, %a1, %a2, %a3}, %db, %p1" + c.regs_tail + ";";
    ASSERT_GE(lines.size(), 4u);
    EXPECT_EQ(lines[lines.size() - 4], want_desc) << c.mnemonic;
    EXPECT_EQ(lines[lines.size() - 3], want_regs) << c.mnemonic;
    expect_clean(t->ptx, "sm_90a");
  }
}

// The old m64nNk16 f32 signatures are the {T, T, f32} kind with scales 1.
TEST(WgmmaKinds, TheBf16F32SignaturesAreTheirKind) {
  auto old_form = trace_body([] {
    ptx::RegArray acc(f32, 4, "acc"), a(b32, 4, "a");
    ptx::Reg d(b64, "d"), p(pred, "p");
    mma_async(8, bf16, acc, 0, d, d, p, 1, 0);
    mma_async(8, f16, acc, 0, a, 0, d, p, 1);
  });
  auto new_form = trace_body([] {
    ptx::RegArray acc(f32, 4, "acc"), a(b32, 4, "a");
    ptx::Reg d(b64, "d"), p(pred, "p");
    mma_async(8, {bf16, bf16, f32}, acc, 0, d, d, p, {.trans_a = 1});
    mma_async(8, wgmma_kind(f16, f16, f32), acc, 0, a, 0, d, p, {.trans_b = 1});
  });
  EXPECT_EQ(instructions_of(old_form->ptx), instructions_of(new_form->ptx));
}

TEST(WgmmaKinds, TheKindTableFollowsTheIsa) {
  static_assert(wgmma_kind_info({e4m3, e5m2, f16}).problem == nullptr);
  static_assert(wgmma_kind_info({bf16, bf16, f16}).problem != nullptr);
  static_assert(wgmma_kind(u8, s8, s32, true).satfinite);  // checked while compiling
  EXPECT_EQ(wgmma_kind_info({f16, f16, f16}).k, 16);
  EXPECT_EQ(wgmma_kind_info({f16, f16, f16}).acc_per_n, 4);
  EXPECT_EQ(wgmma_kind_info({tf32, tf32, f32}).k, 8);
  EXPECT_FALSE(wgmma_kind_info({tf32, tf32, f32}).trans);
  EXPECT_EQ(wgmma_kind_info({e5m2, e4m3, f32}).k, 32);
  EXPECT_TRUE(wgmma_kind_info({s8, u8, s32}).integer);
  EXPECT_FALSE(wgmma_kind_info({s8, u8, s32}).scale);
}

TEST(WgmmaKinds, IllegalCombinationsAreReported) {
  auto run = [](int n, WgmmaKind kind, DType acc_t, int acc_count, WgmmaImmediates imm = {}, bool regs = false) {
    return error_of([=] {
      ptx::RegArray acc(acc_t, static_cast<size_t>(acc_count)), a(b32, 4);
      ptx::Reg d(b64), p(pred);
      if (regs) mma_async(n, kind, acc, 0, a, 0, d, p, imm);
      else mma_async(n, kind, acc, 0, d, d, p, imm);
    });
  };
  auto has = [](const std::string& e, const char* what) { return e.find(what) != std::string::npos; };
  EXPECT_TRUE(has(run(16, {f16, bf16, f32}, f32, 8), "wgmma.mma_async.f32.f16.bf16 is not a kind of the ISA: 16-bit A and B have the same type"));
  EXPECT_TRUE(has(run(16, {bf16, bf16, f16}, b32, 4), "bf16 inputs in f32"));
  EXPECT_TRUE(has(run(16, {tf32, tf32, f16}, b32, 4), "tf32 inputs accumulate in f32"));
  EXPECT_TRUE(has(run(16, {e4m3, s8, f32}, f32, 8), "e4m3/e5m2 A takes e4m3 or e5m2 B"));
  EXPECT_TRUE(has(run(16, {s8, u8, f32}, f32, 8), "s8/u8 inputs accumulate in s32"));
  EXPECT_TRUE(has(run(16, {u8, e4m3, s32}, b32, 8), "s8/u8 A takes s8 or u8 B"));
  EXPECT_TRUE(has(run(16, {f32, f32, f32}, f32, 8), "A is f16, bf16, tf32, e4m3, e5m2, s8, u8 or b1"));
  EXPECT_TRUE(has(run(16, {b1, s8, s32}, b32, 8), "b1 A takes b1 B"));
  EXPECT_TRUE(has(run(16, {b1, b1, f32}, f32, 8), "b1 inputs accumulate in s32 (.and.popc)"));
  EXPECT_TRUE(has(run(16, {b1, b1, s32, true}, b32, 8), ".satfinite is only for s8/u8 inputs"));
  EXPECT_TRUE(has(run(16, {b1, b1, s32}, b32, 8, {.scale_b = -1}), "integer wgmma has no imm-scale-a / imm-scale-b"));
  EXPECT_EQ(run(80, {b1, b1, s32}, b32, 40), "no error");
  EXPECT_TRUE(has(run(88, {b1, b1, s32}, b32, 44), "wgmma.mma_async.s32.b1.b1.and.popc: N = 88 is not 8, 16, 24 or a multiple of 16"));
  EXPECT_TRUE(has(error_of([] { ptx::Reg r(b1); }), "there are no .b1 registers"));
  EXPECT_TRUE(has(error_of([] { ptx::RegArray r(b1, 4); }), "there are no .b1 registers"));
  EXPECT_TRUE(has(run(16, {e4m3, e4m3, f32, true}, f32, 8), ".satfinite is only for s8/u8 inputs"));
  EXPECT_TRUE(has(run(40, {s8, s8, s32}, b32, 20), "N = 40 is not 8, 16, 24 or a multiple of 16"));
  EXPECT_EQ(run(40, {e4m3, e4m3, f32}, f32, 20), "no error");
  EXPECT_TRUE(has(run(20, {tf32, tf32, f32}, f32, 10), "wgmma m64nNk8: N = 20 is not a multiple of 8"));
  EXPECT_TRUE(has(run(16, {f16, f16, f16}, b32, 3), "m64n16 needs 4 accumulators from 0; the array has 3 (.f16 D)"));
  EXPECT_TRUE(has(run(16, {f16, f16, f16}, f32, 4), ".f16 accumulators are 32-bit non-f32 registers of two f16"));
  EXPECT_TRUE(has(run(16, {s8, s8, s32}, f32, 8), ".s32 accumulators are 32-bit integer registers, not .f32"));
  EXPECT_TRUE(has(run(16, {e4m3, e4m3, f32}, b32, 8), ".f32 accumulators are f32 registers, not .b32"));
  EXPECT_TRUE(has(run(16, {s8, s8, s32}, b32, 8, {.scale_a = -1}), "integer wgmma has no imm-scale-a / imm-scale-b"));
  EXPECT_TRUE(has(run(16, {f16, f16, f32}, f32, 8, {.scale_b = 2}), "imm-scale-a and imm-scale-b are 1 or -1"));
  EXPECT_TRUE(has(run(16, {tf32, tf32, f32}, f32, 8, {.trans_b = 1}), "only f16/bf16 operands transpose"));
  EXPECT_TRUE(has(run(16, {e5m2, e5m2, f16}, b32, 4, {.trans_a = 1}), "only f16/bf16 operands transpose"));
  EXPECT_TRUE(has(run(16, {u8, u8, s32}, b32, 8, {.trans_b = 1}, true), "only f16/bf16 operands transpose"));
  EXPECT_TRUE(has(run(16, {f16, f16, f32}, f32, 8, {.trans_a = 1}, true), "A from registers has no imm-trans-a"));
  EXPECT_TRUE(has(run(16, {bf16, bf16, f32}, f32, 8, {.trans_b = 3}), "imm-trans-a and imm-trans-b are 0 (K-major) or 1"));
  EXPECT_THROW((void)a_fragment_row_col(f32, 0, 0, 0), Error);
  EXPECT_THROW((void)a_fragment_row_col(e4m3, 0, 0, 4), Error);
  EXPECT_THROW((void)accumulator_row_col(16, f16, 0, 4, 0), Error);
  EXPECT_THROW((void)accumulator_row_col(16, f32, 0, 0, 1), Error);
}

// The A register fragment against the manual's formulas, and both maps' round trips.
TEST(WgmmaKinds, FragmentMapsRoundTrip) {
  using P = std::pair<int, int>;
  EXPECT_EQ(a_fragment_row_col(bf16, 0, 0, 1), P(0, 1));
  EXPECT_EQ(a_fragment_row_col(bf16, 5, 3, 0), P(9, 10));     // row 1 + 8, col 8 + 2
  EXPECT_EQ(a_fragment_row_col(tf32, 7, 2, 0), P(1, 7));      // col 4 + 3
  EXPECT_EQ(a_fragment_row_col(e4m3, 35, 1, 2), P(24, 14));   // warp 1, row 16 + 0 + 8, col 12 + 2
  EXPECT_EQ(a_fragment_row_col(s8, 127, 3, 3), P(63, 31));
  EXPECT_EQ(a_fragment_row_col(b1, 6, 2, 31), P(1, 128 + 64 + 31));
  for (DType a : {f16, bf16, tf32, e4m3, e5m2, s8, u8, b1}) {
    const int per = 32 / static_cast<int>(bits(a)), k = 256 / static_cast<int>(bits(a));
    std::set<P> seen;
    for (int t = 0; t < 128; ++t)
      for (int j = 0; j < 4; ++j)
        for (int e = 0; e < per; ++e) {
          const auto [r, c] = a_fragment_row_col(a, t, j, e);
          ASSERT_TRUE(r >= 0 && r < 64 && c >= 0 && c < k) << name(a);
          seen.insert({r, c});
          EXPECT_EQ(a_fragment_slot(a, r, c), (FragmentSlot{t, j, e})) << name(a);
        }
    EXPECT_EQ(seen.size(), static_cast<size_t>(64 * k)) << name(a);
  }
  // f16 D: register j holds the f32 fragment's elements 2j and 2j + 1.
  EXPECT_EQ(accumulator_row_col(16, f16, 0, 0, 1), P(0, 1));
  EXPECT_EQ(accumulator_row_col(16, f16, 0, 1, 0), P(8, 0));
  EXPECT_EQ(accumulator_row_col(16, f16, 1, 2, 1), P(0, 11));
  for (DType d : {f32, s32, f16})
    for (int n : {8, 24, 256}) {
      const int per = d == f16 ? 2 : 1;
      std::set<P> seen;
      for (int t = 0; t < 128; ++t)
        for (int i = 0; i < n / 2 / per; ++i)
          for (int h = 0; h < per; ++h) {
            const auto [r, c] = accumulator_row_col(n, d, t, i, h);
            seen.insert({r, c});
            EXPECT_EQ(accumulator_slot(n, d, r, c), (FragmentSlot{t, i, h}));
          }
      EXPECT_EQ(seen.size(), static_cast<size_t>(64 * n));
    }
}

// ---- On the emulator ----

// Values exact in every input type (products and sums exact in f16 and f32).
const double kFloatValues[] = {0, 0.5, -0.5, 1, -1, 1.5, -1.5, 2, -2};

// The bits of a normal (or zero) `v` in a format of `ebits` exponent and `mbits` mantissa bits.
uint32_t encode_float(double v, int ebits, int mbits) {
  if (v == 0) return 0;
  int e;
  const double f = std::frexp(std::fabs(v), &e);  // |v| = 2f * 2^(e-1), 2f in [1, 2)
  const uint32_t bias = (1u << (ebits - 1)) - 1;
  const uint32_t exp = static_cast<uint32_t>(e - 1 + static_cast<int>(bias));
  const uint32_t mant = static_cast<uint32_t>((2 * f - 1) * std::ldexp(1.0, mbits));
  return (v < 0 ? 1u << (ebits + mbits) : 0u) | exp << mbits | mant;
}

double decode_f16(uint32_t h) {
  const int e = static_cast<int>(h >> 10 & 31);
  const double m = h & 1023;
  const double v = e == 0 ? std::ldexp(m, -24) : std::ldexp(1 + m / 1024, e - 15);
  return h & 0x8000 ? -v : v;
}

uint32_t element_bits(DType t, double v) {
  switch (t) {
    case DType::f16: return encode_float(v, 5, 10);
    case DType::bf16: return encode_float(v, 8, 7);
    case DType::tf32: return encode_float(v, 8, 23);
    case DType::e4m3: return encode_float(v, 4, 3);
    case DType::e5m2: return encode_float(v, 5, 2);
    default: return static_cast<uint32_t>(static_cast<int>(v)) & 0xFFu;  // s8, u8, b1 (0 or 1)
  }
}

double random_value(DType t, std::mt19937& g) {
  if (t == s8) return static_cast<double>(std::uniform_int_distribution<int>(-8, 7)(g));
  if (t == u8) return static_cast<double>(std::uniform_int_distribution<int>(0, 15)(g));
  if (t == b1) return static_cast<double>(std::uniform_int_distribution<int>(0, 1)(g));
  return kFloatValues[std::uniform_int_distribution<size_t>(0, std::size(kFloatValues) - 1)(g)];
}

// A rows x K operand in the canonical K-major layout without swizzle: 8-row x 16-byte core
// matrices, LBO 128 bytes along K, SBO 256 along the rows; element k of a row at bit k * width
// of its 32 bytes.
std::vector<uint32_t> smem_image(DType t, const std::vector<double>& m, int rows, int k) {
  std::vector<uint8_t> bytes(static_cast<size_t>(rows) * 32);
  const int w = static_cast<int>(bits(t));
  for (int r = 0; r < rows; ++r)
    for (int c = 0; c < k; ++c) {
      const uint32_t v = element_bits(t, m[static_cast<size_t>(r * k + c)]);
      for (int byte = 0; byte < std::max(w / 8, 1); ++byte) {  // b1: bit c % 8 of byte c / 8
        const int kb = c * w / 8 + byte;
        bytes[static_cast<size_t>((r / 8) * 256 + (kb / 16) * 128 + (r % 8) * 16 + kb % 16)] |=
            static_cast<uint8_t>(w == 1 ? v << (c % 8) : v >> (8 * byte));
      }
    }
  std::vector<uint32_t> words(bytes.size() / 4);
  std::memcpy(words.data(), bytes.data(), bytes.size());
  return words;
}

constexpr int kN = 16;

// One warpgroup: A (64 x K) and B (N x K) copied word by word into shared memory, the C
// accumulators and the A registers loaded from global memory, one mma_async (scale-d true),
// the accumulators stored raw.
Kernel wgmma_kernel(WgmmaKind kind, WgmmaImmediates imm, bool a_regs) {
  const int count = kN / wgmma_kind_info(kind).acc_per_n;
  return ptx::kernel("wgk")
      .in(ptx::tensor(b32, {512}))
      .in(ptx::tensor(b32, {kN * 8}))
      .in(ptx::tensor(b32, {512}))
      .in(ptx::tensor(b32, {128 * count}))
      .out(ptx::tensor(b32, {128 * count}))
      .block(128)
      .arch("sm_90a")
      .body([=](ptx::Tensor ia, ptx::Tensor ib, ptx::Tensor ra, ptx::Tensor c, ptx::Tensor out) {
        auto sa = ptx::smem::alloc(b8, {2048}, 128);
        auto sb = ptx::smem::alloc(b8, {kN * 32}, 128);
        ptx::Reg tid = ptx::read(ptx::special::tid.x(), u32);
        ptx::Reg off = tid * 4u;
        ptx::Reg ga = ia.global_ptr(), gb = ib.global_ptr();
        ptx::Reg pa = sa.base(), pb = sb.base();
        ptx::Reg ga_t = ga + off, pa_t = pa + off;
        ptx::Reg w(b32);
        for (int i = 0; i < 4; ++i) {
          inst::ld.global.b32(w, ptx::addr(ga_t, 512 * i));
          inst::st.shared.b32(ptx::addr(pa_t, 512 * i), w);
        }
        ptx::Reg gb_t = gb + off, pb_t = pb + off;
        inst::ld.global.b32(w, ptx::addr(gb_t));
        inst::st.shared.b32(ptx::addr(pb_t), w);
        fence_proxy_async();
        inst::bar.sync(0);
        ptx::Reg da = make_descriptor(pa, k_major(0, DescSwizzle::None, 256, 128));
        ptx::Reg db = make_descriptor(pb, k_major(0, DescSwizzle::None, 256, 128));
        ptx::RegArray a(b32, 4, "a");
        ptx::Reg ra_t = ra.global_ptr() + tid * 16u;
        for (int j = 0; j < 4; ++j) inst::ld.global.b32(a[static_cast<size_t>(j)], ptx::addr(ra_t, 4 * j));
        ptx::RegArray acc(acc_type(kind), static_cast<size_t>(count), "acc");
        ptx::Reg c_t = c.global_ptr() + tid * static_cast<uint32_t>(4 * count);
        ptx::Reg o_t = out.global_ptr() + tid * static_cast<uint32_t>(4 * count);
        for (int i = 0; i < count; ++i) {
          if (kind.d == f32) inst::ld.global.f32(acc[static_cast<size_t>(i)], ptx::addr(c_t, 4 * i));
          else inst::ld.global.b32(acc[static_cast<size_t>(i)], ptx::addr(c_t, 4 * i));
        }
        ptx::Reg one = tid == tid;
        wgmma_fence();
        if (a_regs) mma_async(kN, kind, acc, 0, a, 0, db, one, imm);
        else mma_async(kN, kind, acc, 0, da, db, one, imm);
        wgmma_commit();
        wgmma_wait(0);
        for (int i = 0; i < count; ++i) {
          if (kind.d == f32) inst::st.global.f32(ptx::addr(o_t, 4 * i), acc[static_cast<size_t>(i)]);
          else inst::st.global.b32(ptx::addr(o_t, 4 * i), acc[static_cast<size_t>(i)]);
        }
        ptx::ret();
      });
}

// D = scale_a A * scale_b B^T + C through the helper on the emulator, against the reference.
void check_on_emulator(WgmmaKind kind, WgmmaImmediates imm, bool a_regs, uint32_t seed) {
  SCOPED_TRACE(fmt::format("{}{}{}{} {} scale {} {}", name(kind.d), name(kind.a), name(kind.b), kind.satfinite ? " satfinite" : "",
                           a_regs ? "A in registers" : "A from a descriptor", imm.scale_a, imm.scale_b));
  const WgmmaKindInfo info = wgmma_kind_info(kind);
  const int K = info.k, count = kN / info.acc_per_n, per = info.acc_per_n / 2;
  std::mt19937 g(seed);
  std::vector<double> a(64 * static_cast<size_t>(K)), b(kN * static_cast<size_t>(K)), c(64 * kN);
  for (auto& x : a) x = random_value(kind.a, g);
  for (auto& x : b) x = random_value(kind.b, g);
  const bool integer = kind.d == s32;
  for (size_t i = 0; i < c.size(); ++i)  // near INT32_MAX in every fifth: .satfinite clamps, without it wraps
    c[i] = integer ? (i % 5 == 0 ? 2147483647.0 - 3 : static_cast<double>(static_cast<int>(i % 7) - 3)) : kFloatValues[i % std::size(kFloatValues)];
  // The C fragment, the A fragment.
  std::vector<uint32_t> c_words(128 * static_cast<size_t>(count)), a_words(512);
  for (int t = 0; t < 128; ++t)
    for (int i = 0; i < count; ++i)
      for (int h = 0; h < per; ++h) {
        const auto [r, col] = accumulator_row_col(kN, kind.d, t, i, h);
        const double v = c[static_cast<size_t>(r * kN + col)];
        const uint32_t bits32 = kind.d == f32 ? std::bit_cast<uint32_t>(static_cast<float>(v))
                                : kind.d == f16 ? encode_float(v, 5, 10)
                                                : static_cast<uint32_t>(static_cast<int32_t>(v));
        c_words[static_cast<size_t>(t * count + i)] |= bits32 << (16 * h);
      }
  const int w = static_cast<int>(bits(kind.a));
  for (int t = 0; t < 128; ++t)
    for (int j = 0; j < 4; ++j)
      for (int e = 0; e < 32 / w; ++e) {
        const auto [r, col] = a_fragment_row_col(kind.a, t, j, e);
        const uint32_t v = element_bits(kind.a, a[static_cast<size_t>(r * K + col)]);
        a_words[static_cast<size_t>(t * 4 + j)] |= w == 32 ? v : v << (e * w);
      }
  const std::vector<uint32_t> ia = smem_image(kind.a, a, 64, K), ib = smem_image(kind.b, b, kN, K);

  auto k = wgmma_kernel(kind, imm, a_regs);
  Device cpu = device::cpu();
  DevicePtr pa = cpu.alloc(ia.size() * 4), pb = cpu.alloc(ib.size() * 4), pr = cpu.alloc(a_words.size() * 4),
            pc = cpu.alloc(c_words.size() * 4), po = cpu.alloc(c_words.size() * 4);
  cpu.copy_to_device(pa, ia.data(), ia.size() * 4);
  cpu.copy_to_device(pb, ib.data(), ib.size() * 4);
  cpu.copy_to_device(pr, a_words.data(), a_words.size() * 4);
  cpu.copy_to_device(pc, c_words.data(), c_words.size() * 4);
  bind(cpu, k)(pa, pb, pr, pc, po);
  cpu.synchronize();
  std::vector<uint32_t> got(c_words.size());
  cpu.copy_to_host(got.data(), po, got.size() * 4);
  for (auto p : {pa, pb, pr, pc, po}) cpu.free(p);

  for (int t = 0; t < 128; ++t)
    for (int i = 0; i < count; ++i)
      for (int h = 0; h < per; ++h) {
        const auto [r, col] = accumulator_row_col(kN, kind.d, t, i, h);
        double sum = 0;
        for (int kk = 0; kk < K; ++kk) sum += a[static_cast<size_t>(r * K + kk)] * b[static_cast<size_t>(col * K + kk)];
        sum = imm.scale_a * imm.scale_b * sum + c[static_cast<size_t>(r * kN + col)];
        const uint32_t word = got[static_cast<size_t>(t * count + i)];
        if (kind.d == f32) {
          ASSERT_EQ(std::bit_cast<float>(word), static_cast<float>(sum)) << "thread " << t << " register " << i;
        } else if (kind.d == f16) {
          ASSERT_EQ(decode_f16(word >> (16 * h) & 0xFFFF), sum) << "thread " << t << " register " << i << " half " << h;
        } else {
          int64_t want = static_cast<int64_t>(sum);
          want = kind.satfinite ? std::clamp<int64_t>(want, INT32_MIN, INT32_MAX) : static_cast<int32_t>(static_cast<uint32_t>(want));
          ASSERT_EQ(static_cast<int32_t>(word), want) << "thread " << t << " register " << i;
        }
      }
  expect_clean(k.ptx(), "sm_90a");
}

TEST(WgmmaKindsOnEmulator, EachKindMatchesTheReferenceInBothForms) {
  struct Run {
    WgmmaKind kind;
    WgmmaImmediates imm;
  };
  const Run runs[] = {
      {{f16, f16, f32}, {}},        {{f16, f16, f16}, {-1, 1}},   {{bf16, bf16, f32}, {1, -1}}, {{tf32, tf32, f32}, {-1, 1}},
      {{e4m3, e4m3, f32}, {}},      {{e4m3, e5m2, f16}, {1, -1}}, {{e5m2, e4m3, f32}, {}},      {{e5m2, e5m2, f16}, {}},
      {{s8, s8, s32}, {}},          {{s8, u8, s32, true}, {}},    {{u8, s8, s32, true}, {}},    {{u8, u8, s32}, {}},
      {{b1, b1, s32}, {}},
  };
  uint32_t seed = 1;
  for (const Run& r : runs)
    for (bool a_regs : {false, true}) check_on_emulator(r.kind, r.imm, a_regs, seed++);
}

}  // namespace
}  // namespace ptx::test
