"""Tracing speed of the Python front end: PTX instructions per second for kernels traced from
Python, each trace a fresh one (the shapes change, so no cache answers), ptxpp side by side with
pyptx (PyPI; the Python DSL this front end's interface follows) tracing the equivalent kernel.

    PYTHONPATH=python python3 bench/python_trace_bench.py      # or with ptxpp installed

pyptx is a benchmark anchor only: install it in a separate venv (`pip install pyptx numpy`) and
run this with that venv's python and ptxpp on PYTHONPATH. Without it, ptxpp's figures alone.

Kernels, each timed on both sides (a trace is the kernel's PTX text: ptxpp's `trace().ptx`,
pyptx's `ptx()`; its instructions are the instruction lines of that text, counted the same way
for both, outside the timed part):

  - RMS norm: examples/python/rows.py's (examples/python/rmsnorm.py runs it), N = 4096 + 32 i;
    pyptx: bench/pyptx_rmsnorm.py, the same instructions (its warp reduction moves the f32
    through b32 registers around each shfl: 10 more);
  - the Hopper GEMM: examples/python/gemm_sm90.py (TMA + wgmma, warp-specialized, 4 stages),
    M = N = 8192, K = 8192 + 256 i; pyptx: bench/pyptx_gemm_sm90.py, the same instructions but for
    what its docstring lists (pyptx has no pipeline-stage or run-time-address descriptor helper,
    its TMA tile helper misplaces the coordinates, so those are spelled with ptx.inst chains);
  - a straight run of 10000 ptx.inst fma/mul chains (the per-call cost of an instruction).

Both pyptx kernels' PTX assembles with `ptxas -arch sm_90a` (checked by hand; see their files).
Also, ptxpp only: the 15-line RMS norm with N/32 unrolled columns (examples/python/rmsnorm_short.py)."""

import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "examples" / "python"))
sys.path.insert(0, str(Path(__file__).resolve().parent))

import ptxpp  # noqa: E402
from ptxpp import Tile, ptx, reg  # noqa: E402
from ptxpp.types import f32  # noqa: E402
from gemm_sm90 import gemm  # noqa: E402
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
    """The same straight run written with pyptx."""
    import pyptx
    from pyptx import ptx as pptx
    from pyptx import reg as preg
    from pyptx.types import f32 as pf32

    @pyptx.kernel(in_specs=(pyptx.Tile("N", pf32),), out_specs=(), grid=(1, 1, 1), block=(32, 1, 1), arch="sm_90a")
    def pchain(X):
        a, b = preg.scalar(pf32), preg.scalar(pf32)
        for _ in range(CHAIN // 2):
            pptx.inst.fma.rn.f32(a, a, b, a)
            pptx.inst.mul.rn.f32(b, b, a)
        pptx.ret()

    return pchain


def pyptx_kernels():
    """name -> the pyptx kernel, or None without pyptx."""
    try:
        from pyptx_gemm_sm90 import gemm_sm90 as pgemm
        from pyptx_rmsnorm import rmsnorm as prmsnorm
    except ImportError:
        return None
    return {"rmsnorm": prmsnorm, "gemm_sm90": pgemm, "chain": pyptx_chain()}


def instruction_lines(text):
    """The instruction lines of PTX text: statements ending in ';' that are not directives or braces."""
    n = 0
    for line in text.splitlines():
        s = line.strip()
        n += s.endswith(";") and not s.startswith((".", "//", "{", "}"))
    return n


def rate(trace, shapes_for, seconds):
    """(traces/s, instructions/s, instructions a trace) over fresh traces (trace(shapes) -> PTX text)."""
    instructions, spent, i = 0, 0.0, 0
    while spent < seconds:
        shapes = shapes_for(i)
        start = time.perf_counter()
        text = trace(shapes)
        spent += time.perf_counter() - start
        n = instruction_lines(text)
        instructions += n
        i += 1
    return i / spent, instructions / spent, n


def ptxpp_trace(kernel):
    return lambda shapes: kernel.trace(**shapes).ptx


def pyptx_trace(kernel):
    return lambda shapes: kernel.ptx(**shapes)


COMPARED = [  # (name, ptxpp kernel, pyptx kernel's key, fresh shapes for trace i)
    ("rmsnorm (rows.py)", rmsnorm, "rmsnorm", lambda i: {"M": 1024, "N": 4096 + 32 * i}),
    ("gemm_sm90, M=N=8192", gemm, "gemm_sm90", lambda i: {"M": 8192, "N": 8192, "K": 8192 + 256 * i}),
    (f"ptx.inst chain x {CHAIN}", chain, "chain", lambda i: {"N": 1024 + i}),
]


def row(name, side, r):
    traces, instr, n = r
    print(f"{name:28} {side:6} {n:8d} {traces:10.1f} {instr / 1e6:10.3f}")


def main():
    others = pyptx_kernels()
    print(f"{'kernel':28} {'side':6} {'instr':>8} {'traces/s':>10} {'M instr/s':>10}")
    for name, kernel, key, shapes in COMPARED:
        ours = rate(ptxpp_trace(kernel), shapes, 1.0)
        row(name, "ptxpp", ours)
        if others is None:
            continue
        theirs = rate(pyptx_trace(others[key]), shapes, 2.0)
        row("", "pyptx", theirs)
        print(f"{'':28} ptxpp / pyptx trace speed: {ours[1] / theirs[1]:.1f}x instructions/s, "
              f"{ours[0] / theirs[0]:.1f}x traces/s")
    row("rmsnorm_short, N=4096", "ptxpp", rate(ptxpp_trace(rmsnorm_short), lambda i: {"M": 1024 + i, "N": 4096}, 1.0))
    if others is None:
        print("pyptx is not installed: ptxpp's figures only (pip install pyptx numpy, in a separate venv)")


if __name__ == "__main__":
    main()
