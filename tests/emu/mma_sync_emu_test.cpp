// mma.sync on the emulator, form by form: each kernel loads every thread's fragment
// registers from global memory (the host packs them), runs one mma and stores D. The host
// places the elements of A, B and C with layout functions written here from the PTX ISA
// manual (9.7.14.5, "Matrix fragments for mma.m*n*k*"), computes D in C++ and unpacks what
// the kernel stored with the same functions. The data is random and the matrices are not
// square or symmetric, so a transposed or swapped layout shows. ptxas checks every kernel.
#include <algorithm>
#include <array>
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
#include "sparse_metadata_util.hpp"

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
      case '4': return {k == 32 ? t * 8 + i : t * 8 + (i & 7) + 32 * (i / 8), g};  // k128: mma.sp (9.7.14.6.2.8)
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
  int shift = 0;  // .kind::f8f6f4: where the element sits in its 8-bit container
  int bits() const { return 1 + man + exp_bits; }
};
constexpr Fp8 kE4m3{".e4m3", 3, 4}, kE5m2{".e5m2", 2, 5};
// The manual (9.7.14.5.14): e2m1 in the central 4 bits of its byte, e2m3 and e3m2 in the low 6.
constexpr Fp8 kE2m1{".e2m1", 1, 2, 2}, kE2m3{".e2m3", 3, 2, 0}, kE3m2{".e3m2", 2, 3, 0};

void check_fp8(int k, const Fp8& ta, const Fp8& tb, bool f16_acc, bool kind, uint32_t seed) {
  const int m = 16, n = 8;
  Form f;
  f.inst = std::string("mma.sync.aligned.m16n8k") + std::to_string(k) + ".row.col" + (kind ? ".kind::f8f6f4" : "") +
           (f16_acc ? ".f16" : ".f32") + ta.name + tb.name + (f16_acc ? ".f16" : ".f32");
  f.target = kind ? "sm_120a" : "sm_89";
  f.na = m * k / 4 / 32, f.nb = k * n / 4 / 32;
  f.nc = f.nd = f16_acc ? 2 : 4;
  std::mt19937 g(seed);
  const bool narrow = ta.bits() < 8 || tb.bits() < 8;
  // exact and normal (or zero) in every type: e2m1's values are 0, 0.5, 1, 1.5, 2, 3, 4, 6
  const double kNormal[] = {0, 1, -1, 1.5, -1.5, 2, -2, 3, -3};
  auto small = [&] {
    if (narrow) return kNormal[g() % 9];
    return static_cast<double>(static_cast<int>(g() % 13) - 6) * 0.5;  // exact in e4m3 and e5m2
  };
  std::vector<double> A(static_cast<size_t>(m * k)), B(static_cast<size_t>(k * n)), C(static_cast<size_t>(m * n));
  for (auto& x : A) x = small();
  for (auto& x : B) x = small();
  for (auto& x : C) x = small() * 4;
  const int stride = f.na + f.nb + f.nc;
  std::vector<uint64_t> in(static_cast<size_t>(32 * stride));
  // the element in its container; the padding bits random (the emulator's reading: not read)
  auto container = [&](double v, const Fp8& t) -> uint64_t {
    const uint32_t value_mask = ((1u << t.bits()) - 1) << t.shift;
    return (code_of(v, t.man, t.exp_bits) << t.shift) | (g() & 0xFFu & ~value_mask);
  };
  pack(in, stride, 0, f.na, 8, a_layout(m, k, '8'), [&](Pos p) { return container(A[static_cast<size_t>(p.row * k + p.col)], ta); });
  pack(in, stride, f.na, f.nb, 8, b_layout(k, '8'), [&](Pos p) { return container(B[static_cast<size_t>(p.row * n + p.col)], tb); });
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

TEST(MmaSyncFp8, KindF8f6f4WithSixAndFourBitTypes) {
  check_fp8(32, kE2m1, kE2m1, false, true, 66);
  check_fp8(32, kE2m3, kE3m2, false, true, 67);
  check_fp8(32, kE3m2, kE2m1, true, true, 68);
  check_fp8(32, kE2m1, kE4m3, false, true, 69);
}


// ---- mma.sp --------------------------------------------------------------------------------

struct SparseCase {
  int k;
  std::string prefix;  // "mma.sp" or "mma.sp::ordered_metadata"
  std::string types;   // ".f32.f16.f16.f32" ...
  char kind;           // 'h' (f16), 'b' (bf16), 't' (tf32), 'E' (e4m3), 'F' (e2m1 in bits 2-5 of a byte), 's'/'u' (8-bit
                       // integers), 'S'/'U' (4-bit)
  std::string target;
  int f = 0;
  bool f16_acc = false;
  int bad_lane = -1;      // give this lane's first metadata field the same index twice
  bool unordered = false;  // store some chunks' indices decreasing
  uint32_t bad_field = 0x5;  // what bad_lane's first field gets
};

// What the run reports (empty if none); checks D when it ran.
std::string check_sparse(const SparseCase& c, uint32_t seed) {
  const int m = 16, n = 8, k = c.k;
  const bool four = c.kind == 'S' || c.kind == 'U', tf32 = c.kind == 't';
  const bool eight = c.kind == 'E' || c.kind == 'F' || c.kind == 's' || c.kind == 'u';
  const bool integer = c.kind == 's' || c.kind == 'u' || four;
  Form f;
  f.inst = c.prefix + ".sync.aligned.m16n8k" + std::to_string(k) + ".row.col" + c.types;
  f.target = c.target;
  const int ebits = tf32 ? 32 : four ? 4 : eight ? 8 : 16;
  f.na = m * k / 2 * ebits / 32 / 32;
  f.nb = k * n * ebits / 32 / 32;
  f.nc = f.nd = c.f16_acc ? 2 : 4;
  f.selector = c.f;
  std::mt19937 g(seed);
  auto value = [&] {
    if (four) return static_cast<double>(c.kind == 'S' ? static_cast<int>(g() % 16) - 8 : static_cast<int>(g() % 16));
    if (c.kind == 'F') return std::array{0.0, 1.0, -1.0, 1.5, -1.5, 2.0, -3.0}[g() % 7];  // normal in e2m1
    const int v = static_cast<int>(g() % 7) - 3;
    return c.kind == 's' || c.kind == 'u' ? static_cast<double>(c.kind == 'u' ? v + 3 : v) : v * 0.5;
  };
  // A chunk: `width` elements of which `keep` groups of `group` are stored (2:4, 1:2, or 4:8 in pairs).
  const int width = tf32 ? 2 : four ? 8 : 4, group = four ? 2 : 1, keep = tf32 ? 1 : 2, chunks = k / width;
  std::vector<double> A(static_cast<size_t>(m * k), 0.0), packed(static_cast<size_t>(m * k / 2)), B(static_cast<size_t>(k * n)),
      C(static_cast<size_t>(m * n));
  std::vector<uint32_t> nibble(static_cast<size_t>(m * chunks));  // each chunk's metadata field
  for (int r = 0; r < m; ++r)
    for (int ch = 0; ch < chunks; ++ch) {
      int at[2];
      if (tf32) {
        at[0] = static_cast<int>(g() % 2);
        nibble[static_cast<size_t>(r * chunks + ch)] = at[0] ? 0xEu : 0x4u;  // the halves 2, 3 or 0, 1
      } else {
        int i0 = static_cast<int>(g() % 4), i1 = static_cast<int>(g() % 3);
        if (i1 >= i0) ++i1;
        if (!c.unordered && i0 > i1) std::swap(i0, i1);
        at[0] = i0, at[1] = i1;
        nibble[static_cast<size_t>(r * chunks + ch)] = static_cast<uint32_t>(i0 | i1 << 2);
      }
      for (int j = 0; j < keep; ++j)
        for (int e = 0; e < group; ++e) {
          const double v = value();
          packed[static_cast<size_t>(r * k / 2 + (ch * keep + j) * group + e)] = v;
          A[static_cast<size_t>(r * k + ch * width + at[j] * group + e)] = v;
        }
    }
  for (auto& x : B) x = value();
  for (auto& x : C) x = value() * 2;
  auto code = [&](double v, char kind) -> uint64_t {
    switch (kind) {
      case 'h': return code_of(v, 10, 5);
      case 'b': return code_of(v, 7, 8);
      case 't': return std::bit_cast<uint32_t>(static_cast<float>(v));
      case 'E': return code_of(v, 3, 4);
      case 'F': return code_of(v, 1, 2) << 2;
      default: return static_cast<uint64_t>(static_cast<int64_t>(v)) & (four ? 0xF : 0xFF);
    }
  };
  const int stride = f.na + f.nb + f.nc + 1;
  std::vector<uint64_t> in(static_cast<size_t>(32 * stride));
  const char layout_kind = tf32 ? 't' : four ? '4' : eight || integer ? '8' : 'h';
  pack(in, stride, 0, f.na, ebits, a_layout(m, k / 2, layout_kind), [&](Pos p) { return code(packed[static_cast<size_t>(p.row * k / 2 + p.col)], c.kind); });
  pack(in, stride, f.na, f.nb, ebits, b_layout(k, layout_kind), [&](Pos p) { return code(B[static_cast<size_t>(p.row * n + p.col)], c.kind); });
  pack(in, stride, f.na + f.nb, f.nc, c.f16_acc ? 16 : 32, c_layout(m), [&](Pos p) -> uint64_t {
    const double v = C[static_cast<size_t>(p.row * n + p.col)];
    if (integer) return static_cast<uint32_t>(static_cast<int32_t>(v));
    return c.f16_acc ? code_of(v, 10, 5) : std::bit_cast<uint32_t>(static_cast<float>(v));
  });
  // metadata: lanes that supply none get noise, which must not matter
  const int row_bits = k * ebits;
  std::vector<uint32_t> meta(32);
  for (auto& x : meta) x = g();
  std::vector<bool> supplies(32, false);
  for (int r = 0; r < m; ++r)
    for (int ch = 0; ch < chunks; ++ch) supplies[static_cast<size_t>(meta_at(row_bits, ebits >= 16, c.f, r, ch).lane)] = true;
  for (int l = 0; l < 32; ++l)
    if (supplies[static_cast<size_t>(l)]) meta[static_cast<size_t>(l)] = 0;
  for (int r = 0; r < m; ++r)
    for (int ch = 0; ch < chunks; ++ch) {
      const MetaAt at = meta_at(row_bits, ebits >= 16, c.f, r, ch);
      meta[static_cast<size_t>(at.lane)] |= nibble[static_cast<size_t>(r * chunks + ch)] << at.bit;
    }
  if (c.bad_lane >= 0) meta[static_cast<size_t>(c.bad_lane)] = (meta[static_cast<size_t>(c.bad_lane)] & ~0xFu) | c.bad_field;
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
      const double got = integer ? static_cast<double>(static_cast<int32_t>(reg))
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
  EXPECT_EQ(check_sparse({64, "mma.sp::ordered_metadata", ".kind::f8f6f4.f32.e2m1.e2m1.f32", 'F', "sm_120a"}, 86), "");
}

// .tf32 is 1:2 sparse: one element of each pair, its field 0b0100 (the first) or 0b1110.
TEST(MmaSyncSparse, Tf32) {
  for (int f = 0; f < 4; ++f) EXPECT_EQ(check_sparse({8, "mma.sp", ".f32.tf32.tf32.f32", 't', "sm_80", f}, 90 + f), "");
  for (int f = 0; f < 2; ++f) EXPECT_EQ(check_sparse({16, "mma.sp::ordered_metadata", ".f32.tf32.tf32.f32", 't', "sm_80", f}, 94 + f), "");
}

TEST(MmaSyncSparse, EightBitM16n8k32) {
  for (int f = 0; f < 2; ++f) EXPECT_EQ(check_sparse({32, "mma.sp", ".s32.s8.s8.s32", 's', "sm_80", f}, 96 + f), "");
  EXPECT_EQ(check_sparse({32, "mma.sp::ordered_metadata", ".satfinite.s32.u8.s8.s32", 'u', "sm_80", 1}, 98), "");
}

// .s4/.u4 are 4:8 sparse in pairs: a field gives the two pairs of an 8-element chunk.
TEST(MmaSyncSparse, FourBit) {
  for (int f = 0; f < 2; ++f) EXPECT_EQ(check_sparse({64, "mma.sp", ".s32.s4.s4.s32", 'S', "sm_80", f}, 99 + f), "");
  EXPECT_EQ(check_sparse({64, "mma.sp::ordered_metadata", ".satfinite.s32.u4.u4.s32", 'U', "sm_80", 1}, 101), "");
  EXPECT_EQ(check_sparse({128, "mma.sp", ".s32.s4.s4.s32", 'S', "sm_80"}, 102), "");
  EXPECT_EQ(check_sparse({128, "mma.sp::ordered_metadata", ".s32.u4.u4.s32", 'U', "sm_80"}, 103), "");
}

// tests/emu/kernels/mma_sparse.ptx (emu-vs-gpu compares it with a GPU) runs the forms whose metadata
// layout is this emulator's reading of the manual, one after another: each gives what the same
// instruction alone gives (checked against the reference above) on the same registers.
TEST(MmaSyncSparse, KernelForTheGpuComparison) {
  const std::string text = emu_kernel("mma_sparse.ptx");
  if (have_ptxas()) {
    const auto as = run_ptxas(text, "sm_80");
    EXPECT_TRUE(as.ok) << as.log;
  }
  const Form forms[] = {
      {"mma.sp.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32", "sm_80", 2, 2, 4, 4, false, 1},
      {"mma.sp::ordered_metadata.sync.aligned.m16n8k16.row.col.f32.tf32.tf32.f32", "sm_80", 4, 4, 4, 4, false, 1},
      {"mma.sp.sync.aligned.m16n8k32.row.col.s32.s8.s8.s32", "sm_80", 2, 2, 4, 4, false, 1},
      {"mma.sp.sync.aligned.m16n8k64.row.col.s32.s4.s4.s32", "sm_80", 2, 2, 4, 4, false, 0},
      {"mma.sp::ordered_metadata.sync.aligned.m16n8k128.row.col.satfinite.s32.u4.u4.s32", "sm_80", 4, 4, 4, 4, false, 0},
  };
  const int stride = 53;
  std::mt19937 g(7);
  std::vector<uint32_t> in(32 * stride);
  for (int l = 0; l < 32; ++l) {
    int at = 0;
    for (int fi = 0; fi < 5; ++fi) {
      const bool tf32 = fi < 2;
      for (int i = 0; i < forms[fi].na + forms[fi].nb + 4; ++i)
        in[static_cast<size_t>(l * stride + at++)] = tf32 ? std::bit_cast<uint32_t>(static_cast<float>(static_cast<int>(g() % 9) - 4) * 0.5f) : g();
      uint32_t e = 0;
      for (int c = 0; c < 8; ++c) e |= (tf32 ? (g() % 2 ? 0xEu : 0x4u) : fi == 4 ? 0xEu : 0x9u) << (4 * c);
      in[static_cast<size_t>(l * stride + at++)] = e;
    }
  }
  EmuRun r;
  r.buffer(in, "in");
  const uint64_t o = r.buffer(std::vector<uint32_t>(32 * 20), "out");
  r.launch(text, "mma_sparse", {1, 1, 1}, {32, 1, 1});
  const auto got = r.read<uint32_t>(o, 32 * 20);
  int at = 0;
  for (int fi = 0; fi < 5; ++fi) {
    const int n = forms[fi].na + forms[fi].nb + 5;
    std::vector<uint64_t> one(static_cast<size_t>(32 * n));
    for (int l = 0; l < 32; ++l)
      for (int i = 0; i < n; ++i) one[static_cast<size_t>(l * n + i)] = in[static_cast<size_t>(l * stride + at + i)];
    const auto want = run(forms[fi], one);
    for (int l = 0; l < 32; ++l)
      for (int i = 0; i < 4; ++i)
        EXPECT_EQ(got[static_cast<size_t>(l * 20 + 4 * fi + i)], static_cast<uint32_t>(want[static_cast<size_t>(l * 4 + i)]))
            << forms[fi].inst << " lane " << l << " d" << i;
    at += n;
  }
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

TEST(MmaSyncSparse, InvalidMetadataOfTheNewForms) {
  SparseCase t{8, "mma.sp", ".f32.tf32.tf32.f32", 't', "sm_80", 2};
  t.bad_lane = 6, t.bad_field = 0x8;  // quad 1, lane 2 (selector 2): 0b1000 is no .tf32 value
  std::string rep = check_sparse(t, 104);
  EXPECT_NE(rep.find("the sparsity metadata of lane 6"), std::string::npos) << rep;
  EXPECT_NE(rep.find("not 0b0100 or 0b1110"), std::string::npos) << rep;
  t.bad_field = 0x1;  // decreasing halves (1, 0): no .tf32 value either
  rep = check_sparse(t, 104);
  EXPECT_NE(rep.find("not 0b0100 or 0b1110"), std::string::npos) << rep;
  SparseCase s8{32, "mma.sp", ".s32.s8.s8.s32", 's', "sm_80", 1};
  s8.bad_lane = 11;  // quad 2, lane 3: rows 10 of chunks 0-7 with selector 1
  rep = check_sparse(s8, 105);
  EXPECT_NE(rep.find("thread (11,0,0)"), std::string::npos) << rep;
  EXPECT_NE(rep.find("row 10, columns 0-3"), std::string::npos) << rep;
  SparseCase s4{64, "mma.sp::ordered_metadata", ".s32.s4.s4.s32", 'S', "sm_80", 0};
  s4.bad_lane = 0, s4.bad_field = 0x1;  // pairs 1, 0: decreasing
  rep = check_sparse(s4, 106);
  EXPECT_NE(rep.find("row 0, columns 0-7: indices not in increasing order"), std::string::npos) << rep;
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
      {"sm_89",
       "mma.sync.aligned.m16n8k16.row.col.f32.e4m3.e4m3.f32 {%f0, %f1, %f2, %f3}, {%r0, %r1}, {%r2, %r3}, {%f4, %f5, %f6, %f7};",
       "two registers for b"},
      {"sm_120a",
       "mma.sync.aligned.m16n8k64.row.col.kind::mxf4.block_scale.f32.e2m1.e2m1.f32.ue8m0 {%f0, %f1, %f2, %f3}, {%r0, %r1, %r2, %r3}, "
       "{%r4, %r5}, {%f4, %f5, %f6, %f7}, %r6, {%h0, %h1}, %r7, {%h2, %h3};",
       "only in figures, not in its text"},
      {"sm_120a",
       "mma.sync.aligned.m16n8k32.row.col.kind::mxf8f6f4.block_scale.scale_vec::1X.f32.e2m1.e3m2.f32.ue8m0 {%f0, %f1, %f2, %f3}, "
       "{%r0, %r1, %r2, %r3}, {%r4, %r5}, {%f4, %f5, %f6, %f7}, %r6, {%h0, %h1}, %r7, {%h2, %h3};",
       "the layout of the scale factors in scale-a-data/scale-b-data"},
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
       "the ISA has no modifier .m16n8k12"},  // a shape no form has: not in the vocabulary
      {"mma.sp.sync.aligned.m16n8k32.row.col.f32.f16.f16.f32 {%f0, %f1, %f2, %f3}, {%r0, %r1, %r2, %r3}, {%r4, %r5, %r6, %r7}, "
       "{%f4, %f5, %f6, %f7}, %r8, 2;",
       "the sparsity selector f must be an immediate below 2"},
      {"mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {%f0, %f1, %f2}, {%r0, %r1, %r2, %r3}, {%r4, %r5}, {%f4, %f5, %f6, %f7};",
       "operand d must be a vector of 4 registers"},
      {"mma.sp.sync.aligned.m16n8k128.row.col.s32.s4.s4.s32 {%r0, %r1, %r2, %r3}, {%r4, %r5, %r6, %r7}, {%r8, %r9, %r10, %r11}, "
       "{%r12, %r13, %r14, %r15}, %r16, 1;",
       "the sparsity selector f must be an immediate below 1"},
      {"mma.sp.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32 {%f0, %f1, %f2, %f3}, {%r0, %r1}, {%r2, %r3}, {%f4, %f5, %f6, %f7}, %r4;",
       "with 5 operands; it has 6 (d, a, b, c, e, f)"},
      {"mma.sp.sync.aligned.m16n8k32.row.col.s32.s8.s8.s32 {%r0, %r1, %r2, %r3}, {%r4, %r5, %r6, %r7}, {%r8, %r9}, "
       "{%r12, %r13, %r14, %r15}, %r16, 0;",
       "operand a must be a vector of 2 registers"},
  };
  for (const auto& c : cases) {
    const std::string rep = unvalidated_report(
        std::string(".version 8.7\n.target sm_90\n.address_size 64\n\n.visible .entry t()\n{\n\t.reg .b32 %r<20>;\n") +
        "\t.reg .f32 %f<8>;\n\t" + c.body + "\n\tret;\n}\n");
    EXPECT_NE(rep.find(c.says), std::string::npos) << c.body << ": " << rep;
  }
}

}  // namespace
}  // namespace ptx::test
