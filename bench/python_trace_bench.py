"""Tracing speed of the Python front end: PTX instructions per second for kernels traced from
Python (each trace a fresh one: the shapes change, so the cache never answers).

    PYTHONPATH=python python3 bench/python_trace_bench.py      # or with ptxpp installed

Kernels: the rows example's RMS norm (examples/python/rows.py: operators, ptx.inst chains, a
run-time loop), the 15-line RMS norm with N/32 unrolled columns (examples/python/rmsnorm_short.py),
and a straight run of ptx.inst.fma chains (the per-call cost of an instruction chain)."""

import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "examples" / "python"))

import ptxpp  # noqa: E402
from ptxpp import Tile, ptx, reg  # noqa: E402
from ptxpp.types import f32  # noqa: E402
from rmsnorm_short import rmsnorm as rmsnorm_short  # noqa: E402
from rows import rmsnorm  # noqa: E402


@ptxpp.kernel(in_specs=(Tile("N", f32),), arch="sm_90a")
def fma_chain(x, *, N):
    a, b = reg.scalar(f32), reg.scalar(f32)
    for _ in range(N):
        ptx.inst.fma.rn.f32(a, a, b, a)


def rate(kernel, shapes_for, seconds=1.0):
    """Instructions per second over fresh traces for at least `seconds`."""
    instructions, spent, i = 0, 0.0, 0
    while spent < seconds:
        shapes = shapes_for(i)
        start = time.perf_counter()
        traced = kernel.trace(**shapes)
        spent += time.perf_counter() - start
        instructions += traced.instructions
        i += 1
    return instructions / spent, traced.instructions


def main():
    rows = [
        ("rmsnorm (rows.py)", rmsnorm, lambda i: {"M": 1024, "N": 4096 + 32 * i}),
        ("rmsnorm_short, N=4096 (unrolled)", rmsnorm_short, lambda i: {"M": 1024 + i, "N": 4096}),
        ("ptx.inst.fma chain x 10000", fma_chain, lambda i: {"N": 10000 + i}),
    ]
    print(f"{'kernel':36} {'instructions':>12} {'M instr/s':>10}")
    for name, kernel, shapes in rows:
        r, n = rate(kernel, shapes)
        print(f"{name:36} {n:12d} {r / 1e6:10.2f}")


if __name__ == "__main__":
    main()
