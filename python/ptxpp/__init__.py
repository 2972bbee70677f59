"""ptxpp from Python: libraries of ptxpp kernels registered as framework ops.

    import ptxpp.torch
    ptxpp.torch.load_library("build/libmy_ops.so")   # defines torch.ops.my_ops.*

    import ptxpp.jax
    lib = ptxpp.jax.load_library("build/libmy_jax_ops.so")   # lib.rmsnorm(x, w, eps=1e-5)

The kernels themselves are written in C++ (the ptxpp DSL); this package loads the
libraries that register them (see docs/interop.md).
"""

__version__ = "0.1.0"
__all__ = ["__version__"]
