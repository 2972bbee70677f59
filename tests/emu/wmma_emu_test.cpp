// wmma.load / wmma.mma / wmma.store (PTX ISA 9.7.14.4) on the emulator: for every family of
// the ISA (f16 with f16/f32 accumulators, bf16, s8/u8, tf32, f64, s4/u4, b1), a one-warp
// kernel written here loads A, B and C (global, shared or generic memory; row and column
// layouts; strides wider than the matrix), multiplies and stores D; the result is compared
// with a product computed on the host from the same random data, every value exactly
// representable, so the comparison is exact. Every module also goes through ptxas. Then the
// reports: misaligned and out-of-bounds matrices, wrong fragment sizes, partial warps.
#include <gtest/gtest.h>

#include <algorithm>
#include <bit>
#include <cstdint>
#include <cmath>
#include <cstring>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "../unit/ptxas_util.hpp"
#include "emu_test_util.hpp"

namespace {

using ptx::test::EmuRun;

// ---- element types, on the host -----------------------------------------------------------

enum class T { f16, bf16, tf32, f32, f64, s8, u8, s32, s4, u4, b1 };

unsigned bits(T t) {
  switch (t) {
    case T::f16: case T::bf16: return 16;
    case T::tf32: case T::f32: case T::s32: return 32;
    case T::f64: return 64;
    case T::s8: case T::u8: return 8;
    case T::s4: case T::u4: return 4;
    case T::b1: return 1;
  }
  return 0;
}

const char* name(T t) {
  static const char* names[] = {"f16", "bf16", "tf32", "f32", "f64", "s8", "u8", "s32", "s4", "u4", "b1"};
  return names[static_cast<int>(t)];
}

bool is_float(T t) { return t == T::f16 || t == T::bf16 || t == T::tf32 || t == T::f32 || t == T::f64; }

// f16 bits of a value exactly representable as a normal f16 (or zero), and back.
uint16_t to_half(double v) {
  if (v == 0) return 0;
  const uint32_t f = std::bit_cast<uint32_t>(static_cast<float>(v));
  const uint32_t sign = f >> 31, exp = (f >> 23) & 0xFF, mant = f & 0x7FFFFF;
  EXPECT_EQ(mant & 0x1FFF, 0u) << v << " is not exact in f16";
  return static_cast<uint16_t>(sign << 15 | (exp - 127 + 15) << 10 | mant >> 13);
}
// x rounded to the nearest f16 (ties to even), as a double; past the largest finite value, infinity.
double round_half(double x) {
  if (x == 0 || std::isnan(x)) return x;
  if (std::fabs(x) >= 65520) return std::copysign(INFINITY, x);
  const int e = std::max(std::ilogb(x), -14);
  const double ulp = std::ldexp(1.0, e - 10);
  return std::nearbyint(x / ulp) * ulp;
}
double from_half(uint16_t h) {
  const int sign = h >> 15, exp = (h >> 10) & 0x1F, mant = h & 0x3FF;
  double v = exp == 0 ? std::ldexp(mant, -24) : exp == 31 ? (mant ? NAN : INFINITY) : std::ldexp(1024 + mant, exp - 25);
  return sign ? -v : v;
}

uint64_t encode_host(T t, double v) {
  switch (t) {
    case T::f16: return to_half(v);
    case T::bf16: return std::bit_cast<uint32_t>(static_cast<float>(v)) >> 16;
    case T::tf32: case T::f32: return std::bit_cast<uint32_t>(static_cast<float>(v));
    case T::f64: return std::bit_cast<uint64_t>(v);
    default: return static_cast<uint64_t>(static_cast<int64_t>(v)) & (bits(t) == 64 ? ~0ull : (1ull << bits(t)) - 1);
  }
}

double decode_host(T t, uint64_t b) {
  switch (t) {
    case T::f16: return from_half(static_cast<uint16_t>(b));
    case T::f32: return std::bit_cast<float>(static_cast<uint32_t>(b));
    case T::f64: return std::bit_cast<double>(b);
    case T::s32: return static_cast<int32_t>(static_cast<uint32_t>(b));
    default: ADD_FAILURE() << "no decode for " << name(t); return 0;
  }
}

// A buffer of elements of type t, element i at bit i * bits(t) (sub-byte: lowest bits first).
struct Buffer {
  T t;
  std::vector<uint8_t> bytes;
  Buffer(T type, size_t elements) : t(type), bytes((elements * bits(type) + 7) / 8 + 16, 0) {}
  void put(size_t i, double v) {
    const uint64_t b = encode_host(t, v);
    const unsigned n = bits(t);
    if (n >= 8) {
      std::memcpy(bytes.data() + i * n / 8, &b, n / 8);
      return;
    }
    const size_t bit = i * n;
    uint8_t& byte = bytes[bit / 8];
    const uint8_t mask = static_cast<uint8_t>(((1u << n) - 1) << (bit % 8));
    byte = static_cast<uint8_t>((byte & ~mask) | ((b << (bit % 8)) & mask));
  }
  uint64_t raw(size_t i) const {
    uint64_t b = 0;
    std::memcpy(&b, bytes.data() + i * bits(t) / 8, bits(t) / 8);
    return b;
  }
};

struct Rng {
  uint32_t s;
  uint32_t next() { return s = s * 1664525u + 1013904223u, s >> 8; }
  // A value exactly representable in t whose products and sums stay exact.
  double value(T t) {
    const uint32_t r = next();
    switch (t) {
      case T::f16: case T::bf16: case T::tf32: case T::f32: case T::f64: return (static_cast<int>(r % 9) - 4) / 2.0;
      case T::s8: return static_cast<int>(r % 256) - 128;
      case T::u8: return r % 256;
      case T::s4: return static_cast<int>(r % 16) - 8;
      case T::u4: return r % 16;
      case T::b1: return r % 2;
      case T::s32: return static_cast<int>(r % 2001) - 1000;
    }
    return 0;
  }
};

// ---- one case: D = A * B + C through wmma -----------------------------------------------------

enum class Where { Global, Shared, SharedCta, Generic };

struct Case {
  unsigned m, n, k;
  T ab, c, d;
  bool a_col, b_col, c_col, d_col;
  Where where;
  unsigned sa, sb, sc, sd;  // strides in elements (0: the default, no stride operand)
  std::string extra = "";   // more wmma.mma modifiers: ".satfinite", ".rp", b1's ".xor"/".and"
  bool stride_in_register = false;
  double c_offset = 0;      // added to every C value (saturation tests)
};

// The ISA's register counts (9.7.14.4.1), written down here from the manual's table.
unsigned regs_a(const Case& c) {
  switch (c.ab) {
    case T::f16: return 8;
    case T::bf16: return c.m / 4;
    case T::s8: case T::u8: return c.m / 8;
    case T::tf32: return 4;
    default: return 1;  // f64, s4, u4, b1
  }
}
unsigned regs_b(const Case& c) {
  switch (c.ab) {
    case T::f16: return 8;
    case T::bf16: return c.n / 4;
    case T::s8: case T::u8: return c.n / 8;
    case T::tf32: return 4;
    default: return 1;
  }
}
unsigned regs_acc(const Case& c, T t) {
  if (t == T::f16) return 4;
  if (c.m == 8 && c.n == 8) return 2;
  return 8;
}

std::string regs(const std::string& prefix, unsigned n) {
  std::string s = "{";
  for (unsigned i = 0; i < n; ++i) s += fmt::format("{}{}{}", i ? ", " : "", prefix, i);
  return s + "}";
}

// Rows and columns of each matrix as stored, and its buffer size in elements.
struct Dims {
  unsigned rows, cols, stride;
  bool col;
  size_t elements() const { return static_cast<size_t>(col ? cols : rows) * stride; }
  size_t index(unsigned r, unsigned c) const { return col ? static_cast<size_t>(c) * stride + r : static_cast<size_t>(r) * stride + c; }
};
Dims dims(unsigned rows, unsigned cols, bool col, unsigned stride) { return {rows, cols, stride ? stride : (col ? rows : cols), col}; }

std::string kernel_ptx(const Case& c, const std::string& version = "8.0", const std::string& target = "sm_80") {
  const Dims da = dims(c.m, c.k, c.a_col, c.sa), db = dims(c.k, c.n, c.b_col, c.sb), dc = dims(c.m, c.n, c.c_col, c.sc),
             dd = dims(c.m, c.n, c.d_col, c.sd);
  auto bytes = [](const Dims& d, T t) { return (d.elements() * bits(t) + 7) / 8 + 16; };
  const bool shared = c.where == Where::Shared || c.where == Where::SharedCta;
  const std::string ss = c.where == Where::Shared ? ".shared" : c.where == Where::SharedCta ? ".shared::cta" : c.where == Where::Global ? ".global" : "";
  const std::string shape = fmt::format(".m{}n{}k{}", c.m, c.n, c.k);
  const std::string rt = bits(c.ab) == 64 ? ".b64" : ".b32";
  std::string s = fmt::format(".version {}\n.target {}\n.address_size 64\n\n", version, target);
  if (shared)
    s += fmt::format(".shared .align 128 .b8 smA[{}];\n.shared .align 128 .b8 smB[{}];\n.shared .align 128 .b8 smC[{}];\n"
                     ".shared .align 128 .b8 smD[{}];\n\n",
                     bytes(da, c.ab), bytes(db, c.ab), bytes(dc, c.c), bytes(dd, c.d));
  s += ".visible .entry k(.param .u64 pa, .param .u64 pb, .param .u64 pc, .param .u64 pd)\n{\n";
  s += fmt::format("  .reg {} %a<{}>, %b<{}>;\n", rt, regs_a(c), regs_b(c));
  s += fmt::format("  .reg {} %c<{}>;\n  .reg {} %d<{}>;\n", bits(c.c) == 64 ? ".b64" : ".b32", regs_acc(c, c.c), bits(c.d) == 64 ? ".b64" : ".b32",
                   regs_acc(c, c.d));
  s += "  .reg .b64 %pa, %pb, %pc, %pd, %g, %o;\n  .reg .b32 %i, %v, %sa;\n  .reg .pred %q;\n";
  if (c.stride_in_register) s += "  .reg .b32 %s<200>;\n";  // %s<st>: the stride st
  s += "  ld.param.u64 %pa, [pa];\n  ld.param.u64 %pb, [pb];\n  ld.param.u64 %pc, [pc];\n  ld.param.u64 %pd, [pd];\n";
  std::string pa = "[%pa]", pb = "[%pb]", pc = "[%pc]", pd = "[%pd]";
  if (c.where == Where::Global)
    s += "  cvta.to.global.u64 %pa, %pa;\n  cvta.to.global.u64 %pb, %pb;\n  cvta.to.global.u64 %pc, %pc;\n  cvta.to.global.u64 %pd, %pd;\n";
  // Shared memory: every lane copies bytes l, l + 32, ... of each buffer in (D too, so that
  // all of smD is initialized), then a barrier.
  auto copy = [&](const char* sym, const char* ptr, size_t n, bool in) {
    const std::string label = fmt::format("{}_{}", in ? "IN" : "OUT", sym);
    s += fmt::format("  mov.u32 %i, %tid.x;\n{}:\n  setp.ge.u32 %q, %i, {};\n  @%q bra {}_done;\n  cvt.u64.u32 %o, %i;\n", label, n, label);
    s += fmt::format("  add.u64 %g, {}, %o;\n", ptr);
    s += fmt::format("  mov.u32 %sa, {};\n  add.u32 %sa, %sa, %i;\n", sym);
    if (in) s += "  ld.global.u8 %v, [%g];\n  st.shared.u8 [%sa], %v;\n";
    else s += "  ld.shared.u8 %v, [%sa];\n  st.global.u8 [%g], %v;\n";
    s += fmt::format("  add.u32 %i, %i, 32;\n  bra {};\n{}_done:\n", label, label);
  };
  if (shared) {
    s += "  cvta.to.global.u64 %pa, %pa;\n  cvta.to.global.u64 %pb, %pb;\n  cvta.to.global.u64 %pc, %pc;\n  cvta.to.global.u64 %pd, %pd;\n";
    copy("smA", "%pa", bytes(da, c.ab), true);
    copy("smB", "%pb", bytes(db, c.ab), true);
    copy("smC", "%pc", bytes(dc, c.c), true);
    copy("smD", "%pd", bytes(dd, c.d), true);
    s += "  bar.sync 0;\n";
    pa = "[smA]", pb = "[smB]", pc = "[smC]", pd = "[smD]";
  }
  auto stride = [&](unsigned st) -> std::string {
    if (!st) return "";
    if (c.stride_in_register) return fmt::format(", %s{}", st);
    return fmt::format(", {}", st);
  };
  if (c.stride_in_register) {
    for (unsigned st : {c.sa, c.sb, c.sc, c.sd})
      if (st) s += fmt::format("  mov.u32 %s{}, {};\n", st, st);
  }
  auto lay = [](bool col) { return col ? ".col" : ".row"; };
  s += fmt::format("  wmma.load.a.sync.aligned{}{}{}.{} {}, {}{};\n", lay(c.a_col), shape, ss, name(c.ab), regs("%a", regs_a(c)), pa, stride(c.sa));
  s += fmt::format("  wmma.load.b.sync.aligned{}{}{}.{} {}, {}{};\n", lay(c.b_col), shape, ss, name(c.ab), regs("%b", regs_b(c)), pb, stride(c.sb));
  s += fmt::format("  wmma.load.c.sync.aligned{}{}{}.{} {}, {}{};\n", lay(c.c_col), shape, ss, name(c.c), regs("%c", regs_acc(c, c.c)), pc, stride(c.sc));
  const std::string types = c.ab == T::f16 ? fmt::format(".{}.{}", name(c.d), name(c.c))
                                           : fmt::format(".{}.{}.{}.{}", name(c.d), name(c.ab), name(c.ab), name(c.c));
  const bool b1 = c.ab == T::b1;
  const std::string rnd = c.extra == ".rn" || c.extra == ".rz" || c.extra == ".rm" || c.extra == ".rp" ? c.extra : "";
  const std::string sat = c.extra == ".satfinite" ? c.extra : "";
  s += fmt::format("  wmma.mma{}.sync.aligned{}{}{}{}{}{} {}, {}, {}, {};\n", b1 ? c.extra + ".popc" : "", lay(c.a_col), lay(c.b_col), shape, rnd,
                   types, sat, regs("%d", regs_acc(c, c.d)), regs("%a", regs_a(c)), regs("%b", regs_b(c)), regs("%c", regs_acc(c, c.c)));
  s += fmt::format("  wmma.store.d.sync.aligned{}{}{}.{} {}, {}{};\n", lay(c.d_col), shape, ss, name(c.d), pd, regs("%d", regs_acc(c, c.d)), stride(c.sd));
  if (shared) {
    s += "  bar.sync 0;\n";
    copy("smD", "%pd", bytes(dd, c.d), false);
  }
  s += "  ret;\n}\n";
  return s;
}

void assemble(const std::string& ptx, const std::string& arch = "sm_80") {
  if (!ptx::test::have_ptxas()) return;
  const auto r = ptx::test::run_ptxas(ptx, arch);
  EXPECT_TRUE(r.ok) << r.log << "\n" << ptx;
}

// Runs the case and compares every element of D (and the padding around it) with the host.
void run_case(const Case& c, uint32_t seed, const std::string& version = "8.0", const std::string& target = "sm_80") {
  SCOPED_TRACE(fmt::format("m{}n{}k{} {}->{} (C {}) {}", c.m, c.n, c.k, name(c.ab), name(c.d), name(c.c), c.extra));
  const std::string ptx = kernel_ptx(c, version, target);
  assemble(ptx, target);
  const Dims da = dims(c.m, c.k, c.a_col, c.sa), db = dims(c.k, c.n, c.b_col, c.sb), dc = dims(c.m, c.n, c.c_col, c.sc),
             dd = dims(c.m, c.n, c.d_col, c.sd);
  Rng rng{seed};
  Buffer A(c.ab, da.elements()), B(c.ab, db.elements()), C(c.c, dc.elements()), D(c.d, dd.elements());
  std::vector<double> a(c.m * c.k), b(c.k * c.n), cv(c.m * c.n);
  // Padding (elements between rows past the matrix) holds other values, so that a stride bug shows.
  for (size_t i = 0; i < da.elements(); ++i) A.put(i, rng.value(c.ab));
  for (size_t i = 0; i < db.elements(); ++i) B.put(i, rng.value(c.ab));
  for (unsigned r = 0; r < c.m; ++r)
    for (unsigned k = 0; k < c.k; ++k) A.put(da.index(r, k), a[r * c.k + k] = rng.value(c.ab));
  for (unsigned k = 0; k < c.k; ++k)
    for (unsigned n = 0; n < c.n; ++n) B.put(db.index(k, n), b[k * c.n + n] = rng.value(c.ab));
  for (unsigned r = 0; r < c.m; ++r)
    for (unsigned n = 0; n < c.n; ++n)  // f16 C with an offset: the offset alone (it is not exact plus more)
      C.put(dc.index(r, n), cv[r * c.n + n] = c.c == T::f16 && c.c_offset != 0 ? c.c_offset : rng.value(c.c) + c.c_offset);
  const double sentinel = c.d == T::f64 || c.d == T::f32 || c.d == T::f16 ? 3.5 : 77;
  for (size_t i = 0; i < dd.elements(); ++i) D.put(i, sentinel);

  EmuRun run;
  run.buffer(A.bytes, "A");
  run.buffer(B.bytes, "B");
  run.buffer(C.bytes, "C");
  const uint64_t d_addr = run.buffer(D.bytes, "D");
  run.launch(ptx, "k", {1, 1, 1}, {32, 1, 1});
  Buffer out(c.d, dd.elements());
  out.bytes = run.read<uint8_t>(d_addr, D.bytes.size());

  std::vector<bool> inside(dd.elements(), false);
  for (unsigned r = 0; r < c.m; ++r)
    for (unsigned n = 0; n < c.n; ++n) {
      double want;
      if (is_float(c.d)) {
        double acc = cv[r * c.n + n];
        for (unsigned k = 0; k < c.k; ++k) acc += a[r * c.k + k] * b[k * c.n + n];
        want = acc;
        if (c.d == T::f16) {
          want = round_half(acc);
          if (std::isinf(want) && c.extra == ".satfinite") want = std::copysign(65504, want);
        }
      } else {
        int64_t acc = static_cast<int64_t>(cv[r * c.n + n]);
        for (unsigned k = 0; k < c.k; ++k) {
          const int64_t x = static_cast<int64_t>(a[r * c.k + k]), y = static_cast<int64_t>(b[k * c.n + n]);
          acc += c.ab != T::b1 ? x * y : c.extra == ".and" ? (x & y) : (x ^ y);
        }
        if (c.extra == ".satfinite") acc = std::clamp<int64_t>(acc, INT32_MIN, INT32_MAX);
        want = static_cast<int32_t>(static_cast<uint32_t>(static_cast<uint64_t>(acc)));
      }
      const size_t i = dd.index(r, n);
      inside[i] = true;
      ASSERT_EQ(decode_host(c.d, out.raw(i)), want) << "D[" << r << "][" << n << "]";
    }
  for (size_t i = 0; i < dd.elements(); ++i)
    if (!inside[i]) {
      ASSERT_EQ(decode_host(c.d, out.raw(i)), sentinel) << "D's padding at element " << i << " was written";
    }
}

constexpr bool Row = false, Col = true;

TEST(WmmaEmu, F16MultiplicandsEveryShapeLayoutAndAccumulator) {
  // m16n16k16: f32 += f16 * f16 in global memory, wide strides; then f16 accumulators in shared memory.
  run_case({16, 16, 16, T::f16, T::f32, T::f32, Row, Col, Row, Row, Where::Global, 24, 40, 20, 28}, 1);
  run_case({16, 16, 16, T::f16, T::f16, T::f16, Col, Row, Col, Col, Where::Shared, 32, 24, 24, 40}, 2);
  run_case({16, 16, 16, T::f16, T::f16, T::f32, Row, Row, Row, Col, Where::SharedCta, 0, 0, 0, 0}, 3);
  run_case({16, 16, 16, T::f16, T::f32, T::f16, Col, Col, Col, Row, Where::Generic, 16, 16, 16, 24, "", true}, 4);
  // m32n8k16 and m8n32k16, whose f16 A or B fragment holds the matrix four times.
  run_case({32, 8, 16, T::f16, T::f32, T::f32, Row, Col, Row, Row, Where::Global, 0, 0, 0, 0}, 5);
  run_case({32, 8, 16, T::f16, T::f16, T::f16, Col, Row, Col, Row, Where::Shared, 40, 24, 40, 48}, 6);
  run_case({8, 32, 16, T::f16, T::f32, T::f32, Row, Row, Col, Col, Where::Global, 24, 40, 16, 12}, 7);
  run_case({8, 32, 16, T::f16, T::f16, T::f16, Col, Col, Row, Row, Where::SharedCta, 16, 24, 40, 0}, 8);
}

TEST(WmmaEmu, Bf16) {
  run_case({16, 16, 16, T::bf16, T::f32, T::f32, Row, Col, Row, Row, Where::Global, 24, 24, 20, 0}, 11);
  run_case({32, 8, 16, T::bf16, T::f32, T::f32, Col, Row, Col, Col, Where::Shared, 40, 16, 36, 0}, 12);
  run_case({8, 32, 16, T::bf16, T::f32, T::f32, Row, Row, Row, Col, Where::Generic, 0, 40, 0, 12}, 13);
}

TEST(WmmaEmu, Int8WrappingAndSaturating) {
  run_case({16, 16, 16, T::s8, T::s32, T::s32, Row, Col, Row, Row, Where::Global, 32, 48, 20, 24}, 21);
  run_case({32, 8, 16, T::u8, T::s32, T::s32, Col, Row, Col, Row, Where::Shared, 48, 16, 36, 12}, 22);
  run_case({8, 32, 16, T::s8, T::s32, T::s32, Col, Col, Row, Col, Where::Global, 16, 32, 0, 0}, 23);
  // Near INT32_MAX: .satfinite clamps, without it the sum wraps.
  run_case({16, 16, 16, T::u8, T::s32, T::s32, Row, Col, Row, Row, Where::Global, 0, 0, 0, 0, ".satfinite", false, 2147483000.0 - 1000}, 24);
  run_case({16, 16, 16, T::u8, T::s32, T::s32, Row, Col, Row, Row, Where::Global, 0, 0, 0, 0, "", false, 2147483000.0 - 1000}, 25);
}

TEST(WmmaEmu, Tf32) {
  run_case({16, 16, 8, T::tf32, T::f32, T::f32, Row, Col, Row, Row, Where::Global, 12, 12, 20, 20}, 31);
  run_case({16, 16, 8, T::tf32, T::f32, T::f32, Col, Row, Col, Col, Where::Shared, 20, 24, 0, 24}, 32);
}

TEST(WmmaEmu, F64) {
  run_case({8, 8, 4, T::f64, T::f64, T::f64, Row, Col, Row, Row, Where::Global, 6, 6, 10, 12}, 41);
  run_case({8, 8, 4, T::f64, T::f64, T::f64, Col, Row, Col, Col, Where::Shared, 0, 10, 8, 0, ".rn"}, 42);
}

TEST(WmmaEmu, SubByteAndSingleBit) {
  run_case({8, 8, 32, T::s4, T::s32, T::s32, Row, Col, Row, Row, Where::Global, 64, 40, 12, 10}, 51);
  run_case({8, 8, 32, T::u4, T::s32, T::s32, Row, Col, Col, Col, Where::Shared, 0, 0, 0, 0, ".satfinite"}, 52);
  run_case({8, 8, 128, T::b1, T::s32, T::s32, Row, Col, Row, Row, Where::Global, 256, 160, 12, 0, ".xor"}, 53);
  run_case({8, 8, 128, T::b1, T::s32, T::s32, Row, Col, Col, Row, Where::SharedCta, 0, 384, 0, 16, ".and"}, 54);
}

// .rnd of wmma.mma .f64: 1 + 2^-60 rounds to 1 to nearest and to the next double up with .rp.
TEST(WmmaEmu, F64RoundingModes) {
  for (const char* mode : {".rn", ".rz", ".rm", ".rp"}) {
    Case c{8, 8, 4, T::f64, T::f64, T::f64, Row, Col, Row, Row, Where::Global, 0, 0, 0, 0, mode};
    const std::string ptx = kernel_ptx(c);
    assemble(ptx);
    std::vector<double> a(32, 0.0), b(32, 0.0), cm(64, 1.0), d(64, 0.0);
    a[0] = std::ldexp(1.0, -30);  // A[0][0]
    b[0] = std::ldexp(1.0, -30);  // B[0][0] (column-major: element (0, 0) first)
    EmuRun run;
    run.buffer(a, "A");
    run.buffer(b, "B");
    run.buffer(cm, "C");
    const uint64_t out = run.buffer(d, "D");
    run.launch(ptx, "k", {1, 1, 1}, {32, 1, 1});
    const auto got = run.read<double>(out, 64);
    const double up = std::nextafter(1.0, 2.0);
    EXPECT_EQ(got[0], std::string(mode) == ".rp" ? up : 1.0) << mode;
    EXPECT_EQ(got[1], 1.0) << mode;
  }
}

// .satfinite of a float wmma.mma (PTX ISA before 6.5): results past f16's range clamp to 65504.
TEST(WmmaEmu, F16SatfiniteBeforePtx65) {
  run_case({16, 16, 16, T::f16, T::f16, T::f16, Row, Col, Row, Row, Where::Global, 0, 0, 0, 0, ".satfinite", false, 65504}, 61, "6.4", "sm_75");
  run_case({16, 16, 16, T::f16, T::f16, T::f16, Row, Col, Row, Row, Where::Global, 0, 0, 0, 0, "", false, 65504}, 62, "6.4", "sm_75");
}

// A fragment is opaque, but element-wise work on it must act on whole matrices: doubling
// every register of an f16 A fragment (both copies) doubles D.
TEST(WmmaEmu, ElementwiseFragmentWork) {
  const std::string ptx = R"(.version 8.0
.target sm_80
.address_size 64

.visible .entry k(.param .u64 pa, .param .u64 pb, .param .u64 pd)
{
  .reg .b32 %a<8>, %b<8>;
  .reg .f32 %d<8>;
  .reg .b64 %pa, %pb, %pd;
  ld.param.u64 %pa, [pa];
  ld.param.u64 %pb, [pb];
  ld.param.u64 %pd, [pd];
  wmma.load.a.sync.aligned.row.m16n16k16.f16 {%a0, %a1, %a2, %a3, %a4, %a5, %a6, %a7}, [%pa];
  wmma.load.b.sync.aligned.col.m16n16k16.f16 {%b0, %b1, %b2, %b3, %b4, %b5, %b6, %b7}, [%pb];
  add.f16x2 %a0, %a0, %a0;
  add.f16x2 %a1, %a1, %a1;
  add.f16x2 %a2, %a2, %a2;
  add.f16x2 %a3, %a3, %a3;
  add.f16x2 %a4, %a4, %a4;
  add.f16x2 %a5, %a5, %a5;
  add.f16x2 %a6, %a6, %a6;
  add.f16x2 %a7, %a7, %a7;
  mov.f32 %d0, 0f00000000;
  mov.f32 %d1, 0f00000000;
  mov.f32 %d2, 0f00000000;
  mov.f32 %d3, 0f00000000;
  mov.f32 %d4, 0f00000000;
  mov.f32 %d5, 0f00000000;
  mov.f32 %d6, 0f00000000;
  mov.f32 %d7, 0f00000000;
  wmma.mma.sync.aligned.row.col.m16n16k16.f32.f32 {%d0, %d1, %d2, %d3, %d4, %d5, %d6, %d7}, {%a0, %a1, %a2, %a3, %a4, %a5, %a6, %a7}, {%b0, %b1, %b2, %b3, %b4, %b5, %b6, %b7}, {%d0, %d1, %d2, %d3, %d4, %d5, %d6, %d7};
  wmma.store.d.sync.aligned.row.m16n16k16.f32 [%pd], {%d0, %d1, %d2, %d3, %d4, %d5, %d6, %d7};
  ret;
}
)";
  assemble(ptx);
  Rng rng{71};
  std::vector<uint16_t> a(256), b(256);
  std::vector<double> av(256), bv(256);
  for (int i = 0; i < 256; ++i) a[i] = to_half(av[i] = rng.value(T::f16)), b[i] = to_half(bv[i] = rng.value(T::f16));
  EmuRun run;
  run.buffer(a, "A");
  run.buffer(b, "B");
  const uint64_t out = run.buffer(std::vector<float>(256, 0.0f), "D");
  run.launch(ptx, "k", {1, 1, 1}, {32, 1, 1});
  const auto d = run.read<float>(out, 256);
  for (int m = 0; m < 16; ++m)
    for (int n = 0; n < 16; ++n) {
      double want = 0;
      for (int k = 0; k < 16; ++k) want += 2 * av[m * 16 + k] * bv[n * 16 + k];  // B column-major
      ASSERT_EQ(d[m * 16 + n], want) << m << "," << n;
    }
}

// ---- reports ----------------------------------------------------------------------------------

std::string run_error(const std::string& ptx, unsigned threads, size_t a_bytes = 4096, bool validate = true, uint64_t a_offset = 0) {
  ptx::emu::Options o;
  o.validate = validate;
  EmuRun r{ptx::emu::Emulator(o), {}};
  const uint64_t a = r.emu.memory().alloc(a_bytes, "A");
  r.args.push_back(ptx::emu::Arg::pointer(a + a_offset));
  r.buffer(std::vector<uint8_t>(4096, 0), "D");
  try {
    r.launch(ptx, "k", {1, 1, 1}, {threads, 1, 1});
  } catch (const ptx::emu::Error& e) {
    return e.what();
  }
  return "";
}

std::string load_kernel(const std::string& load, const std::string& prologue = "") {
  return fmt::format(R"(.version 8.0
.target sm_80
.address_size 64

.visible .entry k(.param .u64 pa, .param .u64 pd)
{{
  .reg .b32 %a<8>, %t, %u;
  .reg .b64 %pa, %pd, %o;
  .shared .align 128 .b8 sm[1024];
  ld.param.u64 %pa, [pa];
  ld.param.u64 %pd, [pd];
{}  {}
  st.global.u32 [%pd], %a0;
  ret;
}}
)",
                     prologue, load);
}

TEST(WmmaEmu, ReportsMisalignedMatrixAndStride) {
  const std::string load = "wmma.load.a.sync.aligned.row.m16n16k16.global.f16 {%a0, %a1, %a2, %a3, %a4, %a5, %a6, %a7}, [%pa];";
  const std::string ptx = load_kernel(load);
  assemble(ptx);
  EXPECT_EQ(run_error(ptx, 32), "");
  const std::string e = run_error(ptx, 32, 4096, true, 16);  // 16 bytes past a 256-byte boundary
  EXPECT_NE(e.find("wmma.load.a: the matrix address"), std::string::npos) << e;
  EXPECT_NE(e.find("not a multiple of 32 bytes"), std::string::npos) << e;
  // A stride of 20 .f16 (40 bytes) misaligns every other row.
  const std::string strided = load_kernel("wmma.load.a.sync.aligned.row.m16n16k16.global.f16 {%a0, %a1, %a2, %a3, %a4, %a5, %a6, %a7}, [%pa], 20;");
  assemble(strided);
  const std::string s = run_error(strided, 32);
  EXPECT_NE(s.find("a stride of 20 .f16 elements (40 bytes) is not a multiple of 16 bytes"), std::string::npos) << s;
}

TEST(WmmaEmu, ReportsOutOfBoundsWithTheLane) {
  // 16 rows of 64 .f16 need 15 * 128 + 32 bytes; the buffer has 1024.
  const std::string ptx = load_kernel("wmma.load.a.sync.aligned.row.m16n16k16.global.f16 {%a0, %a1, %a2, %a3, %a4, %a5, %a6, %a7}, [%pa], 64;");
  assemble(ptx);
  const std::string e = run_error(ptx, 32, 1024);
  EXPECT_NE(e.find("out of bounds"), std::string::npos) << e;
  EXPECT_NE(e.find("wmma.load.a"), std::string::npos) << e;
  EXPECT_NE(e.find("thread ("), std::string::npos) << e;
}

TEST(WmmaEmu, ReportsUninitializedSharedMemoryAndRaces) {
  const std::string smem = "wmma.load.a.sync.aligned.row.m16n16k16.shared.f16 {%a0, %a1, %a2, %a3, %a4, %a5, %a6, %a7}, [sm];";
  const std::string ptx = load_kernel(smem);
  assemble(ptx);
  const std::string e = run_error(ptx, 32);
  EXPECT_NE(e.find("never written in this CTA"), std::string::npos) << e;
  // Two warps write the matrix, then warp 0 writes a part again and both load it with no
  // barrier between: warp 1's load (its only read) and warp 0's write race. (Warp 0's own load is
  // ordered with its lanes' writes: wmma.load is .sync.aligned, a synchronization point of the warp.)
  const std::string racy = load_kernel(smem, R"(  .reg .pred %p;
  mov.u32 %t, %tid.x;
  setp.lt.u32 %p, %t, 32;
  shl.b32 %t, %t, 2;
  mov.u32 %u, sm;
  add.u32 %u, %u, %t;
  st.shared.u32 [%u], %t;
  st.shared.u32 [%u+256], %t;
  bar.sync 0;
  @%p st.shared.u32 [%u], %t;
)");
  assemble(racy);
  std::string r = run_error(racy, 64);
  EXPECT_NE(r.find("shared-memory race: a write of shared+0 after a read by thread (32,0,0)"), std::string::npos) << r;
  // With a barrier after the writes: no report.
  const std::string synced = racy.substr(0, racy.rfind("  wmma.load")) + "  bar.sync 0;\n" + racy.substr(racy.rfind("  wmma.load"));
  assemble(synced);
  r = run_error(synced, 64);
  EXPECT_EQ(r, "");
}

TEST(WmmaEmu, ReportsPartialWarpsAndLaneDependentAddresses) {
  const std::string ptx = load_kernel("wmma.load.a.sync.aligned.row.m16n16k16.global.f16 {%a0, %a1, %a2, %a3, %a4, %a5, %a6, %a7}, [%pa];");
  const std::string e = run_error(ptx, 16);
  EXPECT_NE(e.find("wmma.load.a needs all 32 lanes of the warp"), std::string::npos) << e;
  const std::string moving = load_kernel("wmma.load.a.sync.aligned.row.m16n16k16.global.f16 {%a0, %a1, %a2, %a3, %a4, %a5, %a6, %a7}, [%o];",
                                         "  mov.u32 %t, %tid.x;\n  mul.wide.u32 %o, %t, 32;\n  add.u64 %o, %pa, %o;\n");
  assemble(moving);
  const std::string m = run_error(moving, 32, 8192);
  EXPECT_NE(m.find("wmma.load.a: the address 0x"), std::string::npos) << m;
  EXPECT_NE(m.find("every lane of the warp must give the same"), std::string::npos) << m;
}

// Unvalidated modules (the validator refuses these first): the emulator's own decode reports them.
TEST(WmmaEmu, ReportsMalformedFormsUnvalidated) {
  auto error = [](const std::string& load) { return run_error(load_kernel(load), 32, 4096, false); };
  std::string e = error("wmma.load.a.sync.aligned.row.m16n16k16.global.f16 {%a0, %a1, %a2, %a3}, [%pa];");
  EXPECT_NE(e.find("r of wmma.m16n16k16 must be a vector of 8 registers (it has 4)"), std::string::npos) << e;
  e = error("wmma.load.a.sync.aligned.row.m16n16k8.global.f16 {%a0, %a1, %a2, %a3, %a4, %a5, %a6, %a7}, [%pa];");
  EXPECT_NE(e.find("wmma.load.a.m16n16k8.f16 is not a form of the ISA"), std::string::npos) << e;
  e = error("wmma.load.a.sync.aligned.col.m8n8k32.global.s4 {%a0}, [%pa];");
  EXPECT_NE(e.find("A row-major and B column-major only"), std::string::npos) << e;
  e = error("wmma.load.a.sync.aligned.row.m16n16k16.global.f16 {%a0, %a1, %a2, %a3, %a4, %a5, %a6, %a7}, %pa;");
  EXPECT_NE(e.find("needs an address [p]"), std::string::npos) << e;
  e = error("wmma.load.a.sync.aligned.row.m16n16k16.global.f16 {%a0, %a1, %a2, %a3, %a4, %a5, %a6, %pa}, [%pa];");
  EXPECT_NE(e.find("must be 32-bit registers"), std::string::npos) << e;
  e = error("wmma.load.a.sync.aligned.row.m16n16k16.global.f16.f32 {%a0, %a1, %a2, %a3, %a4, %a5, %a6, %a7}, [%pa];");
  EXPECT_NE(e.find("needs one element type"), std::string::npos) << e;
  // a type of the other matrix instructions (the type table is shared): not a wmma form
  e = error("wmma.load.a.sync.aligned.row.m16n16k16.global.e4m3 {%a0, %a1, %a2, %a3, %a4, %a5, %a6, %a7}, [%pa];");
  EXPECT_NE(e.find("wmma.load.a.m16n16k16.e4m3 is not a form of the ISA"), std::string::npos) << e;
}

// ---- CUDA C++ (nvcuda::wmma) compiled by nvcc: tests/corpus/src/wmma_gemm.cu ------------------

std::string corpus_file(const std::string& rel) {
  std::ifstream in(std::string(PTXPP_CORPUS_DIR) + "/" + rel, std::ios::binary);
  std::ostringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

// wmma_gemm_f16: D (M x N, f32, row-major) = A (M x K, f16, row-major) * B (K x N, f16,
// column-major) + C, each warp one 16 x 16 tile of D.
TEST(WmmaEmu, NvccF16GemmMatchesHost) {
  const std::string ptx = corpus_file("nvcc/sm_80/wmma_gemm.ptx");
  ASSERT_FALSE(ptx.empty());
  constexpr int M = 32, N = 48, K = 64;
  Rng rng{81};
  std::vector<uint16_t> a(M * K), b(K * N);
  std::vector<double> av(M * K), bv(K * N);
  std::vector<float> c(M * N), d(M * N, 0.0f);
  for (int i = 0; i < M * K; ++i) a[i] = to_half(av[i] = rng.value(T::f16));
  for (int i = 0; i < K * N; ++i) b[i] = to_half(bv[i] = rng.value(T::f16));
  for (auto& x : c) x = static_cast<float>(rng.value(T::f32));
  EmuRun run;
  run.buffer(a, "A");
  run.buffer(b, "B");
  run.buffer(c, "C");
  const uint64_t out = run.buffer(d, "D");
  run.scalar<int>(M);
  run.scalar<int>(N);
  run.scalar<int>(K);
  run.launch(ptx, "_Z13wmma_gemm_f16PK6__halfS1_PKfPfiii", {N / 16, M / 16, 1}, {32, 1, 1});
  const auto got = run.read<float>(out, M * N);
  for (int m = 0; m < M; ++m)
    for (int n = 0; n < N; ++n) {
      double want = c[m * N + n];
      for (int k = 0; k < K; ++k) want += av[m * K + k] * bv[n * K + k];
      ASSERT_EQ(got[m * N + n], want) << m << "," << n;
    }
}

// wmma_gemm_s8: the same with s8 tiles staged through shared memory, s32 accumulators.
TEST(WmmaEmu, NvccS8SharedGemmMatchesHost) {
  const std::string ptx = corpus_file("nvcc/sm_80/wmma_gemm.ptx");
  ASSERT_FALSE(ptx.empty());
  constexpr int M = 32, N = 32, K = 48;
  Rng rng{91};
  std::vector<int8_t> a(M * K), b(K * N);
  std::vector<int32_t> c(M * N), d(M * N, 0);
  for (auto& x : a) x = static_cast<int8_t>(rng.value(T::s8));
  for (auto& x : b) x = static_cast<int8_t>(rng.value(T::s8));
  for (auto& x : c) x = static_cast<int32_t>(rng.value(T::s32));
  EmuRun run;
  run.buffer(a, "A");
  run.buffer(b, "B");
  run.buffer(c, "C");
  const uint64_t out = run.buffer(d, "D");
  run.scalar<int>(M);
  run.scalar<int>(N);
  run.scalar<int>(K);
  run.launch(ptx, "_Z12wmma_gemm_s8PKaS0_PKiPiiii", {N / 16, M / 16, 1}, {32, 1, 1});
  const auto got = run.read<int32_t>(out, M * N);
  for (int m = 0; m < M; ++m)
    for (int n = 0; n < N; ++n) {
      int64_t want = c[m * N + n];
      for (int k = 0; k < K; ++k) want += int64_t{a[m * K + k]} * b[n * K + k];  // B column-major
      ASSERT_EQ(got[m * N + n], want) << m << "," << n;
    }
}

}  // namespace

namespace {

// f32 rounded to tf32 as cvt.rna does (to nearest, ties away from zero), by hand on the bits.
float tf32_rna(float x) { return std::bit_cast<float>((std::bit_cast<uint32_t>(x) + 0x1000u) & 0xFFFFE000u); }

// wmma_gemm_tf32: D (column-major) = A * B with A and B rounded to tf32 in the fragments.
TEST(WmmaEmu, NvccTf32GemmMatchesHost) {
  const std::string ptx = corpus_file("nvcc/sm_80/wmma_gemm.ptx");
  ASSERT_FALSE(ptx.empty());
  constexpr int M = 32, N = 16, K = 24;
  std::vector<float> a(M * K), b(K * N), d(M * N, 0.0f);
  // Values in +-[1, 2) with all 23 mantissa bits, so the rounding to tf32 matters; the
  // products of tf32 values and their sums over one k-step stay exact in double.
  uint32_t s = 101;
  for (auto* v : {&a, &b})
    for (auto& x : *v) {
      s = s * 1664525u + 1013904223u;
      x = std::bit_cast<float>(0x3F800000u | (s >> 9)) * ((s & 1) ? -1.0f : 1.0f);
    }
  EmuRun run;
  run.buffer(a, "A");
  run.buffer(b, "B");
  const uint64_t out = run.buffer(d, "D");
  run.scalar<int>(M);
  run.scalar<int>(N);
  run.scalar<int>(K);
  run.launch(ptx, "_Z14wmma_gemm_tf32PKfS0_Pfiii", {N / 16, M / 16, 1}, {32, 1, 1});
  const auto got = run.read<float>(out, M * N);
  for (int m = 0; m < M; ++m)
    for (int n = 0; n < N; ++n) {
      // Each wmma.mma (k-steps of 8) rounds its sum to the f32 accumulator once.
      float want = 0;
      for (int k0 = 0; k0 < K; k0 += 8) {
        double step = want;
        for (int k = k0; k < k0 + 8; ++k) step += static_cast<double>(tf32_rna(a[m * K + k])) * tf32_rna(b[n * K + k]);  // B column-major
        want = static_cast<float>(step);
      }
      ASSERT_EQ(got[n * M + m], want) << m << "," << n;
    }
}

}  // namespace
