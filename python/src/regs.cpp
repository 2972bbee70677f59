// Registers from Python: reg.scalar / reg.array, the operators (each one instruction,
// the C++ DSL's own), `~p` (a negated predicate operand), and the rename rule.
#include <fmt/format.h>
#include <nanobind/stl/string.h>

#include "common.hpp"

namespace ptxpy {

namespace {

using ptx::BinOp;

nb::object not_implemented() { return nb::borrow(Py_NotImplemented); }

nb::object binop(const PyReg& a, nb::handle b, BinOp op) {
  ptx::Operand rhs(ptx::OperandKind::Sink, ptx::DType::none, {});
  if (!try_operand(b, floats_for(a.reg.type()), rhs)) return not_implemented();
  return make_reg(ptx::detail::binary(op, a.reg, rhs, here()));
}

nb::object rbinop(const PyReg& b, nb::handle a, BinOp op) {
  ptx::Operand lhs(ptx::OperandKind::Sink, ptx::DType::none, {});
  if (!try_operand(a, floats_for(b.reg.type()), lhs)) return not_implemented();
  return make_reg(ptx::detail::binary_rev(op, lhs, b.reg, here()));
}

nb::object inplace(nb::handle self, nb::handle b, BinOp op) {
  ptx::Reg& a = nb::inst_ptr<PyReg>(self)->reg;
  ptx::Operand rhs(ptx::OperandKind::Sink, ptx::DType::none, {});
  if (!try_operand(b, floats_for(a.type()), rhs)) return not_implemented();
  ptx::detail::compound(op, a, rhs, here());
  return nb::borrow(self);
}

size_t index_of(const PyRegArray& a, int64_t i) {
  const auto n = static_cast<int64_t>(a.regs.size());
  if (i < -n || i >= n)
    throw nb::index_error(fmt::format("register array index {} out of range (size {})", i, n).c_str());
  return static_cast<size_t>(i < 0 ? i + n : i);
}

std::string describe(const ptx::Reg& r) {
  if (!r.valid()) return "<ptxpp.Reg (moved)>";
  return fmt::format("<ptxpp.Reg {} #{}>", ptx::name(r.type()), r.id());
}

}  // namespace

nb::object make_reg_array(ptx::RegArray&& regs) { return nb::cast(PyRegArray{std::move(regs)}); }

const ptx::RegArray& reg_array_of(nb::handle h) {
  if (!nb::isinstance<PyRegArray>(h)) throw nb::type_error("expected a register array (reg.array(...))");
  return nb::inst_ptr<PyRegArray>(h)->regs;
}

void assign(ptx::Reg& dst, nb::handle value) {
  if (nb::isinstance<PyReg>(value)) {
    PyReg* src = nb::inst_ptr<PyReg>(value);
    ptx::Reg moved = alias(src->reg);
    dst = std::move(moved);                           // the rename rule, or a mov
    if (!moved.valid()) src->reg.rebind(alias(dst));  // renamed: the value lives in dst's register now
    return;
  }
  dst = to_operand(value, floats_for(dst.type()));
}

void bind_regs(nb::module_& m) {
  nb::class_<PyReg> reg(m, "Reg", "A PTX register of the running trace. Operators emit one instruction each.");
  reg.def_prop_ro("type", [](const PyReg& r) { return r.reg.type(); })
      .def(
          "set", [](PyReg& r, nb::handle v) { assign(r.reg, v); }, nb::arg("value"),
          "r.set(a + b): the rename rule (the add writes r, no mov); r.set(x): mov")
      .def("__repr__", [](const PyReg& r) { return describe(r.reg); })
      .def("__bool__",
           [](const PyReg&) -> bool {
             throw nb::type_error(
                 "a register has no Python truth value (it is a run-time value): branch with ptx.if_ or ptx.bra");
           })
      .def("__neg__", [](const PyReg& r) { return make_reg(ptx::detail::unary_neg(r.reg, here())); })
      .def("__invert__", [](const PyReg& r) -> nb::object {
        if (r.reg.type() == ptx::DType::pred) return nb::cast(PyNotPred{alias(r.reg)});
        return make_reg(ptx::detail::unary_not(r.reg, here()));
      });
#define PTXPY_BINARY(NAME, OP)                                                                            \
  reg.def(                                                                                                \
      "__" NAME "__", [](const PyReg& a, nb::handle b) { return binop(a, b, OP); }, nb::is_operator());   \
  reg.def(                                                                                                \
      "__r" NAME "__", [](const PyReg& a, nb::handle b) { return rbinop(a, b, OP); }, nb::is_operator()); \
  reg.def(                                                                                                \
      "__i" NAME "__", [](nb::handle a, nb::handle b) { return inplace(a, b, OP); }, nb::is_operator());
  PTXPY_BINARY("add", BinOp::Add)
  PTXPY_BINARY("sub", BinOp::Sub)
  PTXPY_BINARY("mul", BinOp::Mul)
  PTXPY_BINARY("truediv", BinOp::Div)
  PTXPY_BINARY("mod", BinOp::Rem)
  PTXPY_BINARY("lshift", BinOp::Shl)
  PTXPY_BINARY("rshift", BinOp::Shr)
  PTXPY_BINARY("and", BinOp::And)
  PTXPY_BINARY("or", BinOp::Or)
  PTXPY_BINARY("xor", BinOp::Xor)
#undef PTXPY_BINARY
  reg.def(
         "__lt__", [](const PyReg& a, nb::handle b) { return binop(a, b, BinOp::Lt); }, nb::is_operator())
      .def(
          "__le__", [](const PyReg& a, nb::handle b) { return binop(a, b, BinOp::Le); }, nb::is_operator())
      .def(
          "__gt__", [](const PyReg& a, nb::handle b) { return binop(a, b, BinOp::Gt); }, nb::is_operator())
      .def(
          "__ge__", [](const PyReg& a, nb::handle b) { return binop(a, b, BinOp::Ge); }, nb::is_operator())
      .def(
          "__eq__", [](const PyReg& a, nb::handle b) { return binop(a, b, BinOp::Eq); }, nb::is_operator())
      .def(
          "__ne__", [](const PyReg& a, nb::handle b) { return binop(a, b, BinOp::Ne); }, nb::is_operator());

  nb::class_<PyNotPred>(m, "NotPred", "~p: the negated predicate, as a guard or an operand (no instruction)")
      .def("__repr__", [](const PyNotPred& p) { return "~" + describe(p.reg); });

  nb::class_<PyRegArray>(m, "RegArray", "Registers declared together: .reg .f32 %acc<8>; elements acc[0]..acc[7]")
      .def_prop_ro("type", [](const PyRegArray& a) { return a.regs.size() ? a.regs[0].type() : ptx::DType::none; })
      .def("__len__", [](const PyRegArray& a) { return a.regs.size(); })
      .def("__getitem__",
           [](const PyRegArray& a, nb::handle i) -> nb::object {
             if (nb::isinstance<nb::slice>(i)) {
               const auto [start, stop, step, count] = nb::borrow<nb::slice>(i).compute(a.regs.size());
               nb::list out;
               for (size_t k = 0; k < count; ++k)
                 out.append(make_reg(alias(
                     a.regs[static_cast<size_t>(static_cast<Py_ssize_t>(start) + static_cast<Py_ssize_t>(k) * step)])));
               (void)stop;
               return out;
             }
             return make_reg(alias(a.regs[index_of(a, nb::cast<int64_t>(i))]));
           })
      .def(
          "__setitem__", [](PyRegArray& a, int64_t i, nb::handle v) { assign(a.regs[index_of(a, i)], v); },
          "acc[k] = acc[k] + b[k]: the rename rule (the add writes %acc<k>, no mov); acc[k] = x: mov")
      .def("__iter__", [](const PyRegArray& a) {
        nb::list out;
        for (const ptx::Reg& r : a.regs) out.append(make_reg(alias(r)));
        return out.attr("__iter__")();
      });

  m.def(
      "reg_scalar",
      [](ptx::DType t, nb::handle init, const std::string& name) {
        ptx::Reg r(t, name, here());
        if (!init.is_none()) assign(r, init);
        return make_reg(std::move(r));
      },
      nb::arg("type"), nb::arg("init") = nb::none(), nb::arg("name") = "");
  m.def(
      "reg_array",
      [](ptx::DType t, uint32_t count, const std::string& name) {
        if (count == 0) throw ptx::Error("a register array of 0 registers", {});
        return PyRegArray{ptx::RegArray(t, count, name, here())};
      },
      nb::arg("type"), nb::arg("count"), nb::arg("name") = "");
  m.def(
      "read",
      [](nb::handle src, nb::handle type) {
        const ptx::Operand o = to_operand(src, FloatAs::F32);
        if (type.is_none()) return make_reg(ptx::read(o, here()));
        return make_reg(ptx::read(o, nb::cast<ptx::DType>(type), here()));
      },
      nb::arg("src"), nb::arg("type") = nb::none(), "one mov into a fresh register");
}

}  // namespace ptxpy
