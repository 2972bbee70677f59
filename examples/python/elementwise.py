"""Elementwise example kernels: identity, vector add, SwiGLU (examples/kernels/elementwise.hpp in
Python). One thread per element of a length-N vector; N is a shape variable, bound when the
kernel is traced. Each prints the same PTX as its C++ twin."""

import ptxpp
from ptxpp import Tile, ptx, reg
from ptxpp.types import f32, u32


def blocks_for(n, threads):
    return ((n + threads - 1) // threads, 1, 1)


def element_index(n):
    """The global index of this thread and whether it is in range:
    mov %ctaid.x; mov %ntid.x; mov %tid.x; mad.lo; setp.lt"""
    cta = ptx.read(ptx.special.ctaid.x(), u32)
    ntid = ptx.read(ptx.special.ntid.x(), u32)
    tid = ptx.read(ptx.special.tid.x(), u32)
    i = reg.scalar(u32)
    ptx.inst.mad.lo.u32(i, cta, ntid, tid)
    return i, i < n


@ptxpp.kernel(in_specs=(Tile("N", f32),), out_specs=(Tile("N", f32),), block=256,
              grid=lambda N: blocks_for(N, 256), arch="sm_90a")
def identity(x, y, *, N):
    """y[i] = x[i]"""
    i, ok = element_index(N)
    done = ptx.Label("done")
    ptx.bra_unless(ok, done)
    px, py = ptx.global_ptrs(x, y)
    off = i * 4
    v = reg.scalar(f32)
    ptx.inst.ld.global_.f32(v, ptx.addr(px + off))
    ptx.inst.st.global_.f32(ptx.addr(py + off), v)
    ptx.place(done)
    ptx.ret()


@ptxpp.kernel(in_specs=(Tile("N", f32), Tile("N", f32)), out_specs=(Tile("N", f32),), block=256,
              grid=lambda N: blocks_for(N, 1024), arch="sm_90a")
def vector_add(x, y, z, *, N):
    """z[i] = x[i] + y[i], four elements a thread with 128-bit loads (N a multiple of 4)."""
    if N % 4 != 0:
        raise ptxpp.Error("vector_add: N must be a multiple of 4")
    i, ok = element_index(N // 4)
    done = ptx.Label("done")
    ptx.bra_unless(ok, done)
    px, py, pz = ptx.global_ptrs(x, y, z)
    off = i * 16
    a, b = reg.array(f32, 4, "a"), reg.array(f32, 4, "b")
    ptx.inst.ld.global_.v4.f32([a[0], a[1], a[2], a[3]], ptx.addr(px + off))
    ptx.inst.ld.global_.v4.f32([b[0], b[1], b[2], b[3]], ptx.addr(py + off))
    for k in range(4):
        a[k] = a[k] + b[k]  # renames: add.rn.f32 %a0, %a0, %b0
    ptx.inst.st.global_.v4.f32(ptx.addr(pz + off), [a[0], a[1], a[2], a[3]])
    ptx.place(done)
    ptx.ret()


@ptxpp.kernel(in_specs=(Tile("N", f32), Tile("N", f32)), out_specs=(Tile("N", f32),), block=256,
              grid=lambda N: blocks_for(N, 256), arch="sm_90a")
def swiglu(gate, up, out, *, N):
    """out[i] = silu(gate[i]) * up[i],  silu(g) = g / (1 + 2^(-g * log2 e))"""
    i, ok = element_index(N)
    done = ptx.Label("done")
    ptx.bra_unless(ok, done)
    pg, pu, po = ptx.global_ptrs(gate, up, out)
    off = i * 4
    g, u, e, s = reg.scalar(f32), reg.scalar(f32), reg.scalar(f32), reg.scalar(f32)
    ptx.inst.ld.global_.f32(g, ptx.addr(pg + off))
    ptx.inst.ld.global_.f32(u, ptx.addr(pu + off))
    t = g * -1.4426950408889634  # -g * log2(e), rounded to f32
    ptx.inst.ex2.approx.ftz.f32(e, t)
    d = e + 1.0
    ptx.inst.div.approx.ftz.f32(s, g, d)
    y = s * u
    ptx.inst.st.global_.f32(ptx.addr(po + off), y)
    ptx.place(done)
    ptx.ret()
