// tcgen05 (sm_100a) on the emulator. Each test writes a kernel as PTX text. Tensor memory
// tests store known values with tcgen05.st and read them back with another shape; mma tests
// copy a shared-memory image of A and B (laid out here per the canonical layouts the
// descriptors describe), run tcgen05.mma from one thread, wait for tcgen05.commit's mbarrier
// arrival, read every tensor memory lane back with tcgen05.ld.32x32b and compare with a
// product computed here, through the manual's data path layouts. Checker tests plant misuse
// and expect its report. ptxas (sm_100a) checks every well-formed module.
#include <gtest/gtest.h>

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstring>
#include <map>
#include <random>
#include <set>
#include <tuple>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "../unit/ptxas_util.hpp"
#include "emu_test_util.hpp"

namespace {

using ptx::test::EmuRun;
using ptx::test::have_ptxas;
using ptx::test::run_ptxas;

// ptxas (sm_100a) accepts the module; each distinct text is assembled once (cases that differ
// only in their data share a kernel).
void expect_assembles(const std::string& ptx, const char* arch = "sm_100a") {
  static std::set<std::string> assembled;
  if (!have_ptxas() || !assembled.insert(ptx).second) return;
  const auto r = run_ptxas(ptx, arch);
  EXPECT_TRUE(r.ok) << r.log;
}

// A kernel of `threads` threads with registers and a shared slot for the tensor memory address.
std::string module(const std::string& params, const std::string& body, size_t smem = 16, const std::string& directives = "",
                   const char* version = "8.6") {
  return fmt::format(R"(.version {}
.target sm_100a
.address_size 64

.visible .entry k({}){}
{{
	.reg .b32 %r<64>;
	.reg .b32 %t<8>;
	.reg .b32 %v<260>;
	.reg .b64 %rd<32>;
	.reg .pred %p<8>;
	.reg .b16 %rs<4>;
	.shared .align 1024 .b8 smem[{}];
	.shared .align 8 .b64 mbar;
	.shared .align 4 .b32 tslot;
	mov.u32 %r1, %tid.x;
	shr.u32 %r2, %r1, 5;
	and.b32 %r3, %r1, 31;
	setp.eq.u32 %p1, %r2, 0;
{}
	ret;
}}
)",
                     version, params, directives, smem, body);
}

// Warp 0 allocates `cols` columns (taddr in %t0 for every thread after the barrier).
std::string alloc(unsigned cols, unsigned group = 1) {
  return fmt::format(R"(	@!%p1 bra $allocated;
	tcgen05.alloc.cta_group::{1}.sync.aligned.shared::cta.b32 [tslot], {0};
	tcgen05.relinquish_alloc_permit.cta_group::{1}.sync.aligned;
$allocated:
	bar.sync 0;
	tcgen05.fence::after_thread_sync;
	ld.shared.b32 %t0, [tslot];
)",
                     cols, group);
}
std::string dealloc(unsigned cols, unsigned group = 1) {
  return fmt::format(R"(	tcgen05.fence::before_thread_sync;
	bar.sync 0;
	@!%p1 bra $freed;
	tcgen05.dealloc.cta_group::{1}.sync.aligned.b32 %t0, {0};
$freed:
)",
                     cols, group);
}

std::string regs(const char* prefix, unsigned first, unsigned n) {
  std::string s = "{";
  for (unsigned i = 0; i < n; ++i) s += fmt::format("{}%{}{}", i ? ", " : "", prefix, first + i);
  return s + "}";
}

// Unvalidated: the malformed forms below are for the emulator's own reports (by default the
// validator refuses them first).
std::string run_error(const std::string& ptx, unsigned threads, std::vector<uint32_t> out = std::vector<uint32_t>(16, 0)) {
  ptx::emu::Options unvalidated;
  unvalidated.validate = false;
  EmuRun r{ptx::emu::Emulator(unvalidated), {}};
  r.buffer(out, "out");
  try {
    r.launch(ptx, "k", {1, 1, 1}, {threads, 1, 1});
  } catch (const ptx::emu::Error& e) {
    return e.what();
  }
  return "";
}

// ---- tcgen05.ld / tcgen05.st shapes ---------------------------------------------------------------

// The (lane, column) offsets of register r of thread l per the manual's figures (9.7.16.2.3):
// .32x32b: thread l lane l, register r column r; .16x64b: lane l/4 + 8 (l%2), column (l/2)%2 + 2r;
// .16x128b: lane l/4 + 8 (r%2), column l%4 + 4 (r/2); .16x256b: lane l/4 + 8 ((r/2)%2), column
// r%2 + 2 (l%4) + 8 (r/4); .16x32bx2: lane l%16, column r (+ the split offset for l >= 16).
struct ShapeCase {
  const char* name;
  unsigned regs_per_rep;
};
std::pair<unsigned, unsigned> position(const std::string& shape, unsigned l, unsigned r, unsigned split) {
  if (shape == "16x64b") return {l / 4 + 8 * (l % 2), l / 2 % 2 + 2 * r};
  if (shape == "16x128b") return {l / 4 + 8 * (r % 2), l % 4 + 4 * (r / 2)};
  if (shape == "16x256b") return {l / 4 + 8 * (r / 2 % 2), r % 2 + 2 * (l % 4) + 8 * (r / 4)};
  if (shape == "16x32bx2") return {l % 16, r + (l / 16) * split};
  return {l, r};
}

// Every warp fills its 32 lanes, columns 0-63, with lane << 16 | column (tcgen05.st.32x32b.x64),
// then loads with `shape`.xN (pack: .pack::16b) from column `col`; out[thread][register].
std::vector<uint32_t> load_shape(const std::string& shape, unsigned num, unsigned per_rep, bool pack, unsigned col, unsigned split) {
  const unsigned R = num * per_rep;
  std::string body = alloc(64);
  body += "\tshl.b32 %r4, %r2, 21;\n\tadd.u32 %t1, %t0, %r4;\n\tshl.b32 %r5, %r1, 16;\n";  // lane base of the warp; tid << 16
  for (unsigned i = 0; i < 64; ++i) body += fmt::format("\tor.b32 %v{}, %r5, {};\n", i, i);
  body += fmt::format("\ttcgen05.st.sync.aligned.32x32b.x64.b32 [%t1], {};\n\ttcgen05.wait::st.sync.aligned;\n", regs("v", 0, 64));
  body += fmt::format("\ttcgen05.ld.sync.aligned.{}.x{}{}.b32 {}, [%t1+{}]{};\n\ttcgen05.wait::ld.sync.aligned;\n", shape, num, pack ? ".pack::16b" : "",
                      regs("v", 100, R), col, shape == "16x32bx2" ? fmt::format(", {}", split) : "");
  body += fmt::format("\tld.param.u64 %rd1, [p_out];\n\tmul.wide.u32 %rd2, %r1, {};\n\tadd.s64 %rd1, %rd1, %rd2;\n", 4 * R);
  for (unsigned r = 0; r < R; ++r) body += fmt::format("\tst.global.b32 [%rd1+{}], %v{};\n", 4 * r, 100 + r);
  body += dealloc(64);
  const std::string ptx = module(".param .u64 p_out", body);
  expect_assembles(ptx);
  EmuRun run;
  const uint64_t out = run.buffer(std::vector<uint32_t>(128 * R, 0xDEADBEEF), "out");
  run.launch(ptx, "k", {1, 1, 1}, {128, 1, 1});
  return run.read<uint32_t>(out, 128 * R);
}

TEST(EmuTcgen05, LoadShapesReadTheManualsFragments) {
  struct Case {
    const char* shape;
    unsigned num, per_rep, col, split;
    bool pack;
  };
  const Case cases[] = {{"32x32b", 4, 1, 0, 0, false}, {"32x32b", 2, 1, 5, 0, false}, {"16x64b", 4, 1, 0, 0, false},
                        {"16x128b", 2, 2, 8, 0, false}, {"16x256b", 2, 4, 0, 0, false}, {"16x32bx2", 4, 1, 0, 32, false},
                        {"32x32b", 4, 1, 0, 0, true}, {"16x256b", 1, 4, 16, 0, true}};
  for (const Case& c : cases) {
    SCOPED_TRACE(fmt::format("{}.x{}{} at column {}", c.shape, c.num, c.pack ? ".pack::16b" : "", c.col));
    const std::vector<uint32_t> out = load_shape(c.shape, c.num, c.per_rep, c.pack, c.col, c.split);
    const unsigned R = c.num * c.per_rep;
    for (unsigned t = 0; t < 128; ++t)
      for (unsigned r = 0; r < R; ++r) {
        const auto [dl, dc] = position(c.shape, t % 32, r, c.split);
        const uint32_t lane = 32 * (t / 32) + dl;
        uint32_t want;
        if (c.pack) want = (c.col + 2 * dc) | (c.col + 2 * dc + 1) << 16;  // the low halves of two columns
        else want = lane << 16 | (c.col + dc);
        ASSERT_EQ(out[t * R + r], want) << "thread " << t << " register " << r;
      }
  }
}

// tcgen05.st with each shape, read back with .32x32b: every cell the store wrote.
TEST(EmuTcgen05, StoreShapesWriteTheManualsFragments) {
  for (const char* shape : {"16x64b", "16x128b", "16x256b", "16x32bx2", "32x32b"}) {
    SCOPED_TRACE(shape);
    const std::string s = shape;
    const unsigned per = s == "16x128b" ? 2 : s == "16x256b" ? 4 : 1, num = 2, R = num * per, split = 8;
    std::string body = alloc(32);
    body += "\tshl.b32 %r4, %r2, 21;\n\tadd.u32 %t1, %t0, %r4;\n\tshl.b32 %r5, %r1, 8;\n\tmov.u32 %r6, 0;\n";
    // clear 16 columns, then store the shape's registers: thread << 8 | register
    std::string zeros = "{%r6";
    for (int i = 1; i < 16; ++i) zeros += ", %r6";
    body += fmt::format("\ttcgen05.st.sync.aligned.32x32b.x16.b32 [%t1], {}}};\n", zeros);
    for (unsigned r = 0; r < R; ++r) body += fmt::format("\tor.b32 %v{}, %r5, {};\n", r, r);
    body += fmt::format("\ttcgen05.st.sync.aligned.{}.x{}.b32 [%t1], {}{};\n\ttcgen05.wait::st.sync.aligned;\n", shape, num,
                        s == "16x32bx2" ? fmt::format("{}, ", split) : "", regs("v", 0, R));
    body += fmt::format("\ttcgen05.ld.sync.aligned.32x32b.x16.b32 {}, [%t1];\n\ttcgen05.wait::ld.sync.aligned;\n", regs("v", 100, 16));
    body += "\tld.param.u64 %rd1, [p_out];\n\tmul.wide.u32 %rd2, %r1, 64;\n\tadd.s64 %rd1, %rd1, %rd2;\n";
    for (unsigned c = 0; c < 16; ++c) body += fmt::format("\tst.global.b32 [%rd1+{}], %v{};\n", 4 * c, 100 + c);
    body += dealloc(32);
    const std::string ptx = module(".param .u64 p_out", body);
    expect_assembles(ptx);
    EmuRun run;
    const uint64_t out = run.buffer(std::vector<uint32_t>(128 * 16, 0xDEADBEEF), "out");
    run.launch(ptx, "k", {1, 1, 1}, {128, 1, 1});
    const std::vector<uint32_t> got = run.read<uint32_t>(out, 128 * 16);
    std::vector<uint32_t> want(128 * 16, 0);
    for (unsigned t = 0; t < 128; ++t)
      for (unsigned r = 0; r < R; ++r) {
        const auto [dl, dc] = position(s, t % 32, r, split);
        want[(32 * (t / 32) + dl) * 16 + dc] = t << 8 | r;
      }
    for (unsigned i = 0; i < want.size(); ++i) ASSERT_EQ(got[i], want[i]) << "lane " << i / 16 << " column " << i % 16;
  }
}

// tcgen05.st.unpack::16b: each register's halves to the low halves of two adjacent columns.
TEST(EmuTcgen05, UnpackStoresHalvesInAdjacentColumns) {
  std::string body = alloc(32);
  body += "\tshl.b32 %r4, %r2, 21;\n\tadd.u32 %t1, %t0, %r4;\n\tmov.u32 %v0, 0x00020001;\n\tmov.u32 %v1, 0x00040003;\n";
  body += "\ttcgen05.st.sync.aligned.32x32b.x2.unpack::16b.b32 [%t1], {%v0, %v1};\n\ttcgen05.wait::st.sync.aligned;\n";
  body += fmt::format("\ttcgen05.ld.sync.aligned.32x32b.x4.b32 {}, [%t1];\n\ttcgen05.wait::ld.sync.aligned;\n", regs("v", 10, 4));
  body += "\tld.param.u64 %rd1, [p_out];\n\tmul.wide.u32 %rd2, %r1, 16;\n\tadd.s64 %rd1, %rd1, %rd2;\n";
  for (unsigned c = 0; c < 4; ++c) body += fmt::format("\tst.global.b32 [%rd1+{}], %v{};\n", 4 * c, 10 + c);
  body += dealloc(32);
  const std::string ptx = module(".param .u64 p_out", body);
  expect_assembles(ptx);
  EmuRun run;
  const uint64_t out = run.buffer(std::vector<uint32_t>(128 * 4, 0xDEADBEEF), "out");
  run.launch(ptx, "k", {1, 1, 1}, {128, 1, 1});
  const std::vector<uint32_t> got = run.read<uint32_t>(out, 128 * 4);
  for (unsigned t = 0; t < 128; ++t)
    for (unsigned c = 0; c < 4; ++c) ASSERT_EQ(got[t * 4 + c], c + 1) << t;
}

// The allocated address lands in shared memory; two allocations are disjoint; after a
// dealloc the columns can be allocated again.
TEST(EmuTcgen05, AllocWritesTheAddressToSharedMemory) {
  const std::string body = R"(	@!%p1 bra $done;
	tcgen05.alloc.cta_group::1.sync.aligned.shared::cta.b32 [tslot], 128;
	ld.shared.b32 %r10, [tslot];
	tcgen05.alloc.cta_group::1.sync.aligned.shared::cta.b32 [tslot], 256;
	ld.shared.b32 %r11, [tslot];
	tcgen05.dealloc.cta_group::1.sync.aligned.b32 %r10, 128;
	tcgen05.alloc.cta_group::1.sync.aligned.shared::cta.b32 [tslot], 64;
	ld.shared.b32 %r12, [tslot];
	tcgen05.dealloc.cta_group::1.sync.aligned.b32 %r11, 256;
	tcgen05.dealloc.cta_group::1.sync.aligned.b32 %r12, 64;
	ld.param.u64 %rd1, [p_out];
	setp.eq.u32 %p2, %r3, 0;
	@%p2 st.global.v4.b32 [%rd1], {%r10, %r11, %r12, %r12};
$done:
)";
  const std::string ptx = module(".param .u64 p_out", body);
  expect_assembles(ptx);
  EmuRun run;
  const uint64_t out = run.buffer(std::vector<uint32_t>(4, 0xDEADBEEF), "out");
  run.launch(ptx, "k", {1, 1, 1}, {64, 1, 1});
  const std::vector<uint32_t> got = run.read<uint32_t>(out, 4);
  EXPECT_EQ(got[1] >> 16, 0u);  // lane 0
  EXPECT_EQ(got[0] & 0xFFFF, 0u);
  EXPECT_GE(got[1] & 0xFFFF, 128u);  // disjoint from the first
  EXPECT_EQ((got[1] & 0xFFFF) % 256, 0u);
  EXPECT_LT(got[2] & 0xFFFF, 128u);  // reuses the freed range
}

// ---- tcgen05.mma ---------------------------------------------------------------------------------

// Element formats: the code of the instruction descriptor's A/B type field, and for floats the
// mantissa and exponent bits (the 6- and 4-bit types sit in the low bits of a byte).
struct Fmt {
  const char* name;
  unsigned bits;  // in memory
  unsigned code;
  int man = 0, exp = 0;
  bool is_signed = false;
};
const Fmt kF16{"f16", 16, 0, 10, 5}, kBF16{"bf16", 16, 1, 7, 8}, kTF32{"tf32", 32, 2, 10, 8}, kE4M3{"e4m3", 8, 0, 3, 4},
    kE5M2{"e5m2", 8, 1, 2, 5}, kE2M3{"e2m3", 8, 3, 3, 2}, kE3M2{"e3m2", 8, 4, 2, 3}, kE2M1{"e2m1", 8, 5, 1, 2}, kU8{"u8", 8, 0},
    kS8{"s8", 8, 1, 0, 0, true};
// e2m1 of .kind::mxf4/mxf4nvf4: two per byte (the low nibble first), type code 1 (Table 47)
const Fmt kE2M1x2{"e2m1x2", 4, 1, 1, 2};

bool is_float(const Fmt& f) { return f.man != 0; }

// The value of a code of a float format (finite codes only are searched, so NaN/inf do not matter).
double float_value(const Fmt& f, uint32_t code) {
  const uint32_t e = code >> f.man & ((1u << f.exp) - 1), m = code & ((1u << f.man) - 1);
  const int bias = (1 << (f.exp - 1)) - 1;
  const double mag = e == 0 ? std::ldexp(m, 1 - bias - f.man) : std::ldexp(1.0 + std::ldexp(m, -f.man), static_cast<int>(e) - bias);
  return code >> (f.man + f.exp) & 1 ? -mag : mag;
}

uint32_t encode(const Fmt& f, double v) {
  if (!is_float(f)) return static_cast<uint32_t>(static_cast<int64_t>(v)) & 0xFFu;
  if (f.bits == 32) return std::bit_cast<uint32_t>(static_cast<float>(v));
  static std::map<std::pair<const Fmt*, double>, uint32_t> found;  // the search is slow for 16-bit formats
  if (auto it = found.find({&f, v}); it != found.end()) return it->second;
  for (uint32_t code = 0; code < (1u << (1 + f.man + f.exp)); ++code)
    if (float_value(f, code) == v) return found[{&f, v}] = code;
  ADD_FAILURE() << v << " is not exact in " << f.name;
  return 0;
}

double f16_value(uint32_t bits) { return float_value(kF16, bits & 0xFFFF); }

double pick(std::mt19937& g, const Fmt& f) {
  if (&f == &kS8) return static_cast<double>(static_cast<int8_t>(g()));
  if (&f == &kU8) return static_cast<double>(g() & 255);
  static const double kValues[] = {0, 0.5, -0.5, 1, -1, 1.5, -1.5, 2, -2, 3, -3};  // exact in every float format here
  return kValues[g() % std::size(kValues)];
}

// cute's Swizzle<B,4,3> on a byte address: bits [7, 7 + B) XORed into bits [4, 4 + B).
uint64_t swizzle(uint64_t addr, unsigned swz_bytes) {
  const unsigned b = swz_bytes == 128 ? 3 : swz_bytes == 64 ? 2 : swz_bytes == 32 ? 1 : 0;
  return addr ^ ((addr >> 3) & (((1u << b) - 1) << 4));
}

// One operand (MN x Kt elements, K 32 bytes per step) in shared memory at `base`, in the
// canonical layouts: where each element goes, and the tcgen05 descriptor of each K step.
struct Placement {
  unsigned mn, kt, ebits, swz;
  bool mn_major;
  uint64_t base, lbo = 0, sbo = 0;
  unsigned step_bytes = 32;  // K bytes per step (the B of tcgen05.mma.sp: 64)

  Placement(unsigned mn_, unsigned kt_, unsigned ebits_, unsigned swz_, bool mn_major_, uint64_t base_)
      : mn(mn_), kt(kt_), ebits(ebits_), swz(swz_), mn_major(mn_major_), base(base_) {
    const uint64_t k_bytes = uint64_t{kt} * ebits / 8;
    if (!mn_major) {
      if (swz) lbo = 16, sbo = 8 * swz;  // atoms of 8 rows x swz bytes; MN groups at SBO
      else lbo = 128, sbo = 128 * (k_bytes / 16);  // core matrices 8 x 16 bytes: K chunks at LBO
    } else if (swz) {
      sbo = 8 * swz;  // atoms of 8 K rows x swz bytes of MN; K groups at SBO, atoms along MN at LBO
      lbo = sbo * (kt / 8);
    } else {
      lbo = 128;  // core matrices of 8 K rows x 16 bytes of MN: K groups at LBO, MN chunks at SBO
      sbo = 128 * (kt / 8);
    }
  }
  uint64_t address(unsigned i, unsigned k) const {
    if (!mn_major) {
      const uint64_t kb = uint64_t{k} * ebits / 8;
      const uint64_t a = swz ? base + kb / swz * (uint64_t{mn} / 8 * sbo) + i / 8 * sbo + i % 8 * swz + kb % swz
                             : base + i / 8 * sbo + kb / 16 * lbo + i % 8 * 16 + kb % 16;
      return swizzle(a, swz);
    }
    const unsigned t = 128 / ebits, w = swz / 16;
    const uint64_t a = swz ? base + i / (t * w) * lbo + k / 8 * sbo + k % 8 * swz + i / t % w * 16 + i % t * (ebits / 8)
                           : base + i / t * sbo + k / 8 * lbo + k % 8 * 16 + i % t * (ebits / 8);
    return swizzle(a, swz);
  }
  uint64_t bytes() const {
    uint64_t end = base;
    for (unsigned i = 0; i < mn; ++i)
      for (unsigned k = 0; k < kt; ++k) end = std::max(end, address(i, k) + ebits / 8);
    return (end - base + 15) / 16 * 16;
  }
  // Bits 46-48 hold 0b001; the swizzle mode is in bits 61-63 (2 128B, 4 64B, 6 32B).
  uint64_t descriptor(unsigned s) const {
    uint64_t start;
    if (!mn_major) {
      const uint64_t kb = uint64_t{s} * step_bytes;
      start = swz ? base + kb / swz * (uint64_t{mn} / 8 * sbo) + kb % swz : base + step_bytes / 16 * s * lbo;
    } else {
      start = base + (step_bytes * 8 / ebits / 8) * s * (swz ? sbo : lbo);  // K rows per step, in groups of 8
    }
    const uint64_t mode = swz == 128 ? 2 : swz == 64 ? 4 : swz == 32 ? 6 : 0;
    return (start >> 4 & 0x3FFF) | (lbo >> 4 & 0x3FFF) << 16 | (sbo >> 4 & 0x3FFF) << 32 | uint64_t{1} << 46 | mode << 61;
  }
  void put(std::vector<uint8_t>& img, unsigned i, unsigned k, uint32_t code) const {
    const uint64_t a = address(i, k);
    for (unsigned j = 0; j < ebits / 8; ++j) img[a + j] = static_cast<uint8_t>(code >> (8 * j));
  }
};

struct MmaCase {
  const char* kind = "f16";
  const Fmt* a = &kF16;
  const Fmt* b = &kF16;
  const char* d = "f32";  // f32, f16, s32
  unsigned m = 128, n = 64;
  unsigned swz_a = 128, swz_b = 128;
  bool mn_a = false, mn_b = false;
  unsigned ksteps = 1;
  bool accumulate = false;  // the first step's enable-input-d (later steps accumulate)
  bool a_tmem = false;      // A from tensor memory
  bool neg_a = false, neg_b = false, saturate = false;
  int scale_input_d = -1;   // none
  uint32_t extra_idesc = 0; // bits to plant (checker tests)
  uint64_t a_desc_xor = 0;  // bits to flip in A's descriptor (checker tests)
  unsigned group = 1;       // .cta_group::2: a cluster of 2 CTAs, each with half of A's rows and of B's
  bool disable_lanes = false;  // disable-output-lane: every third tensor memory lane keeps C
  // planted bugs: D read without a tcgen05.commit, or before the phase the commit arrives on completes
  bool no_commit = false, no_wait = false;
  bool commit_zext32 = false;  // Triton's commit: the mbarrier's 32-bit shared address zero-extended, no state space
  // block scaling (.kind::mxf8f6f4, mxf4, mxf4nvf4): scale factors per row (0: none), the
  // modifier that says so ("" none: .block32), ue4m3 (else ue8m0) scale factors, the IDs
  unsigned vec = 0;
  const char* vec_name = "";
  bool ue4m3 = false;
  unsigned sfa_id = 0, sfb_id = 0;
  bool sf_not_duplicated = false;  // planted bug: warp 2's copy of B's scale factors differs
  bool sf_sign = false;            // planted bug: bit 7 set in the ue4m3 scale factor of row 0 of A
  uint32_t sfa_add = 0, sfb_add = 0;  // planted bugs: added to the scale-A/scale-B tensor memory addresses
  // .ws (weight stationary): its collector modifier ("" none) and zero-column mask descriptor
  bool ws = false;
  const char* collector = "";
  bool zero_mask = false;
  uint64_t zero_mask_desc = 0;
  // tcgen05.mma.sp: A's non-zero half, its metadata in tensor memory from column kMetaColumn (a
  // 64-bit granule per K step), the sparsity selector
  bool sparse = false;
  unsigned selector = 0;
  int bad_field = -1;           // planted bug: the first metadata field of row bad_row set to this
  unsigned bad_row = 5;
  uint32_t meta_add = 0;        // planted bug: added to the [sp-meta-tmem] address
  uint32_t idesc_clear = 0;     // planted bug: instruction descriptor bits cleared
};

// Scale factors in tensor memory (9.7.16.10.7): 32 lanes x 16 columns from column 264, the same
// in each warp's quarter: row m of A at lane m % 32 of column 264 + m / 32, column n of B at
// lane n % 32 of column 272 + n / 32; the codes of a row are bytes ID, ID + 1, ... of the cell.
constexpr unsigned kSfColumn = 264, kSfWords = 16, kSfbWord = 8;
// tcgen05.mma.sp's metadata: columns 280-283, the same 32 lanes per warp as D's rows
constexpr unsigned kMetaColumn = 280, kMetaWords = 4;
double scale_value(const MmaCase& c, uint32_t code) { return c.ue4m3 ? float_value(kE4M3, code) : std::ldexp(1.0, static_cast<int>(code) - 127); }

unsigned k_step(const MmaCase& c) { return 256 / c.a->bits; }  // A's K per step as stored
unsigned dense_k(const MmaCase& c) { return k_step(c) * (c.sparse ? 2 : 1); }  // the product's K per step
// One 32-bit column per element of D, an f16 one in the low half (the unpacked layout).
unsigned d_cols(const MmaCase& c) { return c.n; }
// The tensor memory lane of row m of D (and of A in tensor memory): M = 128 lane m; M = 64 lanes
// 0-15 of each warp's quarter (data path layout F).
unsigned row_lane(const MmaCase& c, unsigned m) { return c.m == 128 ? m : 32 * (m / 16) + m % 16; }
// Sparse M = 128 of cta_group::2 (data path layout C): each CTA's 64 rows as layout F, all N columns.
bool layout_c(const MmaCase& c) { return c.group == 2 && c.sparse && c.m == 128; }
// cta_group::2: row m (of the CTA's M / 2) and column n of D in the CTA's tensor memory: M = 256
// lane m, column n; M = 128 (data path layout B) lane m + 64 (n / (N / 2)), column n % (N / 2).
std::pair<unsigned, unsigned> pair_position(const MmaCase& c, unsigned m, unsigned n) {
  if (c.m == 256) return {m, n};
  if (layout_c(c)) return {32 * (m / 16) + m % 16, n};
  return {m + 64 * (n / (c.n / 2)), n % (c.n / 2)};
}
constexpr uint32_t kDisabledLanes = 0x49249249u;  // lanes 0, 3, 6, ... of each 32

uint32_t idesc_bits(const MmaCase& c);
uint32_t idesc_of(const MmaCase& c) { return idesc_bits(c) & ~c.idesc_clear; }
uint32_t idesc_bits(const MmaCase& c) {
  if (c.vec)  // Tables 46, 47: SFB ID 4-5, scale type 23, M >> 7 at 27-28, SFA ID 29-30
    return c.extra_idesc | uint32_t{c.sparse} << 2 | c.sfb_id << 4 | c.a->code << 7 | c.b->code << 10 | uint32_t{c.neg_a} << 13 | uint32_t{c.neg_b} << 14 | uint32_t{c.mn_a} << 15 |
           uint32_t{c.mn_b} << 16 | (c.n >> 3) << 17 | uint32_t{!c.ue4m3} << 23 | (c.m >> 7) << 27 | c.sfa_id << 29;
  const std::string d = c.d;
  const uint32_t dtype = d == "f16" ? 0 : d == "f32" ? 1 : 2;
  return c.extra_idesc | c.selector | uint32_t{c.sparse} << 2 | (c.saturate ? 1u << 3 : 0u) | dtype << 4 | c.a->code << 7 | c.b->code << 10 | uint32_t{c.neg_a} << 13 | uint32_t{c.neg_b} << 14 |
         uint32_t{c.mn_a} << 15 | uint32_t{c.mn_b} << 16 | (c.n >> 3) << 17 | (c.m >> 4) << 24;
}

// The kernel: image to shared memory; C to tensor memory columns [0, DC) (and A's rows to
// columns 256-263); one thread issues the K steps and commits to the mbarrier; every thread
// waits and reads its tensor memory lane back.
std::string mma_ptx(const MmaCase& c, size_t smem_bytes) {
  const unsigned DC = d_cols(c);
  std::string body = R"(	ld.param.u64 %rd1, [p_img];
	ld.param.u32 %r6, [p_bytes];
	mov.u32 %r14, %cluster_ctarank;
	mul.wide.u32 %rd12, %r14, %r6;
	add.s64 %rd1, %rd1, %rd12;
	mov.u32 %r7, smem;
	shl.b32 %r8, %r1, 4;
$copy:
	setp.ge.u32 %p2, %r8, %r6;
	@%p2 bra $copied;
	cvt.u64.u32 %rd2, %r8;
	add.s64 %rd3, %rd1, %rd2;
	ld.global.v4.u32 {%r10, %r11, %r12, %r13}, [%rd3];
	add.u32 %r9, %r7, %r8;
	st.shared.v4.u32 [%r9], {%r10, %r11, %r12, %r13};
	add.u32 %r8, %r8, 2048;
	bra $copy;
$copied:
	setp.eq.u32 %p3, %r1, 0;
)";
  // no_wait: the phase needs a second arrival that never comes, so the commit leaves it open
  body += fmt::format("\t@%p3 mbarrier.init.shared::cta.b64 [mbar], {};\n", c.no_wait ? 2 : 1);
  body += alloc(512, c.group);
  body += "\tshl.b32 %r4, %r2, 21;\n\tadd.u32 %t1, %t0, %r4;\n";  // this warp's lanes
  // this CTA's C and D: 128 lanes x DC after those of the lower ranks
  body += fmt::format("\tmov.u32 %r30, %cluster_ctarank;\n\tmad.lo.u32 %r31, %r30, 128, %r1;\n");
  body += fmt::format("\tld.param.u64 %rd4, [p_c];\n\tmul.wide.u32 %rd5, %r31, {};\n\tadd.s64 %rd4, %rd4, %rd5;\n", 4 * DC);
  for (unsigned j = 0, n; j < DC; j += n) {
    n = std::bit_floor(std::min(32u, DC - j));  // .num is a power of 2
    for (unsigned i = 0; i < n; ++i) body += fmt::format("\tld.global.b32 %v{}, [%rd4+{}];\n", i, 4 * (j + i));
    body += fmt::format("\ttcgen05.st.sync.aligned.32x32b.x{}.b32 [%t1+{}], {};\n", n, j, regs("v", 0, n));
  }
  if (c.a_tmem) {
    body += "\tld.param.u64 %rd6, [p_a];\n\tmul.wide.u32 %rd7, %r1, 32;\n\tadd.s64 %rd6, %rd6, %rd7;\n";
    for (unsigned i = 0; i < 8; ++i) body += fmt::format("\tld.global.b32 %v{}, [%rd6+{}];\n", i, 4 * i);
    body += fmt::format("\ttcgen05.st.sync.aligned.32x32b.x8.b32 [%t1+256], {};\n", regs("v", 0, 8));
    body += "\tadd.u32 %t3, %t0, 256;\n";
  }
  if (c.vec) {  // this CTA's scale factors, lane %r3 of each warp's quarter
    body += "\tld.param.u64 %rd20, [p_sf];\n\tmad.lo.u32 %r32, %r30, 32, %r3;\n";
    body += fmt::format("\tmul.wide.u32 %rd21, %r32, {};\n\tadd.s64 %rd20, %rd20, %rd21;\n", 4 * kSfWords);
    for (unsigned i = 0; i < kSfWords; ++i) body += fmt::format("\tld.global.b32 %v{}, [%rd20+{}];\n", i, 4 * i);
    if (c.sf_not_duplicated) body += fmt::format("\tsetp.eq.u32 %p7, %r2, 2;\n\t@%p7 xor.b32 %v{0}, %v{0}, 0x01010101;\n", kSfbWord);
    body += fmt::format("\ttcgen05.st.sync.aligned.32x32b.x{}.b32 [%t1+{}], {};\n", kSfWords, kSfColumn, regs("v", 0, kSfWords));
    body += fmt::format("\tadd.u32 %t4, %t0, {};\n\tadd.u32 %t5, %t0, {};\n", kSfColumn + c.sfa_add, kSfColumn + kSfbWord + c.sfb_add);
  }
  if (c.sparse) {  // this CTA's metadata cells of the thread's lane
    body += fmt::format("\tld.param.u64 %rd22, [p_meta];\n\tmul.wide.u32 %rd23, %r31, {};\n\tadd.s64 %rd22, %rd22, %rd23;\n", 4 * kMetaWords);
    for (unsigned i = 0; i < kMetaWords; ++i) body += fmt::format("\tld.global.b32 %v{}, [%rd22+{}];\n", i, 4 * i);
    body += fmt::format("\ttcgen05.st.sync.aligned.32x32b.x{}.b32 [%t1+{}], {};\n", kMetaWords, kMetaColumn, regs("v", 0, kMetaWords));
  }
  body += R"(	tcgen05.wait::st.sync.aligned;
	fence.proxy.async.shared::cta;
	tcgen05.fence::before_thread_sync;
	barrier.cluster.arrive;
	barrier.cluster.wait;
	tcgen05.fence::after_thread_sync;
	setp.eq.and.u32 %p6, %r30, 0, %p3;
	@!%p6 bra $issued;
	ld.param.u64 %rd8, [p_desc];
	ld.param.u32 %r20, [p_idesc];
	mov.u32 %r40, 0x49249249;
	mov.u32 %r41, %r40;
	mov.u32 %r42, %r40;
	mov.u32 %r43, %r40;
	mov.u32 %r44, %r40;
	mov.u32 %r45, %r40;
	mov.u32 %r46, %r40;
	mov.u32 %r47, %r40;
	cvt.u64.u32 %rd9, %r7;
	shr.u64 %rd9, %rd9, 4;
)";
  for (unsigned s = 0; s < c.ksteps; ++s) {
    body += fmt::format("\tld.global.v2.u64 {{%rd14, %rd15}}, [%rd8+{}];\n\tadd.s64 %rd14, %rd14, %rd9;\n\tadd.s64 %rd15, %rd15, %rd9;\n", 16 * s);
    body += fmt::format("\tsetp.{}.u32 %p4, %r1, 0;\n", s > 0 || c.accumulate ? "eq" : "ne");
    std::string tail = "%p4";
    if (c.scale_input_d >= 0) tail += fmt::format(", {}", c.scale_input_d);
    const std::string lanes = c.disable_lanes ? regs("r", 40, 4 * c.group) + ", " : "";
    // .sp: [sp-meta-tmem] (the step's 64-bit granule) before idesc
    const char* sp = c.sparse ? ".sp" : "";
    const std::string idesc = c.sparse ? "[%t6], %r20" : "%r20";
    if (c.sparse) body += fmt::format("\tadd.u32 %t6, %t0, {};\n", kMetaColumn + 2 * s + c.meta_add);
    if (c.ws)
      body += fmt::format("\ttcgen05.mma.ws{}.cta_group::1.kind::{}{} [%t0], {}, %rd15, {}, %p4{};\n", sp, c.kind, c.collector, c.a_tmem ? "[%t3]" : "%rd14",
                          idesc, c.zero_mask ? fmt::format(", {}", c.zero_mask_desc) : "");
    else if (c.vec)
      body += fmt::format("\ttcgen05.mma{}.cta_group::{}.kind::{}.block_scale{} [%t0], {}, %rd15, {}, [%t4], [%t5], %p4;\n", sp, c.group, c.kind, c.vec_name,
                          c.a_tmem ? "[%t3]" : "%rd14", idesc);
    else
      body += fmt::format("\ttcgen05.mma{}.cta_group::{}.kind::{} [%t0], {}, %rd15, {}, {}{};\n", sp, c.group, c.kind, c.a_tmem ? "[%t3]" : "%rd14", idesc, lanes,
                          tail);
  }
  if (c.no_commit) body += "\tmbarrier.arrive.shared::cta.b64 %rd16, [mbar];\n";  // the wait completes without the commit
  else if (c.commit_zext32) body += "\tmov.u32 %r48, mbar;\n\tcvt.u64.u32 %rd24, %r48;\n\ttcgen05.commit.cta_group::1.mbarrier::arrive::one.b64 [%rd24];\n";
  else if (c.group == 1) body += "\ttcgen05.commit.cta_group::1.mbarrier::arrive::one.shared::cluster.b64 [mbar];\n";
  else body += "\tmov.b16 %rs1, 3;\n\ttcgen05.commit.cta_group::2.mbarrier::arrive::one.shared::cluster.multicast::cluster.b64 [mbar], %rs1;\n";
  body += "$issued:\n";
  if (!c.no_wait) body += "$wait:\n\tmbarrier.try_wait.parity.shared::cta.b64 %p5, [mbar], 0;\n\t@!%p5 bra $wait;\n";
  body += "\ttcgen05.fence::after_thread_sync;\n";
  body += fmt::format("\tld.param.u64 %rd10, [p_d];\n\tmul.wide.u32 %rd11, %r31, {};\n\tadd.s64 %rd10, %rd10, %rd11;\n", 4 * DC);
  for (unsigned j = 0, n; j < DC; j += n) {
    n = std::bit_floor(std::min(32u, DC - j));
    body += fmt::format("\ttcgen05.ld.sync.aligned.32x32b.x{}.b32 {}, [%t1+{}];\n\ttcgen05.wait::ld.sync.aligned;\n", n, regs("v", 0, n), j);
    for (unsigned i = 0; i < n; ++i) body += fmt::format("\tst.global.b32 [%rd10+{}], %v{};\n", 4 * (j + i), i);
  }
  body += "\tbarrier.cluster.arrive;\n\tbarrier.cluster.wait;\n";  // the peer's mma used this CTA's memories
  body += dealloc(512, c.group);
  return module(".param .u64 p_img, .param .u32 p_bytes, .param .u64 p_desc, .param .u64 p_c, .param .u64 p_d, .param .u32 p_idesc, .param .u64 p_a, "
                ".param .u64 p_sf, .param .u64 p_meta",
                body, smem_bytes, c.group == 2 ? "\n.reqnctapercluster 2, 1, 1" : "", c.vec ? "8.8" : "8.6");
}

struct MmaRun {
  std::vector<double> a, b;     // A: M x Kt ([m][k]); B: N x Kt ([n][k]) (Kt: the product's K)
  std::vector<uint32_t> sf;     // scale factor cells: CTAs x 32 lanes x kSfWords
  std::vector<uint32_t> meta;   // tcgen05.mma.sp's metadata cells: CTAs x 128 lanes x kMetaWords
  std::vector<uint32_t> c, d;   // tensor memory lanes x DC, before and after
  std::string ptx, error;
};

// The metadata fields the manual lists as meaningful (9.7.16.10.8): the two indices, the first
// stored non-zero unit in the low bits; .tf32 (1:2): 0b0100 (element 0), 0b1110 (element 1).
constexpr uint32_t kSparseFields[] = {0b0100, 0b1000, 0b1100, 0b1001, 0b1101, 0b0110, 0b1110};
constexpr uint32_t kTf32Fields[] = {0b0100, 0b1110};

// The data path lane of row r of a CTA's rows: M = 64 and layout C lanes 0-15 of each quarter.
unsigned meta_row_lane(const MmaCase& c, unsigned r) { return c.m == 64 || layout_c(c) ? 32 * (r / 16) + r % 16 : r; }

// tcgen05.mma.sp: the dense A (run.a, M x Kt) from its stored half (M x Kt / 2) and random
// metadata fields, placed in run.meta per the manual's figures as this project reads them:
// 8-bit units (8- and 4-bit types) row r's fields in its lane, 8 a column, a granule of two
// columns per K step; 16-bit units (f16, bf16, tf32) fields 4j..4j + 3 of row r in lane
// 8j + r % 8 after the first lane of r's 16 rows, bits 16 (r / 8 % 2) on, column `selector` of
// the step's granule.
void sparsify(const MmaCase& c, std::mt19937& g, const std::vector<double>& stored, MmaRun& run) {
  const unsigned Ks = k_step(c), Kd = dense_k(c), bits = c.a->bits, unit = bits >= 16 ? 16 : 8;
  const unsigned chunks = Kd * bits / unit / 4, per_unit = bits == 32 ? 1 : unit / bits, Mc = c.m / c.group;
  run.a.assign(size_t{c.m} * Kd * c.ksteps, 0.0);
  run.meta.assign(size_t{c.group} * 128 * kMetaWords, 0);
  for (unsigned m = 0; m < c.m; ++m)
    for (unsigned s = 0; s < c.ksteps; ++s)
      for (unsigned ch = 0; ch < chunks; ++ch) {
        uint32_t v = bits == 32 ? kTf32Fields[g() % 2] : kSparseFields[g() % 7];
        if (c.bad_field >= 0 && m == c.bad_row && s == 0 && ch == 0) v = static_cast<uint32_t>(c.bad_field);
        const unsigned i0 = v & 3, i1 = v >> 2;
        const double* in = &stored[size_t{m} * Ks * c.ksteps + s * Ks];
        double* out = &run.a[size_t{m} * Kd * c.ksteps + s * Kd];
        if (bits == 32) {
          out[2 * ch + i0 / 2] = in[ch];
        } else {
          for (unsigned e = 0; e < per_unit; ++e) {
            out[(4 * ch + i0) * per_unit + e] = in[2 * ch * per_unit + e];
            out[(4 * ch + i1) * per_unit + e] = in[(2 * ch + 1) * per_unit + e];
          }
        }
        const unsigned cta = m / Mc, r = m % Mc;
        unsigned lane, column, bit;
        if (unit == 8) lane = meta_row_lane(c, r), column = 2 * s + ch / 8, bit = 4 * (ch % 8);
        else lane = meta_row_lane(c, r / 16 * 16) + 8 * (ch / 4) + r % 8, column = 2 * s + c.selector, bit = 16 * (r / 8 % 2) + 4 * (ch % 4);
        run.meta[(cta * 128 + lane) * kMetaWords + column] |= v << bit;
      }
}

MmaRun run_mma(const MmaCase& c, uint32_t seed) {
  // A's K as stored (sparse: its non-zero half) and the product's
  const unsigned K = k_step(c), Kt = K * c.ksteps, KtB = dense_k(c) * c.ksteps, DC = d_cols(c);
  std::mt19937 g(seed);
  MmaRun run;
  std::vector<uint32_t> a_code(c.m * Kt), b_code(c.n * KtB);
  std::vector<double> a_stored(a_code.size());
  run.b.resize(b_code.size());
  for (size_t i = 0; i < a_code.size(); ++i) a_code[i] = encode(*c.a, a_stored[i] = pick(g, *c.a));
  for (size_t i = 0; i < b_code.size(); ++i) b_code[i] = encode(*c.b, run.b[i] = pick(g, *c.b));
  if (c.sparse) sparsify(c, g, a_stored, run);
  else run.a = a_stored, run.meta.assign(kMetaWords, 0);
  // cta_group::2: CTA r holds A rows r M / 2 ... and B rows r N / 2 ... at the same offsets
  const unsigned G = c.group, Mc = c.m / G, Nc = c.n / G;
  // two e2m1 per byte: the operands are placed as bytes, K / 2 of them per row
  const bool packed = c.a->bits == 4;
  const unsigned mem_bits = packed ? 8 : c.a->bits, mem_k = packed ? Kt / 2 : Kt, mem_kb = packed ? KtB / 2 : KtB;
  auto mem_code = [&](const std::vector<uint32_t>& code, unsigned row_k, unsigned row, unsigned k) {
    return packed ? code[row * row_k + 2 * k] | code[row * row_k + 2 * k + 1] << 4 : code[row * row_k + k];
  };
  const Placement pa(Mc, mem_k, mem_bits, c.swz_a, c.mn_a, 0);
  const uint64_t b_base = (pa.bytes() + 1023) / 1024 * 1024;
  Placement pb(Nc, mem_kb, packed ? 8 : c.b->bits, c.swz_b, c.mn_b, b_base);
  pb.step_bytes = c.sparse ? 64 : 32;
  const size_t img_bytes = (b_base + pb.bytes() + 1023) / 1024 * 1024;
  std::vector<uint8_t> img(G * img_bytes, 0);
  for (unsigned r = 0; r < G; ++r) {
    std::vector<uint8_t> one(img_bytes, 0);
    if (!c.a_tmem)
      for (unsigned m = 0; m < Mc; ++m)
        for (unsigned k = 0; k < mem_k; ++k) pa.put(one, m, k, mem_code(a_code, Kt, r * Mc + m, k));
    for (unsigned n = 0; n < Nc; ++n)
      for (unsigned k = 0; k < mem_kb; ++k) pb.put(one, n, k, mem_code(b_code, KtB, r * Nc + n, k));
    std::copy(one.begin(), one.end(), img.begin() + static_cast<std::ptrdiff_t>(r * img_bytes));
  }
  std::vector<uint64_t> desc;
  for (unsigned s = 0; s < c.ksteps; ++s) desc.push_back(pa.descriptor(s) ^ c.a_desc_xor), desc.push_back(pb.descriptor(s));
  // A in tensor memory (one K step): row m at its lane, element k at bit (k * bits) % 32 of column k * bits / 32
  std::vector<uint32_t> a_img(128 * 8, 0);
  if (c.a_tmem)
    for (unsigned m = 0; m < c.m; ++m)
      for (unsigned k = 0; k < K; ++k) a_img[row_lane(c, m) * 8 + k * c.a->bits / 32] |= a_code[m * Kt + k] << (k * c.a->bits % 32);
  run.c.resize(G * 128 * DC);
  const std::string d = c.d;
  for (auto& x : run.c) {
    if (d == "s32") x = static_cast<uint32_t>(static_cast<int32_t>(g() % 2001) - 1000);
    else if (d == "f32") x = std::bit_cast<uint32_t>(0.25f * static_cast<float>(static_cast<int>(g() % 33) - 16));
    else x = encode(kF16, 0.25 * (static_cast<int>(g() % 33) - 16)) | encode(kF16, 0.5 * (static_cast<int>(g() % 9) - 4)) << 16;
  }
  // scale factors: every byte of every cell random (codes the ID does not pick must not matter);
  // ue8m0 2^-4 to 2^4, ue4m3 0.25 to 7.5; B's the same in both CTAs of a pair
  run.sf.assign(G * 32 * kSfWords, 0);
  for (uint32_t& cell : run.sf)
    for (unsigned byte = 0; byte < 4; ++byte) {
      const uint32_t code = c.ue4m3 ? (5 + g() % 5) << 3 | (g() % 8) : 123 + g() % 9;
      cell |= code << (8 * byte);
    }
  for (unsigned r = 1; r < G; ++r)
    for (unsigned l = 0; l < 32; ++l)
      for (unsigned j = kSfbWord; j < kSfWords; ++j) run.sf[(r * 32 + l) * kSfWords + j] = run.sf[l * kSfWords + j];
  if (c.sf_sign) run.sf[0] |= 0x80u << (8 * c.sfa_id);
  run.ptx = mma_ptx(c, img_bytes);
  EmuRun r;
  r.buffer(img, "img");
  r.scalar(static_cast<uint32_t>(img_bytes));
  r.buffer(desc, "desc");
  r.buffer(run.c, "c");
  const uint64_t out = r.buffer(std::vector<uint32_t>(G * 128 * DC, 0xDEADBEEF), "d");
  r.scalar(idesc_of(c));
  r.buffer(a_img, "a");
  r.buffer(run.sf, "sf");
  r.buffer(run.meta, "meta");
  try {
    r.launch(run.ptx, "k", {G, 1, 1}, {128, 1, 1}, 0, {G, 1, 1});
  } catch (const ptx::emu::Error& e) {
    run.error = e.what();
    return run;
  }
  run.d = r.read<uint32_t>(out, G * 128 * DC);
  return run;
}

// D = A * B (+ C) element by element, through the data path layout.
void check_mma(const MmaCase& c, const MmaRun& run) {
  ASSERT_EQ(run.error, "");
  const unsigned Kd = dense_k(c), Kt = Kd * c.ksteps, DC = d_cols(c);
  const std::string d = c.d;
  const double sa = c.neg_a ? -1 : 1, sb = c.neg_b ? -1 : 1;
  const double scale = c.scale_input_d >= 0 ? std::ldexp(1.0, -c.scale_input_d) : 1.0;
  for (unsigned m = 0; m < c.m; ++m)
    for (unsigned n = 0; n < c.n; ++n) {
      double sum = 0;
      const unsigned cta_of_row = c.group == 2 ? m / (c.m / 2) : 0, row = m % (c.m / c.group);
      for (unsigned k = 0; k < Kt; ++k) {
        double scales = 1;
        if (c.vec) {  // the scale factor of k's block of K / vec elements (in each K step)
          const unsigned j = k % Kd / (Kd / c.vec);
          const uint32_t a_cell = run.sf[(cta_of_row * 32 + row % 32) * kSfWords + row / 32];
          const uint32_t b_cell = run.sf[(cta_of_row * 32 + n % 32) * kSfWords + kSfbWord + n / 32];
          scales = scale_value(c, a_cell >> (8 * (c.sfa_id + j)) & 0xFF) * scale_value(c, b_cell >> (8 * (c.sfb_id + j)) & 0xFF);
        }
        sum += sa * run.a[m * Kt + k] * sb * run.b[n * Kt + k] * scales;
      }
      unsigned lane = row_lane(c, m), col = n, cta = 0;
      if (c.group == 2) {
        cta = m / (c.m / 2);
        std::tie(lane, col) = pair_position(c, m % (c.m / 2), n);
      }
      const size_t at = (cta * 128 + lane) * DC + col;
      const uint32_t before = run.c[at], got = run.d[at];
      if (c.disable_lanes && (kDisabledLanes >> (lane % 32) & 1)) {
        ASSERT_EQ(got, before) << "disabled lane " << lane;
        continue;
      }
      const std::string where = fmt::format("row {} column {} (lane {}, column {})", m, n, lane, col);
      if (d == "s32") {
        int64_t want = static_cast<int64_t>(sum) + (c.accumulate ? static_cast<int32_t>(before) : 0);
        if (c.saturate) want = std::clamp<int64_t>(want, INT32_MIN, INT32_MAX);
        ASSERT_EQ(static_cast<int32_t>(got), static_cast<int32_t>(static_cast<uint32_t>(want))) << where;
      } else if (d == "f32") {
        const double want = sum + (c.accumulate ? scale * std::bit_cast<float>(before) : 0.0);
        ASSERT_EQ(std::bit_cast<float>(got), static_cast<float>(want)) << where;
      } else {
        const double want = sum + (c.accumulate ? scale * f16_value(before & 0xFFFF) : 0.0);
        ASSERT_EQ(f16_value(got & 0xFFFF), want) << where;
      }
    }
}

void run_and_check(const MmaCase& c, uint32_t seed) {
  SCOPED_TRACE(fmt::format("cta_group::{} kind::{} {}x{} A {} B {} D {} swizzle {}/{} mn-major {}/{} steps {}{}", c.group, c.kind, c.m, c.n, c.a->name, c.b->name, c.d, c.swz_a,
                           c.swz_b, c.mn_a, c.mn_b, c.ksteps, c.a_tmem ? " A in tmem" : ""));
  const MmaRun run = run_mma(c, seed);
  check_mma(c, run);
  expect_assembles(run.ptx);
}

TEST(EmuTcgen05, MmaF16EverySwizzleAndMajorness) {
  for (unsigned swz : {0u, 32u, 64u, 128u})
    for (bool mn : {false, true}) {
      MmaCase c;
      c.swz_a = c.swz_b = swz;
      c.mn_a = c.mn_b = mn;
      c.ksteps = 2;
      c.accumulate = true;
      run_and_check(c, 1 + swz + mn);
    }
}

// Bits 46-48 of the shared memory descriptors zero, as Triton 3.5.1 writes them (wgmma's layout)
// in tcgen05 matmuls that run on B200: read like the manual's 0b001.
TEST(EmuTcgen05, MmaDescriptorVersionZeroIsTaken) {
  MmaCase c;
  c.a_desc_xor = uint64_t{1} << 46;
  c.ksteps = 2;
  run_and_check(c, 21);
}

// tcgen05.commit given its mbarrier as Triton 3.5.1 does (B200 runs those kernels): the 32-bit
// shared address zero-extended to 64 bits, with no state space. It arrives on that mbarrier.
TEST(EmuTcgen05, CommitToAZeroExtendedSharedAddress) {
  MmaCase c;
  c.commit_zext32 = true;
  run_and_check(c, 22);
}

TEST(EmuTcgen05, MmaShapesAndTypes) {
  {
    MmaCase c;  // bf16, M = 64 (data path layout F), N = 8
    c.a = c.b = &kBF16, c.m = 64, c.n = 8;
    run_and_check(c, 11);
  }
  {
    MmaCase c;  // f16 accumulating in f16 (one per column), N = 256
    c.d = "f16", c.n = 256, c.accumulate = true, c.swz_a = 64, c.swz_b = 32;
    run_and_check(c, 12);
  }
  {
    MmaCase c;  // M = 128 with N = 24: A from shared memory takes N in steps of 8
    c.n = 24, c.swz_a = c.swz_b = 0;
    run_and_check(c, 17);
  }
  {
    MmaCase c;  // tf32, MN-major B
    c.kind = "tf32", c.a = c.b = &kTF32, c.n = 32, c.mn_b = true, c.ksteps = 3, c.accumulate = true;
    run_and_check(c, 13);
  }
  {
    MmaCase c;  // 8-bit floats, mixed
    c.kind = "f8f6f4", c.a = &kE4M3, c.b = &kE5M2, c.n = 48, c.m = 64;
    run_and_check(c, 14);
  }
  for (const Fmt* f : {&kE2M3, &kE3M2, &kE2M1}) {
    MmaCase c;  // 6- and 4-bit floats, one per byte
    c.kind = "f8f6f4", c.a = f, c.b = &kE2M1, c.d = "f16", c.n = 16, c.swz_a = c.swz_b = 0;
    run_and_check(c, 15);
  }
  for (const Fmt* f : {&kS8, &kU8}) {
    MmaCase c;  // integers, saturating or wrapping
    c.kind = "i8", c.a = f, c.b = &kS8, c.d = "s32", c.n = 64, c.accumulate = true, c.saturate = f == &kS8, c.ksteps = 2;
    run_and_check(c, 16);
  }
}

TEST(EmuTcgen05, MmaNegationScaleAndATensorMemory) {
  {
    MmaCase c;
    c.neg_a = true, c.accumulate = true, c.scale_input_d = 2;
    run_and_check(c, 21);
  }
  {
    MmaCase c;
    c.neg_b = true, c.kind = "tf32", c.a = c.b = &kTF32, c.a_tmem = true, c.accumulate = true;
    run_and_check(c, 22);
  }
  {
    MmaCase c;
    c.a_tmem = true, c.m = 64, c.n = 24, c.kind = "f8f6f4", c.a = &kE4M3, c.b = &kE4M3;
    run_and_check(c, 23);
  }
  {
    MmaCase c;
    c.a_tmem = true, c.a = c.b = &kBF16, c.n = 128;
    run_and_check(c, 24);
  }
}

TEST(EmuTcgen05, MmaDisableOutputLane) {
  MmaCase c;
  c.disable_lanes = true, c.accumulate = true;
  run_and_check(c, 31);
}

// .cta_group::2: a CTA pair computes M = 256 or 128 (each CTA M / 2 rows of D in its tensor
// memory), B split between the two CTAs' shared memory; commit multicasts to both mbarriers.
TEST(EmuTcgen05, MmaCtaPair) {
  for (unsigned m : {256u, 128u}) {
    MmaCase c;
    c.group = 2, c.m = m, c.n = 64, c.accumulate = true, c.ksteps = 2, c.swz_b = 64;
    run_and_check(c, 40 + m);
  }
  MmaCase c;
  c.group = 2, c.m = 256, c.n = 32, c.disable_lanes = true, c.kind = "i8", c.a = &kU8, c.b = &kS8, c.d = "s32";
  run_and_check(c, 41);
}

// Block scaling (9.7.16.10.7): D = (A * scale_A) * (B * scale_B) + C with scale factors in tensor
// memory. Every byte of every scale factor cell is random and each K block has its own, so a
// swapped scale-A/scale-B, a wrong byte for the ID or a wrong K block would each change D.
MmaCase scaled(const char* kind, const Fmt* a, const Fmt* b, unsigned vec, const char* vec_name, unsigned n, unsigned sfa_id, unsigned sfb_id) {
  MmaCase c;
  c.kind = kind, c.a = a, c.b = b, c.vec = vec, c.vec_name = vec_name, c.n = n, c.sfa_id = sfa_id, c.sfb_id = sfb_id, c.accumulate = true;
  return c;
}

TEST(EmuTcgen05, MmaBlockScaledMxf8f6f4) {
  run_and_check(scaled("mxf8f6f4", &kE4M3, &kE5M2, 1, ".scale_vec::1X", 64, 1, 3), 101);
  {
    MmaCase c = scaled("mxf8f6f4", &kE2M1, &kE3M2, 1, "", 8, 2, 0);  // one 4- or 6-bit element per byte; .block32 by default
    c.swz_a = c.swz_b = 0, c.neg_a = true;
    run_and_check(c, 102);
  }
  {
    MmaCase c = scaled("mxf8f6f4", &kE4M3, &kE4M3, 1, ".block32", 32, 3, 2);  // MN-major operands
    c.mn_a = c.mn_b = true, c.swz_a = 64;
    run_and_check(c, 103);
  }
  {
    MmaCase c = scaled("mxf8f6f4", &kE5M2, &kE4M3, 1, ".scale_vec::1X", 48, 0, 1);  // A in tensor memory
    c.a_tmem = true;
    run_and_check(c, 104);
  }
}

TEST(EmuTcgen05, MmaBlockScaledMxf4AndNvf4) {
  run_and_check(scaled("mxf4", &kE2M1x2, &kE2M1x2, 2, ".scale_vec::2X", 128, 2, 0), 111);
  {
    MmaCase c = scaled("mxf4", &kE2M1x2, &kE2M1x2, 2, ".block32", 16, 0, 2);
    c.a_tmem = true;
    run_and_check(c, 112);
  }
  {
    MmaCase c = scaled("mxf4nvf4", &kE2M1x2, &kE2M1x2, 4, ".scale_vec::4X", 256, 0, 0);
    c.ue4m3 = true, c.neg_b = true, c.swz_a = 32;
    run_and_check(c, 113);
  }
  run_and_check(scaled("mxf4nvf4", &kE2M1x2, &kE2M1x2, 4, ".block16", 24, 0, 0), 114);  // ue8m0 with 4X
  run_and_check(scaled("mxf4nvf4", &kE2M1x2, &kE2M1x2, 2, ".block32", 48, 2, 2), 115);
}

// .cta_group::2: each CTA scales its rows of A with its own scale-A cells and reads all N of B's.
TEST(EmuTcgen05, MmaBlockScaledCtaPair) {
  {
    MmaCase c = scaled("mxf4nvf4", &kE2M1x2, &kE2M1x2, 4, ".scale_vec::4X", 64, 0, 0);
    c.group = 2, c.m = 256, c.ue4m3 = true;
    run_and_check(c, 121);
  }
  MmaCase c = scaled("mxf8f6f4", &kE4M3, &kE4M3, 1, ".scale_vec::1X", 32, 1, 2);
  c.group = 2, c.m = 128;
  run_and_check(c, 122);
}

TEST(EmuTcgen05, MmaBlockScaleErrorsAreReported) {
  struct Case {
    MmaCase c;
    const char* report;
  };
  const MmaCase mxf4 = scaled("mxf4", &kE2M1x2, &kE2M1x2, 2, ".scale_vec::2X", 64, 0, 0);
  const MmaCase nvf4 = scaled("mxf4nvf4", &kE2M1x2, &kE2M1x2, 4, ".scale_vec::4X", 64, 0, 0);
  const MmaCase mxf8 = scaled("mxf8f6f4", &kE4M3, &kE4M3, 1, ".scale_vec::1X", 64, 0, 0);
  std::vector<Case> cases(16, Case{mxf4, ""});
  cases[0].c.sfa_id = 1, cases[0].report = "scale factor A ID 1 (bits 29-30): with .scale_vec::2X it must be 0 or 2";
  cases[1].c = nvf4, cases[1].c.sfb_id = 2, cases[1].report = "scale factor B ID 2 (bits 4-5): with .scale_vec::4X it must be 0";
  cases[2].c.ue4m3 = true, cases[2].report = "scale type ue4m3";
  cases[3].c = nvf4, cases[3].c.vec = 2, cases[3].c.vec_name = ".scale_vec::2X", cases[3].c.ue4m3 = true, cases[3].report = "scale type ue4m3";
  cases[4].c = mxf8, cases[4].c.extra_idesc = 1u << 31, cases[4].report = "reserved bit";
  cases[5].c.extra_idesc = 1u << 31, cases[5].report = "K = 96";
  cases[6].c.mn_b = true, cases[6].report = "transpose bit";
  cases[7].c.sf_not_duplicated = true, cases[7].report = "must be duplicated in all four 32-lane partitions";
  cases[8].c = mxf8, cases[8].c.m = 64, cases[8].report = "not a shape";
  cases[9].c.extra_idesc = 1u << 2, cases[9].report = "sparse";
  cases[10].c.a = &kE2M1, cases[10].report = "not types of this kind";  // code 5: f8f6f4's e2m1, not mxf4's
  cases[11].c = mxf8, cases[11].c.group = 2, cases[11].c.m = 256, cases[11].c.n = 8, cases[11].report = "not a shape";  // cta_group::2: N % 16
  cases[12].c = mxf8, cases[12].c.a = &kE2M3, cases[12].c.mn_a = true, cases[12].report = "6- and 4-bit elements are K-major only";
  cases[13].c = nvf4, cases[13].c.ue4m3 = true, cases[13].c.sf_sign = true, cases[13].report = "ue4m3 is unsigned, bit 7 must be 0";
  cases[14].c.sfa_add = 1u << 16, cases[14].report = "scale-A tensor memory address 0x10108 has lane 1";
  cases[15].c.sfb_add = 300, cases[15].report = "the scale-B scale factors at tensor memory columns 572 to 573 are not allocated";
  for (const Case& t : cases) {
    SCOPED_TRACE(t.report);
    const MmaRun run = run_mma(t.c, 7);
    EXPECT_NE(run.error.find(t.report), std::string::npos) << run.error;
    expect_assembles(run.ptx);
  }
}

// .ws (weight stationary) with M = 128: D in the data path layout D, like tcgen05.mma's; the
// collector hints, the B-reuse maximum shift and a zero-column mask that masks nothing change
// nothing in the result.
TEST(EmuTcgen05, MmaWeightStationary) {
  {
    MmaCase c;
    c.ws = true, c.n = 64, c.accumulate = true;
    run_and_check(c, 131);
  }
  {
    MmaCase c;
    c.ws = true, c.kind = "tf32", c.a = c.b = &kTF32, c.n = 128, c.collector = ".collector::b1::lastuse", c.zero_mask = true;
    c.zero_mask_desc = uint64_t{4} << 40 | uint64_t{3} << 48;  // the manual's example 1: Non-Zero Mask 0, so no column is zero
    c.extra_idesc = 2u << 30, c.a_tmem = true;                 // maximum shift 16
    run_and_check(c, 132);
  }
  {
    MmaCase c;
    c.ws = true, c.kind = "i8", c.a = &kS8, c.b = &kU8, c.d = "s32", c.n = 256, c.collector = ".collector::b0::fill", c.accumulate = true;
    run_and_check(c, 133);
  }
}

TEST(EmuTcgen05, MmaWeightStationaryErrorsAreReported) {
  struct Case {
    MmaCase c;
    const char* report;
  };
  MmaCase ws;
  ws.ws = true, ws.n = 64;
  std::vector<Case> cases(5, Case{ws, ""});
  cases[0].c.n = 32, cases[0].report = "not a shape of tcgen05.mma.ws";
  cases[1].c.m = 64, cases[1].report = "does not support its tensor memory data path layout (layout E)";
  cases[2].c.zero_mask = true, cases[2].c.zero_mask_desc = uint64_t{1} << 39, cases[2].report = "Non-Zero Mask (bit 39)";
  cases[3].c.zero_mask = true, cases[3].c.zero_mask_desc = uint64_t{1} << 37, cases[3].report = "reserved bit (36-38 or 62-63)";
  cases[4].c.m = 32, cases[4].report = "(layout G)";
  for (const Case& t : cases) {
    SCOPED_TRACE(t.report);
    const MmaRun run = run_mma(t.c, 9);
    EXPECT_NE(run.error.find(t.report), std::string::npos) << run.error;
    expect_assembles(run.ptx);
  }
}

// tcgen05.mma.sp (9.7.16.10.8): A holds the non-zero half of each row (32 bytes a K step, as
// dense A), B twice the K (64 bytes a row), the metadata in tensor memory (kMetaColumn); the
// reference expands A from its fields (sparsify) and multiplies densely.
MmaCase sparse_case(const char* kind, const Fmt* a, const Fmt* b, const char* d, unsigned m, unsigned n) {
  MmaCase c;
  c.sparse = true, c.kind = kind, c.a = a, c.b = b, c.d = d, c.m = m, c.n = n;
  return c;
}

TEST(EmuTcgen05, MmaSparseEveryKind) {
  {
    MmaCase c = sparse_case("f16", &kF16, &kF16, "f32", 128, 64);  // two K steps, the second granule's column 1
    c.ksteps = 2, c.accumulate = true, c.selector = 1;
    run_and_check(c, 201);
  }
  {
    MmaCase c = sparse_case("f16", &kBF16, &kBF16, "f32", 64, 32);  // M = 64 (layout F), MN-major B, no swizzle
    c.mn_b = true, c.swz_a = c.swz_b = 0, c.accumulate = true;
    run_and_check(c, 202);
  }
  {
    MmaCase c = sparse_case("tf32", &kTF32, &kTF32, "f32", 128, 32);  // 1:2, A in tensor memory
    c.a_tmem = true, c.selector = 1, c.scale_input_d = 1, c.accumulate = true;
    run_and_check(c, 203);
  }
  {
    MmaCase c = sparse_case("f8f6f4", &kE4M3, &kE5M2, "f16", 128, 48);  // B K-major with the 64-byte swizzle
    c.swz_b = 64;
    run_and_check(c, 204);
  }
  {
    MmaCase c = sparse_case("i8", &kS8, &kU8, "s32", 64, 24);
    c.accumulate = true, c.disable_lanes = true;
    run_and_check(c, 205);
  }
  {
    MmaCase c = sparse_case("f8f6f4", &kE2M3, &kE2M1, "f32", 128, 16);  // 6- and 4-bit elements one per byte
    c.swz_a = c.swz_b = 0;
    run_and_check(c, 206);
  }
}

TEST(EmuTcgen05, MmaSparseBlockScaledAndWeightStationary) {
  {
    MmaCase c = scaled("mxf8f6f4", &kE4M3, &kE4M3, 1, ".scale_vec::1X", 64, 2, 1);  // K = 64, one scale factor a row
    c.sparse = true;
    run_and_check(c, 211);
  }
  {
    MmaCase c = scaled("mxf4nvf4", &kE2M1x2, &kE2M1x2, 4, ".scale_vec::4X", 32, 0, 0);  // K = 128, 4:8 in pairs
    c.sparse = true, c.ue4m3 = true;
    run_and_check(c, 212);
  }
  {
    MmaCase c = sparse_case("f16", &kF16, &kF16, "f32", 128, 64);
    c.ws = true, c.accumulate = true;
    run_and_check(c, 213);
  }
}

// .cta_group::2: M = 256 (layout A) each CTA's 128 rows; M = 128 sparse (layout C) each CTA's 64
// rows in lanes 0-15 of each quarter, all N columns (this emulator's reading of figure 209).
TEST(EmuTcgen05, MmaSparseCtaPair) {
  {
    MmaCase c = sparse_case("f16", &kF16, &kF16, "f32", 256, 32);
    c.group = 2, c.selector = 1, c.accumulate = true;
    run_and_check(c, 221);
  }
  {
    MmaCase c = sparse_case("i8", &kU8, &kS8, "s32", 128, 64);
    c.group = 2;
    run_and_check(c, 222);
  }
  {
    MmaCase c = scaled("mxf4", &kE2M1x2, &kE2M1x2, 2, ".block32", 32, 2, 0);
    c.sparse = true, c.group = 2, c.m = 256;
    run_and_check(c, 223);
  }
}

TEST(EmuTcgen05, MmaSparseErrorsAreReported) {
  struct Case {
    MmaCase c;
    const char* report;
    const char* report2 = "";
  };
  const MmaCase f16 = sparse_case("f16", &kF16, &kF16, "f32", 128, 16);
  std::vector<Case> cases(12, Case{f16, "", ""});
  cases[0].c.bad_field = 0b0101, cases[0].c.bad_row = 13;  // lane 5, the high half
  cases[0].report = "the sparsity metadata at tensor memory lane 5, column 280 (CTA rank 0; 0x";
  cases[0].report2 = "bits 16-19 = 0b0101 for row 13, columns 0-3: the same index twice";
  cases[1].c.bad_field = 0b0001, cases[1].report = "not one of the values the manual lists as meaningful";
  cases[2].c = sparse_case("tf32", &kTF32, &kTF32, "f32", 128, 16), cases[2].c.bad_field = 0b1000, cases[2].report = "not 0b0100 or 0b1110";
  cases[3].c.idesc_clear = 1u << 2, cases[3].report = "does not set bit 2 (sparse A), which tcgen05.mma.sp needs";
  cases[4].c = sparse_case("i8", &kS8, &kS8, "s32", 128, 16), cases[4].c.selector = 1, cases[4].report = "it must be 0 for .kind::i8";
  cases[5].c.selector = 2, cases[5].report = "selector 0 or 1";
  cases[6].c.meta_add = 1, cases[6].report = "is at the odd column 281";
  cases[7].c.meta_add = 16u << 16, cases[7].report = "must use the same lane alignment";
  cases[8].c.swz_b = 32, cases[8].report = "its 64-byte rows of K span two swizzle atoms";
  cases[9].c = scaled("mxf8f6f4", &kE4M3, &kE4M3, 1, ".scale_vec::1X", 16, 0, 0), cases[9].c.sparse = true, cases[9].c.group = 2, cases[9].c.m = 128;
  cases[9].report = "is not a shape of tcgen05.mma.cta_group::2";
  cases[10].c.ws = true, cases[10].c.n = 256, cases[10].report = "not a shape of tcgen05.mma.ws.sp";
  cases[11].c = sparse_case("i8", &kS8, &kS8, "s32", 64, 16), cases[11].c.bad_field = 0b1111, cases[11].c.bad_row = 21;  // layout F: lane 37
  cases[11].report = "lane 37, column 280", cases[11].report2 = "bits 0-3 = 0b1111 for row 21, columns 0-3";
  for (const Case& t : cases) {
    SCOPED_TRACE(t.report);
    const MmaRun run = run_mma(t.c, 13);
    EXPECT_NE(run.error.find(t.report), std::string::npos) << run.error;
    EXPECT_NE(run.error.find(t.report2), std::string::npos) << run.error;
    expect_assembles(run.ptx);
  }
}

// Reading D before the mma is known complete: without a tcgen05.commit, or while the mbarrier
// phase the commit arrives on is still open (here the product is there already; on the GPU it
// may not be). A read after the phase completed, by a thread that did not wait, is not caught.
TEST(EmuTcgen05, ReadingDBeforeTheCommitCompletesIsReported) {
  MmaCase c;
  c.no_commit = true;
  MmaRun run = run_mma(c, 3);
  EXPECT_NE(run.error.find("before a tcgen05.commit of that thread tracks it"), std::string::npos) << run.error;
  expect_assembles(run.ptx);
  c.no_commit = false, c.no_wait = true;
  run = run_mma(c, 3);
  EXPECT_NE(run.error.find("before the mbarrier phase its tcgen05.commit arrives on has completed"), std::string::npos) << run.error;
  expect_assembles(run.ptx);
}

TEST(EmuTcgen05, MmaDescriptorErrorsAreReported) {
  struct Case {
    MmaCase c;
    const char* report;
  };
  std::vector<Case> cases(15);
  cases[0].c.extra_idesc = 1u << 2, cases[0].report = "sparse";
  cases[1].c.a_desc_xor = uint64_t{1} << 47, cases[1].report = "0b001 nor 0b000";  // 0b011
  cases[2].c.a_desc_xor = uint64_t{1} << 61, cases[2].report = "invalid swizzle mode";  // 128B (2) becomes 3
  cases[3].c.n = 72, cases[3].c.a_tmem = true, cases[3].report = "not a shape";  // A in tensor memory, M = 128: N % 16 == 0
  cases[4].c.b = &kBF16, cases[4].report = "needs both f16 or both bf16";
  cases[5].c.kind = "i8", cases[5].c.a = &kS8, cases[5].c.b = &kS8, cases[5].c.d = "f32", cases[5].report = "not a D type";
  cases[6].c.kind = "f8f6f4", cases[6].c.a = cases[6].c.b = &kE4M3, cases[6].c.m = 64, cases[6].c.n = 8, cases[6].c.mn_b = true;
  cases[6].report = "whole 16-byte chunks";
  cases[7].c.a_tmem = true, cases[7].c.mn_a = true, cases[7].report = "cannot be transposed";
  cases[8].c.a = cases[8].c.b = &kBF16, cases[8].c.d = "f16", cases[8].report = "bf16 inputs need an f32 D";
  cases[9].c.saturate = true, cases[9].report = "saturate bit";
  cases[10].c.kind = "i8", cases[10].c.a = cases[10].c.b = &kU8, cases[10].c.d = "s32", cases[10].c.neg_b = true, cases[10].report = "negate bits";
  cases[11].c.extra_idesc = 1u << 23, cases[11].report = "reserved bit";
  cases[12].c.extra_idesc = 1u << 30, cases[12].report = "maximum shift";
  // kind::i8 with M = 64 takes N = 8, 16, 24, then multiples of 16 only (the DSL's descriptor agrees)
  cases[13].c.kind = "i8", cases[13].c.a = cases[13].c.b = &kS8, cases[13].c.d = "s32", cases[13].c.m = 64, cases[13].c.n = 40;
  cases[13].report = "M = 64 and N = 40";
  // kind::i8 on the CTA pair: N in steps of 32
  cases[14].c.kind = "i8", cases[14].c.a = cases[14].c.b = &kS8, cases[14].c.d = "s32", cases[14].c.group = 2, cases[14].c.m = 256, cases[14].c.n = 48;
  cases[14].report = "M = 256 and N = 48";
  for (const Case& t : cases) {
    SCOPED_TRACE(t.report);
    const MmaRun run = run_mma(t.c, 5);
    EXPECT_NE(run.error.find(t.report), std::string::npos) << run.error;
    if (&t == &cases[0] || t.c.a_tmem) expect_assembles(run.ptx);  // the others differ only in data (descriptors)
  }
}

// ---- tcgen05.cp, tcgen05.shift -------------------------------------------------------------------

// Shared memory holds words w[i] = 0x1000 + i (+ the CTA's rank << 16; `scrambled`: times
// kScramble, so that every bit varies); thread 0 (of rank 0) copies (or shifts) with tcgen05,
// commits to the mbarrier (of both CTAs with .cta_group::2, on a cluster of two), and every warp
// reads its 32 lanes, columns 0-7, back (lane << 16 | column before). out: CTAs x 128 x 8.
constexpr uint32_t kScramble = 0x9E3779B1u;
std::vector<uint32_t> run_copy(const std::string& inst, unsigned group = 1, bool scrambled = false) {
  std::string body = R"(	mov.u32 %r7, smem;
	mov.u32 %r30, %cluster_ctarank;
	shl.b32 %r31, %r30, 16;
	shl.b32 %r8, %r1, 2;
$fill:
	add.u32 %r9, %r7, %r8;
	shr.u32 %r10, %r8, 2;
	add.u32 %r10, %r10, 0x1000;
	add.u32 %r10, %r10, %r31;
)";
  if (scrambled) body += fmt::format("\tmul.lo.u32 %r10, %r10, {};\n", kScramble);
  body += R"(	st.shared.u32 [%r9], %r10;
	add.u32 %r8, %r8, 512;
	setp.lt.u32 %p2, %r8, 4096;
	@%p2 bra $fill;
	setp.eq.u32 %p3, %r1, 0;
	@%p3 mbarrier.init.shared::cta.b64 [mbar], 1;
)";
  body += alloc(32, group);
  body += "\tshl.b32 %r4, %r2, 21;\n\tadd.u32 %t1, %t0, %r4;\n\tshl.b32 %r5, %r1, 16;\n";
  for (unsigned i = 0; i < 8; ++i) body += fmt::format("\tor.b32 %v{}, %r5, {};\n", i, i);  // lane << 16 | column
  body += fmt::format("\ttcgen05.st.sync.aligned.32x32b.x8.b32 [%t1], {};\n\ttcgen05.wait::st.sync.aligned;\n", regs("v", 0, 8));
  body += R"(	fence.proxy.async.shared::cta;
	tcgen05.fence::before_thread_sync;
	barrier.cluster.arrive;
	barrier.cluster.wait;
	tcgen05.fence::after_thread_sync;
	setp.eq.and.u32 %p6, %r30, 0, %p3;
	@!%p6 bra $issued;
	ld.param.u64 %rd1, [p_desc];
	cvt.u64.u32 %rd2, %r7;
	shr.u64 %rd2, %rd2, 4;
	add.s64 %rd1, %rd1, %rd2;
)";
  body += "\t" + inst + "\n";
  if (group == 1) body += "\ttcgen05.commit.cta_group::1.mbarrier::arrive::one.shared::cluster.b64 [mbar];\n";
  else body += "\tmov.b16 %rs1, 3;\n\ttcgen05.commit.cta_group::2.mbarrier::arrive::one.shared::cluster.multicast::cluster.b64 [mbar], %rs1;\n";
  body += R"($issued:
$wait:
	mbarrier.try_wait.parity.shared::cta.b64 %p5, [mbar], 0;
	@!%p5 bra $wait;
	tcgen05.fence::after_thread_sync;
)";
  body += fmt::format("\ttcgen05.ld.sync.aligned.32x32b.x8.b32 {}, [%t1];\n\ttcgen05.wait::ld.sync.aligned;\n", regs("v", 10, 8));
  body += "\tld.param.u64 %rd3, [p_out];\n\tmad.lo.u32 %r32, %r30, 128, %r1;\n\tmul.wide.u32 %rd4, %r32, 32;\n\tadd.s64 %rd3, %rd3, %rd4;\n";
  for (unsigned i = 0; i < 8; ++i) body += fmt::format("\tst.global.b32 [%rd3+{}], %v{};\n", 4 * i, 10 + i);
  body += "\tbarrier.cluster.arrive;\n\tbarrier.cluster.wait;\n";  // the peer's copy wrote this CTA's tensor memory
  body += dealloc(32, group);
  const std::string ptx = module(".param .u64 p_desc, .param .u64 p_out", body, 4096, group == 2 ? "\n.reqnctapercluster 2, 1, 1" : "");
  expect_assembles(ptx);
  EmuRun r;
  // no swizzle: 8-row core matrices of 16-byte rows; LBO 128 (a row's second 16 bytes), SBO 256
  r.scalar(uint64_t{128 >> 4} << 16 | uint64_t{256 >> 4} << 32 | uint64_t{1} << 46);
  const uint64_t out = r.buffer(std::vector<uint32_t>(group * 128 * 8, 0xDEADBEEF), "out");
  r.launch(ptx, "k", {group, 1, 1}, {128, 1, 1}, 0, {group, 1, 1});
  return r.read<uint32_t>(out, group * 128 * 8);
}

// Word j (0-7) of row r of the source: row r's 16-byte chunk c at r / 8 * 256 + c * 128 + r % 8 * 16.
uint32_t source_word(unsigned r, unsigned j, unsigned rank = 0, bool scrambled = false) {
  const uint32_t w = 0x1000 + (r / 8 * 256 + j / 4 * 128 + r % 8 * 16) / 4 + j % 4 + (rank << 16);
  return scrambled ? w * kScramble : w;
}

TEST(EmuTcgen05, CopyShapesFromSharedMemory) {
  struct Case {
    const char* shape;
    unsigned rows, words;
    std::vector<unsigned> (*lanes)(unsigned row);
  };
  const Case cases[] = {
      {"128x256b", 128, 8, [](unsigned r) { return std::vector<unsigned>{r}; }},
      {"4x256b", 4, 8, [](unsigned r) { return std::vector<unsigned>{r}; }},
      {"128x128b", 128, 4, [](unsigned r) { return std::vector<unsigned>{r}; }},
      {"64x128b.warpx2::02_13", 64, 4, [](unsigned r) { return std::vector<unsigned>{r % 32 + 32 * (r / 32), r % 32 + 32 * (r / 32) + 64}; }},
      {"64x128b.warpx2::01_23", 64, 4, [](unsigned r) { return std::vector<unsigned>{r % 32 + 64 * (r / 32), r % 32 + 64 * (r / 32) + 32}; }},
      {"32x128b.warpx4", 32, 4, [](unsigned r) { return std::vector<unsigned>{r, r + 32, r + 64, r + 96}; }},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.shape);
    const std::vector<uint32_t> got = run_copy(fmt::format("tcgen05.cp.cta_group::1.{} [%t0], %rd1;", c.shape));
    std::vector<uint32_t> want(128 * 8);
    for (unsigned l = 0; l < 128; ++l)
      for (unsigned j = 0; j < 8; ++j) want[l * 8 + j] = l << 16 | j;
    for (unsigned r = 0; r < c.rows; ++r)
      for (unsigned l : c.lanes(r))
        for (unsigned j = 0; j < c.words; ++j) want[l * 8 + j] = source_word(r, j);
    for (unsigned i = 0; i < want.size(); ++i) ASSERT_EQ(got[i], want[i]) << "lane " << i / 8 << " column " << i % 8;
  }
}

TEST(EmuTcgen05, ShiftMovesLanesDown) {
  const std::vector<uint32_t> got = run_copy("tcgen05.shift.cta_group::1.down [%t0];");
  for (unsigned l = 0; l < 128; ++l)
    for (unsigned j = 0; j < 8; ++j) {
      const unsigned from = l >= 1 && l < 32 ? l - 1 : l;  // lanes 1-31 take those of 0-30
      ASSERT_EQ(got[l * 8 + j], from << 16 | j) << "lane " << l << " column " << j;
    }
}

// tcgen05.cp with decompression (9.7.16.9.1): each 16-byte chunk holds 16 packed 4-bit (8 bytes
// and 8 of padding) or 6-bit elements (12 bytes and 4 of padding), element i from bit 4i or 6i;
// in tensor memory element i is byte i (its low bits, this project's reading of figures 195-198).
uint32_t decompressed_word(unsigned r, unsigned j, unsigned bits, unsigned rank) {
  uint8_t chunk[16];
  for (unsigned q = 0; q < 4; ++q) {
    const uint32_t w = source_word(r, j / 4 * 4 + q, rank, true);
    for (unsigned b = 0; b < 4; ++b) chunk[4 * q + b] = static_cast<uint8_t>(w >> (8 * b));
  }
  uint32_t word = 0;
  for (unsigned e = 4 * (j % 4); e < 4 * (j % 4) + 4; ++e) {
    uint32_t v = 0;
    for (unsigned b = 0; b < bits; ++b) v |= static_cast<uint32_t>(chunk[(bits * e + b) / 8] >> ((bits * e + b) % 8) & 1) << b;
    word |= v << (8 * (e % 4));
  }
  return word;
}

TEST(EmuTcgen05, CopyDecompresses4And6BitElements) {
  struct Case {
    const char* shape;
    unsigned rows, words, bits;
    unsigned lanes_per_row;  // 1, or 4 for .warpx4
  };
  const Case cases[] = {{"128x256b.b8x16.b4x16_p64", 128, 8, 4, 1}, {"128x128b.b8x16.b6x16_p32", 128, 4, 6, 1}, {"32x128b.warpx4.b8x16.b6x16_p32", 32, 4, 6, 4},
                        {"4x256b.b8x16.b4x16_p64", 4, 8, 4, 1}};
  for (const Case& c : cases) {
    SCOPED_TRACE(c.shape);
    const std::vector<uint32_t> got = run_copy(fmt::format("tcgen05.cp.cta_group::1.{} [%t0], %rd1;", c.shape), 1, true);
    for (unsigned l = 0; l < 128; ++l)
      for (unsigned j = 0; j < 8; ++j) {
        const unsigned r = c.lanes_per_row == 4 ? l % 32 : l;
        const uint32_t want = r < c.rows && j < c.words ? decompressed_word(r, j, c.bits, 0) : l << 16 | j;
        ASSERT_EQ(got[l * 8 + j], want) << "lane " << l << " column " << j;
      }
  }
}

// .cta_group::2: the copy (or shift) acts in both CTAs of the pair, each from its own shared
// memory at the descriptor's offsets (this project's reading: as tcgen05.mma.cta_group::2 reads A
// and B); the words of rank 1's shared memory differ (rank << 16).
TEST(EmuTcgen05, CopyAndShiftOnTheCtaPair) {
  {
    const std::vector<uint32_t> got = run_copy("tcgen05.cp.cta_group::2.128x128b [%t0], %rd1;", 2);
    for (unsigned rank = 0; rank < 2; ++rank)
      for (unsigned l = 0; l < 128; ++l)
        for (unsigned j = 0; j < 8; ++j)
          ASSERT_EQ(got[(rank * 128 + l) * 8 + j], j < 4 ? source_word(l, j, rank) : l << 16 | j) << "rank " << rank << " lane " << l << " column " << j;
  }
  {
    const std::vector<uint32_t> got = run_copy("tcgen05.cp.cta_group::2.4x256b.b8x16.b6x16_p32 [%t0], %rd1;", 2, true);
    for (unsigned rank = 0; rank < 2; ++rank)
      for (unsigned l = 0; l < 128; ++l)
        for (unsigned j = 0; j < 8; ++j)
          ASSERT_EQ(got[(rank * 128 + l) * 8 + j], l < 4 ? decompressed_word(l, j, 6, rank) : l << 16 | j) << "rank " << rank << " lane " << l;
  }
  const std::vector<uint32_t> got = run_copy("tcgen05.shift.cta_group::2.down [%t0+0x200000];", 2);  // lanes 32-63
  for (unsigned rank = 0; rank < 2; ++rank)
    for (unsigned l = 0; l < 128; ++l)
      for (unsigned j = 0; j < 8; ++j) {
        const unsigned from = l >= 33 && l < 64 ? l - 1 : l;
        ASSERT_EQ(got[(rank * 128 + l) * 8 + j], from << 16 | j) << "rank " << rank << " lane " << l;
      }
}

// tcgen05.ld.red (sm_103a, sm_110a): the loaded registers as tcgen05.ld's, and redval the
// minimum or maximum of the thread's loaded columns. Each thread stores 8 columns of its lane
// (values from the host), then loads them back with the reduction.
struct LdRed {
  std::string mods;   // after the shape: .num.redOp{.abs}{.NaN}.type
  bool split = false; // .16x32bx2.x4 with immHalfSplitoff 4, else .32x32b.x8
};

uint32_t reduce_reference(const std::string& mods, const std::vector<uint32_t>& v) {
  const bool max = mods.find(".max") != std::string::npos, abs = mods.find(".abs") != std::string::npos;
  const bool nan_out = mods.find(".NaN") != std::string::npos;
  if (mods.find(".u32") != std::string::npos) return max ? *std::max_element(v.begin(), v.end()) : *std::min_element(v.begin(), v.end());
  if (mods.find(".s32") != std::string::npos) {
    int32_t best = static_cast<int32_t>(v[0]);
    for (uint32_t x : v) best = max ? std::max(best, static_cast<int32_t>(x)) : std::min(best, static_cast<int32_t>(x));
    return static_cast<uint32_t>(best);
  }
  bool any_nan = false, found = false;
  float best = 0;
  for (uint32_t x : v) {
    const float f = abs ? std::fabs(std::bit_cast<float>(x)) : std::bit_cast<float>(x);
    if (std::isnan(f)) {
      any_nan = true;
      continue;
    }
    // -0.0 counts as below +0.0
    const bool better = !found || (max ? (f > best || (f == best && !std::signbit(f) && std::signbit(best)))
                                       : (f < best || (f == best && std::signbit(f) && !std::signbit(best))));
    if (better) best = f, found = true;
  }
  if (!found || (any_nan && nan_out)) return 0x7FFFFFFFu;
  return std::bit_cast<uint32_t>(best);
}

TEST(EmuTcgen05, LoadWithReduction) {
  const LdRed cases[] = {{".x8.min.u32"}, {".x8.max.s32"}, {".x8.min.f32"}, {".x8.max.abs.f32"}, {".x8.min.NaN.f32"}, {".x8.max.abs.NaN.f32"},
                         {".x4.max.f32", true}, {".x4.min.s32", true}};
  std::mt19937 g(77);
  static const uint32_t kFloats[] = {0x3FC00000u, 0xBFC00000u, 0x00000000u, 0x80000000u, 0x7F800000u, 0xFF800000u, 0x7FC00000u, 0xFFC00001u,
                                     0x40400000u, 0xC0400000u, 0x00000001u, 0x80000001u};
  for (const LdRed& c : cases) {
    SCOPED_TRACE(c.mods);
    const bool f32 = c.mods.find(".f32") != std::string::npos;
    std::vector<uint32_t> vals(128 * 8);
    for (uint32_t& v : vals) v = f32 ? kFloats[g() % std::size(kFloats)] : g();
    for (unsigned j = 0; j < 8; ++j) vals[7 * 8 + j] = 0x7FC00000u | j, vals[9 * 8 + j] = j % 2 ? 0x80000000u : 0;  // lane 7 all NaN; lane 9 +-0
    const unsigned R = c.split ? 4 : 8;
    std::string body = alloc(32);
    body += "\tshl.b32 %r4, %r2, 21;\n\tadd.u32 %t1, %t0, %r4;\n\tld.param.u64 %rd1, [p_vals];\n\tmul.wide.u32 %rd2, %r1, 32;\n\tadd.s64 %rd1, %rd1, %rd2;\n";
    for (unsigned i = 0; i < 8; ++i) body += fmt::format("\tld.global.b32 %v{}, [%rd1+{}];\n", i, 4 * i);
    body += fmt::format("\ttcgen05.st.sync.aligned.32x32b.x8.b32 [%t1], {};\n\ttcgen05.wait::st.sync.aligned;\n", regs("v", 0, 8));
    body += fmt::format("\ttcgen05.ld.red.sync.aligned.{}{} {}, %r9, [%t1]{};\n\ttcgen05.wait::ld.sync.aligned;\n", c.split ? "16x32bx2" : "32x32b", c.mods,
                        regs("v", 10, R), c.split ? ", 4" : "");
    body += "\tld.param.u64 %rd3, [p_out];\n\tmul.wide.u32 %rd4, %r1, 36;\n\tadd.s64 %rd3, %rd3, %rd4;\n\tst.global.b32 [%rd3+32], %r9;\n";
    for (unsigned i = 0; i < R; ++i) body += fmt::format("\tst.global.b32 [%rd3+{}], %v{};\n", 4 * i, 10 + i);
    body += dealloc(32);
    std::string ptx = module(".param .u64 p_vals, .param .u64 p_out", body, 16, "", "8.8");
    ptx.replace(ptx.find("sm_100a"), 7, "sm_103a");
    expect_assembles(ptx, "sm_103a");
    if (&c == &cases[0]) {  // not on sm_100a (PTX ISA: sm_101a/sm_110a, the sm_103f and sm_110f families)
      std::string on_100a = ptx;
      on_100a.replace(on_100a.find("sm_103a"), 7, "sm_100a");
      EmuRun wrong;
      wrong.buffer(vals, "vals");
      wrong.buffer(std::vector<uint32_t>(128 * 9), "out");
      try {
        wrong.launch(on_100a, "k", {1, 1, 1}, {128, 1, 1});
        ADD_FAILURE() << "tcgen05.ld.red ran on sm_100a";
      } catch (const std::exception& e) {
        EXPECT_NE(std::string(e.what()).find("requires PTX ISA 8.8, sm_103f (family) or sm_110f (family)"), std::string::npos) << e.what();
      }
    }
    EmuRun run;
    run.buffer(vals, "vals");
    const uint64_t out = run.buffer(std::vector<uint32_t>(128 * 9, 0xDEADBEEF), "out");
    run.launch(ptx, "k", {1, 1, 1}, {128, 1, 1});
    const std::vector<uint32_t> got = run.read<uint32_t>(out, 128 * 9);
    for (unsigned t = 0; t < 128; ++t) {
      std::vector<uint32_t> loaded(R);
      for (unsigned r = 0; r < R; ++r) {
        const auto [dl, dc] = position(c.split ? "16x32bx2" : "32x32b", t % 32, r, 4);
        loaded[r] = vals[(32 * (t / 32) + dl) * 8 + dc];
        ASSERT_EQ(got[t * 9 + r], loaded[r]) << "thread " << t << " register " << r;
      }
      ASSERT_EQ(got[t * 9 + 8], reduce_reference(c.mods, loaded)) << "redval of thread " << t;
    }
  }
}

// Without .shared::cta the destination of tcgen05.alloc is a generic address.
TEST(EmuTcgen05, AllocToAGenericAddress) {
  const std::string body = R"(	cvta.shared.u64 %rd5, tslot;
	tcgen05.alloc.cta_group::1.sync.aligned.b32 [%rd5], 64;
	ld.shared.b32 %t0, [tslot];
	shl.b32 %r5, %r3, 3;
	tcgen05.st.sync.aligned.32x32b.x1.b32 [%t0+63], {%r5};
	tcgen05.wait::st.sync.aligned;
	tcgen05.ld.sync.aligned.32x32b.x1.b32 {%v0}, [%t0+63];
	tcgen05.wait::ld.sync.aligned;
	tcgen05.dealloc.cta_group::1.sync.aligned.b32 %t0, 64;
	ld.param.u64 %rd1, [p_out];
	mul.wide.u32 %rd2, %r3, 4;
	add.s64 %rd1, %rd1, %rd2;
	st.global.b32 [%rd1], %v0;
)";
  const std::string ptx = module(".param .u64 p_out", body);
  expect_assembles(ptx);
  EmuRun run;
  const uint64_t out = run.buffer(std::vector<uint32_t>(32, 0xDEADBEEF), "out");
  run.launch(ptx, "k", {1, 1, 1}, {32, 1, 1});
  const std::vector<uint32_t> got = run.read<uint32_t>(out, 32);
  for (unsigned l = 0; l < 32; ++l) EXPECT_EQ(got[l], 8 * l);
}

// ---- checks ---------------------------------------------------------------------------------------

TEST(EmuTcgen05, ChecksReportTensorMemoryMisuse) {
  struct Case {
    const char* name;
    std::string body;
    const char* report;
    unsigned threads = 32;
  };
  const std::string ld = "\ttcgen05.ld.sync.aligned.32x32b.x1.b32 {%v0}, [%t1];\n";
  const Case cases[] = {
      {"a size that is not a power of 2", "\tmov.u32 %r9, 48;\n\ttcgen05.alloc.cta_group::1.sync.aligned.shared::cta.b32 [tslot], %r9;\n", "power of 2"},
      {"more than 512 columns",
       "\ttcgen05.alloc.cta_group::1.sync.aligned.shared::cta.b32 [tslot], 512;\n\ttcgen05.alloc.cta_group::1.sync.aligned.shared::cta.b32 [tslot], 32;\n",
       "no free range"},
      {"a double dealloc",
       "\ttcgen05.alloc.cta_group::1.sync.aligned.shared::cta.b32 [tslot], 32;\n\tld.shared.b32 %t0, [tslot];\n"
       "\ttcgen05.dealloc.cta_group::1.sync.aligned.b32 %t0, 32;\n\ttcgen05.dealloc.cta_group::1.sync.aligned.b32 %t0, 32;\n",
       "no allocation starts there"},
      {"a dealloc of the wrong size",
       "\ttcgen05.alloc.cta_group::1.sync.aligned.shared::cta.b32 [tslot], 64;\n\tld.shared.b32 %t0, [tslot];\n"
       "\ttcgen05.dealloc.cta_group::1.sync.aligned.b32 %t0, 32;\n",
       "the allocation there has 64 columns"},
      {"a leak at exit", "\ttcgen05.alloc.cta_group::1.sync.aligned.shared::cta.b32 [tslot], 32;\n", "still allocated"},
      {"alloc after relinquish",
       "\ttcgen05.relinquish_alloc_permit.cta_group::1.sync.aligned;\n\ttcgen05.alloc.cta_group::1.sync.aligned.shared::cta.b32 [tslot], 32;\n",
       "after tcgen05.relinquish_alloc_permit"},
      {"an access to unallocated columns",
       "\ttcgen05.alloc.cta_group::1.sync.aligned.shared::cta.b32 [tslot], 32;\n\tld.shared.b32 %t0, [tslot];\n\tadd.u32 %t1, %t0, 32;\n" + ld,
       "columns 32 to 32 are not allocated"},
      {"the wrong lane quarter",
       "\tbar.sync 0;\n\tsetp.ne.u32 %p2, %r2, 1;\n\t@%p2 bra $end;\n\ttcgen05.alloc.cta_group::1.sync.aligned.shared::cta.b32 [tslot], 32;\n"
       "\tld.shared.b32 %t1, [tslot];\n" + ld + "$end:\n",
       "warp 1 may access tensor memory lanes 32 to 63", 64},
      {"a divergent tcgen05.ld",
       "\ttcgen05.alloc.cta_group::1.sync.aligned.shared::cta.b32 [tslot], 32;\n\tld.shared.b32 %t1, [tslot];\n\tsetp.lt.u32 %p2, %r3, 16;\n"
       "\t@%p2 tcgen05.ld.sync.aligned.32x32b.x1.b32 {%v0}, [%t1];\n",
       "needs all 32 lanes"},
      {"tcgen05.shift.cta_group::2 without a CTA pair",
       "\ttcgen05.alloc.cta_group::2.sync.aligned.shared::cta.b32 [tslot], 32;\n\tld.shared.b32 %t0, [tslot];\n\ttcgen05.shift.cta_group::2.down [%t0];\n",
       "tcgen05.shift.cta_group::2 needs a pair of CTAs in the cluster (ranks 0 and 1); the cluster has 1"},
      {"tcgen05.cp.cta_group::2 without a CTA pair",
       "\ttcgen05.alloc.cta_group::2.sync.aligned.shared::cta.b32 [tslot], 32;\n\tld.shared.b32 %t0, [tslot];\n\tmov.b64 %rd1, 0x400000000000;\n"
       "\ttcgen05.cp.cta_group::2.128x128b.b8x16.b4x16_p64 [%t0], %rd1;\n",
       "tcgen05.cp.cta_group::2 needs a pair of CTAs"},
      {"tensor memory freed under a tcgen05.ld not waited for",
       "\ttcgen05.alloc.cta_group::1.sync.aligned.shared::cta.b32 [tslot], 32;\n\tld.shared.b32 %t1, [tslot];\n" + ld +
           "\ttcgen05.dealloc.cta_group::1.sync.aligned.b32 %t1, 32;\n",
       "tcgen05.dealloc frees tensor memory columns 0 to 31, which 'tcgen05.ld"},
      {"another warp's tcgen05.st over a tcgen05.ld not waited for",
       alloc(32) + "\tsetp.ne.u32 %p2, %r2, 0;\n\t@%p2 bra $st;\n\ttcgen05.ld.sync.aligned.32x32b.x1.b32 {%v0}, [%t0];\n$st:\n\tbar.sync 0;\n"
           "\tsetp.ne.u32 %p2, %r2, 4;\n\t@%p2 bra $end;\n\ttcgen05.st.sync.aligned.32x32b.x1.b32 [%t0], {%v1};\n$end:\n",
       "tcgen05.st writes tensor memory columns 0 to 0, which 'tcgen05.ld", 160},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.name);
    const std::string ptx = module(".param .u64 p_out", c.body);
    expect_assembles(ptx);
    const std::string error = run_error(ptx, c.threads);
    EXPECT_NE(error.find(c.report), std::string::npos) << error;
  }
}

// A tcgen05.ld's registers read before tcgen05.wait::ld, as CUTLASS 4.2's Blackwell epilogue
// does (it waits once, before releasing the accumulator): ptxas 13 makes the reading instruction
// wait for the load's scoreboard (LDTM, then IMAD waiting on its barrier, with or without the
// wait), so it is no hazard; the wait orders the tensor-memory read before later writes.
TEST(EmuTcgen05, LoadRegistersReadBeforeTheWaitRun) {
  const std::string ptx = module(".param .u64 p_out",
                                 "\ttcgen05.alloc.cta_group::1.sync.aligned.shared::cta.b32 [tslot], 32;\n\tld.shared.b32 %t1, [tslot];\n"
                                 "\ttcgen05.st.sync.aligned.32x32b.x1.b32 [%t1], {%r1};\n\ttcgen05.wait::st.sync.aligned;\n"
                                 "\ttcgen05.ld.sync.aligned.32x32b.x1.b32 {%v0}, [%t1];\n\tadd.u32 %r9, %v0, 1;\n"
                                 "\tld.param.u64 %rd1, [p_out];\n\tmul.wide.u32 %rd2, %r1, 4;\n\tadd.s64 %rd1, %rd1, %rd2;\n\tst.global.b32 [%rd1], %r9;\n"
                                 "\ttcgen05.wait::ld.sync.aligned;\n\ttcgen05.dealloc.cta_group::1.sync.aligned.b32 %t1, 32;\n");
  expect_assembles(ptx);
  EmuRun r;
  const uint64_t out = r.buffer(std::vector<uint32_t>(32, 0), "out");
  r.launch(ptx, "k", {1, 1, 1}, {32, 1, 1});
  const std::vector<uint32_t> got = r.read<uint32_t>(out, 32);
  for (uint32_t l = 0; l < 32; ++l) EXPECT_EQ(got[l], l + 1);
}

// Options::check_tcgen05_wait off: tensor memory freed under an unwaited load is not reported.
TEST(EmuTcgen05, UnwaitedLoadCheckCanBeTurnedOff) {
  const std::string ptx = module(".param .u64 p_out",
                                 "\ttcgen05.alloc.cta_group::1.sync.aligned.shared::cta.b32 [tslot], 32;\n\tld.shared.b32 %t1, [tslot];\n"
                                 "\ttcgen05.ld.sync.aligned.32x32b.x1.b32 {%v0}, [%t1];\n\ttcgen05.dealloc.cta_group::1.sync.aligned.b32 %t1, 32;\n");
  ptx::emu::Options off;
  off.validate = false;
  off.check_tcgen05_wait = false;
  EmuRun r{ptx::emu::Emulator(off), {}};
  r.buffer(std::vector<uint32_t>(16, 0), "out");
  EXPECT_NO_THROW(r.launch(ptx, "k", {1, 1, 1}, {32, 1, 1}));
  EXPECT_NE(run_error(ptx, 32).find("before that warp's tcgen05.wait::ld"), std::string::npos);  // on by default
}

TEST(EmuTcgen05, MalformedAndUnsupportedFormsAreReported) {
  struct Case {
    const char* body;
    const char* report;
  };
  const Case cases[] = {
      {"\ttcgen05.ld.sync.aligned.32x32b.x2.b32 {%v0}, [%t1];\n", "takes 2 registers"},
      {"\ttcgen05.ld.sync.aligned.16x256b.x64.b32 {%v0}, [%t1];\n", "at most 128"},
      {"\ttcgen05.alloc.sync.aligned.shared::cta.b32 [tslot], 32;\n", "needs .cta_group::1 or .cta_group::2"},
      {"\ttcgen05.mma.ws.cta_group::2.kind::f16 [%t0], %rd1, %rd2, %r1, %p1;\n", ".ws is .cta_group::1 only"},
      {"\ttcgen05.mma.ws.cta_group::1.kind::mxf4.block_scale [%t0], %rd1, %rd2, %r1, [%t1], [%t2], %p1;\n", "has no block scaling"},
      {"\ttcgen05.mma.ws.cta_group::1.kind::f16.collector::a::fill [%t0], %rd1, %rd2, %r1, %p1;\n", "takes .collector::b0 to ::b3"},
      {"\ttcgen05.mma.cta_group::1.kind::f16.collector::b0::fill [%t0], %rd1, %rd2, %r1, %p1;\n", ".collector::bN is for tcgen05.mma.ws"},
      {"\ttcgen05.mma.ws.cta_group::1.kind::f16 [%t0], %rd1, %rd2, %r1, %p1, %rd3, %rd4;\n", "tcgen05.mma.ws with 7 operands"},
      {"\ttcgen05.mma.sp.cta_group::1.kind::f16 [%t0], %rd1, %rd2, %r1, %p1;\n", "takes [sp-meta-tmem], a tensor memory address [register], after b-desc"},
      {"\ttcgen05.mma.sp.cta_group::1.kind::f16 [%t0], %rd1, %rd2, [%t1], %r1;\n", "tcgen05.mma.sp (its operands without [sp-meta-tmem]): tcgen05.mma with 4"},
      {"\ttcgen05.ld.sp.sync.aligned.32x32b.x1.b32 {%v0}, [%t1];\n", ".sp is for tcgen05.mma"},
      {"\ttcgen05.mma.sp.cta_group::1.kind::f16 [%t0], %rd1, %rd2, [%rd3], %r1, %p1;\n", "takes [sp-meta-tmem], a tensor memory address"},
      {"\ttcgen05.mma.sp.cta_group::1.kind::mxf4 [%t0], %rd1, %rd2, [%t1], %r1, [%t2], [%t3], %p1;\n", "without [sp-meta-tmem]): tcgen05.mma.kind::mxf4 needs .block_scale"},
      {"\ttcgen05.mma.sp.cta_group::1.kind::i8 [%t0], %rd1, %rd2, [%t1], %r1, %p1, 2;\n", "scale-input-d is only for"},
      {"\ttcgen05.cp.cta_group::1.128x256b.b6x16_p32 [%t0], %rd1;\n", "both .b8x16 and a source format"},
      {"\ttcgen05.ld.red.sync.aligned.16x64b.x2.min.u32 {%v0, %v1}, %r5, [%t1];\n", "takes the shapes .32x32b and .16x32bx2"},
      {"\ttcgen05.ld.red.sync.aligned.32x32b.x2.u32 {%v0, %v1}, %r5, [%t1];\n", "needs .min or .max"},
      {"\ttcgen05.ld.red.sync.aligned.32x32b.x2.min.abs.u32 {%v0, %v1}, %r5, [%t1];\n", ".abs and .NaN are for .f32 only"},
      {"\ttcgen05.ld.red.sync.aligned.32x32b.x1.max.s32 {%v0}, %r5, [%t1];\n", "at least .x2"},
      {"\ttcgen05.ld.red.sync.aligned.32x32b.x2.max.s32 {%v0, %v1}, [%t1];\n", "tcgen05.ld.red with 2 operands"},
      {"\ttcgen05.ld.red.sync.aligned.32x32b.x2.max.f32 {%v0, %v1}, %rd5, [%t1];\n", "redval of tcgen05.ld.red must be a 32-bit register"},
      {"\ttcgen05.ld.sync.aligned.32x32b.x2.max.b32 {%v0, %v1}, [%t1];\n", "are for tcgen05.ld.red"},
      {"\ttcgen05.mma.cta_group::1.kind::f16.block_scale [%t0], %rd1, %rd2, %r1, [%t1], [%t2], %p1;\n", "only for .kind::mxf8f6f4"},
      {"\ttcgen05.mma.cta_group::1.kind::mxf4 [%t0], %rd1, %rd2, %r1, [%t1], [%t2], %p1;\n", "needs .block_scale"},
      {"\ttcgen05.mma.cta_group::1.kind::mxf4.block_scale.scale_vec::4X [%t0], %rd1, %rd2, %r1, [%t1], [%t2], %p1;\n", "not a scale vector size"},
      {"\ttcgen05.mma.cta_group::1.kind::mxf8f6f4.block_scale.block16 [%t0], %rd1, %rd2, %r1, [%t1], [%t2], %p1;\n", "not a scale vector size"},
      {"\ttcgen05.mma.cta_group::1.kind::mxf4nvf4.block_scale [%t0], %rd1, %rd2, %r1, [%t1], [%t2], %p1;\n", "needs a scale vector size"},
      {"\ttcgen05.mma.cta_group::1.kind::mxf4.block_scale.scale_vec::2X.block32 [%t0], %rd1, %rd2, %r1, [%t1], [%t2], %p1;\n", "one scale vector size"},
      {"\ttcgen05.mma.cta_group::1.kind::mxf6 [%t0], %rd1, %rd2, %r1, %p1;\n", "the ISA has no modifier .kind::mxf6"},
      {"\ttcgen05.mma.cta_group::1.kind::mxf4.block_scale [%t0], %rd1, %rd2, %r1, [%t1], %p1;\n", "it takes 7"},
      {"\ttcgen05.mma.cta_group::1.kind::mxf4.block_scale [%t0], %rd1, %rd2, %r1, %r2, [%t2], %p1;\n", "scale-A-tmem of tcgen05.mma must be"},
      {"\ttcgen05.mma.cta_group::1.kind::f8f6f4 [%t0], %rd1, %rd2, %r1, %p1, 3;\n", "scale-input-d is only for"},
      {"\ttcgen05.mma.cta_group::1.kind::f16 [%t0], %rd1, %rd2, %r1, {%r2, %r3}, %p1;\n", "must be 4 registers"},
      {"\ttcgen05.mma.cta_group::1.kind::f16 [%t0], %r1, %rd2, %r1, %p1;\n", "64-bit descriptor"},
      {"\ttcgen05.commit.cta_group::1.shared::cluster.b64 [mbar];\n", "needs .mbarrier::arrive::one"},
      {"\ttcgen05.cp.cta_group::1.64x128b [%t0], %rd1;\n", ".64x128b needs .warpx2"},
      {"\ttcgen05.cp.cta_group::1.128x128b.warpx4 [%t0], %rd1;\n", "the other shapes take none"},
      {"\ttcgen05.st.sync.aligned.16x32bx2.x1.b32 [%t0], %r1, {%v0};\n", "immHalfSplitoff"},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.body);
    EXPECT_NE(run_error(module(".param .u64 p_out", c.body), 32).find(c.report), std::string::npos) << run_error(module(".param .u64 p_out", c.body), 32);
  }
}

}  // namespace
