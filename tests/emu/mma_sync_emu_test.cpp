// mma.sync on the emulator, form by form: each kernel loads every thread's fragment
// registers from global memory (the host packs them), runs one mma and stores D. The host
// places the elements of A, B and C with layout functions written here from the PTX ISA
// manual (9.7.14.5, "Matrix fragments for mma.m*n*k*"), computes D in C++ and unpacks what
// the kernel stored with the same functions. The data is random and the matrices are not
// square or symmetric, so a transposed or swapped layout shows. ptxas checks every kernel.
#include <algorithm>
#include <bit>
#include <cfenv>
#include <cmath>
#include <cstdint>
#include <functional>
#include <random>
#include <string>
#include <vector>

#include "../unit/ptxas_util.hpp"
#include "emu_test_util.hpp"

namespace ptx::test {
namespace {

// ---- the kernel -----------------------------------------------------------------------

struct Form {
  std::string inst;    // the instruction up to its operands
  std::string target;  // .target, also ptxas's -arch
  int na, nb, nc, nd;  // registers per thread
  bool wide = false;   // 64-bit registers (.f64)
  int selector = -1;   // mma.sp: the sparsity selector f (the metadata e is one more register, after c)
};

std::string vec(const char* prefix, int first, int count) {
  std::string s = "{";
  for (int i = 0; i < count; ++i) s += (i ? ", %" : "%") + std::string(prefix) + std::to_string(first + i);
  return s + "}";
}

std::string kernel_text(const Form& f) {
  const int n_in = f.na + f.nb + f.nc + (f.selector >= 0 ? 1 : 0), bytes = f.wide ? 8 : 4;
  const std::string bits = f.wide ? "b64" : "b32";
  std::string s = ".version 8.7\n.target " + f.target + "\n.address_size 64\n\n";
  s += ".visible .entry t(.param .u64 pin, .param .u64 pout)\n{\n";
  s += "\t.reg ." + bits + " %v<" + std::to_string(n_in + f.nd) + ">;\n\t.reg .b32 %r<2>;\n\t.reg .b64 %rd<8>;\n";
  s += "\tld.param.u64 %rd1, [pin];\n\tld.param.u64 %rd2, [pout];\n\tcvta.to.global.u64 %rd1, %rd1;\n\tcvta.to.global.u64 %rd2, %rd2;\n";
  s += "\tmov.u32 %r1, %tid.x;\n";
  s += "\tmul.wide.u32 %rd3, %r1, " + std::to_string(n_in * bytes) + ";\n\tadd.s64 %rd4, %rd1, %rd3;\n";
  for (int i = 0; i < n_in; ++i) s += "\tld.global." + bits + " %v" + std::to_string(i) + ", [%rd4+" + std::to_string(i * bytes) + "];\n";
  s += "\t" + f.inst + " " + vec("v", n_in, f.nd) + ", " + vec("v", 0, f.na) + ", " + vec("v", f.na, f.nb) + ", " +
       vec("v", f.na + f.nb, f.nc) +
       (f.selector >= 0 ? ", %v" + std::to_string(n_in - 1) + ", " + std::to_string(f.selector) : std::string()) + ";\n";
  s += "\tmul.wide.u32 %rd5, %r1, " + std::to_string(f.nd * bytes) + ";\n\tadd.s64 %rd6, %rd2, %rd5;\n";
  for (int i = 0; i < f.nd; ++i) s += "\tst.global." + bits + " [%rd6+" + std::to_string(i * bytes) + "], %v" + std::to_string(n_in + i) + ";\n";
  return s + "\tret;\n}\n";
}

// Runs the form's kernel on one warp: `in` holds each lane's a, b, c registers in turn;
// returns each lane's d registers.
std::vector<uint64_t> run(const Form& f, const std::vector<uint64_t>& in) {
  const std::string text = kernel_text(f);
  if (have_ptxas()) {
    const auto r = run_ptxas(text, f.target);
    EXPECT_TRUE(r.ok) << f.inst << "\n" << r.log;
  }
  EmuRun r;
  std::vector<uint64_t> out;
  if (f.wide) {
    r.buffer(in, "in");
    const uint64_t o = r.buffer(std::vector<uint64_t>(32u * static_cast<unsigned>(f.nd)), "out");
    r.launch(text, "t", {1, 1, 1}, {32, 1, 1});
    out = r.read<uint64_t>(o, 32u * static_cast<unsigned>(f.nd));
  } else {
    std::vector<uint32_t> in32(in.begin(), in.end());
    r.buffer(in32, "in");
    const uint64_t o = r.buffer(std::vector<uint32_t>(32u * static_cast<unsigned>(f.nd)), "out");
    r.launch(text, "t", {1, 1, 1}, {32, 1, 1});
    const auto got = r.read<uint32_t>(o, 32u * static_cast<unsigned>(f.nd));
    out.assign(got.begin(), got.end());
  }
  return out;
}

// ---- layouts (from the manual) ------------------------------------------------------------

struct Pos {
  int row, col;
};
using Layout = std::function<Pos(int lane, int i)>;  // element i (low to high over the registers) of a lane

int gid(int lane) { return lane >> 2; }
int tig(int lane) { return lane % 4; }

// A of the m16n8 and m8n8 shapes; `kind`: h (f16/bf16), t (tf32), d (f64), 8, 4, 1 (bits).
Layout a_layout(int m, int k, char kind) {
  return [=](int l, int i) -> Pos {
    const int g = gid(l), t = tig(l);
    if (m == 8) {
      if (kind == 'd') return {g, t};                                    // m8n8k4 .f64
      if (kind == '8') return {g, t * 4 + i};                            // m8n8k16
      if (kind == '4') return {g, t * 8 + i};                            // m8n8k32
      return {g, t * 32 + i};                                            // m8n8k128
    }
    switch (kind) {
      case 'h':
        if (k == 8) return {i < 2 ? g : g + 8, t * 2 + (i & 1)};
        return {(i < 2 || (i >= 4 && i < 6)) ? g : g + 8, t * 2 + (i & 1) + (i >= 4 ? 8 : 0)};
      case 't':
      case 'd':
        if (k == 4) return {i == 0 ? g : g + 8, t};
        if (k == 8) return {i % 2 == 0 ? g : g + 8, i < 2 ? t : t + 4};
        return {i % 2 == 0 ? g : g + 8, i % 2 == 0 ? i * 2 + t : i * 2 - 2 + t};  // m16n8k16 .f64
      case '8':
        if (k == 16) return {i < 4 ? g : g + 8, t * 4 + (i & 3)};
        return {(i < 4 || (i >= 8 && i < 12)) ? g : g + 8, t * 4 + (i & 3) + (i >= 8 ? 16 : 0)};
      case '4':
        if (k == 32) return {i < 8 ? g : g + 8, t * 8 + (i & 7)};
        return {(i < 8 || (i >= 16 && i < 24)) ? g : g + 8, t * 8 + (i & 7) + (i >= 16 ? 32 : 0)};
      default:
        if (k == 128) return {i < 32 ? g : g + 8, t * 32 + (i & 31)};
        return {(i < 32 || (i >= 64 && i < 96)) ? g : g + 8, t * 32 + (i & 31) + (i >= 64 ? 128 : 0)};
    }
  };
}

Layout b_layout(int k, char kind) {
  return [=](int l, int i) -> Pos {
    const int g = gid(l), t = tig(l);
    switch (kind) {
      case 'h':
        if (k == 32) return {t * 2 + (i & 1) + 8 * (i / 2), g};  // mma.sp m16n8k32 (9.7.14.6.2.2)
        return {k == 8 ? t * 2 + i : t * 2 + (i & 1) + (i >= 2 ? 8 : 0), g};
      case 't':
      case 'd': return {k == 4 ? t : t + 4 * i, g};
      case '8':
        if (k == 64) return {t * 4 + (i & 3) + 16 * (i / 4), g};  // mma.sp m16n8k64 (9.7.14.6.2.6)
        return {k == 16 ? t * 4 + i : t * 4 + (i & 3) + (i >= 4 ? 16 : 0), g};
      case '4': return {k == 32 ? t * 8 + i : t * 8 + (i & 7) + (i >= 8 ? 32 : 0), g};
      default: return {k == 128 ? t * 32 + i : t * 32 + (i & 31) + (i >= 32 ? 128 : 0), g};
    }
  };
}

Layout c_layout(int m) {
  return [=](int l, int i) -> Pos {
    if (m == 8) return {gid(l), tig(l) * 2 + i};
    return {i < 2 ? gid(l) : gid(l) + 8, tig(l) * 2 + (i & 1)};
  };
}

// ---- element codes --------------------------------------------------------------------------

// The code of x, exactly representable and normal (or zero) in a format with `man`
// mantissa and `exp_bits` exponent bits.
uint32_t code_of(double x, int man, int exp_bits) {
  if (x == 0) return 0;
  const uint32_t sign = x < 0 ? 1u : 0u;
  int e = 0;
  const double m = std::frexp(std::fabs(x), &e);  // |x| = m 2^e, m in [0.5, 1)
  const int bias = (1 << (exp_bits - 1)) - 1;
  const double frac = (m * 2 - 1) * std::ldexp(1.0, man);
  EXPECT_EQ(frac, std::floor(frac)) << x << " is not exact";
  return sign << (man + exp_bits) | static_cast<uint32_t>(e - 1 + bias) << man | static_cast<uint32_t>(frac);
}

double f16_value(uint32_t c) {
  const int e = static_cast<int>(c >> 10 & 31), f = static_cast<int>(c & 1023);
  const double v = e == 0 ? std::ldexp(f, -24) : std::ldexp(1024 + f, e - 25);
  return c & 0x8000 ? -v : v;
}

// Packs operand elements into each lane's registers: element i of a lane goes to register
// i / per, bits (i % per) * width.
void pack(std::vector<uint64_t>& in, int stride, int first, int regs, int width, const Layout& at,
          const std::function<uint64_t(Pos)>& code_at) {
  const int per = width >= 32 ? 1 : 32 / width;
  for (int l = 0; l < 32; ++l)
    for (int i = 0; i < regs * per; ++i) {
      const uint64_t mask = width >= 64 ? ~uint64_t{0} : (uint64_t{1} << width) - 1;
      in[static_cast<size_t>(l * stride + first + i / per)] |= (code_at(at(l, i)) & mask) << (width * (i % per));
    }
}

// ---- integer forms --------------------------------------------------------------------------

struct IntCase {
  int m, k;
  bool a_signed, b_signed;
  int bits;  // 8, 4 or 1
  std::string op = "";  // .b1: ".xor" or ".and"
  bool satfinite = false;
  int64_t c_base = 0;  // added to every C element (to provoke overflow)
};

std::string int_type(bool s, int bits) { return bits == 1 ? ".b1" : (s ? ".s" : ".u") + std::to_string(bits); }

void check_int(const IntCase& c, uint32_t seed) {
  const int m = c.m, n = 8, k = c.k;
  const char kind = c.bits == 8 ? '8' : c.bits == 4 ? '4' : '1';
  Form f;
  f.inst = "mma.sync.aligned.m" + std::to_string(m) + "n8k" + std::to_string(k) + ".row.col" + (c.satfinite ? ".satfinite" : "") +
           ".s32" + int_type(c.a_signed, c.bits) + int_type(c.b_signed, c.bits) + ".s32" + (c.bits == 1 ? c.op + ".popc" : "");
  f.target = "sm_80";
  f.na = m * k * c.bits / 32 / 32;
  f.nb = k * n * c.bits / 32 / 32;
  f.nc = f.nd = m * n / 32;
  std::mt19937 g(seed);
  auto elem = [&](bool s) -> int64_t {
    if (c.bits == 1) return static_cast<int64_t>(g() & 1);
    const int64_t span = int64_t{1} << c.bits;
    const int64_t v = static_cast<int64_t>(g() % static_cast<uint32_t>(span));
    return s ? v - span / 2 : v;
  };
  std::vector<int64_t> A(static_cast<size_t>(m * k)), B(static_cast<size_t>(k * n)), C(static_cast<size_t>(m * n));
  for (auto& x : A) x = elem(c.a_signed);
  for (auto& x : B) x = elem(c.b_signed);
  for (auto& x : C) x = std::clamp<int64_t>(c.c_base + static_cast<int64_t>(g() % 2001) - 1000, INT32_MIN, INT32_MAX);
  const int stride = f.na + f.nb + f.nc;
  std::vector<uint64_t> in(static_cast<size_t>(32 * stride));
  auto code = [](int64_t v) { return static_cast<uint64_t>(v); };
  pack(in, stride, 0, f.na, c.bits, a_layout(m, k, kind), [&](Pos p) { return code(A[static_cast<size_t>(p.row * k + p.col)]); });
  pack(in, stride, f.na, f.nb, c.bits, b_layout(k, kind), [&](Pos p) { return code(B[static_cast<size_t>(p.row * n + p.col)]); });
  pack(in, stride, f.na + f.nb, f.nc, 32, c_layout(m), [&](Pos p) { return code(C[static_cast<size_t>(p.row * n + p.col)]); });
  const auto out = run(f, in);
  for (int l = 0; l < 32; ++l)
    for (int i = 0; i < f.nd; ++i) {
      const Pos p = c_layout(m)(l, i);
      int64_t acc = C[static_cast<size_t>(p.row * n + p.col)];
      for (int kk = 0; kk < k; ++kk) {
        const int64_t x = A[static_cast<size_t>(p.row * k + kk)], y = B[static_cast<size_t>(kk * n + p.col)];
        acc += c.op == ".xor" ? (x ^ y) : c.op == ".and" ? (x & y) : x * y;
      }
      if (c.satfinite) acc = std::clamp<int64_t>(acc, INT32_MIN, INT32_MAX);
      const auto want = static_cast<uint32_t>(static_cast<uint64_t>(acc));
      ASSERT_EQ(static_cast<uint32_t>(out[static_cast<size_t>(l * f.nd + i)]), want) << f.inst << " lane " << l << " d" << i;
    }
}

TEST(MmaSyncInt, EightBit) {
  check_int({8, 16, true, true, 8}, 1);
  check_int({8, 16, false, true, 8}, 2);
  check_int({16, 16, false, false, 8}, 3);
  check_int({16, 32, true, false, 8}, 4);
  check_int({16, 32, true, true, 8, "", true, int64_t{INT32_MAX} - 2000}, 5);
}

TEST(MmaSyncInt, FourBit) {
  check_int({8, 32, true, true, 4}, 11);
  check_int({8, 32, false, true, 4}, 12);
  check_int({16, 32, false, true, 4}, 13);
  check_int({16, 64, true, false, 4}, 14);
  check_int({16, 64, false, false, 4}, 15);
}

TEST(MmaSyncInt, FourBitSatfiniteClampsAndPlainWraps) {
  check_int({16, 64, false, false, 4, "", true, int64_t{INT32_MAX} - 500}, 16);   // clamps at INT32_MAX
  check_int({16, 64, false, false, 4, "", false, int64_t{INT32_MAX} - 500}, 17);  // wraps
  check_int({8, 32, true, true, 4, "", true, int64_t{INT32_MIN} + 100}, 18);
}

TEST(MmaSyncInt, SingleBit) {
  check_int({8, 128, false, false, 1, ".xor"}, 21);
  check_int({16, 128, false, false, 1, ".and"}, 22);
  check_int({16, 128, false, false, 1, ".xor"}, 23);
  check_int({16, 256, false, false, 1, ".xor"}, 24);
  check_int({16, 256, false, false, 1, ".and"}, 25);
}

// ---- .f64 ---------------------------------------------------------------------------------

void check_f64(int m, int k, uint32_t seed) {
  const int n = 8;
  Form f;
  f.inst = "mma.sync.aligned.m" + std::to_string(m) + "n8k" + std::to_string(k) + ".row.col.f64.f64.f64.f64";
  f.target = m == 8 ? "sm_80" : "sm_90";
  f.na = m * k / 32, f.nb = k * n / 32, f.nc = f.nd = m * n / 32;
  f.wide = true;
  std::mt19937 g(seed);
  auto small = [&] { return static_cast<double>(static_cast<int>(g() % 17) - 8) * 0.25; };  // exact products and sums
  std::vector<double> A(static_cast<size_t>(m * k)), B(static_cast<size_t>(k * n)), C(static_cast<size_t>(m * n));
  for (auto& x : A) x = small();
  for (auto& x : B) x = small();
  for (auto& x : C) x = small();
  const int stride = f.na + f.nb + f.nc;
  std::vector<uint64_t> in(static_cast<size_t>(32 * stride));
  auto bits = [](double v) { return std::bit_cast<uint64_t>(v); };
  pack(in, stride, 0, f.na, 64, a_layout(m, k, 'd'), [&](Pos p) { return bits(A[static_cast<size_t>(p.row * k + p.col)]); });
  pack(in, stride, f.na, f.nb, 64, b_layout(k, 'd'), [&](Pos p) { return bits(B[static_cast<size_t>(p.row * n + p.col)]); });
  pack(in, stride, f.na + f.nb, f.nc, 64, c_layout(m), [&](Pos p) { return bits(C[static_cast<size_t>(p.row * n + p.col)]); });
  const auto out = run(f, in);
  for (int l = 0; l < 32; ++l)
    for (int i = 0; i < f.nd; ++i) {
      const Pos p = c_layout(m)(l, i);
      double acc = C[static_cast<size_t>(p.row * n + p.col)];
      for (int kk = 0; kk < k; ++kk) acc += A[static_cast<size_t>(p.row * k + kk)] * B[static_cast<size_t>(kk * n + p.col)];
      ASSERT_EQ(std::bit_cast<double>(out[static_cast<size_t>(l * f.nd + i)]), acc) << f.inst << " lane " << l << " d" << i;
    }
}

TEST(MmaSyncF64, AllShapes) {
  check_f64(8, 4, 31);
  check_f64(16, 4, 32);
  check_f64(16, 8, 33);
  check_f64(16, 16, 34);
}

// D = round(c + a b) with one non-zero product per element: a = +-(1 + 2^-30) in column 0 of
// A (the sign alternating by row), b = 1 + 2^-30 in row 0 of B, C = 0. The exact product
// 1 + 2^-29 + 2^-60 lies between two doubles; .rnd picks one.
TEST(MmaSyncF64, RoundingModes) {
  const double x = 1 + std::ldexp(1.0, -30), lo = 1 + std::ldexp(1.0, -29), hi = std::nextafter(lo, 2.0);
  for (const char* rnd : {"", ".rn", ".rz", ".rm", ".rp"}) {
    for (int k : {4, 16}) {
      const int m = 16, n = 8;
      Form f;
      f.inst = std::string("mma.sync.aligned.m16n8k") + std::to_string(k) + ".row.col" + rnd + ".f64.f64.f64.f64";
      f.target = "sm_90";
      f.na = m * k / 32, f.nb = k * n / 32, f.nc = f.nd = m * n / 32;
      f.wide = true;
      const int stride = f.na + f.nb + f.nc;
      std::vector<uint64_t> in(static_cast<size_t>(32 * stride));
      auto bits = [](double v) { return std::bit_cast<uint64_t>(v); };
      pack(in, stride, 0, f.na, 64, a_layout(m, k, 'd'), [&](Pos p) { return bits(p.col == 0 ? (p.row % 2 ? -x : x) : 0.0); });
      pack(in, stride, f.na, f.nb, 64, b_layout(k, 'd'), [&](Pos p) { return bits(p.row == 0 ? x : 0.0); });
      const auto out = run(f, in);
      const std::string r = rnd;
      for (int l = 0; l < 32; ++l)
        for (int i = 0; i < f.nd; ++i) {
          const bool neg = c_layout(m)(l, i).row % 2 == 1;
          const bool away = r == ".rp" ? !neg : r == ".rm" ? neg : false;  // rounded away from zero
          const double want = (neg ? -1 : 1) * (away ? hi : lo);
          ASSERT_EQ(std::bit_cast<double>(out[static_cast<size_t>(l * f.nd + i)]), want) << f.inst << " lane " << l;
        }
    }
  }
}

// The m8n8k4 .f64 form honours .rnd too.
TEST(MmaSyncF64, M8n8k4RoundsUpWithRp) {
  const double x = 1 + std::ldexp(1.0, -30);
  Form f{"mma.sync.aligned.m8n8k4.row.col.rp.f64.f64.f64.f64", "sm_80", 1, 1, 2, 2, true};
  std::vector<uint64_t> in(32 * 4);
  pack(in, 4, 0, 1, 64, a_layout(8, 4, 'd'), [&](Pos p) { return std::bit_cast<uint64_t>(p.col == 0 ? x : 0.0); });
  pack(in, 4, 1, 1, 64, b_layout(4, 'd'), [&](Pos p) { return std::bit_cast<uint64_t>(p.row == 0 ? x : 0.0); });
  const auto out = run(f, in);
  for (uint64_t v : out) ASSERT_EQ(std::bit_cast<double>(v), std::nextafter(1 + std::ldexp(1.0, -29), 2.0));
}

// ---- m8n8k4 .f16: four products, one per quad pair -----------------------------------------------

// The manual's layouts (9.7.14.5.1): lanes 4q..4q+3 (low group) and 16+4q.. (high group) hold
// product q.
int quad_pair(int lane) { return (lane % 16) / 4; }
int high(int lane) { return lane >= 16 ? 4 : 0; }
Pos volta_a(bool row_major, int l, int i) { return row_major ? Pos{l % 4 + high(l), i} : Pos{i % 4 + high(l), l % 4}; }
Pos volta_b(bool row_major, int l, int i) { return row_major ? Pos{l % 4, i + high(l)} : Pos{i, l % 4 + high(l)}; }
Pos volta_c(bool f16, int l, int i) {
  if (f16) return {l % 4 + high(l), i};
  return {(l & 1) + (i & 2) + high(l), (i & 4) + (l & 2) + (i & 1)};
}

void check_volta(bool a_row, bool b_row, bool d_f32, bool c_f32, uint32_t seed) {
  Form f;
  f.inst = std::string("mma.sync.aligned.m8n8k4") + (a_row ? ".row" : ".col") + (b_row ? ".row" : ".col") + (d_f32 ? ".f32" : ".f16") +
           ".f16.f16" + (c_f32 ? ".f32" : ".f16");
  f.target = "sm_80";
  f.na = f.nb = 2;
  f.nc = c_f32 ? 8 : 4;
  f.nd = d_f32 ? 8 : 4;
  std::mt19937 g(seed);
  auto small = [&] { return static_cast<double>(static_cast<int>(g() % 9) - 4) * 0.5; };
  double A[4][8][4], B[4][4][8], C[4][8][8];
  for (auto& q : A) for (auto& r : q) for (auto& x : r) x = small();
  for (auto& q : B) for (auto& r : q) for (auto& x : r) x = small();
  for (auto& q : C) for (auto& r : q) for (auto& x : r) x = small() * 3;
  const int stride = f.na + f.nb + f.nc;
  std::vector<uint64_t> in(static_cast<size_t>(32 * stride));
  auto h = [](double v) { return static_cast<uint64_t>(code_of(v, 10, 5)); };
  for (int l = 0; l < 32; ++l) {
    const int q = quad_pair(l);
    uint64_t* regs = &in[static_cast<size_t>(l * stride)];
    for (int i = 0; i < 4; ++i) {
      const Pos pa = volta_a(a_row, l, i), pb = volta_b(b_row, l, i);
      regs[i / 2] |= h(A[q][pa.row][pa.col]) << (16 * (i % 2));
      regs[2 + i / 2] |= h(B[q][pb.row][pb.col]) << (16 * (i % 2));
    }
    for (int i = 0; i < 8; ++i) {
      const Pos pc = volta_c(!c_f32, l, i);
      const double v = C[q][pc.row][pc.col];
      if (c_f32) regs[4 + i] = std::bit_cast<uint32_t>(static_cast<float>(v));
      else regs[4 + i / 2] |= h(v) << (16 * (i % 2));
    }
  }
  const auto out = run(f, in);
  for (int l = 0; l < 32; ++l) {
    const int q = quad_pair(l);
    for (int i = 0; i < 8; ++i) {
      // D is laid out as C: the manual keys the accumulator layout to .ctype
      const Pos p = volta_c(!c_f32, l, i);
      double want = C[q][p.row][p.col];
      for (int kk = 0; kk < 4; ++kk) want += A[q][p.row][kk] * B[q][kk][p.col];
      const uint64_t reg = out[static_cast<size_t>(l * f.nd + (d_f32 ? i : i / 2))];
      const double got = d_f32 ? static_cast<double>(std::bit_cast<float>(static_cast<uint32_t>(reg))) : f16_value(static_cast<uint32_t>(reg >> (16 * (i % 2)) & 0xFFFF));
      ASSERT_EQ(got, want) << f.inst << " lane " << l << " d" << i;
    }
  }
}

TEST(MmaSyncVolta, EveryLayoutAndTypeCombination) {
  uint32_t seed = 50;
  for (bool a_row : {true, false})
    for (bool b_row : {true, false}) {
      check_volta(a_row, b_row, false, false, seed++);
      check_volta(a_row, b_row, true, false, seed++);
      check_volta(a_row, b_row, true, true, seed++);
    }
}

// ---- fp8 ----------------------------------------------------------------------------------

struct Fp8 {
  const char* name;
  int man, exp_bits;
};
constexpr Fp8 kE4m3{".e4m3", 3, 4}, kE5m2{".e5m2", 2, 5};

void check_fp8(int k, const Fp8& ta, const Fp8& tb, bool f16_acc, bool kind, uint32_t seed) {
  const int m = 16, n = 8;
  Form f;
  f.inst = std::string("mma.sync.aligned.m16n8k") + std::to_string(k) + ".row.col" + (kind ? ".kind::f8f6f4" : "") +
           (f16_acc ? ".f16" : ".f32") + ta.name + tb.name + (f16_acc ? ".f16" : ".f32");
  f.target = kind ? "sm_120a" : "sm_89";
  f.na = m * k / 4 / 32, f.nb = k * n / 4 / 32;
  f.nc = f.nd = f16_acc ? 2 : 4;
  std::mt19937 g(seed);
  auto small = [&] { return static_cast<double>(static_cast<int>(g() % 13) - 6) * 0.5; };  // exact in e4m3 and e5m2
  std::vector<double> A(static_cast<size_t>(m * k)), B(static_cast<size_t>(k * n)), C(static_cast<size_t>(m * n));
  for (auto& x : A) x = small();
  for (auto& x : B) x = small();
  for (auto& x : C) x = small() * 4;
  const int stride = f.na + f.nb + f.nc;
  std::vector<uint64_t> in(static_cast<size_t>(32 * stride));
  pack(in, stride, 0, f.na, 8, a_layout(m, k, '8'), [&](Pos p) { return code_of(A[static_cast<size_t>(p.row * k + p.col)], ta.man, ta.exp_bits); });
  pack(in, stride, f.na, f.nb, 8, b_layout(k, '8'), [&](Pos p) { return code_of(B[static_cast<size_t>(p.row * n + p.col)], tb.man, tb.exp_bits); });
  pack(in, stride, f.na + f.nb, f.nc, f16_acc ? 16 : 32, c_layout(m), [&](Pos p) -> uint64_t {
    const double v = C[static_cast<size_t>(p.row * n + p.col)];
    return f16_acc ? code_of(v, 10, 5) : std::bit_cast<uint32_t>(static_cast<float>(v));
  });
  const auto out = run(f, in);
  for (int l = 0; l < 32; ++l)
    for (int i = 0; i < 4; ++i) {
      const Pos p = c_layout(m)(l, i);
      double want = C[static_cast<size_t>(p.row * n + p.col)];
      for (int kk = 0; kk < k; ++kk) want += A[static_cast<size_t>(p.row * k + kk)] * B[static_cast<size_t>(kk * n + p.col)];
      const uint64_t reg = out[static_cast<size_t>(l * f.nd + (f16_acc ? i / 2 : i))];
      const double got = f16_acc ? f16_value(static_cast<uint32_t>(reg >> (16 * (i % 2)) & 0xFFFF))
                                 : static_cast<double>(std::bit_cast<float>(static_cast<uint32_t>(reg)));
      ASSERT_EQ(got, want) << f.inst << " lane " << l << " d" << i;
    }
}

TEST(MmaSyncFp8, HalfAccumulation) {
  check_fp8(16, kE4m3, kE5m2, true, false, 61);
  check_fp8(32, kE5m2, kE4m3, true, false, 62);
  check_fp8(32, kE4m3, kE4m3, false, false, 63);
}

TEST(MmaSyncFp8, KindF8f6f4WithEightBitTypes) {
  check_fp8(32, kE4m3, kE5m2, false, true, 64);
  check_fp8(32, kE5m2, kE5m2, true, true, 65);
}


// ---- mma.sp --------------------------------------------------------------------------------

// The metadata of chunk c (columns 4c..4c+3) of row r: which lane of the quad of row r % 8, and
// from which bit, per the manual's metadata figures (9.7.14.6.2).
struct MetaAt {
  int lane, bit;
};
MetaAt meta_at(int k, bool eight_bit, int f, int r, int c) {
  const int quad = 4 * (r % 8);
  if (eight_bit) return {quad + (r >= 8 ? 1 : 0) + (c >= 8 ? 2 : 0), 4 * (c % 8)};  // m16n8k64: all four threads
  if (k == 16) return {quad + f, (r >= 8 ? 16 : 0) + 4 * c};                       // one thread, chosen by f
  return {quad + 2 * f + (c >= 4 ? 1 : 0), (r >= 8 ? 16 : 0) + 4 * (c % 4)};      // m16n8k32: a pair of threads
}

struct SparseCase {
  int k;
  std::string prefix;  // "mma.sp" or "mma.sp::ordered_metadata"
  std::string types;   // ".f32.f16.f16.f32" ...
  char kind;           // 'h' (f16), 'b' (bf16), 'E' (e4m3), 's'/'u' (8-bit integers)
  std::string target;
  int f = 0;
  bool f16_acc = false;
  int bad_lane = -1;      // give this lane's first metadata field the same index twice
  bool unordered = false;  // store some chunks' indices decreasing
};

// What the run reports (empty if none); checks D when it ran.
std::string check_sparse(const SparseCase& c, uint32_t seed) {
  const int m = 16, n = 8, k = c.k;
  const bool eight = c.kind == 'E' || c.kind == 's' || c.kind == 'u';
  Form f;
  f.inst = c.prefix + ".sync.aligned.m16n8k" + std::to_string(k) + ".row.col" + c.types;
  f.target = c.target;
  const int ebits = eight ? 8 : 16;
  f.na = m * k / 2 * ebits / 32 / 32;
  f.nb = k * n * ebits / 32 / 32;
  f.nc = f.nd = c.f16_acc ? 2 : 4;
  f.selector = c.f;
  std::mt19937 g(seed);
  auto value = [&] {
    const int v = static_cast<int>(g() % 7) - 3;
    return c.kind == 's' || c.kind == 'u' ? static_cast<double>(c.kind == 'u' ? v + 3 : v) : v * 0.5;
  };
  std::vector<double> A(static_cast<size_t>(m * k), 0.0), packed(static_cast<size_t>(m * k / 2)), B(static_cast<size_t>(k * n)),
      C(static_cast<size_t>(m * n));
  std::vector<int> idx(static_cast<size_t>(m * k / 2));  // the column (in its chunk) of each packed element
  for (int r = 0; r < m; ++r)
    for (int ch = 0; ch < k / 4; ++ch) {
      int i0 = static_cast<int>(g() % 4), i1 = static_cast<int>(g() % 3);
      if (i1 >= i0) ++i1;
      if (!c.unordered && i0 > i1) std::swap(i0, i1);
      for (int j = 0; j < 2; ++j) {
        const double v = value();
        packed[static_cast<size_t>(r * k / 2 + 2 * ch + j)] = v;
        idx[static_cast<size_t>(r * k / 2 + 2 * ch + j)] = j ? i1 : i0;
        A[static_cast<size_t>(r * k + 4 * ch + (j ? i1 : i0))] = v;
      }
    }
  for (auto& x : B) x = value();
  for (auto& x : C) x = value() * 2;
  auto code = [&](double v, char kind) -> uint64_t {
    switch (kind) {
      case 'h': return code_of(v, 10, 5);
      case 'b': return code_of(v, 7, 8);
      case 'E': return code_of(v, 3, 4);
      default: return static_cast<uint64_t>(static_cast<int64_t>(v)) & 0xFF;
    }
  };
  const int stride = f.na + f.nb + f.nc + 1;
  std::vector<uint64_t> in(static_cast<size_t>(32 * stride));
  const char layout_kind = eight ? '8' : 'h';
  pack(in, stride, 0, f.na, ebits, a_layout(m, k / 2, layout_kind), [&](Pos p) { return code(packed[static_cast<size_t>(p.row * k / 2 + p.col)], c.kind); });
  pack(in, stride, f.na, f.nb, ebits, b_layout(k, layout_kind), [&](Pos p) { return code(B[static_cast<size_t>(p.row * n + p.col)], c.kind); });
  const bool int_acc = c.kind == 's' || c.kind == 'u';
  pack(in, stride, f.na + f.nb, f.nc, c.f16_acc ? 16 : 32, c_layout(m), [&](Pos p) -> uint64_t {
    const double v = C[static_cast<size_t>(p.row * n + p.col)];
    if (int_acc) return static_cast<uint32_t>(static_cast<int32_t>(v));
    return c.f16_acc ? code_of(v, 10, 5) : std::bit_cast<uint32_t>(static_cast<float>(v));
  });
  // metadata: lanes that supply none get noise, which must not matter
  std::vector<uint32_t> meta(32);
  for (auto& x : meta) x = g();
  std::vector<bool> supplies(32, false);
  for (int r = 0; r < m; ++r)
    for (int ch = 0; ch < k / 4; ++ch) supplies[static_cast<size_t>(meta_at(k, eight, c.f, r, ch).lane)] = true;
  for (int l = 0; l < 32; ++l)
    if (supplies[static_cast<size_t>(l)]) meta[static_cast<size_t>(l)] = 0;
  for (int r = 0; r < m; ++r)
    for (int ch = 0; ch < k / 4; ++ch) {
      const MetaAt at = meta_at(k, eight, c.f, r, ch);
      const auto nib = static_cast<uint32_t>(idx[static_cast<size_t>(r * k / 2 + 2 * ch)] | idx[static_cast<size_t>(r * k / 2 + 2 * ch + 1)] << 2);
      meta[static_cast<size_t>(at.lane)] |= nib << at.bit;
    }
  if (c.bad_lane >= 0) meta[static_cast<size_t>(c.bad_lane)] = (meta[static_cast<size_t>(c.bad_lane)] & ~0xFu) | 0x5u;
  for (int l = 0; l < 32; ++l) in[static_cast<size_t>(l * stride + stride - 1)] = meta[static_cast<size_t>(l)];
  std::vector<uint64_t> out;
  try {
    out = run(f, in);
  } catch (const emu::Error& e) {
    return e.what();
  }
  for (int l = 0; l < 32; ++l)
    for (int i = 0; i < 4; ++i) {
      const Pos p = c_layout(m)(l, i);
      double want = C[static_cast<size_t>(p.row * n + p.col)];
      for (int kk = 0; kk < k; ++kk) want += A[static_cast<size_t>(p.row * k + kk)] * B[static_cast<size_t>(kk * n + p.col)];
      const uint64_t reg = out[static_cast<size_t>(l * f.nd + (c.f16_acc ? i / 2 : i))];
      const double got = int_acc ? static_cast<double>(static_cast<int32_t>(reg))
                         : c.f16_acc ? f16_value(static_cast<uint32_t>(reg >> (16 * (i % 2)) & 0xFFFF))
                                     : static_cast<double>(std::bit_cast<float>(static_cast<uint32_t>(reg)));
      EXPECT_EQ(got, want) << f.inst << " lane " << l << " d" << i;
      if (got != want) return "mismatch";
    }
  return {};
}

TEST(MmaSyncSparse, HalfAndBf16) {
  for (int f = 0; f < 4; ++f) EXPECT_EQ(check_sparse({16, "mma.sp", ".f32.f16.f16.f32", 'h', "sm_80", f}, 70 + f), "");
  for (int f = 0; f < 2; ++f) EXPECT_EQ(check_sparse({32, "mma.sp", ".f32.f16.f16.f32", 'h', "sm_80", f}, 75 + f), "");
  EXPECT_EQ(check_sparse({16, "mma.sp", ".f16.f16.f16.f16", 'h', "sm_80", 2, true}, 77), "");
  EXPECT_EQ(check_sparse({32, "mma.sp::ordered_metadata", ".f16.f16.f16.f16", 'h', "sm_80", 1, true}, 78), "");
  EXPECT_EQ(check_sparse({16, "mma.sp", ".f32.bf16.bf16.f32", 'b', "sm_80", 3}, 79), "");
  EXPECT_EQ(check_sparse({32, "mma.sp::ordered_metadata", ".f32.bf16.bf16.f32", 'b', "sm_80", 0}, 80), "");
}

TEST(MmaSyncSparse, EightBitM16n8k64) {
  EXPECT_EQ(check_sparse({64, "mma.sp", ".s32.s8.s8.s32", 's', "sm_80"}, 81), "");
  EXPECT_EQ(check_sparse({64, "mma.sp::ordered_metadata", ".satfinite.s32.u8.u8.s32", 'u', "sm_80"}, 82), "");
  EXPECT_EQ(check_sparse({64, "mma.sp", ".f32.e4m3.e4m3.f32", 'E', "sm_89"}, 83), "");
  EXPECT_EQ(check_sparse({64, "mma.sp::ordered_metadata", ".f16.e4m3.e4m3.f16", 'E', "sm_120a", 0, true}, 84), "");
  EXPECT_EQ(check_sparse({64, "mma.sp::ordered_metadata", ".kind::f8f6f4.f32.e4m3.e4m3.f32", 'E', "sm_120a"}, 85), "");
}

// Plain .sp takes the two indices of a chunk in either order; .sp::ordered_metadata does not.
TEST(MmaSyncSparse, IndexOrder) {
  SparseCase c{16, "mma.sp", ".f32.f16.f16.f32", 'h', "sm_80", 1};
  c.unordered = true;
  EXPECT_EQ(check_sparse(c, 86), "");
  c.prefix = "mma.sp::ordered_metadata";
  const std::string rep = check_sparse(c, 86);
  EXPECT_NE(rep.find("indices not in increasing order"), std::string::npos) << rep;
}

TEST(MmaSyncSparse, InvalidMetadataNamesTheLane) {
  SparseCase c{32, "mma.sp", ".f32.f16.f16.f32", 'h', "sm_80", 1};
  c.bad_lane = 14;  // quad 3, thread 2: supplies chunks 0-3 of rows 3 and 11 with selector 1
  const std::string rep = check_sparse(c, 87);
  EXPECT_NE(rep.find("thread (14,0,0)"), std::string::npos) << rep;
  EXPECT_NE(rep.find("the sparsity metadata of lane 14"), std::string::npos) << rep;
  EXPECT_NE(rep.find("the same index twice"), std::string::npos) << rep;
  c.bad_lane = 13;  // supplies nothing with selector 1: its metadata is not read
  EXPECT_EQ(check_sparse(c, 87), "");
}

// ---- forms not run: clear reports ----------------------------------------------------------

std::string report_of(const std::string& target, const std::string& body) {
  const std::string text = ".version 8.7\n.target " + target +
                           "\n.address_size 64\n\n.visible .entry t()\n{\n\t.reg .b32 %r<20>;\n\t.reg .f32 %f<8>;\n\t.reg .b16 %h<4>;\n\t" + body +
                           "\n\tret;\n}\n";
  if (have_ptxas()) {
    const auto r = run_ptxas(text, target);
    EXPECT_TRUE(r.ok) << body << "\n" << r.log;
  }
  EmuRun r;
  try {
    r.launch(text, "t", {1, 1, 1}, {32, 1, 1});
  } catch (const emu::Error& e) {
    return e.what();
  }
  ADD_FAILURE() << "no report for " << body;
  return {};
}

TEST(MmaSyncErrors, UnsupportedFormsAreReportedClearly) {
  const struct {
    const char* target;
    const char* body;
    const char* says;
  } cases[] = {
      {"sm_80",
       "mma.sp.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32 {%r5, %r6, %r7, %r8}, {%r0, %r1}, {%r2, %r3}, {%r9, %r10, %r11, %r12}, %r4, "
       "0x0;",
       "sparsity metadata layout is not modelled"},
      {"sm_89",
       "mma.sync.aligned.m16n8k16.row.col.f32.e4m3.e4m3.f32 {%f0, %f1, %f2, %f3}, {%r0, %r1}, {%r2, %r3}, {%f4, %f5, %f6, %f7};",
       "two registers for b"},
      {"sm_120a",
       "mma.sync.aligned.m16n8k32.row.col.kind::f8f6f4.f32.e2m1.e4m3.f32 {%f0, %f1, %f2, %f3}, {%r0, %r1, %r2, %r3}, {%r4, %r5}, "
       "{%f4, %f5, %f6, %f7};",
       "6- and 4-bit elements"},
      {"sm_120a",
       "mma.sync.aligned.m16n8k64.row.col.kind::mxf4.block_scale.f32.e2m1.e2m1.f32.ue8m0 {%f0, %f1, %f2, %f3}, {%r0, %r1, %r2, %r3}, "
       "{%r4, %r5}, {%f4, %f5, %f6, %f7}, %r6, {%h0, %h1}, %r7, {%h2, %h3};",
       "block-scaled mma"},
  };
  for (const auto& c : cases) {
    const std::string rep = report_of(c.target, c.body);
    EXPECT_NE(rep.find(c.says), std::string::npos) << c.body << ": " << rep;
  }
}


// Malformed forms (which the validator refuses first by default) get a report from the
// emulator's own decoding, not a computation.
TEST(MmaSyncErrors, MalformedFormsAreReportedUnvalidated) {
  const struct {
    const char* body;
    const char* says;
  } cases[] = {
      {"mma.sync.aligned.m16n8k16.row.col.satfinite.f32.f16.f16.f32 {%f0, %f1, %f2, %f3}, {%r0, %r1, %r2, %r3}, {%r4, %r5}, "
       "{%f4, %f5, %f6, %f7};",
       ".satfinite is only for integer"},
      {"mma.sync.aligned.m16n8k16.col.col.f32.f16.f16.f32 {%f0, %f1, %f2, %f3}, {%r0, %r1, %r2, %r3}, {%r4, %r5}, "
       "{%f4, %f5, %f6, %f7};",
       "takes only .row.col"},
      {"mma.sync.aligned.m16n8k8.row.col.rz.f32.tf32.tf32.f32 {%f0, %f1, %f2, %f3}, {%r0, %r1, %r2, %r3}, {%r4, %r5}, "
       "{%f4, %f5, %f6, %f7};",
       "only for .f64 mma"},
      {"mma.sync.aligned.m16n8k128.row.col.s32.b1.b1.s32.popc {%r0, %r1, %r2, %r3}, {%r4, %r5}, {%r6}, {%r0, %r1, %r2, %r3};",
       "needs .popc and one of .xor/.and"},
      {"mma.sync.aligned.m16n8k12.row.col.f32.f16.f16.f32 {%f0, %f1, %f2, %f3}, {%r0, %r1, %r2, %r3}, {%r4, %r5}, "
       "{%f4, %f5, %f6, %f7};",
       "not a shape and type combination"},
      {"mma.sp.sync.aligned.m16n8k32.row.col.f32.f16.f16.f32 {%f0, %f1, %f2, %f3}, {%r0, %r1, %r2, %r3}, {%r4, %r5, %r6, %r7}, "
       "{%f4, %f5, %f6, %f7}, %r8, 2;",
       "the sparsity selector f must be an immediate below 2"},
      {"mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {%f0, %f1, %f2}, {%r0, %r1, %r2, %r3}, {%r4, %r5}, {%f4, %f5, %f6, %f7};",
       "operand d must be a vector of 4 registers"},
  };
  emu::Options unvalidated;
  unvalidated.validate = false;
  for (const auto& c : cases) {
    const std::string text = std::string(".version 8.7\n.target sm_90\n.address_size 64\n\n.visible .entry t()\n{\n\t.reg .b32 %r<20>;\n") +
                             "\t.reg .f32 %f<8>;\n\t" + c.body + "\n\tret;\n}\n";
    EmuRun r{emu::Emulator(unvalidated), {}};
    std::string rep;
    try {
      r.launch(text, "t", {1, 1, 1}, {32, 1, 1});
    } catch (const emu::Error& e) {
      rep = e.what();
    }
    EXPECT_NE(rep.find(c.says), std::string::npos) << c.body << ": " << rep;
  }
}

}  // namespace
}  // namespace ptx::test
