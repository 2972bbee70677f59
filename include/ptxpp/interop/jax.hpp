// JAX custom calls from ptxpp kernels, through XLA's typed FFI. Header-only: include it
// in a shared library built against jaxlib's FFI headers (CMake: ptxpp_add_jax_ops),
// then load that library from Python (`ptxpp.jax.load_library(path)`) and call its ops
// inside or outside jax.jit.
//
//   PTXPP_JAX_HANDLER(rmsnorm, examples::rmsnorm)   // a factory: the kernel for a target
//
// defines, with C linkage:
//   XLA_FFI_Error* rmsnorm_cpu(XLA_FFI_CallFrame*)   the handler for platform "cpu"
//   XLA_FFI_Error* rmsnorm_cuda(XLA_FFI_CallFrame*)  the handler for platform "CUDA"
// and adds the op to the library's list, `ptxpp_jax_ops()` (a JSON text: per op its
// symbol and its parameters, which the Python side reads to check arguments and to
// size the outputs; see docs/interop.md).
//
// One binding serves every kernel: the handlers take the FFI's remaining arguments
// (the input arrays, in the kernel's order), remaining results (the outputs) and the
// attributes as a dictionary (the scalars, by name). The kernel's parameter list says
// what they must be: the symbolic dimensions are bound from the inputs' dimensions,
// outputs must have the shapes the bindings give, and a wrong count, dtype, rank or
// dimension, a missing or ill-typed attribute, or a DSL error is an ffi::Error naming
// the op and the argument (never an exception through XLA).
//
// CUDA: the kernel is traced for the GPU's target, compiled once per shape and device,
// and launched on the stream XLA gives (Device::wrap_stream, wrap_pointer: no
// allocation, synchronization or module load after the first call). The stream is
// taken as a plain pointer, so the handler needs no CUDA headers. CPU: the kernel runs
// on the ptxpp CPU emulator (inputs copied in, outputs copied out; for tests and
// machines without a GPU).
#pragma once

#include <xla/ffi/api/ffi.h>

#include <algorithm>
#include <array>
#include <cstdint>
#include <cstring>
#include <exception>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <set>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "ptxpp/dsl/kernel.hpp"
#include "ptxpp/interop/shapes.hpp"
#include "ptxpp/runtime/device.hpp"
#include "ptxpp/runtime/launch.hpp"

namespace ptx::jax {

namespace ffi = ::xla::ffi;

// The kernel for a target ("sm_90a", ...): traced for the GPU an op runs on.
using KernelFactory = std::function<ptx::Kernel(const std::string& arch)>;

struct OpOptions {
  std::string cpu_arch = "sm_90a";  // the target traced for the CPU emulator
};

namespace detail {

inline std::optional<ffi::DataType> ffi_dtype(DType t) {
  switch (t) {
    case DType::f32:
      return ffi::DataType::F32;
    case DType::f64:
      return ffi::DataType::F64;
    case DType::f16:
      return ffi::DataType::F16;
    case DType::bf16:
      return ffi::DataType::BF16;
    case DType::s8:
      return ffi::DataType::S8;
    case DType::s16:
      return ffi::DataType::S16;
    case DType::s32:
      return ffi::DataType::S32;
    case DType::s64:
      return ffi::DataType::S64;
    case DType::u8:
      return ffi::DataType::U8;
    case DType::u16:
      return ffi::DataType::U16;
    case DType::u32:
      return ffi::DataType::U32;
    case DType::u64:
      return ffi::DataType::U64;
    default:
      return std::nullopt;
  }
}

// numpy's names, as JAX users read them.
inline std::string dtype_name(ffi::DataType t) {
  switch (t) {
    case ffi::DataType::PRED:
      return "bool";
    case ffi::DataType::F32:
      return "float32";
    case ffi::DataType::F64:
      return "float64";
    case ffi::DataType::F16:
      return "float16";
    case ffi::DataType::BF16:
      return "bfloat16";
    case ffi::DataType::S8:
      return "int8";
    case ffi::DataType::S16:
      return "int16";
    case ffi::DataType::S32:
      return "int32";
    case ffi::DataType::S64:
      return "int64";
    case ffi::DataType::U8:
      return "uint8";
    case ffi::DataType::U16:
      return "uint16";
    case ffi::DataType::U32:
      return "uint32";
    case ffi::DataType::U64:
      return "uint64";
    case ffi::DataType::C64:
      return "complex64";
    case ffi::DataType::C128:
      return "complex128";
    default:
      return "dtype " + std::to_string(static_cast<int>(t));
  }
}

// "f32" (ptx::name without its dot).
inline std::string type_name(DType t) {
  const std::string_view n = ptx::name(t);
  return std::string(n.substr(!n.empty() && n[0] == '.' ? 1 : 0));
}

inline bool float_scalar(DType t) { return t == DType::f32 || t == DType::f64; }
inline bool signed_integer(DType t) { return t == DType::s8 || t == DType::s16 || t == DType::s32 || t == DType::s64; }
inline bool integer_scalar(DType t) {
  return signed_integer(t) || t == DType::u8 || t == DType::u16 || t == DType::u32 || t == DType::u64;
}

inline std::string shape_text(ffi::Span<const int64_t> dims) {
  std::string s = "(";
  for (size_t i = 0; i < dims.size(); ++i) s += (i ? ", " : "") + std::to_string(dims[i]);
  return s + (dims.size() == 1 ? ",)" : ")");
}
inline std::string shape_text(const std::vector<int64_t>& dims) {
  return shape_text(ffi::Span<const int64_t>(dims.data(), dims.size()));
}

inline std::string json_string(std::string_view s) {
  std::string out = "\"";
  for (char c : s) {
    if (c == '"' || c == '\\') out += '\\';
    if (static_cast<unsigned char>(c) < 0x20) {
      out += ' ';
      continue;
    }
    out += c;
  }
  return out + "\"";
}

// One op: its kernel per target, and what its arguments must be. `refused` says why no
// call can run (a kernel no FFI call can drive); the library still loads.
struct Op {
  std::string name;  // the handler's symbol
  KernelFactory make;
  OpOptions options;
  std::string refused;
  std::vector<ParamSpec> params;   // the kernel's, in order
  std::vector<std::string> names;  // per param: in0.., out0.. when unnamed
  size_t inputs = 0, outputs = 0, scalars = 0;
  std::string signature;  // JSON, for the Python side

  std::mutex mu;
  std::map<std::string, ptx::Kernel> kernels;  // per target

  Op(std::string symbol, KernelFactory factory, OpOptions opts = {})
      : name(std::move(symbol)), make(std::move(factory)), options(std::move(opts)) {
    try {
      describe(kernel(options.cpu_arch));
    } catch (const std::exception& e) {
      refused = e.what();
    }
    signature = json();
  }

  const ptx::Kernel& kernel(const std::string& arch) {
    std::lock_guard lock(mu);
    auto it = kernels.find(arch);
    if (it == kernels.end()) it = kernels.emplace(arch, make(arch)).first;
    return it->second;
  }

  ffi::Error error(const std::string& what) const { return ffi::Error::InvalidArgument(name + ": " + what); }

 private:
  void describe(const ptx::Kernel& probe) {
    params = probe.params();
    for (const ParamSpec& p : params) {
      const std::string where = "kernel parameter " + (p.name.empty() ? "(unnamed)" : "'" + p.name + "'");
      switch (p.kind) {
        case ParamSpec::Kind::tensor_map:
          throw std::invalid_argument(where + " is a tensor map: FFI calls take arrays and scalars");
        case ParamSpec::Kind::scalar:
          if (!float_scalar(p.dtype) && !integer_scalar(p.dtype))
            throw std::invalid_argument(where + " is a " + type_name(p.dtype) +
                                        " scalar: FFI calls take f32, f64 and integer scalars");
          names.push_back(p.name);
          ++scalars;
          break;
        case ParamSpec::Kind::input:
        case ParamSpec::Kind::output: {
          const bool in = p.kind == ParamSpec::Kind::input;
          if (!ffi_dtype(p.spec.dtype))
            throw std::invalid_argument(where + " has element type " + type_name(p.spec.dtype) + ", which XLA has not");
          if (!p.spec.strides.empty())
            throw std::invalid_argument(where + " has explicit strides: XLA passes dense row-major arrays");
          names.push_back(!p.name.empty() ? p.name : (in ? "in" : "out") + std::to_string(in ? inputs : outputs));
          if (in) {
            ++inputs;
          } else {
            ++outputs;
          }
          break;
        }
      }
    }
    interop::check_outputs_are_sized(params, "");
  }

  std::string json() const {
    std::string s = "{\"name\": " + json_string(name);
    if (!refused.empty()) return s + ", \"error\": " + json_string(name + ": " + refused) + "}";
    s += ", \"params\": [";
    for (size_t i = 0; i < params.size(); ++i) {
      const ParamSpec& p = params[i];
      const char* kind = p.kind == ParamSpec::Kind::input    ? "input"
                         : p.kind == ParamSpec::Kind::output ? "output"
                                                             : "scalar";
      s += std::string(i ? ", " : "") + "{\"kind\": \"" + kind + "\", \"name\": " + json_string(names[i]);
      if (p.kind == ParamSpec::Kind::scalar) {
        s += ", \"dtype\": \"" + type_name(p.dtype) + "\"}";
        continue;
      }
      s += ", \"dtype\": \"" + type_name(p.spec.dtype) + "\", \"shape\": [";
      for (size_t d = 0; d < p.spec.shape.size(); ++d) {
        const Dim& dim = p.spec.shape[d];
        s += (d ? ", " : "") + (dim.symbolic() ? json_string(dim.symbol) : std::to_string(dim.value));
      }
      s += "]}";
    }
    return s + "]}";
  }
};

// One checked call: the buffers' addresses and sizes, the scalars' bytes, the bindings.
struct Call {
  std::vector<void*> data;                      // inputs then outputs, in parameter order
  std::vector<size_t> bytes;                    // the same
  std::vector<std::array<uint8_t, 8>> scalars;  // per scalar param, in order
  ptx::Bindings bindings;
};

// A scalar attribute of any numeric type, as a double or an int64 (which one it is).
struct Number {
  bool integer = false;
  double d = 0;
  int64_t i = 0;
  uint64_t u = 0;
  bool is_unsigned = false;
};

template <class T>
bool take(const ffi::Dictionary& attrs, std::string_view name, Number& n) {
  if (!attrs.contains<T>(name)) return false;
  auto v = attrs.get<T>(name);
  if (v.has_error()) return false;
  const T x = v.value();
  if constexpr (std::is_floating_point_v<T>) {
    n.d = static_cast<double>(x);
  } else if constexpr (std::is_unsigned_v<T>) {
    n.integer = true;
    n.is_unsigned = true;
    n.u = static_cast<uint64_t>(x);
  } else {
    n.integer = true;
    n.i = static_cast<int64_t>(x);
  }
  return true;
}

inline std::optional<Number> number(const ffi::Dictionary& attrs, std::string_view name) {
  Number n;
  if (take<float>(attrs, name, n) || take<double>(attrs, name, n) || take<int8_t>(attrs, name, n) ||
      take<int16_t>(attrs, name, n) || take<int32_t>(attrs, name, n) || take<int64_t>(attrs, name, n) ||
      take<uint8_t>(attrs, name, n) || take<uint16_t>(attrs, name, n) || take<uint32_t>(attrs, name, n) ||
      take<uint64_t>(attrs, name, n))
    return n;
  return std::nullopt;
}

inline ffi::Error check(const Op& op, const ffi::RemainingArgs& args, const ffi::RemainingRets& rets,
                        const ffi::Dictionary& attrs, Call& call) {
  if (!op.refused.empty()) return op.error(op.refused);
  if (args.size() != op.inputs)
    return op.error("takes " + std::to_string(op.inputs) + " array argument(s), not " + std::to_string(args.size()));
  if (rets.size() != op.outputs)
    return op.error("has " + std::to_string(op.outputs) + " result(s), not " + std::to_string(rets.size()));
  std::set<std::string, std::less<>> scalar_names;
  for (size_t i = 0; i < op.params.size(); ++i)
    if (op.params[i].kind == ParamSpec::Kind::scalar) scalar_names.insert(op.names[i]);
  for (auto it = attrs.begin(); it != attrs.end(); ++it)
    if (!scalar_names.count(*it)) return op.error("unknown attribute '" + std::string(*it) + "'");

  interop::ShapeBinder shapes;
  size_t in = 0, out = 0;
  // inputs first (they bind the symbols), then outputs and scalars
  for (int pass = 0; pass < 2; ++pass) {
    for (size_t i = 0; i < op.params.size(); ++i) {
      const ParamSpec& p = op.params[i];
      const std::string& name = op.names[i];
      if ((p.kind == ParamSpec::Kind::input) != (pass == 0)) continue;
      if (p.kind == ParamSpec::Kind::scalar) {
        if (!attrs.contains(name))
          return op.error("attribute '" + name + "' is missing (a " + type_name(p.dtype) + " scalar)");
        const std::optional<Number> n = number(attrs, name);
        std::array<uint8_t, 8> bytes{};
        if (!n || (n->integer && float_scalar(p.dtype)) || (!n->integer && integer_scalar(p.dtype)))
          return op.error("attribute '" + name + "' must be " +
                          (float_scalar(p.dtype) ? "a floating-point" : "an integer") + " scalar (" +
                          type_name(p.dtype) + ")");
        if (p.dtype == DType::f32) {
          const float f = static_cast<float>(n->d);
          std::memcpy(bytes.data(), &f, 4);
        } else if (p.dtype == DType::f64) {
          std::memcpy(bytes.data(), &n->d, 8);
        } else {
          const size_t size = ptx::bits(p.dtype) / 8u;
          bool fits = true;
          uint64_t raw = 0;
          if (signed_integer(p.dtype)) {
            const int64_t lo = size < 8 ? -(int64_t{1} << (size * 8 - 1)) : INT64_MIN;
            const int64_t hi = size < 8 ? (int64_t{1} << (size * 8 - 1)) - 1 : INT64_MAX;
            fits = n->is_unsigned ? n->u <= static_cast<uint64_t>(hi) : (n->i >= lo && n->i <= hi);
            raw = n->is_unsigned ? n->u : static_cast<uint64_t>(n->i);
          } else {
            const uint64_t hi = size < 8 ? (uint64_t{1} << (size * 8)) - 1 : UINT64_MAX;
            fits = n->is_unsigned ? n->u <= hi : (n->i >= 0 && static_cast<uint64_t>(n->i) <= hi);
            raw = n->is_unsigned ? n->u : static_cast<uint64_t>(n->i);
          }
          if (!fits)
            return op.error("attribute '" + name +
                            "': " + (n->is_unsigned ? std::to_string(n->u) : std::to_string(n->i)) +
                            " does not fit a " + type_name(p.dtype));
          std::memcpy(bytes.data(), &raw, size);  // little-endian: the low bytes
        }
        call.scalars.push_back(bytes);
        continue;
      }
      const bool input = p.kind == ParamSpec::Kind::input;
      std::optional<ffi::AnyBuffer> b;
      if (input) {
        auto a = args.get<ffi::AnyBuffer>(in++);
        if (a.has_error()) return op.error("argument '" + name + "' must be an array");
        b = a.value();
      } else {
        auto r = rets.get<ffi::AnyBuffer>(out++);
        if (r.has_error()) return op.error("result '" + name + "' must be an array");
        b = *r.value();
      }
      const char* what = input ? "argument" : "result";
      const ffi::DataType want = *ffi_dtype(p.spec.dtype);
      if (b->element_type() != want)
        return op.error(std::string(what) + " '" + name + "' must be a " + dtype_name(want) + " array, not " +
                        dtype_name(b->element_type()));
      const auto dims = b->dimensions();
      if (dims.size() != p.spec.shape.size())
        return op.error(std::string(what) + " '" + name + "' must have " + std::to_string(p.spec.shape.size()) +
                        " dimensions, not " + std::to_string(dims.size()));
      if (input) {
        if (auto error = shapes.bind(p.spec, name, std::span<const int64_t>(dims.begin(), dims.size())))
          return op.error(*error);
      } else {
        const std::vector<int64_t> shape = shapes.shape_of(p.spec);
        if (!std::equal(shape.begin(), shape.end(), dims.begin()))
          return op.error("result '" + name + "' must have shape " + shape_text(shape) + ", not " + shape_text(dims));
      }
      call.data.push_back(b->untyped_data());
      call.bytes.push_back(b->size_bytes());
    }
  }
  call.bindings = shapes.bindings();
  return ffi::Error::Success();
}

// The launch arguments in parameter order; `pointer(i)`: buffer i of call.data.
template <class PointerOf>
void launch(const Op& op, const Call& call, const ptx::BoundKernel& kernel, const ptx::Stream* stream,
            PointerOf pointer) {
  // call.data holds inputs then outputs; the kernel's order interleaves them
  std::vector<ptx::DevicePtr> ptrs;
  ptrs.reserve(op.params.size());
  std::vector<LaunchArg> args;
  size_t in = 0, out = 0, scalar = 0;
  for (const ParamSpec& p : op.params) {
    if (p.kind == ParamSpec::Kind::scalar) {
      const auto& bytes = call.scalars[scalar++];
      args.push_back(
          LaunchArg{false, p.dtype, static_cast<uint8_t>(ptx::bits(p.dtype) / 8u), bytes.data(), nullptr, false});
    } else {
      ptrs.push_back(pointer(p.kind == ParamSpec::Kind::input ? in++ : op.inputs + out++));
      args.push_back(launch_arg(ptrs.back()));
    }
  }
  kernel.launch(args, stream);
}

inline ffi::Error run_cpu(Op& op, ffi::RemainingArgs args, ffi::RemainingRets rets, ffi::Dictionary attrs) {
  Call call;
  if (ffi::Error e = check(op, args, rets, attrs, call); e.failure()) return e;
  // XLA may run independent calls at once; the emulator runs one launch at a time
  // anyway, so the whole call (allocation, copies, launch) is serialized.
  static std::mutex emulator;
  std::lock_guard lock(emulator);
  std::vector<ptx::DevicePtr> buffers;
  const ptx::Device* cpu = nullptr;
  try {
    static const ptx::Device device = ptx::device::cpu();
    cpu = &device;
    const ptx::BoundKernel kernel = ptx::bind(device, op.kernel(op.options.cpu_arch), call.bindings);
    for (size_t i = 0; i < call.data.size(); ++i) {
      buffers.push_back(device.alloc(std::max<size_t>(call.bytes[i], 1)));
      if (i < op.inputs) device.copy_to_device(buffers.back(), call.data[i], call.bytes[i]);
    }
    launch(op, call, kernel, nullptr, [&](size_t i) { return buffers[i]; });
    for (size_t i = op.inputs; i < call.data.size(); ++i) device.copy_to_host(call.data[i], buffers[i], call.bytes[i]);
  } catch (const std::exception& e) {
    for (const ptx::DevicePtr& p : buffers) cpu->free(p);
    return op.error(e.what());
  }
  for (const ptx::DevicePtr& p : buffers) cpu->free(p);
  return ffi::Error::Success();
}

inline ffi::Error run_cuda(Op& op, int32_t ordinal, void* stream, ffi::RemainingArgs args, ffi::RemainingRets rets,
                           ffi::Dictionary attrs) {
  Call call;
  if (ffi::Error e = check(op, args, rets, attrs, call); e.failure()) return e;
  try {
    const ptx::Device dev = ptx::device::gpu(ordinal);
    const ptx::BoundKernel kernel = ptx::bind(dev, op.kernel(dev.arch()), call.bindings);
    const ptx::Stream s = dev.wrap_stream(stream);
    launch(op, call, kernel, &s, [&](size_t i) { return dev.wrap_pointer(call.data[i]); });
  } catch (const std::exception& e) {
    return op.error(e.what());
  }
  return ffi::Error::Success();
}

inline auto cpu_handler(Op& op) {
  return ffi::Ffi::Bind().RemainingArgs().RemainingRets().Attrs<ffi::Dictionary>().To(
      [&op](ffi::RemainingArgs args, ffi::RemainingRets rets, ffi::Dictionary attrs) {
        return run_cpu(op, args, rets, attrs);
      });
}

inline auto cuda_handler(Op& op) {
  return ffi::Ffi::Bind()
      .Ctx<ffi::DeviceOrdinal>()
      .Ctx<ffi::PlatformStream<void*>>()
      .RemainingArgs()
      .RemainingRets()
      .Attrs<ffi::Dictionary>()
      .To([&op](int32_t ordinal, void* stream, ffi::RemainingArgs args, ffi::RemainingRets rets,
                ffi::Dictionary attrs) { return run_cuda(op, ordinal, stream, args, rets, attrs); });
}

// The library's ops, in the order they were defined: each an accessor that makes the
// op on first use (enrolling at static initialization traces nothing; the kernels are
// traced when ptxpp_jax_ops() or a handler is first called).
inline std::vector<Op& (*)()>& registry() {
  static std::vector<Op& (*)()> ops;
  return ops;
}

inline bool enroll(Op& (*op)()) {
  registry().push_back(op);
  return true;
}

inline const std::string& library_json() {
  static const std::string text = [] {
    std::string s = "[";
    for (size_t i = 0; i < registry().size(); ++i) s += (i ? ",\n " : "") + registry()[i]().signature;
    return s + "]";
  }();
  return text;
}

}  // namespace detail
}  // namespace ptx::jax

// The library's list of ops (JSON: [{"name", "params": [{"kind", "name", "dtype",
// "shape"}...]} or {"name", "error"}...]); ptxpp.jax.load_library reads it.
extern "C" __attribute__((visibility("default"), used)) inline const char* ptxpp_jax_ops() {
  return ptx::jax::detail::library_json().c_str();
}

// PTXPP_JAX_HANDLER(symbol, factory [, ptx::jax::OpOptions]): the op `symbol` (a C
// identifier) from a kernel factory; exports symbol_cpu and symbol_cuda (XLA FFI
// handlers) and lists the op in ptxpp_jax_ops(). The kernel is traced once for its
// parameters when the list is first read (ptxpp.jax.load_library) or a handler first
// runs, not while the library is being loaded; a kernel no FFI call can drive (tensor maps,
// element types XLA lacks, an output dimension no input determines, a factory that
// throws) still loads: its handlers return the reason as an error.
#define PTXPP_JAX_HANDLER(symbol, ...)                                                                                 \
  static ::ptx::jax::detail::Op& ptxpp_jax_op_##symbol() {                                                             \
    static ::ptx::jax::detail::Op op(#symbol, __VA_ARGS__);                                                            \
    return op;                                                                                                         \
  }                                                                                                                    \
  [[maybe_unused]] static const bool ptxpp_jax_enrolled_##symbol = ::ptx::jax::detail::enroll(&ptxpp_jax_op_##symbol); \
  extern "C" __attribute__((visibility("default"))) XLA_FFI_Error* symbol##_cpu(XLA_FFI_CallFrame* frame) {            \
    static auto* handler = ::ptx::jax::detail::cpu_handler(ptxpp_jax_op_##symbol()).release();                         \
    return handler->Call(frame);                                                                                       \
  }                                                                                                                    \
  extern "C" __attribute__((visibility("default"))) XLA_FFI_Error* symbol##_cuda(XLA_FFI_CallFrame* frame) {           \
    static auto* handler = ::ptx::jax::detail::cuda_handler(ptxpp_jax_op_##symbol()).release();                        \
    return handler->Call(frame);                                                                                       \
  }                                                                                                                    \
  static_assert(true, "")
