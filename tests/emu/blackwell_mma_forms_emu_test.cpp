// The tcgen05.mma forms of ptx::blackwell beyond the dense one, built with the DSL and run on the
// emulator: one kernel per block-scaled kind (mxf8f6f4, mxf4, mxf4nvf4), the weight-stationary
// form, and disable-output-lane with scale-input-d; each against a CPU reference that decodes the
// element and scale-factor formats itself (written here from the formats' definitions).
#include <array>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <functional>
#include <random>
#include <vector>

#include <gtest/gtest.h>

#include "../../examples/kernels/tcgen05_mma_probe.hpp"
#include "../unit/ptxas_util.hpp"
#include "emu_test_util.hpp"

namespace ptx::test {
namespace {

namespace bw = ptx::blackwell;

// ---- the formats, decoded on the host -------------------------------------------------------

// A sign-magnitude float of `ebits` exponent and `mbits` mantissa bits, bias `bias`, with
// subnormals and no infinities (the callers keep away from e4m3's and e5m2's NaN/Inf codes).
double minifloat(uint32_t bits, int ebits, int mbits, int bias, bool has_sign = true) {
  const uint32_t man = bits & ((1u << mbits) - 1), ex = bits >> mbits & ((1u << ebits) - 1);
  const bool neg = has_sign && (bits >> (ebits + mbits) & 1);
  const double v = ex == 0 ? std::ldexp(man, 1 - bias - mbits)
                           : std::ldexp((1u << mbits) + man, static_cast<int>(ex) - bias - mbits);
  return neg ? -v : v;
}

enum class Elem { e4m3, e5m2, e2m3, e3m2, e2m1, e2m1_packed, bf16 };

double element(Elem t, uint32_t code) {
  switch (t) {
    case Elem::e4m3:
      return minifloat(code, 4, 3, 7);
    case Elem::e5m2:
      return minifloat(code, 5, 2, 15);
    case Elem::e2m3:
      return minifloat(code, 2, 3, 1);
    case Elem::e3m2:
      return minifloat(code, 3, 2, 3);
    case Elem::e2m1:
    case Elem::e2m1_packed:
      return minifloat(code, 2, 1, 1);
    case Elem::bf16: {
      const uint32_t f = code << 16;
      float x;
      std::memcpy(&x, &f, 4);
      return x;
    }
  }
  return 0;
}

// A random code of the type (no NaN or infinity).
uint32_t random_code(Elem t, std::mt19937& g) {
  for (;;) {
    const uint32_t x = g();
    switch (t) {
      case Elem::e4m3:
        if ((x & 0x7F) != 0x7F) return x & 0xFF;
        break;
      case Elem::e5m2:
        if ((x & 0x7C) != 0x7C) return x & 0xFF;
        break;
      case Elem::e2m3:
      case Elem::e3m2:
        return x & 0x3F;
      case Elem::e2m1:
      case Elem::e2m1_packed:
        return x & 0xF;
      case Elem::bf16:
        return 0x3C00u + (x & 0x7FFu) + (x >> 16 & 1) * 0x8000u;  // |x| in [2^-7, 2^-6 * ...): small, any sign
    }
  }
}

// ---- operands and the probe run ------------------------------------------------------------

// Operands of one case: A (128 rows) and B (n rows) as K-major rows of 32 bytes, codes[row][k]
// (k < K); the scale factor words of A's 128 rows and B's n columns.
struct Operands {
  int n = 0, k = 0;
  Elem a = Elem::e4m3, b = Elem::e4m3;
  std::vector<uint32_t> a_codes, b_codes;  // row * k + kk
  std::vector<uint32_t> sfa_cells = std::vector<uint32_t>(128), sfb_cells = std::vector<uint32_t>(64);
};

constexpr int kM = 128;

// The bytes of rows of 32 bytes in the probe's layout (examples/kernels/tcgen05_mma_probe.hpp).
void place_rows(std::vector<uint8_t>& image, uint32_t base, int rows, const std::vector<uint32_t>& codes, int k,
                Elem t) {
  for (int r = 0; r < rows; ++r)
    for (int byte = 0; byte < 32; ++byte) {
      uint32_t v = 0;
      if (t == Elem::e2m1_packed)
        v = codes[static_cast<size_t>(r * k + 2 * byte)] | codes[static_cast<size_t>(r * k + 2 * byte + 1)] << 4;
      else if (t == Elem::bf16)
        v = codes[static_cast<size_t>(r * k + byte / 2)] >> (8 * (byte % 2)) & 0xFF;
      else
        v = codes[static_cast<size_t>(r * k + byte)];
      image[base + examples::probe_offset(r, byte)] = static_cast<uint8_t>(v);
    }
}

// Runs the probe kernel on the emulator (ptxas checks it first).
std::vector<float> run(const Operands& o, const examples::ProbeIssue& issue) {
  const uint32_t total = examples::probe_image_bytes(o.n);
  std::vector<uint8_t> image(total, 0);
  place_rows(image, 0, kM, o.a_codes, o.k, o.a);
  place_rows(image, kM * 32, o.n, o.b_codes, o.k, o.b);
  std::vector<uint32_t> words(total / 4);
  std::memcpy(words.data(), image.data(), total);
  std::vector<uint32_t> scales(o.sfa_cells);
  scales.insert(scales.end(), o.sfb_cells.begin(), o.sfb_cells.end());
  auto tr = examples::tcgen05_mma_probe(o.n, issue).trace();
  if (have_ptxas()) {
    const auto r = run_ptxas(tr->ptx, "sm_100a");
    EXPECT_TRUE(r.ok) << r.log;
  }
  EmuRun emu;
  emu.buffer(words, "image");
  emu.buffer(scales, "scales");
  const uint64_t out = emu.buffer(std::vector<float>(static_cast<size_t>(kM * o.n), -1.0f), "out");
  emu.launch(*tr);
  return emu.read<float>(out, static_cast<size_t>(kM * o.n));
}

Operands random_operands(Elem a, Elem b, int n, int k, unsigned seed) {
  std::mt19937 g(seed);
  Operands o;
  o.n = n, o.k = k, o.a = a, o.b = b;
  for (int i = 0; i < kM * k; ++i) o.a_codes.push_back(random_code(a, g));
  for (int i = 0; i < n * k; ++i) o.b_codes.push_back(random_code(b, g));
  return o;
}

// Fills the cells with `vec` scale factor codes per row from byte `id`, random bytes elsewhere
// (they must not be read), and returns the codes: codes[row * vec + j].
std::vector<uint32_t> scale_cells(std::vector<uint32_t>& cells, int rows, int vec, int id, bool ue4m3,
                                  std::mt19937& g) {
  std::vector<uint32_t> codes;
  for (int r = 0; r < rows; ++r) {
    uint32_t cell = g();
    for (int j = 0; j < vec; ++j) {
      // ue8m0: 2^-8 .. 2^7; ue4m3: exponents 2^-3 .. 2^3 with any mantissa
      const uint32_t c = ue4m3 ? 0x20u + g() % 0x30u : 119u + g() % 16u;
      codes.push_back(c);
      const int byte = id + j;
      cell = (cell & ~(0xFFu << (8 * byte))) | c << (8 * byte);
    }
    cells[static_cast<size_t>(r)] = cell;
  }
  return codes;
}

double scale_value(uint32_t code, bool ue4m3) {
  return ue4m3 ? minifloat(code & 0x7F, 4, 3, 7, false) : std::ldexp(1.0, static_cast<int>(code) - 127);
}

// D[i][j] = sum_k A[i][k] sa(i, k / (K / vec)) * B[j][k] sb(j, k / (K / vec)), checked element-wise.
void check_scaled(const std::vector<float>& got, const Operands& o, int vec, const std::vector<uint32_t>& sa,
                  const std::vector<uint32_t>& sb, bool ue4m3) {
  const int block = o.k / vec;
  for (int i = 0; i < kM; ++i)
    for (int j = 0; j < o.n; ++j) {
      double ref = 0;
      for (int kk = 0; kk < o.k; ++kk)
        ref += element(o.a, o.a_codes[static_cast<size_t>(i * o.k + kk)]) *
               scale_value(sa[static_cast<size_t>(i * vec + kk / block)], ue4m3) *
               element(o.b, o.b_codes[static_cast<size_t>(j * o.k + kk)]) *
               scale_value(sb[static_cast<size_t>(j * vec + kk / block)], ue4m3);
      ASSERT_NEAR(got[static_cast<size_t>(i * o.n + j)], ref, 1e-6 * (1 + std::fabs(ref)))
          << "row " << i << ", column " << j;
    }
}

struct ScaledCase {
  bw::ScaledKind kind;
  bw::MmaType a, b;
  Elem ea, eb;
  bw::ScaleVec vec;
  int n, k, per_row, sfa_id, sfb_id;
  bool ue4m3;
};

void run_scaled(const ScaledCase& c, unsigned seed) {
  Operands o = random_operands(c.ea, c.eb, c.n, c.k, seed);
  std::mt19937 g(seed + 1);
  const auto sa = scale_cells(o.sfa_cells, kM, c.per_row, c.sfa_id, c.ue4m3, g);
  const auto sb = scale_cells(o.sfb_cells, c.n, c.per_row, c.sfb_id, c.ue4m3, g);
  bw::BlockScaledDescriptor id;
  id.kind = c.kind;
  id.a = c.a, id.b = c.b;
  id.vec = c.vec;
  id.scale_type = c.ue4m3 ? bw::ScaleType::ue4m3 : bw::ScaleType::ue8m0;
  id.m = kM, id.n = c.n;
  id.scale_a_id = c.sfa_id, id.scale_b_id = c.sfb_id;
  ASSERT_EQ(bw::scale_factors_per_row(id), c.per_row);
  ASSERT_EQ(bw::mma_k(id), c.k);
  const auto got = run(o, [&](const Reg& d, const Reg& da, const Reg& db, const Reg& sfa, const Reg& sfb) {
    ptx::Reg fresh = d != d;  // enable-input-d false: D = A * B
    bw::mma_block_scaled(id, d, da, db, sfa, sfb, fresh);
  });
  check_scaled(got, o, c.per_row, sa, sb, c.ue4m3);
}

TEST(BlackwellMmaFormsOnEmulator, BlockScaledMxf8f6f4) {
  // e4m3 A x e3m2 B, one ue8m0 factor per row at byte 1 (A) and 3 (B)
  run_scaled({bw::ScaledKind::MXF8F6F4, bw::MmaType::e4m3, bw::MmaType::e3m2, Elem::e4m3, Elem::e3m2, bw::ScaleVec::X1,
              16, 32, 1, 1, 3, false},
             7);
}

TEST(BlackwellMmaFormsOnEmulator, BlockScaledMxf4) {
  // two e2m1 per byte, K 64, two ue8m0 factors per row (.block32) in the upper half word of A's
  run_scaled({bw::ScaledKind::MXF4, bw::MmaType::e2m1, bw::MmaType::e2m1, Elem::e2m1_packed, Elem::e2m1_packed,
              bw::ScaleVec::Block32, 16, 64, 2, 2, 0, false},
             8);
}

TEST(BlackwellMmaFormsOnEmulator, BlockScaledMxf4nvf4) {
  // four ue4m3 factors per row (.block16: blocks of 16 elements)
  run_scaled({bw::ScaledKind::MXF4NVF4, bw::MmaType::e2m1, bw::MmaType::e2m1, Elem::e2m1_packed, Elem::e2m1_packed,
              bw::ScaleVec::Block16, 32, 64, 4, 0, 0, true},
             9);
}

// bf16 D = A * B on the host.
std::vector<double> product(const Operands& o) {
  std::vector<double> ref(static_cast<size_t>(kM * o.n), 0.0);
  for (int i = 0; i < kM; ++i)
    for (int j = 0; j < o.n; ++j)
      for (int kk = 0; kk < o.k; ++kk)
        ref[static_cast<size_t>(i * o.n + j)] += element(o.a, o.a_codes[static_cast<size_t>(i * o.k + kk)]) *
                                                 element(o.b, o.b_codes[static_cast<size_t>(j * o.k + kk)]);
  return ref;
}

TEST(BlackwellMmaFormsOnEmulator, WeightStationary) {
  const Operands o = random_operands(Elem::bf16, Elem::bf16, 64, 16, 10);
  const auto got = run(o, [](const Reg& d, const Reg& da, const Reg& db, const Reg&, const Reg&) {
    ptx::Reg fresh = d != d;
    bw::mma_ws(bw::bf16_f32(kM, 64), d, da, db, fresh,
               {.collector_b = bw::CollectorB{bw::CollectorBuffer::B1, bw::CollectorOp::Fill}});
  });
  const auto ref = product(o);
  for (size_t i = 0; i < ref.size(); ++i)
    ASSERT_NEAR(got[i], ref[i], 1e-6 * (1 + std::fabs(ref[i]))) << "element " << i;
}

// D = A*B, then D = A*B + D / 2 (scale-input-d 1) with lanes 5, 40 and 64..95 disabled: those
// keep A*B, the others get 1.5 A*B.
TEST(BlackwellMmaFormsOnEmulator, DisableOutputLaneAndScaleInputD) {
  const Operands o = random_operands(Elem::bf16, Elem::bf16, 16, 16, 11);
  const uint32_t masks[4] = {1u << 5, 1u << 8, 0xFFFFFFFFu, 0};
  const auto got = run(o, [&](const Reg& d, const Reg& da, const Reg& db, const Reg&, const Reg&) {
    std::array<ptx::Reg, 4> lanes{ptx::Reg(b32), ptx::Reg(b32), ptx::Reg(b32), ptx::Reg(b32)};
    for (size_t i = 0; i < 4; ++i) ptx::inst::mov.b32(lanes[i], masks[i]);
    ptx::Reg fresh = d != d, accumulate = d == d;
    const bw::InstrDescriptor id = bw::bf16_f32(kM, 16);
    bw::mma(id, d, da, db, fresh, {.collector_a = bw::CollectorOp::Fill});
    bw::mma(id, d, da, db, accumulate,
            {.collector_a = bw::CollectorOp::LastUse, .disable_output_lane = lanes, .scale_input_d = 1});
  });
  const auto ref = product(o);
  for (int i = 0; i < kM; ++i) {
    const bool disabled = masks[i / 32] >> (i % 32) & 1;
    for (int j = 0; j < o.n; ++j) {
      const double want = ref[static_cast<size_t>(i * o.n + j)] * (disabled ? 1.0 : 1.5);
      ASSERT_NEAR(got[static_cast<size_t>(i * o.n + j)], want, 1e-6 * (1 + std::fabs(want)))
          << "row " << i << ", column " << j;
    }
  }
}

}  // namespace
}  // namespace ptx::test
