// Kernels written for the interop tests (named parameters, integer scalars, a static
// dimension, two outputs, and two kernels no op can call); torch_ops.cpp and
// jax_ops.cpp make ops of them.
#pragma once

#include <ptxpp/ptxpp.hpp>

#include "../../examples/kernels/elementwise.hpp"

namespace interop_test {

using namespace ptx::types;
namespace inst = ptx::inst;

// y[i] = alpha * x[i] + shift (shift an integer), one thread per element.
inline ptx::Kernel axpb(const std::string& arch) {
  return ptx::kernel("axpb")
      .in("x", ptx::tensor(f32, {"N"}))
      .out("y", ptx::tensor(f32, {"N"}))
      .scalar("alpha", f32)
      .scalar("shift", s32)
      .block(64)
      .grid([](const ptx::Bindings& b) { return examples::blocks_for(b, 64); })
      .arch(arch)
      .body([](ptx::Tensor x, ptx::Tensor y, ptx::Scalar alpha, ptx::Scalar shift) {
        auto [i, ok] = examples::element_index(x.dim(0));
        ptx::Label done("done");
        ptx::bra_unless(ok, done);
        auto [px, py] = ptx::global_ptrs(x, y);
        ptx::Reg a = alpha.load(), k = shift.load();
        ptx::Reg off = i * 4;
        ptx::Reg v(f32), kf(f32);
        inst::ld.global.f32(v, ptx::addr(px + off));
        inst::cvt.rn.f32.s32(kf, k);
        inst::fma.rn.f32(v, v, a, kf);
        inst::st.global.f32(ptx::addr(py + off), v);
        ptx::place(done);
        ptx::ret();
      });
}

// The gradient of axpb: grad_x[i] = alpha * grad_y[i] (x and shift are not needed,
// but a backward op receives the forward's inputs and scalars).
inline ptx::Kernel axpb_backward(const std::string& arch) {
  return ptx::kernel("axpb_backward")
      .in("grad_y", ptx::tensor(f32, {"N"}))
      .in("x", ptx::tensor(f32, {"N"}))
      .out("grad_x", ptx::tensor(f32, {"N"}))
      .scalar("alpha", f32)
      .scalar("shift", s32)
      .block(64)
      .grid([](const ptx::Bindings& b) { return examples::blocks_for(b, 64); })
      .arch(arch)
      .body([](ptx::Tensor grad_y, ptx::Tensor, ptx::Tensor grad_x, ptx::Scalar alpha, ptx::Scalar) {
        auto [i, ok] = examples::element_index(grad_y.dim(0));
        ptx::Label done("done");
        ptx::bra_unless(ok, done);
        auto [pg, px] = ptx::global_ptrs(grad_y, grad_x);
        ptx::Reg a = alpha.load();
        ptx::Reg off = i * 4;
        ptx::Reg v(f32);
        inst::ld.global.f32(v, ptx::addr(pg + off));
        inst::mul.rn.f32(v, v, a);
        inst::st.global.f32(ptx::addr(px + off), v);
        ptx::place(done);
        ptx::ret();
      });
}

// The gradients of examples::swiglu (out = silu(g) * u, silu(g) = g * s, s = sigmoid(g)):
//   grad_gate = grad_out * u * s * (1 + g * (1 - s)),   grad_up = grad_out * g * s.
inline ptx::Kernel swiglu_backward(const std::string& arch) {
  return ptx::kernel("swiglu_backward")
      .in("grad_out", ptx::tensor(f32, {"N"}))
      .in("gate", ptx::tensor(f32, {"N"}))
      .in("up", ptx::tensor(f32, {"N"}))
      .out("grad_gate", ptx::tensor(f32, {"N"}))
      .out("grad_up", ptx::tensor(f32, {"N"}))
      .block(128)
      .grid([](const ptx::Bindings& b) { return examples::blocks_for(b, 128); })
      .arch(arch)
      .body([](ptx::Tensor grad_out, ptx::Tensor gate, ptx::Tensor up, ptx::Tensor grad_gate, ptx::Tensor grad_up) {
        auto [i, ok] = examples::element_index(gate.dim(0));
        ptx::Label done("done");
        ptx::bra_unless(ok, done);
        auto [pdy, pg, pu, pgg, pgu] = ptx::global_ptrs(grad_out, gate, up, grad_gate, grad_up);
        ptx::Reg off = i * 4;
        ptx::Reg dy(f32), g(f32), u(f32), e(f32), s(f32);
        inst::ld.global.f32(dy, ptx::addr(pdy + off));
        inst::ld.global.f32(g, ptx::addr(pg + off));
        inst::ld.global.f32(u, ptx::addr(pu + off));
        ptx::Reg t = g * -1.4426950408889634f;  // -g * log2(e)
        inst::ex2.approx.ftz.f32(e, t);
        ptx::Reg d = e + 1.0f;
        inst::rcp.rn.f32(s, d);  // sigmoid(g)
        ptx::Reg silu = g * s;
        ptx::Reg du = dy * silu;
        ptx::Reg one_minus_s = 1.0f - s;
        ptx::Reg slope = g * one_minus_s;
        ptx::Reg k = slope + 1.0f;      // 1 + g * (1 - s)
        ptx::Reg dyu = dy * u;
        ptx::Reg dys = dyu * s;
        ptx::Reg dg = dys * k;
        inst::st.global.f32(ptx::addr(pgg + off), dg);
        inst::st.global.f32(ptx::addr(pgu + off), du);
        ptx::place(done);
        ptx::ret();
      });
}

// Backward kernels for axpb that do not fit it, for the pairing errors: a gradient of
// the wrong element type, and one of a fixed length (right only when N is 64).
inline ptx::Kernel axpb_backward_f64(const std::string& arch) {
  return ptx::kernel("axpb_backward_f64")
      .in("grad_y", ptx::tensor(f32, {"N"}))
      .in("x", ptx::tensor(f32, {"N"}))
      .out("grad_x", ptx::tensor(f64, {"N"}))
      .scalar("alpha", f32)
      .scalar("shift", s32)
      .arch(arch)
      .body([](ptx::Tensor, ptx::Tensor, ptx::Tensor, ptx::Scalar, ptx::Scalar) { ptx::ret(); });
}
inline ptx::Kernel axpb_backward_fixed(const std::string& arch) {
  return ptx::kernel("axpb_backward_fixed")
      .in("grad_y", ptx::tensor(f32, {"N"}))
      .in("x", ptx::tensor(f32, {"N"}))
      .out("grad_x", ptx::tensor(f32, {64}))
      .scalar("alpha", f32)
      .scalar("shift", s32)
      .arch(arch)
      .body([](ptx::Tensor, ptx::Tensor, ptx::Tensor, ptx::Scalar, ptx::Scalar) { ptx::ret(); });
}

// The rows of an [M, 4] matrix: their sums and their maxima (two outputs; a static dimension).
inline ptx::Kernel row_stats(const std::string& arch) {
  return ptx::kernel("row_stats")
      .in("x", ptx::tensor(f32, {"M", 4}))
      .out("sum", ptx::tensor(f32, {"M"}))
      .out("max", ptx::tensor(f32, {"M"}))
      .block(32)
      .grid([](const ptx::Bindings& b) { return ptx::Dim3(static_cast<uint32_t>((b.at("M") + 31) / 32)); })
      .arch(arch)
      .body([](ptx::Tensor x, ptx::Tensor sum, ptx::Tensor max) {
        auto [row, ok] = examples::element_index(x.dim(0));
        ptx::Label done("done");
        ptx::bra_unless(ok, done);
        auto [px, ps, pm] = ptx::global_ptrs(x, sum, max);
        ptx::Reg row_addr = px + row * 16;
        ptx::Reg s(f32), mx(f32), v(f32);
        inst::ld.global.f32(s, ptx::addr(row_addr));
        inst::mov.f32(mx, s);
        for (int j = 1; j < 4; ++j) {
          inst::ld.global.f32(v, ptx::addr(row_addr, 4 * j));
          inst::add.f32(s, s, v);
          inst::max.f32(mx, mx, v);
        }
        ptx::Reg off = row * 4;
        inst::st.global.f32(ptx::addr(ps + off), s);
        inst::st.global.f32(ptx::addr(pm + off), mx);
        ptx::place(done);
        ptx::ret();
      });
}

// Kernels no torch op can call: each op is defined as `name(...) -> ()` raising why.
inline ptx::Kernel with_tensor_map(const std::string& arch) {
  return ptx::kernel("with_tensor_map").tensor_map("map").arch(arch).body([](ptx::TensorMapParam) { ptx::ret(); });
}
inline ptx::Kernel unsized_output(const std::string& arch) {
  return ptx::kernel("unsized_output")
      .in("x", ptx::tensor(f32, {"N"}))
      .out("y", ptx::tensor(f32, {"K"}))
      .arch(arch)
      .body([](ptx::Tensor, ptx::Tensor) { ptx::ret(); });
}

}  // namespace interop_test
