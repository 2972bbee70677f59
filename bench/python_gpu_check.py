"""GPU part of the Python package check (scripts/gpu-check): the Python RMSNorm example
(examples/python/rows.py) on torch CUDA tensors against torch (eager: directly, ptxpp._torch_eager;
through the custom op; outputs given; a CUDA graph replay; torch.compile(fullgraph=True)), then the host time of a
call next to a native torch op on tiny tensors, as mean µs per call over many calls with one
torch.cuda.synchronize at the end. Then, with a JAX that has a GPU backend and the extension
built with the JAX FFI, the same kernel on JAX GPU arrays under jax.jit (the custom call
ptxpp.python_kernel on XLA's stream) against jax.numpy, and the time of a jitted call next to
a jitted add. Without PyTorch, JAX or a CUDA device it says what it skipped and exits 0; a
wrong result exits 1.

    PYTHONPATH=<dir with the built ptxpp package> python bench/python_gpu_check.py [--no-compile]
"""

import os
import struct
import sys
import time

try:
    import torch
except ImportError:
    torch = None


def per_call_us(fn, iters=5000):
    for _ in range(100):
        fn()
    torch.cuda.synchronize()
    t0 = time.perf_counter()
    for _ in range(iters):
        fn()
    torch.cuda.synchronize()
    return (time.perf_counter() - t0) / iters * 1e6


def reference(x, w, eps):
    return x * torch.rsqrt((x * x).mean(dim=-1, keepdim=True) + eps) * w


def check(what, got, want, tol=2e-3):
    err = (got - want).abs().max().item()
    ok = err <= tol * max(1.0, want.abs().max().item())
    print(f"python rmsnorm {what}: max abs error {err:.3g} vs torch ({'ok' if ok else 'WRONG'})")
    return ok


def correctness(rmsnorm, compile_too):
    from ptxpp import _torch_op
    torch.manual_seed(0)
    x = torch.randn(1024, 4096, device="cuda")
    w = torch.randn(4096, device="cuda")
    want = reference(x, w, 1e-5)
    ok = check("eager (direct: no torch op)", rmsnorm(x, w, eps=1e-5), want)
    ok &= check("through the torch op (CUDA)", _torch_op.call(rmsnorm, (x, w), {"eps": 1e-5}), want)
    y = torch.empty_like(x)
    rmsnorm(x, w, y, 1e-5)  # outputs given: the eager path
    ok &= check("outputs given", y, want)
    graph = torch.cuda.CUDAGraph()
    with torch.cuda.graph(graph):  # bound above: the capture records only the launch
        yg = rmsnorm(x, w, eps=1e-5)
    x.copy_(torch.randn_like(x))
    graph.replay()
    ok &= check("CUDA graph replay", yg, reference(x, w, 1e-5))
    if compile_too:
        f = torch.compile(lambda a, b: rmsnorm(a * 2, b, eps=1e-5) + 1, fullgraph=True)
        ok &= check("torch.compile(fullgraph=True)", f(x, w), reference(x * 2, w, 1e-5) + 1)
    return ok


def overhead(rmsnorm):
    from ptxpp import _torch_eager, _torch_op
    xs, ws = torch.randn(1, 32, device="cuda"), torch.randn(32, device="cuda")
    ys = torch.empty_like(xs)
    a, b = torch.zeros(32, device="cuda"), torch.zeros(32, device="cuda")
    rmsnorm(xs, ws, ys, 1e-5)
    (bound,) = [g for key, g in rmsnorm._gpu_kernels.items() if dict(key[1]) == {"M": 1, "N": 32}]
    args = [xs.data_ptr(), ws.data_ptr(), ys.data_ptr(), struct.pack("<f", 1e-5)]
    stream = torch.cuda.current_stream().cuda_stream
    rows = [("torch.add(a, b) (native op, allocates)", lambda: torch.add(a, b)),
            ("rmsnorm(x, w, eps=) (eager: direct, allocates)", lambda: rmsnorm(xs, ws, eps=1e-5)),
            ("rmsnorm(x, w, eps=) through the torch op (as traced calls, allocates)",
             lambda: _torch_op.call(rmsnorm, (xs, ws), {"eps": 1e-5})),
            ("ptxpp._torch_eager.eager((x, w)) (the gate alone)", lambda: _torch_eager.eager((xs, ws))),
            ("rmsnorm(x, w, y, eps) (outputs given)", lambda: rmsnorm(xs, ws, ys, 1e-5)),
            ("GpuKernel.launch (the C++ floor)", lambda: bound.launch(args, stream))]
    for what, fn in rows:
        print(f"python launch overhead: {what}: {per_call_us(fn):.2f} us/call (1x32 f32)")


def jax_per_call_us(fn, args, iters=2000):
    for _ in range(100):
        fn(*args)
    fn(*args).block_until_ready()
    t0 = time.perf_counter()
    for _ in range(iters):
        out = fn(*args)
    out.block_until_ready()
    return (time.perf_counter() - t0) / iters * 1e6


def jax_check(rmsnorm):
    """The RMSNorm kernel on JAX GPU arrays under jax.jit (the FFI target ptxpp.python_kernel on
    XLA's stream) against jax.numpy, then the time of a jitted call next to a jitted add."""
    os.environ.setdefault("XLA_PYTHON_CLIENT_PREALLOCATE", "false")  # leave torch its memory
    try:
        import jax
        import jax.numpy as jnp
    except ImportError:
        print("python_gpu_check: no JAX here: the JAX check skipped")
        return True
    from ptxpp import _core, _jax_call
    try:
        gpus = jax.devices("gpu")
    except RuntimeError:
        print("python_gpu_check: JAX has no GPU backend (a CPU-only jaxlib, or JAX_PLATFORMS): the JAX check skipped")
        return True
    if not _core.jax_ffi_available:
        print("python_gpu_check: ptxpp was built without the JAX FFI (PTXPP_JAX_INCLUDE): the JAX check skipped")
        return True
    kx, kw = jax.random.split(jax.random.PRNGKey(0))
    x = jax.random.normal(kx, (1024, 4096), jnp.float32)
    w = jax.random.normal(kw, (4096,), jnp.float32)
    f = jax.jit(lambda a, b: rmsnorm(a * 2, b, eps=1e-5) + 1)
    hlo = f.lower(x, w).as_text()
    if f"custom_call @{_jax_call.TARGET}(" not in hlo:
        print("python rmsnorm jax.jit: the lowered function has no ptxpp.python_kernel custom call (WRONG)")
        return False
    a2 = x * 2
    want = a2 * jax.lax.rsqrt(jnp.mean(a2 * a2, axis=-1, keepdims=True) + 1e-5) * w + 1
    got = f(x, w)
    err = float(jnp.max(jnp.abs(got - want)))
    ok = err <= 2e-3 * max(1.0, float(jnp.max(jnp.abs(want))))
    print(f"python rmsnorm jax.jit on {gpus[0].device_kind} (jax {jax.__version__}): max abs error {err:.3g} "
          f"vs jax.numpy ({'ok' if ok else 'WRONG'})")
    xs, ws = jnp.ones((1, 32), jnp.float32), jnp.ones((32,), jnp.float32)
    rows = [("jax.jit(a + b) (native op)", jax.jit(lambda a, b: a + b), (xs, xs)),
            ("jax.jit(rmsnorm(x, w, eps=)) (FFI custom call)", jax.jit(lambda a, b: rmsnorm(a, b, eps=1e-5)), (xs, ws))]
    for what, fn, args in rows:
        print(f"python jax dispatch: {what}: {jax_per_call_us(fn, args):.2f} us/call (1x32 f32)")
    return ok


def main():
    sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "examples", "python"))
    from rows import rmsnorm
    ok = True
    if torch is None or not torch.cuda.is_available():
        print("python_gpu_check: no PyTorch with a CUDA device here: the torch checks skipped")
    else:
        print(f"python_gpu_check: {torch.cuda.get_device_name()}, torch {torch.__version__}")
        ok = correctness(rmsnorm, "--no-compile" not in sys.argv)
        overhead(rmsnorm)
    ok &= jax_check(rmsnorm)
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
