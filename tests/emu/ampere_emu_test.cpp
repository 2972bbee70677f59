// The Ampere helpers on the emulator: each lane's fragment element <-> (row, col) map
// (ptx::ampere::fragment_row_col) agrees with what the emulator's mma.sync computes, for
// every form; and the bf16 GEMM example matches a CPU reference at a reduced shape.
#include <chrono>
#include <cmath>
#include <cstring>

#include "../../examples/kernels/gemm_sm80.hpp"
#include "emu_test_util.hpp"
#include "../../examples/kernels/bf16_host.hpp"

namespace ptx::test {
namespace {

using namespace ptx::ampere;

// The bits of a small integer v in a float format with `e` exponent bits, `m` mantissa
// bits and bias 2^(e-1)-1 (exact for the values used here).
uint32_t encode_small(int v, int e, int m) {
  if (v == 0) return 0;
  const uint32_t sign = v < 0 ? 1u : 0u;
  int a = v < 0 ? -v : v, ex = 0;
  while ((a >> (ex + 1)) != 0) ++ex;
  const uint32_t mant = static_cast<uint32_t>(((a - (1 << ex)) << m) >> ex);
  const uint32_t bias = (1u << (e - 1)) - 1;
  return (sign << (e + m)) | ((static_cast<uint32_t>(ex) + bias) << m) | mant;
}

uint32_t encode(DType t, int v) {
  switch (t) {
    case DType::f16: return encode_small(v, 5, 10);
    case DType::bf16: return encode_small(v, 8, 7);
    case DType::tf32: return encode_small(v, 8, 23);  // an f32 with the low 13 bits zero
    case DType::e4m3: return encode_small(v, 4, 3);
    case DType::e5m2: return encode_small(v, 5, 2);
    case DType::s8: return static_cast<uint32_t>(v) & 0xff;
    default: return static_cast<uint32_t>(v) & 0xff;  // u8
  }
}

// One warp: every lane loads its A, B, C registers from per-lane rows of three arrays,
// runs one mma.sync through the helpers, and stores D the same way.
Kernel fragment_kernel(const MmaForm& f) {
  return kernel("frag")
      .in(tensor(u32, {"NA"}))
      .in(tensor(u32, {"NB"}))
      .in(tensor(u32, {"NC"}))
      .out(tensor(u32, {"NC"}))
      .block(32)
      .arch("sm_90a")
      .body([f](Tensor ta, Tensor tb, Tensor tc, Tensor td) {
        Reg pa = ta.global_ptr();
        Reg pb = tb.global_ptr();
        Reg pc = tc.global_ptr();
        Reg pd = td.global_ptr();
        Reg lane = read(special::tid.x(), u32);
        Fragment a(f, MmaOperand::A, "a"), b(f, MmaOperand::B, "b"), c(f, MmaOperand::C, "c"), d(f, MmaOperand::D, "d");
        auto row_of = [&](const Reg& base, const Fragment& fr) {
          Reg off = lane * static_cast<uint32_t>(4 * fr.size());
          return base + off;
        };
        Reg ra = row_of(pa, a), rb = row_of(pb, b), rc = row_of(pc, c), rd = row_of(pd, d);
        for (size_t i = 0; i < a.size(); ++i) inst::ld.global.b32(a[i], addr(ra, static_cast<int64_t>(4 * i)));
        for (size_t i = 0; i < b.size(); ++i) inst::ld.global.b32(b[i], addr(rb, static_cast<int64_t>(4 * i)));
        for (size_t i = 0; i < c.size(); ++i) {
          if (f.acc == DType::f32) inst::ld.global.f32(c[i], addr(rc, static_cast<int64_t>(4 * i)));
          else inst::ld.global.s32(c[i], addr(rc, static_cast<int64_t>(4 * i)));
        }
        mma(f, d, a, b, c);
        for (size_t i = 0; i < d.size(); ++i) {
          if (f.acc == DType::f32) inst::st.global.f32(addr(rd, static_cast<int64_t>(4 * i)), d[i]);
          else inst::st.global.s32(addr(rd, static_cast<int64_t>(4 * i)), d[i]);
        }
        ret();
      });
}

TEST(AmpereOnEmulator, FragmentMapsAgreeWithMma) {
  const MmaForm all[] = {forms::m16n8k8_f16_f32,  forms::m16n8k16_f16_f32,  forms::m16n8k8_bf16_f32,
                         forms::m16n8k16_bf16_f32, forms::m16n8k8_tf32_f32,   forms::m16n8k16_s8_s32,
                         forms::m16n8k32_s8_s32,   forms::m16n8k16_u8_s32,    forms::m16n8k32_u8_s32,
                         forms::m16n8k16_e4m3_f32, forms::m16n8k32_e4m3_f32,  forms::m16n8k16_e5m2_f32,
                         forms::m16n8k32_e5m2_f32, mma_form(Shape::m16n8k32, s8, u8, s32)};
  for (const MmaForm& f : all) {
    SCOPED_TRACE(f.mnemonic());
    const int M = f.m(), N = f.n(), K = f.k();
    const bool is_unsigned_a = f.a == DType::u8, is_unsigned_b = f.b == DType::u8;
    // small integers: every product and sum is exact in every format
    std::vector<int> A(static_cast<size_t>(M * K)), B(static_cast<size_t>(K * N)), C(static_cast<size_t>(M * N));
    uint32_t s = 12345;
    auto next = [&](int lo, int hi) {
      s = s * 1664525u + 1013904223u;
      return lo + static_cast<int>((s >> 8) % static_cast<uint32_t>(hi - lo + 1));
    };
    for (int& v : A) v = is_unsigned_a ? next(0, 3) : next(-3, 3);
    for (int& v : B) v = is_unsigned_b ? next(0, 3) : next(-3, 3);
    for (int& v : C) v = next(-20, 20);
    // pack each lane's registers with fragment_row_col
    auto pack = [&](MmaOperand op, const std::vector<int>& mat, int cols, DType t) {
      const int epr = f.elements_per_register(op), regs = f.registers(op), w = f.element_bits(op);
      std::vector<uint32_t> out(static_cast<size_t>(32 * regs));
      for (int lane = 0; lane < 32; ++lane)
        for (int e = 0; e < f.elements(op); ++e) {
          const RowCol rc = fragment_row_col(f, op, lane, e);
          const uint32_t bits = encode(t, mat[static_cast<size_t>(rc.row * cols + rc.col)]);
          out[static_cast<size_t>(lane * regs + e / epr)] |= w == 32 ? bits : bits << ((e % epr) * w);
        }
      return out;
    };
    const auto pa = pack(MmaOperand::A, A, K, f.a), pb = pack(MmaOperand::B, B, N, f.b);
    std::vector<uint32_t> pc(static_cast<size_t>(32 * 4));
    for (int lane = 0; lane < 32; ++lane)
      for (int e = 0; e < 4; ++e) {
        const RowCol rc = fragment_row_col(f, MmaOperand::C, lane, e);
        const int v = C[static_cast<size_t>(rc.row * N + rc.col)];
        if (f.acc == DType::f32) {
          const float x = static_cast<float>(v);
          std::memcpy(&pc[static_cast<size_t>(lane * 4 + e)], &x, 4);
        } else {
          pc[static_cast<size_t>(lane * 4 + e)] = static_cast<uint32_t>(v);
        }
      }
    const Bindings dims = {{"NA", static_cast<int64_t>(pa.size())}, {"NB", static_cast<int64_t>(pb.size())}, {"NC", 128}};
    auto t = fragment_kernel(f).trace(dims);
    EmuRun r;
    r.buffer(pa, "a");
    r.buffer(pb, "b");
    r.buffer(pc, "c");
    const uint64_t d = r.buffer(std::vector<uint32_t>(128), "d");
    r.launch(*t);
    const auto got = r.read<uint32_t>(d, 128);
    // every (row, col) of D: found through fragment_lane_element
    for (int i = 0; i < M; ++i)
      for (int j = 0; j < N; ++j) {
        int ref = C[static_cast<size_t>(i * N + j)];
        for (int k = 0; k < K; ++k) ref += A[static_cast<size_t>(i * K + k)] * B[static_cast<size_t>(k * N + j)];
        const LaneElement le = fragment_lane_element(f, MmaOperand::D, i, j);
        const uint32_t bits = got[static_cast<size_t>(le.lane * 4 + le.element)];
        if (f.acc == DType::f32) {
          float x;
          std::memcpy(&x, &bits, 4);
          ASSERT_EQ(x, static_cast<float>(ref)) << i << "," << j;
        } else {
          ASSERT_EQ(static_cast<int32_t>(bits), ref) << i << "," << j;
        }
      }
  }
}

using examples::from_bf16;
using examples::to_bf16;

// M x N x K = 256 x 128 x 224: two CTAs, 7 k tiles (the run-time loop runs 2 rounds of 3,
// with a predicated load in its last slot, then one unrolled tile).
TEST(AmpereOnEmulator, GemmMatchesTheCpuReference) {
  const int M = 256, N = 128, K = 224;
  auto t = examples::gemm_sm80("sm_80").trace({{"M", M}, {"N", N}, {"K", K}});
  EXPECT_EQ(t->grid.x, 1u);
  EXPECT_EQ(t->grid.y, 2u);
  const auto fa = random_floats(static_cast<size_t>(M) * K, 21), fb = random_floats(static_cast<size_t>(N) * K, 22);
  std::vector<uint16_t> a(fa.size()), b(fb.size());
  for (size_t i = 0; i < a.size(); ++i) a[i] = to_bf16(fa[i]);
  for (size_t i = 0; i < b.size(); ++i) b[i] = to_bf16(fb[i]);
  EmuRun r;
  r.buffer(a, "A");
  r.buffer(b, "B");
  const uint64_t c = r.buffer(std::vector<float>(static_cast<size_t>(M) * N, -1.0f), "C");
  const auto start = std::chrono::steady_clock::now();
  r.launch(*t);
  const double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  std::cout << "[ gemm_sm80 " << M << "x" << N << "x" << K << " ] emulator: " << secs << " s\n";
  const auto got = r.read<float>(c, static_cast<size_t>(M) * N);
  for (int i = 0; i < M; ++i)
    for (int j = 0; j < N; ++j) {
      double ref = 0;
      for (int k = 0; k < K; ++k)
        ref += static_cast<double>(from_bf16(a[static_cast<size_t>(i) * K + k])) * from_bf16(b[static_cast<size_t>(j) * K + k]);
      ASSERT_NEAR(got[static_cast<size_t>(i) * N + j], ref, 1e-3 * (1 + std::fabs(ref))) << i << "," << j;
    }
}

}  // namespace
}  // namespace ptx::test
