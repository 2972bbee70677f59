// Host overhead of a launch through ptx::BoundKernel against a raw cuLaunchKernelEx of
// the same kernel, in the same run (docs/design.md: <= 1 us over raw), and of replaying a
// captured ptx::Graph. Needs a GPU;
// without one it says so and exits 0.
//
//   launch_bench [google-benchmark flags]
#include <benchmark/benchmark.h>

#include <cstdio>

#include <ptxpp/dsl.hpp>
#include <ptxpp/runtime.hpp>

#include "runtime/driver.hpp"  // the raw driver, for the comparison

namespace {

using namespace ptx::types;

ptx::Kernel empty_kernel(const std::string& arch) {
  return ptx::kernel("empty").in(ptx::tensor(f32, {1})).scalar("s", f32).arch(arch).block(32).body([](ptx::Tensor, ptx::Scalar) { ptx::ret(); });
}

struct Setup {
  ptx::Device dev;
  ptx::BoundKernel bound;
  ptx::runtime::cu::Function raw = nullptr;
  ptx::DevicePtr buf;
};

Setup& setup() {
  static Setup s = [] {
    Setup x;
    x.dev = ptx::device::gpu(0);
    auto k = empty_kernel(x.dev.arch());
    x.bound = ptx::bind(x.dev, k);
    x.buf = x.dev.alloc(4);
    const auto& drv = ptx::runtime::Driver::get();
    ptx::runtime::cu::Module m = nullptr;
    const std::string& text = x.bound.traced().ptx;
    drv.check(drv.cuModuleLoadDataEx(&m, text.c_str(), 0, nullptr, nullptr), "cuModuleLoadDataEx");
    drv.check(drv.cuModuleGetFunction(&x.raw, m, "empty"), "cuModuleGetFunction");
    return x;
  }();
  return s;
}

void BM_RawCuLaunchKernelEx(benchmark::State& state) {
  Setup& s = setup();
  const auto& drv = ptx::runtime::Driver::get();
  float scale = 1.0f;
  void* params[] = {&s.buf.address, &scale};
  ptx::runtime::cu::LaunchConfig cfg{1, 1, 1, 32, 1, 1, 0, nullptr, nullptr, 0};
  for (auto _ : state) drv.cuLaunchKernelEx(&cfg, s.raw, params, nullptr);
  s.dev.synchronize();
}

void BM_BoundKernel(benchmark::State& state) {
  Setup& s = setup();
  for (auto _ : state) s.bound(s.buf, 1.0f);
  s.dev.synchronize();
}

// A graph of 16 launches captured once and replayed: host time per replay (the GPU
// runs the 16 kernels; items/s counts kernels).
void BM_GraphReplay16(benchmark::State& state) {
  Setup& s = setup();
  ptx::Stream stream = s.dev.stream();
  const ptx::Graph g = ptx::Graph::capture(stream, [&] {
    for (int i = 0; i < 16; ++i) s.bound.on(stream, s.buf, 1.0f);
  });
  for (auto _ : state) g.launch(stream);
  stream.synchronize();
  state.SetItemsProcessed(state.iterations() * 16);
}

}  // namespace

int main(int argc, char** argv) {
  if (ptx::device::gpu_count() == 0) {
    std::printf("launch_bench: no GPU (or no CUDA driver) on this machine: nothing measured\n");
    return 0;
  }
  benchmark::RegisterBenchmark("BM_RawCuLaunchKernelEx", BM_RawCuLaunchKernelEx);
  benchmark::RegisterBenchmark("BM_BoundKernel", BM_BoundKernel);
  benchmark::RegisterBenchmark("BM_GraphReplay16", BM_GraphReplay16);
  benchmark::Initialize(&argc, argv);
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
