// The main job (scripts/run-main): a SAXPY kernel written in the DSL is traced once, for the
// device that will run it; its PTX is written to a file and printed, checked (exact and canonical
// round trips, the validator, ptxas when the CUDA toolkit is present), and that same PTX runs on
// the GPU when there is one, else on the CPU emulator, against a CPU reference.
//   stdout: the PTX only (`> saxpy.ptx` gives a file ptxas accepts); stderr: each step and its result.
//   ptxpp-example-saxpy [--ptx] [--arch TARGET] [-n N] [-o FILE] [--device best|gpu|cpu]
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <memory>
#include <string>
#include <vector>

#include <unistd.h>

#include <CLI/CLI.hpp>
#include <ptxpp/dsl.hpp>
#include <ptxpp/ptxpp.hpp>
#include <ptxpp/runtime.hpp>
#include <ptxpp/spec/validator.hpp>

using namespace ptx::types;
namespace inst = ptx::inst;
namespace fs = std::filesystem;

namespace {

// y[i] = a * x[i] + y[i] for i < n
ptx::Kernel saxpy(const std::string& arch) {
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

struct Options {
  bool ptx_only = false;
  std::string arch;  // empty: the GPU's, else sm_90a
  int64_t n = 0;     // 0: 2^24 on a GPU, 10000 on the CPU emulator (not a multiple of 256: the guard matters)
  std::string out = "saxpy.ptx";
  std::string device = "best";
};

// The story goes to stderr, so that stdout carries the PTX alone.
void say(const std::string& label, const std::string& text) {
  std::cerr << "  " << label << ":" << std::string(label.size() < 11 ? 11 - label.size() : 1, ' ') << text << "\n";
}

// A path as the user would type it from here: relative when under the current directory.
std::string shown(const fs::path& p) {
  std::error_code ec;
  const fs::path rel = fs::proximate(p, fs::current_path(), ec);
  return !ec && !rel.empty() && *rel.begin() != ".." ? rel.string() : p.string();
}

struct Chosen {
  ptx::Device device;
  std::string description;
};

// GPU 0 when it starts; otherwise the CPU emulator, with the runtime's reason there is no GPU
// (no driver library, no device, ...). --device gpu makes that reason an error.
Chosen choose_device(const std::string& which) {
  if (which == "cpu") return {ptx::device::cpu(), "the CPU emulator (--device cpu)"};
  try {
    const ptx::Device gpu = ptx::device::gpu(0);
    return {gpu, "GPU 0, " + gpu.name() + " (" + gpu.arch() + ")"};
  } catch (const ptx::runtime::Error& e) {
    if (which == "gpu") throw;
    return {ptx::device::cpu(), std::string("the CPU emulator (no GPU: ") + e.what() + ")"};
  }
}

std::string find_ptxas() {
  if (const char* env = std::getenv("PTXAS")) return env;
  const fs::path p = fs::path("/usr/local/cuda/bin") / "ptxas";
  if (fs::exists(p)) return p.string();
  return std::system("command -v ptxas > /dev/null 2>&1") == 0 ? "ptxas" : "";
}

// ptxas's exit status and output (stdout and stderr) for FILE.
int run_ptxas(const std::string& ptxas, const fs::path& file, const std::string& arch, std::string& log) {
  const fs::path cubin = fs::temp_directory_path() / ("ptxpp-saxpy-" + std::to_string(::getpid()) + ".cubin");
  const std::string cmd =
      "'" + ptxas + "' -v -arch=" + arch + " '" + file.string() + "' -o '" + cubin.string() + "' 2>&1";
  FILE* pipe = ::popen(cmd.c_str(), "r");
  if (!pipe) return -1;
  char buf[512];
  while (std::fgets(buf, sizeof buf, pipe)) log += buf;
  const int rc = ::pclose(pipe);
  fs::remove(cubin);
  return rc;
}

bool check_text(const std::string& text) {
  auto reparsed = ptx::text::parse(text, {"saxpy.ptx"});
  if (!reparsed) {
    say("parse", "FAILED\n" + reparsed.error().format());
    return false;
  }
  const bool exact = ptx::text::print(reparsed.module()) == text;
  say("round trip", exact ? "parse + exact print gives the PTX back byte for byte" : "DIFFERS");
  const bool canonical = ptx::text::print(reparsed.module(), ptx::text::PrintMode::Canonical) == text;
  say("canonical", canonical ? "the DSL prints canonical PTX (ptxpp fmt leaves it unchanged)" : "NOT CANONICAL");
  const auto diags = ptx::spec::check(reparsed.module());
  say("validator", diags.empty() ? "no problems (the ISA table)" : "PROBLEMS");
  for (const auto& d : diags) std::cerr << "    " << d.message << "\n";
  return exact && canonical && diags.empty();
}

bool check_ptxas(const fs::path& file, const std::string& arch) {
  const std::string ptxas = find_ptxas();
  if (ptxas.empty()) {
    say("ptxas", "not found (install the CUDA toolkit at /usr/local/cuda to assemble); skipped");
    return true;
  }
  std::string log;
  const int rc = run_ptxas(ptxas, file, arch, log);
  const size_t at = log.find("Used ");
  const std::string used = at == std::string::npos ? "" : " (" + log.substr(at, log.find('\n', at) - at) + ")";
  say("ptxas", rc == 0 ? "accepted for " + arch + used : "REJECTED for " + arch + ":\n" + log);
  return rc == 0;
}

// Runs the traced kernel on the device for N elements against a CPU reference.
bool run(const Chosen& chosen, const std::shared_ptr<const ptx::Traced>& traced, int64_t n, const std::string& where) {
  const ptx::Device& dev = chosen.device;
  const size_t bytes = static_cast<size_t>(n) * 4;
  std::vector<float> x(static_cast<size_t>(n)), y(x.size()), out(x.size());
  for (size_t i = 0; i < x.size(); ++i)
    x[i] = 0.5f * static_cast<float>(i % 97), y[i] = 1.0f - 0.25f * static_cast<float>(i % 13);
  const float a = 3.0f;
  const ptx::DevicePtr dx = dev.alloc(bytes, "x"), dy = dev.alloc(bytes, "y");
  dev.copy_to_device(dx, x.data(), bytes);
  dev.copy_to_device(dy, y.data(), bytes);
  auto k = ptx::bind(dev, traced);
  k(dx, dy, a, static_cast<uint32_t>(n));
  dev.synchronize();
  dev.copy_to_host(out.data(), dy, bytes);
  dev.free(dx);
  dev.free(dy);
  bool same = true;
  for (size_t i = 0; i < x.size(); ++i) same = same && out[i] == std::fma(a, x[i], y[i]);
  say("ran", where + ": N = " + std::to_string(n) + ", grid " + std::to_string(traced->grid.x) + " x block " +
                 std::to_string(traced->block.x) + ", the PTX above; " +
                 (same ? "matches the CPU reference" : "DIFFERS from the CPU reference"));
  return same;
}

void print_next(const fs::path& ptx_file) {
  const fs::path cli = PTXPP_CLI_PATH, build = PTXPP_BINARY_DIR;
  say("ptxpp", fs::exists(cli) ? shown(cli) + " (the command line tool; --help lists its commands)"
                               : "not built (cmake --build " + shown(build) + " --target ptxpp-cli)");
  const std::string flash = "ptxpp-example-flash_attn_sm90";
  std::cerr << "  try next:\n"
            << "    " << shown(cli) << " transpile " << shown(ptx_file) << "\n"
            << "        # this PTX turned back into ptxpp C++ (docs/transpile.md)\n"
            << "    cmake --build " << shown(build) << " --target " << flash << " && "
            << shown(build / "examples" / flash) << " --dim D=64\n"
            << "        # flash attention (TMA + wgmma, examples/kernels/flash_attn_sm90.hpp), on the CPU emulator "
               "without a GPU\n";
}

// Writes text to path; a clear error when it cannot.
void write_file(const fs::path& path, const std::string& text) {
  std::ofstream f(path, std::ios::binary);
  f << text;
  f.close();
  if (!f) throw std::runtime_error("cannot write the PTX to '" + path.string() + "'");
}

int main_job(const Options& o) {
  std::cerr << "ptxpp main job: y = a*x + y (SAXPY), a kernel written in the ptxpp DSL\n";
  say("source", shown(fs::path(PTXPP_SOURCE_DIR) / "examples" / "saxpy.cpp") + " (saxpy(), at the top)");
  const Chosen chosen = choose_device(o.device);
  const bool gpu = chosen.device.kind() == ptx::DeviceKind::Gpu;
  say("device", chosen.description);
  const std::string arch = !o.arch.empty() ? o.arch : gpu ? chosen.device.arch() : "sm_90a";
  const int64_t n = o.n > 0 ? o.n : gpu ? int64_t{1} << 24 : 10000;
  const auto traced = saxpy(arch).trace({{"N", n}});
  say("traced", "saxpy for " + traced->target + ", N = " + std::to_string(n) + ": " +
                    std::to_string(traced->instructions) + " instructions (one per DSL call); block " +
                    std::to_string(traced->block.x) + ", grid " + std::to_string(traced->grid.x) +
                    " (N / 256 rounded up)");
  const fs::path file = o.out;
  write_file(file, traced->ptx);
  say("PTX", shown(file) + " (" + std::to_string(traced->ptx.size()) + " bytes), also printed on stdout:");
  std::cout << traced->ptx << std::flush;
  bool ok = check_text(traced->ptx);
  ok = check_ptxas(file, traced->target) && ok;
  ok = run(chosen, traced, n, gpu ? "on the GPU" : "on the CPU emulator") && ok;
  print_next(file);
  std::cerr << (ok ? "ALL CHECKS PASSED" : "CHECKS FAILED") << "\n";
  return ok ? 0 : 1;
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{
      "The main job: the SAXPY kernel of examples/saxpy.cpp traced, written, checked and run.\n"
      "stdout: the PTX only; stderr: each step and its result."};
  Options o;
  app.add_flag("--ptx", o.ptx_only, "print the kernel's PTX (for --arch, default sm_90a) and exit");
  app.add_option("--arch", o.arch, "target (default: the GPU's, else sm_90a)");
  app.add_option("-n", o.n, "elements (default: 2^24 on a GPU, 10000 on the CPU emulator)")
      ->check(CLI::Range(int64_t{1}, int64_t{1} << 30));
  CLI::Option* out = app.add_option("-o,--out", o.out, "the file the PTX is written to (with --ptx: only if given)");
  out->capture_default_str()->multi_option_policy(CLI::MultiOptionPolicy::TakeLast);  // scripts/run-main gives one
  app.add_option("--device", o.device, "where it runs: best (the GPU when there is one), gpu, cpu")
      ->check(CLI::IsMember({"best", "gpu", "cpu"}))
      ->capture_default_str();
  CLI11_PARSE(app, argc, argv);
  try {
    if (!o.ptx_only) return main_job(o);
    const auto traced = saxpy(o.arch.empty() ? "sm_90a" : o.arch).trace({{"N", o.n > 0 ? o.n : 10000}});
    std::cout << traced->ptx;
    if (out->count() > 0) write_file(o.out, traced->ptx);
    return 0;
  } catch (const std::exception& e) {
    std::cout << std::flush;
    std::cerr << "error: " << e.what() << "\n";
    return 1;
  }
}
