// Errors and source locations: a ptx::Error becomes ptxpp.Error whose message starts
// with the user's Python file:line (the frame that called into the DSL).
#include <Python.h>
#include <frameobject.h>

#include <mutex>
#include <string>
#include <unordered_set>

#include <nanobind/stl/string.h>
#include <ptxpp/runtime/error.hpp>

#include "common.hpp"

namespace ptxpy {

namespace {
std::string g_package_dir;  // frames of files under it are ptxpp's own, skipped
thread_local bool g_locations = false;
nb::object g_error_type;  // ptxpp.Error

bool in_package(std::string_view file) {
  return !g_package_dir.empty() && file.substr(0, g_package_dir.size()) == g_package_dir;
}
}  // namespace

const char* intern_file(const std::string& file) {
  static std::mutex mu;
  static std::unordered_set<std::string> files;
  std::lock_guard lock(mu);
  return files.insert(file).first->c_str();
}

ptx::SourceLocation python_location() {
  PyFrameObject* f = PyEval_GetFrame();  // borrowed
  Py_XINCREF(f);
  while (f != nullptr) {
    PyCodeObject* code = PyFrame_GetCode(f);
    nb::object filename = nb::steal(PyObject_GetAttrString(reinterpret_cast<PyObject*>(code), "co_filename"));
    Py_DECREF(code);
    const char* file = filename.is_valid() ? PyUnicode_AsUTF8(filename.ptr()) : nullptr;
    if (file == nullptr) PyErr_Clear();
    if (file != nullptr && !in_package(file)) {
      const int line = PyFrame_GetLineNumber(f);
      Py_DECREF(f);
      return ptx::SourceLocation::current(intern_file(file), static_cast<uint32_t>(line), 0);
    }
    PyFrameObject* back = PyFrame_GetBack(f);
    Py_DECREF(f);
    f = back;
  }
  return {};
}

ptx::SourceLocation here() { return g_locations ? python_location() : ptx::SourceLocation{}; }

bool locations_on() { return g_locations; }

LocationScope::LocationScope(bool on) : saved_(g_locations) { g_locations = on; }
LocationScope::~LocationScope() { g_locations = saved_; }

void check_same_trace(uint32_t trace, const char* what) {
  if (trace != ptx::dsl::running_trace_id())
    throw ptx::Error(std::string(what) + " made in another trace (or outside one) cannot be used here", {});
}

namespace {
std::string located(const ptx::Error& e) {
  if (e.where().line() != 0) return e.what();
  const ptx::SourceLocation l = python_location();
  if (l.line() == 0) return e.message();
  return std::string(l.file_name()) + ":" + std::to_string(l.line()) + ": " + e.message();
}
}  // namespace

void bind_errors(nb::module_& m) {
  g_error_type = nb::steal(PyErr_NewExceptionWithDoc(
      "ptxpp._core.Error", "A kernel that cannot be traced, checked or run: the message starts with the user's line.",
      PyExc_RuntimeError, nullptr));
  m.attr("Error") = g_error_type;
  m.def("_set_package_dir", [](std::string dir) { g_package_dir = std::move(dir); });
  m.def("_location", [] {
    const ptx::SourceLocation l = python_location();
    return nb::make_tuple(std::string(l.file_name()), l.line());
  });
  nb::register_exception_translator([](const std::exception_ptr& p, void*) {
    try {
      std::rethrow_exception(p);
    } catch (const ptx::Error& e) {
      PyErr_SetString(g_error_type.ptr(), located(e).c_str());
    } catch (const ptx::runtime::Error& e) {
      PyErr_SetString(g_error_type.ptr(), e.what());
    }
  });
}

}  // namespace ptxpy
