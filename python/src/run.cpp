// Running a traced kernel on host arrays through the runtime's CPU device (the
// emulator, with its out-of-bounds and race checks): copy in, launch, copy back.
#include <cstring>

#include <fmt/format.h>
#include <nanobind/ndarray.h>
#include <nanobind/stl/map.h>
#include <nanobind/stl/pair.h>
#include <nanobind/stl/string.h>
#include <ptxpp/runtime.hpp>

#include "common.hpp"

namespace ptxpy {

namespace {

using HostArray = nb::ndarray<nb::ro, nb::device::cpu, nb::c_contig>;

// Device buffers freed however the launch ends.
struct Buffers {
  ptx::Device dev;
  std::vector<ptx::DevicePtr> ptrs;
  ~Buffers() {
    for (const ptx::DevicePtr& p : ptrs) dev.free(p);
  }
};

uint64_t param_bytes(const ptx::ParamInfo& p) {
  uint64_t n = 1;
  for (int64_t d : p.shape) n *= static_cast<uint64_t>(d);
  return n * ptx::bits(p.dtype) / 8;
}

// args: per kernel parameter, (a C-contiguous array, whether to copy it back) for tensors,
// or the scalar's bytes.
void run_cpu(const ptx::Kernel& k, const ptx::Bindings& b, const nb::list& args) {
  const std::shared_ptr<const ptx::Traced> traced = k.trace(b);  // with the GIL: the body is Python
  const auto& params = traced->params;
  if (args.size() != params.size())
    throw ptx::Error(fmt::format("kernel {} takes {} arguments, not {}", traced->name, params.size(), args.size()), {});
  Buffers bufs{ptx::device::cpu(), {}};
  bufs.ptrs.reserve(params.size());  // launch[] points into it
  const ptx::BoundKernel bound = ptx::bind(bufs.dev, k, b);
  std::vector<HostArray> arrays(params.size());
  std::vector<bool> writeback(params.size());
  std::vector<std::string> scalars(params.size());
  std::vector<ptx::LaunchArg> launch(params.size());
  for (size_t i = 0; i < params.size(); ++i) {
    const ptx::ParamInfo& p = params[i];
    if (p.is_tensor_map)
      throw ptx::Error(fmt::format("{}: tensor map parameters are not supported from Python yet", p.name), {});
    if (p.is_tensor) {
      const auto [array, back] = nb::cast<std::pair<HostArray, bool>>(args[i]);
      arrays[i] = array;
      writeback[i] = back;
      const uint64_t want = param_bytes(p), have = arrays[i].nbytes();
      if (have != want)
        throw ptx::Error(fmt::format("{}: an array of {} bytes for a parameter of {} bytes", p.name, have, want), {});
      bufs.ptrs.push_back(bufs.dev.alloc(std::max<uint64_t>(want, 1), p.name));
      if (want) bufs.dev.copy_to_device(bufs.ptrs.back(), arrays[i].data(), want);
      const ptx::DevicePtr& ptr = bufs.ptrs.back();
      launch[i] = ptx::LaunchArg{true, ptx::DType::u64, 8, &ptr.address, ptr.device, false};
    } else {
      const nb::bytes value = nb::cast<nb::bytes>(args[i]);
      scalars[i].assign(value.c_str(), value.size());
      if (scalars[i].size() * 8 != ptx::bits(p.dtype))
        throw ptx::Error(fmt::format("{}: {} bytes for a {} scalar", p.name, scalars[i].size(), ptx::name(p.dtype)),
                         {});
      launch[i] =
          ptx::LaunchArg{false, p.dtype, static_cast<uint8_t>(scalars[i].size()), scalars[i].data(), nullptr, false};
    }
  }
  {
    nb::gil_scoped_release release;
    bound.launch(launch);
    bufs.dev.synchronize();
  }
  size_t buffer = 0;
  for (size_t i = 0; i < params.size(); ++i) {
    if (!params[i].is_tensor) continue;
    const uint64_t n = param_bytes(params[i]);
    if (n && writeback[i]) bufs.dev.copy_to_host(const_cast<void*>(arrays[i].data()), bufs.ptrs[buffer], n);
    ++buffer;
  }
}

}  // namespace

void bind_run(nb::module_& m) {
  m.def("run_cpu", &run_cpu, nb::arg("kernel"), nb::arg("bindings"), nb::arg("args"),
        "Runs the kernel traced for `bindings` on the CPU emulator: args per parameter, a C-contiguous "
        "array (copied in, and back unless read-only) or a scalar's bytes");
}

}  // namespace ptxpy
