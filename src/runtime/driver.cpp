#include "driver.hpp"

#include <dlfcn.h>

#include <cstdlib>
#include <mutex>

#include <fmt/format.h>

namespace ptx::runtime {

namespace {

struct Loaded {
  Driver driver;
  std::string error;  // empty: loaded
};

Loaded load() {
  Loaded out;
  const char* env = std::getenv("PTXPP_LIBCUDA");
  const std::string lib = env && *env ? env : "libcuda.so.1";
  void* h = dlopen(lib.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (!h) {
    out.error = fmt::format("cannot load the CUDA driver ({}): {}; is an NVIDIA driver installed?", lib, dlerror());
    return out;
  }
  auto gpa = reinterpret_cast<cu::GetProcAddress>(dlsym(h, "cuGetProcAddress_v2"));
  if (!gpa) gpa = reinterpret_cast<cu::GetProcAddress>(dlsym(h, "cuGetProcAddress"));
  if (!gpa) {
    out.error = fmt::format("{} has no cuGetProcAddress: the driver is older than CUDA 12", lib);
    return out;
  }
  Driver& d = out.driver;
  d.library = lib;
  bool ok = true;
  auto resolve = [&](auto& fn, const char* name) {
    void* p = nullptr;
    int status = 0;
    if (gpa(name, &p, 12000, 0, &status) != cu::kSuccess || !p) {
      if (ok) out.error = fmt::format("the CUDA driver ({}) lacks {}", lib, name);
      ok = false;
      return;
    }
    fn = reinterpret_cast<std::remove_reference_t<decltype(fn)>>(p);
  };
  resolve(d.cuInit, "cuInit");
  resolve(d.cuDriverGetVersion, "cuDriverGetVersion");
  resolve(d.cuDeviceGetCount, "cuDeviceGetCount");
  resolve(d.cuDeviceGet, "cuDeviceGet");
  resolve(d.cuDeviceGetAttribute, "cuDeviceGetAttribute");
  resolve(d.cuDeviceGetName, "cuDeviceGetName");
  resolve(d.cuDevicePrimaryCtxRetain, "cuDevicePrimaryCtxRetain");
  resolve(d.cuCtxSetCurrent, "cuCtxSetCurrent");
  resolve(d.cuCtxSynchronize, "cuCtxSynchronize");
  resolve(d.cuModuleLoadDataEx, "cuModuleLoadDataEx");
  resolve(d.cuModuleGetFunction, "cuModuleGetFunction");
  resolve(d.cuModuleUnload, "cuModuleUnload");
  resolve(d.cuFuncSetAttribute, "cuFuncSetAttribute");
  resolve(d.cuLaunchKernelEx, "cuLaunchKernelEx");
  resolve(d.cuMemAlloc, "cuMemAlloc");
  resolve(d.cuMemFree, "cuMemFree");
  resolve(d.cuMemcpyHtoD, "cuMemcpyHtoD");
  resolve(d.cuMemcpyDtoH, "cuMemcpyDtoH");
  resolve(d.cuMemsetD8, "cuMemsetD8");
  resolve(d.cuMemcpyDtoD, "cuMemcpyDtoD");
  resolve(d.cuStreamCreate, "cuStreamCreate");
  resolve(d.cuStreamSynchronize, "cuStreamSynchronize");
  resolve(d.cuStreamDestroy, "cuStreamDestroy");
  resolve(d.cuEventCreate, "cuEventCreate");
  resolve(d.cuEventRecord, "cuEventRecord");
  resolve(d.cuEventSynchronize, "cuEventSynchronize");
  resolve(d.cuEventElapsedTime, "cuEventElapsedTime");
  resolve(d.cuEventDestroy, "cuEventDestroy");
  resolve(d.cuGetErrorName, "cuGetErrorName");
  resolve(d.cuGetErrorString, "cuGetErrorString");
  if (!ok) return out;
  auto optional = [&](auto& fn, const char* name) {
    void* p = nullptr;
    int status = 0;
    if (gpa(name, &p, 12000, 0, &status) == cu::kSuccess && p) fn = reinterpret_cast<std::remove_reference_t<decltype(fn)>>(p);
  };
  optional(d.cuTensorMapEncodeTiled, "cuTensorMapEncodeTiled");
  optional(d.cuTensorMapEncodeIm2col, "cuTensorMapEncodeIm2col");
  optional(d.cuTensorMapReplaceAddress, "cuTensorMapReplaceAddress");
  optional(d.cuStreamBeginCapture, "cuStreamBeginCapture");
  optional(d.cuStreamEndCapture, "cuStreamEndCapture");
  optional(d.cuGraphInstantiateWithFlags, "cuGraphInstantiateWithFlags");
  optional(d.cuGraphGetNodes, "cuGraphGetNodes");
  optional(d.cuGraphLaunch, "cuGraphLaunch");
  optional(d.cuGraphExecDestroy, "cuGraphExecDestroy");
  optional(d.cuGraphDestroy, "cuGraphDestroy");
  if (const cu::Result r = d.cuInit(0); r != cu::kSuccess) {
    out.error = fmt::format("the CUDA driver did not initialize: {}", d.describe(r));
    return out;
  }
  if (const cu::Result r = d.cuDriverGetVersion(&d.version); r != cu::kSuccess) {
    out.error = fmt::format("cuDriverGetVersion: {}", d.describe(r));
    return out;
  }
  return out;
}

const Loaded& loaded() {
  static const Loaded l = load();  // thread-safe, once
  return l;
}

}  // namespace

const Driver& Driver::get() {
  const Loaded& l = loaded();
  if (!l.error.empty()) throw Error(l.error);
  return l.driver;
}

bool Driver::available() { return loaded().error.empty(); }

std::string Driver::describe(cu::Result r) const {
  const char* name = nullptr;
  const char* text = nullptr;
  if (cuGetErrorName) cuGetErrorName(r, &name);
  if (cuGetErrorString) cuGetErrorString(r, &text);
  return fmt::format("{} ({}){}{}", name ? name : "CUDA error", r, text ? ": " : "", text ? text : "");
}

void Driver::check(cu::Result r, const std::string& what) const {
  if (r != cu::kSuccess) throw Error(fmt::format("{}: {}", what, describe(r)));
}

PtxVersion max_ptx_for_driver(int v) {
  const int major = v / 1000, minor = (v % 1000) / 10;
  const auto m = static_cast<uint16_t>(minor);
  if (major >= 13) return {9, m};  // CUDA 13.0: PTX ISA 9.0
  if (major == 12) {
    static const uint16_t kMinor[] = {0, 1, 2, 3, 4, 5, 5, 5, 7, 8};  // CUDA 12.0 .. 12.9: PTX ISA 8.x
    return {8, kMinor[std::min(minor, 9)]};
  }
  if (major == 11) return {7, m};  // CUDA 11.x: PTX ISA 7.x
  return {0, 0};
}

}  // namespace ptx::runtime
