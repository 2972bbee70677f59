// The cpu device: the emulator behind the device API.
#include <chrono>

#include <fmt/format.h>

#include "device_impl.hpp"
#include "ptxpp/emu/emulator.hpp"
#include "ptxpp/emu/tensor_map.hpp"
#include "ptxpp/text/parser.hpp"

namespace ptx {

namespace {

struct CpuDevice;

struct CpuKernel : BoundKernelImpl {
  ir::Module module;
  void launch(std::span<const LaunchArg> args, const StreamImpl* stream) const override;
};

// Work on the CPU device runs when issued: a stream only keeps time.
struct CpuStream : StreamImpl {
  void synchronize() const override {}
  std::shared_ptr<void> mark() const override {
    return std::make_shared<std::chrono::steady_clock::time_point>(std::chrono::steady_clock::now());
  }
  double since(const std::shared_ptr<void>& m) const override {
    const auto start = *static_cast<const std::chrono::steady_clock::time_point*>(m.get());
    return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
  }
};

struct CpuDevice : DeviceImpl {
  mutable emu::Emulator emu;
  mutable std::mutex launch_mu;  // one launch at a time (each uses every core)

  CpuDevice() {
    kind = DeviceKind::Cpu;
    name = "CPU emulator";
  }
  uint64_t alloc(size_t bytes, const std::string& n) const override { return emu.memory().alloc(bytes, n); }
  void free(uint64_t a) const override { emu.memory().free(a); }
  void copy_to_device(uint64_t dst, const void* src, size_t bytes) const override { emu.memory().write(dst, src, bytes); }
  void copy_to_host(void* dst, uint64_t src, size_t bytes) const override { emu.memory().read(dst, src, bytes); }
  void fill(uint64_t dst, uint8_t v, size_t bytes) const override { emu.memory().fill(dst, v, bytes); }
  void synchronize() const override {}
  // The emulator's encoding (ptxpp/emu/tensor_map.hpp), read back by cp.async.bulk.tensor.
  TensorMap encode_tensor_map(uint64_t base, const TensorMapSpec& spec) const override {
    emu::TensorMapDesc d;
    d.kind = spec.mode == TensorMapSpec::Mode::im2col ? emu::TensorMapKind::Im2col : emu::TensorMapKind::Tiled;
    d.dtype = static_cast<uint8_t>(spec.type);
    d.rank = static_cast<uint8_t>(spec.dims.size());
    d.interleave = static_cast<uint8_t>(spec.interleave);
    d.swizzle = static_cast<uint8_t>(spec.swizzle);
    d.l2_promotion = static_cast<uint8_t>(spec.l2_promotion);
    d.oob_nan = static_cast<uint8_t>(spec.oob_fill);
    d.base = base;
    d.strides[0] = emu::tensor_map_element_bytes(d.dtype);
    const std::vector<uint64_t> strides = byte_strides(spec);
    for (size_t i = 0; i < spec.dims.size(); ++i) {
      d.dims[i] = spec.dims[i];
      if (i > 0) d.strides[i] = strides[i - 1];
      d.element_strides[i] = static_cast<uint8_t>(spec.element_strides.empty() ? 1 : spec.element_strides[i]);
      if (i < spec.box.size()) d.box[i] = static_cast<uint16_t>(spec.box[i]);
    }
    for (size_t i = 0; i < spec.lower.size() && i < 3; ++i) {
      d.lower[i] = static_cast<int16_t>(spec.lower[i]);
      d.upper[i] = static_cast<int16_t>(spec.upper[i]);
    }
    d.channels_per_pixel = static_cast<uint16_t>(spec.channels_per_pixel);
    d.pixels_per_column = static_cast<uint16_t>(spec.pixels_per_column);
    TensorMap m;
    m.bytes = emu::encode(d);
    return m;
  }
  void replace_tensor_map_address(TensorMap& map, uint64_t base) const override {
    auto d = emu::decode(map.bytes.data());
    if (!d) throw runtime::Error("replace_address: not a tensor map of the CPU device");
    d->base = base;
    map.bytes = emu::encode(*d);
  }

  std::shared_ptr<StreamImpl> make_stream() const override {
    auto s = std::make_shared<CpuStream>();
    s->device = this;
    return s;
  }
  std::shared_ptr<BoundKernelImpl> load(std::shared_ptr<const Traced> traced) const override {
    auto k = std::make_shared<CpuKernel>();
    auto parsed = text::parse(traced->ptx, {traced->name + ".ptx"});
    if (!parsed) throw runtime::Error(parsed.error().format());
    k->module = std::move(parsed.module());
    k->traced = std::move(traced);
    k->device = this;
    return k;
  }
};

void CpuKernel::launch(std::span<const LaunchArg> args, const StreamImpl*) const {
  check(args);
  const auto* dev = static_cast<const CpuDevice*>(device);
  std::vector<emu::Arg> eargs(args.size());
  for (size_t i = 0; i < args.size(); ++i) {
    eargs[i].bytes.resize(args[i].size);
    std::memcpy(eargs[i].bytes.data(), args[i].data, args[i].size);
  }
  emu::LaunchConfig cfg;
  cfg.grid = {traced->grid.x, traced->grid.y, traced->grid.z};
  cfg.block = {traced->block.x, traced->block.y, traced->block.z};
  cfg.cluster = {traced->cluster.x, traced->cluster.y, traced->cluster.z};
  cfg.dynamic_smem = static_cast<uint32_t>(traced->dynamic_smem_bytes);
  std::lock_guard lock(dev->launch_mu);
  try {
    dev->emu.launch(module, traced->name, cfg, eargs);
  } catch (const emu::Error& e) {
    throw runtime::Error(e.what());
  }
}

}  // namespace

std::shared_ptr<DeviceImpl> make_cpu_device() { return std::make_shared<CpuDevice>(); }

}  // namespace ptx
