// ptxpp.listing: C++'s ptx::Listing and ptx::listing (docs/transpile.md) for Python, what
// `ptxpp transpile --lang python` writes. A listing is module text and function bodies
// (Python callables, traced when ptx() is called) with the names the PTX used: raw
// declarations and directives (stmt), instructions no chain spells (instruction),
// operands of any shape (operand), comments and blank lines where they stood.
#include <functional>
#include <optional>

#include <fmt/format.h>
#include <nanobind/stl/optional.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/string_view.h>
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

using Params = std::vector<ptx::listing::Param>;

ptx::listing::FunctionOptions function_options(ptx::listing::Linkage linkage,
                                               std::vector<ptx::listing::FunctionDirective> directives) {
  return {linkage, std::move(directives)};
}

// The typed declarations outside bodies (listing_decls.hpp): their enums, values and helpers.
void bind_declarations(nb::module_& m) {
  namespace lst = ptx::listing;
  nb::enum_<lst::Space>(m, "Space", "the state space a declaration names")
      .value("reg", lst::Space::reg)
      .value("param", lst::Space::param)
      .value("global_", lst::Space::global)
      .value("const", lst::Space::const_)
      .value("shared", lst::Space::shared)
      .value("local", lst::Space::local);
  nb::enum_<lst::Linkage>(m, "Linkage", "how a symbol is linked (none: not written)")
      .value("none", lst::Linkage::none)
      .value("visible", lst::Linkage::visible)
      .value("extern", lst::Linkage::extern_)
      .value("weak", lst::Linkage::weak)
      .value("common", lst::Linkage::common);
  nb::class_<lst::Ptr>(m, "Ptr", ".ptr [.space] .align N on a kernel parameter")
      .def_ro("space", &lst::Ptr::space)
      .def_ro("align", &lst::Ptr::align);
  nb::class_<lst::Param>(m, "Param", "a parameter or return value of a function")
      .def_ro("space", &lst::Param::space)
      .def_ro("type", &lst::Param::type)
      .def_ro("name", &lst::Param::name);
  nb::class_<lst::FunctionDirective>(m, "FunctionDirective", "a directive between a function's parameters and body")
      .def_ro("values", &lst::FunctionDirective::values);
  m.def("ptr", nb::overload_cast<uint32_t>(&lst::ptr), nb::arg("align"), ".ptr .align N (a generic pointer)");
  m.def("ptr", nb::overload_cast<lst::Space, uint32_t>(&lst::ptr), nb::arg("space"), nb::arg("align"),
        ".ptr .space .align N");
  m.def(
      "param",
      [](ptx::DType t, const std::string& name, uint32_t align, std::vector<uint64_t> dims, std::optional<lst::Ptr> ptr) {
        return lst::param(t, name, {align, std::move(dims), ptr});
      },
      nb::arg("type"), nb::arg("name"), nb::kw_only(), nb::arg("align") = 0, nb::arg("dims") = std::vector<uint64_t>{},
      nb::arg("ptr").none() = nb::none(), ".param [.align N] .T [.ptr ...] name[dims]");
  m.def("reg_param", &lst::reg_param, nb::arg("type"), nb::arg("name"), ".reg .T name");
  using Dims3 = lst::FunctionDirective (*)(uint32_t, std::optional<uint32_t>, std::optional<uint32_t>);
  const std::pair<const char*, Dims3> dims3[] = {
      {"maxntid", &lst::maxntid}, {"reqntid", &lst::reqntid}, {"reqnctapercluster", &lst::reqnctapercluster}};
  for (const auto& [name, fn] : dims3)
    m.def(name, fn, nb::arg("x"), nb::arg("y").none() = nb::none(), nb::arg("z").none() = nb::none());
  m.def("minnctapersm", &lst::minnctapersm, nb::arg("n"));
  m.def("maxnreg", &lst::maxnreg, nb::arg("n"));
  m.def("maxclusterrank", &lst::maxclusterrank, nb::arg("n"));
  m.def("explicitcluster", &lst::explicitcluster);
  m.def("noreturn", &lst::noreturn);
  m.def("blocksareclusters", &lst::blocksareclusters);
  m.def("abi_preserve", &lst::abi_preserve, nb::arg("n"));
  m.def("abi_preserve_control", &lst::abi_preserve_control, nb::arg("n"));
}

// `@m.entry(...)` over `def _(): ...`, or m.entry(..., body=f) at once.
template <class Add>
nb::object body_or_decorator(nb::handle body, Add add) {
  if (!body.is_none()) {
    add(nb::borrow<nb::callable>(body));
    return nb::none();
  }
  return nb::cpp_function([add](nb::callable f) {
    add(f);
    return f;
  });
}

void bind_listing_functions(nb::class_<ptx::Listing>& c) {
  namespace lst = ptx::listing;
  c.def(
       "entry",
       [](ptx::Listing& l, const std::string& name, Params params, lst::Linkage linkage,
          std::vector<lst::FunctionDirective> directives, nb::handle body) {
         // the decorator keeps the listing alive (nb::find: its Python object)
         return body_or_decorator(body, [&l, keep = nb::find(&l), name, params, o = function_options(linkage, directives),
                                         where = here()](nb::callable f) { l.entry(name, params, o, body_of(f), where); });
       },
       nb::arg("name"), nb::arg("params"), nb::kw_only(), nb::arg("linkage") = lst::Linkage::none,
       nb::arg("directives") = std::vector<lst::FunctionDirective>{}, nb::arg("body").none() = nb::none(),
       "a kernel: .entry name(params) with its body (a decorator without body)")
      .def(
          "func",
          [](ptx::Listing& l, const std::string& name, Params ret, Params params, lst::Linkage linkage,
             std::vector<lst::FunctionDirective> directives, nb::handle body) {
            return body_or_decorator(body, [&l, keep = nb::find(&l), name, ret, params,
                                            o = function_options(linkage, directives), where = here()](nb::callable f) {
              l.func(name, ret, params, o, body_of(f), where);
            });
          },
          nb::arg("name"), nb::arg("ret"), nb::arg("params"), nb::kw_only(), nb::arg("linkage") = lst::Linkage::none,
          nb::arg("directives") = std::vector<lst::FunctionDirective>{}, nb::arg("body").none() = nb::none(),
          "a function: .func (ret) name(params) with its body (a decorator without body)")
      .def(
          "func_decl",
          [](ptx::Listing& l, const std::string& name, Params ret, Params params, lst::Linkage linkage,
             std::vector<lst::FunctionDirective> directives) {
            l.func_decl(name, std::move(ret), std::move(params), function_options(linkage, std::move(directives)), here());
          },
          nb::arg("name"), nb::arg("ret"), nb::arg("params"), nb::kw_only(), nb::arg("linkage") = lst::Linkage::none,
          nb::arg("directives") = std::vector<lst::FunctionDirective>{}, "a function declared without a body");
  const auto var = [](lst::Space space) {
    return [space](ptx::Listing& l, ptx::DType t, const std::string& name, lst::Linkage linkage, uint32_t align,
                   std::vector<uint64_t> dims, std::vector<int64_t> init) {
      l.var(space, t, name, {linkage, align, std::move(dims), std::move(init)}, here());
    };
  };
  const char* names[] = {"global_", "const", "shared"};
  const lst::Space spaces[] = {lst::Space::global, lst::Space::const_, lst::Space::shared};
  for (size_t i = 0; i < 3; ++i)
    c.def(names[i], var(spaces[i]), nb::arg("type"), nb::arg("name"), nb::kw_only(),
          nb::arg("linkage") = lst::Linkage::none, nb::arg("align") = 0, nb::arg("dims") = std::vector<uint64_t>{},
          nb::arg("init") = std::vector<int64_t>{}, "a module variable ([] in dims: 0)");
  c.def(
      "var",
      [var](ptx::Listing& l, lst::Space space, ptx::DType t, const std::string& name, lst::Linkage linkage,
            uint32_t align, std::vector<uint64_t> dims, std::vector<int64_t> init) {
        var(space)(l, t, name, linkage, align, std::move(dims), std::move(init));
      },
      nb::arg("space"), nb::arg("type"), nb::arg("name"), nb::kw_only(), nb::arg("linkage") = lst::Linkage::none,
      nb::arg("align") = 0, nb::arg("dims") = std::vector<uint64_t>{}, nb::arg("init") = std::vector<int64_t>{},
      "a module variable in any space");
}

void bind_listing_class(nb::module_& m) {
  auto c = nb::class_<ptx::Listing>(m, "Listing",
                           "A PTX module written statement by statement, with the names the text uses: "
                           "typed declarations, text pieces and function bodies, joined by ptx()");
  c.def(
          "__init__",
          [](ptx::Listing* self, const std::string& target, bool validate, const std::string& version,
             uint32_t address_size) {
            new (self) ptx::Listing(ptx::ListingOptions{target, validate, version, address_size});
          },
          nb::arg("target") = "sm_90a", nb::arg("validate") = true, nb::arg("version") = "",
          nb::arg("address_size") = 64)
      .def(
          "text", [](ptx::Listing& l, nb::handle text) { l.text(text_of(text)); }, nb::arg("ptx_text"),
          "module-level PTX as written, joined to what is before and after it as is")
      .def(
          "stmt", [](ptx::Listing& l, nb::handle text) { l.stmt(text_of(text)); }, nb::arg("ptx_text"),
          "a module-level statement as written, on its own line")
      .def(
          "header", [](ptx::Listing& l) { l.header(here()); },
          "where the .version/.target/.address_size lines of the options go (default: first)")
      .def(
          "comment", [](ptx::Listing& l, nb::handle text) { l.comment(text_of(text)); }, nb::arg("text"),
          "a comment on its own line between module-level statements")
      .def(
          "trail", [](ptx::Listing& l, nb::handle text) { l.trail(text_of(text)); }, nb::arg("text"),
          "a comment at the end of the line before")
      .def("blank_line", [](ptx::Listing& l) { l.blank_line(); }, "a blank line between module-level statements")
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
  bind_listing_functions(c);
}

}  // namespace

void bind_listing(nb::module_& package) {
  nb::module_ m = package.def_submodule("listing", "ptx::listing: statements with exact names, as written");
  bind_declarations(m);
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
