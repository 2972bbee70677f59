// Kernels from Python: the C++ ptx::Kernel with a Python body. The body is called with
// one parameter object per kernel parameter; those objects are valid during that trace
// only (they point into it), and say so when kept and used later.
#include <fmt/format.h>
#include <nanobind/stl/function.h>
#include <nanobind/stl/map.h>
#include <nanobind/stl/shared_ptr.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/tuple.h>
#include <nanobind/stl/vector.h>

#include "common.hpp"

namespace ptxpy {

namespace {

// One parameter inside a body: a tensor, a scalar or a tensor map.
struct PyParam {
  const ptx::dsl::detail::Param* param;  // valid while `alive`
  std::string name;
  bool alive = true;
  const ptx::dsl::detail::Param& get() const {
    if (!alive) throw ptx::Error(fmt::format("kernel parameter '{}' is used after its trace ended", name), {});
    return *param;
  }
};
struct PyTensor : PyParam {};
struct PyScalar : PyParam {};
struct PyTensorMap : PyParam {};

ptx::Dim3 dim3_of(nb::handle h) {
  if (PyLong_Check(h.ptr())) return ptx::Dim3(nb::cast<uint32_t>(h));
  const auto v = nb::cast<std::vector<uint32_t>>(h);
  if (v.empty() || v.size() > 3) throw nb::value_error("a launch dimension is an int or 1 to 3 ints");
  return ptx::Dim3(v[0], v.size() > 1 ? v[1] : 1, v.size() > 2 ? v[2] : 1);
}

std::function<ptx::Dim3(const ptx::Bindings&)> dim3_function(nb::callable f) {
  return [f = std::move(f)](const ptx::Bindings& b) {
    nb::dict d;
    for (const auto& [k, v] : b) d[k.c_str()] = v;
    return dim3_of(f(d));
  };
}

std::vector<ptx::Dim> dims_of(nb::handle shape) {
  std::vector<ptx::Dim> out;
  for (nb::handle d : shape) {
    if (nb::isinstance<nb::str>(d))
      out.emplace_back(nb::cast<std::string>(d));
    else
      out.emplace_back(nb::cast<int64_t>(d));
  }
  return out;
}

// The body as ptx::Kernel calls it: parameter objects, the Python function, then the objects retired.
void run_body(const nb::callable& f, bool debug, std::span<const ptx::dsl::detail::Param> ps) {
  LocationScope locations(debug || locations_on());  // on in a debug module: its kernels too
  std::vector<nb::object> made;
  nb::list args;
  for (const auto& p : ps) {
    const PyParam base{&p, p.name, true};
    nb::object o = p.is_tensor_map ? nb::cast(PyTensorMap{base})
                   : p.is_tensor   ? nb::cast(PyTensor{base})
                                   : nb::cast(PyScalar{base});
    args.append(o);
    made.push_back(std::move(o));
  }
  struct Retire {
    std::vector<nb::object>& objs;
    ~Retire() {
      for (auto& o : objs) nb::inst_ptr<PyParam>(o)->alive = false;
    }
  } retire{made};
  f(*args);
}

ptx::SourceLocation location_of(const std::string& file, uint32_t line) {
  return ptx::SourceLocation::current(intern_file(file), line, 0);
}

nb::dict param_info(const ptx::ParamInfo& p) {
  nb::dict d;
  d["name"] = p.name;
  d["is_tensor"] = p.is_tensor;
  d["dtype"] = p.dtype;
  d["shape"] = nb::tuple(nb::cast(p.shape));
  d["is_output"] = p.is_output;
  d["is_tensor_map"] = p.is_tensor_map;
  return d;
}

}  // namespace

void bind_kernel(nb::module_& m) {
  nb::class_<PyTensor>(m, "TensorParam", "A tensor parameter inside a kernel body: a .param .u64 global pointer")
      .def_prop_ro("dtype", [](const PyTensor& t) { return ptx::Tensor(t.get()).dtype(); })
      .def_prop_ro("rank", [](const PyTensor& t) { return ptx::Tensor(t.get()).rank(); })
      .def_prop_ro("shape",
                   [](const PyTensor& t) {
                     const ptx::Tensor x(t.get());
                     nb::list out;
                     for (size_t i = 0; i < x.rank(); ++i) out.append(x.dim(i, here()));
                     return nb::tuple(out);
                   })
      .def_prop_ro("param", [](const PyTensor& t) { return t.name; })
      .def("dim", [](const PyTensor& t, size_t i) { return ptx::Tensor(t.get()).dim(i, here()); })
      .def("stride", [](const PyTensor& t, size_t i) { return ptx::Tensor(t.get()).stride(i, here()); })
      .def("numel", [](const PyTensor& t) { return ptx::Tensor(t.get()).numel(here()); })
      .def(
          "ptr", [](const PyTensor& t) { return make_reg(ptx::Tensor(t.get()).ptr(here())); }, "ld.param.u64")
      .def(
          "global_ptr", [](const PyTensor& t) { return make_reg(ptx::Tensor(t.get()).global_ptr(here())); },
          "ld.param.u64 + cvta.to.global.u64");
  nb::class_<PyScalar>(m, "ScalarParam", "A scalar parameter inside a kernel body, passed at launch")
      .def_prop_ro("dtype", [](const PyScalar& s) { return ptx::Scalar(s.get()).dtype(); })
      .def_prop_ro("param", [](const PyScalar& s) { return s.name; })
      .def(
          "load", [](const PyScalar& s) { return make_reg(ptx::Scalar(s.get()).load(here())); }, "ld.param");
  nb::class_<PyTensorMap>(m, "TensorMapParam", "A TMA descriptor parameter inside a kernel body")
      .def_prop_ro("param", [](const PyTensorMap& s) { return s.name; })
      .def(
          "generic_address",
          [](const PyTensorMap& s) { return make_reg(ptx::TensorMapParam(s.get()).generic_address(here())); },
          "mov.b64 + cvta.param.u64")
      .def("bound", [](const PyTensorMap& s, const std::string& sym) {
        return ptx::TensorMapParam(s.get()).bound(sym, here());
      });

  nb::class_<ptx::Traced>(m, "Traced", "One traced kernel: its PTX and what launching it needs")
      .def_ro("name", &ptx::Traced::name)
      .def_ro("ptx", &ptx::Traced::ptx)
      .def_ro("target", &ptx::Traced::target)
      .def_prop_ro("ptx_version", [](const ptx::Traced& t) { return nb::make_tuple(t.ptx_version.major, t.ptx_version.minor); })
      .def_prop_ro("grid", [](const ptx::Traced& t) { return nb::make_tuple(t.grid.x, t.grid.y, t.grid.z); })
      .def_prop_ro("block", [](const ptx::Traced& t) { return nb::make_tuple(t.block.x, t.block.y, t.block.z); })
      .def_prop_ro("cluster",
                   [](const ptx::Traced& t) { return nb::make_tuple(t.cluster.x, t.cluster.y, t.cluster.z); })
      .def_ro("static_smem_bytes", &ptx::Traced::static_smem_bytes)
      .def_ro("dynamic_smem_bytes", &ptx::Traced::dynamic_smem_bytes)
      .def_ro("instructions", &ptx::Traced::instructions)
      .def_prop_ro("params", [](const ptx::Traced& t) {
        nb::list out;
        for (const auto& p : t.params) out.append(param_info(p));
        return out;
      });

  nb::class_<ptx::Kernel>(m, "Kernel", "The C++ DSL's kernel with a Python body (ptxpp.kernel builds these)")
      .def(
          "__init__",
          [](ptx::Kernel* self, const std::string& name, const std::string& file, uint32_t line) {
            new (self) ptx::Kernel(name, location_of(file, line));
          },
          nb::arg("name"), nb::arg("file") = "", nb::arg("line") = 0)
      .def(
          "input",
          [](ptx::Kernel& k, ptx::DType t, nb::handle shape, const std::string& name) {
            name.empty() ? k.in(ptx::tensor(t, dims_of(shape))) : k.in(name, ptx::tensor(t, dims_of(shape)));
          },
          nb::arg("dtype"), nb::arg("shape"), nb::arg("name") = "")
      .def(
          "output",
          [](ptx::Kernel& k, ptx::DType t, nb::handle shape, const std::string& name) {
            name.empty() ? k.out(ptx::tensor(t, dims_of(shape))) : k.out(name, ptx::tensor(t, dims_of(shape)));
          },
          nb::arg("dtype"), nb::arg("shape"), nb::arg("name") = "")
      .def("scalar", [](ptx::Kernel& k, const std::string& name, ptx::DType t) { k.scalar(name, t); })
      .def("tensor_map", [](ptx::Kernel& k, const std::string& name) { k.tensor_map(name); })
      .def("grid",
           [](ptx::Kernel& k, nb::handle g) {
             if (PyCallable_Check(g.ptr()))
               k.grid(dim3_function(nb::borrow<nb::callable>(g)));
             else
               k.grid(dim3_of(g));
           })
      .def("block",
           [](ptx::Kernel& k, nb::handle b) {
             if (PyCallable_Check(b.ptr()))
               k.block(dim3_function(nb::borrow<nb::callable>(b)));
             else
               k.block(dim3_of(b));
           })
      .def("cluster", [](ptx::Kernel& k, nb::handle c) { k.cluster(dim3_of(c)); })
      .def("arch", [](ptx::Kernel& k, const std::string& a) { k.arch(a, python_location()); })
      .def("ptx_version", [](ptx::Kernel& k, int major, int minor) { k.ptx_version(major, minor); })
      .def("maxntid", [](ptx::Kernel& k, nb::handle d) { k.maxntid(dim3_of(d)); })
      .def("reqntid", [](ptx::Kernel& k, nb::handle d) { k.reqntid(dim3_of(d)); })
      .def("minnctapersm", [](ptx::Kernel& k, uint32_t n) { k.minnctapersm(n); })
      .def("maxnreg", [](ptx::Kernel& k, uint32_t n) { k.maxnreg(n); })
      .def("debug", [](ptx::Kernel& k, bool on) { k.debug(on); })
      .def("validate", [](ptx::Kernel& k, bool on) { k.validate(on); })
      .def(
          "body",
          [](ptx::Kernel& k, nb::callable f, bool debug) {
            k.body_params(
                [f = std::move(f), debug](std::span<const ptx::dsl::detail::Param> ps) { run_body(f, debug, ps); });
          },
          nb::arg("f"), nb::arg("debug") = false)
      .def("trace", [](const ptx::Kernel& k, const ptx::Bindings& b) { return k.trace(b); })
      .def_prop_ro("name", [](const ptx::Kernel& k) { return k.name(); });
}

}  // namespace ptxpy
