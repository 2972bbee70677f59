"""Cost of calling a ptxpp JAX op under jax.jit, next to native jax.numpy ops, in the
same run.

Each row is one jitted call, waited for (jax.block_until_ready): JAX's dispatch of the
compiled computation plus its execution, on the platform JAX_PLATFORMS names (cpu
when unset). On the CPU the ptxpp rows include the FFI handler (argument checks, the
bound-kernel cache lookup) and the kernel run on the ptxpp CPU emulator, with copies
in and out, which is most of their time: they bound the dispatch overhead from above.
The inputs are tiny (16 floats: four threads for vector_add). On a GPU (a CUDA
jaxlib; scripts/gpu-check runs it with JAX_PLATFORMS=cuda) the same rows measure the
dispatch of a launch on XLA's stream.

    PYTHONPATH=python JAX_PLATFORMS=cpu jax_dispatch_bench.py build/release/tests/libptxpp_jax_test_ops.so
"""

import os
import sys
import time

os.environ.setdefault("JAX_PLATFORMS", "cpu")

import jax
import jax.numpy as jnp

import ptxpp.jax


def per_call_us(fn, iters=2000):
    for _ in range(50):
        fn()
    best = float("inf")
    for _ in range(5):
        t0 = time.perf_counter()
        for _ in range(iters):
            fn()
        best = min(best, (time.perf_counter() - t0) / iters)
    return best * 1e6


def main():
    lib = ptxpp.jax.load_library(sys.argv[1])
    ptxpp.jax.register_backward(lib.axpb, lib.axpb_backward)
    x = jnp.arange(16, dtype=jnp.float32)
    y = jnp.ones(16, dtype=jnp.float32)

    native_add = jax.jit(lambda a, b: a + b)
    ptxpp_add = jax.jit(lib.vector_add)
    native_axpb = jax.jit(lambda a: a * 2.0 + 1.0)
    ptxpp_axpb = jax.jit(lambda a: lib.axpb(a, alpha=2.0, shift=1))
    native_grad = jax.jit(jax.grad(lambda a: jnp.sum(a * 2.0 + 1.0)))
    ptxpp_grad = jax.jit(jax.grad(lambda a: jnp.sum(lib.axpb(a, alpha=2.0, shift=1))))
    rows = [
        ("jnp add, jit", lambda: jax.block_until_ready(native_add(x, y))),
        ("ptxpp vector_add, jit", lambda: jax.block_until_ready(ptxpp_add(x, y))),
        ("ptxpp vector_add, eager", lambda: jax.block_until_ready(lib.vector_add(x, y))),
        ("jnp a*2+1, jit", lambda: jax.block_until_ready(native_axpb(x))),
        ("ptxpp axpb, jit", lambda: jax.block_until_ready(ptxpp_axpb(x))),
        ("jnp grad(sum(a*2+1)), jit", lambda: jax.block_until_ready(native_grad(x))),
        ("ptxpp grad(sum(axpb)), jit", lambda: jax.block_until_ready(ptxpp_grad(x))),
    ]
    print(f"jax {jax.__version__}, {jax.devices()[0].platform}, 16 floats (dispatch + execution, waited for)")
    print(f"{'op':28} {'us/call':>8}")
    for name, fn in rows:
        print(f"{name:28} {per_call_us(fn):8.2f}")
    hits, misses = lib.vector_add.cache_stats()
    print(f"vector_add's bound-kernel cache: {hits} hits, {misses} misses")


if __name__ == "__main__":
    main()
