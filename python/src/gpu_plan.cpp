// The hot path of a repeated call on CUDA arrays (ptxpp._gpu_plan): a PlanSignature reads each
// array argument's facts (what the full path's checks read: shape, dtype, strides, read-only,
// device) and address, finds the Plan stored for those facts, packs the scalars as struct does,
// allocates missing outputs (a Python callable), and launches. Whatever cannot be read or packed
// (another producer, a scalar out of range, an exception) is a miss: None, and the Python full
// path checks the call and names the error. Errors of the launch itself propagate.
#include <array>
#include <climits>
#include <cstring>

#include <nanobind/stl/pair.h>
#include <nanobind/stl/tuple.h>
#include <nanobind/stl/vector.h>

#include "common.hpp"
#include "gpu_kernel.hpp"

namespace ptxpy {

namespace {

// How an array argument is read, in the order ptxpp._gpu_call._GpuArg and _call._device_of look.
enum class Reader : uint8_t { Interface, InterfaceDlpackDevice, Torch, Dlpack };

// How a scalar becomes its slot's bytes: struct's packing (ptxpp._call._scalar_bytes), or a Python callable.
enum class Pack : uint8_t { F16, F32, F64, Signed, Unsigned, Python };

struct Read {
  nb::object facts;
  uint64_t ptr = 0;
  nb::object stream;  // the __cuda_array_interface__'s "stream" (None when it names none)
};

// nb::isinstance<T>, with T's type looked up once (nanobind looks it up by typeid at each call).
template <class T>
bool is_instance(PyObject* o) {
  static PyTypeObject* const type = reinterpret_cast<PyTypeObject*>(nb::type<T>().ptr());
  return PyObject_TypeCheck(o, type);
}

// A miss: the reading or packing failed (a Python error, cleared), or a fact was not what a plan holds.
struct Miss {};

void check(bool ok) {
  if (!ok) throw Miss{};
}

PyObject* checked(PyObject* o) {  // a new reference, or a miss
  check(o != nullptr);
  return o;
}

// Attribute and key names, interned once (a lookup by C string makes a str object each time).
struct Names {
  PyObject* cai = PyUnicode_InternFromString("__cuda_array_interface__");
  PyObject* shape = PyUnicode_InternFromString("shape");
  PyObject* typestr = PyUnicode_InternFromString("typestr");
  PyObject* data = PyUnicode_InternFromString("data");
  PyObject* strides = PyUnicode_InternFromString("strides");
  PyObject* stream = PyUnicode_InternFromString("stream");
  PyObject* dtype = PyUnicode_InternFromString("dtype");
  PyObject* is_cuda = PyUnicode_InternFromString("is_cuda");
  PyObject* get_device = PyUnicode_InternFromString("get_device");
  PyObject* is_contiguous = PyUnicode_InternFromString("is_contiguous");
  PyObject* data_ptr = PyUnicode_InternFromString("data_ptr");
  PyObject* dlpack_device = PyUnicode_InternFromString("__dlpack_device__");
};

const Names& names() {
  static const Names* n = new Names;  // kept for the process (module state would outlive no interpreter here)
  return *n;
}

nb::object attr(PyObject* o, PyObject* name) { return nb::steal(checked(PyObject_GetAttr(o, name))); }

nb::object call_method(PyObject* a, PyObject* name) { return nb::steal(checked(PyObject_CallMethodNoArgs(a, name))); }

uint64_t to_u64(PyObject* o) {  // int(o), as an address or stream
  nb::object v = nb::steal(checked(PyNumber_Long(o)));
  const unsigned long long u = PyLong_AsUnsignedLongLong(v.ptr());
  check(!(u == static_cast<unsigned long long>(-1) && PyErr_Occurred()));
  return u;
}

Read read_interface(PyObject* a) {
  const Names& n = names();
  nb::object cai = attr(a, n.cai);
  check(PyDict_CheckExact(cai.ptr()));  // another mapping: the full path reads it
  PyObject* shape = PyDict_GetItem(cai.ptr(), n.shape);
  PyObject* typestr = PyDict_GetItem(cai.ptr(), n.typestr);
  PyObject* data = PyDict_GetItem(cai.ptr(), n.data);
  check(shape && typestr && data && PyTuple_Check(data) && PyTuple_GET_SIZE(data) == 2);
  PyObject* strides = PyDict_GetItem(cai.ptr(), n.strides);
  PyObject* stream = PyDict_GetItem(cai.ptr(), n.stream);
  const int readonly = PyObject_IsTrue(PyTuple_GET_ITEM(data, 1));
  check(readonly >= 0);
  PyObject* facts = checked(PyTuple_New(4));
  Read r;
  r.facts = nb::steal(facts);
  PyTuple_SET_ITEM(facts, 0, checked(PySequence_Tuple(shape)));
  PyTuple_SET_ITEM(facts, 1, nb::borrow(typestr).release().ptr());
  PyTuple_SET_ITEM(facts, 2, nb::borrow(strides ? strides : Py_None).release().ptr());
  PyTuple_SET_ITEM(facts, 3, nb::borrow(readonly ? Py_True : Py_False).release().ptr());
  r.ptr = to_u64(PyTuple_GET_ITEM(data, 0));
  r.stream = nb::borrow(stream ? stream : Py_None);
  return r;
}

nb::object dlpack_device(PyObject* a) {
  return nb::steal(checked(PySequence_Tuple(call_method(a, names().dlpack_device).ptr())));
}

// The device as is_cuda and get_device() (tensor.device makes a torch.device object: about
// 0.5 us a tensor, against 0.07 for each of these).
Read read_torch(PyObject* t) {
  const Names& n = names();
  nb::object shape = attr(t, n.shape);
  if (!PyTuple_Check(shape.ptr())) shape = nb::steal(checked(PySequence_Tuple(shape.ptr())));  // torch.Size is a tuple (its hash and ==)
  Read r;
  r.facts = nb::make_tuple(attr(t, n.dtype), shape, attr(t, n.is_cuda),
                           call_method(t, n.get_device), call_method(t, n.is_contiguous));
  r.ptr = to_u64(call_method(t, n.data_ptr).ptr());
  r.stream = nb::none();
  return r;
}

Read read_dlpack(PyObject* a) {
  const nb::tuple d = dlpack_cuda(nb::cast<nb::ndarray<nb::device::cuda>>(nb::handle(a)));  // not CUDA: a miss
  Read r;
  r.facts = nb::make_tuple(d[1], d[2], d[3], dlpack_device(a));
  r.ptr = nb::cast<uint64_t>(d[0]);
  r.stream = nb::none();
  return r;
}

Read read(Reader how, PyObject* a) {
  switch (how) {
    case Reader::Interface: return read_interface(a);
    case Reader::InterfaceDlpackDevice: {
      Read r = read_interface(a);
      r.facts = nb::make_tuple(r.facts[0], r.facts[1], r.facts[2], r.facts[3], dlpack_device(a));
      return r;
    }
    case Reader::Torch: return read_torch(a);
    case Reader::Dlpack: return read_dlpack(a);
  }
  throw Miss{};
}

// A scalar's bytes into its slot, as struct.pack with the format of its type (PyFloat_Pack*: the
// same rounding; out of range: a miss, which the full path names).
#if PY_VERSION_HEX >= 0x030B0000
#define PTXPY_PACK(n) PyFloat_Pack##n
#else
#define PTXPY_PACK(n) _PyFloat_Pack##n
#endif

uint64_t pack_int(PyObject* value, uint8_t bytes, bool is_signed) {
  nb::object v = nb::steal(checked(PyNumber_Index(value)));
  int overflow = 0;
  const long long s = PyLong_AsLongLongAndOverflow(v.ptr(), &overflow);
  check(!(s == -1 && PyErr_Occurred()));
  const unsigned bits = 8u * bytes;
  if (is_signed) {
    const long long low = bits == 64 ? LLONG_MIN : -(1LL << (bits - 1)), high = bits == 64 ? LLONG_MAX : (1LL << (bits - 1)) - 1;
    check(overflow == 0 && s >= low && s <= high);
    return static_cast<uint64_t>(s) & (bits == 64 ? ~0ULL : (1ULL << bits) - 1);
  }
  if (overflow > 0) {  // past a long long: a u64 may still take it
    const unsigned long long u = PyLong_AsUnsignedLongLong(v.ptr());
    check(bits == 64 && !(u == ULLONG_MAX && PyErr_Occurred()));
    return u;
  }
  check(overflow == 0 && s >= 0 && (bits == 64 || static_cast<unsigned long long>(s) <= (1ULL << bits) - 1));
  return static_cast<uint64_t>(s);
}

uint64_t pack(Pack how, uint8_t bytes, PyObject* value, const nb::object& python) {
  uint64_t slot = 0;
  char* out = reinterpret_cast<char*>(&slot);
  switch (how) {
    case Pack::F16:
    case Pack::F32:
    case Pack::F64: {
      const double d = PyFloat_AsDouble(value);
      check(!(d == -1.0 && PyErr_Occurred()));
      const int rc = how == Pack::F16 ? PTXPY_PACK(2)(d, out, 1) : how == Pack::F32 ? PTXPY_PACK(4)(d, out, 1) : PTXPY_PACK(8)(d, out, 1);
      check(rc == 0);
      return slot;
    }
    case Pack::Signed:
    case Pack::Unsigned: return pack_int(value, bytes, how == Pack::Signed);
    case Pack::Python: {
      nb::object b = nb::steal(checked(PyObject_CallOneArg(python.ptr(), value)));
      char* data = nullptr;
      Py_ssize_t size = 0;
      check(PyBytes_Check(b.ptr()) && PyBytes_AsStringAndSize(b.ptr(), &data, &size) == 0 && size == bytes);
      std::memcpy(out, data, static_cast<size_t>(size));
      return slot;
    }
  }
  throw Miss{};
}

struct ScalarSlot {
  size_t param;
  nb::object where;  // a position in args (int) or a keyword's name (str)
  Pack how;
  uint8_t bytes;
  nb::object python;  // Pack::Python: value -> bytes
};

struct Allocation {
  size_t param;
  nb::object allocate;  // (the first array) -> a new output
  Reader reader;        // how to read its address
};

// One signature's launch (ptxpp._gpu_call._plan builds it).
struct Plan {
  nb::object bound;  // GpuKernel
  std::vector<size_t> array_params;  // the parameter of each array argument, in args order
  std::vector<ScalarSlot> scalars;
  std::vector<Allocation> allocations;
  std::vector<std::pair<bool, size_t>> outputs;  // (allocated, index: into allocations, else a position in args)
  nb::object stream_of;  // None: the first array's __cuda_array_interface__ stream (or 0); else () -> CUstream
  size_t first_pos;      // the first array's position in args

  // Fills the slots and the stream, allocates the outputs: the call's result once launched.
  nb::object prepare(const nb::tuple& args, const nb::dict& kwargs, const std::vector<Read>& reads, uint64_t* slots,
                     uint64_t& stream) const {
    check(array_params.size() == reads.size());
    for (size_t k = 0; k < reads.size(); ++k) slots[array_params[k]] = reads[k].ptr;
    for (const ScalarSlot& s : scalars) {
      PyObject* value = PyLong_Check(s.where.ptr()) ? PyTuple_GetItem(args.ptr(), PyLong_AsSsize_t(s.where.ptr()))
                                                    : PyDict_GetItem(kwargs.ptr(), s.where.ptr());
      check(value != nullptr);
      slots[s.param] = pack(s.how, s.bytes, value, s.python);
    }
    stream = 0;
    if (stream_of.is_none()) {
      if (!reads.empty() && !reads[0].stream.is_none()) stream = to_u64(reads[0].stream.ptr());
    } else {
      stream = to_u64(nb::steal(checked(PyObject_CallNoArgs(stream_of.ptr()))).ptr());
    }
    std::vector<nb::object> made;
    made.reserve(allocations.size());
    for (const Allocation& a : allocations) {
      PyObject* first = PyTuple_GetItem(args.ptr(), static_cast<Py_ssize_t>(first_pos));
      check(first != nullptr);
      made.push_back(nb::steal(checked(PyObject_CallOneArg(a.allocate.ptr(), first))));
      slots[a.param] = read(a.reader, made.back().ptr()).ptr;
    }
    if (outputs.size() == 1) return output(args, made, outputs[0]);
    nb::object all = nb::steal(checked(PyTuple_New(static_cast<Py_ssize_t>(outputs.size()))));
    for (size_t k = 0; k < outputs.size(); ++k)
      PyTuple_SET_ITEM(all.ptr(), static_cast<Py_ssize_t>(k), output(args, made, outputs[k]).release().ptr());
    return all;
  }

  static nb::object output(const nb::tuple& args, const std::vector<nb::object>& made, const std::pair<bool, size_t>& o) {
    return o.first ? made[o.second] : nb::borrow(PyTuple_GetItem(args.ptr(), static_cast<Py_ssize_t>(o.second)));
  }
};

// The plans of calls whose arguments have the same types and keywords: how to read their arrays,
// and a Plan per tuple of the arrays' facts.
struct PlanSignature {
  std::vector<std::pair<size_t, Reader>> arrays;  // (position in args, reader)
  nb::dict plans;

  std::vector<Read> read_all(const nb::tuple& args) const {
    std::vector<Read> reads;
    reads.reserve(arrays.size());
    for (const auto& [pos, how] : arrays) {
      check(pos < args.size());
      reads.push_back(read(how, PyTuple_GET_ITEM(args.ptr(), static_cast<Py_ssize_t>(pos))));
    }
    return reads;
  }

  static nb::object facts_of(const std::vector<Read>& reads) {
    nb::object t = nb::steal(checked(PyTuple_New(static_cast<Py_ssize_t>(reads.size()))));
    for (size_t k = 0; k < reads.size(); ++k) PyTuple_SET_ITEM(t.ptr(), static_cast<Py_ssize_t>(k), reads[k].facts.inc_ref().ptr());
    return t;
  }

  // The call's outputs after its launch, or None: no plan for its facts, or it could not be read or packed
  // (the full path then checks the call). The launch's own errors propagate.
  nb::object run(const nb::tuple& args, const nb::dict& kwargs) const {
    std::array<uint64_t, kMaxParams> slots{};
    uint64_t stream = 0;
    nb::object plan_ref, result;  // plan_ref: the plan alive while Python code (an allocation) runs
    try {
      const std::vector<Read> reads = read_all(args);
      PyObject* p = PyDict_GetItemWithError(plans.ptr(), facts_of(reads).ptr());
      check(p != nullptr && is_instance<Plan>(p));
      plan_ref = nb::borrow(p);
      result = nb::inst_ptr<Plan>(plan_ref)->prepare(args, kwargs, reads, slots.data(), stream);
    } catch (const Miss&) {
      PyErr_Clear();
      return nb::none();
    } catch (const std::exception&) {  // a Python error on the way (nb::python_error, nb::cast_error)
      PyErr_Clear();
      return nb::none();
    }
    launch_slots(*nb::inst_ptr<GpuKernel>(nb::inst_ptr<Plan>(plan_ref)->bound), slots.data(), stream);
    return result;
  }

  nb::object facts(const nb::tuple& args) const {  // for storing a plan: the same reading as run's
    try {
      return facts_of(read_all(args));
    } catch (const Miss&) {
      PyErr_Clear();
      return nb::none();
    }
  }
};

// The signature's key: (the arguments' types, the keywords: (name, type) for a scalar, (name, type, value)
// else: 1, 1.0 and True are equal dict keys).
nb::object signature_key(const nb::handle& scalar_names, const nb::tuple& args, const nb::dict& kwargs) {
  const Py_ssize_t n = PyTuple_GET_SIZE(args.ptr());
  nb::object types = nb::steal(checked(PyTuple_New(n)));
  for (Py_ssize_t i = 0; i < n; ++i)
    PyTuple_SET_ITEM(types.ptr(), i, nb::borrow(reinterpret_cast<PyObject*>(Py_TYPE(PyTuple_GET_ITEM(args.ptr(), i)))).release().ptr());
  nb::object keywords = nb::steal(checked(PyTuple_New(PyDict_Size(kwargs.ptr()))));
  Py_ssize_t pos = 0, k = 0;
  PyObject *name, *value;
  while (PyDict_Next(kwargs.ptr(), &pos, &name, &value)) {
    const int scalar = PySet_Contains(scalar_names.ptr(), name);
    check(scalar >= 0);
    nb::handle type(reinterpret_cast<PyObject*>(Py_TYPE(value)));
    nb::object item = scalar ? nb::make_tuple(nb::handle(name), type) : nb::make_tuple(nb::handle(name), type, nb::handle(value));
    PyTuple_SET_ITEM(keywords.ptr(), k++, item.release().ptr());
  }
  return nb::make_tuple(types, keywords);
}

}  // namespace

nb::object plan_call(const nb::dict& signatures, const nb::handle& scalar_names, const nb::handle& args_, const nb::handle& kwargs_) {
  if (!PyTuple_CheckExact(args_.ptr()) || !PyDict_CheckExact(kwargs_.ptr())) return nb::none();  // not from a call: the full path
  const nb::tuple args = nb::borrow<nb::tuple>(args_);
  const nb::dict kwargs = nb::borrow<nb::dict>(kwargs_);
  PyObject* signature = nullptr;
  try {
    signature = PyDict_GetItemWithError(signatures.ptr(), signature_key(scalar_names, args, kwargs).ptr());
  } catch (const Miss&) {
  }
  if (signature == nullptr || !is_instance<PlanSignature>(signature)) {
    PyErr_Clear();  // an unhashable keyword value: the full path
    return nb::none();
  }
  nb::object keep = nb::borrow(signature);
  return nb::inst_ptr<PlanSignature>(keep)->run(args, kwargs);
}

void bind_gpu_plan(nb::module_& m) {
  m.def("plan_key", [](nb::handle scalar_names, const nb::tuple& args, const nb::dict& kwargs) {
    try {
      return signature_key(scalar_names, args, kwargs);
    } catch (const Miss&) {
      throw nb::python_error();
    }
  }, nb::arg("scalar_names"), nb::arg("args"), nb::arg("kwargs"), "A call's signature key (ptxpp._gpu_plan)");
  m.def("plan_call", &plan_call, nb::arg("signatures"), nb::arg("scalar_names"), nb::arg("args"), nb::arg("kwargs"),
        "The result of a call whose signature has a plan in `signatures` (after its launch), else None");
  nb::enum_<Reader>(m, "PlanReader")
      .value("Interface", Reader::Interface)
      .value("InterfaceDlpackDevice", Reader::InterfaceDlpackDevice)
      .value("Torch", Reader::Torch)
      .value("Dlpack", Reader::Dlpack);
  nb::enum_<Pack>(m, "PlanPack")
      .value("F16", Pack::F16)
      .value("F32", Pack::F32)
      .value("F64", Pack::F64)
      .value("Signed", Pack::Signed)
      .value("Unsigned", Pack::Unsigned)
      .value("Python", Pack::Python);
  nb::class_<Plan>(m, "Plan", "One signature's launch of a repeated call on CUDA arrays (ptxpp._gpu_plan)")
      .def("__init__",
           [](Plan* p, nb::object bound, std::vector<size_t> array_params,
              const std::vector<std::tuple<size_t, nb::object, Pack, uint8_t, nb::object>>& scalars,
              const std::vector<std::tuple<size_t, nb::object, Reader>>& allocations,
              std::vector<std::pair<bool, size_t>> outputs, nb::object stream_of, size_t first_pos) {
             if (!nb::isinstance<GpuKernel>(bound)) throw nb::type_error("Plan: bound is a GpuKernel");
             std::vector<ScalarSlot> s;
             for (const auto& [param, where, how, bytes, python] : scalars) s.push_back({param, where, how, bytes, python});
             std::vector<Allocation> a;
             for (const auto& [param, allocate, reader] : allocations) a.push_back({param, allocate, reader});
             new (p) Plan{std::move(bound), std::move(array_params), std::move(s), std::move(a), std::move(outputs),
                          std::move(stream_of), first_pos};
           },
           nb::arg("bound"), nb::arg("array_params"), nb::arg("scalars"), nb::arg("allocations"), nb::arg("outputs"),
           nb::arg("stream_of").none(), nb::arg("first_pos"));
  nb::class_<PlanSignature>(m, "PlanSignature", "The plans of calls with the same argument types and keywords")
      .def("__init__", [](PlanSignature* s, std::vector<std::pair<size_t, Reader>> arrays) {
        new (s) PlanSignature{std::move(arrays), nb::dict()};
      })
      .def_ro("plans", &PlanSignature::plans)
      .def("run", &PlanSignature::run, nb::arg("args"), nb::arg("kwargs"),
           "The call's outputs after its launch, or None when no plan has its facts")
      .def("facts", &PlanSignature::facts, nb::arg("args"), "The arrays' facts as run reads them (None: unreadable)");
}

}  // namespace ptxpy
