// Running a traced kernel on host arrays through the runtime's CPU device (the
// emulator, with its out-of-bounds and race checks): copy in, launch, copy back.
#include <cstring>

#include <fmt/format.h>
#include <nanobind/ndarray.h>
#include <nanobind/stl/map.h>
#include <nanobind/stl/pair.h>
#include <nanobind/stl/shared_ptr.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/tuple.h>
#include <nanobind/stl/vector.h>
#include <ptxpp/runtime.hpp>

#include "common.hpp"
#include "tensor_map_spec.hpp"

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

// A tensor map argument from Python: the array, whether to copy it back, its dimensions and box
// (outermost first, as NumPy), its element type and swizzle (bytes).
using TensorMapArg = std::tuple<HostArray, bool, std::vector<uint64_t>, std::vector<uint32_t>, ptx::DType, uint32_t>;

ptx::TensorMapSpec spec_of(const TensorMapArg& arg, const std::string& param) {
  const auto& [array, back, dims, box, dtype, swizzle] = arg;
  return tensor_map_spec(dims, box, dtype, swizzle, param);
}

uint64_t param_bytes(const ptx::ParamInfo& p) {
  uint64_t n = 1;
  for (int64_t d : p.shape) n *= static_cast<uint64_t>(d);
  return n * ptx::bits(p.dtype) / 8;
}

// args: per kernel parameter, (a C-contiguous array, whether to copy it back) for tensors,
// or the scalar's bytes. `traced`: a kernel's trace (Kernel.trace) or a module's (Module.trace).
void run_cpu(const std::shared_ptr<const ptx::Traced>& traced, const nb::list& args) {
  const auto& params = traced->params;
  if (args.size() != params.size())
    throw ptx::Error(fmt::format("kernel {} takes {} arguments, not {}", traced->name, params.size(), args.size()), {});
  Buffers bufs{ptx::device::cpu(), {}};
  bufs.ptrs.reserve(params.size());  // launch[] points into it
  const ptx::BoundKernel bound = ptx::bind(bufs.dev, traced);
  std::vector<HostArray> arrays(params.size());
  std::vector<bool> writeback(params.size());
  std::vector<std::string> scalars(params.size());
  std::vector<ptx::LaunchArg> launch(params.size());
  std::vector<ptx::TensorMap> maps;
  maps.reserve(params.size());  // launch[] points into it
  for (size_t i = 0; i < params.size(); ++i) {
    const ptx::ParamInfo& p = params[i];
    if (p.is_tensor_map) {  // the array in a device buffer, and a descriptor of it encoded for the CPU device
      const auto arg = nb::cast<TensorMapArg>(args[i]);
      const ptx::TensorMapSpec spec = spec_of(arg, p.name);
      arrays[i] = std::get<0>(arg);
      writeback[i] = std::get<1>(arg);
      const uint64_t n = arrays[i].nbytes();
      bufs.ptrs.push_back(bufs.dev.alloc(std::max<uint64_t>(n, 1), p.name));
      if (n) bufs.dev.copy_to_device(bufs.ptrs.back(), arrays[i].data(), n);
      try {
        maps.push_back(ptx::make_tensor_map(bufs.dev, bufs.ptrs.back(), spec));
      } catch (const ptx::runtime::Error& e) {  // the driver's rule: name the parameter, and its order
        throw ptx::Error(fmt::format("{}: {} (the driver's dimension order: innermost first)", p.name, e.what()), {});
      }
      launch[i] = ptx::launch_arg(maps.back());
      continue;
    }
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
    if (!params[i].is_tensor && !params[i].is_tensor_map) continue;
    const uint64_t n = params[i].is_tensor_map ? arrays[i].nbytes() : param_bytes(params[i]);
    if (n && writeback[i]) bufs.dev.copy_to_host(const_cast<void*>(arrays[i].data()), bufs.ptrs[buffer], n);
    ++buffer;
  }
}

}  // namespace

namespace {

// The TMA element type of a tensor map's array (the driver's enumeration).
ptx::TmaType tma_type(ptx::DType t, const std::string& param) {
  using D = ptx::DType;
  using T = ptx::TmaType;
  switch (t) {
    case D::u8: case D::b8: return T::u8;
    case D::u16: case D::b16: return T::u16;
    case D::u32: case D::b32: return T::u32;
    case D::s32: return T::s32;
    case D::u64: case D::b64: return T::u64;
    case D::s64: return T::s64;
    case D::f16: return T::f16;
    case D::bf16: return T::bf16;
    case D::f32: return T::f32;
    case D::f64: return T::f64;
    default: throw ptx::Error(fmt::format("{}: no TMA element type for {} arrays", param, ptx::name(t)), {});
  }
}

ptx::TmaSwizzle tma_swizzle(uint32_t bytes, const std::string& param) {
  switch (bytes) {
    case 0: return ptx::TmaSwizzle::none;
    case 32: return ptx::TmaSwizzle::b32;
    case 64: return ptx::TmaSwizzle::b64;
    case 128: return ptx::TmaSwizzle::b128;
    default: throw ptx::Error(fmt::format("{}: the swizzle is 0, 32, 64 or 128 bytes, not {}", param, bytes), {});
  }
}

}  // namespace

ptx::TensorMapSpec tensor_map_spec(const std::vector<uint64_t>& dims, const std::vector<uint32_t>& box, ptx::DType dtype,
                                   uint32_t swizzle, const std::string& param) {
  ptx::TensorMapSpec s;
  s.type = tma_type(dtype, param);
  s.dims.assign(dims.rbegin(), dims.rend());  // the driver's order: innermost first
  s.box.assign(box.rbegin(), box.rend());
  s.swizzle = tma_swizzle(swizzle, param);
  return s;
}

void bind_run(nb::module_& m) {
  m.def("run_cpu", &run_cpu, nb::arg("traced"), nb::arg("args"),
        "Runs a traced kernel on the CPU emulator: args per parameter, a C-contiguous "
        "array (copied in, and back unless read-only), a scalar's bytes, or for a tensor map (array, copy back, "
        "dims, box, dtype, swizzle bytes), dims and box outermost first");
}

}  // namespace ptxpy
