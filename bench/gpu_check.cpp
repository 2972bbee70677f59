// scripts/gpu-check's program: every example kernel on the GPU at full size, checked
// against a CPU reference, timed, and compared with the device-to-device copy
// bandwidth measured in the same run. Prints a table and writes it to --out FILE.
#include <dlfcn.h>

#include <algorithm>
#include <array>
#include <chrono>
#include <cmath>
#include <cstring>
#include <cstdio>
#include <fstream>
#include <functional>
#include <sstream>
#include <string>
#include <vector>

#include <ptxpp/runtime.hpp>

#include "../examples/kernels/elementwise.hpp"
#include "../examples/kernels/flash_attn_ref.hpp"
#include "../examples/kernels/flash_attn_sm90.hpp"
#include "../examples/kernels/gemm_sm80.hpp"
#include "../examples/kernels/gemm_sm100.hpp"
#include "../examples/kernels/gemm_sm90.hpp"
#include "../examples/kernels/gemm_sm90_grouped.hpp"
#include "../examples/kernels/gemm_sm90_grouped_contiguous.hpp"
#include "../examples/kernels/gemm_sm90_persistent.hpp"
#include "../examples/kernels/rows.hpp"
#include "../examples/kernels/tcgen05_mma_probe.hpp"
#include "runtime/driver.hpp"
#include "../examples/kernels/bf16_host.hpp"

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

using examples::from_bf16;
using examples::to_bf16;

// cuBLAS, loaded at run time when present: cublasGemmEx bf16 x bf16 -> f32 (compute f32).
struct Cublas {
  using Create = int (*)(void**);
  using Destroy = int (*)(void*);
  using GemmEx = int (*)(void*, int, int, int, int, int, const void*, const void*, int, int, const void*, int, int,
                         const void*, void*, int, int, int, int);
  void* lib = nullptr;
  void* handle = nullptr;
  Create create = nullptr;
  Destroy destroy = nullptr;
  GemmEx gemm_ex = nullptr;
  Cublas() {
    for (const char* name : {"libcublas.so", "libcublas.so.13", "libcublas.so.12", "/usr/local/cuda/lib64/libcublas.so"})
      if ((lib = dlopen(name, RTLD_NOW | RTLD_LOCAL)) != nullptr) break;
    if (!lib) return;
    create = reinterpret_cast<Create>(dlsym(lib, "cublasCreate_v2"));
    destroy = reinterpret_cast<Destroy>(dlsym(lib, "cublasDestroy_v2"));
    gemm_ex = reinterpret_cast<GemmEx>(dlsym(lib, "cublasGemmEx"));
    if (!create || !destroy || !gemm_ex || create(&handle) != 0) handle = nullptr;
  }
  ~Cublas() {
    if (handle) destroy(handle);
  }
  bool ok() const { return handle != nullptr; }
  // Row-major C (M x N, f32) = A (M x K, bf16, row-major) * B^T (B: N x K, bf16, row-major),
  // which column-major cuBLAS sees as C^T (N x M) = op_T(B^T as K x N) * A^T (K x M).
  bool gemm(uint64_t a, uint64_t b, uint64_t c, int m, int n, int k) const {
    const float alpha = 1.0f, beta = 0.0f;
    constexpr int kOpN = 0, kOpT = 1, kBf16 = 14, kF32 = 0, kCompute32F = 68, kAlgoDefault = -1;
    return gemm_ex(handle, kOpT, kOpN, n, m, k, &alpha, reinterpret_cast<const void*>(b), kBf16, k,
                   reinterpret_cast<const void*>(a), kBf16, k, &beta, reinterpret_cast<void*>(c), kF32, n, kCompute32F,
                   kAlgoDefault) == 0;
  }
};

// A probe image of random bytes: bf16 (high bytes |x| in 2^-7 .. 2^8) or any byte but the e4m3
// NaN 0x7f (s8 for kind::i8).
template <class Next>
std::vector<uint32_t> random_image(uint32_t bytes, bool bf16, Next& next) {
  std::vector<uint32_t> image(bytes / 4);
  for (auto& w : image) {
    w = 0;
    for (int b = 0; b < 4; ++b) {
      uint32_t v = next() & 0xFF;
      if (bf16 && b % 2 == 1)
        v = 0x3C + (v & 7) + (v & 0x80);
      else if ((v & 0x7F) == 0x7F)
        v &= 0x7E;
      w |= v << (8 * b);
    }
  }
  return image;
}

// Runs a probe kernel (examples/kernels/tcgen05_mma_probe.hpp: image, a second u32 input, out
// 128 x n) on the GPU and on the emulator; one line, "ok" when every element agrees (relative
// 1e-5; `exact`: the same bits, for an s32 D).
void probe_gpu_vs_emulator(const ptx::Device& dev, const ptx::Kernel& kern, const std::vector<uint32_t>& image,
                           const std::vector<uint32_t>& second, int n, bool exact, const char* name,
                           std::ostringstream& table) {
  const ptx::Device cpu = ptx::device::cpu();
  const size_t out_n = static_cast<size_t>(128 * n), bytes = image.size() * 4;
  std::vector<float> got[2];
  int which = 0;
  for (const ptx::Device& d : {dev, cpu}) {
    ptx::DevicePtr di = d.alloc(bytes, "image"), ds = d.alloc(second.size() * 4, "second"),
                   dout = d.alloc(out_n * 4, "out");
    d.copy_to_device(di, image.data(), bytes);
    d.copy_to_device(ds, second.data(), second.size() * 4);
    d.fill(dout, 0xff, out_n * 4);
    auto k = ptx::bind(d, kern, {});
    k(di, ds, dout);
    d.synchronize();
    got[which].resize(out_n);
    d.copy_to_host(got[which].data(), dout, out_n * 4);
    ++which;
    for (ptx::DevicePtr p : {di, ds, dout}) d.free(p);
  }
  bool ok = true;
  for (size_t i = 0; i < out_n && ok; ++i)
    ok = exact ? std::memcmp(&got[0][i], &got[1][i], 4) == 0
               : std::fabs(got[0][i] - got[1][i]) <= 1e-5 * (1 + std::fabs(got[1][i]));
  char line[160];
  std::snprintf(line, sizeof line, "tcgen05.mma %-18s 128x%-3d GPU vs emulator   %s\n", name, n, ok ? "ok" : "WRONG");
  table << line;
  std::fputs(line, stdout);
}

// The tcgen05.mma forms of ptx::blackwell (block-scaled kinds, .ws, disable-output-lane with
// scale-input-d) on examples::tcgen05_mma_probe, run on the GPU and on the emulator with the same
// random operands: one line each, "ok" when every element agrees (relative 1e-5); then the sparse
// tcgen05.mma.sp for kind::f16 and kind::i8 the same way. This checks the DSL's descriptor bits
// and the emulator (the sparse metadata's layout: this emulator's reading) against the hardware.
void tcgen05_forms_check(const ptx::Device& dev, std::ostringstream& table) {
  namespace bw = ptx::blackwell;
  struct Form {
    const char* name;
    int n;
    bool nvf4_scales;  // ue4m3 factors (bytes 0x20..0x4f); otherwise ue8m0 (119..134)
    bool bf16;         // bf16 operands (otherwise any byte but the e4m3 NaN 0x7f)
    examples::ProbeIssue issue;
  };
  auto scaled = [](bw::ScaledKind kind, bw::MmaType t, bw::ScaleVec vec, int n, bool ue4m3, int id_a, int id_b) {
    bw::BlockScaledDescriptor id;
    id.kind = kind, id.a = id.b = t, id.vec = vec, id.m = 128, id.n = n;
    id.scale_type = ue4m3 ? bw::ScaleType::ue4m3 : bw::ScaleType::ue8m0;
    id.scale_a_id = id_a, id.scale_b_id = id_b;
    return [id](const ptx::Reg& d, const ptx::Reg& da, const ptx::Reg& db, const ptx::Reg& sa, const ptx::Reg& sb) {
      ptx::Reg fresh = d != d;
      bw::mma_block_scaled(id, d, da, db, sa, sb, fresh);
    };
  };
  const Form forms[] = {
      {"mxf8f6f4.1X", 16, false, false, scaled(bw::ScaledKind::MXF8F6F4, bw::MmaType::e4m3, bw::ScaleVec::X1, 16, false, 1, 3)},
      {"mxf4.block32", 16, false, false, scaled(bw::ScaledKind::MXF4, bw::MmaType::e2m1, bw::ScaleVec::Block32, 16, false, 2, 0)},
      {"mxf4nvf4.block16", 32, true, false, scaled(bw::ScaledKind::MXF4NVF4, bw::MmaType::e2m1, bw::ScaleVec::Block16, 32, true, 0, 0)},
      {"ws.f16", 64, false, true,
       [](const ptx::Reg& d, const ptx::Reg& da, const ptx::Reg& db, const ptx::Reg&, const ptx::Reg&) {
         ptx::Reg fresh = d != d;
         bw::mma_ws(bw::bf16_f32(128, 64), d, da, db, fresh);
       }},
      {"f16.lanes.scaled", 16, false, true,
       [](const ptx::Reg& d, const ptx::Reg& da, const ptx::Reg& db, const ptx::Reg&, const ptx::Reg&) {
         std::array<ptx::Reg, 4> lanes{ptx::Reg(ptx::types::b32), ptx::Reg(ptx::types::b32), ptx::Reg(ptx::types::b32),
                                       ptx::Reg(ptx::types::b32)};
         const uint32_t masks[4] = {1u << 5, 1u << 8, 0xFFFFFFFFu, 0};
         for (size_t i = 0; i < 4; ++i) ptx::inst::mov.b32(lanes[i], masks[i]);
         ptx::Reg fresh = d != d, accumulate = d == d;
         bw::mma(bw::bf16_f32(128, 16), d, da, db, fresh);
         bw::mma(bw::bf16_f32(128, 16), d, da, db, accumulate, {.disable_output_lane = lanes, .scale_input_d = 1});
       }},
  };
  uint32_t seed = 99;
  auto next = [&] { return seed = seed * 1664525u + 1013904223u, seed >> 8; };
  for (const Form& f : forms) {
    std::vector<uint32_t> image = random_image(examples::probe_image_bytes(f.n), f.bf16, next), scales(128 + 64);
    for (auto& w : scales) {
      w = 0;
      for (int b = 0; b < 4; ++b) w |= (f.nvf4_scales ? 0x20 + next() % 0x30 : 119 + next() % 16) << (8 * b);
    }
    probe_gpu_vs_emulator(dev, examples::tcgen05_mma_probe(f.n, f.issue), image, scales, f.n, false, f.name, table);
  }
  // tcgen05.mma.sp (examples::tcgen05_mma_sparse_probe): every 4-bit field of the metadata one the
  // manual lists, so any layout reading is valid input and only the GPU tells which is right
  struct SparseForm {
    const char* name;
    bw::InstrDescriptor id;
  };
  bw::InstrDescriptor sparse_f16 = bw::bf16_f32(128, 32);
  sparse_f16.sparse = true, sparse_f16.sparsity_selector = 1;
  const SparseForm sparse_forms[] = {
      {"sp.f16.sel1", sparse_f16},
      {"sp.i8",
       {.kind = bw::MmaKind::I8,
        .a = bw::MmaType::s8,
        .b = bw::MmaType::s8,
        .d = bw::AccType::s32,
        .m = 128,
        .n = 32,
        .sparse = true}},
  };
  constexpr uint32_t kFields[] = {0b0100, 0b1000, 0b1100, 0b1001, 0b1101, 0b0110, 0b1110};
  for (const SparseForm& f : sparse_forms) {
    const bw::InstrDescriptor id = f.id;
    const bool bf16 = id.kind == bw::MmaKind::F16;
    const uint32_t bytes = examples::probe_image_bytes(id.n, examples::kSparseProbeBRowBytes);
    std::vector<uint32_t> image = random_image(bytes, bf16, next), meta(128 * 2);
    for (auto& w : meta) {
      w = 0;
      for (int b = 0; b < 8; ++b) w |= kFields[next() % 7] << (4 * b);
    }
    auto kern = examples::tcgen05_mma_sparse_probe(
        id.n, [id](const ptx::Reg& d, const ptx::Reg& da, const ptx::Reg& db, const ptx::Reg& m) {
          ptx::Reg fresh = d != d;
          bw::mma(id, d, da, db, fresh, {.sparse_metadata = &m});
        });
    probe_gpu_vs_emulator(dev, kern, image, meta, id.n, !bf16, f.name, table);
  }
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
  int sm_count = 132;
  {
    ptx::runtime::cu::Device d0{};
    constexpr int kAttrMultiprocessorCount = 16;  // CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT
    drv.check(drv.cuDeviceGet(&d0, 0), "cuDeviceGet");
    drv.check(drv.cuDeviceGetAttribute(&sm_count, kAttrMultiprocessorCount, d0), "cuDeviceGetAttribute");
  }

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
  {  // bf16 mma.sync GEMM (examples/kernels/gemm_sm80.hpp) against cuBLAS in the same run
    table << "kernel        shape            time_us  TFLOPS  cuBLAS_TFLOPS  of_cuBLAS   check\n";
    std::fputs("kernel        shape            time_us  TFLOPS  cuBLAS_TFLOPS  of_cuBLAS   check\n", stdout);
    const Cublas cublas;
    if (!cublas.ok()) {
      table << "cuBLAS: not available\n";
      std::puts("cuBLAS: not available");
    }
    for (const int sz : {4096, 8192}) {
      const int gm = sz, gn = sz, gk = sz;
      std::vector<uint16_t> ha(static_cast<size_t>(gm) * gk), hb(static_cast<size_t>(gn) * gk);
      const auto ra = randoms(ha.size(), 5), rb = randoms(hb.size(), 6);
      for (size_t i = 0; i < ha.size(); ++i) ha[i] = to_bf16(ra[i]);
      for (size_t i = 0; i < hb.size(); ++i) hb[i] = to_bf16(rb[i]);
      ptx::DevicePtr ga = dev.alloc(ha.size() * 2, "A"), gb = dev.alloc(hb.size() * 2, "B");
      ptx::DevicePtr gc = dev.alloc(static_cast<size_t>(gm) * gn * 4, "C");
      dev.copy_to_device(ga, ha.data(), ha.size() * 2);
      dev.copy_to_device(gb, hb.data(), hb.size() * 2);
      const double flops = 2.0 * gm * gn * gk;
      double cublas_tflops = 0;
      if (cublas.ok()) {
        bool cok = true;
        const double cs = seconds_per_run(dev, [&] { cok = cok && cublas.gemm(ga.address, gb.address, gc.address, gm, gn, gk); });
        cublas_tflops = cok ? flops / cs / 1e12 : 0;
      }
      // One row per kernel: gemm_sm80 (mma.sync), and on sm_90a gemm_sm90 (TMA + wgmma) and
      // gemm_sm90_c2 (clusters of 2 CTAs, B multicast).
      auto row = [&](const char* name, const std::function<void()>& launch, bool bf16_out = false) {
        dev.fill(gc, 0xff, static_cast<size_t>(gm) * gn * 4);
        const double s = seconds_per_run(dev, launch);
        std::vector<float> got(static_cast<size_t>(gm) * gn);
        if (bf16_out) {  // C in bf16: widen it here
          std::vector<uint16_t> h(got.size());
          dev.copy_to_host(h.data(), gc, h.size() * 2);
          for (size_t i = 0; i < h.size(); ++i) got[i] = from_bf16(h[i]);
        } else {
          dev.copy_to_host(got.data(), gc, got.size() * 4);
        }
        bool ok = true;
        for (int r = 0; r < gm && ok; r += 509)
          for (int c = 0; c < gn && ok; c += 251) {
            double ref = 0;
            for (int kk = 0; kk < gk; ++kk)
              ref += static_cast<double>(from_bf16(ha[static_cast<size_t>(r) * gk + kk])) * from_bf16(hb[static_cast<size_t>(c) * gk + kk]);
            ok = std::fabs(got[static_cast<size_t>(r) * gn + c] - ref) <= 1e-2 * (1 + std::fabs(ref));
          }
        const double tflops = flops / s / 1e12;
        char line[256];
        const std::string gshape = std::to_string(gm) + "x" + std::to_string(gn) + "x" + std::to_string(gk);
        if (cublas_tflops > 0)
          std::snprintf(line, sizeof line, "%-13s %-16s %9.1f %7.1f %14.1f %9.0f%%   %s\n", name, gshape.c_str(), s * 1e6, tflops,
                        cublas_tflops, 100.0 * tflops / cublas_tflops, ok ? "ok" : "WRONG");
        else
          std::snprintf(line, sizeof line, "%-13s %-16s %9.1f %7.1f %14s %10s   %s\n", name, gshape.c_str(), s * 1e6, tflops, "-",
                        "-", ok ? "ok" : "WRONG");
        table << line;
        std::fputs(line, stdout);
      };
      auto k80 = ptx::bind(dev, examples::gemm_sm80(arch), {{"M", gm}, {"N", gn}, {"K", gk}});
      row("gemm_sm80", [&] { k80(ga, gb, gc); });
      if (arch == "sm_90a") {
        // (named pairs, not structured bindings: Clang 14 cannot capture those in a lambda)
        const auto maps = examples::gemm_sm90_tensor_maps(dev, ga, gb, gm, gn, gk);
        auto k90 = ptx::bind(dev, examples::gemm_sm90(arch), {{"M", gm}, {"N", gn}, {"K", gk}});
        row("gemm_sm90", [&] { k90(maps.first, maps.second, gc); });
        const auto maps2 = examples::gemm_sm90_tensor_maps(dev, ga, gb, gm, gn, gk, 2);
        auto k90c = ptx::bind(dev, examples::gemm_sm90(arch, 2), {{"M", gm}, {"N", gn}, {"K", gk}});
        row("gemm_sm90_c2", [&] { k90c(maps2.first, maps2.second, gc); });
        // persistent: one CTA per SM looping over the tiles (grouped rasterization), f32 and bf16 C
        const ptx::Bindings pb = {{"M", gm}, {"N", gn}, {"K", gk}, {"SMS", sm_count}};
        auto k90p = ptx::bind(dev, examples::gemm_sm90_persistent(arch), pb);
        row("gemm_sm90_p", [&] { k90p(maps.first, maps.second, gc); });
        auto k90pb = ptx::bind(dev, examples::gemm_sm90_persistent(arch, ptx::types::bf16), pb);
        row("gemm_sm90_pbf", [&] { k90pb(maps.first, maps.second, gc); }, true);
      }
      // On sm_100a: gemm_sm100 (TMA + tcgen05.mma into tensor memory, one CTA) and gemm_sm100_2sm
      // (tcgen05.mma.cta_group::2 over a pair of CTAs); elsewhere a line says they were skipped.
      if (arch == "sm_100a") {
        const auto maps = examples::gemm_sm100_tensor_maps(dev, ga, gb, gm, gn, gk);
        auto k100 = ptx::bind(dev, examples::gemm_sm100(arch), {{"M", gm}, {"N", gn}, {"K", gk}});
        row("gemm_sm100", [&] { k100(maps.first, maps.second, gc); });
        const auto maps2 = examples::gemm_sm100_tensor_maps(dev, ga, gb, gm, gn, gk, 2);
        auto k100p = ptx::bind(dev, examples::gemm_sm100(arch, 2), {{"M", gm}, {"N", gn}, {"K", gk}});
        row("gemm_sm100_2sm", [&] { k100p(maps2.first, maps2.second, gc); });
        if (sz == 4096) tcgen05_forms_check(dev, table);
      } else if (sz == 4096) {
        const std::string skip = "gemm_sm100, gemm_sm100_2sm, tcgen05.mma forms: skipped (tcgen05 needs an sm_100a GPU; this is " + arch + ")\n";
        table << skip;
        std::fputs(skip.c_str(), stdout);
      }
      dev.free(ga);
      dev.free(gb);
      dev.free(gc);
    }
  }
  if (arch == "sm_90a") {  // grouped GEMM, MoE shapes (gemm_sm90_grouped.hpp), against a loop of cuBLAS calls
    // The gate+up projection of 8 experts of a DeepSeek-V3-like layer: K = hidden 7168,
    // N = 2 x 2048 (the expert's intermediate size), M_g = tokens routed to each expert: uneven,
    // one not a multiple of 128, one expert idle.
    const int64_t N = 4096, K = 7168;
    const std::vector<int64_t> ms = {512, 2048, 1024, 0, 1900, 768, 1536, 1280};
    std::vector<examples::GroupedGemmProblem> probs;
    std::vector<std::vector<uint16_t>> ha, hb;
    double flops = 0;
    for (size_t g = 0; g < ms.size(); ++g) {
      ha.emplace_back(static_cast<size_t>(std::max<int64_t>(ms[g], 1) * K));
      hb.emplace_back(static_cast<size_t>(N * K));
      const auto ra = randoms(ha[g].size(), 100 + static_cast<uint32_t>(g)), rb = randoms(hb[g].size(), 200 + static_cast<uint32_t>(g));
      for (size_t i = 0; i < ha[g].size(); ++i) ha[g][i] = to_bf16(ra[i]);
      for (size_t i = 0; i < hb[g].size(); ++i) hb[g][i] = to_bf16(rb[i]);
      examples::GroupedGemmProblem p;
      p.m = ms[g];
      p.a = dev.alloc(ha[g].size() * 2, "A");
      p.b = dev.alloc(hb[g].size() * 2, "B");
      p.d = dev.alloc(static_cast<size_t>(std::max<int64_t>(ms[g], 1) * N) * 4, "D");  // f32-sized: cuBLAS writes f32
      dev.copy_to_device(p.a, ha[g].data(), ha[g].size() * 2);
      dev.copy_to_device(p.b, hb[g].data(), hb[g].size() * 2);
      probs.push_back(p);
      flops += 2.0 * static_cast<double>(ms[g]) * N * K;
    }
    const examples::GroupedGemmArgs args = examples::gemm_sm90_grouped_args(dev, probs, N, K);
    auto kg = ptx::bind(dev, examples::gemm_sm90_grouped(arch, N, K), {{"G", static_cast<int64_t>(ms.size())}, {"SMS", sm_count}});
    const double s = seconds_per_run(dev, [&] { kg(args.problems, args.maps); });
    bool ok = true;
    for (size_t g = 0; g < ms.size() && ok; ++g) {
      std::vector<uint16_t> got(static_cast<size_t>(ms[g] * N));
      dev.copy_to_host(got.data(), probs[g].d, got.size() * 2);
      for (int64_t r = 0; r < ms[g] && ok; r += 97)
        for (int64_t c = 0; c < N && ok; c += 127) {
          double ref = 0;
          for (int64_t kk = 0; kk < K; ++kk)
            ref += static_cast<double>(from_bf16(ha[g][static_cast<size_t>(r * K + kk)])) * from_bf16(hb[g][static_cast<size_t>(c * K + kk)]);
          ok = std::fabs(from_bf16(got[static_cast<size_t>(r * N + c)]) - ref) <= 1e-2 * (1 + std::fabs(ref));
        }
    }
    const Cublas cublas;
    double cublas_tflops = 0;
    if (cublas.ok()) {
      bool cok = true;
      const double cs = seconds_per_run(dev, [&] {
        for (size_t g = 0; g < ms.size(); ++g)
          if (ms[g] > 0) cok = cok && cublas.gemm(probs[g].a.address, probs[g].b.address, probs[g].d.address, static_cast<int>(ms[g]), N, K);
      });
      cublas_tflops = cok ? flops / cs / 1e12 : 0;
    }
    auto grouped_row = [&](const char* name, double secs, bool good) {
      char line[256];
      std::snprintf(line, sizeof line, "%-13s %-16s %9.1f %7.1f %14.1f %9.0f%%   %s   (cuBLAS: one call per expert, f32 D)\n", name,
                    "8x(M_g)x4096x7168", secs * 1e6, flops / secs / 1e12, cublas_tflops,
                    cublas_tflops > 0 ? 100.0 * flops / secs / 1e12 / cublas_tflops : 0.0, good ? "ok" : "WRONG");
      table << line;
      std::fputs(line, stdout);
    };
    grouped_row("gemm_grouped", s, ok);
    {  // the same experts and tokens in the contiguous layout (gemm_sm90_grouped_contiguous.hpp): A one
       // [M, K] buffer sorted by expert, B one [G, N, K] tensor, the offsets in device memory (a router
       // kernel's output; copied from the host here), bf16 D [M, N]
      const auto G = static_cast<int64_t>(ms.size());
      std::vector<uint32_t> offsets{0};
      std::vector<uint16_t> ca, cb;
      for (size_t g = 0; g < ms.size(); ++g) {
        offsets.push_back(offsets.back() + static_cast<uint32_t>(ms[g]));
        ca.insert(ca.end(), ha[g].begin(), ha[g].begin() + ms[g] * K);
        cb.insert(cb.end(), hb[g].begin(), hb[g].end());
      }
      const int64_t M = offsets.back();
      ptx::DevicePtr ga = dev.alloc(ca.size() * 2, "A"), gb = dev.alloc(cb.size() * 2, "B"), goff = dev.alloc(offsets.size() * 4, "offsets"),
                     gd = dev.alloc(static_cast<size_t>(M * N) * 2, "D");
      dev.copy_to_device(ga, ca.data(), ca.size() * 2);
      dev.copy_to_device(gb, cb.data(), cb.size() * 2);
      dev.copy_to_device(goff, offsets.data(), offsets.size() * 4);
      const auto cmaps = examples::gemm_sm90_grouped_contiguous_tensor_maps(dev, ga, gb, M, G, N, K);
      auto kc = ptx::bind(dev, examples::gemm_sm90_grouped_contiguous(arch, G, N, K), {{"M", M}, {"SMS", sm_count}});
      const double cs = seconds_per_run(dev, [&] { kc(cmaps.first, cmaps.second, goff, gd); });
      std::vector<uint16_t> got(static_cast<size_t>(M * N));
      dev.copy_to_host(got.data(), gd, got.size() * 2);
      bool cok = true;
      for (int64_t r = 0; r < M && cok; r += 97) {
        const size_t g = static_cast<size_t>(std::upper_bound(offsets.begin(), offsets.end(), static_cast<uint32_t>(r)) - offsets.begin()) - 1;
        for (int64_t c = 0; c < N && cok; c += 127) {
          double ref = 0;
          for (int64_t kk = 0; kk < K; ++kk)
            ref += static_cast<double>(from_bf16(ca[static_cast<size_t>(r * K + kk)])) * from_bf16(hb[g][static_cast<size_t>(c * K + kk)]);
          cok = std::fabs(from_bf16(got[static_cast<size_t>(r * N + c)]) - ref) <= 1e-2 * (1 + std::fabs(ref));
        }
      }
      grouped_row("gemm_grouped_c", cs, cok);
      for (ptx::DevicePtr p : {ga, gb, goff, gd}) dev.free(p);
    }
    for (const auto& p : probs) {
      dev.free(p.a);
      dev.free(p.b);
      dev.free(p.d);
    }
    dev.free(args.problems);
    dev.free(args.maps);
  }
  if (arch == "sm_90a") {  // flash attention forward (examples/kernels/flash_attn_sm90.hpp)
    // bench/torch_gpu_check.py reads these rows and runs torch's SDPA on the same shapes.
    // Two rows a shape and mask: flash_attn_sm90 (each consumer warpgroup overlaps its own
    // softmax with its P V) and flash_attn_sm90_pp (ping-pong on top: the two warpgroups take
    // turns at the tensor cores), with its speed relative to the first; ping-pong is off by
    // default until these rows say otherwise.
    const char* head = "kernel             shape                mask      time_us  TFLOPS   check\n";
    table << head;
    std::fputs(head, stdout);
    struct Shape {
      int64_t b, h, d;
    };
    const int64_t S = 4096;
    for (const Shape sh : {Shape{4, 32, 128}, Shape{16, 16, 128}, Shape{8, 32, 64}, Shape{16, 16, 64}}) {
      const size_t ne = static_cast<size_t>(sh.b * sh.h * S * sh.d);
      std::vector<uint16_t> hq(ne), hk(ne), hv(ne);
      const auto r = randoms(ne, 7);
      for (size_t i = 0; i < ne; ++i) {  // in [-1, 1): three different tensors from one stream
        hq[i] = to_bf16(r[i] / 2);
        hk[i] = to_bf16(r[(i + ne / 3) % ne] / 2);
        hv[i] = to_bf16(r[(i + 2 * ne / 3) % ne] / 2);
      }
      ptx::DevicePtr gq = dev.alloc(ne * 2, "Q"), gk = dev.alloc(ne * 2, "K"), gv = dev.alloc(ne * 2, "V"), go = dev.alloc(ne * 2, "O");
      dev.copy_to_device(gq, hq.data(), ne * 2);
      dev.copy_to_device(gk, hk.data(), ne * 2);
      dev.copy_to_device(gv, hv.data(), ne * 2);
      const auto mq = examples::flash_attn_sm90_tensor_map(dev, gq, sh.b, sh.h, S, sh.d);
      const auto mk = examples::flash_attn_sm90_tensor_map(dev, gk, sh.b, sh.h, S, sh.d);
      const auto mv = examples::flash_attn_sm90_tensor_map(dev, gv, sh.b, sh.h, S, sh.d);
      const float scale = 1.0f / std::sqrt(static_cast<float>(sh.d));
      for (const bool causal : {false, true}) {
        double base_s = 0;
        for (const bool pingpong : {false, true}) {
          auto k = ptx::bind(dev, examples::flash_attn_sm90(arch, static_cast<int>(sh.d), {.causal = causal, .pingpong = pingpong}),
                             {{"B", sh.b}, {"H", sh.h}, {"S", S}, {"D", sh.d}});
          dev.fill(go, 0xff, ne * 2);
          const double s = seconds_per_run(dev, [&] { k(mq, mk, mv, go, scale); });
          std::vector<uint16_t> got(ne);
          dev.copy_to_host(got.data(), go, ne * 2);
          bool ok = true;
          std::vector<float> ref(static_cast<size_t>(sh.d));
          for (int64_t bh = 0; bh < sh.b * sh.h && ok; bh += sh.b * sh.h / 3)
            for (int64_t i = 0; i < S && ok; i += 1361) {
              examples::attention_row_reference(hq, hk, hv, S, sh.d, bh, i, scale, causal, ref.data(), nullptr);
              for (int64_t c = 0; c < sh.d && ok; ++c)
                ok = std::fabs(from_bf16(got[static_cast<size_t>((bh * S + i) * sh.d + c)]) - ref[static_cast<size_t>(c)]) <= 1e-2;
            }
          // 4 B H S^2 D flops (two GEMMs), half of it causal
          const double flops = 4.0 * static_cast<double>(sh.b * sh.h * sh.d) * S * S * (causal ? 0.5 : 1.0);
          char line[256];
          const std::string fshape = "B" + std::to_string(sh.b) + "-H" + std::to_string(sh.h) + "-S" + std::to_string(S) + "-D" +
                                     std::to_string(sh.d);
          char vs[64] = "";
          if (pingpong) std::snprintf(vs, sizeof vs, "   x%.3f of flash_attn_sm90", base_s / s);
          else base_s = s;
          std::snprintf(line, sizeof line, "%-18s %-20s %-8s %9.1f %7.1f   %s%s\n", pingpong ? "flash_attn_sm90_pp" : "flash_attn_sm90",
                        fshape.c_str(), causal ? "causal" : "full", s * 1e6, flops / s / 1e12, ok ? "ok" : "WRONG", vs);
          table << line;
          std::fputs(line, stdout);
        }
      }
      for (ptx::DevicePtr p : {gq, gk, gv, go}) dev.free(p);
    }
  }
  std::ofstream(out_path) << table.str();
  std::printf("table written to %s\n", out_path.c_str());
  return 0;
}
