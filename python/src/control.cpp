// Control flow from Python: labels, branches, ret/exit, and the structured helpers of
// the C++ DSL (if_, loop, while_), whose bodies are Python callables run at trace time.
#include <nanobind/stl/string.h>

#include "common.hpp"

namespace ptxpy {

namespace {

const ptx::Reg& predicate(nb::handle h) { return reg_of(h); }

// Runs a Python body from C++; a Python exception goes through the C++ helper as
// nb::python_error and comes out again at the helper's call.
void call(const nb::callable& f) { f(); }

}  // namespace

const ptx::Label& label_of(nb::handle h) {
  if (!nb::isinstance<PyLabel>(h)) throw nb::type_error("expected a label (ptx.Label(...))");
  const PyLabel* l = nb::inst_ptr<PyLabel>(h);
  check_same_trace(l->trace, "a label");
  return l->label;
}

nb::object make_label(ptx::Label&& l) { return nb::cast(PyLabel{std::move(l), ptx::dsl::running_trace_id()}); }

void bind_control(nb::module_& m) {
  nb::class_<PyLabel>(m, "Label", "A label: ptx.bra(l), ptx.place(l); $L__hint (unique per function)")
      .def(
          "__init__",
          [](PyLabel* self, const std::string& hint) {
            // the label's own location always (an unplaced label is reported where it was made)
            new (self) PyLabel{ptx::Label(hint, python_location()), ptx::dsl::running_trace_id()};
          },
          nb::arg("hint") = "");
  m.def(
      "place", [](nb::handle l) { ptx::place(label_of(l), here()); }, "places the label here: $L__hint:");
  m.def(
      "bra", [](nb::handle l) { ptx::bra(label_of(l), here()); }, "bra.uni L");
  m.def(
      "bra_if", [](nb::handle p, nb::handle l) { ptx::bra_if(predicate(p), label_of(l), here()); }, "@p bra L");
  m.def(
      "bra_unless", [](nb::handle p, nb::handle l) { ptx::bra_unless(predicate(p), label_of(l), here()); },
      "@!p bra L");
  m.def(
      "ret", [] { ptx::ret(here()); }, "ret;");
  m.def(
      "exit", [] { ptx::exit(here()); }, "exit;");
  m.def(
      "asm", [](const std::string& text) { ptx::asm_(text, here()); },
      "one instruction from PTX text, checked against the ISA table");
  m.def(
      "if_",
      [](nb::handle p, nb::callable then, nb::handle els) {
        if (els.is_none()) {
          ptx::if_(
              predicate(p), [&] { call(then); }, here());
        } else {
          nb::callable e = nb::borrow<nb::callable>(els);
          ptx::if_(
              predicate(p), [&] { call(then); }, [&] { call(e); }, here());
        }
      },
      nb::arg("p"), nb::arg("then"), nb::arg("els") = nb::none(),
      "@!p bra END; then() END:   or with els: @!p bra ELSE; then() bra.uni END; ELSE: els() END:");
  m.def(
      "loop",
      [](nb::handle begin, nb::handle end, int64_t step, nb::callable body) {
        const ptx::Operand b = to_operand(begin, FloatAs::F32), e = to_operand(end, FloatAs::F32);
        ptx::loop(
            b, e, step, [&](const ptx::Reg& i) { body(make_reg(alias(i))); }, here());
      },
      nb::arg("begin"), nb::arg("end"), nb::arg("step"), nb::arg("body"),
      "for i in [begin, end) by step, a run-time loop: body(i) is traced once");
  m.def(
      "while_",
      [](nb::callable cond, nb::callable body) {
        ptx::while_(
            [&] {
              nb::object p = cond();
              return alias(reg_of(p));
            },
            [&] { call(body); }, here());
      },
      nb::arg("cond"), nb::arg("body"), "LOOP: p = cond() @!p bra END; body() bra.uni LOOP; END:");
}

}  // namespace ptxpy
