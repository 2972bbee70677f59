// Shared memory (static, or dynamic past 48 KB, as the C++ DSL decides) and the warp helpers.
#include <fmt/format.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/vector.h>

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

// buf[i] of a rank-2 buffer: the first indices, waiting for the rest.
struct PyElement {
  nb::object buffer;  // the PyBuffer
  std::vector<ptx::smem::Index> indices;
};

void add_indices(std::vector<ptx::smem::Index>& out, nb::handle key) {
  auto one = [&](nb::handle k) {
    if (nb::isinstance<PyReg>(k))
      out.emplace_back(nb::inst_ptr<PyReg>(k)->reg);
    else if (PyLong_Check(k.ptr()) && !PyBool_Check(k.ptr()))
      out.emplace_back(nb::cast<int64_t>(k));
    else
      throw nb::type_error("a shared array index is an int or a .u32 register");
  };
  if (PyTuple_Check(key.ptr()))
    for (nb::handle k : key) one(k);
  else
    one(key);
}

// All indices: the load; fewer: a PyElement (the indices checked now).
nb::object index(nb::handle buffer, std::vector<ptx::smem::Index> indices) {
  const ptx::smem::Buffer& b = nb::inst_ptr<PyBuffer>(buffer)->get();
  const ptx::smem::Element e = b.at(indices, here());
  if (indices.size() < b.shape().size()) return nb::cast(PyElement{nb::borrow(buffer), std::move(indices)});
  return make_reg(e.load(here()));
}

void store(nb::handle buffer, const std::vector<ptx::smem::Index>& indices, nb::handle value) {
  const ptx::smem::Buffer& b = nb::inst_ptr<PyBuffer>(buffer)->get();
  b.at(indices, here()).store(to_operand(value, floats_for(b.dtype())), here());
}

}  // namespace

const ptx::smem::Buffer& buffer_of(nb::handle h) {
  if (!nb::isinstance<PyBuffer>(h)) throw nb::type_error("expected a shared memory buffer (smem.alloc(...))");
  return nb::inst_ptr<PyBuffer>(h)->get();
}

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
      .def_prop_ro("shape", [](const PyBuffer& b) { return nb::tuple(nb::cast(b.buf.shape())); })
      .def(
          "__getitem__",
          [](nb::handle self, nb::handle key) {
            std::vector<ptx::smem::Index> idx;
            add_indices(idx, key);
            return index(self, std::move(idx));
          },
          "buf[i, j] / buf[i][j] with all indices: address arithmetic + ld.shared into a fresh register")
      .def(
          "__setitem__",
          [](nb::handle self, nb::handle key, nb::handle value) {
            std::vector<ptx::smem::Index> idx;
            add_indices(idx, key);
            store(self, idx, value);
          },
          "buf[warp, 0] = acc: address arithmetic + st.shared")
      .def("__repr__", [](const PyBuffer& b) {
        return fmt::format("<ptxpp.smem.Buffer {} bytes at {}+{}>", b.buf.bytes(), b.buf.symbol(), b.buf.offset());
      });
  nb::class_<PyElement>(m, "BufferElement", "buf[i] of a buffer of higher rank: index it further")
      .def("__getitem__",
           [](const PyElement& e, nb::handle key) {
             std::vector<ptx::smem::Index> idx(e.indices.begin(), e.indices.end());
             add_indices(idx, key);
             return index(e.buffer, std::move(idx));
           })
      .def("__setitem__", [](const PyElement& e, nb::handle key, nb::handle value) {
        std::vector<ptx::smem::Index> idx(e.indices.begin(), e.indices.end());
        add_indices(idx, key);
        store(e.buffer, idx, value);
      });
  m.def(
      "smem_alloc",
      [](ptx::DType t, nb::handle shape, uint32_t align, ptx::smem::Swizzle s) {
        std::vector<int64_t> dims;
        if (PyLong_Check(shape.ptr()))
          dims.push_back(nb::cast<int64_t>(shape));
        else
          for (nb::handle d : shape) dims.push_back(nb::cast<int64_t>(d));
        return PyBuffer{ptx::smem::alloc(t, dims, align, s, here()), ptx::dsl::running_trace_id()};
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
