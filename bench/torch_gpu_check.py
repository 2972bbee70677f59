"""GPU part of the torch interop check (scripts/gpu-check): the ptxpp ops of the test
library on CUDA tensors against torch, inside a CUDA graph and under torch.compile,
and the host time of a call next to a native op (eager and graph replay) in the
same run. Without a CUDA device it says so and exits 0.

With --ptxpp-table FILE (the table bench/gpu_check wrote in the same scripts/gpu-check run), it
also runs torch's scaled_dot_product_attention (the flash backend when torch has it) on the
shapes of the table's flash_attn_sm90 rows and prints both TFLOPS and their ratio.

    PYTHONPATH=python torch_gpu_check.py LIBRARY [--ptxpp-table gpu-check.txt]
"""

import re
import sys
import time

import torch

import ptxpp.torch


def per_call_us(fn, iters=2000):
    for _ in range(50):
        fn()
    torch.cuda.synchronize()
    best = float("inf")
    for _ in range(5):
        t0 = time.perf_counter()
        for _ in range(iters):
            fn()
        torch.cuda.synchronize()
        best = min(best, (time.perf_counter() - t0) / iters)
    return best * 1e6


# A flash_attn_sm90 row of bench/gpu_check's table: shape, mask, time_us, TFLOPS.
FLASH_ROW = re.compile(r"^flash_attn_sm90\s+B(\d+)-H(\d+)-S(\d+)-D(\d+)\s+(causal|full)\s+([\d.]+)\s+([\d.]+)")


def flash_rows(table_path):
    with open(table_path) as f:
        return [m.groups() for m in map(FLASH_ROW.match, f) if m]


def sdpa_against_ptxpp(table_path):
    """torch's SDPA on the shapes of the ptxpp flash attention rows, same TFLOPS convention."""
    rows = flash_rows(table_path)
    if not rows:
        print(f"sdpa: no flash_attn_sm90 rows in {table_path} (not an sm_90a GPU?): nothing compared")
        return
    try:
        from torch.nn.attention import SDPBackend, sdpa_kernel
        backend = "flash"

        def context():
            return sdpa_kernel(SDPBackend.FLASH_ATTENTION)
    except ImportError:  # older torch: whatever SDPA picks
        import contextlib
        backend = "default"
        context = contextlib.nullcontext
    print(f"{'shape':22} {'mask':7} {'ptxpp_TFLOPS':>12} {'torch_sdpa_' + backend + '_TFLOPS':>26} {'ptxpp/torch':>11}")
    for b, h, s, d, mask, _, ptxpp_tflops in rows:
        b, h, s, d = int(b), int(h), int(s), int(d)
        causal = mask == "causal"
        q, k, v = (torch.randn(b, h, s, d, device="cuda", dtype=torch.bfloat16) for _ in range(3))
        try:
            with context():
                def run():
                    return torch.nn.functional.scaled_dot_product_attention(q, k, v, is_causal=causal)
                us = per_call_us(run, iters=20)
        except RuntimeError as e:  # no kernel of that backend for these inputs
            print(f"{f'B{b}-H{h}-S{s}-D{d}':22} {mask:7} {float(ptxpp_tflops):12.1f} {'unavailable':>26}   ({e})")
            continue
        flops = 4.0 * b * h * s * s * d * (0.5 if causal else 1.0)
        torch_tflops = flops / (us * 1e-6) / 1e12
        print(f"{f'B{b}-H{h}-S{s}-D{d}':22} {mask:7} {float(ptxpp_tflops):12.1f} {torch_tflops:26.1f} "
              f"{float(ptxpp_tflops) / torch_tflops:11.2f}")
        del q, k, v


def main():
    if not torch.cuda.is_available():
        print("torch_gpu_check: no CUDA device: nothing measured")
        return 0
    table = sys.argv[sys.argv.index("--ptxpp-table") + 1] if "--ptxpp-table" in sys.argv[:-1] else None
    ptxpp.torch.load_library(sys.argv[1])
    ops = ptxpp.torch.ops("ptxpp_test")
    dev = "cuda"
    x, y = torch.randn(1 << 20, device=dev), torch.randn(1 << 20, device=dev)
    m, w = torch.randn(2048, 8192, device=dev), torch.randn(8192, device=dev)
    failures = []

    def check(name, got, want, **tol):
        try:
            torch.testing.assert_close(got, want, **tol)
            print(f"ok    {name}")
        except AssertionError as e:
            failures.append(name)
            print(f"FAIL  {name}: {e}")

    check("vector_add", ops.vector_add(x, y), x + y)
    check("swiglu", ops.swiglu(x, y), torch.nn.functional.silu(x) * y, rtol=1e-5, atol=1e-5)
    check("rmsnorm", ops.rmsnorm(m, w, 1e-5), m * torch.rsqrt(m.pow(2).mean(-1, keepdim=True) + 1e-5) * w,
          rtol=1e-4, atol=1e-4)
    check("softmax", ops.softmax(m), torch.softmax(m, -1), rtol=1e-5, atol=1e-6)
    # on a side stream: the op launches on the current stream
    s = torch.cuda.Stream()
    with torch.cuda.stream(s):
        z = ops.vector_add(x, y)
    s.synchronize()
    check("vector_add on a side stream", z, x + y)
    # CUDA graph capture and replay
    static_out = None
    g = torch.cuda.CUDAGraph()
    ops.vector_add(x, y)  # loaded before the capture
    with torch.cuda.graph(g):
        static_out = ops.vector_add(x, y)
    x.add_(1.0)
    g.replay()
    torch.cuda.synchronize()
    check("vector_add in a CUDA graph", static_out, x + y)
    compiled = torch.compile(lambda a, b: ops.rmsnorm(a, b, 1e-5) * 2.0, fullgraph=True)
    check("rmsnorm under torch.compile", compiled(m, w), ops.rmsnorm(m, w, 1e-5) * 2.0, rtol=1e-4, atol=1e-4)

    a, b = torch.randn(16, device=dev), torch.randn(16, device=dev)
    print(f"{'call (16 floats)':36} {'us/call':>8}")
    print(f"{'torch.add eager':36} {per_call_us(lambda: torch.add(a, b)):8.2f}")
    print(f"{'ptxpp vector_add eager':36} {per_call_us(lambda: ops.vector_add(a, b)):8.2f}")
    ga, gp = torch.cuda.CUDAGraph(), torch.cuda.CUDAGraph()
    with torch.cuda.graph(ga):
        torch.add(a, b)
    ops.vector_add(a, b)
    with torch.cuda.graph(gp):
        ops.vector_add(a, b)
    print(f"{'torch.add graph replay':36} {per_call_us(ga.replay):8.2f}")
    print(f"{'ptxpp vector_add graph replay':36} {per_call_us(gp.replay):8.2f}")
    if table:
        sdpa_against_ptxpp(table)
    if failures:
        print(f"torch_gpu_check: {len(failures)} failed: {', '.join(failures)}")
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
