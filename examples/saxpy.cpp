// The main job: trace a SAXPY kernel with the DSL, print its PTX, and check it:
// parse it back (exact and canonical round trips), validate it against the ISA
// table, assemble it with ptxas when the CUDA toolkit is present, and run it on
// the best device (the GPU when there is one, else the CPU emulator) against a CPU
// reference.
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <sstream>
#include <string>
#include <vector>

#include <ptxpp/dsl.hpp>
#include <ptxpp/runtime.hpp>
#include <ptxpp/ptxpp.hpp>
#include <ptxpp/spec/validator.hpp>

using namespace ptx::types;
namespace inst = ptx::inst;
namespace fs = std::filesystem;

namespace {

// y[i] = a * x[i] + y[i] for i < n
ptx::Kernel saxpy(const std::string& arch = "sm_90a") {
  return ptx::kernel("saxpy")
      .in(ptx::tensor(f32, {"N"}))
      .out(ptx::tensor(f32, {"N"}))
      .scalar("a", f32)
      .scalar("n", u32)
      .block(256)
      .grid([](const ptx::Bindings& b) { return ptx::Dim3(static_cast<uint32_t>((b.at("N") + 255) / 256)); })
      .arch(arch)
      .body([](ptx::Tensor x, ptx::Tensor y, ptx::Scalar a, ptx::Scalar n) {
        // one statement per emitting call: C++ leaves the order of arguments unspecified
        ptx::Reg cta = ptx::read(ptx::special::ctaid.x(), u32);
        ptx::Reg ntid = ptx::read(ptx::special::ntid.x(), u32);
        ptx::Reg tid = ptx::read(ptx::special::tid.x(), u32);
        ptx::Reg i(u32);
        inst::mad.lo.u32(i, cta, ntid, tid);
        ptx::Reg count = n.load();
        ptx::Label done("done");
        ptx::bra_if(i >= count, done);
        auto [px, py] = ptx::global_ptrs(x, y);
        ptx::Reg off(u64);
        inst::mul.wide.u32(off, i, 4);
        ptx::Reg ax = px + off, ay = py + off;
        ptx::Reg xv(f32), yv(f32);
        inst::ld.global.f32(xv, ptx::addr(ax));
        inst::ld.global.f32(yv, ptx::addr(ay));
        ptx::Reg av = a.load();
        inst::fma.rn.f32(yv, av, xv, yv);
        inst::st.global.f32(ptx::addr(ay), yv);
        ptx::place(done);
        ptx::ret();
      });
}

std::string find_ptxas() {
  if (const char* env = std::getenv("PTXAS")) return env;
  const fs::path p = fs::path("/usr/local/cuda/bin") / "ptxas";
  if (fs::exists(p)) return p.string();
  return std::system("command -v ptxas > /dev/null 2>&1") == 0 ? "ptxas" : "";
}

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
  const auto traced = saxpy().trace({{"N", 1 << 20}});
  const std::string& text = traced->ptx;
  std::cout << text;

  bool ok = true;
  std::cout << "\n== summary ==\n";
  std::cout << "kernel " << traced->name << " for " << traced->target << ": " << traced->instructions
            << " instructions (one per DSL call), " << text.size() << " bytes of PTX, grid " << traced->grid.x
            << ", block " << traced->block.x << "\n";

  auto reparsed = ptx::text::parse(text, {"saxpy.ptx"});
  if (!reparsed) {
    std::cout << "parse: FAILED\n" << reparsed.error().format() << "\n";
    return 1;
  }
  const bool exact = ptx::text::print(reparsed.module()) == text;
  std::cout << "round trip (parse, exact print): " << (exact ? "identical" : "DIFFERS") << "\n";
  const bool canonical = ptx::text::print(reparsed.module(), ptx::text::PrintMode::Canonical) == text;
  std::cout << "canonical form: " << (canonical ? "the DSL prints canonical PTX" : "NOT CANONICAL") << "\n";
  const auto diags = ptx::spec::check(reparsed.module());
  std::cout << "validator: " << (diags.empty() ? "no problems" : "PROBLEMS") << "\n";
  for (const auto& d : diags) std::cout << "  " << d.message << "\n";
  ok = ok && exact && canonical && diags.empty();

  const std::string ptxas = find_ptxas();
  if (ptxas.empty()) {
    std::cout << "ptxas: not found (install the CUDA toolkit to assemble); skipped\n";
  } else {
    std::string log;
    const int rc = run_ptxas(ptxas, text, traced->target, log);
    std::cout << "ptxas -arch=" << traced->target << ": " << (rc == 0 ? "accepted" : "REJECTED") << "\n";
    std::istringstream lines(log);
    for (std::string line; std::getline(lines, line);)
      if (rc != 0 || line.find("Used") != std::string::npos) std::cout << "  " << line << "\n";
    ok = ok && rc == 0;
  }
  {
    // run it on the best device: the GPU when there is one (full size), else the CPU emulator (reduced)
    const ptx::Device dev = ptx::device::best();
    const bool gpu = dev.kind() == ptx::DeviceKind::Gpu;
    const int n = gpu ? 1 << 24 : 10000;
    std::vector<float> x(n), y(n), out(n);
    for (int i = 0; i < n; ++i) x[i] = 0.5f * static_cast<float>(i % 97), y[i] = 1.0f - 0.25f * static_cast<float>(i % 13);
    const float a = 3.0f;
    bool same = false;
    try {
      const ptx::DevicePtr dx = dev.alloc(n * 4ull, "x"), dy = dev.alloc(n * 4ull, "y");
      dev.copy_to_device(dx, x.data(), n * 4ull);
      dev.copy_to_device(dy, y.data(), n * 4ull);
      auto k = ptx::bind(dev, saxpy(gpu ? dev.arch() : "sm_90a"), {{"N", n}});
      k(dx, dy, a, static_cast<uint32_t>(n));
      dev.synchronize();
      dev.copy_to_host(out.data(), dy, n * 4ull);
      same = true;
      for (int i = 0; i < n; ++i) same = same && out[i] == std::fma(a, x[i], y[i]);
      std::cout << "ran on " << dev.name() << ": saxpy on " << n << " elements (" << k.traced().grid.x << " CTAs of "
                << k.traced().block.x << "): " << (same ? "matches the CPU reference" : "DIFFERS from the CPU reference") << "\n";
      dev.free(dx);
      dev.free(dy);
    } catch (const ptx::runtime::Error& e) {
      std::cout << "running on " << dev.name() << ": FAILED\n" << e.what() << "\n";
    }
    ok = ok && same;
  }
  std::cout << (ok ? "ALL CHECKS PASSED" : "CHECKS FAILED") << "\n";
  return ok ? 0 : 1;
}
