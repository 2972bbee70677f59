"""Tracing speed of the Python front end: PTX instructions per second for kernels traced from
Python (each trace a fresh one: the shapes change, so the cache never answers).

    PYTHONPATH=python python3 bench/python_trace_bench.py      # or with ptxpp installed

Kernels: the rows example's RMS norm (examples/python/rows.py: operators, ptx.inst chains, a
run-time loop), the 15-line RMS norm with N/32 unrolled columns (examples/python/rmsnorm_short.py),
and a straight run of ptx.inst chains (the per-call cost of an instruction chain).

When pyptx (PyPI; the Python DSL this front end's interface follows) is installed, the same
straight run of ptx.inst chains is traced with it too, in the same process, and the ratio is
printed: `pip install pyptx` in the venv first (a benchmark anchor only)."""

import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "examples" / "python"))

import ptxpp  # noqa: E402
from ptxpp import Tile, ptx, reg  # noqa: E402
from ptxpp.types import f32  # noqa: E402
from rmsnorm_short import rmsnorm as rmsnorm_short  # noqa: E402
from rows import rmsnorm  # noqa: E402


CHAIN = 10000  # instructions in the straight run


@ptxpp.kernel(in_specs=(Tile("N", f32),), arch="sm_90a")
def chain(x):
    a, b = reg.scalar(f32), reg.scalar(f32)
    for _ in range(CHAIN // 2):
        ptx.inst.fma.rn.f32(a, a, b, a)
        ptx.inst.mul.rn.f32(b, b, a)
    ptx.ret()


def pyptx_chain():
    """The same straight run written with pyptx, or None without it."""
    try:
        import pyptx
        from pyptx import ptx as pptx
        from pyptx import reg as preg
        from pyptx.types import f32 as pf32
    except ImportError:
        return None

    @pyptx.kernel(in_specs=(pyptx.Tile("N", pf32),), out_specs=(), grid=(1, 1, 1), block=(32, 1, 1), arch="sm_90a")
    def pchain(X):
        a, b = preg.scalar(pf32), preg.scalar(pf32)
        for _ in range(CHAIN // 2):
            pptx.inst.fma.rn.f32(a, a, b, a)
            pptx.inst.mul.rn.f32(b, b, a)
        pptx.ret()

    return pchain


def rate(trace, shapes_for, seconds=1.0):
    """Instructions per second over fresh traces (trace(shapes) -> instruction count) for at least `seconds`."""
    instructions, spent, i = 0, 0.0, 0
    while spent < seconds:
        shapes = shapes_for(i)
        start = time.perf_counter()
        n = trace(shapes)
        spent += time.perf_counter() - start
        instructions += n
        i += 1
    return instructions / spent, n


def ptxpp_trace(kernel):
    return lambda shapes: kernel.trace(**shapes).instructions


def pyptx_trace(kernel):
    return lambda shapes: kernel.ptx(**shapes).count(";") - 2  # instructions: the statements but the two .param/.reg lines


def main():
    rows = [
        ("rmsnorm (rows.py)", ptxpp_trace(rmsnorm), lambda i: {"M": 1024, "N": 4096 + 32 * i}),
        ("rmsnorm_short, N=4096 (unrolled)", ptxpp_trace(rmsnorm_short), lambda i: {"M": 1024 + i, "N": 4096}),
        (f"ptx.inst chain x {CHAIN}", ptxpp_trace(chain), lambda i: {"N": 1024 + i}),
    ]
    print(f"{'kernel':40} {'instructions':>12} {'M instr/s':>10}")
    for name, trace, shapes in rows:
        r, n = rate(trace, shapes)
        print(f"{name:40} {n:12d} {r / 1e6:10.3f}")
        if name.startswith("ptx.inst chain"):
            ours = r
    other = pyptx_chain()
    if other is None:
        print("pyptx is not installed: no comparison (pip install pyptx)")
        return
    r, n = rate(pyptx_trace(other), lambda i: {"N": 1024 + i}, seconds=3.0)
    print(f"{'pyptx: the same chain':40} {n:12d} {r / 1e6:10.3f}")
    print(f"ptxpp / pyptx trace speed: {ours / r:.1f}x")


if __name__ == "__main__":
    main()
