// Internal: what a device does (GPU through the driver, CPU through the emulator),
// and a kernel loaded on one.
#pragma once

#include <map>
#include <memory>
#include <mutex>
#include <span>
#include <string>

#include "ptxpp/dsl/kernel.hpp"
#include "ptxpp/runtime/device.hpp"
#include "ptxpp/runtime/launch.hpp"
#include "ptxpp/runtime/tensor_map.hpp"

namespace ptx {

struct GraphImpl {
  const DeviceImpl* device = nullptr;
  size_t launches = 0;
  virtual ~GraphImpl() = default;
  virtual void launch(const StreamImpl* stream) const = 0;  // nullptr: the default stream
};

struct StreamImpl {
  const DeviceImpl* device = nullptr;
  virtual ~StreamImpl() = default;
  virtual void synchronize() const = 0;
  virtual std::shared_ptr<void> mark() const = 0;
  virtual double since(const std::shared_ptr<void>& mark) const = 0;
  // Graph capture: launches on this stream between begin and end are recorded.
  virtual void begin_capture() const = 0;
  virtual std::shared_ptr<GraphImpl> end_capture() const = 0;
  virtual void abort_capture() const = 0;  // after a failure: ends the capture, drops what it recorded
};

struct BoundKernelImpl {
  std::shared_ptr<const Traced> traced;
  const DeviceImpl* device = nullptr;
  virtual ~BoundKernelImpl() = default;
  virtual void launch(std::span<const LaunchArg> args, const StreamImpl* stream) const = 0;
  // The arguments against the kernel's parameters; throws runtime::Error naming the one that does not fit.
  void check(std::span<const LaunchArg> args) const;
};

struct DeviceImpl {
  DeviceKind kind = DeviceKind::Cpu;
  std::string name, arch;
  int ordinal = 0;

  virtual ~DeviceImpl() = default;
  virtual uint64_t alloc(size_t bytes, const std::string& name) const = 0;
  virtual void free(uint64_t address) const = 0;
  virtual void copy_to_device(uint64_t dst, const void* src, size_t bytes) const = 0;
  virtual void copy_to_host(void* dst, uint64_t src, size_t bytes) const = 0;
  virtual void fill(uint64_t dst, uint8_t value, size_t bytes) const = 0;
  virtual void synchronize() const = 0;
  virtual std::shared_ptr<BoundKernelImpl> load(std::shared_ptr<const Traced> traced) const = 0;
  virtual std::shared_ptr<StreamImpl> make_stream() const = 0;
  // A stream made by other code (GPU devices only; not owned).
  virtual std::shared_ptr<StreamImpl> wrap_stream(void* /*cuda_stream*/) const { return nullptr; }
  // Tensor maps for a spec check_tensor_map accepted.
  virtual TensorMap encode_tensor_map(uint64_t base, const TensorMapSpec& spec) const = 0;
  virtual void replace_tensor_map_address(TensorMap& map, uint64_t base) const = 0;

  // Kernels loaded on this device, per trace (a trace is one kernel, bindings and target).
  std::shared_ptr<BoundKernelImpl> bound(const std::shared_ptr<const Traced>& traced) const {
    std::lock_guard lock(mu_);
    auto it = loaded_.find(traced.get());
    if (it != loaded_.end()) return it->second;
    auto k = load(traced);
    loaded_.emplace(traced.get(), k);
    return k;
  }

 private:
  mutable std::mutex mu_;
  mutable std::map<const Traced*, std::shared_ptr<BoundKernelImpl>> loaded_;
};

std::shared_ptr<DeviceImpl> make_cpu_device();
std::shared_ptr<DeviceImpl> make_gpu_device(int ordinal);

}  // namespace ptx
