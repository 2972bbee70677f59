// ptxpp._core: the ptxpp C++ core for Python. The DSL's tracing, the ISA table and its
// checks, and the emulator all run in C++; the Python package (ptxpp/) is a thin layer.
#include <ptxpp/dsl.hpp>

#include "common.hpp"

NB_MODULE(_core, m) {
  namespace nb = nanobind;
  // A kernel's body closes over the user's function, whose module holds the kernel: that
  // cycle (through C++, which the collector cannot see) lives until the interpreter exits.
  nb::set_leak_warnings(false);
  m.doc() = "The ptxpp C++ core: DSL tracing, ISA checks, the CPU emulator";
  nb::enum_<ptx::DType>(m, "DType", "PTX data types")
      .value("b8", ptx::DType::b8)
      .value("b16", ptx::DType::b16)
      .value("b32", ptx::DType::b32)
      .value("b64", ptx::DType::b64)
      .value("b128", ptx::DType::b128)
      .value("u8", ptx::DType::u8)
      .value("u16", ptx::DType::u16)
      .value("u32", ptx::DType::u32)
      .value("u64", ptx::DType::u64)
      .value("s8", ptx::DType::s8)
      .value("s16", ptx::DType::s16)
      .value("s32", ptx::DType::s32)
      .value("s64", ptx::DType::s64)
      .value("f16", ptx::DType::f16)
      .value("f16x2", ptx::DType::f16x2)
      .value("bf16", ptx::DType::bf16)
      .value("bf16x2", ptx::DType::bf16x2)
      .value("tf32", ptx::DType::tf32)
      .value("f32", ptx::DType::f32)
      .value("f64", ptx::DType::f64)
      .value("e4m3", ptx::DType::e4m3)
      .value("e5m2", ptx::DType::e5m2)
      .value("b1", ptx::DType::b1)
      .value("pred", ptx::DType::pred);
  m.def(
      "dtype_name", [](ptx::DType t) { return std::string(ptx::name(t)); }, "'.f32'");
  m.def("dtype_bits", [](ptx::DType t) { return ptx::bits(t); });
  ptxpy::bind_errors(m);
  ptxpy::bind_operands(m);
  ptxpy::bind_regs(m);
  ptxpy::bind_chains(m);
  ptxpy::bind_control(m);
  ptxpy::bind_kernel(m);
  ptxpy::bind_functions(m);
  ptxpy::bind_smem_warp(m);
  ptxpy::bind_run(m);
  ptxpy::bind_gpu_launch(m);
  ptxpy::bind_gpu_plan(m);
  ptxpy::bind_torch_gate(m);
  ptxpy::bind_ampere(m);
  ptxpy::bind_hopper(m);
  ptxpy::bind_blackwell(m);
  ptxpy::bind_listing(m);
#ifdef PTXPP_JAX_FFI
  ptxpy::bind_jax_ffi(m);
  m.attr("jax_ffi_available") = true;
#else
  m.attr("jax_ffi_available") = false;  // built without PTXPP_JAX_INCLUDE: JAX calls use jax.pure_callback
#endif
}
