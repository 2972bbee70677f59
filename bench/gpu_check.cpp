// scripts/gpu-check's program: every example kernel on the GPU at full size, checked
// against a CPU reference, timed, and compared with the device-to-device copy
// bandwidth measured in the same run. Prints a table and writes it to --out FILE.
#include <chrono>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <functional>
#include <sstream>
#include <string>
#include <vector>

#include <ptxpp/runtime.hpp>

#include "../examples/kernels/elementwise.hpp"
#include "../examples/kernels/rows.hpp"
#include "runtime/driver.hpp"

namespace {

double seconds_per_run(const ptx::Device& dev, const std::function<void()>& run) {
  run();  // warm up (compile, load)
  dev.synchronize();
  int n = 0;
  const auto start = std::chrono::steady_clock::now();
  double elapsed = 0;
  do {
    run();
    ++n;
    dev.synchronize();
    elapsed = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  } while (elapsed < 0.5 && n < 1000);
  return elapsed / n;
}

std::vector<float> randoms(size_t n, uint32_t seed) {
  std::vector<float> v(n);
  for (auto& x : v) {
    seed = seed * 1664525u + 1013904223u;
    x = static_cast<float>(seed >> 8) / static_cast<float>(1u << 24) * 4.0f - 2.0f;
  }
  return v;
}

}  // namespace

int main(int argc, char** argv) {
  std::string out_path = "gpu-check.txt";
  for (int i = 1; i + 1 < argc; ++i)
    if (std::string(argv[i]) == "--out") out_path = argv[i + 1];
  if (ptx::device::gpu_count() == 0) {
    std::printf("gpu_check: no GPU (or no CUDA driver) on this machine\n");
    return 2;
  }
  const ptx::Device dev = ptx::device::gpu(0);
  const std::string arch = dev.arch();
  std::ostringstream table;
  table << "device: " << dev.name() << " (" << arch << ")\n";
  table << "kernel        shape            time_us    TB/s   copy_TB/s   of_copy   check\n";

  const size_t n = size_t{1} << 26;  // 64 Mi elements (256 MB per f32 tensor)
  const int rows = 16384, cols = 4096;
  auto x = randoms(n, 1), y = randoms(n, 2);
  ptx::DevicePtr dx = dev.alloc(n * 4, "x"), dy = dev.alloc(n * 4, "y"), dz = dev.alloc(n * 4, "z");
  ptx::DevicePtr dw = dev.alloc(cols * 4, "w"), db = dev.alloc(cols * 4, "b");
  dev.copy_to_device(dx, x.data(), n * 4);
  dev.copy_to_device(dy, y.data(), n * 4);
  auto w = randoms(cols, 3), bvec = randoms(cols, 4);
  dev.copy_to_device(dw, w.data(), cols * 4);
  dev.copy_to_device(db, bvec.data(), cols * 4);
  const auto& drv = ptx::runtime::Driver::get();

  auto report = [&](const char* name, const std::string& shape, double s, double bytes, bool ok) {
    const double tbs = bytes / s / 1e12;
    const double copy_s = seconds_per_run(dev, [&] { drv.check(drv.cuMemcpyDtoD(dz.address, dx.address, static_cast<size_t>(bytes / 2)), "copy"); });
    const double copy_tbs = bytes / copy_s / 1e12;
    char line[256];
    std::snprintf(line, sizeof line, "%-13s %-16s %9.1f %7.2f %10.2f %8.0f%%   %s\n", name, shape.c_str(), s * 1e6, tbs, copy_tbs,
                  100.0 * tbs / copy_tbs, ok ? "ok" : "WRONG");
    table << line;
    std::fputs(line, stdout);
  };

  {  // identity
    auto k = ptx::bind(dev, examples::identity(arch), {{"N", static_cast<int64_t>(n)}});
    const double s = seconds_per_run(dev, [&] { k(dx, dz); });
    std::vector<float> got(n);
    dev.copy_to_host(got.data(), dz, n * 4);
    report("identity", std::to_string(n), s, 2.0 * n * 4, got == x);
  }
  {  // vector add
    auto k = ptx::bind(dev, examples::vector_add(arch), {{"N", static_cast<int64_t>(n)}});
    const double s = seconds_per_run(dev, [&] { k(dx, dy, dz); });
    std::vector<float> got(n);
    dev.copy_to_host(got.data(), dz, n * 4);
    bool ok = true;
    for (size_t i = 0; i < n && ok; i += 997) ok = got[i] == x[i] + y[i];
    report("vector_add", std::to_string(n), s, 3.0 * n * 4, ok);
  }
  {  // SwiGLU
    auto k = ptx::bind(dev, examples::swiglu(arch), {{"N", static_cast<int64_t>(n)}});
    const double s = seconds_per_run(dev, [&] { k(dx, dy, dz); });
    std::vector<float> got(n);
    dev.copy_to_host(got.data(), dz, n * 4);
    bool ok = true;
    for (size_t i = 0; i < n && ok; i += 997) {
      const double ref = x[i] / (1.0 + std::exp(-static_cast<double>(x[i]))) * y[i];
      ok = std::fabs(got[i] - ref) <= 1e-5 + 1e-5 * std::fabs(ref);
    }
    report("swiglu", std::to_string(n), s, 3.0 * n * 4, ok);
  }
  const std::string shape = std::to_string(rows) + "x" + std::to_string(cols);
  const ptx::Bindings rc = {{"M", rows}, {"N", cols}};
  auto check_rows = [&](const std::function<double(const float*, int, int)>& ref) {
    std::vector<float> got(static_cast<size_t>(rows) * cols);
    dev.copy_to_host(got.data(), dz, got.size() * 4);
    for (int r = 0; r < rows; r += 1021)
      for (int c = 0; c < cols; c += 61)
        if (std::fabs(got[static_cast<size_t>(r) * cols + c] - ref(x.data() + static_cast<size_t>(r) * cols, r, c)) > 1e-3) return false;
    return true;
  };
  {  // RMS norm
    auto k = ptx::bind(dev, examples::rmsnorm(arch), rc);
    const double s = seconds_per_run(dev, [&] { k(dx, dw, dz, 1e-5f); });
    const bool ok = check_rows([&](const float* row, int, int c) {
      double ss = 0;
      for (int j = 0; j < cols; ++j) ss += static_cast<double>(row[j]) * row[j];
      return row[c] / std::sqrt(ss / cols + 1e-5) * w[c];
    });
    report("rmsnorm", shape, s, 2.0 * rows * cols * 4, ok);
  }
  {  // LayerNorm
    auto k = ptx::bind(dev, examples::layernorm(arch), rc);
    const double s = seconds_per_run(dev, [&] { k(dx, dw, db, dz, 1e-5f); });
    const bool ok = check_rows([&](const float* row, int, int c) {
      double m = 0, q = 0;
      for (int j = 0; j < cols; ++j) m += row[j], q += static_cast<double>(row[j]) * row[j];
      m /= cols;
      return (row[c] - m) / std::sqrt(q / cols - m * m + 1e-5) * w[c] + bvec[c];
    });
    report("layernorm", shape, s, 2.0 * rows * cols * 4, ok);
  }
  {  // softmax
    auto k = ptx::bind(dev, examples::softmax(arch), rc);
    const double s = seconds_per_run(dev, [&] { k(dx, dz); });
    const bool ok = check_rows([&](const float* row, int, int c) {
      double mx = -1e30, sum = 0;
      for (int j = 0; j < cols; ++j) mx = std::max<double>(mx, row[j]);
      for (int j = 0; j < cols; ++j) sum += std::exp(row[j] - mx);
      return std::exp(row[c] - mx) / sum;
    });
    report("softmax", shape, s, 2.0 * rows * cols * 4, ok);
  }
  std::ofstream(out_path) << table.str();
  std::printf("table written to %s\n", out_path.c_str());
  return 0;
}
