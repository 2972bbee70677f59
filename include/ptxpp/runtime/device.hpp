// Devices: a GPU through the CUDA driver (loaded at run time), or the CPU emulator,
// behind one API for memory and launches.
//
//   ptx::Device dev = ptx::device::best();          // the GPU when there is one, else the CPU
//   ptx::DevicePtr x = dev.alloc(n * 4, "x");
//   dev.copy_to_device(x, host.data(), n * 4);
//   ptx::launch(dev, kernel, {{"N", n}}, x, y, 2.0f);
//   dev.copy_to_host(out.data(), y, n * 4);
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>

#include "ptxpp/runtime/error.hpp"

namespace ptx {

enum class DeviceKind : uint8_t { Gpu, Cpu };

struct DeviceImpl;
struct StreamImpl;

// An ordered queue of work on a device (a CUstream; on the CPU device work runs when issued).
class Stream {
 public:
  Stream() = default;  // the device's default stream
  explicit Stream(std::shared_ptr<StreamImpl> impl) : impl_(std::move(impl)) {}
  void synchronize() const;
  // Milliseconds the work issued on this stream between two marks took (events on a GPU,
  // a host clock on the CPU device): `auto m = s.mark(); ...; double ms = s.since(m);`
  std::shared_ptr<void> mark() const;
  double since(const std::shared_ptr<void>& mark) const;
  const std::shared_ptr<StreamImpl>& impl() const { return impl_; }

 private:
  std::shared_ptr<StreamImpl> impl_;
};

// An address in a device's memory (a CUdeviceptr, or an emulator address).
struct DevicePtr {
  uint64_t address = 0;
  const DeviceImpl* device = nullptr;
  DevicePtr offset(uint64_t bytes) const { return DevicePtr{address + bytes, device}; }
};

class Device {
 public:
  Device() = default;
  explicit Device(std::shared_ptr<DeviceImpl> impl) : impl_(std::move(impl)) {}

  DeviceKind kind() const;
  const std::string& name() const;
  // The device's target for kernels: "sm_90a" for a compute capability 9.0 GPU; the CPU
  // emulator runs any target ("" here).
  std::string arch() const;
  int ordinal() const;

  DevicePtr alloc(size_t bytes, const std::string& name = {}) const;
  void free(DevicePtr p) const;
  void copy_to_device(DevicePtr dst, const void* src, size_t bytes) const;
  void copy_to_host(void* dst, DevicePtr src, size_t bytes) const;
  void fill(DevicePtr dst, uint8_t value, size_t bytes) const;
  void synchronize() const;
  // A new stream on this device.
  Stream stream() const;

  // Interop with CUDA code (GPU devices): a stream made elsewhere (a cudaStream_t or
  // CUstream of the device's primary context; not owned: it must outlive its uses;
  // nullptr is the default stream), and memory allocated elsewhere (cudaMalloc, a
  // framework's allocator) on this GPU.
  Stream wrap_stream(void* cuda_stream) const;
  DevicePtr wrap_pointer(const void* device_address) const;

  const std::shared_ptr<DeviceImpl>& impl() const { return impl_; }
  explicit operator bool() const { return impl_ != nullptr; }

 private:
  const DeviceImpl& checked() const;
  std::shared_ptr<DeviceImpl> impl_;
};

namespace device {
// GPUs the driver reports (0 when there is no driver or no GPU; never throws).
int gpu_count();
// GPU `ordinal`; throws Error when there is no driver, no such device, or it cannot start.
Device gpu(int ordinal = 0);
// The CPU emulator (one per process).
Device cpu();
// The first GPU when there is one, else the CPU emulator.
Device best();
}  // namespace device

}  // namespace ptx
