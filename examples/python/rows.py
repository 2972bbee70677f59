"""Row-wise example kernels: RMS norm, LayerNorm, softmax over an M x N matrix
(examples/kernels/rows.hpp in Python). One warp per row: each lane walks the row with
stride 32 (a run-time loop), then the warp combines its partial results with butterfly
shuffles. Each prints the same PTX as its C++ twin."""

import ptxpp
from ptxpp import Scalar, Tile, ptx, reg
from ptxpp.types import f32, u32

LOG2E = 1.4426950408889634


def one_block_per_row(M):
    return (M, 1, 1)


def row_of(px, py, n):
    """mov %ctaid.x; mov %tid.x; mul.lo (row bytes); two mad.wide (row addresses)"""
    row = ptx.read(ptx.special.ctaid.x(), u32)
    lane = ptx.read(ptx.special.tid.x(), u32)
    nbytes = row * (n * 4)
    return lane, px + nbytes, py + nbytes


def for_columns(lane, n, body):
    """for (k = lane; k < n; k += 32) body(byte offset of column k)"""
    ptx.loop(lane, n, 32, lambda k: body(k * 4))


def load(base, off):
    v = reg.scalar(f32)
    ptx.inst.ld.global_.f32(v, ptx.addr(base + off))
    return v


@ptxpp.kernel(in_specs=(Tile("M", "N", f32), Tile("N", f32)), out_specs=(Tile("M", "N", f32),),
              scalars=(Scalar("eps", f32),), block=32, grid=one_block_per_row, arch="sm_90a")
def rmsnorm(x, w, y, eps, *, N):
    """y = x * rsqrt(mean(x^2) + eps) * w"""
    px, pw, py = ptx.global_ptrs(x, w, y)
    lane, rx, ry = row_of(px, py, N)
    acc = reg.scalar(f32, init=0.0)

    def accumulate(off):
        v = load(rx, off)
        ptx.inst.fma.rn.f32(acc, v, v, acc)

    for_columns(lane, N, accumulate)
    total = ptx.warp.reduce_sum(acc)
    ms = total * (1.0 / N)
    ms += eps.load()
    inv = reg.scalar(f32)
    ptx.inst.rsqrt.approx.f32(inv, ms)

    def normalize(off):
        v = load(rx, off)
        g = load(pw, off)
        o = v * inv
        o.set(o * g)  # the rename rule: the mul writes o (C++: o = o * g)
        ptx.inst.st.global_.f32(ptx.addr(ry + off), o)

    for_columns(lane, N, normalize)
    ptx.ret()


@ptxpp.kernel(in_specs=(Tile("M", "N", f32), Tile("N", f32), Tile("N", f32)), out_specs=(Tile("M", "N", f32),),
              scalars=(Scalar("eps", f32),), block=32, grid=one_block_per_row, arch="sm_90a")
def layernorm(x, w, b, y, eps, *, N):
    """y = (x - mean) * rsqrt(var + eps) * w + b"""
    px, pw, pb, py = ptx.global_ptrs(x, w, b, y)
    lane, rx, ry = row_of(px, py, N)
    total, sq = reg.scalar(f32), reg.scalar(f32)
    total.set(0.0)
    sq.set(0.0)

    def accumulate(off):
        nonlocal total
        v = load(rx, off)
        total += v
        ptx.inst.fma.rn.f32(sq, v, v, sq)

    for_columns(lane, N, accumulate)
    mean = ptx.warp.reduce_sum(total) * (1.0 / N)
    ex2 = ptx.warp.reduce_sum(sq) * (1.0 / N)
    var = reg.scalar(f32)
    ptx.inst.mul.rn.f32(var, mean, mean)
    var.set(ex2 - var)
    var += eps.load()
    inv = reg.scalar(f32)
    ptx.inst.rsqrt.approx.f32(inv, var)

    def normalize(off):
        v = load(rx, off)
        c = v - mean
        c *= inv
        gw = load(pw, off)
        gb = load(pb, off)
        o = reg.scalar(f32)
        ptx.inst.fma.rn.f32(o, c, gw, gb)
        ptx.inst.st.global_.f32(ptx.addr(ry + off), o)

    for_columns(lane, N, normalize)
    ptx.ret()


@ptxpp.kernel(in_specs=(Tile("M", "N", f32),), out_specs=(Tile("M", "N", f32),), block=32,
              grid=one_block_per_row, arch="sm_90a")
def softmax(x, y, *, N):
    """y = exp(x - max(x)) / sum(exp(x - max(x)))"""
    px, py = ptx.global_ptrs(x, y)
    lane, rx, ry = row_of(px, py, N)
    m = reg.scalar(f32, init=-3.4028234663852886e38)
    for_columns(lane, N, lambda off: ptx.inst.max.f32(m, m, load(rx, off)))
    mx = ptx.warp.reduce_max(m)
    neg_scaled_max = mx * -LOG2E
    total = reg.scalar(f32, init=0.0)

    def exp_of(off):
        v = load(rx, off)
        e, t = reg.scalar(f32), reg.scalar(f32)
        ptx.inst.fma.rn.f32(t, v, LOG2E, neg_scaled_max)
        ptx.inst.ex2.approx.ftz.f32(e, t)
        return e

    def accumulate(off):
        nonlocal total
        total += exp_of(off)

    for_columns(lane, N, accumulate)
    s = ptx.warp.reduce_sum(total)
    inv = reg.scalar(f32)
    ptx.inst.rcp.rn.f32(inv, s)

    def store(off):
        o = exp_of(off) * inv
        ptx.inst.st.global_.f32(ptx.addr(ry + off), o)

    for_columns(lane, N, store)
    ptx.ret()
