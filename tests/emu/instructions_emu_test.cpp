// Instruction families on the emulator, against C++ reference computations. Each
// case is one PTX instruction applied per thread to inputs %a, %b, %c loaded from
// global memory, its result %d stored back; ptxas also checks every test module.
#include <bit>
#include <cmath>
#include <cstring>
#include <limits>
#include <random>
#include <sstream>

#include "../unit/ptxas_util.hpp"
#include "emu_test_util.hpp"

namespace ptx::test {
namespace {

constexpr int kN = 64;

unsigned size_of(const std::string& t) { return t == ".pred" ? 1 : static_cast<unsigned>(std::stoi(t.substr(2))) / 8; }
std::string bits_type(const std::string& t) { return ".b" + std::to_string(size_of(t) * 8); }

struct Case {
  std::string ta, tb, tc, td;  // register types of %a, %b, %c and the result %d
  std::string inst;            // e.g. "add.s32 %d, %a, %b;"
  std::string arch = "sm_90a";
  std::string version = "8.1";
};

std::string module_text(const Case& c) {
  std::string s = ".version " + c.version + "\n.target " + c.arch + "\n.address_size 64\n\n";
  s += ".visible .entry t(.param .u64 pa, .param .u64 pb, .param .u64 pc, .param .u64 pd)\n{\n";
  s += "\t.reg .b64 %rd<16>;\n\t.reg .b32 %r<4>;\n\t.reg .pred %p<4>;\n";
  s += "\t.reg " + c.ta + " %a;\n\t.reg " + c.tb + " %b;\n\t.reg " + c.tc + " %c;\n\t.reg " + c.td + " %d;\n";
  s += "\tmov.u32 %r1, %tid.x;\n";
  const char* params[] = {"pa", "pb", "pc", "pd"};
  const std::string* types[] = {&c.ta, &c.tb, &c.tc, &c.td};
  const char* regs[] = {"%a", "%b", "%c", "%d"};
  for (int i = 0; i < 4; ++i) {
    const int base = 1 + i * 3;
    s += "\tld.param.u64 %rd" + std::to_string(base) + ", [" + params[i] + "];\n";
    s += "\tcvta.to.global.u64 %rd" + std::to_string(base) + ", %rd" + std::to_string(base) + ";\n";
    s += "\tmul.wide.u32 %rd" + std::to_string(base + 1) + ", %r1, " + std::to_string(size_of(*types[i] == ".pred" ? std::string(".b8") : *types[i])) + ";\n";
    s += "\tadd.s64 %rd" + std::to_string(base + 2) + ", %rd" + std::to_string(base) + ", %rd" + std::to_string(base + 1) + ";\n";
    if (i == 3) continue;
    if (*types[i] == ".pred") {
      s += "\tld.global.u8 %r2, [%rd" + std::to_string(base + 2) + "];\n\tsetp.ne.u32 " + regs[i] + ", %r2, 0;\n";
    } else {
      s += "\tld.global" + bits_type(*types[i]) + " " + regs[i] + ", [%rd" + std::to_string(base + 2) + "];\n";
    }
  }
  s += "\t" + c.inst + "\n";
  if (c.td == ".pred") s += "\tselp.u32 %r3, 1, 0, %d;\n\tst.global.u8 [%rd12], %r3;\n";
  else s += "\tst.global" + bits_type(c.td) + " [%rd12], %d;\n";
  s += "\tret;\n}\n";
  return s;
}

template <class A, class B, class C, class D>
std::vector<D> run(const Case& c, const std::vector<A>& a, const std::vector<B>& b, const std::vector<C>& cc) {
  const std::string text = module_text(c);
  if (have_ptxas()) {
    const auto r = run_ptxas(text, c.arch);
    EXPECT_TRUE(r.ok) << r.log << "\n" << text;
  }
  EmuRun er;
  er.buffer(a, "a");
  er.buffer(b, "b");
  er.buffer(cc, "c");
  const uint64_t d = er.buffer(std::vector<D>(kN), "d");
  er.launch(text, "t", {1, 1, 1}, {kN, 1, 1});
  return er.read<D>(d, kN);
}

template <class T>
std::vector<T> randoms(uint32_t seed) {
  std::mt19937_64 g(seed);
  std::vector<T> v(kN);
  for (int i = 0; i < kN; ++i) {
    if constexpr (std::is_floating_point_v<T>) {
      v[i] = static_cast<T>(std::uniform_real_distribution<double>(-100, 100)(g));
    } else {
      const uint64_t r = g();
      // a mix of small values, extremes and random bits
      switch (i % 4) {
        case 0: v[i] = static_cast<T>(r % 17); break;
        case 1: v[i] = static_cast<T>(0 - (r % 17)); break;
        case 2: v[i] = i % 8 == 2 ? std::numeric_limits<T>::max() : std::numeric_limits<T>::min(); break;
        default: v[i] = static_cast<T>(r); break;
      }
    }
  }
  return v;
}

// Equal, or for a NaN reference the canonical NaN the hardware produces (0x7fffffff for .f32).
template <class T>
bool same(T got, T want) {
  if constexpr (std::is_same_v<T, float>) {
    if (std::isnan(want)) return std::bit_cast<uint32_t>(got) == 0x7fffffffu;
  }
  if constexpr (std::is_same_v<T, double>) {
    if (std::isnan(want)) return std::isnan(got);
  }
  return got == want;
}

template <class T, class F>
void expect_binary(const std::string& t, const std::string& inst, F ref, uint32_t seed = 1) {
  auto a = randoms<T>(seed), b = randoms<T>(seed + 7);
  if constexpr (std::is_floating_point_v<T>) a[1] = -a[1] < 0 ? a[1] : -a[1], b[2] = 0;  // negatives, division by zero
  std::vector<T> c(kN);
  auto d = run<T, T, T, T>({t, t, t, t, inst}, a, b, c);
  for (int i = 0; i < kN; ++i) ASSERT_TRUE(same(d[i], ref(a[i], b[i]))) << inst << " a=" << +a[i] << " b=" << +b[i] << " got " << +d[i];
}

TEST(EmuInteger, AddSubMulDivRem) {
  expect_binary<int32_t>(".s32", "add.s32 %d, %a, %b;", [](int32_t a, int32_t b) { return static_cast<int32_t>(static_cast<uint32_t>(a) + static_cast<uint32_t>(b)); });
  expect_binary<uint32_t>(".u32", "sub.u32 %d, %a, %b;", [](uint32_t a, uint32_t b) { return a - b; });
  expect_binary<int32_t>(".s32", "mul.lo.s32 %d, %a, %b;", [](int32_t a, int32_t b) { return static_cast<int32_t>(static_cast<uint32_t>(a) * static_cast<uint32_t>(b)); });
  expect_binary<int32_t>(".s32", "mul.hi.s32 %d, %a, %b;", [](int32_t a, int32_t b) { return static_cast<int32_t>((static_cast<int64_t>(a) * b) >> 32); });
  expect_binary<uint32_t>(".u32", "mul.hi.u32 %d, %a, %b;", [](uint32_t a, uint32_t b) { return static_cast<uint32_t>((static_cast<uint64_t>(a) * b) >> 32); });
  expect_binary<uint64_t>(".u64", "mul.lo.u64 %d, %a, %b;", [](uint64_t a, uint64_t b) { return a * b; });
  expect_binary<uint32_t>(".u32", "div.u32 %d, %a, %b;", [](uint32_t a, uint32_t b) { return b ? a / b : 0xFFFFFFFFu; });
  expect_binary<int32_t>(".s32", "rem.s32 %d, %a, %b;", [](int32_t a, int32_t b) { return b == 0 ? a : b == -1 ? 0 : a % b; });
  expect_binary<int16_t>(".s16", "add.s16 %d, %a, %b;", [](int16_t a, int16_t b) { return static_cast<int16_t>(a + b); });
}

TEST(EmuInteger, WideAndMad) {
  auto a = randoms<int32_t>(3), b = randoms<int32_t>(4);
  auto c64 = randoms<int64_t>(5);
  auto d = run<int32_t, int32_t, int64_t, int64_t>({".s32", ".s32", ".s64", ".s64", "mul.wide.s32 %d, %a, %b;"}, a, b, c64);
  for (int i = 0; i < kN; ++i) ASSERT_EQ(d[i], static_cast<int64_t>(a[i]) * b[i]);
  auto e = run<int32_t, int32_t, int64_t, int64_t>({".s32", ".s32", ".s64", ".s64", "mad.wide.s32 %d, %a, %b, %c;"}, a, b, c64);
  for (int i = 0; i < kN; ++i) ASSERT_EQ(e[i], static_cast<int64_t>(static_cast<uint64_t>(static_cast<int64_t>(a[i]) * b[i]) + static_cast<uint64_t>(c64[i])));
  auto c32 = randoms<int32_t>(6);
  auto f = run<int32_t, int32_t, int32_t, int32_t>({".s32", ".s32", ".s32", ".s32", "mad.lo.s32 %d, %a, %b, %c;"}, a, b, c32);
  for (int i = 0; i < kN; ++i)
    ASSERT_EQ(f[i], static_cast<int32_t>(static_cast<uint32_t>(a[i]) * static_cast<uint32_t>(b[i]) + static_cast<uint32_t>(c32[i])));
}

TEST(EmuInteger, MinMaxAndBits) {
  expect_binary<int32_t>(".s32", "min.s32 %d, %a, %b;", [](int32_t a, int32_t b) { return std::min(a, b); });
  expect_binary<uint32_t>(".u32", "max.u32 %d, %a, %b;", [](uint32_t a, uint32_t b) { return std::max(a, b); });
  expect_binary<uint32_t>(".b32", "and.b32 %d, %a, %b;", [](uint32_t a, uint32_t b) { return a & b; });
  expect_binary<uint64_t>(".b64", "xor.b64 %d, %a, %b;", [](uint64_t a, uint64_t b) { return a ^ b; });
  expect_binary<uint32_t>(".b32", "not.b32 %d, %a;", [](uint32_t a, uint32_t) { return ~a; });
  expect_binary<uint32_t>(".b32", "popc.b32 %d, %a;", [](uint32_t a, uint32_t) { return static_cast<uint32_t>(std::popcount(a)); });
  expect_binary<uint32_t>(".b32", "clz.b32 %d, %a;", [](uint32_t a, uint32_t) { return static_cast<uint32_t>(std::countl_zero(a)); });
  expect_binary<uint32_t>(".b32", "brev.b32 %d, %a;", [](uint32_t a, uint32_t) {
    uint32_t r = 0;
    for (int i = 0; i < 32; ++i) r |= ((a >> i) & 1u) << (31 - i);
    return r;
  });
  expect_binary<int32_t>(".s32", "abs.s32 %d, %a;", [](int32_t a, int32_t) { return a == INT32_MIN ? a : std::abs(a); });
  expect_binary<uint32_t>(".b32", "lop3.b32 %d, %a, %b, 0x0f0f0f0f, 0x96;", [](uint32_t a, uint32_t b) { return a ^ b ^ 0x0f0f0f0fu; });
  expect_binary<uint32_t>(".b32", "prmt.b32 %d, %a, %b, 0x3210;", [](uint32_t a, uint32_t) { return a; });
  expect_binary<uint32_t>(".b32", "prmt.b32 %d, %a, %b, 0x7654;", [](uint32_t, uint32_t b) { return b; });
}

TEST(EmuInteger, Shifts) {
  auto a = randoms<int32_t>(8);
  std::vector<uint32_t> n(kN);
  for (int i = 0; i < kN; ++i) n[i] = static_cast<uint32_t>(i % 40);  // includes shifts >= 32
  std::vector<int32_t> c(kN);
  auto shl = run<int32_t, uint32_t, int32_t, int32_t>({".b32", ".u32", ".b32", ".b32", "shl.b32 %d, %a, %b;"}, a, n, c);
  auto sra = run<int32_t, uint32_t, int32_t, int32_t>({".s32", ".u32", ".s32", ".s32", "shr.s32 %d, %a, %b;"}, a, n, c);
  auto srl = run<int32_t, uint32_t, int32_t, int32_t>({".u32", ".u32", ".u32", ".u32", "shr.u32 %d, %a, %b;"}, a, n, c);
  for (int i = 0; i < kN; ++i) {
    const uint32_t s = n[i];
    ASSERT_EQ(shl[i], s >= 32 ? 0 : static_cast<int32_t>(static_cast<uint32_t>(a[i]) << s));
    ASSERT_EQ(sra[i], s >= 32 ? (a[i] < 0 ? -1 : 0) : a[i] >> s);
    ASSERT_EQ(srl[i], s >= 32 ? 0 : static_cast<int32_t>(static_cast<uint32_t>(a[i]) >> s));
  }
}

TEST(EmuFloat, ArithmeticIsIeee) {
  expect_binary<float>(".f32", "add.rn.f32 %d, %a, %b;", [](float a, float b) { return a + b; });
  expect_binary<float>(".f32", "mul.rn.f32 %d, %a, %b;", [](float a, float b) { return a * b; });
  expect_binary<float>(".f32", "div.rn.f32 %d, %a, %b;", [](float a, float b) { return a / b; });
  expect_binary<double>(".f64", "sub.rn.f64 %d, %a, %b;", [](double a, double b) { return a - b; });
  expect_binary<float>(".f32", "min.f32 %d, %a, %b;", [](float a, float b) { return std::min(a, b); });
  expect_binary<float>(".f32", "neg.f32 %d, %a;", [](float a, float) { return -a; });
  expect_binary<float>(".f32", "abs.f32 %d, %a;", [](float a, float) { return std::fabs(a); });
  expect_binary<float>(".f32", "sqrt.rn.f32 %d, %a;", [](float a, float) { return std::sqrt(a); });
  auto a = randoms<float>(9), b = randoms<float>(10), c = randoms<float>(11);
  auto d = run<float, float, float, float>({".f32", ".f32", ".f32", ".f32", "fma.rn.f32 %d, %a, %b, %c;"}, a, b, c);
  for (int i = 0; i < kN; ++i) ASSERT_EQ(d[i], std::fma(a[i], b[i], c[i]));
  auto s = run<float, float, float, float>({".f32", ".f32", ".f32", ".f32", "add.rn.sat.f32 %d, %a, %b;"}, a, b, c);
  for (int i = 0; i < kN; ++i) ASSERT_EQ(s[i], std::clamp(a[i] + b[i], 0.0f, 1.0f));
}

TEST(EmuFloat, ApproximationsWithinTheManualsBounds) {
  auto a = randoms<float>(12);
  for (auto& x : a) x = std::fabs(x) + 0.5f;
  std::vector<float> z(kN);
  auto ex2 = run<float, float, float, float>({".f32", ".f32", ".f32", ".f32", "ex2.approx.ftz.f32 %d, %a;"}, a, z, z);
  auto lg2 = run<float, float, float, float>({".f32", ".f32", ".f32", ".f32", "lg2.approx.f32 %d, %a;"}, a, z, z);
  auto rsq = run<float, float, float, float>({".f32", ".f32", ".f32", ".f32", "rsqrt.approx.f32 %d, %a;"}, a, z, z);
  for (int i = 0; i < kN; ++i) {
    const double x = a[i] / 16.0;  // keep ex2 finite
    (void)x;
    ASSERT_NEAR(lg2[i], std::log2(static_cast<double>(a[i])), 1e-6 * 4);
    ASSERT_NEAR(rsq[i], 1.0 / std::sqrt(static_cast<double>(a[i])), 1e-6 * 4);
    const double e = std::exp2(static_cast<double>(a[i]));
    ASSERT_NEAR(ex2[i], e, e * 4e-7 * 2 + 1e-30);
  }
}

TEST(EmuConvert, IntegersAndFloats) {
  auto f = randoms<float>(13);
  f[0] = 2.5f, f[1] = -2.5f, f[2] = 1e20f, f[3] = -1e20f, f[4] = std::numeric_limits<float>::quiet_NaN(), f[5] = 3.5f;
  std::vector<float> z(kN);
  auto rni = run<float, float, float, int32_t>({".f32", ".f32", ".f32", ".s32", "cvt.rni.s32.f32 %d, %a;"}, f, z, z);
  auto rzi = run<float, float, float, int32_t>({".f32", ".f32", ".f32", ".s32", "cvt.rzi.s32.f32 %d, %a;"}, f, z, z);
  auto rmi = run<float, float, float, uint32_t>({".f32", ".f32", ".f32", ".u32", "cvt.rmi.u32.f32 %d, %a;"}, f, z, z);
  for (int i = 0; i < kN; ++i) {
    auto sat_s32 = [](double x) -> int32_t {
      if (std::isnan(x)) return 0;
      return static_cast<int32_t>(std::clamp(x, -2147483648.0, 2147483647.0));
    };
    ASSERT_EQ(rni[i], sat_s32(std::nearbyint(static_cast<double>(f[i])))) << f[i];
    ASSERT_EQ(rzi[i], sat_s32(std::trunc(static_cast<double>(f[i])))) << f[i];
    const double fl = std::floor(static_cast<double>(f[i]));
    ASSERT_EQ(rmi[i], std::isnan(fl) ? 0u : static_cast<uint32_t>(std::clamp(fl, 0.0, 4294967295.0))) << f[i];
  }
  auto s = randoms<int32_t>(14);
  std::vector<int32_t> zi(kN);
  auto to_f = run<int32_t, int32_t, int32_t, float>({".s32", ".s32", ".s32", ".f32", "cvt.rn.f32.s32 %d, %a;"}, s, zi, zi);
  auto to_d = run<int32_t, int32_t, int32_t, double>({".s32", ".s32", ".s32", ".f64", "cvt.rn.f64.s32 %d, %a;"}, s, zi, zi);
  auto sat8 = run<int32_t, int32_t, int32_t, int8_t>({".s32", ".s32", ".s32", ".s8", "cvt.sat.s8.s32 %d, %a;"}, s, zi, zi);
  auto wid = run<int32_t, int32_t, int32_t, int64_t>({".s32", ".s32", ".s32", ".s64", "cvt.s64.s32 %d, %a;"}, s, zi, zi);
  for (int i = 0; i < kN; ++i) {
    ASSERT_EQ(to_f[i], static_cast<float>(s[i]));
    ASSERT_EQ(to_d[i], static_cast<double>(s[i]));
    ASSERT_EQ(sat8[i], static_cast<int8_t>(std::clamp(s[i], -128, 127)));
    ASSERT_EQ(wid[i], static_cast<int64_t>(s[i]));
  }
  auto d = randoms<double>(15);
  std::vector<double> zd(kN);
  auto narrow = run<double, double, double, float>({".f64", ".f64", ".f64", ".f32", "cvt.rn.f32.f64 %d, %a;"}, d, zd, zd);
  auto down = run<double, double, double, float>({".f64", ".f64", ".f64", ".f32", "cvt.rz.f32.f64 %d, %a;"}, d, zd, zd);
  for (int i = 0; i < kN; ++i) {
    ASSERT_EQ(narrow[i], static_cast<float>(d[i]));
    const float rz = static_cast<float>(d[i]);
    const float expect = std::fabs(static_cast<double>(rz)) > std::fabs(d[i]) ? std::nextafter(rz, 0.0f) : rz;
    ASSERT_EQ(down[i], expect) << d[i];
  }
}

TEST(EmuCompare, SetpAndSelp) {
  auto a = randoms<int32_t>(16), b = randoms<int32_t>(17);
  std::vector<int32_t> c(kN);
  for (const auto& [op, ref] : std::vector<std::pair<std::string, std::function<bool(int32_t, int32_t)>>>{
           {"lt.s32", [](int32_t x, int32_t y) { return x < y; }},
           {"ge.s32", [](int32_t x, int32_t y) { return x >= y; }},
           {"lo.u32", [](int32_t x, int32_t y) { return static_cast<uint32_t>(x) < static_cast<uint32_t>(y); }},
           {"ne.b32", [](int32_t x, int32_t y) { return x != y; }}}) {
    auto d = run<int32_t, int32_t, int32_t, uint8_t>({".b32", ".b32", ".b32", ".pred", "setp." + op + " %d, %a, %b;"}, a, b, c);
    for (int i = 0; i < kN; ++i) ASSERT_EQ(d[i], ref(a[i], b[i]) ? 1 : 0) << op;
  }
  std::vector<uint8_t> p(kN);
  for (int i = 0; i < kN; ++i) p[i] = static_cast<uint8_t>(i % 3 == 0);
  auto s = run<int32_t, int32_t, uint8_t, int32_t>({".b32", ".b32", ".pred", ".b32", "selp.b32 %d, %a, %b, %c;"}, a, b, p);
  for (int i = 0; i < kN; ++i) ASSERT_EQ(s[i], p[i] ? a[i] : b[i]);
  auto f = randoms<float>(18), g = randoms<float>(19);
  f[0] = std::numeric_limits<float>::quiet_NaN();
  std::vector<float> zf(kN);
  auto ltu = run<float, float, float, uint8_t>({".f32", ".f32", ".f32", ".pred", "setp.ltu.f32 %d, %a, %b;"}, f, g, zf);
  auto lt = run<float, float, float, uint8_t>({".f32", ".f32", ".f32", ".pred", "setp.lt.f32 %d, %a, %b;"}, f, g, zf);
  for (int i = 0; i < kN; ++i) {
    ASSERT_EQ(ltu[i], (std::isnan(f[i]) || f[i] < g[i]) ? 1 : 0);
    ASSERT_EQ(lt[i], (!std::isnan(f[i]) && f[i] < g[i]) ? 1 : 0);
  }
  auto band = run<int32_t, int32_t, uint8_t, uint8_t>({".s32", ".s32", ".pred", ".pred", "setp.gt.and.s32 %d, %a, %b, %c;"}, a, b, p);
  for (int i = 0; i < kN; ++i) ASSERT_EQ(band[i], (a[i] > b[i] && p[i]) ? 1 : 0);
}

TEST(EmuWarp, ShuffleVoteMatch) {
  std::vector<uint32_t> a(kN), z(kN);
  for (int i = 0; i < kN; ++i) a[i] = static_cast<uint32_t>(i * 7 + 1);
  auto bfly = run<uint32_t, uint32_t, uint32_t, uint32_t>({".b32", ".b32", ".b32", ".b32", "shfl.sync.bfly.b32 %d, %a, 5, 0x1f, 0xffffffff;"}, a, z, z);
  auto up = run<uint32_t, uint32_t, uint32_t, uint32_t>({".b32", ".b32", ".b32", ".b32", "shfl.sync.up.b32 %d, %a, 3, 0, 0xffffffff;"}, a, z, z);
  auto down = run<uint32_t, uint32_t, uint32_t, uint32_t>({".b32", ".b32", ".b32", ".b32", "shfl.sync.down.b32 %d, %a, 3, 0x1f, 0xffffffff;"}, a, z, z);
  auto idx = run<uint32_t, uint32_t, uint32_t, uint32_t>({".b32", ".b32", ".b32", ".b32", "shfl.sync.idx.b32 %d, %a, 9, 0x1f, 0xffffffff;"}, a, z, z);
  for (int i = 0; i < kN; ++i) {
    const int lane = i % 32, w = i / 32 * 32;
    ASSERT_EQ(bfly[i], a[w + (lane ^ 5)]);
    ASSERT_EQ(up[i], a[w + (lane >= 3 ? lane - 3 : lane)]);
    ASSERT_EQ(down[i], a[w + (lane + 3 <= 31 ? lane + 3 : lane)]);
    ASSERT_EQ(idx[i], a[w + 9]);
  }
  std::vector<uint8_t> p(kN);
  for (int i = 0; i < kN; ++i) p[i] = static_cast<uint8_t>(i % 5 == 0 || i >= 32);
  auto ballot = run<uint8_t, uint32_t, uint32_t, uint32_t>({".pred", ".b32", ".b32", ".b32", "vote.sync.ballot.b32 %d, %a, 0xffffffff;"}, p, z, z);
  auto all = run<uint8_t, uint32_t, uint32_t, uint8_t>({".pred", ".b32", ".b32", ".pred", "vote.sync.all.pred %d, %a, 0xffffffff;"}, p, z, z);
  uint32_t want0 = 0;
  for (int l = 0; l < 32; ++l) want0 |= static_cast<uint32_t>(l % 5 == 0) << l;
  for (int i = 0; i < kN; ++i) {
    ASSERT_EQ(ballot[i], i < 32 ? want0 : 0xFFFFFFFFu);
    ASSERT_EQ(all[i], i < 32 ? 0 : 1);
  }
  // vote.uni: true when every active lane has the same predicate, all true or all false (warp 0
  // mixed, warp 1 all false); vote.any: some lane true.
  std::vector<uint8_t> q(kN);
  for (int i = 0; i < kN; ++i) q[i] = static_cast<uint8_t>(i < 32 && i % 3 == 0);
  auto uni = run<uint8_t, uint32_t, uint32_t, uint8_t>({".pred", ".b32", ".b32", ".pred", "vote.sync.uni.pred %d, %a, 0xffffffff;"}, q, z, z);
  auto any = run<uint8_t, uint32_t, uint32_t, uint8_t>({".pred", ".b32", ".b32", ".pred", "vote.sync.any.pred %d, %a, 0xffffffff;"}, q, z, z);
  for (int i = 0; i < kN; ++i) {
    ASSERT_EQ(uni[i], i < 32 ? 0 : 1) << i;
    ASSERT_EQ(any[i], i < 32 ? 1 : 0) << i;
  }
  std::vector<uint32_t> v(kN);
  for (int i = 0; i < kN; ++i) v[i] = static_cast<uint32_t>(i % 3);
  auto match = run<uint32_t, uint32_t, uint32_t, uint32_t>({".b32", ".b32", ".b32", ".b32", "match.any.sync.b32 %d, %a, 0xffffffff;"}, v, z, z);
  for (int i = 0; i < kN; ++i) {
    uint32_t want = 0;
    for (int l = 0; l < 32; ++l) want |= static_cast<uint32_t>((i / 32 * 32 + l) % 3 == i % 3) << l;
    ASSERT_EQ(match[i], want);
  }
}

TEST(EmuMemory, AtomicsAndVectors) {
  // every thread adds its index + 1 to one counter and keeps the old value: the old values are a permutation of prefix sums
  const std::string text = R"(.version 8.0
.target sm_90a
.address_size 64

.visible .entry t(.param .u64 counter, .param .u64 olds, .param .u64 vec)
{
	.reg .b32 %r<8>;
	.reg .f32 %f<5>;
	.reg .b64 %rd<8>;
	ld.param.u64 %rd1, [counter];
	ld.param.u64 %rd2, [olds];
	ld.param.u64 %rd3, [vec];
	mov.u32 %r1, %tid.x;
	add.u32 %r4, %r1, 1;
	atom.global.add.u32 %r2, [%rd1], %r4;
	mul.wide.u32 %rd4, %r1, 4;
	add.s64 %rd5, %rd2, %rd4;
	st.global.u32 [%rd5], %r2;
	red.global.max.s32 [%rd1+4], %r1;
	atom.global.cas.b32 %r3, [%rd1+8], 0, 77;
	mul.wide.u32 %rd6, %r1, 16;
	add.s64 %rd7, %rd3, %rd6;
	ld.global.v4.f32 {%f1, %f2, %f3, %f4}, [%rd7];
	st.global.v4.f32 [%rd7], {%f4, %f3, %f2, %f1};
	ret;
}
)";
  EmuRun r;
  const uint64_t counter = r.buffer(std::vector<uint32_t>{0, 0, 0}, "counter");
  const uint64_t olds = r.buffer(std::vector<uint32_t>(kN), "olds");
  std::vector<float> v(kN * 4);
  for (int i = 0; i < kN * 4; ++i) v[i] = static_cast<float>(i);
  const uint64_t vec = r.buffer(v, "vec");
  r.launch(text, "t", {1, 1, 1}, {kN, 1, 1});
  const auto c = r.read<uint32_t>(counter, 3);
  EXPECT_EQ(c[0], static_cast<uint32_t>(kN * (kN + 1) / 2));
  EXPECT_EQ(c[1], static_cast<uint32_t>(kN - 1));
  EXPECT_EQ(c[2], 77u);
  auto o = r.read<uint32_t>(olds, kN);
  std::sort(o.begin(), o.end());

  EXPECT_EQ(o[0], 0u);
  EXPECT_EQ(std::adjacent_find(o.begin(), o.end()), o.end());
  const auto w = r.read<float>(vec, kN * 4);
  for (int i = 0; i < kN; ++i)
    for (int k = 0; k < 4; ++k) ASSERT_EQ(w[i * 4 + k], v[i * 4 + 3 - k]);
  if (have_ptxas()) {
    EXPECT_TRUE(run_ptxas(text, "sm_90a").ok);
  }
}

TEST(EmuControl, DivergenceReconvergesAndBarriersSync) {
  // lanes take different paths (odd/even, a data-dependent loop), then a block-wide
  // barrier; shared memory is written before it and read after it by other warps
  const std::string text = R"(.version 8.0
.target sm_90a
.address_size 64

.visible .entry t(.param .u64 out)
{
	.reg .b32 %r<12>;
	.reg .pred %p<4>;
	.reg .b64 %rd<4>;
	.shared .align 4 .b32 buf[128];
	ld.param.u64 %rd1, [out];
	mov.u32 %r1, %tid.x;
	and.b32 %r2, %r1, 1;
	setp.eq.u32 %p1, %r2, 0;
	@%p1 bra $even;
	mul.lo.u32 %r3, %r1, 3;
	bra.uni $join;
$even:
	mov.u32 %r3, 0;
	mov.u32 %r4, 0;
$loop:
	add.u32 %r3, %r3, %r4;
	add.u32 %r4, %r4, 1;
	setp.lt.u32 %p2, %r4, %r1;
	@%p2 bra $loop;
$join:
	shl.b32 %r5, %r1, 2;
	mov.u32 %r6, buf;
	add.u32 %r7, %r6, %r5;
	st.shared.u32 [%r7], %r3;
	bar.sync 0;
	sub.u32 %r8, 127, %r1;
	shl.b32 %r9, %r8, 2;
	add.u32 %r10, %r6, %r9;
	ld.shared.u32 %r11, [%r10];
	mul.wide.u32 %rd2, %r1, 4;
	add.s64 %rd3, %rd1, %rd2;
	st.global.u32 [%rd3], %r11;
	ret;
}
)";
  EmuRun r;
  const uint64_t out = r.buffer(std::vector<uint32_t>(128), "out");
  r.launch(text, "t", {1, 1, 1}, {128, 1, 1});
  const auto got = r.read<uint32_t>(out, 128);
  for (uint32_t i = 0; i < 128; ++i) {
    const uint32_t j = 127 - i;
    const uint32_t want = j % 2 ? j * 3 : (j == 0 ? 0 : j * (j - 1) / 2);
    ASSERT_EQ(got[i], want) << i;
  }
  if (have_ptxas()) {
    EXPECT_TRUE(run_ptxas(text, "sm_90a").ok);
  }
}


// ---- narrow formats: references by brute force over every code of the format ----------

struct NarrowFormat {
  int mant, exp;
  bool has_inf;
  int bits;
};
constexpr NarrowFormat kF16{10, 5, true, 16}, kBF16{7, 8, true, 16}, kE4M3{3, 4, false, 8}, kE5M2{2, 5, true, 8};

double value_of(const NarrowFormat& f, uint32_t code) {
  const int bias = (1 << (f.exp - 1)) - 1;
  const uint32_t e = (code >> f.mant) & ((1u << f.exp) - 1), m = code & ((1u << f.mant) - 1);
  const double s = (code >> (f.bits - 1)) & 1 ? -1.0 : 1.0;
  if (f.has_inf && e == (1u << f.exp) - 1) return m ? NAN : s * INFINITY;
  if (!f.has_inf && e == (1u << f.exp) - 1 && m == (1u << f.mant) - 1) return NAN;
  if (e == 0) return s * std::ldexp(static_cast<double>(m), 1 - bias - f.mant);
  return s * std::ldexp(1.0 + std::ldexp(static_cast<double>(m), -f.mant), static_cast<int>(e) - bias);
}

// Round to nearest, ties to the even code; beyond the largest finite value by half an
// ulp or more: infinity, or the largest finite value with satfinite (NaN for e4m3 without it).
uint32_t nearest_code(const NarrowFormat& f, double x, bool satfinite) {
  uint32_t best = 0;
  double best_d = INFINITY, max_finite = 0;
  uint32_t max_code = 0;
  for (uint32_t c = 0; c < (1u << (f.bits - 1)); ++c) {  // non-negative codes
    const double v = value_of(f, c);
    if (!std::isfinite(v)) continue;
    if (v > max_finite) max_finite = v, max_code = c;
    const double d = std::fabs(std::fabs(x) - v);
    if (d < best_d || (d == best_d && (c & 1) == 0)) best = c, best_d = d;
  }
  const uint32_t sign = std::signbit(x) ? 1u << (f.bits - 1) : 0;
  const double ulp = max_finite - value_of(f, max_code - 1);
  if (std::fabs(x) >= max_finite + ulp / 2) {
    if (satfinite) return sign | max_code;
    if (!f.has_inf) return sign | 0x7F;
    return sign | (((1u << f.exp) - 1) << f.mant);
  }
  return sign | best;
}

TEST(EmuNarrow, ConversionsFromF32) {
  std::vector<float> a = randoms<float>(20), b = randoms<float>(21);
  const float specials[] = {0.1f, 1.0f / 3, 65504.0f, 65519.0f, 65520.0f, 1e-7f, 6e-8f, -448.0f, 460.0f, 1e30f, -0.0f, 3.0e-5f};
  for (size_t i = 0; i < std::size(specials); ++i) a[i] = specials[i], b[i] = -specials[i] * 0.7f;
  for (int i = 12; i < kN; ++i) a[i] *= std::ldexp(1.0f, i % 20 - 14), b[i] *= std::ldexp(1.0f, 7 - i % 15);
  std::vector<float> z(kN);
  auto f16 = run<float, float, float, uint32_t>({".f32", ".f32", ".f32", ".b32", "cvt.rn.f16x2.f32 %d, %a, %b;"}, a, b, z);
  auto bf16 = run<float, float, float, uint32_t>({".f32", ".f32", ".f32", ".b32", "cvt.rn.bf16x2.f32 %d, %a, %b;"}, a, b, z);
  auto e4m3 = run<float, float, float, uint16_t>({".f32", ".f32", ".f32", ".b16", "cvt.rn.satfinite.e4m3x2.f32 %d, %a, %b;"}, a, b, z);
  auto e5m2 = run<float, float, float, uint16_t>({".f32", ".f32", ".f32", ".b16", "cvt.rn.satfinite.e5m2x2.f32 %d, %a, %b;"}, a, b, z);
  for (int i = 0; i < kN; ++i) {
    ASSERT_EQ(f16[i], nearest_code(kF16, a[i], false) << 16 | nearest_code(kF16, b[i], false)) << a[i] << " " << b[i];
    ASSERT_EQ(bf16[i], nearest_code(kBF16, a[i], false) << 16 | nearest_code(kBF16, b[i], false)) << a[i] << " " << b[i];
    ASSERT_EQ(e4m3[i], nearest_code(kE4M3, a[i], true) << 8 | nearest_code(kE4M3, b[i], true)) << a[i] << " " << b[i];
    ASSERT_EQ(e5m2[i], nearest_code(kE5M2, a[i], true) << 8 | nearest_code(kE5M2, b[i], true)) << a[i] << " " << b[i];
  }
  // back to f32: exact
  std::vector<uint16_t> h(kN);
  for (int i = 0; i < kN; ++i) h[i] = static_cast<uint16_t>(f16[i] & 0xFFFF);
  std::vector<uint16_t> zh(kN);
  auto back = run<uint16_t, uint16_t, uint16_t, float>({".b16", ".b16", ".b16", ".f32", "cvt.f32.f16 %d, %a;"}, h, zh, zh);
  for (int i = 0; i < kN; ++i) ASSERT_EQ(static_cast<double>(back[i]), value_of(kF16, h[i])) << i;
}

TEST(EmuNarrow, HalfArithmeticRoundsOnce) {
  std::vector<uint32_t> a(kN), b(kN), c(kN);
  std::mt19937 g(22);
  auto half = [&] { return nearest_code(kF16, std::uniform_real_distribution<double>(-50, 50)(g), false); };
  for (int i = 0; i < kN; ++i) a[i] = half() << 16 | half(), b[i] = half() << 16 | half(), c[i] = half() << 16 | half();
  auto add = run<uint32_t, uint32_t, uint32_t, uint32_t>({".b32", ".b32", ".b32", ".b32", "add.rn.f16x2 %d, %a, %b;"}, a, b, c);
  auto mul = run<uint32_t, uint32_t, uint32_t, uint32_t>({".b32", ".b32", ".b32", ".b32", "mul.rn.f16x2 %d, %a, %b;"}, a, b, c);
  auto fma = run<uint32_t, uint32_t, uint32_t, uint32_t>({".b32", ".b32", ".b32", ".b32", "fma.rn.f16x2 %d, %a, %b, %c;"}, a, b, c);
  for (int i = 0; i < kN; ++i)
    for (int k = 0; k < 2; ++k) {
      const double x = value_of(kF16, a[i] >> (16 * k) & 0xFFFF), y = value_of(kF16, b[i] >> (16 * k) & 0xFFFF),
                   z = value_of(kF16, c[i] >> (16 * k) & 0xFFFF);
      ASSERT_EQ(add[i] >> (16 * k) & 0xFFFF, nearest_code(kF16, x + y, false)) << x << "+" << y;
      ASSERT_EQ(mul[i] >> (16 * k) & 0xFFFF, nearest_code(kF16, x * y, false)) << x << "*" << y;
      ASSERT_EQ(fma[i] >> (16 * k) & 0xFFFF, nearest_code(kF16, x * y + z, false)) << x << "*" << y << "+" << z;
    }
}


// add/sub/mul/fma.f32x2 (sm_100): each half of the .b64 registers (element 0 in the low 32 bits)
// is what the .f32 instruction with the same modifiers computes; subnormals exercise .ftz.
TEST(EmuFloat, PackedF32PairsComputeEachHalfAsF32) {
  std::vector<float> half[2][3];
  for (int k = 0; k < 2; ++k)
    for (int j = 0; j < 3; ++j) {
      half[k][j] = randoms<float>(40 + 3 * k + j);
      half[k][j][5 + j] = 1e-40f;  // subnormal
      half[k][j][9] = std::numeric_limits<float>::infinity();
    }
  std::vector<uint64_t> packed[3];
  for (int j = 0; j < 3; ++j)
    for (int i = 0; i < kN; ++i)
      packed[j].push_back(uint64_t{std::bit_cast<uint32_t>(half[1][j][i])} << 32 | std::bit_cast<uint32_t>(half[0][j][i]));
  for (std::string op : {"add.f32x2 %d, %a, %b;", "add.rn.ftz.f32x2 %d, %a, %b;", "sub.rz.f32x2 %d, %a, %b;",
                         "mul.rm.ftz.f32x2 %d, %a, %b;", "mul.rp.f32x2 %d, %a, %b;", "fma.rn.f32x2 %d, %a, %b, %c;",
                         "fma.rz.ftz.f32x2 %d, %a, %b, %c;"}) {
    const auto d = run<uint64_t, uint64_t, uint64_t, uint64_t>({".b64", ".b64", ".b64", ".b64", op, "sm_100a", "8.6"},
                                                               packed[0], packed[1], packed[2]);
    std::string single = op;
    single.replace(single.find(".f32x2"), 6, ".f32");
    for (int k = 0; k < 2; ++k) {
      const auto want = run<float, float, float, float>({".f32", ".f32", ".f32", ".f32", single}, half[k][0], half[k][1], half[k][2]);
      for (int i = 0; i < kN; ++i)
        ASSERT_EQ(static_cast<uint32_t>(d[i] >> (32 * k)), std::bit_cast<uint32_t>(want[i])) << op << " element " << k << " thread " << i;
    }
  }
  // round to nearest, against the host
  const auto sum = run<uint64_t, uint64_t, uint64_t, uint64_t>({".b64", ".b64", ".b64", ".b64", "add.rn.f32x2 %d, %a, %b;", "sm_100a", "8.6"},
                                                               packed[0], packed[1], packed[2]);
  for (int i = 0; i < kN; ++i)
    for (int k = 0; k < 2; ++k)
      ASSERT_EQ(std::bit_cast<float>(static_cast<uint32_t>(sum[i] >> (32 * k))), half[k][0][i] + half[k][1][i]) << i;
}

TEST(EmuInteger, CarryChains) {
  auto a = randoms<uint64_t>(30), b = randoms<uint64_t>(31);
  std::vector<uint64_t> c(kN);
  const std::string add64 =
      ".reg .b32 %x<7>;\n\tmov.b64 {%x1, %x2}, %a;\n\tmov.b64 {%x3, %x4}, %b;\n\tadd.cc.u32 %x5, %x1, %x3;\n\t"
      "addc.u32 %x6, %x2, %x4;\n\tmov.b64 %d, {%x5, %x6};";
  const std::string sub64 =
      ".reg .b32 %x<7>;\n\tmov.b64 {%x1, %x2}, %a;\n\tmov.b64 {%x3, %x4}, %b;\n\tsub.cc.u32 %x5, %x1, %x3;\n\t"
      "subc.u32 %x6, %x2, %x4;\n\tmov.b64 %d, {%x5, %x6};";
  auto s = run<uint64_t, uint64_t, uint64_t, uint64_t>({".b64", ".b64", ".b64", ".b64", add64}, a, b, c);
  auto d = run<uint64_t, uint64_t, uint64_t, uint64_t>({".b64", ".b64", ".b64", ".b64", sub64}, a, b, c);
  for (int i = 0; i < kN; ++i) {
    ASSERT_EQ(s[i], a[i] + b[i]) << a[i] << " + " << b[i];
    ASSERT_EQ(d[i], a[i] - b[i]) << a[i] << " - " << b[i];
  }
}

TEST(EmuInteger, BitFields) {
  auto a = randoms<uint32_t>(32), b = randoms<uint32_t>(33);
  std::vector<uint32_t> pl(kN);
  for (int i = 0; i < kN; ++i) pl[i] = (static_cast<uint32_t>(i * 7 % 40)) | (static_cast<uint32_t>(i * 5 % 36) << 8);  // pos | len << 8
  const std::string bfe_u = ".reg .b32 %x<3>;\n\tand.b32 %x1, %b, 255;\n\tshr.u32 %x2, %b, 8;\n\tbfe.u32 %d, %a, %x1, %x2;";
  const std::string bfe_s = ".reg .b32 %x<3>;\n\tand.b32 %x1, %b, 255;\n\tshr.u32 %x2, %b, 8;\n\tbfe.s32 %d, %a, %x1, %x2;";
  const std::string bfi = ".reg .b32 %x<3>;\n\tand.b32 %x1, %c, 255;\n\tshr.u32 %x2, %c, 8;\n\tbfi.b32 %d, %a, %b, %x1, %x2;";
  auto ru = run<uint32_t, uint32_t, uint32_t, uint32_t>({".b32", ".b32", ".b32", ".b32", bfe_u}, a, pl, pl);
  auto rs = run<uint32_t, uint32_t, uint32_t, uint32_t>({".b32", ".b32", ".b32", ".b32", bfe_s}, a, pl, pl);
  auto ri = run<uint32_t, uint32_t, uint32_t, uint32_t>({".b32", ".b32", ".b32", ".b32", bfi}, a, b, pl);
  for (int i = 0; i < kN; ++i) {
    const uint32_t pos = pl[i] & 255, len = pl[i] >> 8;
    uint32_t wu = 0, ws = 0, wi = b[i];
    if (len) {
      const uint32_t msb = std::min(pos + len - 1, 31u);
      const uint32_t sbit = (a[i] >> msb) & 1;
      for (uint32_t k = 0; k < 32; ++k) {
        const bool in = k < len && pos + k <= msb;
        wu |= (in ? (a[i] >> (pos + k)) & 1 : 0) << k;
        ws |= (in ? (a[i] >> (pos + k)) & 1 : sbit) << k;
      }
    }
    for (uint32_t k = 0; k < len && pos + k < 32; ++k) wi = (wi & ~(1u << (pos + k))) | (((a[i] >> k) & 1) << (pos + k));
    ASSERT_EQ(ru[i], wu) << a[i] << " pos " << pos << " len " << len;
    ASSERT_EQ(rs[i], ws) << a[i] << " pos " << pos << " len " << len;
    ASSERT_EQ(ri[i], wi) << a[i] << " pos " << pos << " len " << len;
  }
  auto fu = run<uint32_t, uint32_t, uint32_t, uint32_t>({".b32", ".b32", ".b32", ".b32", "bfind.u32 %d, %a;"}, a, b, b);
  auto fs = run<int32_t, uint32_t, uint32_t, uint32_t>({".b32", ".b32", ".b32", ".b32", "bfind.s32 %d, %a;"},
                                                       std::vector<int32_t>(a.begin(), a.end()), b, b);
  auto fa = run<uint32_t, uint32_t, uint32_t, uint32_t>({".b32", ".b32", ".b32", ".b32", "bfind.shiftamt.u32 %d, %a;"}, a, b, b);
  for (int i = 0; i < kN; ++i) {
    const uint32_t x = a[i];
    ASSERT_EQ(fu[i], x ? 31u - static_cast<uint32_t>(std::countl_zero(x)) : 0xFFFFFFFFu);
    ASSERT_EQ(fa[i], x ? static_cast<uint32_t>(std::countl_zero(x)) : 0xFFFFFFFFu);
    const uint32_t y = static_cast<int32_t>(x) < 0 ? ~x : x;
    ASSERT_EQ(fs[i], y ? 31u - static_cast<uint32_t>(std::countl_zero(y)) : 0xFFFFFFFFu);
  }
  std::vector<uint32_t> n(kN);
  for (int i = 0; i < kN; ++i) n[i] = static_cast<uint32_t>(i % 40);
  auto sl = run<uint32_t, uint32_t, uint32_t, uint32_t>({".b32", ".b32", ".b32", ".b32", "shf.l.wrap.b32 %d, %a, %b, %c;"}, a, b, n);
  auto sr = run<uint32_t, uint32_t, uint32_t, uint32_t>({".b32", ".b32", ".b32", ".b32", "shf.r.clamp.b32 %d, %a, %b, %c;"}, a, b, n);
  for (int i = 0; i < kN; ++i) {
    const uint64_t both = (static_cast<uint64_t>(b[i]) << 32) | a[i];
    const uint32_t wl = n[i] % 32, cr = std::min(n[i], 32u);
    ASSERT_EQ(sl[i], static_cast<uint32_t>((both << wl) >> 32));
    ASSERT_EQ(sr[i], static_cast<uint32_t>(both >> cr));
  }
}

TEST(EmuWarp, ReduxElectAndSet) {
  auto a = randoms<int32_t>(34);
  std::vector<int32_t> z(kN);
  auto sum = run<int32_t, int32_t, int32_t, uint32_t>({".b32", ".b32", ".b32", ".b32", "redux.sync.add.u32 %d, %a, 0xffffffff;"}, a, z, z);
  auto mn = run<int32_t, int32_t, int32_t, int32_t>({".b32", ".b32", ".b32", ".b32", "redux.sync.min.s32 %d, %a, 0xffffffff;"}, a, z, z);
  for (int i = 0; i < kN; ++i) {
    uint32_t s = 0;
    int32_t m = INT32_MAX;
    for (int l = 0; l < 32; ++l) s += static_cast<uint32_t>(a[i / 32 * 32 + l]), m = std::min(m, a[i / 32 * 32 + l]);
    ASSERT_EQ(sum[i], s);
    ASSERT_EQ(mn[i], m);
  }
  auto el = run<int32_t, int32_t, int32_t, uint32_t>({".b32", ".b32", ".b32", ".b32", ".reg .pred %q;\n\telect.sync %d|%q, 0xffffffff;"}, a, z, z);
  for (int i = 0; i < kN; ++i) ASSERT_EQ(el[i], 0u);
  auto st = run<int32_t, int32_t, int32_t, uint32_t>({".s32", ".s32", ".s32", ".u32", "set.lt.u32.s32 %d, %a, %b;"}, a, z, z);
  for (int i = 0; i < kN; ++i) ASSERT_EQ(st[i], a[i] < 0 ? 0xFFFFFFFFu : 0u);
  auto f = randoms<float>(35), g = randoms<float>(36);
  f[3] = NAN;
  std::vector<float> zf(kN);
  auto mnan = run<float, float, float, float>({".f32", ".f32", ".f32", ".f32", "min.NaN.f32 %d, %a, %b;"}, f, g, zf);
  auto mn2 = run<float, float, float, float>({".f32", ".f32", ".f32", ".f32", "min.f32 %d, %a, %b;"}, f, g, zf);
  EXPECT_EQ(std::bit_cast<uint32_t>(mnan[3]), 0x7fffffffu);
  EXPECT_EQ(mn2[3], g[3]);
  for (int i = 4; i < kN; ++i) ASSERT_EQ(mnan[i], std::min(f[i], g[i]));
}

TEST(EmuAsync, MbarrierProducerConsumerAcrossWarps) {
  // warp 0 writes shared memory and arrives (32 arrivals expected); warp 1 spins on
  // try_wait.parity, then reads what warp 0 wrote
  const std::string text = R"(.version 8.0
.target sm_90a
.address_size 64

.visible .entry t(.param .u64 out)
{
	.reg .b32 %r<12>;
	.reg .b64 %rd<6>;
	.reg .pred %p<4>;
	.shared .align 8 .b64 bar;
	.shared .align 4 .b32 data[32];
	ld.param.u64 %rd1, [out];
	mov.u32 %r1, %tid.x;
	shr.u32 %r2, %r1, 5;
	and.b32 %r3, %r1, 31;
	setp.ne.u32 %p1, %r1, 0;
	@%p1 bra $init_done;
	mbarrier.init.shared::cta.b64 [bar], 32;
$init_done:
	bar.sync 0;
	setp.ne.u32 %p2, %r2, 0;
	@%p2 bra $consumer;
	mul.lo.u32 %r4, %r3, 10;
	shl.b32 %r5, %r3, 2;
	mov.u32 %r6, data;
	add.u32 %r7, %r6, %r5;
	st.shared.u32 [%r7], %r4;
	mbarrier.arrive.shared::cta.b64 %rd2, [bar];
	bra.uni $done;
$consumer:
	mbarrier.try_wait.parity.shared::cta.b64 %p3, [bar], 0;
	@!%p3 bra $consumer;
	shl.b32 %r5, %r3, 2;
	mov.u32 %r6, data;
	add.u32 %r7, %r6, %r5;
	ld.shared.u32 %r8, [%r7];
	mul.wide.u32 %rd3, %r3, 4;
	add.s64 %rd4, %rd1, %rd3;
	st.global.u32 [%rd4], %r8;
$done:
	ret;
}
)";
  EmuRun r;
  const uint64_t out = r.buffer(std::vector<uint32_t>(32), "out");
  r.launch(text, "t", {1, 1, 1}, {64, 1, 1});
  const auto got = r.read<uint32_t>(out, 32);
  for (uint32_t i = 0; i < 32; ++i) ASSERT_EQ(got[i], i * 10);
  if (have_ptxas()) {
    EXPECT_TRUE(run_ptxas(text, "sm_90a").ok);
  }
}


TEST(EmuCalls, DslModuleWithDeviceFunctions) {
  auto add1 = func("add1").ret(u32).param(u32).param(u32).body([](const FuncArgs& a) {
    Reg x = a.param(0), y = a.param(1);
    a.ret(x + y);
  });
  auto twice = func("twice").ret(u32).param(u32).body([&](const FuncArgs& a) {
    Reg x = a.param(0);
    Reg y = call(add1, {x, x});
    a.ret(call(add1, {y, 1u}));
  });
  auto k = kernel("k").in(tensor(u32, {64})).arch("sm_90a").body([&](Tensor t) {
    Reg p = t.global_ptr();
    Reg i = read(special::tid.x(), u32);
    Reg r = call(twice, {i});
    Reg off = i * 4;
    Reg a = p + off;
    inst::st.global.u32(addr(a), r);
    ret();
  });
  Module mod;
  mod.arch("sm_90a").add(add1).add(twice).add(k);
  EmuRun r;
  const uint64_t out = r.buffer(std::vector<uint32_t>(kN), "out");
  r.launch(mod.ptx(), "k", {1, 1, 1}, {kN, 1, 1});
  const auto got = r.read<uint32_t>(out, kN);
  for (uint32_t i = 0; i < kN; ++i) ASSERT_EQ(got[i], 2 * i + 1);
}

TEST(EmuCalls, RecursionIndirectCallsAndLocalArrays) {
  // fact(n) recursively; a function-pointer table; a per-thread .local array indexed at run time
  const std::string text = R"(.version 8.0
.target sm_80
.address_size 64

.func (.param .b32 ret) fact(.param .b32 n)
{
	.reg .b32 %r<5>;
	.reg .pred %p<2>;
	ld.param.b32 %r1, [n];
	setp.le.u32 %p1, %r1, 1;
	@%p1 bra $base;
	sub.u32 %r2, %r1, 1;
	{
		.param .b32 a0;
		st.param.b32 [a0], %r2;
		.param .b32 r0;
		call.uni (r0), fact, (a0);
		ld.param.b32 %r3, [r0];
	}
	mul.lo.u32 %r4, %r3, %r1;
	st.param.b32 [ret], %r4;
	ret;
$base:
	st.param.b32 [ret], 1;
	ret;
}

.func (.param .b32 ret) sq(.param .b32 x)
{
	.reg .b32 %r<3>;
	ld.param.b32 %r1, [x];
	mul.lo.u32 %r2, %r1, %r1;
	st.param.b32 [ret], %r2;
	ret;
}

.func (.param .b32 ret) neg(.param .b32 x)
{
	.reg .b32 %r<3>;
	ld.param.b32 %r1, [x];
	neg.s32 %r2, %r1;
	st.param.b32 [ret], %r2;
	ret;
}

.global .align 8 .u64 table[2] = {sq, neg};

.visible .entry t(.param .u64 out)
{
	.local .align 4 .b8 scratch[64];
	.reg .b32 %r<12>;
	.reg .b64 %rd<10>;
	ld.param.u64 %rd1, [out];
	mov.u32 %r1, %tid.x;
	and.b32 %r2, %r1, 7;
	{
		.param .b32 a0;
		st.param.b32 [a0], %r2;
		.param .b32 r0;
		call.uni (r0), fact, (a0);
		ld.param.b32 %r3, [r0];
	}
	and.b32 %r4, %r1, 1;
	mul.wide.u32 %rd2, %r4, 8;
	mov.u64 %rd3, table;
	add.s64 %rd4, %rd3, %rd2;
	ld.global.u64 %rd5, [%rd4];
	{
		.param .b32 a1;
		st.param.b32 [a1], %r1;
		.param .b32 r1;
		prototype: .callprototype (.param .b32 _) _ (.param .b32 _);
		call (r1), %rd5, (a1), prototype;
		ld.param.b32 %r5, [r1];
	}
	mov.u64 %rd6, scratch;
	and.b32 %r6, %r1, 15;
	mul.wide.u32 %rd7, %r6, 4;
	add.s64 %rd8, %rd6, %rd7;
	st.local.u32 [%rd8], %r5;
	ld.local.u32 %r7, [%rd8];
	add.u32 %r8, %r3, %r7;
	mul.wide.u32 %rd9, %r1, 4;
	add.s64 %rd9, %rd1, %rd9;
	st.global.u32 [%rd9], %r8;
	ret;
}
)";
  EmuRun r;
  const uint64_t out = r.buffer(std::vector<uint32_t>(kN), "out");
  r.launch(text, "t", {1, 1, 1}, {kN, 1, 1});
  const auto got = r.read<uint32_t>(out, kN);
  const uint32_t fact[8] = {1, 1, 2, 6, 24, 120, 720, 5040};
  for (uint32_t i = 0; i < kN; ++i) ASSERT_EQ(got[i], fact[i & 7] + ((i & 1) ? 0u - i : i * i)) << i;
  if (have_ptxas()) {
    const auto res = run_ptxas(text, "sm_80");
    EXPECT_TRUE(res.ok) << res.log;
  }
}


TEST(EmuCalls, DeviceRuntimePrintfMallocFree) {
  const std::string text = R"(.version 8.0
.target sm_80
.address_size 64

.extern .func (.param .b32 func_retval0) vprintf(.param .b64 vprintf_param_0, .param .b64 vprintf_param_1);
.extern .func (.param .b64 func_retval0) malloc(.param .b64 malloc_param_0);
.extern .func free(.param .b64 free_param_0);
.global .align 1 .b8 $str[20] = {116, 105, 100, 32, 37, 100, 32, 37, 46, 50, 102, 32, 37, 115, 10, 0};
.global .align 1 .b8 $name[3] = {104, 105, 0};

.visible .entry t(.param .u64 out)
{
	.local .align 8 .b8 __local_depot0[24];
	.reg .b64 %SP;
	.reg .b64 %SPL;
	.reg .b32 %r<4>;
	.reg .f64 %fd<2>;
	.reg .b64 %rd<12>;
	mov.u64 %SPL, __local_depot0;
	cvta.local.u64 %SP, %SPL;
	mov.u32 %r1, %tid.x;
	cvt.rn.f64.u32 %fd1, %r1;
	add.u64 %rd1, %SP, 0;
	add.u64 %rd2, %SPL, 0;
	st.local.u32 [%rd2], %r1;
	st.local.f64 [%rd2+8], %fd1;
	mov.u64 %rd5, $name;
	cvta.global.u64 %rd6, %rd5;
	st.local.u64 [%rd2+16], %rd6;
	mov.u64 %rd3, $str;
	cvta.global.u64 %rd4, %rd3;
	{
		.param .b64 param0;
		st.param.b64 [param0], %rd4;
		.param .b64 param1;
		st.param.b64 [param1], %rd1;
		.param .b32 retval0;
		call.uni (retval0), vprintf, (param0, param1);
		ld.param.b32 %r2, [retval0];
	}
	{
		.param .b64 param0;
		st.param.b64 [param0], 64;
		.param .b64 retval0;
		call.uni (retval0), malloc, (param0);
		ld.param.b64 %rd7, [retval0];
	}
	st.u32 [%rd7+60], %r2;
	ld.u32 %r3, [%rd7+60];
	ld.param.u64 %rd8, [out];
	mul.wide.u32 %rd9, %r1, 4;
	add.s64 %rd10, %rd8, %rd9;
	st.global.u32 [%rd10], %r3;
	{
		.param .b64 param0;
		st.param.b64 [param0], %rd7;
		call.uni free, (param0);
	}
	ret;
}
)";
  std::ostringstream printed;
  emu::Options o;
  o.printf_output = &printed;
  o.threads = 1;
  EmuRun r{emu::Emulator(o), {}};
  const uint64_t out = r.buffer(std::vector<uint32_t>(2), "out");
  r.launch(text, "t", {1, 1, 1}, {2, 1, 1});
  EXPECT_EQ(printed.str(), "tid 0 0.00 hi\ntid 1 1.00 hi\n");
  const auto got = r.read<uint32_t>(out, 2);
  EXPECT_EQ(got[0], 14u);  // vprintf returns the number of characters
  EXPECT_EQ(got[1], 14u);
  if (have_ptxas()) {
    const auto res = run_ptxas(text, "sm_80");
    EXPECT_TRUE(res.ok) << res.log;
  }
}


// One warp computes a 16x8 tile D = A * B + C: cp.async copies A (16 rows of 32 bytes)
// and B (8 columns of 32 bytes, n-major) into shared memory, ldmatrix loads the
// fragments, mma.sync multiplies. The element type decides K: bf16 -> 16, s8 -> 32.
std::string mma_tile_ptx(const std::string& mma, const std::string& ctype) {
  return R"(.version 8.0
.target sm_90a
.address_size 64

.visible .entry tile(.param .u64 pa, .param .u64 pb, .param .u64 pc, .param .u64 pd)
{
	.reg .b32 %r<40>;
	.reg .b64 %rd<20>;
	.reg .pred %p<2>;
	.reg .)" + ctype + R"( %c<4>;
	.shared .align 128 .b8 sa[512];
	.shared .align 128 .b8 sb[256];
	ld.param.u64 %rd1, [pa];
	ld.param.u64 %rd2, [pb];
	ld.param.u64 %rd3, [pc];
	ld.param.u64 %rd4, [pd];
	mov.u32 %r1, %tid.x;
	shl.b32 %r2, %r1, 4;
	mov.u32 %r3, sa;
	add.u32 %r4, %r3, %r2;
	cvt.u64.u32 %rd5, %r2;
	add.s64 %rd6, %rd1, %rd5;
	cp.async.cg.shared.global [%r4], [%rd6], 16;
	and.b32 %r5, %r2, 255;
	mov.u32 %r6, sb;
	add.u32 %r7, %r6, %r5;
	cvt.u64.u32 %rd7, %r5;
	add.s64 %rd8, %rd2, %rd7;
	setp.lt.u32 %p1, %r1, 16;
	@%p1 cp.async.ca.shared.global [%r7], [%rd8], 16;
	cp.async.commit_group;
	cp.async.wait_group 0;
	bar.sync 0;
	and.b32 %r8, %r1, 15;
	shr.u32 %r9, %r1, 4;
	shl.b32 %r10, %r8, 5;
	shl.b32 %r11, %r9, 4;
	add.u32 %r12, %r10, %r11;
	add.u32 %r13, %r3, %r12;
	ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%r20, %r21, %r22, %r23}, [%r13];
	and.b32 %r14, %r1, 7;
	shr.u32 %r15, %r1, 3;
	and.b32 %r15, %r15, 1;
	shl.b32 %r16, %r14, 5;
	shl.b32 %r17, %r15, 4;
	add.u32 %r18, %r16, %r17;
	add.u32 %r19, %r6, %r18;
	ldmatrix.sync.aligned.m8n8.x2.shared.b16 {%r24, %r25}, [%r19];
	shr.u32 %r26, %r1, 2;
	and.b32 %r27, %r1, 3;
	shl.b32 %r28, %r27, 1;
	mad.lo.u32 %r29, %r26, 8, %r28;
	mul.wide.u32 %rd9, %r29, 4;
	add.s64 %rd10, %rd3, %rd9;
	add.s64 %rd11, %rd4, %rd9;
	ld.global.v2.)" + ctype + R"( {%c0, %c1}, [%rd10];
	ld.global.v2.)" + ctype + R"( {%c2, %c3}, [%rd10+256];
	)" + mma + R"( {%c0, %c1, %c2, %c3}, {%r20, %r21, %r22, %r23}, {%r24, %r25}, {%c0, %c1, %c2, %c3};
	st.global.v2.)" + ctype + R"( [%rd11], {%c0, %c1};
	st.global.v2.)" + ctype + R"( [%rd11+256], {%c2, %c3};
	ret;
}
)";
}

TEST(EmuTensorCore, Bf16TileThroughCpAsyncLdmatrixMma) {
  const std::string text = mma_tile_ptx("mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32", "f32");
  std::mt19937 g(40);
  std::uniform_real_distribution<double> u(-2, 2);
  std::vector<uint16_t> a(16 * 16), b(8 * 16);  // A row-major 16x16; B n-major: b[n*16 + k]
  std::vector<float> c(16 * 8);
  for (auto& x : a) x = static_cast<uint16_t>(nearest_code(kBF16, u(g), false));
  for (auto& x : b) x = static_cast<uint16_t>(nearest_code(kBF16, u(g), false));
  for (auto& x : c) x = static_cast<float>(u(g));
  EmuRun r;
  r.buffer(a, "a");
  r.buffer(b, "b");
  r.buffer(c, "c");
  const uint64_t d = r.buffer(std::vector<float>(16 * 8), "d");
  r.launch(text, "tile", {1, 1, 1}, {32, 1, 1});
  const auto got = r.read<float>(d, 16 * 8);
  for (int i = 0; i < 16; ++i)
    for (int j = 0; j < 8; ++j) {
      double acc = c[i * 8 + j];
      for (int k = 0; k < 16; ++k) acc += value_of(kBF16, a[i * 16 + k]) * value_of(kBF16, b[j * 16 + k]);
      ASSERT_NEAR(got[i * 8 + j], acc, 1e-5 * (1 + std::fabs(acc))) << i << "," << j;
    }
  if (have_ptxas()) {
    const auto res = run_ptxas(text, "sm_90a");
    EXPECT_TRUE(res.ok) << res.log;
  }
}

TEST(EmuTensorCore, Int8TileIsExact) {
  const std::string text = mma_tile_ptx("mma.sync.aligned.m16n8k32.row.col.s32.s8.s8.s32", "s32");
  std::mt19937 g(41);
  std::vector<int8_t> a(16 * 32), b(8 * 32);
  std::vector<int32_t> c(16 * 8);
  for (auto& x : a) x = static_cast<int8_t>(g());
  for (auto& x : b) x = static_cast<int8_t>(g());
  for (auto& x : c) x = static_cast<int32_t>(g() % 100000);
  EmuRun r;
  r.buffer(a, "a");
  r.buffer(b, "b");
  r.buffer(c, "c");
  const uint64_t d = r.buffer(std::vector<int32_t>(16 * 8), "d");
  r.launch(text, "tile", {1, 1, 1}, {32, 1, 1});
  const auto got = r.read<int32_t>(d, 16 * 8);
  for (int i = 0; i < 16; ++i)
    for (int j = 0; j < 8; ++j) {
      int32_t acc = c[i * 8 + j];
      for (int k = 0; k < 32; ++k) acc += a[i * 32 + k] * b[j * 32 + k];
      ASSERT_EQ(got[i * 8 + j], acc) << i << "," << j;
    }
  if (have_ptxas()) {
    const auto res = run_ptxas(text, "sm_90a");
    EXPECT_TRUE(res.ok) << res.log;
  }
}

TEST(EmuTensorCore, StmatrixTransposesBack) {
  // ldmatrix.trans then stmatrix.trans: the tile comes back unchanged; plain ldmatrix then
  // stmatrix.trans writes the transpose
  const std::string text = R"(.version 8.0
.target sm_90a
.address_size 64

.visible .entry t(.param .u64 pin, .param .u64 pout)
{
	.reg .b32 %r<12>;
	.reg .b64 %rd<8>;
	.reg .pred %p<2>;
	.shared .align 16 .b8 s[128];
	.shared .align 16 .b8 o[128];
	ld.param.u64 %rd1, [pin];
	ld.param.u64 %rd2, [pout];
	mov.u32 %r1, %tid.x;
	and.b32 %r2, %r1, 7;
	shl.b32 %r3, %r2, 4;
	mov.u32 %r4, s;
	add.u32 %r5, %r4, %r3;
	mov.u32 %r6, o;
	add.u32 %r7, %r6, %r3;
	cvt.u64.u32 %rd3, %r3;
	add.s64 %rd4, %rd1, %rd3;
	setp.lt.u32 %p1, %r1, 8;
	@!%p1 bra $loaded;
	ld.global.v4.u32 {%r8, %r9, %r10, %r11}, [%rd4];
	st.shared.v4.u32 [%r5], {%r8, %r9, %r10, %r11};
$loaded:
	bar.sync 0;
	ldmatrix.sync.aligned.m8n8.x1.shared.b16 {%r8}, [%r5];
	stmatrix.sync.aligned.m8n8.x1.trans.shared.b16 [%r7], {%r8};
	bar.sync 0;
	@!%p1 bra $done;
	ld.shared.v4.u32 {%r8, %r9, %r10, %r11}, [%r7];
	add.s64 %rd5, %rd2, %rd3;
	st.global.v4.u32 [%rd5], {%r8, %r9, %r10, %r11};
$done:
	ret;
}
)";
  std::vector<uint16_t> in(64);
  for (int i = 0; i < 64; ++i) in[i] = static_cast<uint16_t>(i * 3 + 1);
  EmuRun r;
  r.buffer(in, "in");
  const uint64_t out = r.buffer(std::vector<uint16_t>(64), "out");
  r.launch(text, "t", {1, 1, 1}, {32, 1, 1});
  const auto got = r.read<uint16_t>(out, 64);
  for (int i = 0; i < 8; ++i)
    for (int j = 0; j < 8; ++j) ASSERT_EQ(got[i * 8 + j], in[j * 8 + i]) << i << "," << j;
  if (have_ptxas()) {
    const auto res = run_ptxas(text, "sm_90a");
    EXPECT_TRUE(res.ok) << res.log;
  }
}


TEST(EmuInteger, DotProducts) {
  auto a = randoms<uint32_t>(50), b = randoms<uint32_t>(51), c = randoms<uint32_t>(52);
  auto ss = run<uint32_t, uint32_t, uint32_t, int32_t>({".b32", ".b32", ".b32", ".s32", "dp4a.s32.s32 %d, %a, %b, %c;"}, a, b, c);
  auto uu = run<uint32_t, uint32_t, uint32_t, uint32_t>({".b32", ".b32", ".b32", ".u32", "dp4a.u32.u32 %d, %a, %b, %c;"}, a, b, c);
  auto hi = run<uint32_t, uint32_t, uint32_t, int32_t>({".b32", ".b32", ".b32", ".s32", "dp2a.hi.s32.u32 %d, %a, %b, %c;"}, a, b, c);
  for (int i = 0; i < kN; ++i) {
    int32_t s = static_cast<int32_t>(c[i]);
    uint32_t u = c[i];
    int32_t h = static_cast<int32_t>(c[i]);
    for (int k = 0; k < 4; ++k) {
      s += static_cast<int8_t>(a[i] >> (8 * k)) * static_cast<int8_t>(b[i] >> (8 * k));
      u += static_cast<uint8_t>(a[i] >> (8 * k)) * static_cast<uint32_t>(static_cast<uint8_t>(b[i] >> (8 * k)));
    }
    for (int k = 0; k < 2; ++k) h += static_cast<int16_t>(a[i] >> (16 * k)) * static_cast<uint8_t>(b[i] >> (8 * (2 + k)));
    ASSERT_EQ(ss[i], s);
    ASSERT_EQ(uu[i], u);
    ASSERT_EQ(hi[i], h);
  }
}


// Float min/max per the manual, computed here independently: .xorsign.abs (magnitude of the
// min/max of |a| and |b|, sign the XOR of the signs), the three-input .f32 forms (sm_100) with
// and without .abs, and NaN inputs ignored unless .NaN.
float ref_pick(bool max, float a, float b) {  // a NaN input is ignored
  if (std::isnan(a)) return b;
  if (std::isnan(b)) return a;
  return max ? (a > b ? a : b) : (a < b ? a : b);
}

TEST(EmuFloat, MinMaxXorsignAbsAndThreeInputs) {
  std::vector<float> a(kN), b(kN), c(kN);
  const float vals[] = {1.5f, -2.0f, -0.5f, 3.25f, -7.0f, 0.25f, NAN, -4.5f};
  for (int i = 0; i < kN; ++i) a[i] = vals[i % 8], b[i] = vals[(i / 8) % 8], c[i] = vals[(i * 3 + 1) % 8];
  for (bool max : {false, true}) {
    const std::string op = max ? "max" : "min";
    auto xs = run<float, float, float, float>({".f32", ".f32", ".f32", ".f32", op + ".xorsign.abs.f32 %d, %a, %b;"}, a, b, c);
    auto three = run<float, float, float, float>({".f32", ".f32", ".f32", ".f32", op + ".f32 %d, %a, %b, %c;", "sm_100a", "8.8"}, a, b, c);
    auto three_abs =
        run<float, float, float, float>({".f32", ".f32", ".f32", ".f32", op + ".abs.f32 %d, %a, %b, %c;", "sm_100a", "8.8"}, a, b, c);
    for (int i = 0; i < kN; ++i) {
      const float m = ref_pick(max, std::fabs(a[i]), std::fabs(b[i]));
      const bool neg = std::signbit(a[i]) != std::signbit(b[i]);
      if (std::isnan(m)) EXPECT_TRUE(std::isnan(xs[i])) << op << " " << i;
      else EXPECT_EQ(xs[i], neg ? -m : m) << op << ".xorsign.abs " << a[i] << ", " << b[i];
      const float r3 = ref_pick(max, ref_pick(max, a[i], b[i]), c[i]);
      const float r3abs = ref_pick(max, ref_pick(max, std::fabs(a[i]), std::fabs(b[i])), std::fabs(c[i]));
      if (std::isnan(r3)) EXPECT_TRUE(std::isnan(three[i])) << i;
      else EXPECT_EQ(three[i], r3) << op << " of " << a[i] << ", " << b[i] << ", " << c[i];
      if (std::isnan(r3abs)) EXPECT_TRUE(std::isnan(three_abs[i])) << i;
      else EXPECT_EQ(three_abs[i], r3abs) << op << ".abs of " << a[i] << ", " << b[i] << ", " << c[i];
    }
  }
}

// redux.sync.{min,max}{.abs}{.NaN}.f32 (sm_100a): a float reduction over the warp (not the
// integer order of the bits), +0.0 above -0.0, NaN inputs left out unless .NaN.
TEST(EmuWarp, ReduxF32) {
  std::vector<float> a(kN);
  std::vector<uint32_t> z(kN);
  for (int i = 0; i < kN; ++i) a[i] = static_cast<float>((i * 7) % 13) - 6.5f;  // negatives and positives
  a[3] = -0.0f, a[40] = NAN;                                                      // warp 1 holds a NaN
  auto run_redux = [&](const std::string& mods) {
    return run<float, uint32_t, uint32_t, uint32_t>(
        {".f32", ".b32", ".b32", ".b32", "redux.sync" + mods + ".f32 %d, %a, 0xffffffff;", "sm_100a", "8.6"}, a, z, z);
  };
  const auto mx = run_redux(".max"), mn = run_redux(".min"), mx_abs = run_redux(".max.abs"), mn_nan = run_redux(".min.NaN");
  for (int w = 0; w < 2; ++w) {
    float hi = -INFINITY, lo = INFINITY, hi_abs = 0;
    bool nan = false;
    for (int l = 0; l < 32; ++l) {
      const float x = a[w * 32 + l];
      if (std::isnan(x)) { nan = true; continue; }
      hi = std::max(hi, x), lo = std::min(lo, x), hi_abs = std::max(hi_abs, std::fabs(x));
    }
    for (int l = 0; l < 32; ++l) {
      const int i = w * 32 + l;
      EXPECT_EQ(std::bit_cast<float>(mx[i]), hi) << i;
      EXPECT_EQ(std::bit_cast<float>(mn[i]), lo) << i;
      EXPECT_EQ(std::bit_cast<float>(mx_abs[i]), hi_abs) << i;
      if (nan) EXPECT_EQ(mn_nan[i], 0x7FFFFFFFu) << i;  // the canonical NaN
      else EXPECT_EQ(std::bit_cast<float>(mn_nan[i]), lo) << i;
    }
  }
  // +0.0 is the larger zero: max of {-0.0, +0.0} is +0.0, min -0.0
  std::vector<float> zeros(kN);
  for (int i = 0; i < kN; ++i) zeros[i] = i % 2 ? 0.0f : -0.0f;
  const auto zmax = run<float, uint32_t, uint32_t, uint32_t>(
      {".f32", ".b32", ".b32", ".b32", "redux.sync.max.f32 %d, %a, 0xffffffff;", "sm_100a", "8.6"}, zeros, z, z);
  const auto zmin = run<float, uint32_t, uint32_t, uint32_t>(
      {".f32", ".b32", ".b32", ".b32", "redux.sync.min.f32 %d, %a, 0xffffffff;", "sm_100a", "8.6"}, zeros, z, z);
  EXPECT_EQ(zmax[0], 0x00000000u);
  EXPECT_EQ(zmin[0], 0x80000000u);
}

}  // namespace
}  // namespace ptx::test
