// Operands from Python values, and the operand builders: ptx.addr, ptx.vec, ptx.imm,
// ptx.symbol, ptx.pair, ptx.args, ptx._ and the special registers (from the ISA table).
#include <cmath>
#include <limits>

#include <fmt/format.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/vector.h>

#include <ptxpp/dsl/python_names.hpp>
#include <ptxpp/spec/isa.hpp>

#include "common.hpp"

namespace ptxpy {

ptx::Reg alias(const ptx::Reg& r) { return ptx::Reg::adopt(r.id(), r.type(), r.expr(), r.trace()); }

FloatAs floats_for(ptx::DType t) { return t == ptx::DType::f64 ? FloatAs::F64 : FloatAs::F32; }

ptx::Reg& reg_of(nb::handle h) {
  if (!nb::isinstance<PyReg>(h))
    throw nb::type_error(fmt::format("expected a register, not {}", nb::type_name(h.type()).c_str()).c_str());
  return nb::inst_ptr<PyReg>(h)->reg;
}

namespace {

ptx::Operand int_operand(nb::handle h) {
  int overflow = 0;
  const long long v = PyLong_AsLongLongAndOverflow(h.ptr(), &overflow);
  if (overflow == 0) {
    if (v == -1 && PyErr_Occurred()) throw nb::python_error();
    return ptx::Operand(static_cast<int64_t>(v));
  }
  if (overflow > 0) {
    const unsigned long long u = PyLong_AsUnsignedLongLong(h.ptr());
    if (PyErr_Occurred()) {
      PyErr_Clear();
      throw ptx::Error(fmt::format("the integer {} does not fit 64 bits", nb::str(h).c_str()), {});
    }
    return ptx::Operand(static_cast<uint64_t>(u));
  }
  throw ptx::Error(fmt::format("the integer {} does not fit 64 bits", nb::str(h).c_str()), {});
}

ptx::Operand float_operand(double v, FloatAs floats) {
  if (floats == FloatAs::F64) return ptx::Operand(v);
  return ptx::Operand(static_cast<float>(v));
}

}  // namespace

bool try_operand(nb::handle h, FloatAs floats, ptx::Operand& out) {
  if (nb::isinstance<PyReg>(h)) {
    out = ptx::Operand(nb::inst_ptr<PyReg>(h)->reg);
    return true;
  }
  if (nb::isinstance<PyOperand>(h)) {
    const PyOperand* o = nb::inst_ptr<PyOperand>(h);
    check_same_trace(o->trace, "an operand");
    out = o->op;
    return true;
  }
  if (PyBool_Check(h.ptr()))
    throw nb::type_error("a bool is not an operand: write 0 or 1, or use a predicate register");
  if (PyLong_Check(h.ptr())) {
    out = int_operand(h);
    return true;
  }
  if (PyFloat_Check(h.ptr())) {
    out = float_operand(PyFloat_AsDouble(h.ptr()), floats);
    return true;
  }
  if (nb::isinstance<PyNotPred>(h)) {
    out = ptx::to_operand(ptx::NotPred{&nb::inst_ptr<PyNotPred>(h)->reg});
    return true;
  }
  if (nb::isinstance<PyLabel>(h)) {
    const PyLabel* l = nb::inst_ptr<PyLabel>(h);
    check_same_trace(l->trace, "a label");
    out = ptx::Operand(l->label);
    return true;
  }
  if (nb::isinstance<PySink>(h)) {
    out = ptx::to_operand(ptx::_);
    return true;
  }
  if (PyList_Check(h.ptr()) || PyTuple_Check(h.ptr())) {
    std::vector<ptx::Operand> elems;
    for (nb::handle e : h) elems.push_back(to_operand(e, floats));
    out = ptx::vec(elems);
    return true;
  }
  return false;
}

ptx::Operand to_operand(nb::handle h, FloatAs floats) {
  ptx::Operand o(ptx::OperandKind::Sink, ptx::DType::none, {});
  if (!try_operand(h, floats, o))
    throw nb::type_error(
        fmt::format("{} is not an operand (a register, a number, ptx.addr(...), a list for a vector, ...)",
                    nb::type_name(h.type()).c_str())
            .c_str());
  return o;
}

nb::object make_reg(ptx::Reg&& r) { return nb::cast(PyReg(std::move(r))); }

namespace {
std::string_view kind_name(ptx::OperandKind k) {
  static constexpr std::string_view kNames[] = {
      "register", "predicate", "negated predicate", "immediate",    "vector", "address", "label",
      "symbol",   "sink",      "special register",  "argument list"};
  return kNames[static_cast<size_t>(k)];
}

nb::object wrap(ptx::Operand o) { return nb::cast(PyOperand{o, ptx::dsl::running_trace_id()}); }

ptx::Operand address(nb::handle base, int64_t offset, bool keep_zero) {
  if (nb::isinstance<nb::str>(base)) {
    const std::string s = nb::cast<std::string>(base);
    return keep_zero ? ptx::addr(s, ptx::offset(offset)) : ptx::addr(s, offset);
  }
  if (nb::isinstance<PyOperand>(base)) {  // a shared buffer's address, or an address: add the offset
    throw nb::type_error("ptx.addr takes a register or a symbol name; a shared buffer gives its own: buf.addr(offset)");
  }
  const ptx::Reg& r = reg_of(base);
  return keep_zero ? ptx::addr(r, ptx::offset(offset)) : ptx::addr(r, offset);
}

// One special register of the ISA table, as Python sees it: ptx.special.tid.x(), ptx.special.laneid().
struct PySpecial {
  std::string_view name;  // "%tid"
  ptx::DType type;
  std::string components;  // ".x.y.z" or ""
  uint32_t count;          // numbered families (%envreg<32>)
};

ptx::DType dtype_named(std::string_view n) {
  for (int i = 0; i <= static_cast<int>(ptx::DType::none); ++i) {
    const auto t = static_cast<ptx::DType>(i);
    if (ptx::name(t) == n) return t;
  }
  return ptx::DType::none;
}

nb::object component(const PySpecial& s, const char* c) {
  if (s.components.find(c) == std::string::npos) throw ptx::Error(fmt::format("{} has no component {}", s.name, c), {});
  return wrap(ptx::dsl::detail::special_operand(s.name, c, s.type, here()));
}
}  // namespace

void bind_operands(nb::module_& m) {
  nb::class_<PyOperand>(m, "Operand", "An operand made by ptx.addr, ptx.vec, a special register, ...")
      .def("__repr__", [](const PyOperand& o) { return fmt::format("<ptxpp.Operand {}>", kind_name(o.op.kind)); });
  nb::class_<PySink>(m, "Sink", "ptx._: the sink operand").def("__repr__", [](const PySink&) { return "ptx._"; });
  m.attr("_") = PySink{};

  m.def(
      "addr", [](nb::handle base, int64_t offset) { return wrap(address(base, offset, false)); }, nb::arg("base"),
      nb::arg("offset") = 0, "[base], [base+offset] (a zero offset is left out); base: a register or a symbol name");
  m.def(
      "addr0", [](nb::handle base, int64_t offset) { return wrap(address(base, offset, true)); }, nb::arg("base"),
      nb::arg("offset") = 0, "[base+offset] with the offset written even when it is zero ([p+0])");
  m.def(
      "vec", [](nb::args elems) { return wrap(to_operand(nb::tuple(elems), FloatAs::F32)); },
      "{a, b, ...}: a vector operand");
  m.def(
      "imm", [](ptx::DType t, uint64_t bits) { return wrap(ptx::imm(t, bits)); }, nb::arg("type"), nb::arg("bits"),
      "an immediate with these exact bits, written for type `type` (0f/0d for f32/f64, hex otherwise)");
  m.def(
      "f64", [](double v) { return wrap(ptx::Operand(v)); }, "a double immediate (0dXXXXXXXXXXXXXXXX)");
  m.def(
      "f32", [](double v) { return wrap(ptx::Operand(static_cast<float>(v))); }, "a float immediate (0fXXXXXXXX)");
  m.def(
      "symbol", [](const std::string& s) { return wrap(ptx::symbol(s)); },
      "a named symbol (variable, parameter, function)");
  m.def(
      "args",
      [](nb::args a) {
        std::vector<std::string> names;
        for (nb::handle n : a) names.push_back(nb::cast<std::string>(n));
        const std::vector<std::string_view> views(names.begin(), names.end());
        return wrap(ptx::args(std::span<const std::string_view>(views)));
      },
      "(a, b, ...): a call's argument or return-value list, by the names of its .param variables");
  m.def(
      "pair", [](nb::handle d, nb::handle p) { return wrap(ptx::pair(reg_of(d), reg_of(p))); },
      "d|p: setp's and elect.sync's pair");
  nb::class_<PySpecial>(m, "SpecialRegister",
                        "A special register of the ISA table: ptx.special.tid.x(), ptx.special.laneid()")
      .def(
          "__call__",
          [](const PySpecial& s, nb::handle n) {
            if (s.count) {
              if (n.is_none())
                throw ptx::Error(fmt::format("{} is a family: {}(n), n < {}", s.name, s.name, s.count), {});
              const ptx::special::Numbered fam{s.name, s.type, s.count};
              return wrap(fam(nb::cast<uint32_t>(n), here()));
            }
            if (!s.components.empty())
              throw ptx::Error(fmt::format("{} has components: {}.x() ...", s.name, s.name), {});
            return wrap(ptx::dsl::detail::special_operand(s.name, {}, s.type, here()));
          },
          nb::arg("n") = nb::none())
      .def("x", [](const PySpecial& s) { return component(s, ".x"); })
      .def("y", [](const PySpecial& s) { return component(s, ".y"); })
      .def("z", [](const PySpecial& s) { return component(s, ".z"); })
      .def_prop_ro("type", [](const PySpecial& s) { return s.type; })
      .def("__repr__", [](const PySpecial& s) { return fmt::format("<ptxpp special register {}>", s.name); });
  m.def("_special_registers", [] {
    nb::list out;
    for (const ptx::spec::SpecialRegister& r : ptx::spec::special_registers()) {
      std::string_view ty = r.type.substr(0, r.type.find('|'));
      out.append(nb::make_tuple(python_name(r.name.substr(1)),
                                PySpecial{r.name, dtype_named(ty), std::string(r.components), r.count}));
    }
    return out;
  });
}

std::string python_name(std::string_view ptx_spelling) { return ptx::dsl::python_name(ptx_spelling); }

}  // namespace ptxpy
