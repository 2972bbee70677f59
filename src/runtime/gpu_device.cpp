// The gpu device: the CUDA driver behind the device API. Kernels are compiled to
// cubins with nvJitLink or ptxas when the toolkit is present (cached on disk), else
// JIT-compiled by the driver from the PTX text.
#include <array>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <sstream>

#include <fmt/format.h>

#include "device_impl.hpp"
#include "driver.hpp"
#include "ptxpp/emu/tensor_map.hpp"
#include "ptxpp/runtime/cache.hpp"
#include "ptxpp/runtime/compiler.hpp"
#include "ptxpp/spec/isa.hpp"

namespace ptx {

namespace {

using runtime::Driver;
using runtime::Error;

// The kernel's target runs on a device of compute capability `cc` (e.g. 90)?
bool runs_on(Target t, int cc) {
  if (t.suffix == 'a') return t.number == cc;
  if (t.suffix == 'f') return cc / 10 == t.number / 10 && cc >= t.number;
  return cc >= t.number;
}

struct GpuDevice;

struct GpuKernel : BoundKernelImpl {
  runtime::cu::Module module = nullptr;
  runtime::cu::Function function = nullptr;
  void launch(std::span<const LaunchArg> args, const StreamImpl* stream) const override;
};

struct GpuGraph : GraphImpl {
  const Driver* drv = nullptr;
  runtime::cu::Graph graph = nullptr;
  runtime::cu::GraphExec exec = nullptr;
  ~GpuGraph() override {
    if (exec) drv->cuGraphExecDestroy(exec);
    if (graph) drv->cuGraphDestroy(graph);
  }
  void launch(const StreamImpl* stream) const override;
};

struct GpuStream : StreamImpl {
  const Driver* drv = nullptr;
  runtime::cu::Stream stream = nullptr;
  bool owned = true;  // false: another library's stream (wrap_stream)
  ~GpuStream() override {
    if (stream && owned) drv->cuStreamDestroy(stream);
  }
  void require_graphs() const {
    if (!drv->cuStreamBeginCapture || !drv->cuStreamEndCapture || !drv->cuGraphInstantiateWithFlags || !drv->cuGraphLaunch ||
        !drv->cuGraphExecDestroy || !drv->cuGraphDestroy)
      throw Error(fmt::format("the CUDA driver ({}) has no graph entry points", drv->library));
  }
  void begin_capture() const override {
    require_graphs();
    drv->check(drv->cuStreamBeginCapture(stream, runtime::cu::kStreamCaptureModeThreadLocal), "cuStreamBeginCapture");
  }
  std::shared_ptr<GraphImpl> end_capture() const override {
    auto g = std::make_shared<GpuGraph>();
    g->drv = drv;
    g->device = device;
    drv->check(drv->cuStreamEndCapture(stream, &g->graph), "cuStreamEndCapture");
    drv->check(drv->cuGraphInstantiateWithFlags(&g->exec, g->graph, 0), "cuGraphInstantiateWithFlags");
    size_t n = 0;
    if (drv->cuGraphGetNodes && drv->cuGraphGetNodes(g->graph, nullptr, &n) == runtime::cu::kSuccess) g->launches = n;
    return g;
  }
  void abort_capture() const override {
    runtime::cu::Graph g = nullptr;
    if (drv->cuStreamEndCapture(stream, &g) == runtime::cu::kSuccess && g) drv->cuGraphDestroy(g);
  }
  void synchronize() const override { drv->check(drv->cuStreamSynchronize(stream), "cuStreamSynchronize"); }
  std::shared_ptr<void> mark() const override {
    runtime::cu::Event e = nullptr;
    drv->check(drv->cuEventCreate(&e, 0), "cuEventCreate");
    drv->check(drv->cuEventRecord(e, stream), "cuEventRecord");
    const Driver* d = drv;
    return std::shared_ptr<void>(e, [d](void* p) { d->cuEventDestroy(static_cast<runtime::cu::Event>(p)); });
  }
  double since(const std::shared_ptr<void>& m) const override {
    auto end = mark();
    drv->check(drv->cuEventSynchronize(static_cast<runtime::cu::Event>(end.get())), "cuEventSynchronize");
    float ms = 0;
    drv->check(drv->cuEventElapsedTime(&ms, static_cast<runtime::cu::Event>(m.get()), static_cast<runtime::cu::Event>(end.get())),
               "cuEventElapsedTime");
    return ms;
  }
};

struct GpuDevice : DeviceImpl {
  const Driver& drv;
  runtime::cu::Device dev = 0;
  runtime::cu::Context ctx = nullptr;
  int cc = 0;
  mutable int smem_optin = 0;

  explicit GpuDevice(int n) : drv(Driver::get()) {
    kind = DeviceKind::Gpu;
    ordinal = n;
    int count = 0;
    drv.check(drv.cuDeviceGetCount(&count), "cuDeviceGetCount");
    if (count == 0) throw Error("the CUDA driver reports no GPU");
    if (n < 0 || n >= count) throw Error(fmt::format("GPU {} does not exist: the driver reports {}", n, count));
    drv.check(drv.cuDeviceGet(&dev, n), "cuDeviceGet");
    int major = 0, minor = 0;
    drv.check(drv.cuDeviceGetAttribute(&major, runtime::cu::kAttrComputeCapabilityMajor, dev), "cuDeviceGetAttribute");
    drv.check(drv.cuDeviceGetAttribute(&minor, runtime::cu::kAttrComputeCapabilityMinor, dev), "cuDeviceGetAttribute");
    drv.check(drv.cuDeviceGetAttribute(&smem_optin, runtime::cu::kAttrMaxSharedMemoryPerBlockOptin, dev), "cuDeviceGetAttribute");
    cc = major * 10 + minor;
    arch = fmt::format("sm_{}{}", cc, major >= 9 ? "a" : "");
    char buf[256] = {};
    drv.check(drv.cuDeviceGetName(buf, sizeof buf, dev), "cuDeviceGetName");
    name = buf;
    drv.check(drv.cuDevicePrimaryCtxRetain(&ctx, dev), "cuDevicePrimaryCtxRetain");
    activate();
  }

  void activate() const {  // the device's context current on this thread
    thread_local runtime::cu::Context current = nullptr;
    if (current != ctx) {
      drv.check(drv.cuCtxSetCurrent(ctx), "cuCtxSetCurrent");
      current = ctx;
    }
  }

  uint64_t alloc(size_t bytes, const std::string&) const override {
    activate();
    runtime::cu::DevicePtr p = 0;
    drv.check(drv.cuMemAlloc(&p, bytes == 0 ? 1 : bytes), fmt::format("cuMemAlloc of {} bytes", bytes));
    return p;
  }
  void free(uint64_t a) const override {
    activate();
    drv.check(drv.cuMemFree(a), "cuMemFree");
  }
  void copy_to_device(uint64_t dst, const void* src, size_t bytes) const override {
    activate();
    drv.check(drv.cuMemcpyHtoD(dst, src, bytes), "cuMemcpyHtoD");
  }
  void copy_to_host(void* dst, uint64_t src, size_t bytes) const override {
    activate();
    drv.check(drv.cuMemcpyDtoH(dst, src, bytes), "cuMemcpyDtoH");
  }
  void fill(uint64_t dst, uint8_t v, size_t bytes) const override {
    activate();
    drv.check(drv.cuMemsetD8(dst, v, bytes), "cuMemsetD8");
  }
  void synchronize() const override {
    activate();
    drv.check(drv.cuCtxSynchronize(), "cuCtxSynchronize");
  }

  TensorMap encode_tensor_map(uint64_t base, const TensorMapSpec& s) const override {
    if (cc < 90)
      throw runtime::Error(fmt::format("tensor maps need compute capability 9.0 or higher; GPU {} ({}) is {}", ordinal, name, arch));
    const bool im2col = s.mode == TensorMapSpec::Mode::im2col;
    if (im2col ? !drv.cuTensorMapEncodeIm2col : !drv.cuTensorMapEncodeTiled)
      throw runtime::Error(fmt::format("the CUDA driver ({}) has no {}", drv.library, im2col ? "cuTensorMapEncodeIm2col" : "cuTensorMapEncodeTiled"));
    activate();
    const unsigned rank = static_cast<unsigned>(s.dims.size());
    const std::vector<uint64_t> byte_stride = byte_strides(s);
    std::vector<unsigned long long> dims(s.dims.begin(), s.dims.end()), strides(byte_stride.begin(), byte_stride.end());
    std::vector<unsigned> estr(s.element_strides.begin(), s.element_strides.end());
    if (estr.empty()) estr.assign(rank, 1);
    runtime::cu::TensorMap m{};
    void* addr = reinterpret_cast<void*>(static_cast<uintptr_t>(base));
    const int type = static_cast<int>(s.type), il = static_cast<int>(s.interleave), sw = static_cast<int>(s.swizzle),
              l2 = static_cast<int>(s.l2_promotion), oob = static_cast<int>(s.oob_fill);
    if (im2col) {
      drv.check(drv.cuTensorMapEncodeIm2col(&m, type, rank, addr, dims.data(), strides.data(), s.lower.data(), s.upper.data(),
                                            s.channels_per_pixel, s.pixels_per_column, estr.data(), il, sw, l2, oob),
                "cuTensorMapEncodeIm2col");
    } else {
      std::vector<unsigned> box(s.box.begin(), s.box.end());
      drv.check(drv.cuTensorMapEncodeTiled(&m, type, rank, addr, dims.data(), strides.data(), box.data(), estr.data(), il, sw, l2, oob),
                "cuTensorMapEncodeTiled");
    }
    TensorMap out;
    std::memcpy(out.bytes.data(), &m, sizeof m);
    return out;
  }
  void replace_tensor_map_address(TensorMap& map, uint64_t base) const override {
    if (!drv.cuTensorMapReplaceAddress)
      throw runtime::Error(fmt::format("the CUDA driver ({}) has no cuTensorMapReplaceAddress", drv.library));
    activate();
    runtime::cu::TensorMap m;
    std::memcpy(&m, map.bytes.data(), sizeof m);
    drv.check(drv.cuTensorMapReplaceAddress(&m, reinterpret_cast<void*>(static_cast<uintptr_t>(base))), "cuTensorMapReplaceAddress");
    std::memcpy(map.bytes.data(), &m, sizeof m);
  }

  std::shared_ptr<StreamImpl> make_stream() const override {
    activate();
    auto s = std::make_shared<GpuStream>();
    s->drv = &drv;
    s->device = this;
    drv.check(drv.cuStreamCreate(&s->stream, 0), "cuStreamCreate");
    return s;
  }

  // Frameworks hand over the same few streams on every call (torch's current stream, XLA's):
  // each host thread keeps its last few wrappers, so a launch on a wrapped stream does not
  // allocate. A wrapper owns nothing, so one kept for a stream since destroyed is still right
  // for a new stream that got the same handle.
  std::shared_ptr<StreamImpl> wrap_stream(void* cuda_stream) const override {
    struct Kept {
      const GpuDevice* device = nullptr;
      void* handle = nullptr;
      std::shared_ptr<GpuStream> stream;
    };
    constexpr unsigned kKept = 8;
    thread_local std::array<Kept, kKept> kept;
    thread_local unsigned next = 0;
    for (const Kept& k : kept)
      if (k.device == this && k.handle == cuda_stream) return k.stream;
    auto s = std::make_shared<GpuStream>();
    s->drv = &drv;
    s->device = this;
    s->stream = static_cast<runtime::cu::Stream>(cuda_stream);
    s->owned = false;
    kept[next++ % kKept] = Kept{this, cuda_stream, s};
    return s;
  }

  std::shared_ptr<BoundKernelImpl> load(std::shared_ptr<const Traced> traced) const override {
    activate();
    const auto target = Target::parse(traced->target);
    if (!target) throw Error(fmt::format("kernel {}: unknown target {}", traced->name, traced->target));
    if (!runs_on(*target, cc))
      throw Error(fmt::format("kernel {} is compiled for {}; GPU {} ({}) is {}: trace it for the device's target", traced->name,
                              traced->target, ordinal, name, arch));
    drv.check(drv.cuDeviceGetAttribute(&smem_optin, runtime::cu::kAttrMaxSharedMemoryPerBlockOptin, dev), "cuDeviceGetAttribute");
    if (traced->dynamic_smem_bytes + traced->static_smem_bytes > static_cast<uint64_t>(smem_optin))
      throw Error(fmt::format("kernel {} needs {} bytes of shared memory; {} allows {}", traced->name,
                              traced->dynamic_smem_bytes + traced->static_smem_bytes, name, smem_optin));
    auto k = std::make_shared<GpuKernel>();
    // an ahead-of-time cubin when it was built for this GPU's target, else compile
    std::vector<uint8_t> image = !traced->cubin.empty() && traced->target == arch ? traced->cubin : compile(*traced);
    std::vector<char> error_log(16384, 0), info_log(16384, 0);
    int options[] = {runtime::cu::kJitErrorLogBuffer, runtime::cu::kJitErrorLogBufferSizeBytes,
                     runtime::cu::kJitInfoLogBuffer, runtime::cu::kJitInfoLogBufferSizeBytes};
    void* values[] = {error_log.data(), reinterpret_cast<void*>(error_log.size()), info_log.data(),
                      reinterpret_cast<void*>(info_log.size())};
    const runtime::cu::Result r = drv.cuModuleLoadDataEx(&k->module, image.data(), 4, options, values);
    if (r != runtime::cu::kSuccess) {
      std::string msg = fmt::format("loading kernel {} for {} failed: {}", traced->name, arch, drv.describe(r));
      if (r == runtime::cu::kErrorUnsupportedPtxVersion)
        msg += fmt::format("; the driver (CUDA {}.{}) JIT-compiles PTX ISA up to {}, the kernel is PTX {}", drv.version / 1000,
                           drv.version % 1000 / 10, runtime::max_ptx_for_driver(drv.version).str(), traced->ptx_version.str());
      if (error_log[0]) {
        msg += '\n';
        msg += runtime::quote_ptx_lines(error_log.data(), traced->ptx);
      }
      throw Error(msg);
    }
    drv.check(drv.cuModuleGetFunction(&k->function, k->module, traced->name.c_str()), fmt::format("cuModuleGetFunction({})", traced->name));
    if (traced->dynamic_smem_bytes > 48 * 1024)
      drv.check(drv.cuFuncSetAttribute(k->function, runtime::cu::kFuncAttrMaxDynamicSharedSizeBytes,
                                        static_cast<int>(traced->dynamic_smem_bytes)),
                fmt::format("setting {} bytes of dynamic shared memory for {}", traced->dynamic_smem_bytes, traced->name));
    k->traced = std::move(traced);
    k->device = this;
    return k;
  }

  // The cubin (through nvJitLink or ptxas, and the disk cache) or, with neither, the PTX
  // text for the driver's JIT.
  std::vector<uint8_t> compile(const Traced& t) const {
    const std::optional<runtime::Compiler> compiler = runtime::find_compiler();
    int version = drv.version;
    drv.check(drv.cuDriverGetVersion(&version), "cuDriverGetVersion");
    const PtxVersion max_ptx = runtime::max_ptx_for_driver(version);
    if (!compiler) {
      if (t.ptx_version > max_ptx)
        throw Error(fmt::format("kernel {} is PTX ISA {}; the driver (CUDA {}.{}) JIT-compiles up to {}: update the driver",
                                t.name, t.ptx_version.str(), version / 1000, version % 1000 / 10, max_ptx.str()));
      std::vector<uint8_t> text(t.ptx.begin(), t.ptx.end());
      text.push_back(0);
      return text;
    }
    const runtime::CubinCache cache;
    const std::string key = runtime::CubinCache::key(t.ptx, t.target, compiler->identity, version);
    if (auto hit = cache.get(key)) return *hit;
    std::vector<uint8_t> cubin = runtime::compile_cubin(*compiler, t.ptx, t.target, "kernel " + t.name);
    cache.put(key, cubin);
    return cubin;
  }
};

void GpuGraph::launch(const StreamImpl* stream) const {
  static_cast<const GpuDevice*>(device)->activate();
  drv->check(drv->cuGraphLaunch(exec, stream ? static_cast<const GpuStream*>(stream)->stream : nullptr), "cuGraphLaunch");
}

void GpuKernel::launch(std::span<const LaunchArg> args, const StreamImpl* stream) const {
  check(args);
  const auto* dev = static_cast<const GpuDevice*>(device);
  dev->activate();
  void* params[64];
  if (args.size() > 64) throw Error(fmt::format("kernel {}: more than 64 parameters", traced->name));
  for (size_t i = 0; i < args.size(); ++i) params[i] = const_cast<void*>(args[i].data);
  if (args.size() < 64) params[args.size()] = nullptr;  // a terminator: tools that inspect the array stop there
  runtime::cu::LaunchAttribute attr{};
  runtime::cu::LaunchConfig cfg{traced->grid.x, traced->grid.y, traced->grid.z, traced->block.x, traced->block.y,
                                traced->block.z, static_cast<unsigned>(traced->dynamic_smem_bytes),
                                stream ? static_cast<const GpuStream*>(stream)->stream : nullptr, nullptr, 0};
  if (traced->cluster.x * traced->cluster.y * traced->cluster.z > 1) {
    attr.id = runtime::cu::kLaunchAttrClusterDimension;
    attr.value.cluster_dim = {traced->cluster.x, traced->cluster.y, traced->cluster.z};
    cfg.attrs = &attr;
    cfg.num_attrs = 1;
  }
  dev->drv.check(dev->drv.cuLaunchKernelEx(&cfg, function, params, nullptr), fmt::format("launching {}", traced->name));
}

}  // namespace

std::shared_ptr<DeviceImpl> make_gpu_device(int ordinal) { return std::make_shared<GpuDevice>(ordinal); }

}  // namespace ptx
