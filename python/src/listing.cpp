// ptxpp.listing: C++'s ptx::Listing and ptx::listing (docs/transpile.md) for Python, what
// `ptxpp transpile --lang python` writes. A listing is module text and function bodies
// (Python callables, traced when ptx() is called) with the names the PTX used: raw
// declarations and directives (stmt), instructions no chain spells (instruction),
// operands of any shape (operand), comments and blank lines where they stood.
#include <functional>
#include <optional>

#include <fmt/format.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/vector.h>

#include <ptxpp/dsl/listing.hpp>

#include "common.hpp"

namespace ptxpy {

namespace {

// PTX text from a str (UTF-8) or bytes (any bytes: a comment that is not UTF-8).
std::string text_of(nb::handle h) {
  if (nb::isinstance<nb::bytes>(h)) {
    const nb::bytes b = nb::borrow<nb::bytes>(h);
    return std::string(b.c_str(), b.size());
  }
  if (nb::isinstance<nb::str>(h)) return nb::cast<std::string>(h);
  throw nb::type_error(
      fmt::format("expected PTX text (str or bytes), not {}", nb::type_name(h.type()).c_str()).c_str());
}

std::optional<ptx::DType> dtype_or_none(nb::handle t) {
  if (t.is_none()) return std::nullopt;
  return nb::cast<ptx::DType>(t);
}

// Runs a Python body from C++ (a Python exception goes through as nb::python_error).
std::function<void()> body_of(nb::callable f) {
  return [f = std::move(f)] { f(); };
}

// `@lst.repeat_while(top, p)` over `def _(): ...`, or repeat_while(top, p, body) at once.
template <class Run>
nb::object now_or_decorator(nb::handle body, Run run) {
  if (!body.is_none()) {
    run(nb::borrow<nb::callable>(body));
    return nb::none();
  }
  return nb::cpp_function([run](nb::callable f) {
    run(f);
    return f;
  });
}

void bind_listing_class(nb::module_& m) {
  nb::class_<ptx::Listing>(m, "Listing",
                           "A PTX module written statement by statement, with the names the text uses: "
                           "text(...) pieces and body(fn) function bodies, joined by ptx()")
      .def(
          "__init__",
          [](ptx::Listing* self, const std::string& target, bool validate) {
            new (self) ptx::Listing(ptx::ListingOptions{target, validate});
          },
          nb::arg("target") = "sm_90a", nb::arg("validate") = true)
      .def(
          "text", [](ptx::Listing& l, nb::handle text) { l.text(text_of(text)); }, nb::arg("ptx_text"),
          "module-level PTX as written (directives, variables, function headers, comments)")
      .def(
          "body",
          [](ptx::Listing& l, nb::callable body) {
            l.body(body_of(body));
            return body;
          },
          nb::arg("body"), "a function body { ... } traced from body() when ptx() is called (a decorator)")
      .def(
          "ptx",
          [](const ptx::Listing& l) {
            const std::string text = l.ptx();
            return nb::steal(
                PyUnicode_DecodeUTF8(text.data(), static_cast<Py_ssize_t>(text.size()), "surrogateescape"));
          },
          "the module: the pieces in order, parsed and printed in canonical form");
}

}  // namespace

void bind_listing(nb::module_& package) {
  nb::module_ m = package.def_submodule("listing", "ptx::listing: statements with exact names, as written");
  bind_listing_class(m);
  m.def(
      "regs",
      [](ptx::DType t, const std::string& name, uint32_t count) {
        return make_reg_array(ptx::listing::regs(t, name, count, here()));
      },
      nb::arg("type"), nb::arg("name"), nb::arg("count"), ".reg .T name<count>; here (elements name0 ..)");
  m.def(
      "reg", [](ptx::DType t, const std::string& name) { return make_reg(ptx::listing::reg(t, name, here())); },
      nb::arg("type"), nb::arg("name"), ".reg .T name; here");
  m.def(
      "reg_ref",
      [](nb::handle t, const std::string& name) {
        return make_reg(ptx::listing::reg_ref(dtype_or_none(t).value_or(ptx::DType::none), name, here()));
      },
      nb::arg("type").none(), nb::arg("name"), "a register a stmt declared (type None: one the DSL has no type for)");
  m.def(
      "label", [](const std::string& name) { return make_label(ptx::listing::label(name, python_location())); },
      nb::arg("name"), "a label with exactly this name; place it with ptx.place");
  m.def(
      "stmt", [](nb::handle text) { ptx::listing::stmt(text_of(text), here()); }, nb::arg("text"),
      "a declaration or directive as written");
  m.def(
      "instruction", [](nb::handle text) { ptx::listing::instruction(text_of(text), here()); }, nb::arg("text"),
      "an instruction as written, not checked (for the ones no ptx.inst chain spells)");
  m.def(
      "operand",
      [](nb::handle text) {
        return nb::cast(PyOperand{ptx::listing::operand(text_of(text), here()), ptx::dsl::running_trace_id()});
      },
      nb::arg("text"), "an operand as written ([%rd1+-4], 0x1F)");
  m.def(
      "block",
      [](nb::callable body) {
        ptx::listing::block(body_of(body), here());
        return body;
      },
      nb::arg("body"), "a nested { ... } block: body() traced inside it at once (a decorator)");
  m.def(
      "repeat_while",
      [](nb::handle top, nb::handle p, nb::handle body, bool uni) {
        return now_or_decorator(body, [top_label = nb::borrow(top), pred = nb::borrow(p), uni](nb::callable f) {
          ptx::listing::repeat_while(label_of(top_label), reg_of(pred), body_of(f), uni, here());
        });
      },
      nb::arg("top"), nb::arg("p"), nb::arg("body").none() = nb::none(), nb::arg("uni") = false,
      "top: body  @p bra top;  (bra.uni with uni=True); without body, a decorator");
  m.def(
      "repeat_until",
      [](nb::handle top, nb::handle p, nb::handle body, bool uni) {
        return now_or_decorator(body, [top_label = nb::borrow(top), pred = nb::borrow(p), uni](nb::callable f) {
          ptx::listing::repeat_until(label_of(top_label), reg_of(pred), body_of(f), uni, here());
        });
      },
      nb::arg("top"), nb::arg("p"), nb::arg("body").none() = nb::none(), nb::arg("uni") = false,
      "top: body  @!p bra top;  (bra.uni with uni=True); without body, a decorator");
  m.def(
      "wait_loop",
      [](nb::handle top, nb::handle done, nb::handle p, nb::handle body) {
        return now_or_decorator(body,
                                [top_label = nb::borrow(top), done_label = nb::borrow(done), pred = nb::borrow(p)](nb::callable f) {
                                  ptx::listing::wait_loop(label_of(top_label), label_of(done_label), reg_of(pred), body_of(f), here());
                                });
      },
      nb::arg("top"), nb::arg("done"), nb::arg("p"), nb::arg("body").none() = nb::none(),
      "top: body  @p bra done;  bra.uni top;  done:  (without body, a decorator)");
  m.def(
      "comment", [](nb::handle text) { ptx::listing::comment(text_of(text), here()); }, nb::arg("text"),
      "a comment on its own line before the next statement");
  m.def(
      "comment_same_line", [](nb::handle text) { ptx::listing::comment_same_line(text_of(text), here()); },
      nb::arg("text"), "a comment after the previous statement, on its line");
  m.def(
      "blank_line", [] { ptx::listing::blank_line(here()); }, "a blank line before the next statement");
  m.def(
      "trail", [](nb::handle text) { ptx::listing::trail(text_of(text), here()); }, nb::arg("text"),
      "a comment at the end of the line of the statement just written");
}

}  // namespace ptxpy
