// Launching a traced kernel on a GPU from Python: bind once (trace, load the module on GPU
// `ordinal`: ptx::bind, which uses the cubin cache), then launch many times with device
// addresses and scalars' bytes on a CUstream given as an int. A launch reads the arguments
// into fixed arrays on the stack, encodes tensor maps, and releases the GIL around the
// driver call: no allocation, lookup or trace.
#include <array>
#include <cstring>
#include <optional>

#include <fmt/format.h>
#include <nanobind/ndarray.h>
#include <nanobind/stl/map.h>
#include <nanobind/stl/shared_ptr.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/tuple.h>
#include <nanobind/stl/vector.h>
#include <ptxpp/runtime.hpp>

#include "common.hpp"
#include "gpu_kernel.hpp"
#include "tensor_map_spec.hpp"

namespace ptxpy {

namespace {

constexpr size_t kMaxTensorMaps = 8;  // descriptors encoded per launch, on the stack

// A tensor map parameter's description from Python: dims, box (outermost first), dtype, swizzle bytes.
using TensorMapDesc = std::tuple<std::vector<uint64_t>, std::vector<uint32_t>, ptx::DType, uint32_t>;

// `kernel`: a Kernel, traced here for `b`, or a Traced made elsewhere (Module.trace: a kernel of a
// ptxpp.Module runs in its module's PTX, with the device functions it calls).
ptx::BoundKernel bind_kernel(const ptx::Device& d, nb::handle kernel, const ptx::Bindings& b) {
  if (nb::isinstance<ptx::Traced>(kernel)) return ptx::bind(d, nb::cast<std::shared_ptr<const ptx::Traced>>(kernel));
  return ptx::bind(d, nb::cast<const ptx::Kernel&>(kernel), b);  // with the GIL: a trace not cached yet runs the body
}

GpuKernel bind_gpu(nb::handle kernel, const ptx::Bindings& b, int ordinal, const std::map<size_t, TensorMapDesc>& maps) {
  GpuKernel g;
  g.dev = ptx::device::gpu(ordinal);
  g.bound = bind_kernel(g.dev, kernel, b);
  const ptx::Traced& t = g.bound.traced();
  g.name = t.name;
  if (t.params.size() > kMaxParams)
    throw ptx::Error(fmt::format("kernel {}: more than {} parameters", t.name, kMaxParams), {});
  size_t map_count = 0;
  for (size_t i = 0; i < t.params.size(); ++i) {
    const ptx::ParamInfo& p = t.params[i];
    g.param_names.push_back(p.name);
    g.dtypes.push_back(p.dtype);
    g.specs.emplace_back();
    g.scalar_bytes.push_back(0);
    if (p.is_tensor_map) {
      const auto it = maps.find(i);
      if (it == maps.end())
        throw ptx::Error(fmt::format("kernel {}: tensor map '{}' has no array description", t.name, p.name), {});
      const auto& [dims, box, dtype, swizzle] = it->second;
      g.specs.back() = tensor_map_spec(dims, box, dtype, swizzle, p.name);
      g.kinds.push_back(ParamKind::TensorMap);
      if (++map_count > kMaxTensorMaps)
        throw ptx::Error(fmt::format("kernel {}: more than {} tensor maps to launch from Python", t.name, kMaxTensorMaps), {});
    } else if (p.is_tensor) {
      g.kinds.push_back(ParamKind::Pointer);
    } else {
      const uint32_t bytes = ptx::bits(p.dtype) / 8;
      if (bytes == 0 || bytes > 8)
        throw ptx::Error(fmt::format("kernel {}: scalar '{}' is a {}: no launch from Python", t.name, p.name, ptx::name(p.dtype)), {});
      g.scalar_bytes.back() = static_cast<uint8_t>(bytes);
      g.kinds.push_back(ParamKind::Scalar);
    }
  }
  return g;
}

uint64_t address_of(const GpuKernel& g, size_t i, PyObject* item) {
  if (!PyLong_Check(item))
    throw nb::type_error(fmt::format("kernel {}: '{}' takes a device address (int)", g.name, g.param_names[i]).c_str());
  const unsigned long long v = PyLong_AsUnsignedLongLong(item);
  if (v == static_cast<unsigned long long>(-1) && PyErr_Occurred()) throw nb::python_error();
  return v;
}

// args: per parameter, a device address (int) for a tensor or tensor map, the scalar's bytes for a
// scalar; stream: a CUstream (0: the default stream).
void launch(const GpuKernel& g, const nb::list& args, uintptr_t stream) {
  const size_t n = g.kinds.size();
  if (args.size() != n)
    throw ptx::Error(fmt::format("kernel {} takes {} arguments, not {}", g.name, n, args.size()), {});
  std::array<uint64_t, kMaxParams> slots;
  for (size_t i = 0; i < n; ++i) {
    PyObject* item = PyList_GET_ITEM(args.ptr(), static_cast<Py_ssize_t>(i));
    if (g.kinds[i] != ParamKind::Scalar) {
      slots[i] = address_of(g, i, item);
      continue;
    }
    char* data = nullptr;
    Py_ssize_t size = 0;
    if (!PyBytes_Check(item) || PyBytes_AsStringAndSize(item, &data, &size) != 0 || size != g.scalar_bytes[i]) {
      PyErr_Clear();
      throw nb::type_error(fmt::format("kernel {}: scalar '{}' takes {} bytes", g.name, g.param_names[i], g.scalar_bytes[i]).c_str());
    }
    slots[i] = 0;
    std::memcpy(&slots[i], data, static_cast<size_t>(size));
  }
  launch_slots(g, slots.data(), stream);
}

}  // namespace

void launch_slots(const GpuKernel& g, const uint64_t* slots, uintptr_t stream) {
  const size_t n = g.kinds.size();
  std::array<ptx::LaunchArg, kMaxParams> launch_args;  // point at the slots
  std::optional<std::array<ptx::TensorMap, kMaxTensorMaps>> maps;  // made (1 KB zeroed) only for a kernel with tensor maps
  const ptx::DeviceImpl* device = g.dev.impl().get();
  size_t map_count = 0;
  for (size_t i = 0; i < n; ++i) {
    switch (g.kinds[i]) {
      case ParamKind::Pointer:
        launch_args[i] = ptx::LaunchArg{true, ptx::DType::u64, 8, &slots[i], device, false};
        break;
      case ParamKind::TensorMap:
        if (!maps) maps.emplace();
        try {
          (*maps)[map_count] = ptx::make_tensor_map(g.dev, ptx::DevicePtr{slots[i], device}, g.specs[i]);
        } catch (const ptx::runtime::Error& e) {  // the driver's rule: name the parameter, and its order
          throw ptx::Error(fmt::format("{}: {} (the driver's dimension order: innermost first)", g.param_names[i], e.what()), {});
        }
        launch_args[i] = ptx::launch_arg((*maps)[map_count++]);
        break;
      case ParamKind::Scalar:
        launch_args[i] = ptx::LaunchArg{false, g.dtypes[i], g.scalar_bytes[i], &slots[i], nullptr, false};
        break;
    }
  }
  // A wrapped stream is kept per thread by the runtime: no allocation after its first use.
  const ptx::Stream s = stream ? g.dev.wrap_stream(reinterpret_cast<void*>(stream)) : ptx::Stream();
  nb::gil_scoped_release release;
  g.bound.launch(std::span<const ptx::LaunchArg>(launch_args.data(), n), stream ? &s : nullptr);
}

// A CUDA array through DLPack (kDLCUDA): (address, shape, strides in elements, (code, bits, lanes),
// device ordinal). The producer's object, which the caller holds, keeps the memory alive.
nb::tuple dlpack_cuda(nb::ndarray<nb::device::cuda> a) {
  nb::list shape, strides;
  for (size_t d = 0; d < a.ndim(); ++d) {
    shape.append(a.shape(d));
    strides.append(a.stride(d));
  }
  const nb::dlpack::dtype t = a.dtype();
  return nb::make_tuple(reinterpret_cast<uintptr_t>(a.data()), nb::tuple(shape), nb::tuple(strides),
                        nb::make_tuple(t.code, t.bits, t.lanes), a.device_id());
}


void bind_gpu_launch(nb::module_& m) {
  nb::class_<GpuKernel>(m, "GpuKernel", "A kernel traced for some bindings and loaded on one GPU")
      .def_ro("name", &GpuKernel::name)
      .def("launch", &launch, nb::arg("args"), nb::arg("stream") = 0,
           "Launches on `stream` (a CUstream as an int; 0: the default stream): args per parameter, a device "
           "address (int) for a tensor or tensor map, the scalar's bytes for a scalar");
  m.def("bind_gpu", &bind_gpu, nb::arg("kernel"), nb::arg("bindings"), nb::arg("ordinal"), nb::arg("tensor_maps"),
        "Traces the kernel for `bindings` (or takes a Traced: a module's, Module.trace) and loads it on GPU "
        "`ordinal` (through the cubin cache); "
        "tensor_maps: per tensor map parameter index, (dims, box, dtype, swizzle bytes), outermost first");
  m.def("dlpack_cuda", &dlpack_cuda, nb::arg("array"),
        "(address, shape, strides in elements, (code, bits, lanes), device) of a CUDA array through DLPack");
}

}  // namespace ptxpy
