// ptxpp._core.GpuKernel: a kernel traced for some bindings and loaded on one GPU (gpu_launch.cpp),
// and its launch from filled parameter slots (shared by GpuKernel.launch and the plans of
// repeated calls, gpu_plan.cpp).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include <nanobind/nanobind.h>
#include <nanobind/ndarray.h>
#include <ptxpp/runtime.hpp>

namespace ptxpy {

namespace nb = nanobind;

inline constexpr size_t kMaxParams = 64;  // the runtime's limit (src/runtime/gpu_device.cpp)

enum class ParamKind : uint8_t { Pointer, Scalar, TensorMap };

struct GpuKernel {
  ptx::Device dev;
  ptx::BoundKernel bound;
  std::string name;
  std::vector<std::string> param_names;
  std::vector<ParamKind> kinds;
  std::vector<ptx::DType> dtypes;
  std::vector<uint8_t> scalar_bytes;
  std::vector<ptx::TensorMapSpec> specs;  // per parameter (empty but for tensor maps)
};

// Launches g on `stream` (a CUstream; 0: the default stream): slots[i] holds parameter i's device
// address (a tensor, a tensor map's array) or a scalar's bytes (little-endian, zero-padded).
// Releases the GIL around the driver call.
void launch_slots(const GpuKernel& g, const uint64_t* slots, uintptr_t stream);

// (address, shape, strides in elements, (code, bits, lanes), device ordinal) of a CUDA array through DLPack.
nb::tuple dlpack_cuda(nb::ndarray<nb::device::cuda> a);

}  // namespace ptxpy
