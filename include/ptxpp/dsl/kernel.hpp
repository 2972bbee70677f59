// Kernels: a name, tensor and scalar parameters, launch shape, target and
// directives, and a body. `kernel.ptx(bindings)` traces the body (once per
// bindings and target; cached; thread-safe) and returns the PTX text.
//
//   auto k = ptx::kernel("copy").in(ptx::tensor(f32, {"N"})).out(ptx::tensor(f32, {"N"}))
//                .block(256).grid([](const ptx::Bindings& b) { return ptx::Dim3{uint32_t(b.at("N") / 256)}; })
//                .arch("sm_90a")
//                .body([](ptx::Tensor x, ptx::Tensor y) { ... });
//   std::string text = k.ptx({{"N", 4096}});
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include "ptxpp/dsl/source_location.hpp"
#include <span>
#include <string>
#include <string_view>
#include <tuple>
#include <type_traits>
#include <utility>
#include <variant>
#include <vector>

#include "ptxpp/core/dim3.hpp"
#include "ptxpp/core/ptx_version.hpp"
#include "ptxpp/dsl/reg.hpp"
#include "ptxpp/dsl/types.hpp"

namespace ptx {

// A dimension: a number, or a symbol ("M") bound when the kernel is traced.
struct Dim {
  int64_t value = 0;
  std::string symbol;
  Dim(int v) : value(v) {}                       // NOLINT
  Dim(int64_t v) : value(v) {}                   // NOLINT
  Dim(const char* s) : symbol(s) {}              // NOLINT
  Dim(std::string s) : symbol(std::move(s)) {}   // NOLINT
  bool symbolic() const { return !symbol.empty(); }
};

struct TensorSpec {
  DType dtype = DType::f32;
  std::vector<Dim> shape;
  std::vector<Dim> strides;  // in elements; empty: row-major (contiguous)
};
TensorSpec tensor(DType dtype, std::vector<Dim> shape, std::vector<Dim> strides = {});
// ptx::tile(4, 64, f32): the dimensions, then the element type.
template <class... A>
TensorSpec tile(A... args) {
  std::vector<Dim> dims;
  DType t = DType::f32;
  auto add = [&](auto a) {
    if constexpr (std::is_same_v<decltype(a), DType>) t = a;
    else dims.emplace_back(a);
  };
  (add(args), ...);
  return TensorSpec{t, std::move(dims), {}};
}

using Bindings = std::map<std::string, int64_t, std::less<>>;

namespace dsl::detail {
struct Param {
  bool is_tensor;
  std::string name;   // the .param symbol
  TensorSpec spec;    // tensors
  DType dtype;        // scalars
  const Bindings* bindings;
  bool is_tensor_map;  // a 128-byte TMA descriptor passed by value (__grid_constant__)
  std::string label = {};  // the name the user gave ("x"), empty for unnamed tensors
};
}  // namespace dsl::detail

// A parameter as declared, before tracing: what interop layers (torch ops, ...)
// derive signatures and output shapes from.
struct ParamSpec {
  enum class Kind : uint8_t { input, output, scalar, tensor_map };
  Kind kind = Kind::input;
  std::string name;  // as given; unnamed tensors: empty
  TensorSpec spec;   // input, output
  DType dtype = DType::none;  // scalar
};

// A tensor parameter inside a body: a .param .u64 holding a global pointer.
class Tensor {
 public:
  explicit Tensor(const dsl::detail::Param& p);
  DType dtype() const { return p_->spec.dtype; }
  size_t rank() const { return p_->spec.shape.size(); }
  // The bound extent of dimension i (a trace-time value).
  int64_t dim(size_t i, ptx::SourceLocation where = ptx::SourceLocation::current()) const;
  int64_t stride(size_t i, ptx::SourceLocation where = ptx::SourceLocation::current()) const;
  int64_t numel(ptx::SourceLocation where = ptx::SourceLocation::current()) const;
  std::string_view param() const { return p_->name; }
  // ld.param.u64: the pointer as passed (one instruction).
  Reg ptr(ptx::SourceLocation where = ptx::SourceLocation::current()) const;
  // ld.param.u64 + cvta.to.global.u64: the pointer in the global window (two instructions).
  Reg global_ptr(ptx::SourceLocation where = ptx::SourceLocation::current()) const;

 private:
  const dsl::detail::Param* p_;
};

// A scalar parameter passed at launch.
class Scalar {
 public:
  explicit Scalar(const dsl::detail::Param& p);
  DType dtype() const { return p_->dtype; }
  std::string_view param() const { return p_->name; }
  // ld.param: the value (one instruction).
  Reg load(ptx::SourceLocation where = ptx::SourceLocation::current()) const;

 private:
  const dsl::detail::Param* p_;
};

// A tensor map (TMA descriptor) parameter: `.param .align 64 .b8 name[128]`, passed by
// value at launch (a ptx::TensorMap), read by cp.async.bulk.tensor through its address.
class TensorMapParam {
 public:
  explicit TensorMapParam(const dsl::detail::Param& p);
  std::string_view param() const { return p_->name; }
  // The descriptor's generic address: `mov.b64 a, name;  cvta.param.u64 g, a;` (two instructions, as nvcc).
  Reg generic_address(ptx::SourceLocation where = ptx::SourceLocation::current()) const;
  // The value bound to a shape variable at this trace (a trace-time value; an error when
  // unbound): a tensor map carries no shape the kernel can see, so kernels that take
  // only tensor maps read their extents here.
  int64_t bound(std::string_view symbol, ptx::SourceLocation where = ptx::SourceLocation::current()) const;

 private:
  const dsl::detail::Param* p_;
};

// `[map, {c0, c1, ...}]`: the tensor-coordinate operand of cp.async.bulk.tensor (1 to 5
// coordinates; `map` holds the descriptor's generic address). No instruction.
Operand tensor_coords(const Reg& map, std::initializer_list<Operand> coords,
                      ptx::SourceLocation where = ptx::SourceLocation::current());

// The global pointers of several tensors: ld.param.u64 + cvta.to.global.u64 each.
template <class... T>
auto global_ptrs(const T&... t) {
  return std::tuple<decltype(t.global_ptr())...>{t.global_ptr()...};  // braces: in order
}

struct ParamInfo {
  std::string name;
  bool is_tensor = false;
  DType dtype = DType::none;
  std::vector<int64_t> shape;  // bound
  bool is_output = false;
  bool is_tensor_map = false;  // takes a ptx::TensorMap (128 bytes)
};

// One traced kernel: its PTX and what launching it needs.
struct Traced {
  std::string name;
  std::string ptx;
  std::string target;       // "sm_90a" (ptx::Target::parse reads it)
  PtxVersion ptx_version;   // the module's .version
  Dim3 grid, block, cluster;
  uint64_t static_smem_bytes = 0;
  uint64_t dynamic_smem_bytes = 0;  // > 0: launch with this much dynamic shared memory
  size_t instructions = 0;
  std::vector<ParamInfo> params;
  std::vector<uint8_t> cubin;  // a compiled image for `target` (ahead-of-time kernels), else empty
};

class Kernel {
 public:
  explicit Kernel(std::string name, ptx::SourceLocation where = ptx::SourceLocation::current());

  Kernel& in(TensorSpec t);
  Kernel& out(TensorSpec t);
  // Named tensors: the .param symbol is kernel_name, and interop signatures use the name.
  Kernel& in(std::string name, TensorSpec t);
  Kernel& out(std::string name, TensorSpec t);
  Kernel& scalar(std::string name, DType t);
  // A TMA descriptor parameter (the body takes a ptx::TensorMapParam); launched with a ptx::TensorMap.
  Kernel& tensor_map(std::string name);
  Kernel& grid(Dim3 d);
  Kernel& grid(std::function<Dim3(const Bindings&)> f);
  Kernel& block(Dim3 d);
  Kernel& block(std::function<Dim3(const Bindings&)> f);
  Kernel& cluster(Dim3 d);
  // sm_80, sm_89, sm_90a, sm_100a, sm_120a, ...; "auto": the GPU present (PTXPP_ARCH, else sm_80 without a runtime).
  Kernel& arch(std::string_view target, ptx::SourceLocation where = ptx::SourceLocation::current());
  // Default: the lowest version the target and the emitted instructions need.
  Kernel& ptx_version(int major, int minor);
  Kernel& maxntid(Dim3 d);
  Kernel& reqntid(Dim3 d);
  Kernel& minnctapersm(uint32_t n);
  Kernel& maxnreg(uint32_t n);
  Kernel& explicitcluster();
  Kernel& reqnctapercluster(Dim3 d);
  Kernel& maxclusterrank(uint32_t n);
  // .file/.loc: every instruction maps to the C++ line that emitted it.
  Kernel& debug(bool on = true);
  // Turns off the per-instruction check against the ISA table (on by default).
  Kernel& validate(bool on);

  template <class F>
  Kernel& body(F f) {
    set_body(make_body(std::move(f), &F::operator()));
    return *this;
  }

  // A body that takes the parameters as a list, for front ends in other languages (the
  // Python DSL): it makes a Tensor, Scalar or TensorMapParam of each (is_tensor, is_tensor_map).
  Kernel& body_params(std::function<void(std::span<const dsl::detail::Param>)> f) {
    set_body(std::move(f));
    return *this;
  }

  // The PTX text (traced once per bindings; cached).
  std::string ptx(const Bindings& b = {}) const { return trace(b)->ptx; }
  std::shared_ptr<const Traced> trace(const Bindings& b = {}) const;
  const std::string& name() const;
  std::vector<ParamSpec> params() const;

  struct Impl;
  const std::shared_ptr<Impl>& impl() const { return impl_; }

 private:
  using Body = std::function<void(std::span<const dsl::detail::Param>)>;
  void set_body(Body b);
  void check_param_name(const std::string& name) const;

  template <class F, class R, class C, class... A>
  static Body make_body(F f, R (C::*)(A...) const) {
    return [f = std::move(f)](std::span<const dsl::detail::Param> ps) {
      call(f, ps, std::index_sequence_for<A...>{}, static_cast<std::tuple<std::decay_t<A>...>*>(nullptr));
    };
  }
  template <class F, class R, class C, class... A>
  static Body make_body(F f, R (C::*)(A...)) {
    return [f = std::move(f)](std::span<const dsl::detail::Param> ps) mutable {
      call(f, ps, std::index_sequence_for<A...>{}, static_cast<std::tuple<std::decay_t<A>...>*>(nullptr));
    };
  }
  template <class F, size_t... I, class... A>
  static void call(F& f, std::span<const dsl::detail::Param> ps, std::index_sequence<I...>, std::tuple<A...>*) {
    check_arity(ps.size(), sizeof...(I));
    f(A(ps[I])...);
  }
  static void check_arity(size_t params, size_t args);

  std::shared_ptr<Impl> impl_;
};

inline Kernel kernel(std::string name, ptx::SourceLocation where = ptx::SourceLocation::current()) {
  return Kernel(std::move(name), where);
}

}  // namespace ptx
