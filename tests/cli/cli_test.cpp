// The ptxpp command: subcommands, conventions (-, --help, --version), errors and exit codes.
#include <gtest/gtest.h>

#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

namespace fs = std::filesystem;

namespace {

struct Outcome {
  int rc = -1;
  std::string out, err;
};

std::string slurp(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::ostringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

class Cli : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / ("ptxpp-cli-" + std::to_string(::getpid()) + "-" +
                                        ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }

  fs::path write(const std::string& name, const std::string& text) {
    const fs::path p = dir_ / name;
    fs::create_directories(p.parent_path());
    std::ofstream(p, std::ios::binary) << text;
    return p;
  }

  Outcome run(const std::string& args, const std::string& stdin_text = "", const std::string& env = "") {
    return run_in_shell("", args, stdin_text, env);
  }

  // `ptxpp ARGS` after `shell_prefix` (e.g. "ulimit -f 2;"), through /bin/sh; standard output goes to
  // `stdout_to` when given (e.g. /dev/full), else it is captured.
  Outcome run_in_shell(const std::string& shell_prefix, const std::string& args, const std::string& stdin_text = "",
                       const std::string& env = "", const std::string& stdout_to = "") {
    const fs::path in = write(".stdin", stdin_text), out = dir_ / ".stdout", err = dir_ / ".stderr";
    std::ofstream(out, std::ios::trunc).close();
    const std::string cmd = shell_prefix + (env.empty() ? std::string() : "env " + env + " ") + std::string(PTXPP_CLI) +
                            " " + args + " < " + in.string() + " > " + (stdout_to.empty() ? out.string() : stdout_to) +
                            " 2> " + err.string();
    const int status = std::system(cmd.c_str());
    Outcome r;
    r.rc = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
    r.out = slurp(out);
    r.err = slurp(err);
    return r;
  }

  fs::path dir_;
};

const std::string kGood = ".version 9.0\n.target sm_90a\n.address_size 64\n.visible .entry k()  {\n  ret;   }\n";

TEST_F(Cli, Version) {
  for (const char* flag : {"--version", "-V"}) {
    Outcome r = run(flag);
    EXPECT_EQ(r.rc, 0) << flag << ": " << r.err;
    EXPECT_EQ(r.out, "ptxpp " PTXPP_VERSION "\n") << flag;
  }
}

TEST_F(Cli, Help) {
  Outcome r = run("--help");
  EXPECT_EQ(r.rc, 0);
  for (const char* word : {"print", "fmt", "roundtrip"}) EXPECT_NE(r.out.find(word), std::string::npos) << word;
  Outcome sub = run("roundtrip --help");
  EXPECT_EQ(sub.rc, 0);
  EXPECT_NE(sub.out.find("--canonical"), std::string::npos);
}

// Usage errors name what was wrong (with a suggestion when it looks like a typo), say
// "ptxpp: error:", go to standard error and exit with status 2.
TEST_F(Cli, UsageErrorsNameTheWordAndExit2) {
  const std::string commands = "print, fmt, roundtrip, check, spec, run, cache, transpile, help, completion";
  const struct {
    std::string args, err;
  } cases[] = {
      {"", "no command given; one of: " + commands + " (see 'ptxpp help')"},
      {"bogus", "unknown command 'bogus' (see 'ptxpp help')"},
      {"fmtt x.ptx", "unknown command 'fmtt'; did you mean 'fmt'?"},
      {"--bogus", "unknown option '--bogus' (see 'ptxpp help')"},
      {"--verison", "unknown option '--verison'; did you mean '--version'?"},
      {"print --bogus", "print: unknown option '--bogus' (see 'ptxpp help print')"},
      {"print --bogus x.ptx", "print: unknown option '--bogus' (see 'ptxpp help print')"},
      {"print --ouptut=y.ptx x.ptx", "print: unknown option '--ouptut'; did you mean '--output'?"},
      {"print", "print: FILE is required"},
      {"print a.ptx b.ptx", "print: unexpected argument 'b.ptx' (see 'ptxpp help print')"},
      {"roundtrip", "roundtrip: PATH is required"},
      {"fmt a.ptx b.ptx", "fmt: unexpected argument 'b.ptx' (several files are formatted in place, with -i)"},
      {"fmt -i -", "fmt: -i: standard input (-) cannot be formatted in place"},
      {"fmt -i -o y.ptx x.ptx", "fmt: --output excludes --in-place"},
      {"help bogus", "help: unknown command 'bogus' (see 'ptxpp help')"},
      {"help chek", "help: unknown command 'chek'; did you mean 'check'?"},
      {"spec", "spec: OPCODE or --coverage is required"},
      {"spec --emulator", "spec: --emulator goes with --coverage"},
      {"spec --emulator ld", "spec: --emulator goes with --coverage"},
      {"check --pedntic x.ptx", "check: unknown option '--pedntic'; did you mean '--pedantic'?"},
      {"completion zsh", "completion: SHELL: zsh not in {bash}"},
      {"run x.ptx", "run: --entry is required"},
      {"run x.ptx --entry k --grid 0", "run: --grid 0: dimensions must be positive"},
      {"transpile --name 3d x.ptx", "transpile: --name '3d' is not a C++ identifier (or is a keyword)"},
      {"transpile --lang rust x.ptx", "transpile: --lang 'rust' is not an output language (cpp, python)"},
      {"transpile --lang python --name lambda x.ptx",
       "transpile: --name 'lambda' is not a Python identifier (or is a keyword or a name the output uses)"},
  };
  for (const auto& c : cases) {
    Outcome r = run(c.args);
    EXPECT_EQ(r.rc, 2) << c.args;
    EXPECT_EQ(r.out, "") << c.args;
    EXPECT_EQ(r.err, "ptxpp: error: " + c.err + "\n") << c.args;
  }
}

TEST_F(Cli, HelpCommand) {
  Outcome all = run("help");
  EXPECT_EQ(all.rc, 0) << all.err;
  EXPECT_EQ(all.out, run("--help").out);
  EXPECT_NE(all.out.find("Usage: ptxpp [OPTIONS] COMMAND"), std::string::npos) << all.out;
  EXPECT_NE(all.out.find("Exit status: 0 success; 1 errors in the input"), std::string::npos) << all.out;
  Outcome check = run("help check");
  EXPECT_EQ(check.rc, 0) << check.err;
  EXPECT_EQ(check.out, run("check --help").out);
  EXPECT_NE(check.out.find("Usage: ptxpp check [OPTIONS] FILE"), std::string::npos) << check.out;
  EXPECT_NE(check.out.find("--ptx-version"), std::string::npos) << check.out;
  EXPECT_EQ(check.out.find("--version"), std::string::npos) << "the old spelling is hidden: " << check.out;
}

TEST_F(Cli, PrintIsExact) {
  const fs::path p = write("k.ptx", kGood);
  Outcome r = run("print " + p.string());
  EXPECT_EQ(r.rc, 0) << r.err;
  EXPECT_EQ(r.out, kGood);
}

TEST_F(Cli, DashReadsStdin) {
  Outcome r = run("print -", kGood);
  EXPECT_EQ(r.rc, 0) << r.err;
  EXPECT_EQ(r.out, kGood);
  Outcome f = run("fmt -", kGood);
  EXPECT_EQ(f.rc, 0) << f.err;
  EXPECT_EQ(f.out, ".version 9.0\n.target sm_90a\n.address_size 64\n\n.visible .entry k()\n{\n\tret;\n}\n");
}

TEST_F(Cli, ParseErrorsHaveLocationAndCaret) {
  const fs::path p = write("bad.ptx", ".version 9.0\n.entry k() {\n  mov.u32 %r1 1;\n}\n");
  Outcome r = run("print " + p.string());
  EXPECT_EQ(r.rc, 1);
  EXPECT_TRUE(r.out.empty());
  EXPECT_EQ(r.err, p.string() +
                       ":3:15: error: expected ',' or ';' after an operand, found number '1'\n"
                       "  mov.u32 %r1 1;\n"
                       "              ^\n");
  Outcome s = run("fmt -", "\n\n  .foo");
  EXPECT_EQ(s.rc, 1);
  EXPECT_EQ(s.err.substr(0, s.err.find('\n')), "<stdin>:3:3: error: unknown directive '.foo' at module scope");
}

TEST_F(Cli, MissingFileAndDirectory) {
  Outcome r = run("print " + (dir_ / "nope.ptx").string());
  EXPECT_EQ(r.rc, 1);
  EXPECT_EQ(r.err, "ptxpp: error: cannot read " + (dir_ / "nope.ptx").string() + ": No such file or directory\n");
  Outcome d = run("fmt " + dir_.string());
  EXPECT_EQ(d.rc, 1);
  EXPECT_EQ(d.err, "ptxpp: error: cannot read " + dir_.string() + ": is a directory\n");
}

TEST_F(Cli, RoundtripFilesAndDirectoriesInOneProcess) {
  write("a/one.ptx", kGood);
  write("a/b/two.ptx", ".version 9.0 // x\r\n");
  write("a/b/notes.txt", "not ptx");
  const fs::path single = write("three.ptx", "\n");
  Outcome r = run("roundtrip " + (dir_ / "a").string() + " " + single.string() + " --canonical");
  EXPECT_EQ(r.rc, 0) << r.out << r.err;
  EXPECT_NE(r.out.find("ok   " + (dir_ / "a/b/two.ptx").string()), std::string::npos) << r.out;
  EXPECT_EQ(r.out.substr(r.out.rfind('\n', r.out.size() - 2) + 1), "3 passed, 0 failed\n");
}

TEST_F(Cli, RoundtripReportsFailures) {
  write("d/good.ptx", kGood);
  write("d/bad.ptx", ".version 9.0\n.target\n");
  Outcome r = run("roundtrip -q " + (dir_ / "d").string() + " " + (dir_ / "missing.ptx").string());
  EXPECT_EQ(r.rc, 1);
  EXPECT_NE(r.out.find("FAIL " + (dir_ / "d/bad.ptx").string() + ": parse error\n" + (dir_ / "d/bad.ptx").string() +
                       ":2:1: error: '.target' takes at least 1 operand, found 0"),
            std::string::npos)
      << r.out;
  EXPECT_EQ(r.out.find("ok "), std::string::npos) << "quiet mode prints only failures";
  EXPECT_NE(r.err.find("missing.ptx: No such file or directory"), std::string::npos);
  EXPECT_EQ(r.out.substr(r.out.rfind('\n', r.out.size() - 2) + 1), "1 passed, 2 failed\n");
}

}  // namespace

namespace {

const std::string kCheckHead = ".version 9.0\n.target sm_90a\n.address_size 64\n";

TEST_F(Cli, CheckReportsEveryErrorWithLocation) {
  const fs::path p = write("v.ptx", kCheckHead +
                                        ".visible .entry k()\n{\n\t.reg .b32 %r<4>;\n"
                                        "\tadd.u32 %r1, %r9, 1;\n\tfoo.bar %r1;\n\tret;\n}\n");
  Outcome r = run("check " + p.string());
  EXPECT_EQ(r.rc, 1);
  EXPECT_TRUE(r.out.empty());
  EXPECT_NE(r.err.find(p.string() + ":7:15: error: operand 'a': undeclared register '%r9'\n"
                                    "\tadd.u32 %r1, %r9, 1;\n\t             ^\n"),
            std::string::npos)
      << r.err;
  EXPECT_NE(r.err.find(p.string() + ":8:2: error: unknown instruction 'foo'"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("2 errors in " + p.string()), std::string::npos) << r.err;
}

// --forms: what each instruction matched in the ISA table, to standard output.
TEST_F(Cli, CheckPrintsTheFormsMatched) {
  const fs::path p = write("f.ptx", kCheckHead + ".visible .entry k()\n{\n\t.reg .b32 %r<4>;\n"
                                                 "\tadd.sat.s32 %r1, %r2, 1;\n\tfoo %r1;\n\tret;\n}\n");
  Outcome r = run("check --forms " + p.string());
  EXPECT_EQ(r.rc, 1);  // foo
  EXPECT_NE(r.out.find(p.string() + ":7:2: add.sat.s32 -> add.sat.type d, a, b (spec/isa/integer.isa:"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find(p.string() + ":9:2: ret -> ret{.uni} (spec/isa/control.isa:"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find(") .type=.s32\n"), std::string::npos) << r.out;
  EXPECT_EQ(r.out.find("foo"), std::string::npos) << r.out;
  EXPECT_NE(r.err.find("unknown instruction 'foo'"), std::string::npos) << r.err;
  Outcome plain = run("check " + p.string());
  EXPECT_TRUE(plain.out.empty()) << plain.out;
}

TEST_F(Cli, CheckCleanFileAndOverrides) {
  const std::string text =
      kCheckHead + ".visible .entry k()\n{\n\t.reg .b32 %r<4>;\n\tadd.u16x2 %r1, %r2, %r3;\n\tret;\n}\n";
  const fs::path p = write("ok.ptx", text);
  Outcome ok = run("check " + p.string());
  EXPECT_EQ(ok.rc, 0) << ok.err;
  EXPECT_TRUE(ok.err.empty()) << ok.err;
  Outcome old = run("check --target sm_80 --ptx-version 7.0 " + p.string());
  EXPECT_EQ(old.rc, 1);
  EXPECT_NE(old.err.find("requires PTX ISA 8.0, sm_90 or later; the module is PTX ISA 7.0 for sm_80"),
            std::string::npos)
      << old.err;
  Outcome in = run("check -", text);
  EXPECT_EQ(in.rc, 0) << in.err;
}

TEST_F(Cli, CheckBadFlags) {
  const fs::path p = write("ok.ptx", kCheckHead);
  Outcome t = run("check --target sm90 " + p.string());
  EXPECT_EQ(t.rc, 2);
  EXPECT_EQ(t.err, "ptxpp: error: check: --target sm90: not a known target such as sm_90a\n");
  t = run("check --target sm_999 " + p.string());
  EXPECT_EQ(t.rc, 2);
  EXPECT_EQ(t.err, "ptxpp: error: check: --target sm_999: not a known target such as sm_90a\n");
  Outcome v = run("check --ptx-version nine " + p.string());
  EXPECT_EQ(v.rc, 2);
  EXPECT_EQ(v.err, "ptxpp: error: check: --ptx-version nine: not a PTX ISA version such as 8.7\n");
  // the old spelling, which clashed with ptxpp --version
  v = run("check --version 7.0 " + p.string());
  EXPECT_EQ(v.rc, 2);
  EXPECT_EQ(v.err,
            "ptxpp: error: check: --version 7.0: the PTX ISA version to check for is --ptx-version 7.0 "
            "(ptxpp --version prints ptxpp's version)\n");
  Outcome parse = run("check -", ".version 9.0\n.target\n");
  EXPECT_EQ(parse.rc, 1);
  EXPECT_NE(parse.err.find("<stdin>:2:1: error:"), std::string::npos) << parse.err;
}

TEST_F(Cli, SpecShowsAnEntryAndTheCoverage) {
  Outcome r = run("spec mad");
  EXPECT_EQ(r.rc, 0) << r.err;
  EXPECT_NE(r.out.find("mad.mode.type d, a, b, c"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find(".mode = { .hi, .lo"), std::string::npos) << r.out;
  Outcome none = run("spec frobnicate");
  EXPECT_EQ(none.rc, 1);
  EXPECT_EQ(none.err, "ptxpp: error: spec: no instruction 'frobnicate' in the table (see 'ptxpp spec --coverage')\n");
  Outcome typo = run("spec mda");
  EXPECT_EQ(typo.rc, 1);
  EXPECT_EQ(typo.err, "ptxpp: error: spec: no instruction 'mda' in the table; did you mean 'mad'?\n");
  Outcome cov = run("spec --coverage");
  EXPECT_EQ(cov.rc, 0);
  EXPECT_NE(cov.out.find("instruction sections covered"), std::string::npos);
  EXPECT_EQ(cov.out.find("MISSING"), std::string::npos);
  Outcome emu = run("spec --coverage --emulator");
  EXPECT_EQ(emu.rc, 0) << emu.err;
  EXPECT_NE(emu.out.find("the emulator runs "), std::string::npos) << emu.out;
  Outcome neither = run("spec");
  EXPECT_EQ(neither.rc, 2);
}

// A block's notes one per line, each with its "note:" (they ran together on one line).
TEST_F(Cli, SpecNotesOnePerLine) {
  Outcome r = run("spec ld");
  EXPECT_EQ(r.rc, 0) << r.err;
  EXPECT_NE(r.out.find("\n  note: the .unified suffix on the address ([a].unified) is accepted by ptxas 13.0 from PTX "
                       "7.0 on, for .global and generic addresses only\n  note: .acquire with .mmio"),
            std::string::npos)
      << r.out;
}

// ---- ptxpp run -------------------------------------------------------------------

const std::string kScale = R"(.version 8.0
.target sm_80
.address_size 64
.visible .entry scale(.param .u64 a, .param .u64 b, .param .f32 s, .param .u32 n)
{
	.reg .b32 %r<3>;
	.reg .f32 %f<4>;
	.reg .b64 %rd<6>;
	.reg .pred %p<2>;
	ld.param.u64 %rd1, [a];
	ld.param.u64 %rd2, [b];
	ld.param.f32 %f3, [s];
	ld.param.u32 %r2, [n];
	mov.u32 %r1, %tid.x;
	setp.ge.u32 %p1, %r1, %r2;
	@%p1 bra $done;
	mul.wide.u32 %rd3, %r1, 4;
	add.s64 %rd4, %rd1, %rd3;
	add.s64 %rd5, %rd2, %rd3;
	ld.global.f32 %f1, [%rd4];
	mul.rn.f32 %f2, %f1, %f3;
	st.global.f32 [%rd5], %f2;
$done:
	ret;
}
)";

TEST_F(Cli, RunOnTheEmulatorAndDump) {
  const fs::path k = write("scale.ptx", kScale), out = dir_ / "b.bin";
  const fs::path in =
      write("a.bin", std::string("\x00\x00\x80\x3f\x00\x00\x00\x40\x00\x00\x40\x40\x00\x00\x80\x40", 16));
  Outcome r = run("run " + k.string() + " --entry scale --grid 1 --block 8 --buf a=file:" + in.string() +
                  " --buf b=zeros:16 --arg a --arg b --arg f32:1.5 --arg u32:4 --dump b=" + out.string());
  ASSERT_EQ(r.rc, 0) << r.err;
  const std::string bytes = slurp(out);
  ASSERT_EQ(bytes.size(), 16u);
  float got[4];
  std::memcpy(got, bytes.data(), 16);
  EXPECT_EQ(got[0], 1.5f);
  EXPECT_EQ(got[1], 3.0f);
  EXPECT_EQ(got[2], 4.5f);
  EXPECT_EQ(got[3], 6.0f);
  EXPECT_NE(r.err.find("ran scale on the CPU emulator"), std::string::npos) << r.err;
  // hex buffers, and a report (exit 1) when a check fires: n = 8 reads past the 16-byte buffer
  r = run("run " + k.string() +
          " --entry scale --block 8 --buf a=hex:0000803f0000803f0000803f0000803f --buf b=zeros:16 "
          "--arg a --arg b --arg f32:2 --arg u32:8");
  EXPECT_EQ(r.rc, 1);
  EXPECT_NE(r.err.find("thread (4,0,0)"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("a+16"), std::string::npos) << r.err;
}

// --cluster: the CTAs of a cluster run together; each reads its neighbour's shared memory.
TEST_F(Cli, RunsClustersOnTheEmulator) {
  const std::string text = R"(.version 8.0
.target sm_90a
.address_size 64

.visible .entry neighbours(.param .u64 out)
{
	.reg .pred %p<2>;
	.reg .b32 %r<12>;
	.reg .b64 %rd<4>;
	.shared .align 4 .b32 slot;
	mov.u32 %r1, %cluster_ctarank;
	mov.u32 %r2, %ctaid.x;
	add.u32 %r3, %r2, 100;
	mov.u32 %r8, %tid.x;
	setp.eq.u32 %p1, %r8, 0;
	@%p1 st.shared.u32 [slot], %r3;
	barrier.cluster.arrive;
	barrier.cluster.wait;
	xor.b32 %r4, %r1, 1;
	mov.u32 %r5, slot;
	mapa.shared::cluster.u32 %r6, %r5, %r4;
	ld.shared::cluster.u32 %r7, [%r6];
	ld.param.u64 %rd1, [out];
	mul.wide.u32 %rd2, %r2, 4;
	add.u64 %rd3, %rd1, %rd2;
	@%p1 st.global.u32 [%rd3], %r7;
	barrier.cluster.arrive;
	barrier.cluster.wait;
	ret;
}
)";
  const fs::path k = write("neighbours.ptx", text), out = dir_ / "n.bin";
  Outcome r =
      run("run " + k.string() +
          " --entry neighbours --grid 4 --block 32 --cluster 2 --buf o=zeros:16 --arg o --dump o=" + out.string());
  ASSERT_EQ(r.rc, 0) << r.err;
  const std::string bytes = slurp(out);
  ASSERT_EQ(bytes.size(), 16u);
  uint32_t got[4];
  std::memcpy(got, bytes.data(), 16);
  EXPECT_EQ(got[0], 101u);
  EXPECT_EQ(got[1], 100u);
  EXPECT_EQ(got[2], 103u);
  EXPECT_EQ(got[3], 102u);
  // without --cluster, rank 1 is outside the one-CTA cluster: a report
  r = run("run " + k.string() + " --entry neighbours --grid 4 --block 32 --buf o=zeros:16 --arg o");
  EXPECT_EQ(r.rc, 1);
  EXPECT_NE(r.err.find("mapa to CTA rank 1: out of range (the cluster has 1 CTA)"), std::string::npos) << r.err;
}

TEST_F(Cli, RunRejectsBadArguments) {
  const fs::path k = write("scale.ptx", kScale);
  const std::string base = "run " + k.string() + " --entry scale --buf a=zeros:16 --buf b=zeros:16 ";
  struct Bad {
    std::string args, message;
    int rc;
  } cases[] = {
      {"--grid 0 --arg a --arg b --arg f32:1 --arg u32:1", "--grid 0: dimensions must be positive", 2},
      {"--block 1,2,3,4 --arg a --arg b --arg f32:1 --arg u32:1", "at most three dimensions", 2},
      {"--block x --arg a --arg b --arg f32:1 --arg u32:1", "'x' is not a valid number", 2},
      {"--arg a --arg b --arg f33:1 --arg u32:1", "unknown type 'f33'", 2},
      {"--arg a --arg b --arg f32:one --arg u32:1", "'one' is not a valid number", 2},
      {"--arg a --arg b --arg f32:1 --arg u8:300", "out of range", 2},
      {"--arg a --arg c --arg f32:1 --arg u32:1", "--arg c: neither a --buf name nor TYPE:NUMBER", 2},
      {"--arg a --arg b --arg f32:1", "--arg: launch of scale: 3 arguments for 4 parameters", 2},
      {"--arg a --arg b --arg f64:1 --arg u32:1", "--arg: launch of scale: argument 2 has 8 bytes; the parameter has 4", 2},
      {"--arg a --arg b --arg f32:1 --arg u32:1 --dump c=x.bin", "no --buf named 'c'", 2},
      {"--buf c=hex:abc --arg a --arg b --arg f32:1 --arg u32:1", "odd number of hex digits", 2},
      {"--buf c=hex:zz --arg a --arg b --arg f32:1 --arg u32:1", "'zz' is not hex", 2},
      {"--buf c=file:/nonexistent --arg a --arg b --arg f32:1 --arg u32:1", "--buf c=file:/nonexistent: No such file or directory", 2},
      {"--buf c=ones:4 --arg a --arg b --arg f32:1 --arg u32:1", "SPEC is file:PATH, zeros:BYTES or hex:HEXBYTES", 2},
      {"--buf a=zeros:4 --arg a --arg b --arg f32:1 --arg u32:1", "--buf a: defined twice", 2},
      {"--device tpu --arg a --arg b --arg f32:1 --arg u32:1", "expected cpu or gpu", 2},
  };
  for (const Bad& c : cases) {
    const Outcome r = run(base + c.args);
    EXPECT_EQ(r.rc, c.rc) << c.args << "\n" << r.err;
    EXPECT_NE(r.err.find(c.message), std::string::npos) << c.args << "\n" << r.err;
  }
  Outcome r = run("run " + k.string() + " --entry nope");
  EXPECT_EQ(r.rc, 1);
  EXPECT_NE(r.err.find("no kernel named 'nope'"), std::string::npos) << r.err;
  r = run("run " + k.string());
  EXPECT_NE(r.rc, 0);
  EXPECT_NE(r.err.find("--entry is required"), std::string::npos) << r.err;
  const fs::path bad = write("bad.ptx", ".version 8.0\n.target sm_80\n.address_size 64\n.visible .entry k( {\n}\n");
  r = run("run " + bad.string() + " --entry k");
  EXPECT_EQ(r.rc, 1);
  EXPECT_NE(r.err.find("bad.ptx:4:"), std::string::npos) << r.err;
}

TEST_F(Cli, RunOnTheGpuThroughTheRuntime) {
  const fs::path k = write("scale.ptx", kScale), out = dir_ / "b.bin", cache = dir_ / "cache";
  const std::string args =
      " --entry scale --block 8 --buf a=hex:0000803f000000400000404000008040 --buf b=zeros:16 "
      "--arg a --arg b --arg f32:1.5 --arg u32:4 --device gpu --dump b=" +
      out.string();
  // no driver: a clear error
  Outcome r = run("run " + k.string() + args, "", "PTXPP_LIBCUDA=/nonexistent/libcuda.so.1");
  EXPECT_EQ(r.rc, 1);
  EXPECT_NE(r.err.find("cannot load the CUDA driver (/nonexistent/libcuda.so.1)"), std::string::npos) << r.err;
  // the fake driver: compiled (ptxas, cached), loaded and launched; the dump reads device memory back
  const std::string env = std::string("PTXPP_LIBCUDA=") + PTXPP_FAKE_CUDA + " PTXPP_CACHE_DIR=" + cache.string();
  r = run("run " + k.string() + args, "", env);
  EXPECT_EQ(r.rc, 0) << r.err;
  EXPECT_NE(r.err.find("ran scale on GPU 0 (Fake GPU sm_90)"), std::string::npos) << r.err;
  EXPECT_EQ(slurp(out).size(), 16u);
  r = run("run " + k.string() + " --entry scale --buf a=zeros:16 --arg a --device gpu", "", env);
  EXPECT_EQ(r.rc, 1);
  EXPECT_NE(r.err.find("1 arguments for 4 parameters"), std::string::npos) << r.err;
  // the cache the run filled
  r = run("cache stats", "", "PTXPP_CACHE_DIR=" + cache.string());
  EXPECT_EQ(r.rc, 0);
  EXPECT_NE(r.out.find(cache.string() + ": 1 entries"), std::string::npos) << r.out;
  r = run("cache dir", "", "PTXPP_CACHE_DIR=" + cache.string());
  EXPECT_EQ(r.out, cache.string() + "\n");
  r = run("cache clear", "", "PTXPP_CACHE_DIR=" + cache.string());
  EXPECT_NE(r.out.find("removed 1 entries"), std::string::npos) << r.out;
  r = run("cache frobnicate");
  EXPECT_NE(r.rc, 0);
  EXPECT_NE(r.err.find("frobnicate not in {stats,clear,dir}"), std::string::npos) << r.err;
}

// The output is in the repository's clang-format style: clang-format leaves it as it is.
TEST_F(Cli, TranspileFormatsInTheRepositoryStyle) {
  if (std::system("clang-format --version > /dev/null 2>&1") != 0)
    GTEST_SKIP() << "clang-format is not installed (scripts/install-deps installs it)";
  const fs::path k = fs::path(PTXPP_SOURCE_DIR) / "tests/corpus/nvcc/sm_90a/mbarrier-lineinfo.ptx",
                 out = dir_ / "k.cpp";
  for (const char* mode : {"", "--sugar "}) {
    Outcome r = run(std::string("transpile ") + mode + k.string() + " -o " + out.string());
    EXPECT_EQ(r.rc, 0) << r.err;
    EXPECT_EQ(r.err, "");
    r = run("transpile --no-format " + std::string(mode) + k.string());
    const std::string unformatted = r.out;
    const std::string cpp = slurp(out);
    const fs::path again = dir_ / "again.cpp";
    const std::string cmd = "clang-format --style=file:" + std::string(PTXPP_SOURCE_DIR) + "/.clang-format " +
                            out.string() + " > " + again.string();
    ASSERT_EQ(std::system(cmd.c_str()), 0);
    EXPECT_EQ(slurp(again), cpp) << mode;
    EXPECT_NE(unformatted.find("inst::ret();"), std::string::npos) << unformatted;
  }
  // no clang-format: the output unformatted, and a warning that says so
  const fs::path small = write("small.ptx", kGood);
  Outcome r = run("transpile " + small.string(), "", "PTXPP_CLANG_FORMAT=/no/such/clang-format");
  EXPECT_EQ(r.rc, 0);
  EXPECT_NE(r.err.find("warning: the output is not formatted: /no/such/clang-format (PTXPP_CLANG_FORMAT) not found"),
            std::string::npos)
      << r.err;
  EXPECT_NE(r.out.find("inst::ret();"), std::string::npos) << r.out;
  // a clang-format that fails
  r = run("transpile " + small.string(), "", "PTXPP_CLANG_FORMAT=false");
  EXPECT_EQ(r.rc, 0);
  EXPECT_NE(r.err.find("false failed (exit status 1)"), std::string::npos) << r.err;
}

TEST_F(Cli, TranspileWritesCxxAndRejectsBadInput) {
  const fs::path k = write("k.ptx", kGood), out = dir_ / "k.cpp";
  Outcome r = run("transpile --name kmod --main " + k.string() + " -o " + out.string());
  EXPECT_EQ(r.rc, 0) << r.err;
  const std::string cpp = slurp(out);
  EXPECT_NE(cpp.find("inline ptx::Listing kmod() {"), std::string::npos) << cpp;
  EXPECT_NE(cpp.find("inst::ret();"), std::string::npos) << cpp;
  EXPECT_NE(cpp.find("int main() {"), std::string::npos) << cpp;
  r = run("transpile -", kGood);  // standard input, standard output
  EXPECT_EQ(r.rc, 0) << r.err;
  EXPECT_NE(r.out.find("inline ptx::Listing ptx_module() {"), std::string::npos) << r.out;
  EXPECT_EQ(r.out.find("int main()"), std::string::npos);
  // PTX the parser rejects: the parser's error, with the location, and no output
  r = run("transpile " + write("bad.ptx", ".version 9.0\n.target sm_90a\n.entry k( {\n").string());
  EXPECT_EQ(r.rc, 1);
  EXPECT_NE(r.err.find("bad.ptx:3:"), std::string::npos) << r.err;
  EXPECT_EQ(r.out, "");
  r = run("transpile --name 3d " + k.string());
  EXPECT_EQ(r.rc, 2);
  EXPECT_NE(r.err.find("--name '3d' is not a C++ identifier"), std::string::npos) << r.err;
  r = run("transpile --name int " + k.string());
  EXPECT_EQ(r.rc, 2);
  r = run("transpile --sugar " + k.string());
  EXPECT_EQ(r.rc, 0) << r.err;
  EXPECT_NE(r.out.find("inst::ret();"), std::string::npos) << r.out;
  r = run("transpile --frobnicate " + k.string());
  EXPECT_NE(r.rc, 0);
  EXPECT_NE(r.err.find("--frobnicate"), std::string::npos) << r.err;
  r = run("transpile " + k.string() + " -o " + (dir_ / "no" / "such" / "dir" / "k.cpp").string());
  EXPECT_EQ(r.rc, 1);
  EXPECT_NE(r.err.find("cannot write"), std::string::npos) << r.err;
  r = run("transpile " + (dir_ / "missing.ptx").string());
  EXPECT_EQ(r.rc, 1);
  EXPECT_NE(r.err.find("missing.ptx"), std::string::npos) << r.err;
}

TEST_F(Cli, TranspileWritesPython) {
  const fs::path k = write("k.ptx", kGood);
  // Python output is written as it is: no clang-format, so no warning about one
  Outcome r = run("transpile --lang python --name kmod " + k.string(), "", "PTXPP_CLANG_FORMAT=/no/such/clang-format");
  EXPECT_EQ(r.rc, 0) << r.err;
  EXPECT_EQ(r.err, "");
  EXPECT_NE(r.out.find("def kmod():\n    m = Listing(target="), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("        ptx.inst.ret()\n"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("if __name__ == \"__main__\":"), std::string::npos) << r.out;
  r = run("transpile --lang cpp " + k.string());
  EXPECT_EQ(r.rc, 0) << r.err;
  EXPECT_NE(r.out.find("inst::ret();"), std::string::npos) << r.out;
  r = run("transpile --lang python --name range " + k.string());  // the output calls range()
  EXPECT_EQ(r.rc, 2);
}

// ---- ptxpp run: the emulator's limits on the command line (issue: the emulator as a sandbox) ----

const std::string kSpin = ".version 8.0\n.target sm_80\n.address_size 64\n.visible .entry k()\n{\nL:\n\tbra L;\n}\n";

TEST_F(Cli, RunReportsAHungKernelWithinItsLimits) {
  const fs::path k = write("spin.ptx", kSpin);
  Outcome r = run("run " + k.string() + " --entry k --block 64 --max-steps 100000");
  EXPECT_EQ(r.rc, 1);
  EXPECT_NE(r.err.find("kernel k, CTA (0,0,0): hung; still running after 100000 warp instructions"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("warp 1 running at 'bra \tL;'"), std::string::npos) << r.err;
  r = run("run " + k.string() + " --entry k --max-steps 100000000000 --timeout 0.5");
  EXPECT_EQ(r.rc, 1);
  EXPECT_NE(r.err.find("(the limit: Options::timeout_seconds, ptxpp run --timeout)"), std::string::npos) << r.err;
  // the defaults alone stop it (a step limit, then a time limit): it used to run for minutes
  r = run("run " + k.string() + " --entry k --block 32");
  EXPECT_EQ(r.rc, 1);
  EXPECT_NE(r.err.find("hung; still running after"), std::string::npos) << r.err;
  // progress lines while it runs, on request
  r = run("run " + k.string() + " --entry k --max-steps 100000000000 --timeout 1.5 --progress");
  EXPECT_EQ(r.rc, 1);
  EXPECT_NE(r.err.find("ptxpp run: running: 0 of 1 CTAs done, "), std::string::npos) << r.err;
}

TEST_F(Cli, RunRefusesSizesAndPathsAsUsageErrors) {
  const fs::path k = write("scale.ptx", kScale);
  const std::string base = "run " + k.string() + " --entry scale --arg a --arg b --arg f32:1 --arg u32:1 ";
  struct Bad {
    std::string args, message;
  } cases[] = {
      {"--buf a=zeros:100000000000 --buf b=zeros:16", "--buf a=zeros:100000000000: 100000000000 bytes, more than --max-memory (4294967296)"},
      {"--buf a=zeros:4096 --buf b=zeros:16 --max-memory 1000", "--buf a=zeros:4096: 4096 bytes, more than --max-memory (1000)"},
      {"--buf a=file:/ --buf b=zeros:16", "--buf a=file:/: is a directory"},
      {"--buf a=file:/dev/zero --buf b=zeros:16", "--buf a=file:/dev/zero: not a regular file"},
      {"--buf a=zeros:16 --buf b=zeros:16 --smem 1073741824",
       "--smem: launch of scale: 1073741824 bytes of shared memory per CTA (0 static, 1073741824 dynamic): a GPU of target sm_80 takes at most 166912"},
      {"--buf a=zeros:16 --buf b=zeros:16 --smem 100000000", "--smem: launch of scale: 100000000 bytes of shared memory"},
      {"--buf a=zeros:16 --buf b=zeros:16 --smem 99999999999", "--smem: '99999999999' is not a valid number (out of range)"},
      {"--buf a=zeros:16 --buf b=zeros:16 --grid 1,65536", "--grid: launch of scale: grid (1,65536,1): a GPU takes at most (2147483647,65535,65535)"},
      {"--buf a=zeros:16 --buf b=zeros:16 --grid 2147483648", "--grid: launch of scale: grid (2147483648,1,1)"},
      {"--buf a=zeros:16 --buf b=zeros:16 --block 1,1,65", "--block: launch of scale: block (1,1,65): a GPU takes at most (1024,1024,64)"},
      {"--buf a=zeros:16 --buf b=zeros:16 --cluster 3 --grid 4", "--cluster: launch of scale: the grid (4,1,1) is not a whole number of clusters"},
      {"--buf a=zeros:16 --buf b=zeros:16 --max-steps 0", "--max-steps 0: the limit must be positive"},
      {"--buf a=zeros:16 --buf b=zeros:16 --timeout -1", "--timeout -1: seconds, 0 or more"},
      {"--buf a=zeros:16 --buf b=zeros:16 --timeout nan", "--timeout nan: seconds, 0 or more"},
  };
  for (const Bad& c : cases) {
    const Outcome r = run(base + c.args);
    EXPECT_EQ(r.rc, 2) << c.args << "\n" << r.err;
    EXPECT_NE(r.err.find(c.message), std::string::npos) << c.args << "\n" << r.err;
  }
}

TEST_F(Cli, RunReportsAFailedDump) {
  const fs::path k = write("scale.ptx", kScale);
  const Outcome r = run("run " + k.string() + " --entry scale --buf a=zeros:16 --buf b=zeros:16 --arg a --arg b --arg f32:1 --arg u32:4 --dump b=/dev/full");
  EXPECT_EQ(r.rc, 1);
  EXPECT_NE(r.err.find("--dump b=/dev/full: cannot write /dev/full: No space left on device"), std::string::npos) << r.err;
}

}  // namespace

namespace {

// ---- writes: checked, to -o FILE atomically, fmt -i ---------------------------------------

const std::string kMessy = ".version 9.0\n.target sm_90a\n.address_size 64\n.visible .entry k()  {\n  ret;   }\n";
const std::string kTidy = ".version 9.0\n.target sm_90a\n.address_size 64\n\n.visible .entry k()\n{\n\tret;\n}\n";

ino_t inode(const fs::path& p) {
  struct stat st {};
  return ::stat(p.c_str(), &st) == 0 ? st.st_ino : 0;
}

// Nothing written may be lost silently: standard output on a full disk is an error, exit status 1.
TEST_F(Cli, FullStandardOutputIsAnError) {
  if (!fs::exists("/dev/full")) GTEST_SKIP() << "no /dev/full";
  const fs::path k = write("k.ptx", kMessy);
  const std::string file = k.string();
  const std::vector<std::string> writers = {"print " + file,
                                            "fmt " + file,
                                            "transpile --no-format " + file,
                                            "spec ld",
                                            "spec --coverage",
                                            "roundtrip " + file,
                                            "check -o - " + write("bad.ptx", kMessy + "foo;\n").string(),
                                            "--help",
                                            "--version",
                                            "help check",
                                            "completion bash"};
  for (const std::string& args : writers) {
    Outcome r = run_in_shell("", args, "", "", "/dev/full");
    EXPECT_EQ(r.rc, 1) << args << "\n" << r.err;
    EXPECT_NE(r.err.find("ptxpp: error: cannot write standard output: No space left on device\n"), std::string::npos)
        << args << "\n"
        << r.err;
  }
  Outcome o = run("print " + file + " -o /dev/full");
  EXPECT_EQ(o.rc, 1);
  EXPECT_EQ(o.err, "ptxpp: error: cannot write /dev/full: No space left on device\n");
  // a device is written in place, not replaced
  Outcome null = run("print " + file + " -o /dev/null");
  EXPECT_EQ(null.rc, 0) << null.err;
  EXPECT_TRUE(fs::is_character_file("/dev/null"));
}

TEST_F(Cli, DashOWritesAFileForEveryCommandThatWrites) {
  const fs::path k = write("k.ptx", kMessy), bad = write("bad.ptx", kTidy.substr(0, kTidy.size() - 2) + "\tfoo;\n}\n");
  const fs::path unparsable = write("unparsable.ptx", kMessy + "foo;\n");
  const fs::path out = dir_ / "out.txt";
  struct Case {
    std::string args, expected_start;
    int rc;
  } cases[] = {
      {"print " + k.string(), kMessy, 0},
      {"fmt " + k.string(), kTidy, 0},
      {"spec mad", "mad  (PTX ISA", 0},
      {"roundtrip " + k.string(), "ok   " + k.string() + "\n1 passed, 0 failed\n", 0},
      {"check " + bad.string(), bad.string() + ":8:2: error: unknown instruction 'foo'", 1},
      {"check " + unparsable.string(), unparsable.string() + ":6:1: error: expected a directive", 1},
      {"transpile --no-format " + k.string(), "// Generated by `ptxpp transpile`", 0},
      {"completion bash", "# bash completion for ptxpp", 0},
  };
  for (const Case& c : cases) {
    fs::remove(out);
    Outcome r = run(c.args + " -o " + out.string());
    EXPECT_EQ(r.rc, c.rc) << c.args << "\n" << r.err;
    EXPECT_EQ(r.out, "") << c.args;
    EXPECT_EQ(slurp(out).substr(0, c.expected_start.size()), c.expected_start) << c.args;
  }
  // a new file gets 0666 less the umask, like a shell redirection
  fs::remove(out);
  Outcome r = run_in_shell("umask 027;", "print " + k.string() + " -o " + out.string());
  EXPECT_EQ(r.rc, 0) << r.err;
  EXPECT_EQ(fs::status(out).permissions(), fs::perms(0640));
  // into a directory that does not exist: the error, and no file
  const fs::path nowhere = dir_ / "gone" / "k.ptx";
  r = run("fmt " + k.string() + " -o " + nowhere.string());
  EXPECT_EQ(r.rc, 1);
  EXPECT_EQ(r.err, "ptxpp: error: cannot write " + nowhere.string() + ": No such file or directory\n");
  EXPECT_FALSE(fs::exists(dir_ / "gone"));
}

TEST_F(Cli, FmtInPlace) {
  const fs::path a = write("a.ptx", kMessy), b = write("b.ptx", kTidy);
  fs::permissions(a, fs::perms(0640));
  const ino_t b_inode = inode(b);
  Outcome r = run("fmt -i " + a.string() + " " + b.string());
  EXPECT_EQ(r.rc, 0) << r.err;
  EXPECT_EQ(r.out, "");
  EXPECT_EQ(slurp(a), kTidy);
  EXPECT_EQ(fs::status(a).permissions(), fs::perms(0640)) << "the file's mode is kept";
  EXPECT_EQ(inode(b), b_inode) << "a canonical file is left alone";
  // through a symlink: the file it points to is replaced, the link stays
  const fs::path target = write("t.ptx", kMessy), link = dir_ / "link.ptx";
  fs::create_symlink(target, link);
  r = run("fmt --in-place " + link.string());
  EXPECT_EQ(r.rc, 0) << r.err;
  EXPECT_TRUE(fs::is_symlink(link));
  EXPECT_EQ(slurp(target), kTidy);
  // a file that does not parse: its error, the file untouched, the other files still formatted
  const fs::path bad = write("bad.ptx", ".version 9.0\n.target\n"), c = write("c.ptx", kMessy);
  r = run("fmt -i " + bad.string() + " " + c.string());
  EXPECT_EQ(r.rc, 1);
  EXPECT_NE(r.err.find(bad.string() + ":2:1: error:"), std::string::npos) << r.err;
  EXPECT_EQ(slurp(bad), ".version 9.0\n.target\n");
  EXPECT_EQ(slurp(c), kTidy);
}

// A write that fails half way (here: the file size limit, which holds for root too) leaves the
// original file as it was, and no temporary file behind.
TEST_F(Cli, FailedWritesLeaveTheOriginalIntact) {
  std::string big = ".version 9.0\n.target sm_90a\n.address_size 64\n.visible .entry k()  {\n  .reg .b32 %r<2>;\n";
  while (big.size() < 16384) big += "     add.u32   %r1,%r1,   1;\n";
  big += "  ret;   }\n";
  const fs::path k = write("big.ptx", big), out = write("out.ptx", "precious\n");
  const std::string limit = "trap '' XFSZ; ulimit -f 4;";  // 2 to 4 KiB: the error message fits, the file does not
  Outcome r = run_in_shell(limit, "fmt -i " + k.string());
  EXPECT_EQ(r.rc, 1);
  EXPECT_EQ(r.err, "ptxpp: error: cannot write " + k.string() + ": File too large\n");
  EXPECT_EQ(slurp(k), big);
  r = run_in_shell(limit, "print " + k.string() + " -o " + out.string());
  EXPECT_EQ(r.rc, 1);
  EXPECT_EQ(r.err, "ptxpp: error: cannot write " + out.string() + ": File too large\n");
  EXPECT_EQ(slurp(out), "precious\n");
  size_t files = 0;
  for ([[maybe_unused]] const auto& e : fs::directory_iterator(dir_)) ++files;
  EXPECT_EQ(files, 5u) << "big.ptx, out.ptx, .stdin, .stdout, .stderr; no temporary file";
}

// --ptx-version and --target replace the module's, and a conflict with them is reported.
TEST_F(Cli, CheckOverridesReportConflicts) {
  const fs::path p = write("k.ptx", kTidy);
  Outcome r = run("check --ptx-version 7.0 " + p.string());
  EXPECT_EQ(r.rc, 1);
  EXPECT_EQ(r.err, p.string() +
                       ":2:1: error: target sm_90a needs PTX ISA 8.0 or later; checking PTX ISA 7.0 for "
                       "sm_90a, given in place of the module's .version 9.0\n.target sm_90a\n^\n1 error in " +
                       p.string() + "\n");
  r = run("check --target sm_100a " + write("old.ptx", ".version 8.0\n.target sm_90a\n.address_size 64\n").string());
  EXPECT_EQ(r.rc, 1);
  EXPECT_NE(r.err.find("error: target sm_100a needs PTX ISA 8.6 or later; checking PTX ISA 8.0 for sm_100a, given in "
                       "place of the module's .target sm_90a\n"),
            std::string::npos)
      << r.err;
  r = run("check --target sm_80 --ptx-version 7.0 " + p.string());
  EXPECT_EQ(r.rc, 0) << r.err;
  EXPECT_EQ(r.err, "");
}

// `ptxpp completion bash`, sourced in bash: the completions bash offers for a few command lines.
TEST_F(Cli, BashCompletion) {
  if (std::system("bash -c true > /dev/null 2>&1") != 0) GTEST_SKIP() << "no bash";
  const fs::path script = dir_ / "ptxpp.bash";
  ASSERT_EQ(run("completion bash -o " + script.string()).rc, 0);
  write("kernel.ptx", kTidy);
  const fs::path probe = write("probe.sh", "source " + script.string() + R"(
cd ")" + dir_.string() + R"("
complete_line() {
  read -ra COMP_WORDS <<< "$1"
  [[ $1 == *" " ]] && COMP_WORDS+=("")
  COMP_CWORD=$((${#COMP_WORDS[@]} - 1))
  COMPREPLY=()
  _ptxpp
  echo "$1|${COMPREPLY[*]}"
}
complete_line "ptxpp pr"
complete_line "ptxpp --v"
complete_line "ptxpp check --p"
complete_line "ptxpp check --ver"
complete_line "ptxpp help tr"
complete_line "ptxpp cache c"
complete_line "ptxpp fmt -o ker"
complete_line "ptxpp run kernel.ptx --d"
complete -p ptxpp
)");
  const fs::path out = dir_ / "completions.txt";
  ASSERT_EQ(std::system(("bash " + probe.string() + " > " + out.string() + " 2>&1").c_str()), 0) << slurp(out);
  EXPECT_EQ(slurp(out),
            "ptxpp pr|print\n"
            "ptxpp --v|--version\n"
            "ptxpp check --p|--ptx-version --pedantic\n"
            "ptxpp check --ver|\n"
            "ptxpp help tr|transpile\n"
            "ptxpp cache c|clear\n"
            "ptxpp fmt -o ker|kernel.ptx\n"
            "ptxpp run kernel.ptx --d|--dump --device\n"
            "complete -F _ptxpp ptxpp\n");
}

}  // namespace
