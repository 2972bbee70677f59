"""A 15-line RMS norm in the Python DSL (the README's first example): prints its PTX, then runs
it on NumPy arrays in the CPU emulator and checks the result. One warp per row; each lane keeps
N/32 values of its row in registers (the column loop is a host loop: unrolled)."""

import sys

import numpy as np

import ptxpp
from ptxpp import Tile, ptx, reg
from ptxpp.types import f32, u32


@ptxpp.kernel(in_specs=(Tile("M", "N", f32), Tile("N", f32)), out_specs=(Tile("M", "N", f32),),
              grid=lambda M: (M, 1, 1), block=32, arch="sm_90a")
def rmsnorm(x, w, y, *, N, eps=1e-6):
    px, pw, py = ptx.global_ptrs(x, w, y)
    lane = ptx.read(ptx.special.tid.x(), u32) * 4
    row = ptx.read(ptx.special.ctaid.x(), u32) * (N * 4) + lane
    xr, wr, yr = px + row, pw + lane, py + row
    xs, acc = reg.array(f32, N // 32, "x"), reg.scalar(f32, init=0.0)
    for j in range(N // 32):
        ptx.inst.ld.global_.f32(xs[j], ptx.addr(xr, j * 128))
        ptx.inst.fma.rn.f32(acc, xs[j], xs[j], acc)
    inv = reg.scalar(f32)
    ptx.inst.rsqrt.approx.f32(inv, ptx.warp.reduce_sum(acc) * (1.0 / N) + eps)
    for j in range(N // 32):
        g = reg.scalar(f32)
        ptx.inst.ld.global_.f32(g, ptx.addr(wr, j * 128))
        ptx.inst.st.global_.f32(ptx.addr(yr, j * 128), xs[j] * inv * g)
    ptx.ret()


if __name__ == "__main__":
    print(rmsnorm.ptx(M=4, N=256), end="")
    rng = np.random.default_rng(0)
    x, w = rng.standard_normal((4, 256), dtype=np.float32), rng.standard_normal(256, dtype=np.float32)
    want = x / np.sqrt((x * x).mean(axis=1, keepdims=True) + 1e-6) * w
    ok = np.allclose(rmsnorm(x, w), want, rtol=1e-4, atol=1e-5)
    print("rmsnorm on the emulator:", "matches NumPy" if ok else "WRONG", file=sys.stderr)
    sys.exit(0 if ok else 1)
