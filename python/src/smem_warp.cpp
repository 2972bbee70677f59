// Shared memory (static, or dynamic past 48 KB, as the C++ DSL decides) and the warp helpers.
#include <fmt/format.h>
#include <nanobind/stl/string.h>

#include "common.hpp"

namespace ptxpy {

namespace {

struct PyBuffer {
  ptx::smem::Buffer buf;
  uint32_t trace;
  const ptx::smem::Buffer& get() const {
    check_same_trace(trace, "a shared memory buffer");
    return buf;
  }
};

nb::object wrap(ptx::Operand o) { return nb::cast(PyOperand{o, ptx::dsl::running_trace_id()}); }

}  // namespace

void bind_smem_warp(nb::module_& m) {
  nb::enum_<ptx::smem::Swizzle>(m, "Swizzle", "CuTe's Swizzle<B,4,3> on byte offsets")
      .value("None_", ptx::smem::Swizzle::None)
      .value("B32", ptx::smem::Swizzle::B32)
      .value("B64", ptx::smem::Swizzle::B64)
      .value("B128", ptx::smem::Swizzle::B128);
  nb::class_<PyBuffer>(m, "Buffer", "A shared memory allocation of the running trace")
      .def(
          "addr", [](const PyBuffer& b, int64_t off) { return wrap(b.get().addr(off, here())); },
          nb::arg("byte_offset") = 0, "[symbol+offset+byte_offset] (no instruction)")
      .def(
          "base", [](const PyBuffer& b) { return make_reg(b.get().base(here())); },
          "mov.u32 r, symbol: the shared-window address")
      .def_prop_ro("bytes", [](const PyBuffer& b) { return b.buf.bytes(); })
      .def_prop_ro("dtype", [](const PyBuffer& b) { return b.buf.dtype(); })
      .def_prop_ro("symbol", [](const PyBuffer& b) { return b.buf.symbol(); })
      .def_prop_ro("offset", [](const PyBuffer& b) { return b.buf.offset(); })
      .def("__repr__", [](const PyBuffer& b) {
        return fmt::format("<ptxpp.smem.Buffer {} bytes at {}+{}>", b.buf.bytes(), b.buf.symbol(), b.buf.offset());
      });
  m.def(
      "smem_alloc",
      [](ptx::DType t, nb::handle shape, uint32_t align, ptx::smem::Swizzle s) {
        int64_t elems = 1;
        std::vector<int64_t> dims;
        if (PyLong_Check(shape.ptr()))
          dims.push_back(nb::cast<int64_t>(shape));
        else
          for (nb::handle d : shape) dims.push_back(nb::cast<int64_t>(d));
        for (int64_t d : dims) {
          if (d <= 0) throw ptx::Error(fmt::format("shared memory dimension {} is not positive", d), {});
          if (elems > (int64_t{1} << 40) / d) throw ptx::Error("shared memory allocation too large", {});
          elems *= d;
        }
        return PyBuffer{ptx::smem::alloc(t, {elems}, align, s, here()), ptx::dsl::running_trace_id()};
      },
      nb::arg("dtype"), nb::arg("shape"), nb::arg("align") = 16, nb::arg("swizzle") = ptx::smem::Swizzle::None);
  m.def(
      "smem_swizzle",
      [](nb::handle off, ptx::smem::Swizzle s) { return make_reg(ptx::smem::swizzle(reg_of(off), s, here())); },
      "shr.u32 t, off, 3; and.b32 t, t, MASK; xor.b32 d, off, t");

  m.def("warp_reduce",
        [](nb::handle v, ptx::warp::Reduce op) { return make_reg(ptx::warp::reduce(reg_of(v), op, here())); });
  nb::enum_<ptx::warp::Reduce>(m, "Reduce")
      .value("Sum", ptx::warp::Reduce::Sum)
      .value("Max", ptx::warp::Reduce::Max)
      .value("Min", ptx::warp::Reduce::Min);
  m.def("warp_broadcast", [](nb::handle v, nb::handle lane) {
    return make_reg(ptx::warp::broadcast(reg_of(v), to_operand(lane, FloatAs::F32), here()));
  });
  m.def("warp_ballot", [](nb::handle p) { return make_reg(ptx::warp::ballot(reg_of(p), here())); });
  m.def("warp_all", [](nb::handle p) { return make_reg(ptx::warp::all(reg_of(p), here())); });
  m.def("warp_any", [](nb::handle p) { return make_reg(ptx::warp::any(reg_of(p), here())); });
  m.def("warp_match_any", [](nb::handle v) { return make_reg(ptx::warp::match_any(reg_of(v), here())); });
  m.def("warp_elect_one", [] { return make_reg(ptx::warp::elect_one(here())); });
}

}  // namespace ptxpy
