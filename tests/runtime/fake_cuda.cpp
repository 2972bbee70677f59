// A fake CUDA driver for tests on machines without a GPU: exports cuGetProcAddress
// and the entry points the runtime uses, backed by host memory, and records every
// call in a log the tests read (fake_cuda_log). Settings (fake_cuda_set):
//   devices, cc (e.g. 90), driver (e.g. 13000), optin_smem, fail_jit, no_init, capturing,
//   log_params (a launch also logs the first 8 bytes of every parameter: callers whose
//   parameters all have 8 readable bytes, as ptxpp._core.GpuKernel's).
// fake_cuda_alloc(bytes) allocates as cuMemAlloc (for tests that make arrays outside the runtime).
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <map>
#include <mutex>
#include <string>
#include <vector>

#include "runtime/cuda_abi.hpp"  // the runtime's declarations: the same function types

namespace {

std::mutex mu;
std::string log_text;
std::map<std::string, long> settings = {{"devices", 1}, {"cc", 90}, {"driver", 13000}, {"optin_smem", 232448}, {"fail_jit", 0}, {"capturing", 0}};
std::map<unsigned long long, std::vector<unsigned char>> allocations;
unsigned long long next_ptr = 0x10000000;
int modules = 0;

void record(const std::string& s) {
  std::lock_guard lock(mu);
  log_text += s;
  log_text += '\n';
}

long setting(const char* k) {
  std::lock_guard lock(mu);
  return settings[k];
}

namespace cu = ptx::runtime::cu;
using Result = cu::Result;

// While "capturing" is set (a stream capture for a CUDA graph), calls a real driver
// refuses during capture fail with CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED and are logged.
bool capture_violation(const char* fn) {
  if (!setting("capturing")) return false;
  record(std::string("capture violation: ") + fn);
  return true;
}

Result cuInit(unsigned) {
  record("cuInit");
  return setting("no_init") ? 3 : 0;  // CUDA_ERROR_NOT_INITIALIZED
}
Result cuDriverGetVersion(int* v) {
  *v = static_cast<int>(setting("driver"));
  return 0;
}
Result cuDeviceGetCount(int* n) {
  *n = static_cast<int>(setting("devices"));
  return 0;
}
Result cuDeviceGet(int* d, int ordinal) {
  *d = ordinal;
  return 0;
}
Result cuDeviceGetAttribute(int* v, int attr, int) {
  const long cc = setting("cc");
  if (attr == 75) *v = static_cast<int>(cc / 10);
  else if (attr == 76) *v = static_cast<int>(cc % 10);
  else if (attr == 97) *v = static_cast<int>(setting("optin_smem"));
  else *v = 0;
  return 0;
}
Result cuDeviceGetName(char* buf, int len, int) {
  std::snprintf(buf, static_cast<size_t>(len), "Fake GPU sm_%ld", setting("cc"));
  return 0;
}
Result cuDevicePrimaryCtxRetain(cu::Context* ctx, cu::Device) {
  record("cuDevicePrimaryCtxRetain");
  *ctx = reinterpret_cast<cu::Context>(0x1);
  return 0;
}
Result cuCtxSetCurrent(cu::Context) { return 0; }
Result cuCtxSynchronize() {
  if (capture_violation("cuCtxSynchronize")) return 900;
  record("cuCtxSynchronize");
  return 0;
}
Result cuModuleLoadDataEx(cu::Module* mod, const void* image, unsigned n, int* options, void** values) {
  if (capture_violation("cuModuleLoadDataEx")) return 900;
  const char* p = static_cast<const char*>(image);
  const bool elf = std::memcmp(p, "\x7f" "ELF", 4) == 0;
  record(std::string("cuModuleLoadDataEx ") + (elf ? "cubin" : "ptx"));
  if (setting("fail_jit")) {
    for (unsigned i = 0; i < n; ++i)
      if (options[i] == 5) std::snprintf(static_cast<char*>(values[i]), 200, "ptxas application ptx input, line 7; error   : fake failure");
    return 218;  // CUDA_ERROR_INVALID_PTX
  }
  *mod = reinterpret_cast<cu::Module>(static_cast<uintptr_t>(++modules));
  return 0;
}
Result cuModuleGetFunction(cu::Function* f, cu::Module, const char* name) {
  record(std::string("cuModuleGetFunction ") + name);
  *f = reinterpret_cast<cu::Function>(0x2);
  return 0;
}
Result cuModuleUnload(cu::Module) { return 0; }
Result cuFuncSetAttribute(cu::Function, int attr, int value) {
  record("cuFuncSetAttribute " + std::to_string(attr) + " " + std::to_string(value));
  return 0;
}
// "cuLaunchKernelEx params" and each parameter's first 8 bytes in hex, byte by byte (memory order).
std::string param_bytes(void** params) {
  std::string s = "cuLaunchKernelEx params";
  for (int i = 0; params && params[i] && i < 64; ++i) {
    const auto* b = static_cast<const unsigned char*>(params[i]);
    char hex[17];
    for (int j = 0; j < 8; ++j) std::snprintf(hex + 2 * j, 3, "%02x", b[j]);
    s += ' ';
    s += hex;
  }
  return s;
}
Result cuLaunchKernelEx(const cu::LaunchConfig* c, cu::Function, void** params, void**) {
  std::string s = "cuLaunchKernelEx stream " + std::to_string(reinterpret_cast<uintptr_t>(c->stream)) + " grid " +
                  std::to_string(c->grid_x) + "," + std::to_string(c->grid_y) + "," + std::to_string(c->grid_z) + " block " +
                  std::to_string(c->block_x) + "," + std::to_string(c->block_y) + "," + std::to_string(c->block_z) + " smem " +
                  std::to_string(c->shared_mem_bytes);
  for (unsigned i = 0; i < c->num_attrs; ++i)
    if (c->attrs[i].id == cu::kLaunchAttrClusterDimension)
      s += " cluster " + std::to_string(c->attrs[i].value.cluster_dim.x) + "," + std::to_string(c->attrs[i].value.cluster_dim.y) +
           "," + std::to_string(c->attrs[i].value.cluster_dim.z);
  // the first 8 bytes of the first two parameters, as the kernel would see them
  for (int i = 0; i < 2 && params && params[i]; ++i) {
    uint64_t v = 0;
    std::memcpy(&v, params[i], 4);
    s += " p" + std::to_string(i) + "=" + std::to_string(v);
  }
  record(s);
  if (setting("log_params")) record(param_bytes(params));
  if (setting("capturing")) {
    std::lock_guard lock(mu);
    ++settings["captured_launches"];
  }
  return 0;
}
Result cuMemAlloc(unsigned long long* p, size_t n) {
  if (capture_violation("cuMemAlloc")) return 900;
  std::lock_guard lock(mu);
  *p = next_ptr;
  next_ptr += (n + 255) / 256 * 256 + 256;
  allocations[*p].assign(n, 0);
  return 0;
}
Result cuMemFree(unsigned long long p) {
  if (capture_violation("cuMemFree")) return 900;
  std::lock_guard lock(mu);
  return allocations.erase(p) ? 0 : 1;
}
unsigned char* find(unsigned long long p, size_t n) {
  std::lock_guard lock(mu);
  auto it = allocations.upper_bound(p);
  if (it == allocations.begin()) return nullptr;
  --it;
  if (p + n > it->first + it->second.size()) return nullptr;
  return it->second.data() + (p - it->first);
}
Result cuMemcpyHtoD(unsigned long long d, const void* s, size_t n) {
  if (capture_violation("cuMemcpyHtoD")) return 900;
  unsigned char* p = find(d, n);
  if (!p) return 1;
  std::memcpy(p, s, n);
  return 0;
}
Result cuMemcpyDtoH(void* d, unsigned long long s, size_t n) {
  if (capture_violation("cuMemcpyDtoH")) return 900;
  unsigned char* p = find(s, n);
  if (!p) return 1;
  std::memcpy(d, p, n);
  return 0;
}
Result cuMemsetD8(unsigned long long d, unsigned char v, size_t n) {
  if (capture_violation("cuMemsetD8")) return 900;
  unsigned char* p = find(d, n);
  if (!p) return 1;
  std::memset(p, v, n);
  return 0;
}
Result cuMemcpyDtoD(unsigned long long d, unsigned long long s, size_t n) {
  if (capture_violation("cuMemcpyDtoD")) return 900;
  unsigned char* dst = find(d, n);
  unsigned char* src = find(s, n);
  if (!dst || !src) return 1;
  std::memmove(dst, src, n);
  return 0;
}
Result cuStreamCreate(cu::Stream* s, unsigned) {
  static uintptr_t next = 7;
  *s = reinterpret_cast<cu::Stream>(next++);
  return 0;
}
Result cuStreamSynchronize(cu::Stream s) {
  if (capture_violation("cuStreamSynchronize")) return 900;
  record("cuStreamSynchronize " + std::to_string(reinterpret_cast<uintptr_t>(s)));
  return 0;
}
Result cuStreamDestroy(cu::Stream s) {
  record("cuStreamDestroy " + std::to_string(reinterpret_cast<uintptr_t>(s)));
  return 0;
}
Result cuEventCreate(cu::Event* e, unsigned) {
  static uintptr_t next = 100;
  *e = reinterpret_cast<cu::Event>(next++);
  return 0;
}
Result cuEventRecord(cu::Event, cu::Stream) { return 0; }
Result cuEventSynchronize(cu::Event) {
  if (capture_violation("cuEventSynchronize")) return 900;
  return 0;
}
Result cuEventElapsedTime(float* ms, cu::Event a, cu::Event b) {
  *ms = static_cast<float>(reinterpret_cast<uintptr_t>(b) - reinterpret_cast<uintptr_t>(a));  // 1 ms per event in between
  return 0;
}
Result cuEventDestroy(cu::Event) { return 0; }

// Graphs: a capture counts the launches issued meanwhile; a graph handle is that count + 1.
Result cuStreamBeginCapture(cu::Stream s, int mode) {
  if (setting("capturing")) return 900;
  record("cuStreamBeginCapture stream " + std::to_string(reinterpret_cast<uintptr_t>(s)) + " mode " + std::to_string(mode));
  std::lock_guard lock(mu);
  settings["capturing"] = 1;
  settings["captured_launches"] = 0;
  return 0;
}
Result cuStreamEndCapture(cu::Stream s, cu::Graph* g) {
  record("cuStreamEndCapture stream " + std::to_string(reinterpret_cast<uintptr_t>(s)));
  std::lock_guard lock(mu);
  settings["capturing"] = 0;
  *g = reinterpret_cast<cu::Graph>(static_cast<uintptr_t>(settings["captured_launches"] + 1));
  return 0;
}
Result cuGraphInstantiateWithFlags(cu::GraphExec* e, cu::Graph g, unsigned long long) {
  record("cuGraphInstantiateWithFlags");
  *e = reinterpret_cast<cu::GraphExec>(g);
  return 0;
}
Result cuGraphGetNodes(cu::Graph g, void**, size_t* n) {
  *n = reinterpret_cast<uintptr_t>(g) - 1;
  return 0;
}
Result cuGraphLaunch(cu::GraphExec e, cu::Stream s) {
  record("cuGraphLaunch nodes " + std::to_string(reinterpret_cast<uintptr_t>(e) - 1) + " stream " +
         std::to_string(reinterpret_cast<uintptr_t>(s)));
  return 0;
}
Result cuGraphExecDestroy(cu::GraphExec) {
  record("cuGraphExecDestroy");
  return 0;
}
Result cuGraphDestroy(cu::Graph) {
  record("cuGraphDestroy");
  return 0;
}

// Tensor maps: the call and its arguments go to the log; the descriptor holds the
// base address in its first 8 bytes (what cuTensorMapReplaceAddress changes).
std::string list(const unsigned long long* v, unsigned n) {
  std::string s;
  for (unsigned i = 0; i < n; ++i) {
    if (i) s += ',';
    s += std::to_string(v[i]);
  }
  return s;
}
std::string list(const unsigned* v, unsigned n) {
  std::string s;
  for (unsigned i = 0; i < n; ++i) {
    if (i) s += ',';
    s += std::to_string(v[i]);
  }
  return s;
}
Result cuTensorMapEncodeTiled(cu::TensorMap* m, int type, unsigned rank, void* addr, const unsigned long long* dims,
                              const unsigned long long* strides, const unsigned* box, const unsigned* estr, int il, int sw,
                              int l2, int oob) {
  if (reinterpret_cast<uintptr_t>(m) % 64) return 1;  // CUDA_ERROR_INVALID_VALUE
  record("cuTensorMapEncodeTiled type=" + std::to_string(type) + " rank=" + std::to_string(rank) + " addr=" +
         std::to_string(reinterpret_cast<uintptr_t>(addr)) + " dims=" + list(dims, rank) + " strides=" + list(strides, rank - 1) +
         " box=" + list(box, rank) + " estr=" + list(estr, rank) + " interleave=" + std::to_string(il) + " swizzle=" +
         std::to_string(sw) + " l2=" + std::to_string(l2) + " oob=" + std::to_string(oob));
  std::memset(m, 0, sizeof *m);
  m->opaque[0] = reinterpret_cast<uintptr_t>(addr);
  m->opaque[1] = 0x7469'6c65'6400ull;  // "tiled"
  return 0;
}
Result cuTensorMapEncodeIm2col(cu::TensorMap* m, int type, unsigned rank, void* addr, const unsigned long long* dims,
                               const unsigned long long* strides, const int* lower, const int* upper, unsigned channels,
                               unsigned pixels, const unsigned* estr, int il, int sw, int l2, int oob) {
  if (reinterpret_cast<uintptr_t>(m) % 64) return 1;
  std::string corners;
  for (unsigned i = 0; i + 2 < rank; ++i) {
    if (i) corners += ',';
    corners += std::to_string(lower[i]);
    corners += ':';
    corners += std::to_string(upper[i]);
  }
  record("cuTensorMapEncodeIm2col type=" + std::to_string(type) + " rank=" + std::to_string(rank) + " dims=" + list(dims, rank) +
         " strides=" + list(strides, rank - 1) + " corners=" + corners + " channels=" + std::to_string(channels) + " pixels=" +
         std::to_string(pixels) + " estr=" + list(estr, rank) + " interleave=" + std::to_string(il) + " swizzle=" +
         std::to_string(sw) + " l2=" + std::to_string(l2) + " oob=" + std::to_string(oob));
  std::memset(m, 0, sizeof *m);
  m->opaque[0] = reinterpret_cast<uintptr_t>(addr);
  return 0;
}
Result cuTensorMapReplaceAddress(cu::TensorMap* m, void* addr) {
  record("cuTensorMapReplaceAddress addr=" + std::to_string(reinterpret_cast<uintptr_t>(addr)));
  m->opaque[0] = reinterpret_cast<uintptr_t>(addr);
  return 0;
}
Result cuGetErrorName(Result r, const char** s) {
  *s = r == 218 ? "CUDA_ERROR_INVALID_PTX" : r == 3 ? "CUDA_ERROR_NOT_INITIALIZED" : "CUDA_ERROR_FAKE";
  return 0;
}
Result cuGetErrorString(Result, const char** s) {
  *s = "reported by the fake driver";
  return 0;
}

}  // namespace

extern "C" {

__attribute__((visibility("default"))) Result cuGetProcAddress_v2(const char* sym, void** pfn, int, uint64_t, int* status) {
  static const std::map<std::string, void*> table = {
#define E(f) {#f, reinterpret_cast<void*>(&f)}
      E(cuInit), E(cuDriverGetVersion), E(cuDeviceGetCount), E(cuDeviceGet), E(cuDeviceGetAttribute), E(cuDeviceGetName),
      E(cuDevicePrimaryCtxRetain), E(cuCtxSetCurrent), E(cuCtxSynchronize), E(cuModuleLoadDataEx), E(cuModuleGetFunction),
      E(cuModuleUnload), E(cuFuncSetAttribute), E(cuLaunchKernelEx), E(cuMemAlloc), E(cuMemFree), E(cuMemcpyHtoD),
      E(cuMemcpyDtoH), E(cuMemsetD8), E(cuMemcpyDtoD), E(cuStreamCreate), E(cuStreamSynchronize), E(cuStreamDestroy), E(cuEventCreate), E(cuEventRecord),
      E(cuEventSynchronize), E(cuEventElapsedTime), E(cuEventDestroy), E(cuGetErrorName), E(cuGetErrorString),
      E(cuTensorMapEncodeTiled), E(cuTensorMapEncodeIm2col), E(cuTensorMapReplaceAddress), E(cuStreamBeginCapture),
      E(cuStreamEndCapture), E(cuGraphInstantiateWithFlags), E(cuGraphGetNodes), E(cuGraphLaunch), E(cuGraphExecDestroy),
      E(cuGraphDestroy),
#undef E
  };
  auto it = table.find(sym);
  if (status) *status = it == table.end() ? 1 : 0;
  if (it == table.end()) return 500;  // CUDA_ERROR_NOT_FOUND
  *pfn = it->second;
  return 0;
}

__attribute__((visibility("default"))) const char* fake_cuda_log() {
  static std::string copy;
  std::lock_guard lock(mu);
  copy = log_text;
  return copy.c_str();
}

__attribute__((visibility("default"))) void fake_cuda_clear_log() {
  std::lock_guard lock(mu);
  log_text.clear();
}

__attribute__((visibility("default"))) unsigned long long fake_cuda_alloc(size_t bytes) {
  unsigned long long p = 0;
  return cuMemAlloc(&p, bytes) == 0 ? p : 0;
}

__attribute__((visibility("default"))) void fake_cuda_set(const char* key, long value) {
  std::lock_guard lock(mu);
  settings[key] = value;
}

}  // extern "C"
