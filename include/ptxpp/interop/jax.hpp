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
// taken as a plain pointer, so the handler needs no CUDA headers. Each op caches the
// kernel bound per (device, input shapes) (interop/bound_cache.hpp): a call that
// repeats them binds and looks up nothing. CPU: the kernel runs
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
#include <span>
#include <tuple>
#include <set>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "ptxpp/dsl/kernel.hpp"
#include "ptxpp/interop/bound_cache.hpp"
#include "ptxpp/interop/scalars.hpp"
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

using interop::float_scalar;
using interop::integer_scalar;
using interop::signed_integer;
using interop::type_name;

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
  // How a call gets its kernel loaded on a device, for a target (options.cpu_arch on the
  // CPU, Device::arch() on a GPU) and the bindings the inputs' shapes give. A factory's
  // op traces the factory's kernel; other front ends (the Python package's
  // ptxpp._core, python/src/jax_ffi.cpp) bind kernels they traced beforehand.
  using Binder = std::function<ptx::BoundKernel(const ptx::Device&, const std::string& arch, const ptx::Bindings&)>;

  std::string name;  // the handler's symbol
  KernelFactory make;
  OpOptions options;
  Binder bind;
  std::string dispatch_attribute;  // an attribute the handler reads itself (not a scalar), or ""
  std::string refused;
  std::vector<ParamSpec> params;   // the kernel's, in order
  std::vector<std::string> names;  // per param: in0.., out0.. when unnamed
  size_t inputs = 0, outputs = 0, scalars = 0;
  std::string signature;  // JSON, for the Python side

  std::set<std::string, std::less<>> scalar_names;

  std::mutex mu;
  std::map<std::string, ptx::Kernel> kernels;  // per target
  interop::BoundCache bound;                   // per (device, input shapes)

  Op(std::string symbol, KernelFactory factory, OpOptions opts = {})
      : name(std::move(symbol)), make(std::move(factory)), options(std::move(opts)) {
    bind = [this](const ptx::Device& d, const std::string& arch, const ptx::Bindings& b) {
      return ptx::bind(d, kernel(arch), b);
    };
    try {
      describe(kernel(options.cpu_arch).params());
    } catch (const std::exception& e) {
      refused = e.what();
    }
    signature = json();
  }

  // An op whose kernels come from `binder` (no factory): `kernel_params` say what its
  // calls take; `dispatch` names an attribute the handler reads before the call is checked.
  Op(std::string kernel_name, const std::vector<ParamSpec>& kernel_params, Binder binder, std::string dispatch,
     OpOptions opts = {})
      : name(std::move(kernel_name)),
        options(std::move(opts)),
        bind(std::move(binder)),
        dispatch_attribute(std::move(dispatch)) {
    try {
      describe(kernel_params);
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
  void describe(const std::vector<ParamSpec>& kernel_params) {
    params = kernel_params;
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
          scalar_names.insert(p.name);
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

// One checked call: the buffers' addresses and sizes, the scalars' bytes, the inputs'
// dimensions, and the kernel bound for them. Each thread reuses one (see scratch()),
// so a call allocates nothing once its vectors have grown.
struct Call {
  std::vector<void*> data;                       // inputs then outputs, in parameter order
  std::vector<size_t> bytes;                     // the same
  std::vector<interop::ScalarBytes> scalars;     // per scalar param, in order
  std::vector<int64_t> dims;                     // every input's dimensions, in order
  std::shared_ptr<const interop::BoundCall> bound;
  std::vector<ptx::DevicePtr> ptrs;              // launch's: the buffers, in parameter order
  std::vector<LaunchArg> args;                   // launch's: the arguments


  void clear() {
    data.clear();
    bytes.clear();
    scalars.clear();
    dims.clear();
    bound.reset();
    ptrs.clear();
    args.clear();
  }
};

inline Call& scratch() {
  thread_local Call call;
  call.clear();
  return call;
}

template <class T>
bool take(const ffi::Dictionary& attrs, std::string_view name, interop::ScalarValue& n) {
  if (!attrs.contains<T>(name)) return false;
  auto v = attrs.get<T>(name);
  if (v.has_error()) return false;
  const T x = v.value();
  if constexpr (std::is_floating_point_v<T>) {
    n = interop::ScalarValue::of_float(static_cast<double>(x));
  } else if constexpr (std::is_unsigned_v<T>) {
    n = interop::ScalarValue::of_uint(static_cast<uint64_t>(x));
  } else {
    n = interop::ScalarValue::of_int(static_cast<int64_t>(x));
  }
  return true;
}

// A scalar attribute of any numeric type.
inline std::optional<interop::ScalarValue> number(const ffi::Dictionary& attrs, std::string_view name) {
  interop::ScalarValue n;
  if (take<float>(attrs, name, n) || take<double>(attrs, name, n) || take<int8_t>(attrs, name, n) ||
      take<int16_t>(attrs, name, n) || take<int32_t>(attrs, name, n) || take<int64_t>(attrs, name, n) ||
      take<uint8_t>(attrs, name, n) || take<uint16_t>(attrs, name, n) || take<uint32_t>(attrs, name, n) ||
      take<uint64_t>(attrs, name, n))
    return n;
  return std::nullopt;
}

// Checks a call against the op's parameters and fills `call`; its kernel comes from
// the op's cache for (`device`, the inputs' dimensions), else from
// `bind_on(bindings)`: (the device, the kernel bound on it for the bindings).
template <class BindOnDevice>
ffi::Error check(Op& op, int device, const BindOnDevice& bind_on, const ffi::RemainingArgs& args,
                 const ffi::RemainingRets& rets, const ffi::Dictionary& attrs, Call& call) {
  if (!op.refused.empty()) return op.error(op.refused);
  if (args.size() != op.inputs)
    return op.error("takes " + std::to_string(op.inputs) + " array argument(s), not " + std::to_string(args.size()));
  if (rets.size() != op.outputs)
    return op.error("has " + std::to_string(op.outputs) + " result(s), not " + std::to_string(rets.size()));
  for (auto it = attrs.begin(); it != attrs.end(); ++it)
    if (!op.scalar_names.count(*it) && *it != op.dispatch_attribute)
      return op.error("unknown attribute '" + std::string(*it) + "'");

  // inputs first (their shapes find the kernel), then outputs and scalars
  size_t in = 0, out = 0;
  for (int pass = 0; pass < 2; ++pass) {
    if (pass == 1) {
      const std::span<const int64_t> dims(call.dims.data(), call.dims.size());
      call.bound = op.bound.find(device, dims);
      if (!call.bound) {
        interop::ShapeBinder shapes;
        size_t d = 0;
        for (size_t i = 0; i < op.params.size(); ++i) {
          const ParamSpec& p = op.params[i];
          if (p.kind != ParamSpec::Kind::input) continue;
          if (auto error = shapes.bind(p.spec, op.names[i], dims.subspan(d, p.spec.shape.size())))
            return op.error(*error);
          d += p.spec.shape.size();
        }
        interop::BoundCall made;
        for (const ParamSpec& p : op.params)
          if (p.kind == ParamSpec::Kind::output) made.output_shapes.push_back(shapes.shape_of(p.spec));
        try {
          std::tie(made.device, made.kernel) = bind_on(shapes.bindings());
        } catch (const std::exception& e) {
          return op.error(e.what());
        }
        call.bound = op.bound.insert(device, dims, std::move(made));
      }
    }
    for (size_t i = 0; i < op.params.size(); ++i) {
      const ParamSpec& p = op.params[i];
      const std::string& name = op.names[i];
      if ((p.kind == ParamSpec::Kind::input) != (pass == 0)) continue;
      if (p.kind == ParamSpec::Kind::scalar) {
        if (!attrs.contains(name))
          return op.error("attribute '" + name + "' is missing (a " + type_name(p.dtype) + " scalar)");
        const std::optional<interop::ScalarValue> n = number(attrs, name);
        if (!n)
          return op.error("attribute '" + name + "' must be " +
                          (float_scalar(p.dtype) ? "a floating-point" : "an integer") + " scalar (" +
                          type_name(p.dtype) + ")");
        call.scalars.emplace_back();
        if (auto error = interop::pack_scalar(p.dtype, *n, "attribute", name, call.scalars.back()))
          return op.error(*error);
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
        call.dims.insert(call.dims.end(), dims.begin(), dims.end());
      } else {
        const std::vector<int64_t>& shape = call.bound->output_shapes[out - 1];
        if (!std::equal(shape.begin(), shape.end(), dims.begin(), dims.end()))
          return op.error("result '" + name + "' must have shape " + shape_text(shape) + ", not " + shape_text(dims));
      }
      call.data.push_back(b->untyped_data());
      call.bytes.push_back(b->size_bytes());
    }
  }
  return ffi::Error::Success();
}

// The launch arguments in parameter order; `pointer(i)`: buffer i of call.data.
template <class PointerOf>
void launch(const Op& op, Call& call, const ptx::BoundKernel& kernel, const ptx::Stream* stream, PointerOf pointer) {
  // call.data holds inputs then outputs; the kernel's order interleaves them
  call.ptrs.reserve(op.params.size());  // the args view them: no reallocation
  size_t in = 0, out = 0, scalar = 0;
  for (const ParamSpec& p : op.params) {
    if (p.kind == ParamSpec::Kind::scalar) {
      call.args.push_back(interop::scalar_arg(p.dtype, call.scalars[scalar++]));
    } else {
      call.ptrs.push_back(pointer(p.kind == ParamSpec::Kind::input ? in++ : op.inputs + out++));
      call.args.push_back(launch_arg(call.ptrs.back()));
    }
  }
  kernel.launch(call.args, stream);
}

inline ffi::Error run_cpu(Op& op, ffi::RemainingArgs args, ffi::RemainingRets rets, ffi::Dictionary attrs) {
  Call& call = scratch();
  auto bind_on = [&op](const ptx::Bindings& b) {
    const ptx::Device cpu = ptx::device::cpu();
    return std::pair(cpu, op.bind(cpu, op.options.cpu_arch, b));
  };
  if (ffi::Error e = check(op, interop::kCpuKey, bind_on, args, rets, attrs, call); e.failure()) return e;
  // XLA may run independent calls at once; the emulator runs one launch at a time
  // anyway, so the whole call (allocation, copies, launch) is serialized.
  static std::mutex emulator;
  std::lock_guard lock(emulator);
  const ptx::Device& device = call.bound->device;
  std::vector<ptx::DevicePtr> buffers;
  try {
    for (size_t i = 0; i < call.data.size(); ++i) {
      buffers.push_back(device.alloc(std::max<size_t>(call.bytes[i], 1)));
      if (i < op.inputs) device.copy_to_device(buffers.back(), call.data[i], call.bytes[i]);
    }
    launch(op, call, call.bound->kernel, nullptr, [&](size_t i) { return buffers[i]; });
    for (size_t i = op.inputs; i < call.data.size(); ++i) device.copy_to_host(call.data[i], buffers[i], call.bytes[i]);
  } catch (const std::exception& e) {
    for (const ptx::DevicePtr& p : buffers) device.free(p);
    return op.error(e.what());
  }
  for (const ptx::DevicePtr& p : buffers) device.free(p);
  return ffi::Error::Success();
}

inline ffi::Error run_cuda(Op& op, int32_t ordinal, void* stream, ffi::RemainingArgs args, ffi::RemainingRets rets,
                           ffi::Dictionary attrs) {
  Call& call = scratch();
  auto bind_on = [&op, ordinal](const ptx::Bindings& b) {
    const ptx::Device dev = ptx::device::gpu(ordinal);
    return std::pair(dev, op.bind(dev, dev.arch(), b));
  };
  if (ffi::Error e = check(op, ordinal, bind_on, args, rets, attrs, call); e.failure()) return e;
  try {
    const ptx::Device& dev = call.bound->device;
    const ptx::Stream s = dev.wrap_stream(stream);
    launch(op, call, call.bound->kernel, &s, [&](size_t i) { return dev.wrap_pointer(call.data[i]); });
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

// The hits and misses of op `name`'s cache of bound kernels (ptxpp.jax's
// Op.cache_stats, through ctypes): a call whose device and input shapes an earlier
// call had is a hit. 0 when the library has no such op.
extern "C" __attribute__((visibility("default"), used)) inline int ptxpp_jax_cache_stats(const char* name, uint64_t* hits,
                                                                                       uint64_t* misses) {
  for (auto* op : ptx::jax::detail::registry()) {
    const ptx::jax::detail::Op& o = op();
    if (o.name != name) continue;
    const auto stats = o.bound.stats();
    *hits = stats.hits;
    *misses = stats.misses;
    return 1;
  }
  return 0;
}

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
