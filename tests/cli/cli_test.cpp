// The ptxpp command: subcommands, conventions (-, --help, --version), errors and exit codes.
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <sys/wait.h>

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

  Outcome run(const std::string& args, const std::string& stdin_text = "") {
    const fs::path in = write(".stdin", stdin_text), out = dir_ / ".stdout", err = dir_ / ".stderr";
    const std::string cmd = std::string(PTXPP_CLI) + " " + args + " < " + in.string() + " > " + out.string() +
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
  Outcome r = run("--version");
  EXPECT_EQ(r.rc, 0);
  EXPECT_EQ(r.out, "ptxpp " PTXPP_VERSION "\n");
}

TEST_F(Cli, Help) {
  Outcome r = run("--help");
  EXPECT_EQ(r.rc, 0);
  for (const char* word : {"print", "fmt", "roundtrip"}) EXPECT_NE(r.out.find(word), std::string::npos) << word;
  Outcome sub = run("roundtrip --help");
  EXPECT_EQ(sub.rc, 0);
  EXPECT_NE(sub.out.find("--canonical"), std::string::npos);
}

TEST_F(Cli, UsageErrorsGoToStderrWithNonZeroExit) {
  for (const char* args : {"", "bogus", "print", "print --bogus x.ptx", "roundtrip", "fmt a.ptx b.ptx"}) {
    Outcome r = run(args);
    EXPECT_NE(r.rc, 0) << args;
    EXPECT_TRUE(r.out.empty()) << args << ": " << r.out;
    EXPECT_FALSE(r.err.empty()) << args;
  }
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
  EXPECT_EQ(r.err, p.string() + ":3:15: error: expected ',' or ';' after an operand, found number '1'\n"
                                "  mov.u32 %r1 1;\n"
                                "              ^\n");
  Outcome s = run("fmt -", "\n\n  .foo");
  EXPECT_EQ(s.rc, 1);
  EXPECT_EQ(s.err.substr(0, s.err.find('\n')), "<stdin>:3:3: error: unknown directive '.foo' at module scope");
}

TEST_F(Cli, MissingFileAndDirectory) {
  Outcome r = run("print " + (dir_ / "nope.ptx").string());
  EXPECT_EQ(r.rc, 1);
  EXPECT_EQ(r.err, "ptxpp: " + (dir_ / "nope.ptx").string() + ": No such file or directory\n");
  Outcome d = run("fmt " + dir_.string());
  EXPECT_EQ(d.rc, 1);
  EXPECT_EQ(d.err, "ptxpp: " + dir_.string() + ": is a directory\n");
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
  const fs::path p = write("v.ptx", kCheckHead + ".visible .entry k()\n{\n\t.reg .b32 %r<4>;\n"
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

TEST_F(Cli, CheckCleanFileAndOverrides) {
  const std::string text = kCheckHead + ".visible .entry k()\n{\n\t.reg .b32 %r<4>;\n\tadd.u16x2 %r1, %r2, %r3;\n\tret;\n}\n";
  const fs::path p = write("ok.ptx", text);
  Outcome ok = run("check " + p.string());
  EXPECT_EQ(ok.rc, 0) << ok.err;
  EXPECT_TRUE(ok.err.empty()) << ok.err;
  Outcome old = run("check --target sm_80 --version 7.0 " + p.string());
  EXPECT_EQ(old.rc, 1);
  EXPECT_NE(old.err.find("requires PTX ISA 8.0, sm_90 or later; the module is PTX ISA 7.0 for sm_80"), std::string::npos)
      << old.err;
  Outcome in = run("check -", text);
  EXPECT_EQ(in.rc, 0) << in.err;
}

TEST_F(Cli, CheckBadFlags) {
  const fs::path p = write("ok.ptx", kCheckHead);
  Outcome t = run("check --target sm90 " + p.string());
  EXPECT_EQ(t.rc, 2);
  EXPECT_EQ(t.err, "ptxpp check: --target sm90: not a target such as sm_90a\n");
  Outcome v = run("check --version nine " + p.string());
  EXPECT_EQ(v.rc, 2);
  EXPECT_EQ(v.err, "ptxpp check: --version nine: not a PTX ISA version such as 8.7\n");
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
  EXPECT_EQ(none.err, "ptxpp spec: no instruction 'frobnicate' in the table (try: ptxpp spec --coverage)\n");
  Outcome cov = run("spec --coverage");
  EXPECT_EQ(cov.rc, 0);
  EXPECT_NE(cov.out.find("instruction sections covered"), std::string::npos);
  EXPECT_EQ(cov.out.find("MISSING"), std::string::npos);
  Outcome neither = run("spec");
  EXPECT_NE(neither.rc, 0);
}

}  // namespace
