// The flash attention forward example (examples/kernels/flash_attn_sm90.hpp):
//   ptxpp-example-flash_attn_sm90 [--ptx] [--arch sm_90a] [--dim B=4 --dim H=16 --dim S=4096 --dim D=128] [--causal] [--lse]
//                                 [--pingpong]
// --ptx prints the PTX of that variant and shape (no GPU needed). Without it the kernel runs:
// on the GPU at the given shape when there is one, else in the CPU emulator at B=1, H=2,
// S=192 (a partial tile) with the given D; some rows are checked against the CPU reference.
#include <algorithm>
#include <charconv>
#include <chrono>
#include <cmath>
#include <exception>
#include <iostream>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>
#include <ptxpp/dsl.hpp>
#include <ptxpp/runtime.hpp>

#include "kernels/bf16_host.hpp"
#include "kernels/flash_attn_ref.hpp"
#include "kernels/flash_attn_sm90.hpp"

int main(int argc, char** argv) {
  CLI::App app{"flash_attn_sm90: flash attention forward with TMA + wgmma (ptxpp DSL example)"};
  bool ptx_only = false, causal = false, lse = false, pingpong = false;
  std::string arch = "sm_90a";
  std::vector<std::string> overrides;
  app.add_flag("--ptx", ptx_only, "print the kernel's PTX and exit");
  app.add_option("--arch", arch, "target (sm_90a)");
  app.add_option("--dim", overrides, "bind B, H, S or D (64 or 128): NAME=VALUE (repeatable)");
  app.add_flag("--causal", causal, "causal attention");
  app.add_flag("--lse", lse, "also write the logsumexp L [B, H, S]");
  app.add_flag("--pingpong", pingpong, "the two consumer warpgroups take turns at the tensor cores (named barriers)");
  CLI11_PARSE(app, argc, argv);
  try {
    ptx::Bindings dims = {{"B", 4}, {"H", 16}, {"S", 4096}, {"D", 128}};
    for (const std::string& o : overrides) {
      const auto eq = o.find('=');
      long long v = 0;
      const char* first = eq == std::string::npos ? nullptr : o.data() + eq + 1;
      if (eq == std::string::npos || eq == 0) throw CLI::ValidationError("--dim", "expected NAME=VALUE, got '" + o + "'");
      const auto [end, ec] = std::from_chars(first, o.data() + o.size(), v);
      if (ec != std::errc{} || end != o.data() + o.size() || v <= 0)
        throw CLI::ValidationError("--dim", "not a positive integer: '" + o + "'");
      dims[o.substr(0, eq)] = v;
    }
    const int d = static_cast<int>(dims.at("D"));
    const ptx::Kernel kernel = examples::flash_attn_sm90(arch, d, {.causal = causal, .with_lse = lse, .pingpong = pingpong});
    if (ptx_only) {
      std::cout << kernel.trace(dims)->ptx;
      return 0;
    }
    const ptx::Device dev = ptx::device::best();
    const bool gpu = ptx::device::gpu_count() > 0;
    if (!gpu) dims = {{"B", 1}, {"H", 2}, {"S", 192}, {"D", d}};
    const int64_t B = dims.at("B"), H = dims.at("H"), S = dims.at("S");
    const size_t n = static_cast<size_t>(B * H * S * d);
    std::vector<uint16_t> q(n), k(n), v(n);
    uint32_t seed = 1;
    for (auto* t : {&q, &k, &v})
      for (auto& x : *t) {
        seed = seed * 1664525u + 1013904223u;
        x = examples::to_bf16(static_cast<float>(seed >> 8) / static_cast<float>(1u << 23) - 1.0f);
      }
    ptx::DevicePtr dq = dev.alloc(n * 2, "Q"), dk = dev.alloc(n * 2, "K"), dv = dev.alloc(n * 2, "V"), dout = dev.alloc(n * 2, "O");
    ptx::DevicePtr dl = dev.alloc(static_cast<size_t>(B * H * S) * 4, "L");
    dev.copy_to_device(dq, q.data(), n * 2);
    dev.copy_to_device(dk, k.data(), n * 2);
    dev.copy_to_device(dv, v.data(), n * 2);
    const auto mq = examples::flash_attn_sm90_tensor_map(dev, dq, B, H, S, d);
    const auto mk = examples::flash_attn_sm90_tensor_map(dev, dk, B, H, S, d);
    const auto mv = examples::flash_attn_sm90_tensor_map(dev, dv, B, H, S, d);
    auto bound = ptx::bind(dev, kernel, dims);
    const float scale = 1.0f / std::sqrt(static_cast<float>(d));
    const auto start = std::chrono::steady_clock::now();
    if (lse) bound(mq, mk, mv, dout, dl, scale);
    else bound(mq, mk, mv, dout, scale);
    dev.synchronize();
    const double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    std::vector<uint16_t> got(n);
    dev.copy_to_host(got.data(), dout, n * 2);
    double worst = 0;
    std::vector<float> ref(static_cast<size_t>(d));
    for (int64_t bh = 0; bh < B * H; bh += std::max<int64_t>(1, B * H / 4))
      for (int64_t i = 0; i < S; i += gpu ? 97 : 1) {
        examples::attention_row_reference(q, k, v, S, d, bh, i, scale, causal, ref.data(), nullptr);
        for (int c = 0; c < d; ++c)
          worst = std::max<double>(worst, std::fabs(examples::from_bf16(got[static_cast<size_t>((bh * S + i) * d + c)]) - ref[static_cast<size_t>(c)]));
      }
    std::cout << kernel.trace(dims)->name << " on " << (gpu ? dev.name() : std::string("the CPU emulator")) << ": B=" << B << " H=" << H
               << " S=" << S << " D=" << d << (causal ? " causal" : "") << (pingpong ? " ping-pong" : "") << ", " << secs * 1e3
              << " ms (first run, including the JIT), max |O - reference| on the rows checked: " << worst << "\n";
    for (ptx::DevicePtr p : {dq, dk, dv, dout, dl}) dev.free(p);
    return worst <= 1.0 / 128 ? 0 : 1;
  } catch (const CLI::Error& e) {
    return app.exit(e);
  } catch (const std::exception& e) {
    std::cerr << "error: " << e.what() << "\n";
    return 1;
  }
}
