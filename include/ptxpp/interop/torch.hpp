// PyTorch custom ops from ptxpp kernels. Header-only: include it in a shared library
// built against libtorch (CMake: ptxpp_add_torch_ops), then load that library from
// Python (`ptxpp.torch.load_library(path)`) and call `torch.ops.NAMESPACE.NAME(...)`.
//
//   TORCH_LIBRARY(my_ops, m) {
//     ptx::torch::def(m, "rmsnorm", [](const std::string& arch) { return rmsnorm(arch); });
//   }
//
// The op's schema comes from the kernel's parameters, in order: each input tensor is a
// `Tensor` argument, each scalar a `float` (f32, f64) or `int` (integer types), and the
// outputs are returned ("rmsnorm(Tensor x, Tensor w, float eps) -> Tensor"). Symbolic
// dimensions are bound from the input tensors' shapes, and outputs are allocated with
// the shapes the bindings give, so the op also has a Meta implementation: shape
// propagation under torch.compile (FakeTensor) and the meta device need no more code.
//
// Dispatch: CUDA tensors launch on the current CUDA stream (the kernel is traced for
// the GPU's target and compiled once; launches are capture-safe, so the op works in
// CUDA graphs); CPU tensors run on the CPU emulator (slow; for tests and machines
// without a GPU). Each op caches the kernel bound per (device, input shapes)
// (interop/bound_cache.hpp): a call that repeats them binds and looks up nothing.
// Wrong dtype, rank, shape, device or layout is an error that names the op and the
// argument.
#pragma once

#include <ATen/core/Tensor.h>
#include <ATen/ops/empty.h>
#include <c10/util/SmallVector.h>
#include <torch/library.h>

#if PTXPP_TORCH_CUDA
#include <c10/cuda/CUDAStream.h>
#endif

#include <array>
#include <cstdio>
#include <cstring>
#include <functional>
#include <limits>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <span>
#include <stdexcept>
#include <string>
#include <vector>

#include "ptxpp/dsl/kernel.hpp"
#include "ptxpp/interop/bound_cache.hpp"
#include "ptxpp/interop/scalars.hpp"
#include "ptxpp/interop/shapes.hpp"
#include "ptxpp/runtime/device.hpp"
#include "ptxpp/runtime/launch.hpp"

namespace ptx::torch {

// The kernel for a target ("sm_90a", ...): traced for the GPU an op runs on.
using KernelFactory = std::function<ptx::Kernel(const std::string& arch)>;

struct OpOptions {
  std::string cpu_arch = "sm_90a";  // the target traced for the CPU emulator
};

namespace detail {

inline std::optional<c10::ScalarType> torch_dtype(DType t) {
  switch (t) {
    case DType::f32: return c10::ScalarType::Float;
    case DType::f64: return c10::ScalarType::Double;
    case DType::f16: return c10::ScalarType::Half;
    case DType::bf16: return c10::ScalarType::BFloat16;
    case DType::s8: return c10::ScalarType::Char;
    case DType::u8: return c10::ScalarType::Byte;
    case DType::s16: return c10::ScalarType::Short;
    case DType::s32: return c10::ScalarType::Int;
    case DType::s64: return c10::ScalarType::Long;
    case DType::u16: return c10::ScalarType::UInt16;
    case DType::u32: return c10::ScalarType::UInt32;
    case DType::u64: return c10::ScalarType::UInt64;
    default: return std::nullopt;
  }
}

inline std::string arg_name(const ParamSpec& p, size_t index) {
  if (!p.name.empty()) return p.name;
  return (p.kind == ParamSpec::Kind::output ? "out" : "in") + std::to_string(index);
}

// One registered op: its kernel per target, what its arguments must be, and the
// kernels bound per (device, input shapes) its calls have met.
struct Op {
  std::string qualified;  // the op's name, for messages
  KernelFactory make;
  OpOptions options;
  std::vector<ParamSpec> params;  // the kernel's, in order
  std::vector<std::string> names;  // schema names, per param
  size_t arguments = 0;            // inputs + scalars
  size_t outputs = 0;

  std::mutex mu;
  std::map<std::string, ptx::Kernel> kernels;  // per target
  interop::BoundCache bound;
  std::once_flag enrolled;  // in ops_by_name(), at the first call (that knows the namespace)

  const ptx::Kernel& kernel(const std::string& arch) {
    std::lock_guard lock(mu);
    auto it = kernels.find(arch);
    if (it == kernels.end()) it = kernels.emplace(arch, make(arch)).first;
    return it->second;
  }

  [[noreturn]] void fail(const std::string& what) const { TORCH_CHECK(false, qualified, ": ", what); }
};

// The ops that have been called, by qualified name ("ns::name"), for cache statistics.
inline std::map<std::string, std::weak_ptr<Op>>& ops_by_name(std::mutex*& mu) {
  static std::mutex lock;
  static std::map<std::string, std::weak_ptr<Op>> ops;
  mu = &lock;
  return ops;
}

// The checked arguments of one call (views of the stack: no allocation for up to 8
// tensors, 8 scalars and 16 dimensions).
struct Call {
  c10::SmallVector<const at::Tensor*, 8> inputs;         // per input param, in order
  c10::SmallVector<interop::ScalarBytes, 8> scalars;     // per scalar param, in order
  c10::SmallVector<int64_t, 16> dims;                    // every input's sizes, in order
  c10::Device device{c10::DeviceType::CPU};
};

// Checks what a call's arguments are (tensor or scalar, device, dtype, rank, layout,
// scalar range) and gathers them; their shapes are bound in bound_for.
inline void check_call(const Op& op, std::span<const c10::IValue> args, Call& call) {
  size_t first_tensor = 0;
  bool have_tensor = false;
  size_t a = 0;
  for (size_t i = 0; i < op.params.size(); ++i) {
    const ParamSpec& p = op.params[i];
    if (p.kind == ParamSpec::Kind::output) continue;
    const c10::IValue& v = args[a++];
    if (p.kind == ParamSpec::Kind::scalar) {
      const interop::ScalarValue value = interop::float_scalar(p.dtype) ? interop::ScalarValue::of_float(v.toDouble())
                                                                        : interop::ScalarValue::of_int(v.toInt());
      call.scalars.emplace_back();
      if (auto error = interop::pack_scalar(p.dtype, value, "argument", op.names[i], call.scalars.back())) op.fail(*error);
      continue;
    }
    // an input tensor
    const std::string& name = op.names[i];
    if (!v.isTensor()) op.fail("argument '" + name + "' must be a tensor");
    const at::Tensor& t = v.toTensor();
    if (!have_tensor) {
      have_tensor = true;
      first_tensor = i;
      call.device = t.device();
    } else if (t.device() != call.device) {
      op.fail("argument '" + name + "' is on " + t.device().str() + ", but '" + op.names[first_tensor] + "' is on " +
              call.device.str());
    }
    const c10::ScalarType want = *torch_dtype(p.spec.dtype);
    if (t.scalar_type() != want)
      op.fail("argument '" + name + "' must be a " + std::string(c10::toString(want)) + " tensor, not " + c10::toString(t.scalar_type()));
    if (t.dim() != static_cast<int64_t>(p.spec.shape.size()))
      op.fail("argument '" + name + "' must have " + std::to_string(p.spec.shape.size()) + " dimensions, not " + std::to_string(t.dim()));
    if (p.spec.strides.empty() && !t.is_contiguous())
      op.fail("argument '" + name + "' must be contiguous (call .contiguous() on it)");
    call.dims.append(t.sizes().begin(), t.sizes().end());
    call.inputs.push_back(&t);
  }
}

enum class Where { cpu, cuda, meta };

// The kernel bound for this call's device and input shapes, and its outputs' shapes:
// from the op's cache, else made (binding the symbolic dimensions, which checks the
// shapes; tracing and loading the kernel) and cached.
inline std::shared_ptr<const interop::BoundCall> bound_for(Op& op, Where where, const Call& call) {
  const int key = where == Where::meta ? interop::kMetaKey : where == Where::cpu ? interop::kCpuKey : call.device.index();
  const std::span<const int64_t> dims(call.dims.data(), call.dims.size());
  if (auto hit = op.bound.find(key, dims)) return hit;
  interop::ShapeBinder shapes;
  size_t d = 0;
  for (size_t i = 0; i < op.params.size(); ++i) {
    const ParamSpec& p = op.params[i];
    if (p.kind != ParamSpec::Kind::input) continue;
    if (auto error = shapes.bind(p.spec, op.names[i], dims.subspan(d, p.spec.shape.size()))) op.fail(*error);
    d += p.spec.shape.size();
  }
  interop::BoundCall made;
  for (const ParamSpec& p : op.params)
    if (p.kind == ParamSpec::Kind::output) made.output_shapes.push_back(shapes.shape_of(p.spec));
  std::string error;
  try {
    if (where == Where::cpu) {
      made.device = ptx::device::cpu();
      made.kernel = ptx::bind(made.device, op.kernel(op.options.cpu_arch), shapes.bindings());
    } else if (where == Where::cuda) {
      made.device = ptx::device::gpu(call.device.index());
      made.kernel = ptx::bind(made.device, op.kernel(made.device.arch()), shapes.bindings());
    }
  } catch (const std::exception& e) {
    error = e.what();
  }
  if (!error.empty()) op.fail(error);
  return op.bound.insert(key, dims, std::move(made));
}

inline std::vector<at::Tensor> allocate_outputs(const Op& op, const interop::BoundCall& bound, c10::Device device) {
  std::vector<at::Tensor> out;
  out.reserve(op.outputs);
  size_t o = 0;
  for (const ParamSpec& p : op.params)
    if (p.kind == ParamSpec::Kind::output)
      out.push_back(at::empty(bound.output_shapes[o++], at::TensorOptions().dtype(*torch_dtype(p.spec.dtype)).device(device)));
  return out;
}

// The launch arguments in parameter order: pointers from `pointer(input or output index)`.
template <class PointerOf>
void launch(const Op& op, const Call& call, const ptx::BoundKernel& kernel, const ptx::Stream* stream, PointerOf pointer) {
  // per thread, reused: no allocation once grown
  thread_local std::vector<ptx::DevicePtr> ptrs;
  thread_local std::vector<LaunchArg> args;
  ptrs.clear();
  args.clear();
  ptrs.reserve(op.params.size());  // the args view them: no reallocation
  size_t tensor = 0, scalar = 0;
  for (const ParamSpec& p : op.params) {
    if (p.kind == ParamSpec::Kind::scalar) {
      args.push_back(interop::scalar_arg(p.dtype, call.scalars[scalar++]));
    } else {
      ptrs.push_back(pointer(tensor++));
      args.push_back(launch_arg(ptrs.back()));
    }
  }
  kernel.launch(args, stream);
}

inline size_t bytes_of(const at::Tensor& t) { return static_cast<size_t>(t.numel()) * t.element_size(); }

struct Boxed final : c10::OperatorKernel {
  std::shared_ptr<Op> op;
  Where where;
  Boxed(std::shared_ptr<Op> o, Where w) : op(std::move(o)), where(w) {}

  void operator()(const c10::OperatorHandle& handle, c10::DispatchKeySet, ::torch::jit::Stack* stack) {
    std::call_once(op->enrolled, [&] {
      std::mutex* mu = nullptr;
      auto& ops = ops_by_name(mu);
      std::lock_guard lock(*mu);
      ops[handle.operator_name().name] = op;
    });
    const auto n = static_cast<std::ptrdiff_t>(op->arguments);
    Call call;
    check_call(*op, std::span<const c10::IValue>(stack->data() + (stack->size() - op->arguments), op->arguments), call);
#if !PTXPP_TORCH_CUDA
    if (where == Where::cuda) op->fail("this library was built without CUDA support (no CUDA toolkit headers at build time)");
#endif
    const std::shared_ptr<const interop::BoundCall> bound = bound_for(*op, where, call);
    std::vector<at::Tensor> outputs = allocate_outputs(*op, *bound, call.device);
    if (where == Where::cuda) run_cuda(call, *bound, outputs);
    if (where == Where::cpu) run_cpu(call, *bound, outputs);
    call.inputs.clear();  // views of the stack, which loses them now
    stack->erase(stack->end() - n, stack->end());
    for (at::Tensor& t : outputs) stack->emplace_back(std::move(t));
  }

  void run_cuda([[maybe_unused]] const Call& call, [[maybe_unused]] const interop::BoundCall& bound,
                [[maybe_unused]] std::vector<at::Tensor>& outputs) {
#if PTXPP_TORCH_CUDA
    const ptx::Device& dev = bound.device;
    const ptx::Stream stream =
        dev.wrap_stream(c10::cuda::getCurrentCUDAStream(static_cast<c10::DeviceIndex>(call.device.index())).stream());
    launch(*op, call, bound.kernel, &stream, [&](size_t i) {
      const at::Tensor& t = i < call.inputs.size() ? *call.inputs[i] : outputs[i - call.inputs.size()];
      return dev.wrap_pointer(t.data_ptr());
    });
#endif
  }

  void run_cpu(const Call& call, const interop::BoundCall& bound, std::vector<at::Tensor>& outputs) {
    const ptx::Device& cpu = bound.device;
    std::vector<ptx::DevicePtr> buffers;
    auto release = [&] {
      for (const ptx::DevicePtr& p : buffers) cpu.free(p);
    };
    try {
      for (const at::Tensor* t : call.inputs) {
        buffers.push_back(cpu.alloc(std::max<size_t>(bytes_of(*t), 1)));
        cpu.copy_to_device(buffers.back(), t->data_ptr(), bytes_of(*t));
      }
      for (const at::Tensor& t : outputs) buffers.push_back(cpu.alloc(std::max<size_t>(bytes_of(t), 1)));
      launch(*op, call, bound.kernel, nullptr, [&](size_t i) { return buffers[i]; });
      for (size_t o = 0; o < outputs.size(); ++o)
        cpu.copy_to_host(outputs[o].data_ptr(), buffers[call.inputs.size() + o], bytes_of(outputs[o]));
    } catch (const std::exception& e) {
      release();
      op->fail(e.what());
    }
    release();
  }
};

}  // namespace detail

// "name(Tensor x, Tensor w, float eps) -> Tensor": the op's schema for `kernel`.
inline std::string schema(const std::string& name, const ptx::Kernel& kernel) {
  std::string args, rets;
  size_t in = 0, out = 0, outputs = 0;
  const std::vector<ParamSpec> params = kernel.params();
  for (const ParamSpec& p : params) outputs += p.kind == ParamSpec::Kind::output;
  for (const ParamSpec& p : params) {
    const std::string where = "torch op " + name + ": kernel parameter " + (p.name.empty() ? "(unnamed)" : "'" + p.name + "'");
    switch (p.kind) {
      case ParamSpec::Kind::tensor_map:
        throw std::invalid_argument(where + " is a tensor map: torch ops take tensors and scalars");
      case ParamSpec::Kind::scalar:
        if (!interop::float_scalar(p.dtype) && !interop::integer_scalar(p.dtype))
          throw std::invalid_argument(where + " is a " + std::string(ptx::name(p.dtype)) +
                                      " scalar: torch ops take f32, f64 and integer scalars");
        args += (args.empty() ? "" : ", ") + std::string(interop::float_scalar(p.dtype) ? "float " : "int ") + p.name;
        break;
      case ParamSpec::Kind::input:
        if (!detail::torch_dtype(p.spec.dtype))
          throw std::invalid_argument(where + " has element type " + std::string(ptx::name(p.spec.dtype)) + ", which torch has not");
        args += (args.empty() ? "" : ", ") + std::string("Tensor ") + detail::arg_name(p, in++);
        break;
      case ParamSpec::Kind::output:
        if (!detail::torch_dtype(p.spec.dtype))
          throw std::invalid_argument(where + " has element type " + std::string(ptx::name(p.spec.dtype)) + ", which torch has not");
        rets += (rets.empty() ? "" : ", ") + std::string("Tensor");
        if (!p.name.empty() && outputs > 1) rets += " " + p.name;
        ++out;
        break;
    }
  }
  return name + "(" + args + ") -> " + (out == 1 ? rets : "(" + rets + ")");
}

namespace detail {

// An op that could not be defined: calling it raises the reason (an exception while a
// library loads would end the Python process).
struct Refused final : c10::OperatorKernel {
  std::string reason;
  explicit Refused(std::string r) : reason(std::move(r)) {}
  void operator()(const c10::OperatorHandle&, c10::DispatchKeySet, ::torch::jit::Stack*) { TORCH_CHECK(false, reason); }
};

inline std::shared_ptr<Op> make_op(const std::string& name, KernelFactory make, OpOptions options, std::string& signature) {
  auto op = std::make_shared<Op>();
  const ptx::Kernel probe = make(options.cpu_arch);
  op->qualified = name;
  op->make = std::move(make);
  op->options = std::move(options);
  op->params = probe.params();
  size_t in = 0;
  for (const ParamSpec& p : op->params) {
    op->names.push_back(p.kind == ParamSpec::Kind::scalar ? p.name : arg_name(p, p.kind == ParamSpec::Kind::input ? in : 0));
    if (p.kind == ParamSpec::Kind::input) ++in;
    if (p.kind != ParamSpec::Kind::output) ++op->arguments;
    if (p.kind == ParamSpec::Kind::output) ++op->outputs;
  }
  interop::check_outputs_are_sized(op->params, "torch op " + name + ": ");
  signature = schema(name, probe);
  return op;
}

}  // namespace detail

// Defines the op `name` in library `m` with CPU (emulator), CUDA and Meta kernels.
// A kernel no torch op can call (tensor-map parameters, scalar or element types torch
// lacks, an output dimension no input determines, a factory that throws) still
// defines `name`, as `name(...) -> ()`: loading the library prints the reason to
// stderr, and calling the op raises it (with arguments, torch's schema error shows the
// placeholder declaration first).
inline void def(::torch::Library& m, const std::string& name, KernelFactory make, OpOptions options = {}) {
  using ::torch::CppFunction;
  std::shared_ptr<detail::Op> op;
  std::string signature;
  try {
    op = detail::make_op(name, std::move(make), std::move(options), signature);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "ptxpp: %s\n", e.what());
    m.def((name + "(...) -> ()").c_str(),
          CppFunction::makeFromBoxedFunctor(std::make_unique<detail::Refused>(e.what())));
    return;
  }
  m.def(signature.c_str());
  m.impl(name.c_str(), ::torch::dispatch(c10::DispatchKey::CPU,
                                         CppFunction::makeFromBoxedFunctor(std::make_unique<detail::Boxed>(op, detail::Where::cpu))));
  m.impl(name.c_str(), ::torch::dispatch(c10::DispatchKey::CUDA,
                                         CppFunction::makeFromBoxedFunctor(std::make_unique<detail::Boxed>(op, detail::Where::cuda))));
  m.impl(name.c_str(), ::torch::dispatch(c10::DispatchKey::Meta,
                                         CppFunction::makeFromBoxedFunctor(std::make_unique<detail::Boxed>(op, detail::Where::meta))));
}

// The hits and misses of the cache of bound kernels of op `qualified` ("ns::name"):
// a call whose device and input shapes an earlier call had is a hit. Zeros for an op
// not yet called.
inline interop::BoundCache::Stats cache_stats(const std::string& qualified) {
  std::mutex* mu = nullptr;
  auto& ops = detail::ops_by_name(mu);
  std::lock_guard lock(*mu);
  auto it = ops.find(qualified);
  if (it == ops.end()) return {};
  const std::shared_ptr<detail::Op> op = it->second.lock();
  return op ? op->bound.stats() : interop::BoundCache::Stats{};
}

}  // namespace ptx::torch

// cache_stats for Python (ptxpp.torch.cache_stats, through ctypes): 1 when the op has been called.
extern "C" __attribute__((visibility("default"), used)) inline int ptxpp_torch_cache_stats(const char* qualified,
                                                                                         uint64_t* hits, uint64_t* misses) {
  const auto stats = ptx::torch::cache_stats(qualified);
  *hits = stats.hits;
  *misses = stats.misses;
  return stats.hits + stats.misses > 0;
}
