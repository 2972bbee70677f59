// The emulator as a sandbox: a kernel (valid PTX, as ptxas takes it) must never reach the host's
// memory, allocate without bound or run without end. Each test plants one such kernel and expects
// a report naming what went over which limit; none may crash (the ASan build runs them too).
#include <fmt/format.h>

#include <atomic>
#include <limits>

#include <ptxpp/emu/texture.hpp>

#include "../unit/ptxas_util.hpp"
#include "emu_test_util.hpp"

namespace ptx::test {
namespace {

const char* kHeader = ".version 8.0\n.target sm_90a\n.address_size 64\n\n";

void expect_has(const std::string& report, const std::string& part) {
  EXPECT_NE(report.find(part), std::string::npos) << report;
}

void expect_assembles(const std::string& text, const char* arch = "sm_90a") {
  if (!have_ptxas()) return;
  const auto as = run_ptxas(text, arch);
  EXPECT_TRUE(as.ok) << as.log;
}

// ---- every memory space at offsets near 0 and near 2^64 ------------------------------------------

// A kernel that does `access` (using the 64-bit address in %rd2 = `address`) in one thread;
// `decls` at module scope, or in the kernel for .local.
std::string access_kernel(const std::string& decls, int64_t address, const std::string& access) {
  const bool local = decls.starts_with(".local");
  return std::string(kHeader) + fmt::format(R"({}
.visible .entry t(.param .u64 p)
{{
	.reg .b64 %rd<4>;
	.reg .b32 %r<4>;
	{}
	mov.u64 %rd2, {};
	{};
	ret;
}}
)",
                                            local ? "" : decls, local ? decls : "", address, access);
}

struct SpaceCase {
  const char* name;
  std::string decls, access;
  const char* report;  // part of the expected report at an address near 2^64
};

std::vector<SpaceCase> space_cases() {
  return {
      {"global store", ".global .b32 g;", "st.global.u32 [%rd2], 7", "4-byte store at 0x"},
      {"global load", ".global .b32 g;", "ld.global.u32 %r1, [%rd2]", "4-byte load at 0x"},
      {"const load", ".const .b32 c = 5;", "ld.const.u32 %r1, [%rd2]", "4-byte load at 0x"},
      {"generic store", "", "st.u32 [%rd2], 7", "4-byte store at 0x"},
      {"shared store", ".shared .align 4 .b8 s[64];", "st.shared.u32 [%rd2], 7", "4-byte store at shared+0x"},
      {"shared load", ".shared .align 4 .b8 s[64];", "ld.shared.u32 %r1, [%rd2]", "4-byte load at shared+0x"},
      {"shared::cluster store", ".shared .align 4 .b8 s[64];", "st.shared::cluster.u32 [%rd2], 7",
       "shared::cluster address"},
      {"local store", ".local .align 4 .b8 l[64];", "st.local.u32 [%rd2], 7", "4-byte store at local+0x"},
      {"local load", ".local .align 4 .b8 l[64];", "ld.local.u32 %r1, [%rd2]", "4-byte load at local+0x"},
      {"param load", "", "ld.param.u32 %r1, [%rd2]", "4-byte load at param+0x"},
  };
}

// -4 is what an index that went below zero gives: before the wrap-free checks it crashed the host
// (global), corrupted its heap (shared, local) or read host memory (local, param).
TEST(EmuSandbox, EverySpaceRefusesAddressesNearTwoToThe64) {
  for (const SpaceCase& c : space_cases()) {
    for (const int64_t address : {int64_t{-4}, int64_t{-8}, std::numeric_limits<int64_t>::min()}) {
      SCOPED_TRACE(fmt::format("{} at {:#x}", c.name, static_cast<uint64_t>(address)));
      const std::string text = access_kernel(c.decls, address, c.access);
      if (address == -4) expect_assembles(text);
      EmuRun r;
      r.scalar(uint64_t{0});
      const std::string rep = report_of(r, text, {1, 1, 1}, {1, 1, 1});
      expect_has(rep, address == -4 ? c.report : "out");
    }
  }
}

// Offsets near 0: the first bytes past an empty space, and one byte short of the end.
TEST(EmuSandbox, EverySpaceRefusesOffsetsPastItsEnd) {
  const std::vector<SpaceCase> near_zero = {
      {"shared end", ".shared .align 4 .b8 s[64];", "st.shared.u32 [%rd2+64], 7",
       "4-byte store at shared+64: out of bounds (the CTA has 64 bytes)"},
      {"local end", ".local .align 4 .b8 l[64];", "st.local.u32 [%rd2+64], 7",
       "4-byte store at local+64: outside the thread's frames (64 bytes)"},
      {"param end", "", "ld.param.u32 %r1, [%rd2+8]",
       "4-byte load at param+8: out of bounds (the parameters have 8 bytes)"},
      {"global null", "", "ld.global.u32 %r1, [%rd2]", "4-byte load at 0x0"},
  };
  for (const SpaceCase& c : near_zero) {
    SCOPED_TRACE(c.name);
    EmuRun r;
    r.scalar(uint64_t{0});
    expect_has(report_of(r, access_kernel(c.decls, 0, c.access), {1, 1, 1}, {1, 1, 1}), c.report);
  }
}

// The library's own entry points, with addresses a host program may compute wrongly.
TEST(EmuSandbox, MemoryApiRefusesRangesThatWrap) {
  emu::Memory mem;
  const uint64_t a = mem.alloc(16, "a");
  uint8_t bytes[8] = {};
  for (const uint64_t at : {~uint64_t{0} - 2, ~uint64_t{0}, a + 12, a - 4}) {
    SCOPED_TRACE(fmt::format("{:#x}", at));
    EXPECT_THROW(mem.write(at, bytes, 8), emu::Error);
    EXPECT_THROW(mem.read(bytes, at, 8), emu::Error);
    EXPECT_THROW(mem.fill(at, 0, 8), emu::Error);
    EXPECT_EQ(mem.find(at, 8), nullptr);
  }
  EXPECT_EQ(mem.find(a + 8, ~uint64_t{0} - 4), nullptr);  // a size that wraps the sum
  EXPECT_NE(mem.find(a + 8, 8), nullptr);
  try {
    mem.write(~uint64_t{0} - 2, bytes, 8);
  } catch (const emu::Error& e) {
    expect_has(e.what(), "write of 8 bytes at 0xfffffffffffffffd");
  }
}

// Tensor memory: a tcgen05 address is 32 bits (lane << 16 | column); one near 2^32 is refused.
TEST(EmuSandbox, TensorMemoryRefusesAddressesNearItsEnd) {
  const std::string text =
      std::string(".version 8.7\n.target sm_100a\n.address_size 64\n\n") + R"(.visible .entry t(.param .u64 out)
{
	.reg .b32 %r<8>;
	.reg .b64 %rd<3>;
	.reg .pred %p1;
	.shared .align 4 .b32 tslot;
	mov.u32 %r1, %tid.x;
	shr.u32 %r2, %r1, 5;
	setp.eq.u32 %p1, %r2, 0;
	@!%p1 bra $allocated;
	tcgen05.alloc.cta_group::1.sync.aligned.shared::cta.b32 [tslot], 32;
	tcgen05.relinquish_alloc_permit.cta_group::1.sync.aligned;
$allocated:
	bar.sync 0;
	ld.shared.b32 %r3, [tslot];
	add.u32 %r4, %r3, -4;
	tcgen05.ld.sync.aligned.32x32b.x1.b32 {%r5}, [%r4];
	tcgen05.wait::ld.sync.aligned;
	tcgen05.dealloc.cta_group::1.sync.aligned.b32 %r3, 32;
	ret;
}
)";
  expect_assembles(text, "sm_100a");
  EmuRun r;
  r.scalar(uint64_t{0});
  const std::string rep = report_of(r, text, {1, 1, 1}, {32, 1, 1});
  expect_has(rep, "tcgen05.ld");
}

// Texture and surface resources whose memory would end past 2^64 are refused when created.
TEST(EmuSandbox, TextureResourcesNearTwoToThe64AreRefused) {
  emu::Memory mem;
  mem.alloc(64, "texels");
  emu::TextureDesc t;
  t.resource.shape = emu::ResourceShape::Linear;
  t.resource.address = ~uint64_t{0} - 15;
  t.resource.width = 16;
  t.resource.format = {emu::ChannelKind::F32, 1};
  EXPECT_THROW(mem.create_texture(t), emu::Error);
  emu::SurfaceDesc s;
  s.resource = t.resource;
  EXPECT_THROW(mem.create_surface(s), emu::Error);
}

// ---- stacks and the launch's memory -----------------------------------------------------------

// A recursive function with a 1 MiB .local array: before the limit covered call frames, 32
// threads took 6 GB in 14 s.
const std::string kRecursion = std::string(kHeader) + R"(.func (.param .b32 r) f(.param .b32 n)
{
	.local .align 4 .b8 big[BYTES];
	.reg .b32 %r<4>;
	.reg .pred %p1;
	ld.param.b32 %r1, [n];
	st.local.u32 [big], %r1;
	setp.eq.u32 %p1, %r1, 0;
	@%p1 bra DONE;
	sub.u32 %r2, %r1, 1;
	{
	.param .b32 a;
	.param .b32 rv;
	st.param.b32 [a], %r2;
	call (rv), f, (a);
	ld.param.b32 %r3, [rv];
	}
DONE:
	st.param.b32 [r], %r1;
	ret;
}
.visible .entry t()
{
	{
	.param .b32 a;
	.param .b32 rv;
	st.param.b32 [a], DEPTH;
	call (rv), f, (a);
	}
	ret;
}
)";

std::string recursion(unsigned bytes, unsigned depth) {
  std::string s = kRecursion;
  s.replace(s.find("BYTES"), 5, std::to_string(bytes));
  s.replace(s.find("DEPTH"), 5, std::to_string(depth));
  return s;
}

TEST(EmuSandbox, CallFramesCountAgainstTheStackLimit) {
  const std::string big = recursion(1 << 20, 100000);
  expect_assembles(big);
  EmuRun r;
  expect_has(report_of(r, big, {1, 1, 1}, {32, 1, 1}),
             "call to f: the thread's stack would reach 1048608 bytes; the limit is 524288 (call frames and alloca: "
             "Options::max_stack_bytes)");
  // 4 KiB frames: the limit is reached after about 128 calls deep
  EmuRun deep;
  expect_has(report_of(deep, recursion(4096, 100000), {1, 1, 1}, {1, 1, 1}), "the limit is 524288");
  // within the limit, it runs
  EmuRun ok;
  ok.launch(recursion(4096, 100), "t", {1, 1, 1}, {32, 1, 1});
  // the limit is an option
  emu::Options o;
  o.max_stack_bytes = 64 << 10;
  EmuRun small{emu::Emulator(o), {}};
  expect_has(report_of(small, recursion(4096, 100), {1, 1, 1}, {1, 1, 1}), "the limit is 65536");
}

TEST(EmuSandbox, AllocaCountsAgainstTheStackLimit) {
  const std::string text =
      std::string(".version 8.7\n.target sm_90a\n.address_size 64\n\n") + R"(.visible .entry t(.param .u64 n)
{
	.reg .b64 %rd<4>;
	ld.param.u64 %rd1, [n];
	alloca.u64 %rd2, %rd1;
	ret;
}
)";
  expect_assembles(text);
  for (const uint64_t n : {uint64_t{600} << 10, ~uint64_t{0} - 7}) {
    EmuRun r;
    r.scalar(n);
    expect_has(report_of(r, text, {1, 1, 1}, {1, 1, 1}), "the limit is 524288");
  }
}

// Every thread of a full block recursing within its stack limit still cannot take more host
// memory than the launch may hold.
TEST(EmuSandbox, TheLaunchsMemoryIsBounded) {
  emu::Options o;
  o.max_launch_memory = 64 << 20;
  EmuRun r{emu::Emulator(o), {}};
  const std::string rep = report_of(r, recursion(64 << 10, 5), {1, 1, 1}, {1024, 1, 1});
  expect_has(rep, "more bytes of stack: the launch may hold 67108864 bytes of host memory (Options::max_launch_memory");
  // registers: 2^20 of them in 32 warps would be 8 GiB
  const std::string regs = std::string(kHeader) + R"(.visible .entry t()
{
	.reg .b32 %r<1000000>;
	mov.u32 %r999999, 1;
	ret;
}
)";
  EmuRun many;
  expect_has(report_of(many, regs, {1, 1, 1}, {1024, 1, 1}), "registers in 32 warps");
  EmuRun one;  // one warp of them fits the default budget
  one.launch(regs, "t", {1, 1, 1}, {32, 1, 1});
}

// ---- launch limits --------------------------------------------------------------------------------

emu::LaunchConfig config(emu::Dim3 grid, emu::Dim3 block, uint32_t smem = 0, emu::Dim3 cluster = {}) {
  emu::LaunchConfig c;
  c.grid = grid, c.block = block, c.dynamic_smem = smem, c.cluster = cluster;
  return c;
}

emu::ConfigError::Field refused_field(const std::string& text, const emu::LaunchConfig& cfg) {
  auto parsed = text::parse(text);
  EXPECT_TRUE(bool(parsed));
  emu::Emulator e;
  try {
    e.launch(parsed.module(), "t", cfg, {});
  } catch (const emu::ConfigError& err) {
    return err.field;
  }
  ADD_FAILURE() << "launched";
  return emu::ConfigError::Field::Arguments;
}

TEST(EmuSandbox, GridBlockAndSharedMemoryLimitsAreAGpus) {
  const std::string text = std::string(kHeader) + ".visible .entry t()\n{\n\tret;\n}\n";
  using F = emu::ConfigError::Field;
  EXPECT_EQ(refused_field(text, config({1, 65536, 1}, {1, 1, 1})), F::Grid);
  EXPECT_EQ(refused_field(text, config({1, 1, 65536}, {1, 1, 1})), F::Grid);
  EXPECT_EQ(refused_field(text, config({0x80000000u, 1, 1}, {1, 1, 1})), F::Grid);
  EXPECT_EQ(refused_field(text, config({1, 1, 1}, {1, 1, 65})), F::Block);
  EXPECT_EQ(refused_field(text, config({1, 1, 1}, {2048, 1, 1})), F::Block);
  EXPECT_EQ(refused_field(text, config({1, 1, 1}, {64, 32, 1})), F::Block);
  EXPECT_EQ(refused_field(text, config({4, 1, 1}, {1, 1, 1}, 0, {3, 1, 1})), F::Cluster);
  // sm_90a: 227 KiB per CTA, static and dynamic together
  EXPECT_EQ(refused_field(text, config({1, 1, 1}, {1, 1, 1}, 227 * 1024 + 1)), F::SharedMemory);
  EXPECT_EQ(refused_field(text, config({1, 1, 1}, {1, 1, 1}, 1u << 30)), F::SharedMemory);
  EmuRun fits;
  fits.launch(text, "t", {1, 1, 1}, {1, 1, 1}, 227 * 1024);
  // sm_80: 163 KiB; sm_86: 99 KiB; sm_75: 64 KiB
  std::string sm80 = text;
  sm80.replace(sm80.find("sm_90a"), 6, "sm_80");
  EXPECT_EQ(refused_field(sm80, config({1, 1, 1}, {1, 1, 1}, 163 * 1024 + 1)), F::SharedMemory);
  EXPECT_EQ(emu::max_shared_memory_per_block("sm_86"), 99u * 1024);
  EXPECT_EQ(emu::max_shared_memory_per_block("sm_75"), 64u * 1024);
  EXPECT_EQ(emu::max_shared_memory_per_block("sm_100a"), 227u * 1024);
  EXPECT_EQ(emu::max_shared_memory_per_block("sm_120a"), 99u * 1024);
  EXPECT_EQ(emu::max_shared_memory_per_block("sm_61"), 48u * 1024);
  EmuRun r;
  expect_has(report_of(r, text, {1, 1, 1}, {1, 1, 1}, 1u << 30),
             "launch of t: 1073741824 bytes of shared memory per CTA (0 static, 1073741824 dynamic): a GPU of target "
             "sm_90a takes at most 232448");
}

// ---- hangs and livelocks --------------------------------------------------------------------------

const std::string kSpin = std::string(kHeader) + R"(.visible .entry t()
{
L:
	bra L;
}
)";

TEST(EmuSandbox, AHangIsReportedWithWhereTheWarpsAre) {
  emu::Options o;
  o.max_steps = 100000;
  EmuRun r{emu::Emulator(o), {}};
  const std::string rep = report_of(r, kSpin, {1, 1, 1}, {64, 1, 1});
  expect_has(
      rep, "kernel t, CTA (0,0,0): hung; still running after 100000 warp instructions (the limit: Options::max_steps");
  expect_has(rep, "warp 0 running at 'bra 	L;'");
  expect_has(rep, "warp 1 running at 'bra 	L;'");
}

TEST(EmuSandbox, TheTimeLimitStopsAKernel) {
  emu::Options o;
  std::atomic<int> reports{0};
  o.on_progress = [&](const emu::Progress& p) {
    ++reports;
    EXPECT_EQ(p.ctas, 2u);
  };
  o.timeout_seconds = 1.5;  // long enough for a progress report (one a second)
  EmuRun r{emu::Emulator(o), {}};
  const std::string rep = report_of(r, kSpin, {2, 1, 1}, {32, 1, 1});
  expect_has(rep, "hung; still running after");
  expect_has(rep, "(the limit: Options::timeout_seconds, ptxpp run --timeout)");
  EXPECT_GE(reports.load(), 1);
}

// Warp 0 spins on a flag nobody sets while warp 1 waits for it at bar.sync: before, warp 1 never
// ran and the report (if any came) did not say why.
const std::string kSpinBeforeBarrier = std::string(kHeader) + R"(.visible .entry t(.param .u64 flag)
{
	.reg .b32 %r<3>;
	.reg .b64 %rd<2>;
	.reg .pred %p<2>;
	ld.param.u64 %rd1, [flag];
	mov.u32 %r1, %tid.x;
	setp.ge.u32 %p1, %r1, 32;
	@%p1 bra SET;
SPIN:
	ld.volatile.global.u32 %r2, [%rd1];
	setp.eq.u32 %p1, %r2, 0;
	@%p1 bra SPIN;
	bra BAR;
SET:
	st.volatile.global.u32 [%rd1], VALUE;
BAR:
	bar.sync 0;
	ret;
}
)";

TEST(EmuSandbox, ALivelockIsReportedAsSuch) {
  std::string never = kSpinBeforeBarrier;
  never.replace(never.find("VALUE"), 5, "0");
  expect_assembles(never);
  emu::Options o;
  o.max_steps = 1000000;
  EmuRun r{emu::Emulator(o), {}};
  r.buffer(std::vector<uint32_t>{0}, "flag");
  const std::string rep = report_of(r, never, {1, 1, 1}, {64, 1, 1});
  expect_has(rep, "livelock: warps wait at a barrier that the other warps, running, never reach");
  expect_has(rep, "warp 1 waiting at 'bar.sync 	0;'");
}

// The same kernel where warp 1 sets the flag before the barrier runs, as on a GPU: each warp has
// its turn (it used to hang, warp 0 running alone).
TEST(EmuSandbox, AWarpSpinningOnAnotherWarpsFlagSeesItSet) {
  std::string set = kSpinBeforeBarrier;
  set.replace(set.find("VALUE"), 5, "1");
  emu::Options o;
  o.max_steps = 1000000;
  EmuRun r{emu::Emulator(o), {}};
  const uint64_t flag = r.buffer(std::vector<uint32_t>{0}, "flag");
  r.launch(set, "t", {1, 1, 1}, {64, 1, 1});
  EXPECT_EQ(r.read<uint32_t>(flag, 1)[0], 1u);
}

}  // namespace
}  // namespace ptx::test
