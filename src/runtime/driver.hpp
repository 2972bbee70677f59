// Internal: the CUDA driver, loaded at run time. `Driver::get()` loads libcuda.so.1
// (or $PTXPP_LIBCUDA, e.g. the test suite's fake driver) once, resolves every entry
// point through cuGetProcAddress, and initializes it; failures become clear errors.
#pragma once

#include <string>

#include "cuda_abi.hpp"
#include "ptxpp/core/ptx_version.hpp"
#include "ptxpp/runtime/error.hpp"

namespace ptx::runtime {

struct Driver {
  cu::Result (*cuInit)(unsigned) = nullptr;
  cu::Result (*cuDriverGetVersion)(int*) = nullptr;
  cu::Result (*cuDeviceGetCount)(int*) = nullptr;
  cu::Result (*cuDeviceGet)(cu::Device*, int) = nullptr;
  cu::Result (*cuDeviceGetAttribute)(int*, int, cu::Device) = nullptr;
  cu::Result (*cuDeviceGetName)(char*, int, cu::Device) = nullptr;
  cu::Result (*cuDevicePrimaryCtxRetain)(cu::Context*, cu::Device) = nullptr;
  cu::Result (*cuCtxSetCurrent)(cu::Context) = nullptr;
  cu::Result (*cuCtxSynchronize)() = nullptr;
  cu::Result (*cuModuleLoadDataEx)(cu::Module*, const void*, unsigned, int*, void**) = nullptr;
  cu::Result (*cuModuleGetFunction)(cu::Function*, cu::Module, const char*) = nullptr;
  cu::Result (*cuModuleUnload)(cu::Module) = nullptr;
  cu::Result (*cuFuncSetAttribute)(cu::Function, int, int) = nullptr;
  cu::Result (*cuLaunchKernelEx)(const cu::LaunchConfig*, cu::Function, void**, void**) = nullptr;
  cu::Result (*cuMemAlloc)(cu::DevicePtr*, size_t) = nullptr;
  cu::Result (*cuMemFree)(cu::DevicePtr) = nullptr;
  cu::Result (*cuMemcpyHtoD)(cu::DevicePtr, const void*, size_t) = nullptr;
  cu::Result (*cuMemcpyDtoH)(void*, cu::DevicePtr, size_t) = nullptr;
  cu::Result (*cuMemsetD8)(cu::DevicePtr, unsigned char, size_t) = nullptr;
  cu::Result (*cuMemcpyDtoD)(cu::DevicePtr, cu::DevicePtr, size_t) = nullptr;
  cu::Result (*cuStreamCreate)(cu::Stream*, unsigned) = nullptr;
  cu::Result (*cuStreamSynchronize)(cu::Stream) = nullptr;
  cu::Result (*cuStreamDestroy)(cu::Stream) = nullptr;
  cu::Result (*cuEventCreate)(cu::Event*, unsigned) = nullptr;
  cu::Result (*cuEventRecord)(cu::Event, cu::Stream) = nullptr;
  cu::Result (*cuEventSynchronize)(cu::Event) = nullptr;
  cu::Result (*cuEventElapsedTime)(float*, cu::Event, cu::Event) = nullptr;
  cu::Result (*cuEventDestroy)(cu::Event) = nullptr;
  cu::Result (*cuGetErrorName)(cu::Result, const char**) = nullptr;
  cu::Result (*cuGetErrorString)(cu::Result, const char**) = nullptr;
  // Optional (null when the driver lacks them): tensor maps.
  cu::TensorMapEncodeTiled cuTensorMapEncodeTiled = nullptr;
  cu::TensorMapEncodeIm2col cuTensorMapEncodeIm2col = nullptr;
  cu::TensorMapReplaceAddress cuTensorMapReplaceAddress = nullptr;
  // Optional: graphs (stream capture).
  cu::Result (*cuStreamBeginCapture)(cu::Stream, int) = nullptr;
  cu::Result (*cuStreamEndCapture)(cu::Stream, cu::Graph*) = nullptr;
  cu::Result (*cuGraphInstantiateWithFlags)(cu::GraphExec*, cu::Graph, unsigned long long) = nullptr;
  cu::Result (*cuGraphGetNodes)(cu::Graph, void**, size_t*) = nullptr;
  cu::Result (*cuGraphLaunch)(cu::GraphExec, cu::Stream) = nullptr;
  cu::Result (*cuGraphExecDestroy)(cu::GraphExec) = nullptr;
  cu::Result (*cuGraphDestroy)(cu::Graph) = nullptr;

  int version = 0;  // e.g. 13000 for CUDA 13.0
  std::string library;

  // The loaded driver; throws Error (no driver, no entry point, init failure). Thread-safe.
  static const Driver& get();
  // Whether a driver can be loaded (without throwing).
  static bool available();

  // Throws Error("what: CUDA_ERROR_X: explanation") unless r is success.
  void check(cu::Result r, const std::string& what) const;
  std::string describe(cu::Result r) const;
};

// The highest PTX ISA version a driver of this CUDA version JIT-compiles ({0, 0}: none known).
PtxVersion max_ptx_for_driver(int driver_version);

}  // namespace ptx::runtime
