// The sm_90 flash attention example (examples/kernels/flash_attn_sm90.hpp) on the CPU device:
// TMA loads of Q, K, V (3-D tensor maps, rows past S zero-filled), the K/V mbarrier ring, wgmma
// with A from shared memory (Q K^T) and from registers (P V), the online softmax, the causal
// and partial-tile masks, against the plain-softmax CPU reference (examples/kernels/flash_attn_ref.hpp).
#include <chrono>
#include <cmath>
#include <iostream>
#include <ostream>
#include <random>
#include <string>
#include <utility>
#include <vector>

#include <gtest/gtest.h>
#include <ptxpp/runtime.hpp>

#include "../../examples/kernels/bf16_host.hpp"
#include "../../examples/kernels/flash_attn_ref.hpp"
#include "../../examples/kernels/flash_attn_sm90.hpp"

namespace ptx::test {
namespace {

using examples::from_bf16;
using examples::to_bf16;

std::vector<uint16_t> random_bf16(size_t n, unsigned seed, float range) {
  std::mt19937 g(seed);
  std::uniform_real_distribution<float> d(-range, range);
  std::vector<uint16_t> v(n);
  for (auto& x : v) x = to_bf16(d(g));
  return v;
}

struct Case {
  int64_t B, H, S, D;
  bool causal, lse;
  bool pingpong = false;
};

// Tolerance. The kernel differs from the f32 reference by (1) P rounded to bf16 before P V
// (each p has a relative error <= 2^-9, so O = sum p v / l moves by <= 2^-9 max|v| = 2^-9),
// (2) O rounded to bf16 when stored (<= 2^-9 |O| <= 2^-9), (3) ex2.approx (relative error
// ~2^-22) and f32 sums in another order (~1e-6 here). |v| <= 1, so |O - ref| <= 2^-8 + 1e-4.
// L is f32: lg2.approx (absolute error ~2^-22) plus the sums' rounding: 1e-4.
constexpr double kOTol = 1.0 / 256 + 1e-4, kLTol = 1e-4;

void check_flash(const Case& c) {
  const size_t n = static_cast<size_t>(c.B * c.H * c.S * c.D), rows = static_cast<size_t>(c.B * c.H * c.S);
  // scores of a few units: Q, K in [-1, 1], scale 1/sqrt(D) * 2, so the softmax is neither flat nor one-hot
  const auto q = random_bf16(n, 41, 1.0f), k = random_bf16(n, 42, 1.0f), v = random_bf16(n, 43, 1.0f);
  const float scale = 2.0f / std::sqrt(static_cast<float>(c.D));
  Device cpu = device::cpu();
  DevicePtr dq = cpu.alloc(n * 2, "Q"), dk = cpu.alloc(n * 2, "K"), dv = cpu.alloc(n * 2, "V"), dout = cpu.alloc(n * 2, "O");
  DevicePtr dl = cpu.alloc(rows * 4, "L");
  cpu.copy_to_device(dq, q.data(), n * 2);
  cpu.copy_to_device(dk, k.data(), n * 2);
  cpu.copy_to_device(dv, v.data(), n * 2);
  cpu.fill(dout, 0xff, n * 2);  // NaN: every element must be written
  cpu.fill(dl, 0xff, rows * 4);
  const TensorMap mq = examples::flash_attn_sm90_tensor_map(cpu, dq, c.B, c.H, c.S, c.D);
  const TensorMap mk = examples::flash_attn_sm90_tensor_map(cpu, dk, c.B, c.H, c.S, c.D);
  const TensorMap mv = examples::flash_attn_sm90_tensor_map(cpu, dv, c.B, c.H, c.S, c.D);
  const examples::FlashAttnSm90Options variant{.causal = c.causal, .with_lse = c.lse, .pingpong = c.pingpong};
  auto kern = bind(cpu, examples::flash_attn_sm90("sm_90a", static_cast<int>(c.D), variant),
                   {{"B", c.B}, {"H", c.H}, {"S", c.S}, {"D", c.D}});
  const auto start = std::chrono::steady_clock::now();
  if (c.lse) kern(mq, mk, mv, dout, dl, scale);
  else kern(mq, mk, mv, dout, scale);
  cpu.synchronize();
  const double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  std::vector<uint16_t> got(n);
  std::vector<float> got_l(rows);
  cpu.copy_to_host(got.data(), dout, n * 2);
  cpu.copy_to_host(got_l.data(), dl, rows * 4);
  double worst = 0, worst_l = 0;
  std::vector<float> ref(static_cast<size_t>(c.D));
  for (int64_t bh = 0; bh < c.B * c.H; ++bh)
    for (int64_t i = 0; i < c.S; ++i) {
      float ref_l = 0;
      examples::attention_row_reference(q, k, v, c.S, c.D, bh, i, scale, c.causal, ref.data(), &ref_l);
      const size_t row = static_cast<size_t>(bh * c.S + i);
      for (int64_t d = 0; d < c.D; ++d) {
        const double e = std::fabs(from_bf16(got[row * static_cast<size_t>(c.D) + static_cast<size_t>(d)]) - ref[static_cast<size_t>(d)]);
        worst = std::max(worst, std::isnan(e) ? 1e9 : e);
        ASSERT_LE(e, kOTol) << "head " << bh << " row " << i << " col " << d;
      }
      if (c.lse) {
        const double e = std::fabs(got_l[row] - ref_l);
        worst_l = std::max(worst_l, std::isnan(e) ? 1e9 : e);
        ASSERT_LE(e, kLTol) << "L: head " << bh << " row " << i;
      }
    }
  std::cout << "[ flash_attn_sm90 B=" << c.B << " H=" << c.H << " S=" << c.S << " D=" << c.D << (c.causal ? " causal" : "")
            << (c.pingpong ? " ping-pong" : "") << " ] emulator: " << secs << " s, max |O - ref| " << worst
            << (c.lse ? ", max |L - ref| " + std::to_string(worst_l) : "") << "\n";
  for (DevicePtr p : {dq, dk, dv, dout, dl}) cpu.free(p);
}

void PrintTo(const Case& c, std::ostream* os) {
  *os << "B=" << c.B << " H=" << c.H << " S=" << c.S << " D=" << c.D << (c.causal ? " causal" : "") << (c.lse ? " lse" : "")
      << (c.pingpong ? " ping-pong" : "");
}

std::string case_name(const ::testing::TestParamInfo<Case>& i) {
  const Case& c = i.param;
  std::string name;  // appended piecewise: GCC 12's -Wrestrict misfires on "B" + std::string
  for (const auto& [letter, value] : {std::pair{'B', c.B}, std::pair{'H', c.H}, std::pair{'S', c.S}, std::pair{'D', c.D}}) {
    name += letter;
    name += std::to_string(value);
  }
  if (c.causal) name += "Causal";
  if (c.lse) name += "Lse";
  if (c.pingpong) name += "PingPong";
  return name;
}

class FlashAttnOnEmulator : public ::testing::TestWithParam<Case> {};

TEST_P(FlashAttnOnEmulator, MatchesTheCpuReference) { check_flash(GetParam()); }

// S = 128: one tile; S = 192: a partial second Q tile and K/V tile (64 keys past S masked or,
// causal, on the diagonal); S = 100: a single partial tile. The ring has 4 stages for D = 64 and
// 3 for D = 128; after the peeled first tile the others run in a run-time loop of one round of
// the ring, then the tiles left: S = 320 (D = 64, 2 tiles left, no round), S = 960 (D = 64: a
// round and 3 left), S = 640 (D = 128: a round and 1 left); causal, Q tile m has m tiles after
// the diagonal: S = 1152 (D = 64, m = 0..8: 0 to 2 rounds, every count of tiles left, 0 to 3)
// and S = 640 (D = 128, m = 0..4).
INSTANTIATE_TEST_SUITE_P(
    Shapes, FlashAttnOnEmulator,
    ::testing::Values(Case{1, 2, 128, 64, false, true}, Case{1, 2, 192, 64, false, false}, Case{1, 2, 128, 64, true, false},
                      Case{1, 2, 192, 64, true, true}, Case{1, 2, 128, 128, false, false}, Case{1, 2, 192, 128, false, true},
                      Case{1, 2, 128, 128, true, true}, Case{1, 2, 192, 128, true, false}, Case{2, 1, 320, 64, false, false},
                      Case{1, 1, 448, 64, true, false}, Case{1, 1, 100, 128, false, true}, Case{1, 1, 960, 64, false, false},
                      Case{1, 1, 640, 128, false, false}, Case{1, 1, 1152, 64, true, true}, Case{1, 1, 640, 128, true, false}),
    case_name);

// Ping-pong (the consumer warpgroups take turns on named barriers 1 and 2): every step of the
// schedule and every path out of the leftover tiles, D = 64 and 128, causal and not, partial
// last tiles. Non-causal: S = 320 (D = 64: 3 tiles, 2 left after the peeled one, no round of
// the ring), S = 192 (D = 128: 2 tiles). Causal, Q tile m has m tiles after the diagonal (m = 0:
// the peeled tile's step and the last P V's only): S = 320 (D = 64, m = 0..2), S = 448 (D = 128,
// 3 stages, m = 0..3: every count of tiles left and a round).
INSTANTIATE_TEST_SUITE_P(
    PingPong, FlashAttnOnEmulator,
    ::testing::Values(Case{1, 1, 320, 64, false, true, true}, Case{1, 1, 320, 64, true, false, true},
                      Case{1, 1, 192, 128, false, false, true}, Case{1, 1, 448, 128, true, true, true}),
    case_name);

}  // namespace
}  // namespace ptx::test
