"""The rows RMS norm (examples/python/rows.py) written with pyptx, for the tracing benchmark
(bench/python_trace_bench.py): the same instructions in the same order, with pyptx's own
helpers where it has them (ptx.global_ptrs, ptx.warp.reduce_sum) and its ptx.inst chains for
the rest (the column loops spell out what ptxpp's ptx.loop emits). What differs from ptxpp's
PTX: pyptx's reduce_sum moves the f32 into and out of b32 registers around each shfl (10 more
instructions) and adds with add.f32 (not add.rn.f32); the .param names are the Python
parameter names and each register has its own .reg line. Its PTX assembles with
`ptxas -arch sm_90a` (checked by hand: `python bench/pyptx_rmsnorm.py > r.ptx && ptxas -arch sm_90a r.ptx`)."""

import pyptx
from pyptx import Tile, ptx, reg
from pyptx._trace import get_ctx
from pyptx.types import b64, f32, pred, u32


def for_columns(lane, n, body):
    """for (k = lane; k < n; k += 32) body(byte offset of column k): ptxpp's ptx.loop, spelled out"""
    k, off, p = reg.scalar(u32), reg.scalar(u32), reg.scalar(pred)
    ctx = get_ctx()
    top, end = ctx.fresh_label("loop"), ctx.fresh_label("loop_end")
    ptx.inst.mov.u32(k, lane)
    ptx.inst.setp.ge.u32(p, k, n)
    ptx.bra(end, pred=p)
    ptx.label(top)
    ptx.inst.mul.lo.u32(off, k, 4)
    body(off)
    ptx.inst.add.u32(k, k, 32)
    ptx.inst.setp.lt.u32(p, k, n)
    ptx.bra(top, pred=p)
    ptx.label(end)


def load(base, off):
    a, v = reg.scalar(b64), reg.scalar(f32)
    ptx.inst.mad.wide.u32(a, off, 1, base)
    ptx.inst.ld.global_.f32(v, ptx.addr(a))
    return v


@pyptx.kernel(in_specs=(Tile("M", "N", f32), Tile("N", f32)), out_specs=(Tile("M", "N", f32),),
              raw_params=[("f32", "eps")], grid=lambda M, N: (M, 1, 1), block=(32, 1, 1), arch="sm_90a")
def rmsnorm(x, w, y):
    """y = x * rsqrt(mean(x^2) + eps) * w"""
    n = x.shape[1]
    px, pw, py = ptx.global_ptrs(x, w, y)
    row, lane, nbytes = reg.scalar(u32), reg.scalar(u32), reg.scalar(u32)
    ptx.inst.mov.u32(row, ptx.special.ctaid.x())
    ptx.inst.mov.u32(lane, ptx.special.tid.x())
    ptx.inst.mul.lo.u32(nbytes, row, n * 4)
    rx, ry = reg.scalar(b64), reg.scalar(b64)
    ptx.inst.mad.wide.u32(rx, nbytes, 1, px)
    ptx.inst.mad.wide.u32(ry, nbytes, 1, py)
    acc = reg.scalar(f32, init=0.0)

    def accumulate(off):
        v = load(rx, off)
        ptx.inst.fma.rn.f32(acc, v, v, acc)

    for_columns(lane, n, accumulate)
    ptx.warp.reduce_sum(acc)
    ms, eps, inv = reg.scalar(f32), reg.scalar(f32), reg.scalar(f32)
    ptx.inst.mul.rn.f32(ms, acc, f"0f{_f32_bits(1.0 / n):08X}")
    ptx.inst.ld.param.f32(eps, ptx.addr("eps"))
    ptx.inst.add.rn.f32(ms, ms, eps)
    ptx.inst.rsqrt.approx.f32(inv, ms)

    def normalize(off):
        v = load(rx, off)
        g = load(pw, off)
        o, a = reg.scalar(f32), reg.scalar(b64)
        ptx.inst.mul.rn.f32(o, v, inv)
        ptx.inst.mul.rn.f32(o, o, g)
        ptx.inst.mad.wide.u32(a, off, 1, ry)
        ptx.inst.st.global_.f32(ptx.addr(a), o)

    for_columns(lane, n, normalize)
    ptx.ret()


def _f32_bits(value):
    import struct
    return struct.unpack("<I", struct.pack("<f", value))[0]


if __name__ == "__main__":
    print(rmsnorm.ptx(M=1024, N=4096))
