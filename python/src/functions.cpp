// Device functions, modules and calls from Python: the C++ ptx::Func (a .func with typed
// parameters and a return value, its body a Python function), ptx::call, and ptx::Module (module
// variables, functions and kernels traced into one PTX module; Module::trace for running one of
// its kernels). The body's argument object is valid during that trace only, as a kernel's
// parameter objects (kernel.cpp).
#include <fmt/format.h>
#include <nanobind/stl/map.h>
#include <nanobind/stl/optional.h>
#include <nanobind/stl/shared_ptr.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/vector.h>

#include "common.hpp"

namespace ptxpy {

namespace {

// A device function's parameters and return value inside its body (C++'s FuncArgs).
struct PyFuncArgs {
  const ptx::FuncArgs* args;  // valid while `alive`
  std::string func;
  bool alive = true;
  const ptx::FuncArgs& get() const {
    if (!alive) throw ptx::Error(fmt::format("the arguments of {} are used after its trace ended", func), {});
    return *args;
  }
};

// The body as ptx::Module calls it: the argument object, the Python function, then the object retired.
void run_func_body(const nb::callable& f, const std::string& name, const ptx::FuncArgs& a) {
  nb::object o = nb::cast(PyFuncArgs{&a, name, true});
  struct Retire {
    nb::object& o;
    ~Retire() { nb::inst_ptr<PyFuncArgs>(o)->alive = false; }
  } retire{o};
  f(o);
}

// ptx::call with Python arguments: registers, ints, floats (f64 for an f64 parameter), operands.
nb::object call_func(const ptx::Func& f, nb::handle args) {
  if (!nb::isinstance<nb::list>(args) && !nb::isinstance<nb::tuple>(args))
    throw nb::type_error(fmt::format("calling {}: the arguments are a list or tuple", f.name()).c_str());
  std::vector<ptx::Operand> ops;
  size_t i = 0;
  for (nb::handle a : args) {
    const ptx::DType t = i < f.params().size() ? f.params()[i] : ptx::DType::none;
    ops.push_back(to_operand(a, floats_for(t)));
    ++i;
  }
  ptx::Reg r = ptx::call(f, ops, here());
  if (!r.valid()) return nb::none();
  return make_reg(std::move(r));
}

ptx::SourceLocation location_of(const std::string& file, uint32_t line) {
  return ptx::SourceLocation::current(intern_file(file), line, 0);
}

void bind_func(nb::module_& m) {
  nb::class_<PyFuncArgs>(m, "FuncArgs", "A device function's parameters and return value inside its body")
      .def(
          "param", [](const PyFuncArgs& a, size_t i) { return make_reg(a.get().param(i, here())); }, nb::arg("i"),
          "ld.param: parameter i (one instruction)")
      .def(
          "ret", [](const PyFuncArgs& a, nb::handle value) { a.get().ret(reg_of(value), here()); }, nb::arg("value"),
          "st.param of the return value, then ret (two instructions)");
  nb::class_<ptx::Func>(m, "Func", "The C++ DSL's device function with a Python body (ptxpp.func builds these)")
      .def(
          "__init__",
          [](ptx::Func* self, const std::string& name, const std::string& file, uint32_t line) {
            new (self) ptx::Func(name, location_of(file, line));
          },
          nb::arg("name"), nb::arg("file") = "", nb::arg("line") = 0)
      .def(
          "ret", [](ptx::Func& f, ptx::DType t) { f.ret(t); }, nb::arg("dtype"))
      .def(
          "param", [](ptx::Func& f, ptx::DType t) { f.param(t); }, nb::arg("dtype"))
      .def(
          "body",
          [](ptx::Func& f, nb::callable body) {
            f.body([body = std::move(body), name = f.name()](const ptx::FuncArgs& a) { run_func_body(body, name, a); });
          },
          nb::arg("f"))
      .def_prop_ro("name", [](const ptx::Func& f) { return f.name(); })
      .def_prop_ro("ret_type", [](const ptx::Func& f) { return f.ret_type(); })
      .def_prop_ro("params", [](const ptx::Func& f) { return f.params(); });
  m.def("call", &call_func, nb::arg("f"), nb::arg("args"),
        ".param/st.param per argument, call.uni (retval), f, (params...); ld.param: the result (None: void)");
}

void bind_module_class(nb::module_& m) {
  nb::class_<ptx::Module>(m, "Module",
                          "The C++ DSL's module: variables, device functions and kernels in one PTX module")
      .def(nb::init<>())
      .def("arch", [](ptx::Module& mod, const std::string& a) { mod.arch(a, python_location()); })
      .def("ptx_version", [](ptx::Module& mod, int major, int minor) { mod.ptx_version(major, minor); })
      .def("debug", [](ptx::Module& mod, bool on) { mod.debug(on); })
      .def(
          "global_",
          [](ptx::Module& mod, const std::string& name, ptx::DType t, uint32_t count, std::vector<double> init,
             uint32_t align) { mod.global(name, t, count, std::move(init), align); },
          nb::arg("name"), nb::arg("dtype"), nb::arg("count") = 0, nb::arg("init") = std::vector<double>{},
          nb::arg("align") = 0)
      .def(
          "constant",
          [](ptx::Module& mod, const std::string& name, ptx::DType t, uint32_t count, std::vector<double> init,
             uint32_t align) { mod.constant(name, t, count, std::move(init), align); },
          nb::arg("name"), nb::arg("dtype"), nb::arg("count") = 0, nb::arg("init") = std::vector<double>{},
          nb::arg("align") = 0)
      .def("add_func", [](ptx::Module& mod, const ptx::Func& f) { mod.add(f); })
      .def("add_kernel", [](ptx::Module& mod, const ptx::Kernel& k) { mod.add(k); })
      .def(
          "ptx",
          [](const ptx::Module& mod, const ptx::Bindings& b, bool debug) {
            LocationScope locations(debug);
            return mod.ptx(b);
          },
          nb::arg("bindings"), nb::arg("debug") = false)
      .def(
          "trace",
          [](const ptx::Module& mod, const std::string& kernel, const ptx::Bindings& b, bool debug) {
            LocationScope locations(debug);
            return mod.trace(kernel, b);
          },
          nb::arg("kernel"), nb::arg("bindings"), nb::arg("debug") = false);
}

}  // namespace

void bind_functions(nb::module_& m) {
  bind_func(m);
  bind_module_class(m);
}

}  // namespace ptxpy
