"""Kernels called on JAX arrays: jax.pure_callback around the emulator run, so that a call
works inside jax.jit on the CPU. The outputs' shapes and dtypes come from the specs and the
inputs' shapes; run-time scalars must be Python numbers (static under jit)."""

import jax
import numpy as np

from . import _call
from ._kernel import Scalar


def _is_jax(a):
    return isinstance(a, (jax.Array, jax.core.Tracer))


def call(kernel, args, kwargs):
    arrays = [a for a in args if _is_jax(a)]
    numbers = [a for a in args if not _is_jax(a)]
    inputs = [i for i, p in enumerate(kernel.params) if _call._array_param(p) and not kernel.outputs[i]]
    if len(arrays) != len(inputs):
        raise TypeError(f"kernel {kernel.name} takes {len(inputs)} input array(s); with JAX arrays the outputs are "
                        f"returned (JAX arrays are immutable), not {len(arrays)}")
    for n in list(numbers) + [v for k, v in kwargs.items()]:
        if _is_jax(n) or isinstance(n, np.ndarray):
            raise TypeError(f"kernel {kernel.name}: scalars and keyword arguments are Python numbers under JAX")
    # The shapes, dtypes and bindings, checked as an eager call checks them (names the argument).
    specs = [(kernel.params[i], _call._Arg.described(kernel, i, a.shape, a.dtype)) for i, a in zip(inputs, arrays)]
    scalar_names = {p.name for p in kernel.params if isinstance(p, Scalar)}
    shape_kwargs = {k: v for k, v in kwargs.items() if k not in scalar_names}
    bindings, _, _ = kernel._split(dict(shape_kwargs))
    _call._bind(kernel, specs, bindings)
    results = []
    for i, p in enumerate(kernel.params):
        if kernel.outputs[i]:
            shape = tuple(bindings[d] if isinstance(d, str) else d for d in p.shape)
            results.append(jax.ShapeDtypeStruct(shape, _call.numpy_dtype(p.dtype)))

    def run(*host_arrays):
        out = _call.call(kernel, [np.asarray(h) for h in host_arrays] + numbers, kwargs)
        return out if isinstance(out, tuple) else (out,)

    out = jax.pure_callback(run, tuple(results), *arrays, vmap_method="sequential")
    return out[0] if len(out) == 1 else tuple(out)
