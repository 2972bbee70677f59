// Python kernels on JAX arrays through XLA's typed FFI (compiled when CMake is given
// PTXPP_JAX_INCLUDE, jaxlib's FFI headers): one FFI target, "ptxpp.python_kernel", for
// every Python kernel, with a handler for "cpu" (the emulator) and one for "CUDA" (XLA's
// stream). The checks, the per-(device, shapes) cache of bound kernels and the launch
// are <ptxpp/interop/jax.hpp>'s.
//
// A handler must not call Python (it runs on XLA's threads, without the GIL), and a
// Python kernel's body is Python: so the Python side (ptxpp/_jax_call.py) traces the
// kernel when jax traces the call, for the bindings the arrays' static shapes give,
// once for the CPU and once per GPU target JAX has, and registers the traces here. The
// registry returns an id, which the call passes as the attribute "ptxpp_kernel"; the
// handler looks the entry up and binds (ptx::bind of a finished trace: no Python) and
// launches it. Entries are never removed: a compiled jax function may run any time
// later, and one entry per distinct (kernel, template, bindings, targets) is small.
#include <xla/ffi/api/ffi.h>

#include <deque>
#include <map>
#include <memory>
#include <mutex>
#include <stdexcept>
#include <string>

#include <fmt/format.h>
#include <nanobind/stl/map.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/vector.h>
#include <ptxpp/interop/jax.hpp>

#include "common.hpp"

namespace ptxpy {

namespace {

namespace ffi = ::xla::ffi;
using ptx::jax::detail::Op;

constexpr const char* kKernelAttribute = "ptxpp_kernel";

// One registered kernel: its traces and the op that checks and launches its calls.
struct Registered {
  ptx::Bindings bindings;                                         // the shapes it was traced for
  std::shared_ptr<const ptx::Traced> cpu;                         // run by the emulator
  std::map<std::string, std::shared_ptr<const ptx::Traced>> gpu;  // per device target (Device::arch())
  std::unique_ptr<Op> op;
};

std::string bindings_text(const ptx::Bindings& b) {
  std::string s;
  for (const auto& [k, v] : b) s += fmt::format("{}{}={}", s.empty() ? "" : ", ", k, v);
  return s.empty() ? "no shape variables" : s;
}

// The trace a call on `device` runs, for the bindings the call's shapes gave.
ptx::BoundKernel bind_registered(const Registered& r, const ptx::Device& device, const ptx::Bindings& b) {
  if (b != r.bindings)
    throw std::invalid_argument(
        fmt::format("the kernel was traced for {}, not {} (call it again from Python: "
                    "jax traces it for each shape)",
                    bindings_text(r.bindings), bindings_text(b)));
  if (device.kind() == ptx::DeviceKind::Cpu) return ptx::bind(device, r.cpu);
  const std::string arch = device.arch();
  const auto it = r.gpu.find(arch);
  if (it == r.gpu.end())
    throw std::invalid_argument(
        fmt::format("no trace for GPU {} ({}): the kernel is traced for the GPUs JAX "
                    "has when it traces the call",
                    device.ordinal(), arch));
  return ptx::bind(device, it->second);
}

class Registry {
 public:
  int64_t add(std::unique_ptr<Registered> r) {
    std::lock_guard lock(mu_);
    entries_.push_back(std::move(r));
    return static_cast<int64_t>(entries_.size() - 1);
  }
  Registered* find(int64_t id) const {
    std::lock_guard lock(mu_);
    return id >= 0 && static_cast<size_t>(id) < entries_.size() ? entries_[static_cast<size_t>(id)].get() : nullptr;
  }

 private:
  mutable std::mutex mu_;
  std::deque<std::unique_ptr<Registered>> entries_;
};

// Leaked: XLA may run a handler while the process exits.
Registry& registry() {
  static Registry* r = new Registry;
  return *r;
}

// `arg_names`: the Python function's parameter names, which name unnamed tensors in the
// handler's errors as the Python side's checks name them.
int64_t register_kernel(const ptx::Kernel& kernel, const std::vector<std::string>& arg_names,
                        const ptx::Bindings& bindings, const ptx::Traced& cpu, const nb::dict& gpu) {
  auto r = std::make_unique<Registered>();
  r->bindings = bindings;
  // Copies: the registry keeps no Python objects (the handlers run without the GIL).
  r->cpu = std::make_shared<const ptx::Traced>(cpu);
  for (const auto& [arch, t] : gpu)
    r->gpu.emplace(nb::cast<std::string>(arch), std::make_shared<const ptx::Traced>(nb::cast<const ptx::Traced&>(t)));
  std::vector<ptx::ParamSpec> params = kernel.params();
  for (size_t i = 0; i < params.size() && i < arg_names.size(); ++i)
    if (params[i].name.empty()) params[i].name = arg_names[i];
  const Registered* entry = r.get();
  r->op = std::make_unique<Op>(
      kernel.name(), params,
      [entry](const ptx::Device& d, const std::string&, const ptx::Bindings& b) {
        return bind_registered(*entry, d, b);
      },
      kKernelAttribute, ptx::jax::OpOptions{cpu.target});
  if (!r->op->refused.empty()) throw std::invalid_argument(fmt::format("kernel {}: {}", kernel.name(), r->op->refused));
  return registry().add(std::move(r));
}

// The op a call names (its "ptxpp_kernel" attribute), or null with `why` set.
Op* op_of(const ffi::Dictionary& attrs, ffi::Error& why) {
  const auto id = attrs.get<int64_t>(kKernelAttribute);
  Registered* r = id.has_error() ? nullptr : registry().find(id.value());
  if (!r)
    why =
        ffi::Error::InvalidArgument(fmt::format("ptxpp.python_kernel: the attribute '{}' must be the id of a kernel "
                                                "registered by ptxpp (call kernels on JAX arrays from Python)",
                                                kKernelAttribute));
  return r ? r->op.get() : nullptr;
}

XLA_FFI_Error* cpu_handler(XLA_FFI_CallFrame* frame) {
  static auto* handler = ffi::Ffi::Bind()
                             .RemainingArgs()
                             .RemainingRets()
                             .Attrs<ffi::Dictionary>()
                             .To([](ffi::RemainingArgs args, ffi::RemainingRets rets, ffi::Dictionary attrs) {
                               ffi::Error why = ffi::Error::Success();
                               Op* op = op_of(attrs, why);
                               return op ? ptx::jax::detail::run_cpu(*op, args, rets, attrs) : why;
                             })
                             .release();
  return handler->Call(frame);
}

XLA_FFI_Error* cuda_handler(XLA_FFI_CallFrame* frame) {
  static auto* handler = ffi::Ffi::Bind()
                             .Ctx<ffi::DeviceOrdinal>()
                             .Ctx<ffi::PlatformStream<void*>>()
                             .RemainingArgs()
                             .RemainingRets()
                             .Attrs<ffi::Dictionary>()
                             .To([](int32_t ordinal, void* stream, ffi::RemainingArgs args, ffi::RemainingRets rets,
                                    ffi::Dictionary attrs) {
                               ffi::Error why = ffi::Error::Success();
                               Op* op = op_of(attrs, why);
                               return op ? ptx::jax::detail::run_cuda(*op, ordinal, stream, args, rets, attrs) : why;
                             })
                             .release();
  return handler->Call(frame);
}

// What jax.ffi.register_ffi_target takes: a capsule with no name (as jax.ffi.pycapsule makes).
nb::object capsule(XLA_FFI_Error* (*handler)(XLA_FFI_CallFrame*)) {
  return nb::steal(PyCapsule_New(reinterpret_cast<void*>(handler), nullptr, nullptr));
}

}  // namespace

void bind_jax_ffi(nb::module_& m) {
  m.def(
      "jax_ffi_handlers", [] { return nb::make_tuple(capsule(&cpu_handler), capsule(&cuda_handler)); },
      "(cpu, CUDA): the XLA FFI handlers of the target ptxpp.python_kernel, for jax.ffi.register_ffi_target");
  m.def("jax_ffi_register", &register_kernel, nb::arg("kernel"), nb::arg("arg_names"), nb::arg("bindings"),
        nb::arg("cpu"), nb::arg("gpu"),
        "Registers a kernel's traces for FFI calls: `cpu` for the emulator, `gpu` per device target (Device::arch()); "
        "returns the id calls pass as the attribute ptxpp_kernel. ValueError when no FFI call can drive the kernel");
  m.def(
      "jax_ffi_gpu_arch", [](int ordinal) { return ptx::device::gpu(ordinal).arch(); }, nb::arg("ordinal"),
      "The target of GPU `ordinal` (ptx::Device::arch(): sm_90a for compute capability 9.0)");
}

}  // namespace ptxpy
