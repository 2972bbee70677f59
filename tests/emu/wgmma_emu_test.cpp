// wgmma on the emulator. Each test writes a kernel as PTX text: the CTA copies a
// shared-memory image (A and B laid out as their descriptors say, built here) from
// global memory, loads C into the accumulator registers (thread t holds C[t * R ...]),
// runs wgmma.mma_async for one or more K steps between wgmma.fence and
// commit_group/wait_group, and stores D back the same way. The test maps each
// (thread, register) to its (row, column) of D by the ISA manual's fragment layout and
// compares with a reference product computed here. ptxas (sm_90a) checks every module.
#include <gtest/gtest.h>

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "../unit/ptxas_util.hpp"
#include "emu_test_util.hpp"
#include "sparse_metadata_util.hpp"

namespace {

using ptx::test::EmuRun;
using ptx::test::have_ptxas;
using ptx::test::run_ptxas;

// ---- element formats ------------------------------------------------------------------------

struct Format {
  const char* name;
  unsigned bits;             // element width in memory
  int man = 0, exp = 0;      // floats: mantissa and exponent bits (0: integer or b1)
  bool is_signed = false;    // integers
};
const Format kF16{"f16", 16, 10, 5}, kBF16{"bf16", 16, 7, 8}, kTF32{"tf32", 32, 23, 8}, kE4M3{"e4m3", 8, 3, 4},
    kE5M2{"e5m2", 8, 2, 5}, kS8{"s8", 8, 0, 0, true}, kU8{"u8", 8}, kB1{"b1", 1};

bool is_float(const Format& f) { return f.man != 0; }

// The bits of v, which must be zero or a normal number the format represents exactly.
uint32_t encode(const Format& f, double v) {
  if (!is_float(f)) return static_cast<uint32_t>(static_cast<int64_t>(v)) & (f.bits == 32 ? 0xFFFFFFFFu : (1u << f.bits) - 1);
  if (f.bits == 32) return std::bit_cast<uint32_t>(static_cast<float>(v));
  const uint32_t sign = std::signbit(v) ? 1u << (f.bits - 1) : 0;
  if (v == 0) return sign;
  const int e = std::ilogb(v);
  const double m = std::fabs(v) / std::ldexp(1.0, e) - 1;  // in [0, 1)
  const uint32_t man = static_cast<uint32_t>(std::ldexp(m, f.man));
  EXPECT_EQ(std::ldexp(static_cast<double>(man), -f.man), m) << v << " is not exact in " << f.name;
  const int bias = (1 << (f.exp - 1)) - 1;
  return sign | static_cast<uint32_t>(e + bias) << f.man | man;
}

double f16_value(uint32_t bits) {
  const int e = static_cast<int>(bits >> 10 & 31), m = static_cast<int>(bits & 1023);
  const double mag = e == 0 ? std::ldexp(m, -24) : e == 31 ? (m ? NAN : INFINITY) : std::ldexp(1024 + m, e - 25);
  return (bits & 0x8000) ? -mag : mag;
}

// ---- a test case and its kernel ----------------------------------------------------------------

struct Case {
  const Format* a = &kF16;
  const Format* b = &kF16;
  const char* d = "f32";        // f32, f16, s32
  unsigned n = 64;
  unsigned swz_a = 0, swz_b = 0;  // swizzle in bytes: 0 (none), 32, 64, 128
  bool mn_a = false, mn_b = false;  // MN-major (imm-trans 1; f16/bf16 only)
  bool a_regs = false;          // A from registers
  int scale_d = 1;              // the first K step's scale-d (later steps accumulate)
  bool scale_d_imm = false;     // scale-d as an immediate (one K step) instead of a predicate
  int scale_a = 1, scale_b = 1;
  bool satfinite = false;
  unsigned ksteps = 1;          // wgmma instructions, each the next K slice
  unsigned warpgroups = 1;
  bool alt_strides = false;     // no-swizzle layouts: K-chunks outer instead of MN-groups outer
  bool sparse = false;          // wgmma.mma_async.sp: A 2:4 (tf32 1:2) sparse, its K doubled
  int selector = 0;             // .sp: sp-sel
};

// The instruction's K (of B, and of the dense A), and the K of A as stored (.sp: its non-zero half).
unsigned k_step(const Case& c) { return 256 / c.a->bits * (c.sparse ? 2 : 1); }
unsigned k_stored(const Case& c) { return c.sparse ? k_step(c) / 2 : k_step(c); }
unsigned d_regs(const Case& c) { return std::string(c.d) == "f16" ? c.n / 4 : c.n / 2; }
bool two_byte(const Format& f) { return f.bits == 16; }

std::string mnemonic(const Case& c) {
  std::string m = fmt::format("wgmma.mma_async{}.sync.aligned.m64n{}k{}", c.sparse ? ".sp" : "", c.n, k_step(c));
  if (c.satfinite) m += ".satfinite";
  m += fmt::format(".{}.{}.{}", c.d, c.a->name, c.b->name);
  if (c.a == &kB1) m += ".and.popc";
  return m;
}

std::string wgmma_ptx(const Case& c, size_t smem_bytes) {
  const unsigned R = d_regs(c), threads = 128 * c.warpgroups;
  const bool f32 = std::string(c.d) == "f32";
  std::string regs;
  for (unsigned i = 0; i < R; ++i) regs += fmt::format("{}%d{}", i ? ", " : "", i);
  std::string ops = "{" + regs + "}, " + (c.a_regs ? "{%a0, %a1, %a2, %a3}" : "%rd14") + ", %rd15, ";
  if (c.sparse) ops += fmt::format("%r22, {}, ", c.selector);
  ops += c.scale_d_imm ? std::to_string(c.scale_d) : "%p2";
  if (is_float(*c.a)) ops += fmt::format(", {}, {}", c.scale_a, c.scale_b);
  if (two_byte(*c.a)) ops += (c.a_regs ? "" : fmt::format(", {}", c.mn_a ? 1 : 0)) + fmt::format(", {}", c.mn_b ? 1 : 0);
  std::string load_c, store_d;
  for (unsigned i = 0; i < R; ++i) {
    load_c += fmt::format("\tld.global.{} %d{}, [%rd5+{}];\n", f32 ? "f32" : "b32", i, 4 * i);
    store_d += fmt::format("\tst.global.{} [%rd6+{}], %d{};\n", f32 ? "f32" : "b32", 4 * i, i);
  }
  const std::string a_load = c.a_regs ? fmt::format(R"(	mad.lo.u32 %r21, %r20, {}, %r1;
	mul.wide.u32 %rd16, %r21, 16;
	add.s64 %rd17, %rd4, %rd16;
	ld.global.v4.b32 {{%a0, %a1, %a2, %a3}}, [%rd17];
)", threads) : "";
  const std::string scale = c.scale_d ? "\tsetp.ge.u32 %p2, %r20, 0;\n" : "\tsetp.ne.u32 %p2, %r20, 0;\n";
  const std::string meta_load = c.sparse ? fmt::format(R"(	mad.lo.u32 %r23, %r20, {}, %r1;
	mul.wide.u32 %rd18, %r23, 4;
	add.s64 %rd19, %rd20, %rd18;
	ld.global.b32 %r22, [%rd19];
)", threads) : "";
  return fmt::format(R"(.version 8.4
.target sm_90a
.address_size 64

.visible .entry wg(.param .u64 p_img, .param .u32 p_bytes, .param .u64 p_desc, .param .u64 p_afrag, .param .u64 p_c, .param .u64 p_d{})
{{
	.reg .b32 %r<32>;
	.reg .b64 %rd<32>;
	.reg .pred %p<4>;
	.reg .{} %d<{}>;
	.reg .b32 %a<4>;
	.shared .align 1024 .b8 smem[{}];
	mov.u32 %r1, %tid.x;
	mov.u32 %r2, %ntid.x;
	ld.param.u64 %rd1, [p_img];
	ld.param.u32 %r3, [p_bytes];
	mov.u32 %r4, smem;
	shl.b32 %r5, %r1, 4;
	shl.b32 %r11, %r2, 4;
$copy:
	setp.ge.u32 %p1, %r5, %r3;
	@%p1 bra $copied;
	cvt.u64.u32 %rd2, %r5;
	add.s64 %rd3, %rd1, %rd2;
	ld.global.v4.u32 {{%r6, %r7, %r8, %r9}}, [%rd3];
	add.u32 %r10, %r4, %r5;
	st.shared.v4.u32 [%r10], {{%r6, %r7, %r8, %r9}};
	add.u32 %r5, %r5, %r11;
	bra $copy;
$copied:
	bar.sync 0;
	fence.proxy.async.shared::cta;
	ld.param.u64 %rd4, [p_afrag];
	ld.param.u64 %rd5, [p_c];
	ld.param.u64 %rd6, [p_d];
{}	mul.wide.u32 %rd7, %r1, {};
	add.s64 %rd5, %rd5, %rd7;
	add.s64 %rd6, %rd6, %rd7;
{}	cvt.u64.u32 %rd10, %r4;
	shr.u64 %rd10, %rd10, 4;
	ld.param.u64 %rd11, [p_desc];
	mov.u32 %r20, 0;
	wgmma.fence.sync.aligned;
$k:
	mul.wide.u32 %rd12, %r20, 16;
	add.s64 %rd13, %rd11, %rd12;
	ld.global.v2.u64 {{%rd14, %rd15}}, [%rd13];
	add.s64 %rd14, %rd14, %rd10;
	add.s64 %rd15, %rd15, %rd10;
{}{}{}	{} {};
	add.u32 %r20, %r20, 1;
	setp.lt.u32 %p3, %r20, {};
	@%p3 bra $k;
	wgmma.commit_group.sync.aligned;
	wgmma.wait_group.sync.aligned 0;
{}	ret;
}}
)",
                     c.sparse ? ", .param .u64 p_meta" : "", f32 ? "f32" : "b32", R, smem_bytes,
                     c.sparse ? "\tld.param.u64 %rd20, [p_meta];\n" : "", 4 * R, load_c, a_load, scale, meta_load, mnemonic(c), ops, c.ksteps,
                     store_d);
}

// ---- shared-memory images ---------------------------------------------------------------------

// cute's Swizzle<B,4,3> on a byte address: bits [7, 7 + B) XORed into bits [4, 4 + B).
uint64_t swizzle(uint64_t addr, unsigned swz_bytes) {
  const unsigned b = swz_bytes == 128 ? 3 : swz_bytes == 64 ? 2 : swz_bytes == 32 ? 1 : 0;
  return addr ^ ((addr >> 3) & (((1u << b) - 1) << 4));
}

// One operand (MN x Kt elements) in shared memory at `base`: where each element goes, and the
// descriptor of each K step (start relative to the shared buffer, LBO, SBO, mode).
struct Placement {
  unsigned mn, kt, ebits, swz;
  bool mn_major, alt;
  uint64_t base;
  uint64_t lbo = 0, sbo = 0;

  Placement(unsigned mn_, unsigned kt_, unsigned ebits_, unsigned swz_, bool mn_major_, bool alt_, uint64_t base_)
      : mn(mn_), kt(kt_), ebits(ebits_), swz(swz_), mn_major(mn_major_), alt(alt_), base(base_) {
    const uint64_t k_bytes = uint64_t{kt} * ebits / 8;
    if (!mn_major) {
      if (swz) {  // atoms of 8 rows x swz bytes; MN groups at SBO, atoms along K after all of MN
        lbo = 16;
        sbo = 8 * swz;
      } else if (!alt) {  // core matrices 8 x 16 bytes: K chunks of one MN group together
        lbo = 128;
        sbo = 128 * (k_bytes / 16);
      } else {  // the MN groups of one K chunk together
        lbo = 128 * (mn / 8);
        sbo = 128;
      }
    } else {
      const unsigned t = 128 / ebits;  // elements per 16 bytes
      if (swz) {  // atoms of 8 K rows x swz bytes of MN; K groups at SBO, atoms along MN at LBO
        sbo = 8 * swz;
        lbo = sbo * (kt / 8);
      } else if (!alt) {  // core matrices of 8 K rows x 16 bytes of MN: K groups at LBO, MN chunks at SBO
        lbo = 128;
        sbo = 128 * (kt / 8);
      } else {  // the MN chunks of one K group together
        lbo = 128 * (mn / t);
        sbo = 128;
      }
    }
  }

  // The extent from base: a swizzle atom wider than the data still spans its whole rows.
  uint64_t bytes() const {
    uint64_t end = base;
    unsigned bit;
    for (unsigned i = 0; i < mn; ++i)
      for (unsigned k = 0; k < kt; ++k) end = std::max(end, address(i, k, bit) + std::max(1u, ebits / 8));
    return (end - base + 15) / 16 * 16;
  }

  // The byte (and bit, for b1) of element (i, k).
  uint64_t address(unsigned i, unsigned k, unsigned& bit) const {
    bit = 0;
    if (!mn_major) {
      const uint64_t kb = uint64_t{k} * ebits / 8;
      if (ebits == 1) bit = k % 8;
      uint64_t a;
      if (swz) a = base + kb / swz * (uint64_t{mn} / 8 * sbo) + i / 8 * sbo + i % 8 * swz + kb % swz;
      else a = base + i / 8 * sbo + kb / 16 * lbo + i % 8 * 16 + kb % 16;
      return swizzle(a, swz);
    }
    const unsigned t = 128 / ebits, w = swz / 16;
    uint64_t a;
    if (swz) a = base + i / (t * w) * lbo + k / 8 * sbo + k % 8 * swz + i / t % w * 16 + i % t * (ebits / 8);
    else a = base + i / t * sbo + k / 8 * lbo + k % 8 * 16 + i % t * (ebits / 8);
    return swizzle(a, swz);
  }

  // The descriptor of K step s (start relative to the shared buffer).
  uint64_t descriptor(unsigned s) const {
    uint64_t start;
    if (!mn_major) {
      const uint64_t kb = uint64_t{s} * 32;
      start = swz ? base + kb / swz * (uint64_t{mn} / 8 * sbo) + kb % swz : base + 2 * s * lbo;
    } else {
      start = base + 2 * s * (swz ? sbo : lbo);  // 16 K rows per step: two groups of 8
    }
    const uint64_t mode = swz == 128 ? 1 : swz == 64 ? 2 : swz == 32 ? 3 : 0;
    return (start >> 4 & 0x3FFF) | (lbo >> 4 & 0x3FFF) << 16 | (sbo >> 4 & 0x3FFF) << 32 | mode << 62;
  }

  void put(std::vector<uint8_t>& img, unsigned i, unsigned k, uint32_t code) const {
    unsigned bit;
    const uint64_t a = address(i, k, bit);
    if (ebits == 1) {
      img[a] = static_cast<uint8_t>((img[a] & ~(1u << bit)) | (code & 1) << bit);
      return;
    }
    for (unsigned j = 0; j < ebits / 8; ++j) img[a + j] = static_cast<uint8_t>(code >> (8 * j));
  }
};

// ---- running a case ------------------------------------------------------------------------------

struct Inputs {
  std::vector<double> a, b;       // A: 64 x Kt ([m][k]); B: Kt x N stored [n][k]
  std::vector<uint32_t> a_code, b_code;  // A as stored: 64 x Kt (.sp: its non-zero half, 64 x Kt / 2)
  std::vector<uint32_t> meta;     // .sp: per K step, each thread's sp-meta
  std::vector<uint32_t> c;        // per thread: R registers
};

double pick(std::mt19937& g, const Format& f) {
  if (&f == &kB1) return static_cast<double>(g() & 1);
  if (&f == &kS8) return static_cast<double>(static_cast<int8_t>(g()));
  if (&f == &kU8) return static_cast<double>(g() & 255);
  static const double kValues[] = {0, 0.5, -0.5, 1, -1, 1.5, -1.5, 2, -2, 3, -3};  // exact in every float format here
  return kValues[g() % std::size(kValues)];
}

// The (row, column) of D element i of thread t (rows of the thread's warp: 16 * rank + ...).
std::pair<unsigned, unsigned> d_position(unsigned t, unsigned i) {
  const unsigned rank = t % 128 / 32, lane = t % 32, g = lane / 4, q = lane % 4;
  return {16 * rank + g + 8 * (i / 2 % 2), 8 * (i / 4) + 2 * q + i % 2};
}

// The (row, k) of element e of A-fragment register j of thread t, per the manual's figures for
// wgmma .m64nNk16 (f16/bf16), .m64nNk8 (tf32) and .m64nNk32 (8-bit).
std::pair<unsigned, unsigned> a_position(const Format& f, unsigned t, unsigned j, unsigned e) {
  const unsigned rank = t % 128 / 32, lane = t % 32, g = lane / 4, q = lane % 4;
  const unsigned row = 16 * rank + g + 8 * (j % 2);
  if (f.bits == 16) return {row, 2 * q + e + 8 * (j / 2)};  // a0,a1 | a2,a3 (row + 8) | a4,a5 (k + 8) | a6,a7
  if (f.bits == 32) return {row, q + 4 * (j / 2)};          // a0 | a1 (row + 8) | a2 (k + 4) | a3
  if (f.bits == 8) return {row, 4 * q + e + 16 * (j / 2)};  // a0..a3 | a4..a7 | a8..a11 (k + 16) | a12..a15
  return {row, 32 * q + e + 128 * (j / 2)};                  // b1: 32 per register
}

struct Result {
  std::vector<uint32_t> d;  // per thread: R registers
  std::string ptx;
};

Result run_case(const Case& c, const Inputs& in, std::string* error = nullptr) {
  const unsigned K = k_step(c), Kt = K * c.ksteps, R = d_regs(c), threads = 128 * c.warpgroups;
  const unsigned Ka = k_stored(c), Kta = Ka * c.ksteps;
  const Placement pa(64, Kta, c.a->bits, c.swz_a, c.mn_a, c.alt_strides, 0);
  const uint64_t b_base = (pa.bytes() + 1023) / 1024 * 1024;
  const Placement pb(c.n, Kt, c.b->bits, c.swz_b, c.mn_b, c.alt_strides, b_base);
  std::vector<uint8_t> img((b_base + pb.bytes() + 1023) / 1024 * 1024, 0);
  for (unsigned m = 0; m < 64; ++m)
    for (unsigned k = 0; k < Kta; ++k) pa.put(img, m, k, in.a_code[m * Kta + k]);
  for (unsigned n = 0; n < c.n; ++n)
    for (unsigned k = 0; k < Kt; ++k) pb.put(img, n, k, in.b_code[n * Kt + k]);
  std::vector<uint64_t> desc;
  for (unsigned s = 0; s < c.ksteps; ++s) desc.push_back(pa.descriptor(s)), desc.push_back(pb.descriptor(c.sparse ? 2 * s : s));
  // A fragments, per K step and thread: 4 registers
  std::vector<uint32_t> afrag(std::max(1u, c.ksteps * threads * 4), 0);
  if (c.a_regs)
    for (unsigned s = 0; s < c.ksteps; ++s)
      for (unsigned t = 0; t < threads; ++t)
        for (unsigned j = 0; j < 4; ++j) {
          uint32_t v = 0;
          const unsigned per = 32 / c.a->bits;
          for (unsigned e = 0; e < per; ++e) {
            const auto [row, k] = a_position(*c.a, t, j, e);
            const uint32_t code = in.a_code[row * Kta + s * Ka + k];
            v |= (per == 1 ? code : code & ((1u << c.a->bits) - 1)) << (e * c.a->bits);
          }
          afrag[(s * threads + t) * 4 + j] = v;
        }
  Result res;
  res.ptx = wgmma_ptx(c, img.size());
  EmuRun r;
  r.buffer(img, "img");
  r.scalar(static_cast<uint32_t>(img.size()));
  r.buffer(desc, "desc");
  r.buffer(afrag, "afrag");
  r.buffer(in.c, "c");
  const uint64_t d = r.buffer(std::vector<uint32_t>(threads * R, 0xDEADBEEF), "d");
  if (c.sparse) r.buffer(in.meta, "meta");
  try {
    r.launch(res.ptx, "wg", {1, 1, 1}, {threads, 1, 1});
  } catch (const ptx::emu::Error& e) {
    if (!error) throw;
    *error = e.what();
    return res;
  }
  res.d = r.read<uint32_t>(d, threads * R);
  return res;
}

// .sp: A 2:4 sparse in chunks of 4 (tf32: 1:2 in chunks of 2), its non-zero half in a_code and each
// thread's metadata per K step; lanes that supply none get noise, which must not matter.
void make_sparse_a(const Case& c, std::mt19937& g, Inputs& in) {
  const unsigned K = k_step(c), Kt = K * c.ksteps, Kta = Kt / 2, threads = 128 * c.warpgroups;
  const bool tf32 = c.a->bits == 32;
  const unsigned width = tf32 ? 2 : 4, keep = tf32 ? 1 : 2;
  in.a_code.assign(64 * Kta, 0);
  in.meta.resize(c.ksteps * threads);
  for (auto& x : in.meta) x = g();
  std::vector<bool> cleared(in.meta.size(), false);
  for (unsigned s = 0; s < c.ksteps; ++s)
    for (unsigned m = 0; m < 64; ++m)
      for (unsigned ch = 0; ch < K / width; ++ch) {
        unsigned at[2] = {0, 0}, field;
        if (tf32) {
          at[0] = g() % 2;
          field = at[0] ? 0xEu : 0x4u;
        } else {
          at[0] = g() % 4, at[1] = g() % 3;
          if (at[1] >= at[0]) ++at[1];
          field = at[0] | at[1] << 2;
        }
        for (unsigned j = 0; j < keep; ++j) {
          const double v = pick(g, *c.a);
          in.a[m * Kt + s * K + ch * width + at[j]] = v;
          in.a_code[m * Kta + s * K / 2 + ch * keep + j] = encode(*c.a, v);
        }
        const ptx::test::MetaAt where = ptx::test::meta_at(static_cast<int>(K * c.a->bits), c.a->bits >= 16, c.selector,
                                                           static_cast<int>(m % 16), static_cast<int>(ch));
        for (unsigned wg = 0; wg < c.warpgroups; ++wg) {
          const size_t t = s * threads + 128 * wg + 32 * (m / 16) + static_cast<unsigned>(where.lane);
          if (!cleared[t]) in.meta[t] = 0, cleared[t] = true;
          in.meta[t] |= field << where.bit;
        }
      }
}

Inputs make_inputs(const Case& c, uint32_t seed) {
  const unsigned Kt = k_step(c) * c.ksteps, R = d_regs(c), threads = 128 * c.warpgroups;
  std::mt19937 g(seed);
  Inputs in;
  in.a.resize(64 * Kt), in.b.resize(c.n * Kt), in.a_code.resize(in.a.size()), in.b_code.resize(in.b.size());
  if (c.sparse) make_sparse_a(c, g, in);
  else
    for (size_t i = 0; i < in.a.size(); ++i) in.a_code[i] = encode(*c.a, in.a[i] = pick(g, *c.a));
  for (size_t i = 0; i < in.b.size(); ++i) in.b_code[i] = encode(*c.b, in.b[i] = pick(g, *c.b));
  in.c.resize(threads * R);
  const std::string d = c.d;
  for (auto& x : in.c) {
    if (d == "s32") x = static_cast<uint32_t>(static_cast<int32_t>(g() % 2001) - 1000);
    else if (d == "f32") x = std::bit_cast<uint32_t>(0.25f * static_cast<float>(static_cast<int>(g() % 33) - 16));
    else x = encode(kF16, 0.25 * (static_cast<int>(g() % 33) - 16)) | encode(kF16, 0.5 * (static_cast<int>(g() % 9) - 4)) << 16;
  }
  return in;
}

// D = A * B (+ C) per the case, checked element by element.
void check(const Case& c, const Inputs& in, const Result& res, double tolerance = 0) {
  const unsigned Kt = k_step(c) * c.ksteps, R = d_regs(c), threads = 128 * c.warpgroups;
  const std::string d = c.d;
  const unsigned per = d == "f16" ? 2 : 1;
  ASSERT_EQ(res.d.size(), threads * R);
  for (unsigned t = 0; t < threads; ++t)
    for (unsigned r = 0; r < R; ++r)
      for (unsigned h = 0; h < per; ++h) {
        const unsigned i = r * per + h;
        const auto [row, col] = d_position(t, i);
        double sum = 0, magnitude = 0;  // magnitude: what f32 rounding after each K step scales with
        for (unsigned k = 0; k < Kt; ++k) {
          sum += in.a[row * Kt + k] * in.b[col * Kt + k];
          magnitude += std::fabs(in.a[row * Kt + k] * in.b[col * Kt + k]);
        }
        sum *= c.scale_a * c.scale_b;
        // scale-d: the first step's choice; every later step accumulates onto it
        const bool add_c = c.scale_d != 0;
        const uint32_t cbits = in.c[t * R + r], got = res.d[t * R + r];
        const std::string where = fmt::format("thread {} register {} (row {}, col {})", t, r, row, col);
        if (d == "s32") {
          int64_t want = static_cast<int64_t>(sum) + (add_c ? static_cast<int32_t>(cbits) : 0);
          if (c.satfinite) want = std::clamp<int64_t>(want, INT32_MIN, INT32_MAX);
          ASSERT_EQ(static_cast<int32_t>(got), static_cast<int32_t>(static_cast<uint32_t>(want))) << where;
        } else if (d == "f32") {
          const double want = sum + (add_c ? std::bit_cast<float>(cbits) : 0.0f);
          ASSERT_NEAR(std::bit_cast<float>(got), want, tolerance * (1 + magnitude + std::fabs(want))) << where;
        } else {
          const double want = sum + (add_c ? f16_value(cbits >> (16 * h) & 0xFFFF) : 0.0);
          ASSERT_EQ(f16_value(got >> (16 * h) & 0xFFFF), want) << where;
        }
      }
}

void run_and_check(const Case& c, uint32_t seed) {
  const Inputs in = make_inputs(c, seed);
  const Result res = run_case(c, in);
  check(c, in, res);
  if (have_ptxas()) {
    const auto p = run_ptxas(res.ptx, "sm_90a");
    EXPECT_TRUE(p.ok) << p.log;
  }
}

// ---- the cases ------------------------------------------------------------------------------------

TEST(EmuWgmma, F16ToF32KMajorEverySwizzle) {
  for (unsigned swz : {0u, 32u, 64u, 128u}) {
    SCOPED_TRACE(fmt::format("swizzle {}", swz));
    Case c;
    c.swz_a = c.swz_b = swz;
    c.ksteps = 2;
    run_and_check(c, 1 + swz);
  }
}

TEST(EmuWgmma, F16NoSwizzleWithTheOtherStrides) {
  Case c;
  c.alt_strides = true;  // LBO spans the MN groups, SBO = 128
  c.ksteps = 2;
  run_and_check(c, 7);
  c.mn_a = c.mn_b = true;
  run_and_check(c, 8);
}

TEST(EmuWgmma, F16MnMajorEverySwizzle) {
  for (unsigned swz : {0u, 32u, 64u, 128u}) {
    SCOPED_TRACE(fmt::format("swizzle {}", swz));
    Case c;
    c.swz_a = c.swz_b = swz;
    c.mn_a = c.mn_b = true;
    c.ksteps = 2;
    run_and_check(c, 11 + swz);
  }
}

TEST(EmuWgmma, MixedMajorAndSwizzlePerOperand) {
  Case c;
  c.a = c.b = &kBF16;
  c.swz_a = 128, c.mn_a = true;  // A M-major, B K-major
  c.swz_b = 32;
  run_and_check(c, 21);
  c.swz_a = 0, c.mn_a = false;
  c.swz_b = 64, c.mn_b = true;   // A K-major, B N-major
  run_and_check(c, 22);
}

TEST(EmuWgmma, F16AccumulatorAndShapes) {
  for (unsigned n : {8u, 64u, 256u}) {
    SCOPED_TRACE(fmt::format("n {}", n));
    Case c;
    c.d = "f16";
    c.n = n;
    c.swz_a = 128, c.swz_b = 64;
    run_and_check(c, 30 + n);
  }
}

TEST(EmuWgmma, F32AccumulatorN8AndN256) {
  for (unsigned n : {8u, 256u}) {
    Case c;
    c.n = n;
    c.swz_a = c.swz_b = 128;
    run_and_check(c, 40 + n);
  }
}

TEST(EmuWgmma, Bf16AndTf32) {
  Case c;
  c.a = c.b = &kBF16;
  c.n = 32;
  c.swz_a = c.swz_b = 64;
  run_and_check(c, 50);
  c.a = c.b = &kTF32;
  c.n = 64;
  c.ksteps = 4;  // K = 8 per step: 4 steps fill a 128-byte row
  c.swz_a = c.swz_b = 128;
  run_and_check(c, 51);
  c.swz_a = c.swz_b = 0;
  run_and_check(c, 52);
}

TEST(EmuWgmma, Fp8EveryCombination) {
  const Format* fp8[] = {&kE4M3, &kE5M2};
  for (const Format* a : fp8)
    for (const Format* b : fp8)
      for (const char* d : {"f32", "f16"}) {
        SCOPED_TRACE(fmt::format("{}.{}.{}", d, a->name, b->name));
        Case c;
        c.a = a, c.b = b, c.d = d;
        c.swz_a = 128, c.swz_b = 32;
        run_and_check(c, 60);
      }
}

TEST(EmuWgmma, Int8IsExactAndWraps) {
  for (const Format* a : {&kS8, &kU8})
    for (const Format* b : {&kS8, &kU8})
      for (unsigned n : {8u, 64u, 256u}) {
        SCOPED_TRACE(fmt::format("{}.{} n{}", a->name, b->name, n));
        Case c;
        c.a = a, c.b = b, c.d = "s32", c.n = n;
        c.swz_a = 64, c.swz_b = 128;
        c.ksteps = n == 8 ? 3 : 1;
        run_and_check(c, 70 + n);
      }
}

TEST(EmuWgmma, Int8SatfiniteClampsWhereThePlainFormWraps) {
  Case c;
  c.a = &kU8, c.b = &kU8, c.d = "s32", c.n = 16;
  Inputs in = make_inputs(c, 80);
  for (size_t i = 0; i < in.a.size(); ++i) in.a_code[i] = 255, in.a[i] = 255;
  for (size_t i = 0; i < in.b.size(); ++i) in.b_code[i] = 255, in.b[i] = 255;
  for (auto& x : in.c) x = static_cast<uint32_t>(INT32_MAX - 1000);  // + 32 * 255 * 255 overflows
  check(c, in, run_case(c, in));
  c.satfinite = true;
  const Result res = run_case(c, in);
  check(c, in, res);
  EXPECT_EQ(static_cast<int32_t>(res.d[0]), INT32_MAX);
  if (have_ptxas()) {
    EXPECT_TRUE(run_ptxas(res.ptx, "sm_90a").ok);
  }
}

TEST(EmuWgmma, B1AndPopc) {
  for (unsigned swz : {0u, 128u}) {
    Case c;
    c.a = c.b = &kB1, c.d = "s32", c.n = 48;
    c.swz_a = c.swz_b = swz;
    run_and_check(c, 90 + swz);
  }
}

TEST(EmuWgmma, AFromRegisters) {
  Case c;
  c.a_regs = true;
  c.swz_b = 128;
  c.ksteps = 2;
  run_and_check(c, 100);  // f16
  c.mn_b = true;
  run_and_check(c, 101);
  c = Case{};
  c.a_regs = true, c.a = c.b = &kTF32, c.swz_b = 32;
  run_and_check(c, 102);
  c = Case{};
  c.a_regs = true, c.a = &kE4M3, c.b = &kE5M2, c.d = "f16", c.n = 128;
  run_and_check(c, 103);
  c = Case{};
  c.a_regs = true, c.a = &kS8, c.b = &kU8, c.d = "s32", c.n = 256, c.swz_b = 64;
  run_and_check(c, 104);
}

TEST(EmuWgmma, ScaleDChoosesBetweenAccumulateAndOverwrite) {
  for (int scale_d : {0, 1})
    for (bool imm : {false, true}) {
      SCOPED_TRACE(fmt::format("scale-d {}{}", scale_d, imm ? " (immediate)" : ""));
      Case c;
      c.scale_d = scale_d, c.scale_d_imm = imm;
      c.swz_a = c.swz_b = 64;
      run_and_check(c, 110);
      c.a = c.b = &kS8, c.d = "s32";
      run_and_check(c, 111);
    }
}

TEST(EmuWgmma, ImmScaleNegatesAOrB) {
  for (int sa : {1, -1})
    for (int sb : {1, -1}) {
      Case c;
      c.scale_a = sa, c.scale_b = sb;
      c.swz_a = 32, c.swz_b = 0;
      run_and_check(c, 120);
      c.a_regs = true, c.a = c.b = &kE5M2;
      run_and_check(c, 121);
    }
}

// A K loop: 8 wgmma (K = 128) between one fence and one commit/wait, the first overwriting
// D (scale-d false), the rest accumulating; the 128-byte swizzle rows hold 4 steps each.
TEST(EmuWgmma, KLoopAccumulatesAcrossSteps) {
  Case c;
  c.swz_a = c.swz_b = 128;
  c.ksteps = 8;
  c.scale_d = 0;
  run_and_check(c, 130);
  c.swz_a = 0, c.swz_b = 32, c.mn_b = true;
  run_and_check(c, 131);
}

TEST(EmuWgmma, TwoWarpgroupsEachComputeTheirTile) {
  Case c;
  c.warpgroups = 2;
  c.swz_a = c.swz_b = 128;
  run_and_check(c, 140);
  c.a_regs = true;  // each warpgroup's registers hold their own A
  run_and_check(c, 141);
}

// f16 values that are not small halves: f32 accumulation at a tight tolerance.
TEST(EmuWgmma, RandomF16WithF32Accumulation) {
  Case c;
  c.n = 128;
  c.swz_a = c.swz_b = 128;
  c.ksteps = 4;
  Inputs in = make_inputs(c, 150);
  std::mt19937 g(151);
  std::uniform_real_distribution<double> u(-4, 4);
  auto round_f16 = [](double x) {  // to a nearby f16 (10 mantissa bits), exact by construction
    if (x == 0) return 0.0;
    const int e = std::ilogb(x);
    return std::ldexp(std::round(std::ldexp(x, 10 - e)), e - 10);
  };
  for (size_t i = 0; i < in.a.size(); ++i) in.a_code[i] = encode(kF16, in.a[i] = round_f16(u(g)));
  for (size_t i = 0; i < in.b.size(); ++i) in.b_code[i] = encode(kF16, in.b[i] = round_f16(u(g)));
  const Result res = run_case(c, in);
  check(c, in, res, 1e-6);
}

// ---- sparse (wgmma.mma_async.sp) --------------------------------------------------------------------

TEST(EmuWgmma, SparseF16Bf16EverySelector) {
  for (int sel : {0, 1}) {
    Case c;
    c.sparse = true, c.selector = sel, c.n = 16;
    run_and_check(c, 500 + static_cast<uint32_t>(sel));
  }
  Case c;
  c.sparse = true, c.selector = 1, c.a = c.b = &kBF16, c.n = 8, c.swz_a = 128, c.swz_b = 128, c.ksteps = 2;
  run_and_check(c, 502);
  Case h;  // f16 D, both operands MN-major, 64-byte swizzle
  h.sparse = true, h.d = "f16", h.n = 16, h.mn_a = h.mn_b = true, h.swz_a = 64, h.swz_b = 64;
  run_and_check(h, 503);
}

TEST(EmuWgmma, SparseAFromRegisters) {
  Case c;
  c.sparse = true, c.selector = 1, c.a_regs = true, c.n = 8, c.scale_a = -1;
  run_and_check(c, 504);
  Case i;
  i.sparse = true, i.a = &kS8, i.b = &kU8, i.d = "s32", i.a_regs = true, i.n = 16, i.satfinite = true;
  run_and_check(i, 505);
}

TEST(EmuWgmma, SparseTf32Fp8Int8) {
  for (int sel : {0, 1}) {
    Case t;  // 1:2: one element of each pair
    t.sparse = true, t.selector = sel, t.a = t.b = &kTF32, t.n = 8, t.swz_b = 64;
    run_and_check(t, 506 + static_cast<uint32_t>(sel));
  }
  Case f;
  f.sparse = true, f.a = &kE4M3, f.b = &kE5M2, f.d = "f16", f.n = 8, f.swz_b = 128;
  run_and_check(f, 508);
  Case i;
  i.sparse = true, i.a = &kU8, i.b = &kS8, i.d = "s32", i.n = 24;
  run_and_check(i, 509);
}

// tests/emu/kernels/wgmma_sparse.ptx (emu-vs-gpu compares it with a GPU): an f16 and an s8 sparse
// product from one shared-memory image laid out as its comment says, checked against the reference.
TEST(EmuWgmma, SparseKernelForTheGpuComparison) {
  const std::string text = ptx::test::emu_kernel("wgmma_sparse.ptx");
  if (have_ptxas()) {
    const auto p = run_ptxas(text, "sm_90a");
    EXPECT_TRUE(p.ok) << p.log;
  }
  Case cf, ci;
  cf.sparse = true, cf.selector = 1, cf.n = 8, cf.scale_d = 0;
  ci.sparse = true, ci.a = &kS8, ci.b = &kS8, ci.d = "s32", ci.n = 8, ci.scale_d = 0;
  const Inputs f = make_inputs(cf, 512), i = make_inputs(ci, 513);
  std::vector<uint8_t> img(5120, 0);
  const Placement places[] = {{64, 16, 16, 0, false, false, 0}, {8, 32, 16, 0, false, false, 2048}, {64, 32, 8, 0, false, false, 2560},
                              {8, 64, 8, 0, false, false, 4608}};
  const std::vector<uint32_t>* codes[] = {&f.a_code, &f.b_code, &i.a_code, &i.b_code};
  for (int p = 0; p < 4; ++p)
    for (unsigned r = 0; r < places[p].mn; ++r)
      for (unsigned k = 0; k < places[p].kt; ++k) places[p].put(img, r, k, (*codes[p])[r * places[p].kt + k]);
  std::vector<uint32_t> meta(256);
  for (unsigned t = 0; t < 128; ++t) meta[2 * t] = f.meta[t], meta[2 * t + 1] = i.meta[t];
  EmuRun r;
  r.buffer(img, "img");
  r.buffer(meta, "meta");
  const uint64_t out = r.buffer(std::vector<uint32_t>(128 * 8), "out");
  r.launch(text, "wgmma_sparse", {1, 1, 1}, {128, 1, 1});
  const auto got = r.read<uint32_t>(out, 128 * 8);
  Result rf, ri;
  for (unsigned t = 0; t < 128; ++t)
    for (unsigned j = 0; j < 4; ++j) rf.d.push_back(got[8 * t + j]), ri.d.push_back(got[8 * t + 4 + j]);
  check(cf, f, rf);
  check(ci, i, ri);
}

// Metadata the ISA leaves undefined (the same index twice) names the warp, the lane and the row.
TEST(EmuWgmma, SparseInvalidMetadataIsReported) {
  Case c;
  c.sparse = true, c.selector = 1, c.n = 8;
  Inputs in = make_inputs(c, 510);
  in.meta[32 * 2 + 4 * 3 + 2] = (in.meta[32 * 2 + 4 * 3 + 2] & ~0xFu) | 0xA;  // warp 2, lane 14: rows 35 and 43, chunk 0
  std::string error;
  run_case(c, in, &error);
  EXPECT_NE(error.find("the sparsity metadata of lane 14 (e = "), std::string::npos) << error;
  EXPECT_NE(error.find("bits 0-3 = 0b1010 for row 35, columns 0-3: the same index twice"), std::string::npos) << error;
  EXPECT_NE(error.find("(warp 2 of the warpgroup)"), std::string::npos) << error;
}

// B K-major with the 32-byte swizzle: a sparse step's 64 bytes of K span two atoms (reported).
TEST(EmuWgmma, SparseBWithThe32ByteSwizzleIsReported) {
  Case c;
  c.sparse = true, c.n = 8, c.swz_b = 32;
  std::string error;
  run_case(c, make_inputs(c, 511), &error);
  EXPECT_NE(error.find("B K-major with the 32-byte swizzle"), std::string::npos) << error;
}

// ---- errors ----------------------------------------------------------------------------------------

TEST(EmuWgmma, DescriptorOutsideSharedMemoryIsReported) {
  Case c;
  c.swz_a = c.swz_b = 128;
  const unsigned R = d_regs(c);
  const std::string ptx = wgmma_ptx(c, 8192);
  EmuRun r;
  r.buffer(std::vector<uint8_t>(8192, 0), "img");
  r.scalar(uint32_t{8192});
  // A at the start of the 8 KB buffer; B's start 200 KB on, past the end of shared memory
  const uint64_t layout = uint64_t{1} << 16 | uint64_t{1024 / 16} << 32 | uint64_t{1} << 62;
  r.buffer(std::vector<uint64_t>{layout, layout | 200u * 1024 / 16}, "desc");
  r.buffer(std::vector<uint32_t>(4), "afrag");
  r.buffer(std::vector<uint32_t>(128 * R), "c");
  r.buffer(std::vector<uint32_t>(128 * R), "d");
  std::string error;
  try {
    r.launch(ptx, "wg", {1, 1, 1}, {128, 1, 1});
  } catch (const ptx::emu::Error& e) {
    error = e.what();
  }
  EXPECT_NE(error.find("wgmma.mma_async.sync.aligned.m64n64k16.f32.f16.f16"), std::string::npos) << error;
  EXPECT_NE(error.find("16-byte load at shared+204800: out of bounds (the CTA has 8192 bytes)"), std::string::npos) << error;
  if (have_ptxas()) {
    EXPECT_TRUE(run_ptxas(ptx, "sm_90a").ok);
  }
}

TEST(EmuWgmma, PartialWarpgroupIsReported) {
  Case c;
  const std::string ptx = wgmma_ptx(c, 16384);
  EmuRun r;
  r.buffer(std::vector<uint8_t>(16384, 1), "img");
  r.scalar(uint32_t{16384});
  r.buffer(std::vector<uint64_t>{0, 0}, "desc");
  r.buffer(std::vector<uint32_t>(4), "afrag");
  r.buffer(std::vector<uint32_t>(64 * 32), "c");
  r.buffer(std::vector<uint32_t>(64 * 32), "d");
  try {
    r.launch(ptx, "wg", {1, 1, 1}, {64, 1, 1});
    ADD_FAILURE() << "no report";
  } catch (const ptx::emu::Error& e) {
    EXPECT_NE(std::string(e.what()).find("needs a whole warpgroup (4 warps); the CTA has 64 threads"), std::string::npos) << e.what();
  }
}

TEST(EmuWgmma, DescriptorsDifferingBetweenLanesAreReported) {
  Case c;
  const unsigned R = d_regs(c);
  std::string ptx = wgmma_ptx(c, 16384);
  const std::string uniform = "\tadd.s64 %rd15, %rd15, %rd10;\n";
  ptx.replace(ptx.find(uniform), uniform.size(), "\tadd.s64 %rd15, %rd15, %rd7;\n");  // + tid * 4R: per lane
  EmuRun r;
  r.buffer(std::vector<uint8_t>(16384, 0), "img");
  r.scalar(uint32_t{16384});
  r.buffer(std::vector<uint64_t>{0, 0}, "desc");
  r.buffer(std::vector<uint32_t>(4), "afrag");
  r.buffer(std::vector<uint32_t>(128 * R), "c");
  r.buffer(std::vector<uint32_t>(128 * R), "d");
  try {
    r.launch(ptx, "wg", {1, 1, 1}, {128, 1, 1});
    ADD_FAILURE() << "no report";
  } catch (const ptx::emu::Error& e) {
    EXPECT_NE(std::string(e.what()).find("the B descriptor differs between lanes 0 and 1 of the warp"), std::string::npos) << e.what();
  }
}

// Decoding: unsupported and malformed wgmma instructions are reported with their text and line.
std::string decode_error(const std::string& instruction) {
  const std::string text = R"(.version 8.4
.target sm_90a
.address_size 64
.visible .entry k()
{
	.reg .f32 %f<8>;
	.reg .b32 %r<8>;
	.reg .b64 %rd<4>;
	.reg .pred %p<2>;
)" + instruction + R"(
	ret;
}
)";
  auto parsed = ptx::text::parse(text, {"wg.ptx"});
  if (!parsed) return "parse error: " + parsed.error().format();
  try {
    ptx::emu::Emulator::parameter_sizes(parsed.module(), "k");
  } catch (const ptx::emu::Error& e) {
    return e.what();
  }
  return "";
}

TEST(EmuWgmma, SparseMalformedFormsAreReported) {
  struct Bad {
    const char* text;
    const char* says;
  } cases[] = {
      {"wgmma.mma_async.sp.sync.aligned.m64n8k32.f32.f16.f16 {%f0, %f1, %f2, %f3}, %rd1, %rd2, %r1, 2, %p1, 1, 1, 0, 0;",
       "sp-sel of wgmma.mma_async.sp.f32.f16.f16 must be an immediate below 2"},
      {"wgmma.mma_async.sp.sync.aligned.m64n8k64.s32.s8.s8 {%r0, %r1, %r2, %r3}, %rd1, %rd2, %r1, 1, 1;",
       "sp-sel of wgmma.mma_async.sp.s32.s8.s8 must be an immediate below 1"},
      {"wgmma.mma_async.sp.sync.aligned.m64n8k32.f32.f16.f16 {%f0, %f1, %f2, %f3}, %rd1, %rd2, %rd3, 0, %p1, 1, 1, 0, 0;",
       "sp-meta of wgmma.mma_async.sp must be a 32-bit register or an immediate"},
      {"wgmma.mma_async.sp.sync.aligned.m64n8k32.f32.f16.f16 {%f0, %f1, %f2, %f3}, %rd1, %rd2, %p1, 1, 1, 0, 0;",
       "with 8 operands; this form has 10 (d, a, b-desc, sp-meta, sp-sel, scale-d, ...)"},
      {"wgmma.mma_async.sp.sync.aligned.m64n8k16.f32.f16.f16 {%f0, %f1, %f2, %f3}, %rd1, %rd2, %r1, 0, %p1, 1, 1, 0, 0;",
       "wgmma.mma_async.sp.m64n8k16.f32.f16.f16: not a shape of the ISA (m64nNk32 with these types)"},
      {"wgmma.mma_async.sp.sync.aligned.m64n8k16.f32.tf32.tf32 {%f0, %f1, %f2, %f3}, {%r0, %r1, %r2}, %rd2, %r1, 0, %p1, 1, 1;",
       "a of wgmma.mma_async.sp.f32.tf32.tf32 must be 4 registers"},
  };
  for (const Bad& b : cases) {
    const std::string e = decode_error(std::string("\t") + b.text);
    EXPECT_NE(e.find(b.says), std::string::npos) << b.text << "\n" << e;
  }
}

TEST(EmuWgmma, MalformedFormsAreReported) {
  struct Bad {
    const char* text;
    const char* says;
  } cases[] = {
      {"wgmma.mma_async.sync.aligned.m64n8k16.f32.f16.f16 {%f0, %f1, %f2, %f3}, %rd1, %rd2, %p1, 1, 1, 0;", "with 7 operands; this form has 8"},
      {"wgmma.mma_async.sync.aligned.m64n8k16.f32.f16.f16 {%f0, %f1, %f2}, %rd1, %rd2, %p1, 1, 1, 0, 0;", "d of wgmma.mma_async.f32.f16.f16 must be 4 registers"},
      {"wgmma.mma_async.sync.aligned.m64n40k32.s32.s8.s8 {%r0, %r1, %r2, %r3}, %rd1, %rd2, 1;", "not a shape of the ISA"},
      {"wgmma.mma_async.sync.aligned.m64n8k16.f32.f16.bf16 {%f0, %f1, %f2, %f3}, %rd1, %rd2, 1, 1, 1, 0, 0;", "not a type combination"},
      {"wgmma.mma_async.sync.aligned.m64n8k16.f32.f16.f16 {%f0, %f1, %f2, %f3}, %rd1, %rd2, %p1, 2, 1, 0, 0;", "imm-scale-a of wgmma.mma_async must be the immediate -1 or 1"},
      {"wgmma.mma_async.sync.aligned.m64n8k16.f32.f16.f16 {%f0, %f1, %f2, %f3}, %r1, %rd2, %p1, 1, 1, 0, 0;", "a-desc of wgmma.mma_async must be a 64-bit register"},
      {"wgmma.mma_async.sync.aligned.m64n8k16.f32.f16.f16 {%f0, %f1, %f2, _}, %rd1, %rd2, %p1, 1, 1, 0, 0;", "must be 32-bit registers"},
      {"wgmma.mma_async.sync.aligned.m64n8k16.f32.f16.f16 {%f0, %f1, %f2, %f3}, %rd1, %rd2, %r1, 1, 1, 0, 0;", "scale-d of wgmma.mma_async must be a predicate"},
      {"wgmma.mma_async.sync.aligned.m64n8k256.s32.b1.b1 {%r0, %r1, %r2, %r3}, %rd1, %rd2, 1;", "needs .and.popc"},
      {"wgmma.mma_async.sync.aligned.m64n99999999999k16.f32.f16.f16 {%f0, %f1, %f2, %f3}, %rd1, %rd2, 1, 1, 1, 0, 0;", "modifier .m64n99999999999k16"},
      // a type of the other matrix instructions (the type table is shared): not a wgmma combination
      {"wgmma.mma_async.sync.aligned.m64n8k16.f64.f16.f16 {%f0, %f1, %f2, %f3}, %rd1, %rd2, 1, 1, 1, 0, 0;", "wgmma.mma_async.f64.f16.f16 is not a type combination"},
  };
  for (const Bad& b : cases) {
    const std::string e = decode_error(std::string("\t") + b.text);
    EXPECT_NE(e.find(b.says), std::string::npos) << b.text << "\n" << e;
    EXPECT_NE(e.find("wg.ptx:10"), std::string::npos) << e;
  }
}

}  // namespace
