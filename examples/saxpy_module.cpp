// The main job for now: build a SAXPY kernel as a PTX module through the IR API,
// print its PTX, and check it: parse it back (exact and canonical round trips)
// and assemble it with ptxas when the CUDA toolkit is present.
//
// The C++ DSL (ptx::kernel, ptx::inst) will replace the hand-built IR here; the
// checks stay the same.
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <sstream>
#include <string>
#include <vector>

#include "ptxpp/ptxpp.hpp"

using namespace ptx::ir;
namespace fs = std::filesystem;

namespace {

// y[i] = a * x[i] + y[i] for i < n
Module build_saxpy() {
  Module m;
  std::vector<Stmt> root;
  root.push_back(m.add_directive(".version", {m.add_float_spelled(9.0, "9.0")}));
  root.push_back(m.add_directive(".target", {m.add_name("sm_90a")}));
  root.push_back(m.add_directive(".address_size", {m.add_int(64)}));

  const uint32_t params[] = {
      m.add_decl({".param", ".u64"}, "saxpy_x", {}, {}, {}, false),
      m.add_decl({".param", ".u64"}, "saxpy_y", {}, {}, {}, false),
      m.add_decl({".param", ".f32"}, "saxpy_a", {}, {}, {}, false),
      m.add_decl({".param", ".u32"}, "saxpy_n", {}, {}, {}, false),
  };
  const uint32_t body_block = m.add_block();
  std::vector<Stmt> body;
  auto regs = [&](const char* type, const char* prefix, uint64_t count) {
    body.push_back(Stmt{StmtKind::Decl, m.add_decl({".reg", type}, prefix, m.add_list(Delim::Angle, {m.add_int(count)}))});
  };
  regs(".pred", "%p", 2);
  regs(".b32", "%r", 6);
  regs(".f32", "%f", 5);
  regs(".b64", "%rd", 8);
  auto r = [&](const char* name) { return m.add_name(name); };
  auto at = [&](ExprId a) { return m.add_list(Delim::Bracket, {a}); };
  auto emit = [&](const char* mnemonic, std::initializer_list<ExprId> ops, ExprId guard = {}) {
    body.push_back(m.add_instruction(m.make_instruction(mnemonic, ops, guard)));
  };
  emit("ld.param.u64", {r("%rd1"), at(r("saxpy_x"))});
  emit("ld.param.u64", {r("%rd2"), at(r("saxpy_y"))});
  emit("ld.param.f32", {r("%f1"), at(r("saxpy_a"))});
  emit("ld.param.u32", {r("%r1"), at(r("saxpy_n"))});
  emit("mov.u32", {r("%r2"), m.add_name("%ctaid", ".x")});
  emit("mov.u32", {r("%r3"), m.add_name("%ntid", ".x")});
  emit("mov.u32", {r("%r4"), m.add_name("%tid", ".x")});
  emit("mad.lo.s32", {r("%r5"), r("%r2"), r("%r3"), r("%r4")});
  emit("setp.ge.u32", {r("%p1"), r("%r5"), r("%r1")});
  emit("bra.uni", {r("$L__done")}, r("%p1"));
  emit("cvta.to.global.u64", {r("%rd3"), r("%rd1")});
  emit("cvta.to.global.u64", {r("%rd4"), r("%rd2")});
  emit("mul.wide.u32", {r("%rd5"), r("%r5"), m.add_int(4)});
  emit("add.s64", {r("%rd6"), r("%rd3"), r("%rd5")});
  emit("add.s64", {r("%rd7"), r("%rd4"), r("%rd5")});
  emit("ld.global.f32", {r("%f2"), at(r("%rd6"))});
  emit("ld.global.f32", {r("%f3"), at(r("%rd7"))});
  emit("fma.rn.f32", {r("%f4"), r("%f1"), r("%f2"), r("%f3")});
  emit("st.global.f32", {at(r("%rd7")), r("%f4")});
  body.push_back(m.add_label("$L__done"));
  emit("ret", {});
  m.blocks[body_block].stmts = std::move(body);
  root.push_back(m.add_function({".visible", ".entry"}, "saxpy", params, body_block));
  m.root().stmts = std::move(root);
  return m;
}

std::string find_ptxas() {
  if (const char* env = std::getenv("PTXAS")) return env;
  for (const char* dir : {"/usr/local/cuda/bin"}) {
    const fs::path p = fs::path(dir) / "ptxas";
    if (fs::exists(p)) return p.string();
  }
  return std::system("command -v ptxas > /dev/null 2>&1") == 0 ? "ptxas" : "";
}

// Runs ptxas -v on the text; returns its exit status and output.
int run_ptxas(const std::string& ptxas, const std::string& text, const std::string& arch, std::string& log) {
  const fs::path dir = fs::temp_directory_path() / ("ptxpp-example-" + std::to_string(::getpid()));
  fs::create_directories(dir);
  std::ofstream(dir / "saxpy.ptx") << text;
  const std::string cmd = ptxas + " -v -arch=" + arch + " " + (dir / "saxpy.ptx").string() + " -o " +
                          (dir / "saxpy.cubin").string() + " > " + (dir / "log").string() + " 2>&1";
  const int rc = std::system(cmd.c_str());
  std::ifstream lf(dir / "log");
  std::ostringstream ss;
  ss << lf.rdbuf();
  log = ss.str();
  fs::remove_all(dir);
  return rc;
}

}  // namespace

int main() {
  const Module m = build_saxpy();
  const std::string text = ptx::text::print(m);
  std::cout << text;

  bool ok = true;
  std::cout << "\n== summary ==\n";
  std::cout << "module: " << m.functions.size() << " kernel, " << m.instructions.size() << " instructions, "
            << text.size() << " bytes of PTX\n";

  auto reparsed = ptx::text::parse(text, {"saxpy.ptx", 256});
  if (!reparsed) {
    std::cout << "parse: FAILED\n" << reparsed.error().format() << "\n";
    return 1;
  }
  const bool exact = ptx::text::print(reparsed.module()) == text;
  std::cout << "round trip (parse, exact print): " << (exact ? "identical" : "DIFFERS") << "\n";
  const std::string canon = ptx::text::print(reparsed.module(), ptx::text::PrintMode::Canonical);
  auto again = ptx::text::parse(canon);
  const bool fixpoint = again && ptx::text::print(again.module(), ptx::text::PrintMode::Canonical) == canon;
  std::cout << "canonical form: " << (fixpoint ? "fixpoint" : "NOT A FIXPOINT") << "\n";
  ok = ok && exact && fixpoint;

  const std::string ptxas = find_ptxas();
  if (ptxas.empty()) {
    std::cout << "ptxas: not found (install the CUDA toolkit to assemble); skipped\n";
  } else {
    std::string log;
    const int rc = run_ptxas(ptxas, text, "sm_90a", log);
    std::cout << "ptxas -arch=sm_90a: " << (rc == 0 ? "accepted" : "REJECTED") << "\n";
    std::istringstream lines(log);
    for (std::string line; std::getline(lines, line);)
      if (rc != 0 || line.find("Used") != std::string::npos) std::cout << "  " << line << "\n";
    ok = ok && rc == 0;
  }
  std::cout << "running the kernel: needs the runtime and the CPU emulator (not built yet)\n";
  std::cout << (ok ? "ALL CHECKS PASSED" : "CHECKS FAILED") << "\n";
  return ok ? 0 : 1;
}
