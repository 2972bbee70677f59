// The emulator's checks: each test plants one kind of bug and expects the report
// to name the kernel, the CTA and thread, the instruction, and the buffer and offset.
#include "emu_test_util.hpp"

namespace ptx::test {
namespace {

const char* kHeader = ".version 8.0\n.target sm_90a\n.address_size 64\n\n";

TEST(EmuChecks, OutOfBoundsGlobalStore) {
  // one thread too many: no bounds check in the kernel
  const std::string text = std::string(kHeader) + R"(.visible .entry t(.param .u64 out)
{
	.reg .b32 %r<3>;
	.reg .b64 %rd<4>;
	ld.param.u64 %rd1, [out];
	mov.u32 %r1, %tid.x;
	mul.wide.u32 %rd2, %r1, 4;
	add.s64 %rd3, %rd1, %rd2;
	st.global.u32 [%rd3], %r1;
	ret;
}
)";
  EmuRun r;
  r.buffer(std::vector<uint32_t>(31), "out");
  const std::string rep = report_of(r, text, {1, 1, 1}, {32, 1, 1});
  EXPECT_NE(rep.find("kernel t, CTA (0,0,0), thread (31,0,0)"), std::string::npos) << rep;
  EXPECT_NE(rep.find("st.global.u32"), std::string::npos) << rep;
  EXPECT_NE(rep.find("out+124"), std::string::npos) << rep;
  EXPECT_NE(rep.find("out of bounds"), std::string::npos) << rep;
}

TEST(EmuChecks, MisalignedLoad) {
  const std::string text = std::string(kHeader) + R"(.visible .entry t(.param .u64 in)
{
	.reg .b32 %r<2>;
	.reg .b64 %rd<2>;
	ld.param.u64 %rd1, [in];
	ld.global.u32 %r1, [%rd1+2];
	ret;
}
)";
  EmuRun r;
  r.buffer(std::vector<uint32_t>(4), "in");
  const std::string rep = report_of(r, text, {1, 1, 1}, {1, 1, 1});
  EXPECT_NE(rep.find("misaligned 4-byte load at in+2"), std::string::npos) << rep;
}

TEST(EmuChecks, UseOfAFreedBuffer) {
  const std::string text = std::string(kHeader) + R"(.visible .entry t(.param .u64 in)
{
	.reg .b32 %r<2>;
	.reg .b64 %rd<2>;
	ld.param.u64 %rd1, [in];
	ld.global.u32 %r1, [%rd1];
	ret;
}
)";
  EmuRun r;
  const uint64_t a = r.buffer(std::vector<uint32_t>(4), "in");
  r.emu.memory().free(a);
  const std::string rep = report_of(r, text, {1, 1, 1}, {1, 1, 1});
  EXPECT_NE(rep.find("in+0 (freed)"), std::string::npos) << rep;
  EXPECT_THROW(r.emu.memory().free(a), emu::Error);
}

TEST(EmuChecks, UninitializedSharedRead) {
  const std::string text = std::string(kHeader) + R"(.visible .entry t()
{
	.reg .b32 %r<3>;
	.shared .align 4 .b32 buf[64];
	mov.u32 %r1, buf;
	st.shared.u32 [%r1], 7;
	ld.shared.u32 %r2, [%r1+8];
	ret;
}
)";
  EmuRun r;
  const std::string rep = report_of(r, text, {2, 1, 1}, {1, 1, 1});
  EXPECT_NE(rep.find("load of shared+8: never written in this CTA"), std::string::npos) << rep;
}

TEST(EmuChecks, SharedOutOfBoundsWithDynamicSmem) {
  const std::string text = std::string(kHeader) + R"(.extern .shared .align 16 .b8 dyn[];
.visible .entry t()
{
	.reg .b32 %r<3>;
	mov.u32 %r1, dyn;
	st.shared.u32 [%r1+60], 1;
	st.shared.u32 [%r1+64], 1;
	ret;
}
)";
  EmuRun r;
  const std::string rep = report_of(r, text, {1, 1, 1}, {1, 1, 1}, 64);
  EXPECT_NE(rep.find("4-byte store at shared+64: out of bounds (the CTA has 64 bytes)"), std::string::npos) << rep;
}

TEST(EmuChecks, BarrierDivergence) {
  const std::string text = std::string(kHeader) + R"(.visible .entry t()
{
	.reg .b32 %r<3>;
	.reg .pred %p<2>;
	mov.u32 %r1, %tid.x;
	setp.lt.u32 %p1, %r1, 16;
	@%p1 bra $skip;
	bar.sync 0;
$skip:
	ret;
}
)";
  EmuRun r;
  const std::string rep = report_of(r, text, {1, 1, 1}, {32, 1, 1});
  EXPECT_NE(rep.find("barrier divergence"), std::string::npos) << rep;
}

TEST(EmuChecks, HangIsReported) {
  const std::string text = std::string(kHeader) + R"(.visible .entry t()
{
$spin:
	bra.uni $spin;
}
)";
  emu::Options o;
  o.max_steps = 10000;
  EmuRun r{emu::Emulator(o), {}};
  const std::string rep = report_of(r, text, {1, 1, 1}, {32, 1, 1});
  EXPECT_NE(rep.find("hung; still running after 10000 warp instructions"), std::string::npos) << rep;
}

TEST(EmuChecks, LaunchArgumentsAreChecked) {
  const std::string text = std::string(kHeader) + R"(.visible .entry t(.param .u64 a, .param .u32 n)
{
	ret;
}
)";
  EmuRun r;
  r.args.push_back(emu::Arg::u64(0));
  EXPECT_NE(report_of(r, text, {1, 1, 1}, {1, 1, 1}).find("1 arguments for 2 parameters"), std::string::npos);
  r.args.push_back(emu::Arg::u64(0));
  EXPECT_NE(report_of(r, text, {1, 1, 1}, {1, 1, 1}).find("argument 1 has 8 bytes; the parameter has 4"), std::string::npos);
  r.args.back() = emu::Arg::u32(1);
  EXPECT_NE(report_of(r, text, {1, 1, 1}, {2048, 1, 1}).find("block (2048,1,1): a GPU takes at most (1024,1024,64)"), std::string::npos);
  EXPECT_NE(report_of(r, text, {0, 1, 1}, {1, 1, 1}).find("must be positive"), std::string::npos);
  EXPECT_THROW(r.emu.launch(text::parse(text).module(), "nope", {}, r.args), emu::Error);
}

// .align must be a power of two; a predicate variable (size 0 bytes) still gets an address. The
// validator refuses both, as ptxas does: these are the emulator's own checks, for modules that
// reach it unvalidated.
TEST(EmuChecks, BadAlignmentIsReported) {
  EmuRun validating;
  const std::string bad = std::string(kHeader) + ".visible .entry t()\n{\n\t.shared .align 3 .b8 s[4];\n\tret;\n}\n";
  EXPECT_NE(report_of(validating, bad, {1, 1, 1}, {1, 1, 1}).find("7:17: .align 3: an alignment must be a power of two"),
            std::string::npos);
  emu::Options unvalidated;
  unvalidated.validate = false;
  EmuRun r{emu::Emulator(unvalidated), {}};
  for (const char* decl : {".shared .align 0 .b8 s[4];", ".shared .align 3 .b8 s[4];", ".local .align 6 .b32 s;",
                           ".shared .align 1099511627776 .b8 s[4];"}) {
    const std::string text = std::string(kHeader) + ".visible .entry t()\n{\n\t" + decl + "\n\tret;\n}\n";
    const std::string rep = report_of(r, text, {1, 1, 1}, {1, 1, 1});
    EXPECT_NE(rep.find("is not a power of two"), std::string::npos) << decl << ": " << rep;
    EXPECT_NE(rep.find(":7)"), std::string::npos) << decl << ": " << rep;
  }
  const std::string text = std::string(kHeader) + ".visible .entry t()\n{\n\t.shared .pred p;\n\t.shared .b32 s;\n\tret;\n}\n";
  EXPECT_NO_THROW(r.launch(text, "t", {1, 1, 1}, {1, 1, 1}));
}

// Modules reach the emulator unvalidated: an operand list no form of the ISA takes is refused
// with its line, never read past its end (a fuzzer finding: `ld.param.u32 ;`).
TEST(EmuChecks, OperandCountsOutsideTheIsaAreRefused) {
  emu::Options unvalidated;
  unvalidated.validate = false;  // what the emulator itself does with such a module
  EmuRun r{emu::Emulator(unvalidated), {}};
  for (const char* inst : {"ld.param.u32;", "add.s32 %r1, %r2;", "mov.b32 %r1, %r2, %r1, %r2;"}) {
    const std::string text = std::string(kHeader) + ".visible .entry t()\n{\n\t.reg .b32 %r<3>;\n\t" + inst + "\n\tret;\n}\n";
    const std::string rep = report_of(r, text, {1, 1, 1}, {1, 1, 1});
    EXPECT_NE(rep.find("the ISA's forms of"), std::string::npos) << inst << ": " << rep;
    EXPECT_NE(rep.find(":8)"), std::string::npos) << inst << ": " << rep;
  }
  // Counts another form of the opcode takes, but not the forms these modifiers fit: cas has a
  // second source, shfl.sync a member mask (the validator's decoding, spec/decoded.hpp, says which).
  const std::pair<const char*, const char*> short_of_their_form[] = {
      {"atom.global.cas.b32 %r1, [%rd1], %r2;", "has 3 operands; the ISA's forms of atom.global.cas.b32 take 4"},
      {"shfl.sync.idx.b32 %r1, %r2, 1, 31;", "has 4 operands; the ISA's forms of shfl.sync.idx.b32 take 5"}};
  for (const auto& [inst, expected] : short_of_their_form) {
    const std::string text = std::string(kHeader) + ".visible .entry t()\n{\n\t.reg .b32 %r<3>;\n\t.reg .b64 %rd<2>;\n\t" +
                             inst + "\n\tret;\n}\n";
    const std::string rep = report_of(r, text, {1, 1, 1}, {32, 1, 1});
    EXPECT_NE(rep.find(expected), std::string::npos) << inst << ": " << rep;
  }
  const std::string text = std::string(kHeader) + ".visible .entry t()\n{\n\t.reg .b01 %q<2>;\n\tret;\n}\n";
  EXPECT_NE(report_of(r, text, {1, 1, 1}, {1, 1, 1}).find("register %q has type '.b01', which is not a register type"),
            std::string::npos);
}

// Destinations an unvalidated module may hold where a register belongs: a special register,
// an immediate, a vector of the wrong length. Each is a report, not a write out of bounds
// (fuzzer finding: `ld.param.u64 %pmd1, [out]`).
TEST(EmuChecks, DestinationsThatAreNotRegistersAreReported) {
  emu::Options unvalidated;
  unvalidated.validate = false;  // what the emulator itself does with such a module
  EmuRun r{emu::Emulator(unvalidated), {}};
  const std::pair<const char*, const char*> cases[] = {
      {"ld.shared.u64 %tid, [s];", "the destination is not a register"},
      {"ld.shared.u32 7, [s];", "the destination is not a register"},
      {"isspacep.shared %tid, %rd1;", "the destination is not a register"},
      {"ldmatrix.sync.aligned.m8n8.x2.shared.b16 {%r1}, [s];", "ldmatrix.x2 needs 2 registers"},
      {"ldmatrix.sync.aligned.m8n8.x1.shared.b16 5, [s];", "ldmatrix.x1 needs 1 register"},
      {"mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32 {%f1, %f2}, {%r1, %r2, %r3, %r4}, {%r1, %r2}, "
       "{%f1, %f2, %f3, %f4};",
       "operand d must be a vector of 4 registers"},
      {"mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32 {%f1, %f2, %f3, %f4}, {%r1, %r2, _, %r4}, {%r1, %r2}, "
       "{%f1, %f2, %f3, %f4};",
       "operand a must be a vector of 4 registers"},
  };
  for (const auto& c : cases) {
    const std::string text = std::string(kHeader) +
                             ".visible .entry t()\n{\n\t.shared .align 16 .b8 s[512];\n\t.reg .b32 %r<5>;\n\t.reg .f32 %f<5>;\n"
                             "\t.reg .b64 %rd<2>;\n\tmov.u64 %rd1, s;\n\t" +
                             c.first + "\n\tret;\n}\n";
    const std::string rep = report_of(r, text, {1, 1, 1}, {32, 1, 1});
    EXPECT_NE(rep.find(c.second), std::string::npos) << c.first << ": " << rep;
  }
}

// By default an invalid module is refused with the validator's errors at their lines.
TEST(EmuChecks, InvalidModulesAreRefusedWithTheValidatorsErrors) {
  EmuRun r;
  const std::string text = std::string(kHeader) +
                           ".visible .entry t()\n{\n\t.reg .b32 %r<3>;\n\tld.param.u32;\n\tadd.s32 %r1, %r2;\n\tret;\n}\n";
  const std::string rep = report_of(r, text, {1, 1, 1}, {1, 1, 1});
  EXPECT_NE(rep.find("launch of t: the module is not valid PTX (2 errors"), std::string::npos) << rep;
  EXPECT_NE(rep.find("<input>:8:2:"), std::string::npos) << rep;
  EXPECT_NE(rep.find("<input>:9:"), std::string::npos) << rep;
}

// Lanes of one warp: lane 0 writes a word, lane 1 reads it. With bar.warp.sync between (what
// __syncwarp compiles to) that is ordered; without, it is a race as in any two threads.
TEST(EmuChecks, WarpSyncOrdersTheLanesOfAWarp) {
  auto text = [](bool sync) {
    return std::string(kHeader) + R"(.visible .entry t(.param .u64 out)
{
	.reg .pred %p<3>;
	.reg .b32 %r<6>;
	.reg .b64 %rd<3>;
	.shared .align 4 .b32 word;
	mov.u32 %r1, %tid.x;
	setp.eq.u32 %p1, %r1, 0;
	setp.eq.u32 %p2, %r1, 1;
	@%p1 st.shared.u32 [word], 42;
)" + (sync ? "\tbar.warp.sync -1;\n" : "") + R"(	@%p2 ld.shared.u32 %r2, [word];
	ld.param.u64 %rd1, [out];
	@%p2 st.global.u32 [%rd1], %r2;
	ret;
}
)";
  };
  {
    EmuRun r;
    const uint64_t out = r.buffer(std::vector<uint32_t>(1), "out");
    r.launch(text(true), "t", {1, 1, 1}, {64, 1, 1});
    EXPECT_EQ(r.read<uint32_t>(out, 1)[0], 42u);
  }
  EmuRun r;
  r.buffer(std::vector<uint32_t>(1), "out");
  const std::string rep = report_of(r, text(false), {1, 1, 1}, {64, 1, 1});
  EXPECT_NE(rep.find("shared-memory race: a read of shared+0 after a write by thread (0,0,0)"), std::string::npos) << rep;
}

// *.sync collectives with a member mask (synccheck): lanes 0-15 shuffle with the full mask while
// 16-31 are elsewhere; a lane outside its own mask; the check switched off runs it.
TEST(EmuChecks, WarpCollectivesNeedEveryMemberLane) {
  auto text = [](const std::string& mask, bool diverge) {
    return std::string(kHeader) + R"(.visible .entry t(.param .u64 out)
{
	.reg .pred %p<3>;
	.reg .b32 %r<6>;
	.reg .b64 %rd<3>;
	mov.u32 %r1, %tid.x;
	setp.ge.u32 %p1, %r1, 16;
)" + (diverge ? "\t@%p1 bra $done;\n" : "") + "\tshfl.sync.bfly.b32 %r2, %r1, 1, 31, " + mask + R"(;
	ld.param.u64 %rd1, [out];
	mul.wide.u32 %rd2, %r1, 4;
	add.u64 %rd1, %rd1, %rd2;
	st.global.u32 [%rd1], %r2;
$done:
	ret;
}
)";
  };
  {
    EmuRun r;
    r.buffer(std::vector<uint32_t>(32), "out");
    const std::string rep = report_of(r, text("-1", true), {1, 1, 1}, {32, 1, 1});
    EXPECT_NE(rep.find("lane 16 is in the member mask 0xffffffff but does not execute it with lanes 0x0000ffff (it is elsewhere in the code)"),
              std::string::npos) << rep;
  }
  {
    EmuRun r;
    r.buffer(std::vector<uint32_t>(32), "out");
    const std::string rep = report_of(r, text("0xffff", false), {1, 1, 1}, {32, 1, 1});
    EXPECT_NE(rep.find("lane 16 executes it but is not in the member mask 0x0000ffff"), std::string::npos) << rep;
  }
  {  // with the mask of the lanes that run it, fine
    EmuRun r;
    const uint64_t out = r.buffer(std::vector<uint32_t>(32), "out");
    r.launch(text("0xffff", true), "t", {1, 1, 1}, {32, 1, 1});
    const auto got = r.read<uint32_t>(out, 16);
    for (uint32_t i = 0; i < 16; ++i) EXPECT_EQ(got[i], i ^ 1) << i;
  }
  emu::Options off;
  off.check_sync = false;
  EmuRun r{emu::Emulator(off), {}};
  r.buffer(std::vector<uint32_t>(32), "out");
  EXPECT_NO_THROW(r.launch(text("-1", true), "t", {1, 1, 1}, {32, 1, 1}));  // the diverged shuffle runs unchecked
}

TEST(EmuChecks, UnsupportedInstructionsAreNamed) {
  const std::string text = std::string(".version 8.1\n.target sm_90a\n.address_size 64\n\n") + R"(.visible .entry t(.param .u64 s)
{
	.reg .f32 %f<6>;
	.reg .b64 %rd<3>;
	ld.param.u64 %rd1, [s];
	tex.grad.2d.v4.f32.f32 {%f0, %f1, %f2, %f3}, [%rd1, {%f4, %f5}], {%f4, %f5}, {%f4, %f5};
	ret;
}
)";
  EmuRun r;
  r.scalar(uint64_t{0});
  const std::string rep = report_of(r, text, {1, 1, 1}, {1, 1, 1});
  EXPECT_NE(rep.find("the emulator does not support tex.grad"), std::string::npos) << rep;
  EXPECT_NE(rep.find("tex.grad.2d.v4.f32.f32"), std::string::npos) << rep;
}


TEST(EmuChecks, MbarrierMisuse) {
  // two arrivals on a barrier that expects one in this phase
  const std::string overflow = std::string(kHeader) + R"(.visible .entry t()
{
	.reg .b64 %rd<3>;
	.shared .align 8 .b64 bar;
	mbarrier.init.shared::cta.b64 [bar], 1;
	mbarrier.arrive.shared::cta.b64 %rd1, [bar], 2;
	ret;
}
)";
  EmuRun r;
  std::string rep = report_of(r, overflow, {1, 1, 1}, {1, 1, 1});
  EXPECT_NE(rep.find("mbarrier arrival count overflow"), std::string::npos) << rep;
  // waiting for a phase nobody will complete: expects 2 arrivals, only one comes
  const std::string never = std::string(kHeader) + R"(.visible .entry t()
{
	.reg .b64 %rd<3>;
	.reg .pred %p<2>;
	.shared .align 8 .b64 bar;
	mbarrier.init.shared::cta.b64 [bar], 64;
	mbarrier.arrive.shared::cta.b64 %rd1, [bar];
$wait:
	mbarrier.try_wait.parity.shared::cta.b64 %p1, [bar], 0;
	@!%p1 bra $wait;
	ret;
}
)";
  rep = report_of(r, never, {1, 1, 1}, {32, 1, 1});
  EXPECT_NE(rep.find("can never complete"), std::string::npos) << rep;
  const std::string uninit = std::string(kHeader) + R"(.visible .entry t()
{
	.reg .b64 %rd<3>;
	.shared .align 8 .b64 bar;
	mbarrier.arrive.shared::cta.b64 %rd1, [bar];
	ret;
}
)";
  rep = report_of(r, uninit, {1, 1, 1}, {1, 1, 1});
  EXPECT_NE(rep.find("is not initialized"), std::string::npos) << rep;
}

TEST(EmuChecks, ReportsNameTheDslLine) {
  int line = 0;
  auto k = kernel("oob").in(tensor(u32, {"N"})).arch("sm_90a").block(64).debug().body([&](Tensor t) {
    Reg p = t.global_ptr();
    Reg i = read(special::tid.x(), u32);
    Reg off = i * 4;
    Reg a = p + off;
    line = __LINE__ + 1;
    inst::st.global.u32(addr(a), i);
    ret();
  });
  auto traced = k.trace({{"N", 40}});
  EmuRun r;
  r.buffer(std::vector<uint32_t>(40), "t");
  std::string rep;
  try {
    r.launch(*traced);
  } catch (const emu::Error& e) {
    rep = e.what();
  }
  EXPECT_NE(rep.find("thread (40,0,0)"), std::string::npos) << rep;
  EXPECT_NE(rep.find(std::string("checks_emu_test.cpp:") + std::to_string(line)), std::string::npos) << rep;
}


TEST(EmuChecks, SharedMemoryRaces) {
  // thread i writes buf[i] and reads buf[i+1] with no barrier between: a race (read after write)
  const std::string raw = std::string(kHeader) + R"(.visible .entry t()
{
	.reg .b32 %r<6>;
	.shared .align 4 .b32 buf[64];
	mov.u32 %r1, %tid.x;
	shl.b32 %r2, %r1, 2;
	mov.u32 %r3, buf;
	add.u32 %r4, %r3, %r2;
	st.shared.u32 [%r4], %r1;
	ld.shared.u32 %r5, [%r4+4];
	ret;
}
)";
  emu::Options o;
  o.check_shared_init = false;
  EmuRun r{emu::Emulator(o), {}};
  std::string rep = report_of(r, raw, {1, 1, 1}, {32, 1, 1});
  EXPECT_NE(rep.find("shared-memory race: a read of shared+4 after a write by thread (1,0,0)"), std::string::npos) << rep;
  // the same with a barrier between: clean
  const std::string fixed = std::string(kHeader) + R"(.visible .entry t()
{
	.reg .b32 %r<6>;
	.shared .align 4 .b32 buf[64];
	mov.u32 %r1, %tid.x;
	shl.b32 %r2, %r1, 2;
	mov.u32 %r3, buf;
	add.u32 %r4, %r3, %r2;
	st.shared.u32 [%r4], %r1;
	bar.sync 0;
	ld.shared.u32 %r5, [%r4+4];
	ret;
}
)";
  EXPECT_NO_THROW(r.launch(fixed, "t", {1, 1, 1}, {32, 1, 1}));
  // a write after other threads' reads (write after read)
  const std::string war = std::string(kHeader) + R"(.visible .entry t()
{
	.reg .b32 %r<6>;
	.reg .pred %p<2>;
	.shared .align 4 .b32 buf[64];
	mov.u32 %r1, %tid.x;
	mov.u32 %r3, buf;
	setp.eq.u32 %p1, %r1, 0;
	@%p1 st.shared.u32 [%r3+128], 5;
	bar.sync 0;
	ld.shared.u32 %r5, [%r3+128];
	setp.eq.u32 %p1, %r1, 40;
	@%p1 st.shared.u32 [%r3+128], 6;
	ret;
}
)";
  rep = report_of(r, war, {1, 1, 1}, {64, 1, 1});
  EXPECT_NE(rep.find("a write of shared+128 after a read by thread"), std::string::npos) << rep;
  // atomics do not race; with the check off, the racy kernel runs
  emu::Options off;
  off.check_races = false;
  off.check_shared_init = false;
  EmuRun quiet{emu::Emulator(off), {}};
  EXPECT_NO_THROW(quiet.launch(raw, "t", {1, 1, 1}, {32, 1, 1}));
}

// Threads that hold the same value store it to the same shared word with no barrier between (what
// Triton writes for a row statistic each lane of a quad holds; its kernels run on GPUs): either
// order leaves that value, so it is no race. Different values, or a vector store of the same
// value in one element and another in the next, still are.
TEST(EmuChecks, SharedStoresOfTheSameValueDoNotRace) {
  auto text = [](const char* value, const char* vector_second) {
    return std::string(kHeader) + R"(.visible .entry t(.param .u64 out)
{
	.reg .b32 %r<8>;
	.reg .b64 %rd<3>;
	.shared .align 8 .b32 buf[4];
	mov.u32 %r1, %tid.x;
	shr.u32 %r2, %r1, 2;
	mov.u32 %r3, buf;
	)" + std::string(value) + R"(
	st.shared.v2.b32 [%r3], {%r4, )" + vector_second + R"(};
	bar.sync 0;
	ld.shared.u32 %r5, [%r3];
	ld.param.u64 %rd1, [out];
	cvta.to.global.u64 %rd1, %rd1;
	st.global.u32 [%rd1], %r5;
	ret;
}
)";
  };
  {
    EmuRun r;
    const uint64_t out = r.buffer(std::vector<uint32_t>(1), "out");
    r.launch(text("mov.u32 %r4, 7;", "%r4"), "t", {1, 1, 1}, {4, 1, 1});  // four threads, 7 each
    EXPECT_EQ(r.read<uint32_t>(out, 1)[0], 7u);
  }
  EmuRun r;
  r.buffer(std::vector<uint32_t>(1), "out");
  std::string rep = report_of(r, text("mov.u32 %r4, %r1;", "%r4"), {1, 1, 1}, {4, 1, 1});  // thread ids differ
  EXPECT_NE(rep.find("shared-memory race: a write of shared+0 after a write by thread (0,0,0)"), std::string::npos) << rep;
  EmuRun r2;
  r2.buffer(std::vector<uint32_t>(1), "out");
  rep = report_of(r2, text("mov.u32 %r4, 7;", "%r1"), {1, 1, 1}, {4, 1, 1});  // the second element differs
  EXPECT_NE(rep.find("shared-memory race: a write of shared+4 after a write by thread (0,0,0)"), std::string::npos) << rep;
}

// stmatrix rows that share an address (what Triton writes to move a per-row value that lanes hold
// copies of to another layout): the same bytes twice are no race, different bytes are.
TEST(EmuChecks, StmatrixRowsOfTheSameBytesDoNotRace) {
  auto text = [](const char* value) {
    return std::string(kHeader) + R"(.visible .entry t(.param .u64 out)
{
	.reg .b32 %r<8>;
	.reg .b64 %rd<3>;
	.shared .align 16 .b8 buf[16];
	mov.u32 %r1, %tid.x;
	mov.u32 %r3, buf;
	)" + std::string(value) + R"(
	stmatrix.sync.aligned.m8n8.x1.shared.b16 [%r3], {%r4};
	bar.sync 0;
	ld.shared.u32 %r5, [%r3+4];
	ld.param.u64 %rd1, [out];
	cvta.to.global.u64 %rd1, %rd1;
	st.global.u32 [%rd1], %r5;
	ret;
}
)";
  };
  {
    EmuRun r;
    const uint64_t out = r.buffer(std::vector<uint32_t>(1), "out");
    r.launch(text("and.b32 %r4, %r1, 3;"), "t", {1, 1, 1}, {32, 1, 1});  // lane 4r + c holds columns 2c, 2c + 1 of row r
    EXPECT_EQ(r.read<uint32_t>(out, 1)[0], 1u);  // columns 2, 3 of every row: lane 1's register (1 and 0)
  }
  EmuRun r;
  r.buffer(std::vector<uint32_t>(1), "out");
  const std::string rep = report_of(r, text("mov.u32 %r4, %r1;"), {1, 1, 1}, {32, 1, 1});
  EXPECT_NE(rep.find("shared-memory race: a write of shared+0 after a write by thread (0,0,0)"), std::string::npos) << rep;
}

}  // namespace
}  // namespace ptx::test
