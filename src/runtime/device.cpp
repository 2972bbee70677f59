#include <fmt/format.h>

#include "device_impl.hpp"
#include "driver.hpp"

namespace ptx {

const DeviceImpl& Device::checked() const {
  if (!impl_) throw runtime::Error("an empty ptx::Device (use ptx::device::best(), gpu() or cpu())");
  return *impl_;
}

DeviceKind Device::kind() const { return checked().kind; }
const std::string& Device::name() const { return checked().name; }
std::string Device::arch() const { return checked().arch; }
int Device::ordinal() const { return checked().ordinal; }

namespace {
void same_device(const DeviceImpl& d, DevicePtr p, const char* what) {
  if (p.device != &d) throw runtime::Error(fmt::format("{}: the pointer belongs to another device", what));
}
}  // namespace

DevicePtr Device::alloc(size_t bytes, const std::string& name) const { return DevicePtr{checked().alloc(bytes, name), impl_.get()}; }
void Device::free(DevicePtr p) const {
  same_device(checked(), p, "free");
  impl_->free(p.address);
}
void Device::copy_to_device(DevicePtr dst, const void* src, size_t bytes) const {
  same_device(checked(), dst, "copy_to_device");
  impl_->copy_to_device(dst.address, src, bytes);
}
void Device::copy_to_host(void* dst, DevicePtr src, size_t bytes) const {
  same_device(checked(), src, "copy_to_host");
  impl_->copy_to_host(dst, src.address, bytes);
}
void Device::fill(DevicePtr dst, uint8_t value, size_t bytes) const {
  same_device(checked(), dst, "fill");
  impl_->fill(dst.address, value, bytes);
}
void Device::synchronize() const { checked().synchronize(); }
Stream Device::stream() const { return Stream(checked().make_stream()); }

Stream Device::wrap_stream(void* cuda_stream) const {
  const DeviceImpl& d = checked();
  if (d.kind != DeviceKind::Gpu)
    throw runtime::Error(fmt::format("wrap_stream: {} has no CUDA streams (use Device::stream())", d.name));
  if (!cuda_stream) return Stream();
  return Stream(d.wrap_stream(cuda_stream));
}

DevicePtr Device::wrap_pointer(const void* device_address) const {
  const DeviceImpl& d = checked();
  if (d.kind != DeviceKind::Gpu)
    throw runtime::Error(fmt::format("wrap_pointer: {} memory is the emulator's; copy host data in with copy_to_device", d.name));
  return DevicePtr{reinterpret_cast<uint64_t>(device_address), &d};
}

void Stream::synchronize() const {
  if (!impl_) throw runtime::Error("synchronize: the default stream has no handle; use Device::synchronize");
  impl_->synchronize();
}
std::shared_ptr<void> Stream::mark() const {
  if (!impl_) throw runtime::Error("mark: create a stream with Device::stream()");
  return impl_->mark();
}
double Stream::since(const std::shared_ptr<void>& m) const {
  if (!impl_ || !m) throw runtime::Error("since: a mark of this stream is needed");
  return impl_->since(m);
}

namespace device {

int gpu_count() {
  if (!runtime::Driver::available()) return 0;
  const runtime::Driver& d = runtime::Driver::get();
  int n = 0;
  return d.cuDeviceGetCount(&n) == runtime::cu::kSuccess ? n : 0;
}

Device gpu(int ordinal) {
  static std::mutex mu;
  static std::map<int, std::shared_ptr<DeviceImpl>> devices;
  std::lock_guard lock(mu);
  auto& slot = devices[ordinal];
  if (!slot) slot = make_gpu_device(ordinal);
  return Device(slot);
}

Device cpu() {
  static const std::shared_ptr<DeviceImpl> d = make_cpu_device();
  return Device(d);
}

Device best() { return gpu_count() > 0 ? gpu(0) : cpu(); }

}  // namespace device

}  // namespace ptx
