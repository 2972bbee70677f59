"""JAX arrays: the emulator through jax.pure_callback, under jax.jit on the CPU."""

import numpy as np
import pytest

jax = pytest.importorskip("jax")
import jax.numpy as jnp  # noqa: E402

from test_run import axpy  # noqa: E402


def test_jax_arrays_eager_and_under_jit():
    x = jnp.arange(64, dtype=jnp.float32)
    assert np.array_equal(np.asarray(axpy(x, 2.0)), 2 * np.arange(64, dtype=np.float32))
    f = jax.jit(lambda v: axpy(v * 2, 0.5) + 1)
    assert np.array_equal(np.asarray(f(x)), np.arange(64, dtype=np.float32) + 1)
    assert np.array_equal(np.asarray(f(x[:32])), np.arange(32, dtype=np.float32) + 1)


def test_jax_mismatches_name_the_argument():
    with pytest.raises(TypeError, match="argument 'x' must be a f32 array, not int32"):
        axpy(jnp.zeros(8, dtype=jnp.int32), 1.0)
    with pytest.raises(TypeError, match="outputs are returned"):
        axpy(jnp.zeros(8), jnp.zeros(8), 1.0)


def test_tensor_map_kernels_take_jax_arrays_under_jit():
    from test_tensor_map_run import tma_copy
    x = jnp.arange(256, dtype=jnp.float32).reshape(8, 32)
    assert np.array_equal(np.asarray(jax.jit(lambda v: tma_copy(v * 2))(x)), 2 * np.asarray(x))
