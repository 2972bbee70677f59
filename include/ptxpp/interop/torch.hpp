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
// without a GPU). Wrong dtype, rank, shape, device or layout is an error that names
// the op and the argument.
#pragma once

#include <ATen/core/Tensor.h>
#include <ATen/ops/empty.h>
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
#include <stdexcept>
#include <string>
#include <vector>

#include "ptxpp/dsl/kernel.hpp"
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

inline bool float_scalar(DType t) { return t == DType::f32 || t == DType::f64; }
inline bool integer_scalar(DType t) {
  switch (t) {
    case DType::s8: case DType::s16: case DType::s32: case DType::s64:
    case DType::u8: case DType::u16: case DType::u32: case DType::u64: return true;
    default: return false;
  }
}

inline std::string arg_name(const ParamSpec& p, size_t index) {
  if (!p.name.empty()) return p.name;
  return (p.kind == ParamSpec::Kind::output ? "out" : "in") + std::to_string(index);
}

// One registered op: its kernel per target, and what its arguments must be.
struct Op {
  std::string qualified;  // the op's name, for messages
  KernelFactory make;
  OpOptions options;
  std::vector<ParamSpec> params;  // the kernel's, in order
  std::vector<std::string> names;  // schema names, per param
  size_t arguments = 0;            // inputs + scalars

  std::mutex mu;
  std::map<std::string, ptx::Kernel> kernels;  // per target

  const ptx::Kernel& kernel(const std::string& arch) {
    std::lock_guard lock(mu);
    auto it = kernels.find(arch);
    if (it == kernels.end()) it = kernels.emplace(arch, make(arch)).first;
    return it->second;
  }

  [[noreturn]] void fail(const std::string& what) const { TORCH_CHECK(false, qualified, ": ", what); }
};

// The checked arguments of one call: the input tensors, the scalars' bytes, the
// bindings of the symbolic dimensions, and the outputs' shapes.
struct Call {
  std::vector<at::Tensor> inputs;                 // per input param, in order
  std::vector<std::array<uint8_t, 8>> scalars;    // per scalar param, in order
  ptx::Bindings bindings;
  std::vector<std::vector<int64_t>> output_shapes;
  c10::Device device{c10::DeviceType::CPU};
};

inline Call check_call(const Op& op, const std::vector<c10::IValue>& args) {
  Call call;
  std::optional<std::string> first_tensor;
  interop::ShapeBinder shapes;
  size_t a = 0;
  for (size_t i = 0; i < op.params.size(); ++i) {
    const ParamSpec& p = op.params[i];
    const std::string& name = op.names[i];
    if (p.kind == ParamSpec::Kind::output) continue;
    const c10::IValue& v = args.at(a++);
    if (p.kind == ParamSpec::Kind::scalar) {
      std::array<uint8_t, 8> bytes{};
      if (float_scalar(p.dtype)) {
        const double d = v.toDouble();
        if (p.dtype == DType::f32) {
          const float f = static_cast<float>(d);
          std::memcpy(bytes.data(), &f, 4);
        } else {
          std::memcpy(bytes.data(), &d, 8);
        }
      } else {
        const int64_t n = v.toInt();
        const size_t size = ptx::bits(p.dtype) / 8u;
        const bool is_signed = p.dtype == DType::s8 || p.dtype == DType::s16 || p.dtype == DType::s32 || p.dtype == DType::s64;
        bool fits = true;
        if (size < 8) {
          const int64_t lo = is_signed ? -(int64_t{1} << (size * 8 - 1)) : 0;
          const int64_t hi = is_signed ? (int64_t{1} << (size * 8 - 1)) - 1 : (int64_t{1} << (size * 8)) - 1;
          fits = n >= lo && n <= hi;
        } else if (!is_signed) {
          fits = n >= 0;
        }
        if (!fits) op.fail("argument '" + name + "': " + std::to_string(n) + " does not fit a " + std::string(ptx::name(p.dtype)));
        std::memcpy(bytes.data(), &n, size);  // little-endian: the low bytes
      }
      call.scalars.push_back(bytes);
      continue;
    }
    // an input tensor
    if (!v.isTensor()) op.fail("argument '" + name + "' must be a tensor");
    const at::Tensor& t = v.toTensor();
    if (!first_tensor) {
      first_tensor = name;
      call.device = t.device();
    } else if (t.device() != call.device) {
      op.fail("argument '" + name + "' is on " + t.device().str() + ", but '" + *first_tensor + "' is on " + call.device.str());
    }
    const c10::ScalarType want = *torch_dtype(p.spec.dtype);
    if (t.scalar_type() != want)
      op.fail("argument '" + name + "' must be a " + std::string(c10::toString(want)) + " tensor, not " + c10::toString(t.scalar_type()));
    if (t.dim() != static_cast<int64_t>(p.spec.shape.size()))
      op.fail("argument '" + name + "' must have " + std::to_string(p.spec.shape.size()) + " dimensions, not " + std::to_string(t.dim()));
    if (auto error = shapes.bind(p.spec, name, std::span<const int64_t>(t.sizes().data(), t.sizes().size()))) op.fail(*error);
    if (p.spec.strides.empty() && !t.is_contiguous())
      op.fail("argument '" + name + "' must be contiguous (call .contiguous() on it)");
    call.inputs.push_back(t);
  }
  for (const ParamSpec& p : op.params)
    if (p.kind == ParamSpec::Kind::output) call.output_shapes.push_back(shapes.shape_of(p.spec));
  call.bindings = shapes.bindings();
  return call;
}

inline std::vector<at::Tensor> allocate_outputs(const Op& op, const Call& call, c10::Device device) {
  std::vector<at::Tensor> out;
  size_t o = 0;
  for (const ParamSpec& p : op.params)
    if (p.kind == ParamSpec::Kind::output)
      out.push_back(at::empty(call.output_shapes[o++], at::TensorOptions().dtype(*torch_dtype(p.spec.dtype)).device(device)));
  return out;
}

// The launch arguments in parameter order: pointers from `pointer(input or output index)`.
template <class PointerOf>
void launch(const Op& op, const Call& call, const ptx::BoundKernel& kernel, const ptx::Stream* stream, PointerOf pointer) {
  std::vector<ptx::DevicePtr> ptrs;
  ptrs.reserve(op.params.size());
  std::vector<LaunchArg> args;
  size_t tensor = 0, scalar = 0;
  for (const ParamSpec& p : op.params) {
    if (p.kind == ParamSpec::Kind::scalar) {
      const auto& bytes = call.scalars[scalar++];
      args.push_back(LaunchArg{false, p.dtype, static_cast<uint8_t>(ptx::bits(p.dtype) / 8u), bytes.data(), nullptr, false});
    } else {
      ptrs.push_back(pointer(tensor++));
      args.push_back(launch_arg(ptrs.back()));
    }
  }
  kernel.launch(args, stream);
}

inline size_t bytes_of(const at::Tensor& t) { return static_cast<size_t>(t.numel()) * t.element_size(); }

enum class Where { cpu, cuda, meta };

struct Boxed final : c10::OperatorKernel {
  std::shared_ptr<Op> op;
  Where where;
  Boxed(std::shared_ptr<Op> o, Where w) : op(std::move(o)), where(w) {}

  void operator()(const c10::OperatorHandle&, c10::DispatchKeySet, ::torch::jit::Stack* stack) {
    std::vector<c10::IValue> args(stack->end() - static_cast<std::ptrdiff_t>(op->arguments), stack->end());
    const Call call = check_call(*op, args);
    std::vector<at::Tensor> outputs = allocate_outputs(*op, call, call.device);
    if (where == Where::cuda) run_cuda(call, outputs);
    if (where == Where::cpu) run_cpu(call, outputs);
    stack->erase(stack->end() - static_cast<std::ptrdiff_t>(op->arguments), stack->end());
    for (at::Tensor& t : outputs) stack->emplace_back(std::move(t));
  }

  void run_cuda([[maybe_unused]] const Call& call, [[maybe_unused]] std::vector<at::Tensor>& outputs) {
#if PTXPP_TORCH_CUDA
    const int index = call.device.index();
    const ptx::Device dev = ptx::device::gpu(index);
    const ptx::BoundKernel kernel = ptx::bind(dev, op->kernel(dev.arch()), call.bindings);
    const ptx::Stream stream = dev.wrap_stream(c10::cuda::getCurrentCUDAStream(static_cast<c10::DeviceIndex>(index)).stream());
    launch(*op, call, kernel, &stream, [&](size_t i) {
      const at::Tensor& t = i < call.inputs.size() ? call.inputs[i] : outputs[i - call.inputs.size()];
      return dev.wrap_pointer(t.data_ptr());
    });
#else
    op->fail("this library was built without CUDA support (no CUDA toolkit headers at build time)");
#endif
  }

  void run_cpu(const Call& call, std::vector<at::Tensor>& outputs) {
    static const ptx::Device cpu = ptx::device::cpu();
    const ptx::BoundKernel kernel = ptx::bind(cpu, op->kernel(op->options.cpu_arch), call.bindings);
    std::vector<ptx::DevicePtr> buffers;
    auto release = [&] {
      for (const ptx::DevicePtr& p : buffers) cpu.free(p);
    };
    try {
      for (const at::Tensor& t : call.inputs) {
        buffers.push_back(cpu.alloc(std::max<size_t>(bytes_of(t), 1)));
        cpu.copy_to_device(buffers.back(), t.data_ptr(), bytes_of(t));
      }
      for (const at::Tensor& t : outputs) buffers.push_back(cpu.alloc(std::max<size_t>(bytes_of(t), 1)));
      launch(*op, call, kernel, nullptr, [&](size_t i) { return buffers[i]; });
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
        if (!detail::float_scalar(p.dtype) && !detail::integer_scalar(p.dtype))
          throw std::invalid_argument(where + " is a " + std::string(ptx::name(p.dtype)) +
                                      " scalar: torch ops take f32, f64 and integer scalars");
        args += (args.empty() ? "" : ", ") + std::string(detail::float_scalar(p.dtype) ? "float " : "int ") + p.name;
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

}  // namespace ptx::torch
