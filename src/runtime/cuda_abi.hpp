// Internal: the subset of the CUDA driver API the runtime uses, declared here from
// the driver API's documented ABI so the library builds without the CUDA headers.
// Entry points are resolved at run time (cuGetProcAddress); nothing links libcuda.
#pragma once

#include <cstddef>
#include <cstdint>

namespace ptx::runtime::cu {

using Result = int;
constexpr Result kSuccess = 0;
constexpr Result kErrorNoDevice = 100;
constexpr Result kErrorNoBinaryForGpu = 209;
constexpr Result kErrorInvalidPtx = 218;
constexpr Result kErrorUnsupportedPtxVersion = 222;

using Device = int;
using DevicePtr = unsigned long long;
struct CtxSt;
struct ModSt;
struct FuncSt;
struct StreamSt;
struct EventSt;
using Context = CtxSt*;
using Module = ModSt*;
using Function = FuncSt*;
using Stream = StreamSt*;
using Event = EventSt*;
struct GraphSt;
struct GraphExecSt;
using Graph = GraphSt*;
using GraphExec = GraphExecSt*;
// CUstreamCaptureMode
constexpr int kStreamCaptureModeThreadLocal = 1;

// CUjit_option
enum JitOption : int {
  kJitInfoLogBuffer = 3,
  kJitInfoLogBufferSizeBytes = 4,
  kJitErrorLogBuffer = 5,
  kJitErrorLogBufferSizeBytes = 6,
  kJitLogVerbose = 12,
};

// CUdevice_attribute
constexpr int kAttrComputeCapabilityMajor = 75;
constexpr int kAttrComputeCapabilityMinor = 76;
constexpr int kAttrMaxSharedMemoryPerBlockOptin = 97;
// CUfunction_attribute
constexpr int kFuncAttrMaxDynamicSharedSizeBytes = 8;
// CUlaunchAttributeID
constexpr int kLaunchAttrClusterDimension = 4;

union LaunchAttributeValue {
  char pad[64];
  struct {
    unsigned x, y, z;
  } cluster_dim;
};
struct LaunchAttribute {
  int id;
  char pad[8 - sizeof(int)];
  LaunchAttributeValue value;
};
struct LaunchConfig {
  unsigned grid_x, grid_y, grid_z;
  unsigned block_x, block_y, block_z;
  unsigned shared_mem_bytes;
  Stream stream;
  LaunchAttribute* attrs;
  unsigned num_attrs;
};

// CUtensorMap: 128 opaque bytes, 64-byte aligned; the enumerations are passed as ints.
struct alignas(64) TensorMap {
  unsigned long long opaque[16];
};
using TensorMapEncodeTiled = Result (*)(TensorMap*, int, unsigned, void*, const unsigned long long*,
                                        const unsigned long long*, const unsigned*, const unsigned*, int, int, int, int);
using TensorMapEncodeIm2col = Result (*)(TensorMap*, int, unsigned, void*, const unsigned long long*,
                                         const unsigned long long*, const int*, const int*, unsigned, unsigned,
                                         const unsigned*, int, int, int, int);
using TensorMapReplaceAddress = Result (*)(TensorMap*, void*);

// cuGetProcAddress_v2(symbol, pfn, cudaVersion, flags, symbolStatus)
using GetProcAddress = Result (*)(const char*, void**, int, uint64_t, int*);

}  // namespace ptx::runtime::cu
