// ptxpp._core.TorchGate: the checks of ptxpp._torch_eager.eager (may a call on torch tensors skip
// the kernel's torch op?) in C++, and that gate and the plan of a repeated call (gpu_plan.cpp) as
// one call: in Python the gate's dozen attribute reads and calls cost more than the launch. It
// holds torch's callables, bound once; torch.compiler.is_compiling stays in Python, read before
// this is called (dynamo folds it and must not trace into C++). The checks and their order are
// eager()'s; a Python error in any of them propagates, as it did there.
#include "common.hpp"

namespace ptxpy {

namespace {

PyObject* checked(PyObject* o) {  // a new reference, or the Python error raised
  if (o == nullptr) throw nb::python_error();
  return o;
}

bool truth(PyObject* o) {  // bool(o), stealing o
  nb::object owned = nb::steal(checked(o));
  const int t = PyObject_IsTrue(owned.ptr());
  if (t < 0) throw nb::python_error();
  return t != 0;
}

struct TorchGate {
  nb::object function_mode, dispatch_modes, transforms, jit_tracing, grad_enabled;
  nb::object forward_ad;  // its _current_level is read at each call (-1 outside a dual_level())
  nb::object tensor, parameter;

  // Whether a call on args may bypass the op (but for is_compiling, which the caller read first).
  bool eager(nb::handle args) const {
    if (truth(PyObject_CallNoArgs(function_mode.ptr())) || truth(PyObject_CallNoArgs(dispatch_modes.ptr())))
      return false;
    if (!nb::steal(checked(PyObject_CallNoArgs(transforms.ptr()))).is_none()) return false;
    if (truth(PyObject_CallNoArgs(jit_tracing.ptr()))) return false;
    static PyObject* const current_level = PyUnicode_InternFromString("_current_level");
    static PyObject* const zero = PyLong_FromLong(0);
    nb::object level = nb::steal(checked(PyObject_GetAttr(forward_ad.ptr(), current_level)));
    if (truth(PyObject_RichCompare(level.ptr(), zero, Py_GE))) return false;
    nb::object grad = nb::steal(checked(PyObject_CallNoArgs(grad_enabled.ptr())));
    nb::object seq = nb::steal(checked(PySequence_Fast(args.ptr(), "args")));
    static PyObject* const requires_grad = PyUnicode_InternFromString("requires_grad");
    const Py_ssize_t n = PySequence_Fast_GET_SIZE(seq.ptr());
    for (Py_ssize_t i = 0; i < n; ++i) {
      PyObject* a = PySequence_Fast_GET_ITEM(seq.ptr(), i);
      PyObject* t = reinterpret_cast<PyObject*>(Py_TYPE(a));
      if (t == tensor.ptr() || t == parameter.ptr()) {
        if (truth(nb::borrow(grad).release().ptr()) && truth(PyObject_GetAttr(a, requires_grad))) return false;
      } else if (t != reinterpret_cast<PyObject*>(&PyFloat_Type) && t != reinterpret_cast<PyObject*>(&PyLong_Type)) {
        const int sub = PyObject_IsInstance(a, tensor.ptr());  // a subclass: FakeTensor, DTensor, ...
        if (sub < 0) throw nb::python_error();
        if (sub) return false;
      }
    }
    return true;
  }

  // False: not eager (the op); else the result of the plan for this call (after its launch), or None
  // (no plan: the caller takes the full path when the tensors are CUDA ones).
  nb::object call(nb::handle signatures, nb::handle scalar_names, nb::handle args, nb::handle kwargs) const {
    if (!eager(args)) return nb::bool_(false);
    if (!PyDict_Check(signatures.ptr()) || PyDict_Size(signatures.ptr()) == 0) return nb::none();
    return plan_call(nb::borrow<nb::dict>(signatures), scalar_names, args, kwargs);
  }
};

}  // namespace

void bind_torch_gate(nb::module_& m) {
  nb::class_<TorchGate>(m, "TorchGate", "ptxpp._torch_eager's gate (all but is_compiling) and plan hit, in C++")
      .def(nb::init<nb::object, nb::object, nb::object, nb::object, nb::object, nb::object, nb::object, nb::object>(),
           nb::arg("function_mode"), nb::arg("dispatch_modes"), nb::arg("transforms"), nb::arg("jit_tracing"),
           nb::arg("grad_enabled"), nb::arg("forward_ad"), nb::arg("tensor"), nb::arg("parameter"))
      .def("eager", &TorchGate::eager, nb::arg("args"),
           "Whether a call on args may bypass the torch op (is_compiling read first by the caller)")
      .def("call", &TorchGate::call, nb::arg("signatures"), nb::arg("scalar_names"), nb::arg("args"),
           nb::arg("kwargs"), "False: not eager; else the planned call's result (launched), or None: no plan");
}

}  // namespace ptxpy
