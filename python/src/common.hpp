// Shared by the binding files of ptxpp._core: the Python-side handles of DSL values
// and the conversions between Python objects and ptx::Operand.
//
// Handles never copy a ptx::Reg (a copy emits a mov): they are move-only, and an
// element of a register array is an alias made with Reg::adopt (emits nothing).
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include <nanobind/nanobind.h>
#include <ptxpp/dsl.hpp>

namespace ptxpy {

namespace nb = nanobind;

// ---- source locations -------------------------------------------------------------
// The innermost Python frame outside the ptxpp package: the user's line.
ptx::SourceLocation python_location();
// python_location() while a kernel with .debug() is traced (for .loc), else no location:
// errors get the user's line when they are raised (errors.cpp), which costs nothing here.
ptx::SourceLocation here();
// Whether a LocationScope has turned them on.
bool locations_on();
// Turns locations on for the scope (debug traces).
class LocationScope {
 public:
  explicit LocationScope(bool on);
  ~LocationScope();
  LocationScope(const LocationScope&) = delete;
  LocationScope& operator=(const LocationScope&) = delete;

 private:
  bool saved_;
};
// A file name that lives as long as the process (SourceLocation keeps a const char*).
const char* intern_file(const std::string& file);

// ---- handles ----------------------------------------------------------------------
ptx::Reg alias(const ptx::Reg& r);  // another handle to r's register (no instruction)

struct PyReg {
  ptx::Reg reg;
  explicit PyReg(ptx::Reg&& r) : reg(std::move(r)) {}
  PyReg(const PyReg&) = delete;
  PyReg& operator=(const PyReg&) = delete;
  PyReg(PyReg&&) = default;
  PyReg& operator=(PyReg&&) = default;
};

// `~p`: a negated predicate operand or guard (no instruction).
struct PyNotPred {
  ptx::Reg reg;
};

// An operand made by ptx.addr, ptx.vec, a special register, ...: usable in the trace it was made in.
struct PyOperand {
  ptx::Operand op;
  uint32_t trace;
};

struct PyLabel {
  ptx::Label label;
  uint32_t trace;
};

struct PySink {};

struct PyRegArray {
  ptx::RegArray regs;
};

// ---- conversions ------------------------------------------------------------------
// How a Python float becomes an immediate: f32 (0fXXXXXXXX, rounded to nearest) or f64.
enum class FloatAs : uint8_t { F32, F64 };
// A Python value as an operand: registers, `~p`, operands, labels, ints, floats, the
// sink, lists/tuples (vectors). Raises TypeError for anything else.
ptx::Operand to_operand(nb::handle h, FloatAs floats);
// The same, or false when h is no operand-like value (for operators: NotImplemented).
bool try_operand(nb::handle h, FloatAs floats, ptx::Operand& out);
FloatAs floats_for(ptx::DType register_type);
ptx::Reg& reg_of(nb::handle h);  // a PyReg, or TypeError
void check_same_trace(uint32_t trace, const char* what);

// Assigns a value to a register with the rename rule: a register written by the
// instruction just emitted becomes `dst` there (the Python handle then names dst's
// register); anything else is a mov.
void assign(ptx::Reg& dst, nb::handle value);

nb::object make_reg(ptx::Reg&& r);
nb::object make_reg_array(ptx::RegArray&& regs);
// The label handle of the running trace.
nb::object make_label(ptx::Label&& l);
const ptx::Label& label_of(nb::handle h);  // a ptx.Label of the running trace, or TypeError
// The registers of a reg.array result, or TypeError.
const ptx::RegArray& reg_array_of(nb::handle h);
// The C++ buffer of a smem.alloc result (of the running trace), or TypeError.
const ptx::smem::Buffer& buffer_of(nb::handle h);
// The C++ mbarrier of a ptx.hopper.Mbarrier (of the running trace), or TypeError.
const ptx::hopper::Mbarrier& mbarrier_of(nb::handle h);
bool is_mbarrier(nb::handle h);
// The Python spelling of a modifier or name of the ISA table: the leading dot dropped,
// `::` -> `_`, a leading digit gets `_`, a Python keyword a trailing `_` (global_, and_).
std::string python_name(std::string_view ptx_spelling);

// ---- binding entry points (one per file) ------------------------------------------
void bind_errors(nb::module_& m);
void bind_operands(nb::module_& m);
void bind_regs(nb::module_& m);
void bind_chains(nb::module_& m);
void bind_control(nb::module_& m);
void bind_kernel(nb::module_& m);
void bind_functions(nb::module_& m);
void bind_smem_warp(nb::module_& m);
void bind_run(nb::module_& m);
void bind_gpu_launch(nb::module_& m);
void bind_gpu_plan(nb::module_& m);
void bind_torch_gate(nb::module_& m);
// The result of a call whose signature has a plan in `signatures` (after its launch), else None (gpu_plan.cpp).
nb::object plan_call(const nb::dict& signatures, const nb::handle& scalar_names, const nb::handle& args,
                     const nb::handle& kwargs);
void bind_ampere(nb::module_& m);
void bind_hopper(nb::module_& m);
void bind_hopper_forms(nb::module_& hopper);  // hopper_forms.cpp: called by bind_hopper
void bind_blackwell(nb::module_& m);
void bind_listing(nb::module_& m);
void bind_jax_ffi(nb::module_& m);  // jax_ffi.cpp: built with PTXPP_JAX_INCLUDE only

}  // namespace ptxpy
