// The Ampere helpers (ptx::ampere, sm_80+) from Python: mma.sync forms and fragments,
// their layouts, ldmatrix / stmatrix and cp.async with its ring. Each emits what the C++
// helper emits (docs/dsl.md, "Ampere helpers").
#include <fmt/format.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/vector.h>

#include "common.hpp"

namespace ptxpy {

namespace {

namespace amp = ptx::ampere;

struct PyFragment {
  PyFragment(amp::Fragment&& f, uint32_t t) : frag(std::move(f)), trace(t) {}
  PyFragment(const PyFragment&) = delete;  // a copy of a Fragment's registers would be movs
  PyFragment& operator=(const PyFragment&) = delete;
  PyFragment(PyFragment&&) = default;
  PyFragment& operator=(PyFragment&&) = default;
  amp::Fragment frag;
  uint32_t trace;
  amp::Fragment& get() {
    check_same_trace(trace, "a fragment");
    return frag;
  }
};

std::vector<ptx::Operand> operand_list(nb::handle h) {
  if (nb::isinstance<PyFragment>(h)) return nb::inst_ptr<PyFragment>(h)->get().operands();
  std::vector<ptx::Operand> out;
  for (nb::handle e : h) out.push_back(to_operand(e, FloatAs::F32));
  return out;
}

nb::list reg_list(std::vector<ptx::Reg>&& regs) {
  nb::list out;
  for (ptx::Reg& r : regs) out.append(make_reg(std::move(r)));
  return out;
}

const ptx::Reg* optional_guard(nb::handle g) { return g.is_none() ? nullptr : &reg_of(g); }

// mma.sync forms: shapes, operand roles, the checked MmaForm and the common ones, fragment maps.
void bind_mma_forms(nb::module_& a) {
  nb::enum_<amp::Shape>(a, "Shape")
      .value("m16n8k8", amp::Shape::m16n8k8)
      .value("m16n8k16", amp::Shape::m16n8k16)
      .value("m16n8k32", amp::Shape::m16n8k32);
  nb::enum_<amp::MmaOperand>(a, "MmaOperand")
      .value("A", amp::MmaOperand::A)
      .value("B", amp::MmaOperand::B)
      .value("C", amp::MmaOperand::C)
      .value("D", amp::MmaOperand::D);
  nb::enum_<amp::LdmatrixSource>(a, "LdmatrixSource")
      .value("B8", amp::LdmatrixSource::B8)
      .value("B6x16_P32", amp::LdmatrixSource::B6x16_P32)
      .value("B4x16_P64", amp::LdmatrixSource::B4x16_P64);
  nb::class_<amp::MmaForm>(a, "MmaForm", "One mma.sync form: shape, A and B types, accumulator type (all .row.col)")
      .def_ro("shape", &amp::MmaForm::shape)
      .def_ro("a", &amp::MmaForm::a)
      .def_ro("b", &amp::MmaForm::b)
      .def_ro("acc", &amp::MmaForm::acc)
      .def_prop_ro("m", &amp::MmaForm::m)
      .def_prop_ro("n", &amp::MmaForm::n)
      .def_prop_ro("k", &amp::MmaForm::k)
      .def("mnemonic", &amp::MmaForm::mnemonic)
      .def("elements", &amp::MmaForm::elements)
      .def("registers", &amp::MmaForm::registers)
      .def("elements_per_register", &amp::MmaForm::elements_per_register)
      .def("register_type", &amp::MmaForm::register_type)
      .def("__eq__", [](const amp::MmaForm& x, const amp::MmaForm& y) { return x == y; })
      .def("__repr__", [](const amp::MmaForm& f) { return fmt::format("<MmaForm {}>", f.mnemonic()); });
  a.def(
      "mma_form",
      [](amp::Shape s, ptx::DType x, ptx::DType y, ptx::DType acc) {
        return amp::mma_form(s, x, y, acc, python_location());
      },
      "a checked form (an error for a combination mma.sync lacks)");
  nb::module_ forms = a.def_submodule("forms", "The common mma.sync forms");
#define PTXPY_FORM(NAME) forms.attr(#NAME) = amp::forms::NAME;
  PTXPY_FORM(m16n8k8_f16_f32)
  PTXPY_FORM(m16n8k16_f16_f32)
  PTXPY_FORM(m16n8k8_bf16_f32)
  PTXPY_FORM(m16n8k16_bf16_f32)
  PTXPY_FORM(m16n8k8_tf32_f32)
  PTXPY_FORM(m16n8k16_s8_s32)
  PTXPY_FORM(m16n8k32_s8_s32)
  PTXPY_FORM(m16n8k16_u8_s32)
  PTXPY_FORM(m16n8k32_u8_s32)
  PTXPY_FORM(m16n8k16_e4m3_f32)
  PTXPY_FORM(m16n8k32_e4m3_f32)
  PTXPY_FORM(m16n8k16_e5m2_f32)
  PTXPY_FORM(m16n8k32_e5m2_f32)
#undef PTXPY_FORM
  a.def("fragment_row_col", [](const amp::MmaForm& f, amp::MmaOperand op, int lane, int e) {
    const amp::RowCol rc = amp::fragment_row_col(f, op, lane, e);
    return nb::make_tuple(rc.row, rc.col);
  });
  a.def("fragment_lane_element", [](const amp::MmaForm& f, amp::MmaOperand op, int row, int col) {
    const amp::LaneElement le = amp::fragment_lane_element(f, op, row, col);
    return nb::make_tuple(le.lane, le.element);
  });
}

// A lane's registers of one mma.sync operand, and mma/zero on them.
void bind_fragment(nb::module_& a) {
  nb::class_<PyFragment>(a, "Fragment", "The registers one lane holds for one operand of an mma.sync form")
      .def(
          "__init__",
          [](PyFragment* self, const amp::MmaForm& f, amp::MmaOperand op, const std::string& name) {
            new (self) PyFragment{amp::Fragment(f, op, name, here()), ptx::dsl::running_trace_id()};
          },
          nb::arg("form"), nb::arg("operand"), nb::arg("name") = "")
      .def_static(
          "view",
          [](const amp::MmaForm& f, amp::MmaOperand op, nb::handle regs, size_t first) {
            // the registers of a reg.array, as C++'s Fragment::view takes a RegArray
            std::vector<ptx::Reg> rs;
            for (nb::handle r : regs) rs.push_back(alias(reg_of(r)));
            return PyFragment{amp::Fragment::view(f, op, ptx::RegArray(std::move(rs)), first, here()),
                              ptx::dsl::running_trace_id()};
          },
          "registers of a reg.array (from `first`), emitting nothing")
      .def("__len__", [](PyFragment& f) { return f.get().size(); })
      .def("__getitem__",
           [](PyFragment& f, size_t i) {
             if (i >= f.get().size()) throw nb::index_error("fragment register index out of range");
             return make_reg(alias(f.get()[i]));
           })
      .def("__setitem__",
           [](PyFragment& f, size_t i, nb::handle v) {
             if (i >= f.get().size()) throw nb::index_error("fragment register index out of range");
             assign(f.get()[i], v);
           })
      .def_prop_ro("form", [](PyFragment& f) { return f.get().form(); })
      .def_prop_ro("operand", [](PyFragment& f) { return f.get().operand(); })
      .def(
          "vec",
          [](PyFragment& f) {
            return nb::cast(PyOperand{f.get().vec(), f.trace});
          },
          "{r0, r1, ...}");
  a.def("mma", [](const amp::MmaForm& f, PyFragment& d, PyFragment& x, PyFragment& y, PyFragment& c) {
    amp::mma(f, d.get(), x.get(), y.get(), c.get(), here());
  });
  a.def("zero", [](PyFragment& f) { amp::zero(f.get(), here()); });
}

// ldmatrix / stmatrix and their m16n16, m8n16, m16n8 forms.
void bind_ldmatrix(nb::module_& a) {
  a.def(
      "ldmatrix",
      [](nb::handle dst, nb::handle addr, int64_t offset, bool trans) -> nb::object {
        if (PyLong_Check(dst.ptr()))
          return reg_list(amp::ldmatrix(nb::cast<int>(dst), reg_of(addr), offset, trans, here()));
        amp::ldmatrix(operand_list(dst), reg_of(addr), offset, trans, here());
        return nb::none();
      },
      nb::arg("dst"), nb::arg("shared_addr"), nb::arg("offset") = 0, nb::arg("trans") = false,
      "ldmatrix.sync.aligned.m8n8.x{1,2,4}{.trans}.shared.b16; dst: registers, a Fragment, or a count (fresh "
      "registers, returned)");
  a.def(
      "stmatrix",
      [](nb::handle addr, nb::handle src, int64_t offset, bool trans) {
        amp::stmatrix(reg_of(addr), operand_list(src), offset, trans, here());
      },
      nb::arg("shared_addr"), nb::arg("src"), nb::arg("offset") = 0, nb::arg("trans") = false);
  a.def(
      "ldmatrix_m16n16",
      [](nb::handle dst, nb::handle addr, int64_t offset, amp::LdmatrixSource src) -> nb::object {
        if (PyLong_Check(dst.ptr()))
          return reg_list(amp::ldmatrix_m16n16(nb::cast<int>(dst), reg_of(addr), offset, src, here()));
        amp::ldmatrix_m16n16(operand_list(dst), reg_of(addr), offset, src, here());
        return nb::none();
      },
      nb::arg("dst"), nb::arg("shared_addr"), nb::arg("offset") = 0, nb::arg("src") = amp::LdmatrixSource::B8);
  a.def(
      "ldmatrix_m8n16",
      [](nb::handle dst, nb::handle addr, amp::LdmatrixSource src, int64_t offset) -> nb::object {
        if (PyLong_Check(dst.ptr()))
          return reg_list(amp::ldmatrix_m8n16(nb::cast<int>(dst), reg_of(addr), src, offset, here()));
        amp::ldmatrix_m8n16(operand_list(dst), reg_of(addr), src, offset, here());
        return nb::none();
      },
      nb::arg("dst"), nb::arg("shared_addr"), nb::arg("src"), nb::arg("offset") = 0);
  a.def(
      "stmatrix_m16n8",
      [](nb::handle addr, nb::handle src, int64_t offset) {
        amp::stmatrix_m16n8(reg_of(addr), operand_list(src), offset, here());
      },
      nb::arg("shared_addr"), nb::arg("src"), nb::arg("offset") = 0);
}

// cp.async and the ring of stages it fills.
void bind_cp_async(nb::module_& a) {
  a.def(
      "cp_async_16",
      [](nb::handle dst, nb::handle src, nb::handle guard) {
        amp::cp_async_16(to_operand(dst, FloatAs::F32), to_operand(src, FloatAs::F32), optional_guard(guard), here());
      },
      nb::arg("dst_shared"), nb::arg("src_global"), nb::arg("guard") = nb::none(),
      "cp.async.cg.shared.global [dst], [src], 16;");
  a.def("cp_async_commit", [] { amp::cp_async_commit(here()); });
  a.def("cp_async_wait", [](int n) { amp::cp_async_wait(n, here()); });
  a.def("cp_async_wait_all", [] { amp::cp_async_wait_all(here()); });
  nb::class_<amp::CpAsyncRing>(a, "CpAsyncRing",
                               "A ring of shared-memory stages filled by cp.async groups (counted at trace time)")
      .def("__init__", [](amp::CpAsyncRing* self, int stages,
                          uint64_t bytes) { new (self) amp::CpAsyncRing(stages, bytes, here()); })
      .def_prop_ro("stages", &amp::CpAsyncRing::stages)
      .def_prop_ro("stage_bytes", &amp::CpAsyncRing::stage_bytes)
      .def_prop_ro("write_stage", &amp::CpAsyncRing::write_stage)
      .def_prop_ro("write_offset", &amp::CpAsyncRing::write_offset)
      .def_prop_ro("read_stage", &amp::CpAsyncRing::read_stage)
      .def_prop_ro("read_offset", &amp::CpAsyncRing::read_offset)
      .def_prop_ro("in_flight", &amp::CpAsyncRing::in_flight)
      .def(
          "commit", [](amp::CpAsyncRing& r) { r.commit(here()); }, "cp.async.commit_group;")
      .def(
          "wait", [](amp::CpAsyncRing& r) { r.wait(here()); }, "cp.async.wait_group (in_flight - 1);")
      .def(
          "release", [](amp::CpAsyncRing& r) { r.release(here()); },
          "the read stage may be overwritten (no instruction)");
}

}  // namespace

void bind_ampere(nb::module_& m) {
  nb::module_ a = m.def_submodule("ampere", "The Ampere helpers (ptx::ampere, sm_80+)");
  bind_mma_forms(a);
  bind_fragment(a);
  bind_ldmatrix(a);
  bind_cp_async(a);
}

}  // namespace ptxpy
