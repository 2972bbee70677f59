"""ptxpp JAX ops (tests/interop/jax_ops.cpp) from Python: results under jax.jit on the
CPU (the ptxpp emulator) against jax.numpy, output shapes under jax.eval_shape, and the
errors for bad arguments, both from the Python helper (at trace time) and from the FFI
handlers themselves (calls made with jax.ffi.ffi_call directly). GPU execution is not
tested here.

    test_jax.py LIBRARY [OTHER_LIBRARY] [unittest args]

Exits with 77 (ctest: skipped) when jax is not importable.
"""

import os
import sys
import unittest

os.environ.setdefault("JAX_PLATFORMS", "cpu")
try:
    import jax
    import jax.numpy as jnp
    import numpy as np
except ImportError as e:
    print(f"SKIPPED: jax is not importable ({e}); run scripts/install-deps --test, or set PTXPP_PYTHON")
    sys.exit(77)

import ptxpp.jax

LIBRARY = sys.argv.pop(1)
OTHER = sys.argv.pop(1) if len(sys.argv) > 1 and not sys.argv[1].startswith("-") else None  # jax_ops_other.cpp
lib = None


def setUpModule():
    global lib
    lib = ptxpp.jax.load_library(LIBRARY)


def normal(key, shape):
    return jax.random.normal(jax.random.key(key), shape, dtype=jnp.float32)


def close(test, got, want, tol=1e-5):
    test.assertEqual((got.shape, got.dtype), (want.shape, want.dtype))
    np.testing.assert_allclose(np.asarray(got), np.asarray(want), rtol=tol, atol=tol)


class JitResults(unittest.TestCase):
    def test_vector_add(self):
        x, y = normal(0, (4096,)), normal(1, (4096,))
        close(self, jax.jit(lib.vector_add)(x, y), x + y)

    def test_swiglu(self):
        g, u = normal(2, (2048,)), normal(3, (2048,))
        close(self, jax.jit(lib.swiglu)(g, u), jax.nn.silu(g) * u)

    def test_rmsnorm_with_an_eps_attribute(self):
        x, w = normal(4, (8, 256)), normal(5, (256,))
        ref = x * jax.lax.rsqrt(jnp.mean(x * x, axis=-1, keepdims=True) + 1e-5) * w
        close(self, jax.jit(lambda x, w: lib.rmsnorm(x, w, eps=1e-5))(x, w), ref)
        close(self, jax.jit(lambda x, w: lib.rmsnorm(x, w, 1e-5))(x, w), ref)  # positional scalar

    def test_softmax(self):
        x = normal(6, (4, 512))
        close(self, jax.jit(lib.softmax)(x), jax.nn.softmax(x, axis=-1), tol=1e-6)

    def test_integer_and_float_scalars(self):
        x = jnp.arange(128, dtype=jnp.float32)
        close(self, jax.jit(lambda x: lib.axpb(x, alpha=0.5, shift=-3))(x), x * 0.5 - 3)

    def test_two_outputs(self):
        m = normal(7, (40, 4))
        s, mx = jax.jit(lib.row_stats)(m)
        close(self, s, m.sum(-1))
        close(self, mx, m.max(-1))

    def test_composes_with_jax_ops_and_vmap(self):
        x, y = normal(8, (3, 256)), normal(9, (3, 256))
        f = jax.jit(lambda x, y: lib.vector_add(x * 2.0, y) - 1.0)
        close(self, f(x[0], y[0]), x[0] * 2.0 + y[0] - 1.0)
        close(self, jax.vmap(lib.vector_add)(x, y), x + y)  # sequential: one call per row

    def test_independent_calls_in_one_computation(self):
        # XLA may run them at once: each call gets its own emulator buffers
        x, y = normal(10, (1024,)), normal(11, (1024,))
        f = jax.jit(lambda x, y: (lib.vector_add(x, y), lib.swiglu(x, y), lib.vector_add(y, y), lib.swiglu(y, x)))
        a, b, c, d = f(x, y)
        close(self, a, x + y)
        close(self, b, jax.nn.silu(x) * y)
        close(self, c, y + y)
        close(self, d, jax.nn.silu(y) * x)

    def test_eager_calls_and_numpy_inputs(self):
        x = np.arange(16, dtype=np.float32)
        close(self, lib.vector_add(x, x), jnp.asarray(x * 2))


@unittest.skipUnless(any(d.platform == "gpu" for d in jax.devices()) if os.environ.get("JAX_PLATFORMS") != "cpu" else False,
                     "no GPU for jax (JAX_PLATFORMS=cpu, or a jaxlib without CUDA)")
class GpuResults(unittest.TestCase):
    """The CUDA handlers, where jax has a GPU (run with JAX_PLATFORMS unset or "cuda")."""

    def test_ops_on_the_gpu_match_the_emulator(self):
        gpu, cpu = jax.devices("gpu")[0], jax.devices("cpu")[0]
        x, w = normal(12, (8, 256)), normal(13, (256,))
        for f, args in [(lib.vector_add, (x[0], w)), (lambda x, w: lib.rmsnorm(x, w, eps=1e-5), (x, w)),
                        (lib.row_stats, (x.reshape(-1, 4),))]:
            on_gpu = jax.jit(f)(*jax.device_put(args, gpu))
            on_cpu = jax.jit(f)(*jax.device_put(args, cpu))
            for g, c in zip(jax.tree.leaves(on_gpu), jax.tree.leaves(on_cpu)):
                close(self, jax.device_put(g, cpu), c)


class Autodiff(unittest.TestCase):
    """Ops paired with backward ops (ptxpp.jax.register_backward, jax.custom_vjp), against
    jax's own differentiation of the same math."""

    @classmethod
    def setUpClass(cls):
        ptxpp.jax.register_backward(lib.axpb, lib.axpb_backward)
        ptxpp.jax.register_backward(lib.swiglu, lib.swiglu_backward)

    def test_grad_of_axpb(self):
        x, w = normal(20, (256,)), jnp.arange(256.0, dtype=jnp.float32)
        want = jax.grad(lambda x: jnp.sum((3.0 * x + 1.0) * w))(x)
        close(self, jax.grad(lambda x: jnp.sum(lib.axpb(x, alpha=3.0, shift=1) * w))(x), want)
        close(self, jax.jit(jax.grad(lambda x: jnp.sum(lib.axpb(x, 3.0, 1) * w)))(x), want)
        # the forward is still the kernel's, and other scalars make another function
        value, grad = jax.value_and_grad(lambda x: jnp.sum(lib.axpb(x, alpha=0.5, shift=-2)))(x)
        np.testing.assert_allclose(value, jnp.sum(0.5 * x - 2.0), rtol=1e-5)
        close(self, grad, jnp.full(256, 0.5, jnp.float32))

    def test_grad_of_swiglu_for_both_inputs(self):
        g, u, dy = normal(21, (1024,)), normal(22, (1024,)), normal(23, (1024,))
        got = jax.jit(jax.grad(lambda g, u: jnp.sum(lib.swiglu(g, u) * dy), argnums=(0, 1)))(g, u)
        want = jax.grad(lambda g, u: jnp.sum(jax.nn.silu(g) * u * dy), argnums=(0, 1))(g, u)
        close(self, got[0], want[0], tol=2e-5)
        close(self, got[1], want[1], tol=2e-5)
        _, vjp = jax.vjp(lib.swiglu, g, u)
        close(self, vjp(dy)[1], jax.nn.silu(g) * dy, tol=2e-5)

    def test_a_backward_of_the_wrong_shape_is_named_when_differentiating(self):
        axpb = ptxpp.jax.Op(lib.axpb.target, lib.axpb.info)  # lib.axpb keeps its own backward
        ptxpp.jax.register_backward(axpb, lib.axpb_backward_fixed)  # grad_x: float32[64]
        with self.assertRaisesRegex(ValueError, r"axpb: the backward op axpb_backward_fixed gives the gradient of 'x' "
                                                r"the shape \(64,\), but 'x' has shape \(128,\)"):
            jax.grad(lambda x: jnp.sum(axpb(x, alpha=1.0, shift=0)))(jnp.zeros(128, jnp.float32))

    def test_pairings_that_cannot_fit_are_refused(self):
        def check(kind, pattern, op, backward):
            with self.assertRaisesRegex(kind, pattern):
                ptxpp.jax.register_backward(op, backward)

        prefix = r"ptxpp.jax.register_backward\(axpb, axpb_backward_f64\): "
        check(TypeError, prefix + r"the output 'grad_x' of axpb_backward_f64 \(a gradient\) is float64, but the input "
                                  r"'x' of axpb is float32", lib.axpb, lib.axpb_backward_f64)
        check(TypeError, r"axpb_backward takes 2 array\(s\); it must take 3: the gradients of swiglu's 1 output\(s\), "
                         r"then its 2 input\(s\)", lib.swiglu, lib.axpb_backward)
        check(TypeError, r"swiglu_backward has 2 output\(s\); it must have 1, the gradient of each input of row_stats",
              lib.row_stats, lib.swiglu_backward)
        check(TypeError, r"is not a ptxpp JAX op", lib.axpb, lambda *a: a)
        check(RuntimeError, r"unsized_output: output dimension K", lib.unsized_output, lib.axpb_backward)

        def op(name, params):
            return ptxpp.jax.Op(f"t.{name}", {"name": name, "params": params})

        def arr(kind, name, shape, dtype="f32"):
            return {"kind": kind, "name": name, "dtype": dtype, "shape": shape}

        fwd = op("f", [arr("input", "x", ["M", 4]), arr("output", "y", ["M"]), {"kind": "scalar", "name": "k", "dtype": "s32"}])
        check(ValueError, r"the output 'dx' of b \(a gradient\) is float32\[M\], which cannot be the shape of the input "
                          r"'x' of f, float32\[M, 4\]",
              fwd, op("b", [arr("input", "dy", ["M"]), arr("input", "x", ["M", 4]), arr("output", "dx", ["M"])]))
        check(ValueError, r"the argument 'x' of b is float32\[M, 3\], which cannot be the shape of the input 'x' of f",
              fwd, op("b", [arr("input", "dy", ["M"]), arr("input", "x", ["M", 3]), arr("output", "dx", ["M", 4])]))
        check(TypeError, r"b must take f's scalars \(k: int32\), not \(k: float32\)",
              fwd, op("b", [arr("input", "dy", ["M"]), arr("input", "x", ["M", 4]), arr("output", "dx", ["M", 4]),
                            {"kind": "scalar", "name": "k", "dtype": "f32"}]))
        self.assertIsNone(fwd.backward)  # nothing was paired


class BoundKernelCache(unittest.TestCase):
    """A handler call with input shapes an earlier call had reuses the kernel bound
    then (Op.cache_stats counts the handlers' hits and misses)."""

    def delta(self, op, fn):
        h0, m0 = op.cache_stats()
        jax.block_until_ready(fn())
        h1, m1 = op.cache_stats()
        return h1 - h0, m1 - m0

    def test_a_repeated_call_hits_and_a_new_shape_misses(self):
        f = jax.jit(lib.row_stats)
        xs = [normal(40 + i, (37, 4)) for i in range(3)]
        self.assertEqual(self.delta(lib.row_stats, lambda: f(xs[0])), (0, 1))
        for x in xs:  # hits, each with its own data
            self.assertEqual(self.delta(lib.row_stats, lambda: f(x)), (1, 0))
            s, mx = f(x)
            close(self, s, x.sum(-1))
            close(self, mx, x.max(-1))
        self.assertEqual(self.delta(lib.row_stats, lambda: f(normal(43, (38, 4)))), (0, 1))
        self.assertEqual(self.delta(lib.row_stats, lambda: lib.row_stats(xs[1])), (1, 0))  # eager: the same handler

    def test_a_hit_still_checks_results_and_attributes(self):
        x = jnp.zeros(96, jnp.float32)
        call = jax.ffi.ffi_call("ptxpp_jax_test_ops.axpb", jax.ShapeDtypeStruct((96,), jnp.float32))
        jax.block_until_ready(jax.jit(lambda x: call(x, alpha=np.float32(1), shift=np.int32(0)))(x))
        bad = jax.ffi.ffi_call("ptxpp_jax_test_ops.axpb", jax.ShapeDtypeStruct((95,), jnp.float32))
        with self.assertRaisesRegex(Exception, r"axpb: result 'y' must have shape \(96,\), not \(95,\)"):
            jax.block_until_ready(jax.jit(lambda x: bad(x, alpha=np.float32(1), shift=np.int32(0)))(x))
        with self.assertRaisesRegex(Exception, r"axpb: attribute 'shift': 4294967296 does not fit a s32"):
            jax.block_until_ready(jax.jit(lambda x: call(x, alpha=np.float32(1), shift=np.int64(2**32)))(x))

    def test_an_op_without_a_library_has_no_counts(self):
        with self.assertRaisesRegex(RuntimeError, "no cache statistics"):
            ptxpp.jax.Op(lib.axpb.target, lib.axpb.info).cache_stats()


@unittest.skipUnless(OTHER, "no second library given (test_jax.py LIBRARY OTHER_LIBRARY)")
class TwoLibraries(unittest.TestCase):
    """Two libraries of ops in one process: each lists, runs and counts its own."""

    def test_each_library_has_its_own_ops(self):
        other = ptxpp.jax.load_library(OTHER)
        self.assertEqual(sorted(other.ops), ["identity", "vector_add"])
        self.assertIn("axpb", lib.ops)
        x, y = normal(50, (64,)), normal(51, (64,))
        h0, m0 = lib.vector_add.cache_stats()
        # other's vector_add is the swiglu kernel
        close(self, jax.jit(other.vector_add)(x, y), jax.nn.silu(x) * y)
        close(self, jax.jit(other.vector_add)(y, x), jax.nn.silu(y) * x)
        close(self, other.identity(x), x)
        self.assertEqual(other.vector_add.cache_stats(), (1, 1))
        self.assertEqual(lib.vector_add.cache_stats(), (h0, m0))
        close(self, jax.jit(lib.vector_add)(x, y), x + y)


class Shapes(unittest.TestCase):
    def test_eval_shape_gives_the_outputs(self):
        spec = jax.ShapeDtypeStruct
        out = jax.eval_shape(lambda x, w: lib.rmsnorm(x, w, eps=1e-5), spec((3, 64), jnp.float32), spec((64,), jnp.float32))
        self.assertEqual((out.shape, out.dtype), ((3, 64), jnp.float32))
        s, mx = jax.eval_shape(lib.row_stats, spec((6, 4), jnp.float32))
        self.assertEqual((s.shape, mx.shape, s.dtype), ((6,), (6,), jnp.float32))

    def test_ops_describe_themselves_from_the_kernel_parameters(self):
        self.assertEqual(repr(lib.axpb), "<ptxpp.jax.Op ptxpp_jax_test_ops.axpb(x: float32[N], alpha: float32, shift: int32)"
                                         " -> (y: float32[N])>")
        self.assertEqual(repr(lib.row_stats),
                         "<ptxpp.jax.Op ptxpp_jax_test_ops.row_stats(x: float32[M, 4]) -> (sum: float32[M], max: float32[M])>")
        self.assertEqual(lib.rmsnorm.result_shapes(jnp.zeros((2, 8)), jnp.zeros(8)),
                         [jax.ShapeDtypeStruct((2, 8), jnp.float32)])

    def test_loading_twice_is_harmless_and_a_missing_file_is_named(self):
        self.assertIs(ptxpp.jax.load_library(LIBRARY), lib)
        with self.assertRaisesRegex(FileNotFoundError, "no such library: /nonexistent/libx.so"):
            ptxpp.jax.load_library("/nonexistent/libx.so")
        with self.assertRaisesRegex(AttributeError, "has no op 'nope'"):
            lib.nope


class HelperErrors(unittest.TestCase):
    """The Python helper checks at trace time, naming the argument."""

    def check(self, kind, pattern, fn):
        with self.assertRaisesRegex(kind, pattern):
            fn()

    def test_dtype_rank_and_dimensions(self):
        x = jnp.zeros(128, jnp.float32)
        self.check(TypeError, r"axpb: argument 'x' must be a float32 array, not int32",
                   lambda: lib.axpb(x.astype(jnp.int32), alpha=1.0, shift=0))
        self.check(ValueError, r"axpb: argument 'x' must have 1 dimensions, not 2",
                   lambda: lib.axpb(x.reshape(2, 64), alpha=1.0, shift=0))
        self.check(ValueError, r"vector_add: dimension 0 of 'in1' is 64, but N is 128 \(dimension 0 of 'in0'\)",
                   lambda: jax.jit(lib.vector_add)(x, jnp.zeros(64)))
        self.check(ValueError, r"row_stats: dimension 1 of 'x' must be 4, not 5", lambda: lib.row_stats(jnp.zeros((8, 5))))
        self.check(TypeError, r"vector_add: takes 2 array argument\(s\), not 1", lambda: lib.vector_add(x))

    def test_scalars(self):
        x = jnp.zeros(128, jnp.float32)
        self.check(TypeError, r"axpb: scalar 'shift' is missing", lambda: lib.axpb(x, alpha=1.0))
        self.check(ValueError, r"axpb: scalar 'shift': 4294967296 does not fit a s32", lambda: lib.axpb(x, 1.0, 2**32))
        self.check(TypeError, r"axpb: scalar 'shift' must be an integer \(int32\), not float",
                   lambda: lib.axpb(x, 1.0, 0.5))
        self.check(TypeError, r"axpb: unknown scalar 'beta'", lambda: lib.axpb(x, 1.0, 0, beta=2))
        self.check(TypeError, r"rmsnorm: scalar 'eps' must be a Python number \(a static value\)",
                   lambda: jax.jit(lambda x, w, e: lib.rmsnorm(x, w, eps=e))(jnp.zeros((2, 8)), jnp.zeros(8), 1e-5))

    def test_kernels_no_op_can_call_raise_why(self):
        self.check(RuntimeError, r"with_tensor_map: kernel parameter 'map' is a tensor map: FFI calls take arrays and scalars",
                   lambda: lib.with_tensor_map())
        self.check(RuntimeError, r"unsized_output: output dimension K is not a dimension of any input",
                   lambda: lib.unsized_output(jnp.zeros(4)))


class HandlerErrors(unittest.TestCase):
    """The FFI handlers check each call too (ffi.Error, surfaced by XLA), naming the argument."""

    def call(self, op, results, *args, side_effect=False, **attrs):
        f = jax.ffi.ffi_call(f"ptxpp_jax_test_ops.{op}", results, has_side_effect=side_effect)
        return jax.block_until_ready(jax.jit(lambda *a: f(*a, **attrs))(*args))

    def check(self, pattern, fn):
        with self.assertRaisesRegex(Exception, pattern):
            fn()

    def test_dtype_rank_and_dimensions(self):
        f32 = jax.ShapeDtypeStruct((128,), jnp.float32)
        x = jnp.zeros(128, jnp.float32)
        self.check(r"INVALID_ARGUMENT: axpb: argument 'x' must be a float32 array, not int32",
                   lambda: self.call("axpb", f32, x.astype(jnp.int32), alpha=np.float32(1), shift=np.int32(0)))
        self.check(r"axpb: argument 'x' must have 1 dimensions, not 2",
                   lambda: self.call("axpb", f32, x.reshape(2, 64), alpha=np.float32(1), shift=np.int32(0)))
        self.check(r"vector_add: dimension 0 of 'in1' is 64, but N is 128 \(dimension 0 of 'in0'\)",
                   lambda: self.call("vector_add", f32, x, jnp.zeros(64)))
        self.check(r"vector_add: result 'out0' must have shape \(128,\), not \(64,\)",
                   lambda: self.call("vector_add", jax.ShapeDtypeStruct((64,), jnp.float32), x, x))
        self.check(r"vector_add: takes 2 array argument\(s\), not 1", lambda: self.call("vector_add", f32, x))

    def test_attributes(self):
        f32 = jax.ShapeDtypeStruct((128,), jnp.float32)
        x = jnp.zeros(128, jnp.float32)
        self.check(r"axpb: attribute 'shift' is missing", lambda: self.call("axpb", f32, x, alpha=np.float32(1)))
        self.check(r"axpb: attribute 'shift' must be an integer scalar \(s32\)",
                   lambda: self.call("axpb", f32, x, alpha=np.float32(1), shift=np.float32(2)))
        self.check(r"axpb: attribute 'shift': 4294967296 does not fit a s32",
                   lambda: self.call("axpb", f32, x, alpha=np.float32(1), shift=np.int64(2**32)))
        self.check(r"axpb: unknown attribute 'beta'",
                   lambda: self.call("axpb", f32, x, alpha=np.float32(1), shift=np.int32(0), beta=np.int32(1)))
        # other numeric types convert: an f64 alpha, an i64 shift
        y = self.call("axpb", f32, jnp.ones(128, jnp.float32), alpha=np.float64(2), shift=np.int64(1))
        close(self, y, jnp.full(128, 3.0, jnp.float32))

    def test_kernel_errors_and_unusable_kernels(self):
        # vector_add needs N to be a multiple of 4: the DSL's error comes through
        self.check(r"vector_add: .*N must be a multiple of 4",
                   lambda: self.call("vector_add", jax.ShapeDtypeStruct((6,), jnp.float32), jnp.zeros(6), jnp.zeros(6)))
        self.check(r"with_tensor_map: kernel parameter 'map' is a tensor map",
                   lambda: self.call("with_tensor_map", [], side_effect=True))


if __name__ == "__main__":
    unittest.main(verbosity=2)
