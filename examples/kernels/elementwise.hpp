// Elementwise example kernels: identity, vector add, SwiGLU. One thread per
// element of a length-N vector; N is symbolic, bound when the kernel is traced.
#pragma once

#include <string>

#include <ptxpp/dsl.hpp>

namespace examples {

using namespace ptx::types;
namespace inst = ptx::inst;

inline ptx::Dim3 blocks_for(const ptx::Bindings& b, uint32_t threads) {
  return ptx::Dim3(static_cast<uint32_t>((b.at("N") + threads - 1) / threads));
}

// The global index of this thread and whether it is in range:
//   mov %ctaid.x; mov %ntid.x; mov %tid.x; mad.lo; setp.lt
inline std::pair<ptx::Reg, ptx::Reg> element_index(int64_t n) {
  ptx::Reg cta = ptx::read(ptx::special::ctaid.x(), u32);
  ptx::Reg ntid = ptx::read(ptx::special::ntid.x(), u32);
  ptx::Reg tid = ptx::read(ptx::special::tid.x(), u32);
  ptx::Reg i(u32);
  inst::mad.lo.u32(i, cta, ntid, tid);
  ptx::Reg in_range = i < static_cast<uint32_t>(n);
  return {std::move(i), std::move(in_range)};
}

// y[i] = x[i]
inline ptx::Kernel identity(const std::string& arch) {
  return ptx::kernel("identity")
      .in(ptx::tensor(f32, {"N"}))
      .out(ptx::tensor(f32, {"N"}))
      .block(256)
      .grid([](const ptx::Bindings& b) { return blocks_for(b, 256); })
      .arch(arch)
      .body([](ptx::Tensor x, ptx::Tensor y) {
        auto [i, ok] = element_index(x.dim(0));
        ptx::Label done("done");
        ptx::bra_unless(ok, done);
        auto [px, py] = ptx::global_ptrs(x, y);
        ptx::Reg off = i * 4;
        ptx::Reg v(f32);
        inst::ld.global.f32(v, ptx::addr(px + off));
        inst::st.global.f32(ptx::addr(py + off), v);
        ptx::place(done);
        ptx::ret();
      });
}

// z[i] = x[i] + y[i], four elements a thread with 128-bit loads (N a multiple of 4).
inline ptx::Kernel vector_add(const std::string& arch) {
  return ptx::kernel("vector_add")
      .in(ptx::tensor(f32, {"N"}))
      .in(ptx::tensor(f32, {"N"}))
      .out(ptx::tensor(f32, {"N"}))
      .block(256)
      .grid([](const ptx::Bindings& b) { return blocks_for(b, 1024); })
      .arch(arch)
      .body([](ptx::Tensor x, ptx::Tensor y, ptx::Tensor z) {
        if (x.dim(0) % 4 != 0) throw ptx::Error("vector_add: N must be a multiple of 4", ptx::SourceLocation::current());
        auto [i, ok] = element_index(x.dim(0) / 4);
        ptx::Label done("done");
        ptx::bra_unless(ok, done);
        auto [px, py, pz] = ptx::global_ptrs(x, y, z);
        ptx::Reg off = i * 16;
        ptx::RegArray a(f32, 4, "a"), b(f32, 4, "b");
        inst::ld.global.v4.f32(ptx::vec(a[0], a[1], a[2], a[3]), ptx::addr(px + off));
        inst::ld.global.v4.f32(ptx::vec(b[0], b[1], b[2], b[3]), ptx::addr(py + off));
        for (int k = 0; k < 4; ++k) a[k] = a[k] + b[k];  // renames: add.rn.f32 %a0, %a0, %b0
        inst::st.global.v4.f32(ptx::addr(pz + off), ptx::vec(a[0], a[1], a[2], a[3]));
        ptx::place(done);
        ptx::ret();
      });
}

// out[i] = silu(gate[i]) * up[i],  silu(g) = g / (1 + 2^(-g * log2 e))
inline ptx::Kernel swiglu(const std::string& arch) {
  return ptx::kernel("swiglu")
      .in(ptx::tensor(f32, {"N"}))
      .in(ptx::tensor(f32, {"N"}))
      .out(ptx::tensor(f32, {"N"}))
      .block(256)
      .grid([](const ptx::Bindings& b) { return blocks_for(b, 256); })
      .arch(arch)
      .body([](ptx::Tensor gate, ptx::Tensor up, ptx::Tensor out) {
        auto [i, ok] = element_index(gate.dim(0));
        ptx::Label done("done");
        ptx::bra_unless(ok, done);
        auto [pg, pu, po] = ptx::global_ptrs(gate, up, out);
        ptx::Reg off = i * 4;
        ptx::Reg g(f32), u(f32), e(f32), s(f32);
        inst::ld.global.f32(g, ptx::addr(pg + off));
        inst::ld.global.f32(u, ptx::addr(pu + off));
        ptx::Reg t = g * -1.4426950408889634f;  // -g * log2(e)
        inst::ex2.approx.ftz.f32(e, t);
        ptx::Reg d = e + 1.0f;
        inst::div.approx.ftz.f32(s, g, d);
        ptx::Reg y = s * u;
        inst::st.global.f32(ptx::addr(po + off), y);
        ptx::place(done);
        ptx::ret();
      });
}

}  // namespace examples
