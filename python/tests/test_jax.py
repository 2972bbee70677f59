"""JAX arrays: through XLA's typed FFI when the package was built with it (_core.jax_ffi_available;
scripts/test-python builds it so), else jax.pure_callback around the emulator; both under jax.jit
on the CPU. (The GPU handler is checked by bench/python_gpu_check.py on a GPU machine.)"""

import importlib.util
import re
from pathlib import Path

import numpy as np
import pytest

jax = pytest.importorskip("jax")
import jax.numpy as jnp  # noqa: E402

import ptxpp  # noqa: E402
from ptxpp import _core, _jax_call  # noqa: E402
from test_run import axpy  # noqa: E402

ffi_only = pytest.mark.skipif(not _core.jax_ffi_available, reason="ptxpp was built without the JAX FFI "
                                                                  "(PTXPP_JAX_INCLUDE)")


@pytest.fixture(params=["ffi", "pure_callback"])
def path(request, monkeypatch):
    """Each test on both paths: the FFI (where built) and the pure_callback fallback."""
    if request.param == "ffi" and not _core.jax_ffi_available:
        pytest.skip("ptxpp was built without the JAX FFI (PTXPP_JAX_INCLUDE)")
    if request.param == "pure_callback":
        monkeypatch.setattr(_core, "jax_ffi_available", False)
    return request.param


def rows():
    """examples/python/rows.py (RMSNorm and softmax kernels)."""
    spec = importlib.util.spec_from_file_location("rows", Path(__file__).parents[2] / "examples" / "python" / "rows.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_jax_arrays_eager_and_under_jit(path):
    x = jnp.arange(64, dtype=jnp.float32)
    assert np.array_equal(np.asarray(axpy(x, 2.0)), 2 * np.arange(64, dtype=np.float32))
    f = jax.jit(lambda v: axpy(v * 2, 0.5) + 1)
    assert np.array_equal(np.asarray(f(x)), np.arange(64, dtype=np.float32) + 1)
    assert np.array_equal(np.asarray(f(x[:32])), np.arange(32, dtype=np.float32) + 1)


def test_rmsnorm_under_jit_gives_the_emulators_result(path):
    rmsnorm = rows().rmsnorm
    rng = np.random.default_rng(0)
    x, w = rng.standard_normal((4, 96), dtype=np.float32), rng.standard_normal(96, dtype=np.float32)
    want = rmsnorm(x, w, 1e-5)  # NumPy arrays: the emulator, eagerly
    got = jax.jit(lambda a, b: rmsnorm(a, b, eps=1e-5))(jnp.asarray(x), jnp.asarray(w))
    assert np.array_equal(np.asarray(got), want)
    # the scalar reaches the kernel: another eps, another result
    other = jax.jit(lambda a, b: rmsnorm(a, b, 100.0))(jnp.asarray(x), jnp.asarray(w))
    assert np.array_equal(np.asarray(other), rmsnorm(x, w, 100.0))


def test_jax_mismatches_name_the_argument(path):
    with pytest.raises(TypeError, match="argument 'x' must be a f32 array, not int32"):
        axpy(jnp.zeros(8, dtype=jnp.int32), 1.0)
    with pytest.raises(TypeError, match="outputs are returned"):
        axpy(jnp.zeros(8), jnp.zeros(8), 1.0)
    rmsnorm = rows().rmsnorm
    with pytest.raises(ValueError, match=r"dimension 0 of 'w' is 8, but N is 16 \(dimension 1 of 'x'\)"):
        jax.jit(lambda a, b: rmsnorm(a, b, 1e-5))(jnp.zeros((2, 16)), jnp.zeros(8))
    with pytest.raises(ValueError, match="argument 'w' must have 1 dimension"):
        rmsnorm(jnp.zeros((2, 16)), jnp.zeros((2, 16)), 1e-5)


@ffi_only
def test_scalars_are_checked_and_named():
    with pytest.raises(TypeError, match="scalar 'a' must be a number, not str"):
        axpy(jnp.zeros(8), "2")
    with pytest.raises(TypeError, match="scalar 'a' is missing"):
        axpy(jnp.zeros(8))
    with pytest.raises(TypeError, match="scalar 'a' given twice"):
        axpy(jnp.zeros(8), 1.0, a=2.0)


@ffi_only
def test_the_ffi_path_is_a_custom_call_not_a_callback():
    lowered = jax.jit(lambda v: axpy(v, 3.0)).lower(jnp.zeros(16, jnp.float32)).as_text()
    assert f"stablehlo.custom_call @{_jax_call.TARGET}(" in lowered and "callback" not in lowered
    # the registry's id and the scalar, as attributes
    assert re.search(r"ptxpp_kernel = \d+ : i64", lowered) and "a = 3.000000e+00 : f32" in lowered


def test_the_fallback_is_a_pure_callback(monkeypatch):
    monkeypatch.setattr(_core, "jax_ffi_available", False)
    lowered = jax.jit(lambda v: axpy(v, 3.0)).lower(jnp.zeros(16, jnp.float32)).as_text()
    assert "callback" in lowered and _jax_call.TARGET not in lowered


def test_the_fallback_refuses_gpu_arrays_and_says_how_to_get_the_ffi(monkeypatch):
    monkeypatch.setattr(_core, "jax_ffi_available", False)
    monkeypatch.setattr(jax, "default_backend", lambda: "gpu")  # under jit: arrays on the default backend
    with pytest.raises(ptxpp.Error, match="PTXPP_JAX_INCLUDE"):
        jax.jit(lambda v: axpy(v, 1.0)).lower(jnp.zeros(8, jnp.float32))


@ffi_only
def test_one_registration_per_shape():
    f = jax.jit(lambda v: axpy(v, 1.0))
    f(jnp.zeros(24, jnp.float32))
    f(jnp.ones(24, jnp.float32))  # the same shape: compiled once, registered once
    f(jnp.zeros(40, jnp.float32))
    ids = {n: i for key, i in axpy._jax_ffi_ids.items() for n in [dict(key[1]).get("N")] if n in (24, 40)}
    assert set(ids) == {24, 40} and ids[24] != ids[40]


@ffi_only
def test_a_call_with_an_unknown_id_is_an_xla_error():
    call = jax.ffi.ffi_call(_jax_call.TARGET, jax.ShapeDtypeStruct((8,), jnp.float32))
    _jax_call._register_targets()
    with pytest.raises(Exception, match="ptxpp_kernel' must be the id of a kernel registered by ptxpp"):
        np.asarray(call(jnp.zeros(8, jnp.float32), ptxpp_kernel=np.int64(1 << 40), a=np.float32(1)))


@ffi_only
def test_the_handler_checks_a_direct_call_against_the_registered_trace():
    axpy(jnp.zeros(8, jnp.float32), 1.0)  # registers axpy for N=8
    (kernel_id,) = [i for key, i in axpy._jax_ffi_ids.items() if dict(key[1]) == {"N": 8}]

    def direct(x):
        out = jax.ShapeDtypeStruct(x.shape, jnp.float32)
        return np.asarray(jax.ffi.ffi_call(_jax_call.TARGET, out)(x, ptxpp_kernel=np.int64(kernel_id), a=np.float32(2)))

    assert np.array_equal(direct(jnp.arange(8, dtype=jnp.float32)), 2 * np.arange(8, dtype=np.float32))
    with pytest.raises(Exception, match="axpy: argument 'x' must be a float32 array, not int32"):
        direct(jnp.zeros(8, jnp.int32))
    with pytest.raises(Exception, match="axpy: the kernel was traced for N=8, not N=16"):
        direct(jnp.zeros(16, jnp.float32))


def test_tensor_map_kernels_take_jax_arrays_under_jit(path):
    from test_tensor_map_run import tma_copy  # (through pure_callback on both: the FFI takes no tensor maps)
    x = jnp.arange(256, dtype=jnp.float32).reshape(8, 32)
    assert np.array_equal(np.asarray(jax.jit(lambda v: tma_copy(v * 2))(x)), 2 * np.asarray(x))


def test_unhashable_template_parameters_are_named(path):
    @ptxpp.kernel(in_specs=(ptxpp.Tile("N", ptxpp.types.f32),), out_specs=(ptxpp.Tile("N", ptxpp.types.f32),))
    def nothing(x, y, *, N, t=None):
        ptxpp.ptx.ret()

    with pytest.raises(TypeError, match="template parameters must be hashable"):
        jax.jit(lambda v: nothing(v, t=[1]))(jnp.zeros(4))


def test_a_kernel_of_a_module_takes_jax_arrays(path):
    from test_module import program
    _, k = program()  # k calls device functions: it runs in its module's trace
    x = jnp.arange(64, dtype=jnp.uint32) * 3
    assert np.array_equal(np.asarray(k(x)), 2 * np.arange(64, dtype=np.uint32) * 3 + 1)
    assert np.array_equal(np.asarray(jax.jit(lambda v: k(v + 1))(x)), 2 * (np.arange(64, dtype=np.uint32) * 3 + 1) + 1)
    if path == "ffi":
        assert f"stablehlo.custom_call @{_jax_call.TARGET}(" in jax.jit(k).lower(x).as_text()
