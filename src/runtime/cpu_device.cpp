// The cpu device: the emulator behind the device API.
#include <atomic>
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
  void run(const std::vector<emu::Arg>& args) const;
};

// Launches recorded by a capture, run again in order.
struct CpuGraph : GraphImpl {
  std::vector<std::pair<const CpuKernel*, std::vector<emu::Arg>>> recorded;
  void launch(const StreamImpl* stream) const override;
};

// Work on the CPU device runs when issued: a stream only keeps time, or records
// launches while it is captured.
struct CpuStream : StreamImpl {
  mutable std::shared_ptr<CpuGraph> capturing;
  void synchronize() const override;
  std::shared_ptr<void> mark() const override {
    return std::make_shared<std::chrono::steady_clock::time_point>(std::chrono::steady_clock::now());
  }
  double since(const std::shared_ptr<void>& m) const override {
    const auto start = *static_cast<const std::chrono::steady_clock::time_point*>(m.get());
    return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
  }
  void begin_capture() const override;
  std::shared_ptr<GraphImpl> end_capture() const override;
  void abort_capture() const override;
};

struct CpuDevice : DeviceImpl {
  // Modules are validated once, at load; launches skip it (a hot path).
  mutable emu::Emulator emu{[] {
    emu::Options o;
    o.validate = false;
    return o;
  }()};
  mutable std::mutex launch_mu;  // one launch at a time (each uses every core)
  mutable std::atomic<int> captures{0};  // streams being captured

  // What a GPU refuses during a stream capture is refused here too, so code that
  // works on the CPU device works on a GPU.
  void not_while_capturing(const char* what) const {
    if (captures.load(std::memory_order_relaxed))
      throw runtime::Error(fmt::format("{} while a stream is being captured into a graph: do it before or after the capture", what));
  }

  CpuDevice() {
    kind = DeviceKind::Cpu;
    name = "CPU emulator";
  }
  uint64_t alloc(size_t bytes, const std::string& n) const override {
    not_while_capturing("allocating");
    return emu.memory().alloc(bytes, n);
  }
  void free(uint64_t a) const override {
    not_while_capturing("freeing");
    emu.memory().free(a);
  }
  void copy_to_device(uint64_t dst, const void* src, size_t bytes) const override {
    not_while_capturing("copying to the device");
    emu.memory().write(dst, src, bytes);
  }
  void copy_to_host(void* dst, uint64_t src, size_t bytes) const override {
    not_while_capturing("copying to the host");
    emu.memory().read(dst, src, bytes);
  }
  void fill(uint64_t dst, uint8_t v, size_t bytes) const override {
    not_while_capturing("filling memory");
    emu.memory().fill(dst, v, bytes);
  }
  void synchronize() const override { not_while_capturing("synchronizing the device"); }
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
    not_while_capturing(fmt::format("loading kernel {}", traced->name).c_str());
    auto k = std::make_shared<CpuKernel>();
    auto parsed = text::parse(traced->ptx, {traced->name + ".ptx"});
    if (!parsed) throw runtime::Error(parsed.error().format());
    k->module = std::move(parsed.module());
    try {
      emu::Emulator::require_valid(k->module, traced->name);
    } catch (const emu::Error& e) {
      throw runtime::Error(e.what());
    }
    k->traced = std::move(traced);
    k->device = this;
    return k;
  }
};

void CpuStream::synchronize() const {
  if (capturing) throw runtime::Error("synchronizing a stream while it is being captured into a graph");
}

void CpuStream::begin_capture() const {
  if (capturing) throw runtime::Error("the stream is already being captured");
  capturing = std::make_shared<CpuGraph>();
  capturing->device = device;
  ++static_cast<const CpuDevice*>(device)->captures;
}

std::shared_ptr<GraphImpl> CpuStream::end_capture() const {
  if (!capturing) throw runtime::Error("the stream is not being captured");
  --static_cast<const CpuDevice*>(device)->captures;
  return std::move(capturing);
}

void CpuStream::abort_capture() const {
  if (!capturing) return;
  --static_cast<const CpuDevice*>(device)->captures;
  capturing.reset();
}

void CpuKernel::launch(std::span<const LaunchArg> args, const StreamImpl* stream) const {
  check(args);
  std::vector<emu::Arg> eargs(args.size());
  for (size_t i = 0; i < args.size(); ++i) {
    eargs[i].bytes.resize(args[i].size);
    std::memcpy(eargs[i].bytes.data(), args[i].data, args[i].size);
  }
  if (stream) {
    if (const auto& graph = static_cast<const CpuStream*>(stream)->capturing) {
      graph->recorded.emplace_back(this, std::move(eargs));
      ++graph->launches;
      return;
    }
  }
  run(eargs);
}

// A graph launched on a stream being captured becomes part of that capture (as a child
// graph node does on a GPU), not work done now.
void CpuGraph::launch(const StreamImpl* stream) const {
  if (stream)
    if (const auto& outer = static_cast<const CpuStream*>(stream)->capturing) {
      outer->recorded.insert(outer->recorded.end(), recorded.begin(), recorded.end());
      outer->launches += launches;
      return;
    }
  for (const auto& [kernel, args] : recorded) kernel->run(args);
}

void CpuKernel::run(const std::vector<emu::Arg>& args) const {
  const auto* dev = static_cast<const CpuDevice*>(device);
  emu::LaunchConfig cfg;
  cfg.grid = traced->grid;
  cfg.block = traced->block;
  cfg.cluster = traced->cluster;
  cfg.dynamic_smem = static_cast<uint32_t>(traced->dynamic_smem_bytes);
  std::lock_guard lock(dev->launch_mu);
  try {
    dev->emu.launch(module, traced->name, cfg, args);
  } catch (const emu::Error& e) {
    throw runtime::Error(e.what());
  }
}

}  // namespace

std::shared_ptr<DeviceImpl> make_cpu_device() { return std::make_shared<CpuDevice>(); }

}  // namespace ptx
