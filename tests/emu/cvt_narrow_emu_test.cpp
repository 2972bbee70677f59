// cvt to and from the 4- and 6-bit formats (e2m1, e2m3, e3m2) and ue8m0 on the emulator. The
// reference enumerates each format's values from its definition (sign, exponent bias, mantissa
// bits) and picks the nearest (ties to the even code, saturating to the largest finite value).
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <string>
#include <vector>

#include "../unit/ptxas_util.hpp"
#include "emu_test_util.hpp"

namespace ptx::test {
namespace {

struct MiniFloat {
  int exp_bits, man_bits, bias;
  double value(uint32_t code) const {  // code without the sign
    const uint32_t e = code >> man_bits, m = code & ((1u << man_bits) - 1);
    const double frac = static_cast<double>(m) / (1u << man_bits);
    return e == 0 ? std::ldexp(frac, 1 - bias) : std::ldexp(1.0 + frac, static_cast<int>(e) - bias);
  }
  uint32_t codes() const { return 1u << (exp_bits + man_bits); }
  uint32_t sign_bit() const { return 1u << (exp_bits + man_bits); }
  uint32_t nearest(double x) const {
    const double a = std::fabs(x);
    uint32_t best = 0;
    for (uint32_t c = 1; c < codes(); ++c) {
      const double d = std::fabs(value(c) - a), db = std::fabs(value(best) - a);
      if (d < db || (d == db && c % 2 == 0)) best = c;
    }
    return best | (std::signbit(x) ? sign_bit() : 0);  // the sign stays, also on a value rounded to zero
  }
};
const MiniFloat kE2M1{2, 1, 1}, kE2M3{2, 3, 1}, kE3M2{3, 2, 3};

uint32_t ue8m0(float x, bool up) {
  if (!(x > 0)) return 0;
  int e = static_cast<int>(std::floor(std::log2(static_cast<double>(x))));
  if (up && std::ldexp(1.0, e) < x) ++e;
  return static_cast<uint32_t>(std::min(std::max(e + 127, 0), 254));
}

uint16_t f16_bits(double v) {  // exact values only (these formats fit in f16)
  if (v == 0) return std::signbit(v) ? 0x8000 : 0;
  int e;
  const double m = std::frexp(std::fabs(v), &e);  // |v| = m 2^e
  const uint16_t sign = v < 0 ? 0x8000 : 0;
  if (e - 1 < -14) return static_cast<uint16_t>(sign | static_cast<uint16_t>(std::ldexp(std::fabs(v), 24)));
  return static_cast<uint16_t>(sign | (e - 1 + 15) << 10 | static_cast<uint16_t>((m * 2 - 1) * 1024));
}

TEST(EmuCvtNarrow, Fp4Fp6Ue8m0) {
  const std::string text = emu_kernel("cvt_narrow.ptx");
  const std::vector<float> vals = {1.5f, -5.0f, 0.25f, 3.0f, 100.0f, -0.1f, 0.7f, 2.5f, 6.0f, -7.0f, 0.0625f, 28.0f, 30.0f, 0.3f,
                                   1e-3f, -0.0f, 7.5f, 0.4375f, 13.0f, 0.09375f, 3.75f, -1.0f, 1024.0f, 1e-40f};
  const uint32_t n = static_cast<uint32_t>(vals.size() / 2);
  EmuRun r;
  r.buffer(vals, "in");
  const uint64_t out = r.buffer(std::vector<uint32_t>(12 * n), "out");
  r.launch(text, "cvt_narrow", {1, 1, 1}, {n, 1, 1});
  const auto got = r.read<uint32_t>(out, 12 * n);
  for (uint32_t t = 0; t < n; ++t) {
    const float a = vals[2 * t], b = vals[2 * t + 1];
    const uint32_t e2m1 = kE2M1.nearest(a) << 4 | kE2M1.nearest(b);
    const uint32_t e2m3 = kE2M3.nearest(a) << 8 | kE2M3.nearest(b);
    const uint32_t e3m2 = kE3M2.nearest(a) << 8 | kE3M2.nearest(b);
    auto back = [](const MiniFloat& f, uint32_t code) {
      const double v = f.value(code & (f.sign_bit() - 1));
      return f16_bits(code & f.sign_bit() ? -v : v);
    };
    const uint32_t rz = ue8m0(a, false) << 8 | ue8m0(b, false);
    const uint32_t want[9] = {e2m1,
                              e2m3,
                              e3m2,
                              rz,
                              ue8m0(a, true) << 8 | ue8m0(b, true),
                              static_cast<uint32_t>(back(kE2M1, e2m1 >> 4)) << 16 | back(kE2M1, e2m1 & 0xF),
                              static_cast<uint32_t>(back(kE2M3, e2m3 >> 8)) << 16 | back(kE2M3, e2m3 & 0xFF),
                              static_cast<uint32_t>(back(kE3M2, e3m2 >> 8)) << 16 | back(kE3M2, e3m2 & 0xFF),
                              0};
    for (int k = 0; k < 8; ++k)
      EXPECT_EQ(got[12 * t + static_cast<uint32_t>(k)], want[k]) << "result " << k << " a=" << a << " b=" << b << std::hex << " got "
                                                                  << got[12 * t + static_cast<uint32_t>(k)] << " want " << want[k];
    // ue8m0 to bf16: 2^(code - 127), in bf16's bits (the exponent field, or a subnormal for code 0)
    auto bf16 = [](uint32_t code) { return code == 0 ? 0x0040u : code << 7; };
    EXPECT_EQ(got[12 * t + 8], bf16(rz >> 8) << 16 | bf16(rz & 0xFF)) << t;
  }
  if (have_ptxas()) {
    const auto as = run_ptxas(text, "sm_100a");
    EXPECT_TRUE(as.ok) << as.log;
  }
}

}  // namespace
}  // namespace ptx::test
