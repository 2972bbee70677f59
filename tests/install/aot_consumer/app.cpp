// Launches the embedded kernel (no tracing at run time) on the best device: the GPU
// when there is one, else the CPU emulator; checks the result.
#include <cstdio>
#include <vector>

#include <ptxpp/runtime.hpp>

#include "demo_kernels.hpp"

int main() {
  const ptx::Device dev = ptx::device::best();
  const std::string arch = dev.kind() == ptx::DeviceKind::Gpu && dev.arch() != "sm_90a" ? "sm_80" : "sm_90a";
  auto traced = ptxpp_aot::demo_kernels::kernel("axpy", arch);
  std::vector<float> x(1024), y(1024);
  for (int i = 0; i < 1024; ++i) x[i] = static_cast<float>(i), y[i] = 1.0f;
  ptx::DevicePtr dx = dev.alloc(4096, "x"), dy = dev.alloc(4096, "y");
  dev.copy_to_device(dx, x.data(), 4096);
  dev.copy_to_device(dy, y.data(), 4096);
  ptx::bind(dev, traced)(dx, dy, 2.0f);
  dev.synchronize();
  dev.copy_to_host(y.data(), dy, 4096);
  for (int i = 0; i < 1024; ++i)
    if (y[i] != 2.0f * static_cast<float>(i) + 1.0f) {
      std::printf("wrong result at %d: %f\n", i, static_cast<double>(y[i]));
      return 1;
    }
  std::printf("axpy (%s, %s, cubin %s) on %s: ok\n", traced->name.c_str(), traced->target.c_str(),
              traced->cubin.empty() ? "absent" : "embedded", dev.name().c_str());
  return 0;
}
