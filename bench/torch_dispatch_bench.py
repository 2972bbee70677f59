"""Host cost of calling a ptxpp torch op, next to native torch ops, in the same run.

The ptxpp ops run on meta tensors, so what is timed is dispatch, argument checks,
shape binding and output allocation, not the launch (that needs a GPU:
scripts/gpu-check). The native references: torch.add on 16-element CPU tensors
(dispatch, allocation and a trivial kernel) and the meta kernels of torch.add and
rms_norm (Python decompositions in torch, hence slow).

    PYTHONPATH=python torch_dispatch_bench.py build/release/tests/libptxpp_torch_test_ops.so
"""

import sys
import time

import torch

import ptxpp.torch


def per_call_us(fn, iters=20000):
    for _ in range(200):
        fn()
    best = float("inf")
    for _ in range(5):
        t0 = time.perf_counter()
        for _ in range(iters):
            fn()
        best = min(best, (time.perf_counter() - t0) / iters)
    return best * 1e6


def main():
    ptxpp.torch.load_library(sys.argv[1])
    ops = ptxpp.torch.ops("ptxpp_test")
    x = torch.empty(4096, device="meta")
    y = torch.empty(4096, device="meta")
    m, w = torch.empty(64, 1024, device="meta"), torch.empty(1024, device="meta")
    a, b = torch.randn(16), torch.randn(16)
    rows = [
        ("torch.add, 16 floats on CPU", lambda: torch.add(a, b)),
        ("torch.add (meta)", lambda: torch.add(x, y)),
        ("ptxpp vector_add (meta)", lambda: ops.vector_add(x, y)),
        ("torch rms_norm (meta)", lambda: torch.nn.functional.rms_norm(m, (1024,), w, 1e-5)),
        ("ptxpp rmsnorm (meta)", lambda: ops.rmsnorm(m, w, 1e-5)),
    ]
    print(f"torch {torch.__version__}, meta tensors (host work only)")
    print(f"{'op':28} {'us/call':>8}")
    for name, fn in rows:
        print(f"{name:28} {per_call_us(fn):8.2f}")


if __name__ == "__main__":
    main()
