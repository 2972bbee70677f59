"""ptxpp torch ops (tests/interop/torch_ops.cpp) from Python: results on CPU tensors
(the CPU emulator) against torch's own computation, shapes on meta tensors,
torch.compile without graph breaks, and the errors for bad arguments.
GPU execution is in scripts/gpu-check.

    test_torch.py LIBRARY [unittest args]
"""

import math
import sys
import unittest

import torch

import ptxpp
import ptxpp.torch

LIBRARY = sys.argv.pop(1)
ops = None


def setUpModule():
    global ops
    ptxpp.torch.load_library(LIBRARY)
    ops = ptxpp.torch.ops("ptxpp_test")


class Schemas(unittest.TestCase):
    def test_schemas_come_from_the_kernel_parameters(self):
        def schema(name):
            return str(getattr(ops, name).default._schema)

        self.assertEqual(schema("axpb"), "ptxpp_test::axpb(Tensor x, float alpha, int shift) -> Tensor")
        self.assertEqual(schema("rmsnorm"), "ptxpp_test::rmsnorm(Tensor in0, Tensor in1, float eps) -> Tensor")
        self.assertEqual(schema("row_stats"), "ptxpp_test::row_stats(Tensor x) -> (Tensor sum, Tensor max)")

    def test_loading_twice_is_harmless_and_a_missing_file_is_named(self):
        ptxpp.torch.load_library(LIBRARY)
        with self.assertRaisesRegex(FileNotFoundError, "no such library: /nonexistent/libx.so"):
            ptxpp.torch.load_library("/nonexistent/libx.so")


class CpuResults(unittest.TestCase):
    def test_vector_add(self):
        x, y = torch.randn(4096), torch.randn(4096)
        torch.testing.assert_close(ops.vector_add(x, y), x + y)

    def test_swiglu(self):
        g, u = torch.randn(2048), torch.randn(2048)
        torch.testing.assert_close(ops.swiglu(g, u), torch.nn.functional.silu(g) * u, rtol=1e-5, atol=1e-5)

    def test_rmsnorm(self):
        x, w = torch.randn(8, 256), torch.randn(256)
        ref = x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + 1e-5) * w
        torch.testing.assert_close(ops.rmsnorm(x, w, 1e-5), ref, rtol=1e-5, atol=1e-5)

    def test_softmax(self):
        x = torch.randn(4, 512)
        torch.testing.assert_close(ops.softmax(x), torch.softmax(x, -1), rtol=1e-5, atol=1e-6)

    def test_scalars_and_several_outputs(self):
        x = torch.arange(128, dtype=torch.float32)
        torch.testing.assert_close(ops.axpb(x, 0.5, -3), x * 0.5 - 3)
        m = torch.randn(40, 4)
        s, mx = ops.row_stats(m)
        torch.testing.assert_close(s, m.sum(-1), rtol=1e-5, atol=1e-5)
        torch.testing.assert_close(mx, m.amax(-1))


class MetaAndCompile(unittest.TestCase):
    def test_meta_tensors_get_the_output_shapes(self):
        x = torch.empty(6, 4, device="meta")
        s, mx = ops.row_stats(x)
        self.assertEqual((s.shape, mx.shape, s.device.type), (torch.Size([6]), torch.Size([6]), "meta"))
        y = ops.rmsnorm(torch.empty(3, 64, device="meta"), torch.empty(64, device="meta"), 1e-5)
        self.assertEqual(y.shape, torch.Size([3, 64]))

    def test_torch_compile_without_graph_breaks(self):
        def f(x, w):
            return ops.rmsnorm(x, w, 1e-5) * 2.0 + 1.0

        compiled = torch.compile(f, fullgraph=True, backend="aot_eager")
        x, w = torch.randn(4, 128), torch.randn(128)
        torch.testing.assert_close(compiled(x, w), f(x, w))
        explanation = torch._dynamo.explain(f)(x, w)
        self.assertEqual(explanation.graph_break_count, 0)
        self.assertEqual(explanation.graph_count, 1)


class Autograd(unittest.TestCase):
    def test_a_backward_op_makes_the_op_differentiable(self):
        ptxpp.torch.register_backward(ops.axpb, ops.axpb_backward)
        x = torch.randn(256, requires_grad=True)
        y = ops.axpb(x, 3.0, 1)
        (y * torch.arange(256.0)).sum().backward()
        torch.testing.assert_close(x.grad, 3.0 * torch.arange(256.0))
        # and under torch.compile
        x.grad = None
        f = torch.compile(lambda t: ops.axpb(t, 0.5, 0).sum(), fullgraph=True, backend="aot_eager")
        f(x).backward()
        torch.testing.assert_close(x.grad, torch.full((256,), 0.5))

    def test_swiglu_gradients_match_torch_autograd(self):
        ptxpp.torch.register_backward(ops.swiglu, ops.swiglu_backward)
        g, u, dy = torch.randn(1024), torch.randn(1024), torch.randn(1024)
        g1, u1 = g.clone().requires_grad_(), u.clone().requires_grad_()
        (ops.swiglu(g1, u1) * dy).sum().backward()
        g2, u2 = g.clone().requires_grad_(), u.clone().requires_grad_()
        (torch.nn.functional.silu(g2) * u2 * dy).sum().backward()
        torch.testing.assert_close(g1.grad, g2.grad, rtol=2e-5, atol=2e-5)
        torch.testing.assert_close(u1.grad, u2.grad, rtol=2e-5, atol=2e-5)

    def test_a_gradient_of_the_wrong_dtype_or_shape_is_named(self):
        # each forward op is the axpb kernel under a name of its own (an op has one backward)
        ptxpp.torch.register_backward(ops.axpb_bad_dtype_grad, ops.axpb_backward_f64)
        x = torch.randn(128, requires_grad=True)
        with self.assertRaisesRegex(RuntimeError, r"ptxpp_test::axpb_bad_dtype_grad: the backward op "
                                                  r"ptxpp_test::axpb_backward_f64 returned a torch.float64 gradient "
                                                  r"for 'x', a torch.float32 tensor"):
            ops.axpb_bad_dtype_grad(x, 1.0, 0).sum().backward()
        ptxpp.torch.register_backward(ops.axpb_bad_shape_grad, ops.axpb_backward_fixed)
        with self.assertRaisesRegex(RuntimeError, r"ptxpp_test::axpb_bad_shape_grad: the backward op "
                                                  r"ptxpp_test::axpb_backward_fixed returned a gradient of shape "
                                                  r"\(64,\) for 'x', of shape \(128,\)"):
            ops.axpb_bad_shape_grad(x, 1.0, 0).sum().backward()

    def test_a_backward_op_whose_schema_cannot_fit_is_refused(self):
        def check(pattern, op, backward):
            with self.assertRaisesRegex(TypeError, pattern):
                ptxpp.torch.register_backward(op, backward)

        check(r"ptxpp_test::axpb_backward takes 2 tensor\(s\); it must take 3: the gradients of ptxpp_test::swiglu's "
              r"1 output\(s\), then its 2 tensor input\(s\)", ops.swiglu, ops.axpb_backward)
        check(r"ptxpp_test::swiglu_backward returns 2 tensor\(s\); it must return 1, the gradient of each tensor "
              r"input of ptxpp_test::row_stats", ops.row_stats, ops.swiglu_backward)
        check(r"ptxpp_test::vector_add must take ptxpp_test::axpb's scalars \(float alpha, int shift\), not \(none\)",
              ops.axpb, ops.vector_add)

    def test_what_is_not_an_op_is_refused(self):
        with self.assertRaisesRegex(TypeError, "is not a torch op"):
            ptxpp.torch.register_backward(lambda x: x, ops.axpb_backward)


class BoundKernelCache(unittest.TestCase):
    """A call on a device and with input shapes an earlier call had reuses the kernel
    bound then (ptxpp.torch.cache_stats counts hits and misses per op)."""

    def delta(self, op, fn):
        h0, m0 = ptxpp.torch.cache_stats(op)
        fn()
        h1, m1 = ptxpp.torch.cache_stats(op)
        return h1 - h0, m1 - m0

    def test_a_repeated_call_hits_and_a_new_shape_or_device_misses(self):
        xs = [torch.randn(37, 4) for _ in range(3)]
        self.assertEqual(self.delta(ops.row_stats, lambda: ops.row_stats(xs[0])), (0, 1))
        for x in xs:  # hits, each with its own data
            self.assertEqual(self.delta(ops.row_stats, lambda: self.check_row_stats(x)), (1, 0))
        self.assertEqual(self.delta(ops.row_stats, lambda: ops.row_stats(torch.randn(38, 4))), (0, 1))
        meta = torch.empty(37, 4, device="meta")
        self.assertEqual(self.delta(ops.row_stats, lambda: ops.row_stats(meta)), (0, 1))
        self.assertEqual(self.delta(ops.row_stats, lambda: ops.row_stats(meta)), (1, 0))

    def check_row_stats(self, x):
        s, mx = ops.row_stats(x)
        torch.testing.assert_close(s, x.sum(-1), rtol=1e-5, atol=1e-5)
        torch.testing.assert_close(mx, x.amax(-1))

    def test_a_hit_still_checks_what_is_not_a_shape(self):
        x = torch.randn(4, 36).t()  # [36, 4], not contiguous
        ops.row_stats(x.contiguous())
        self.assertEqual(self.delta(ops.row_stats, lambda: self.assertRaisesRegex(
            RuntimeError, "argument 'x' must be contiguous", lambda: ops.row_stats(x))), (0, 0))
        self.assertEqual(self.delta(ops.axpb, lambda: self.assertRaisesRegex(
            RuntimeError, r"does not fit a s32", lambda: ops.axpb(torch.randn(16), 1.0, 2**40))), (0, 0))

    def test_calls_from_several_threads(self):
        import threading
        x = torch.randn(8, 64)
        want = x * 2.0 + 0.0
        h0, m0 = ptxpp.torch.cache_stats(ops.axpb)
        errors = []

        def work(row):
            try:
                for _ in range(5):
                    torch.testing.assert_close(ops.axpb(x[row], 2.0, 0), want[row])
            except Exception as e:  # reported below
                errors.append(e)

        threads = [threading.Thread(target=work, args=(r,)) for r in range(8)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        self.assertEqual(errors, [])
        h1, m1 = ptxpp.torch.cache_stats(ops.axpb)
        self.assertEqual((h1 - h0) + (m1 - m0), 40)

    def test_an_op_not_yet_called_has_no_counts(self):
        self.assertEqual(ptxpp.torch.cache_stats(ops.with_tensor_map), (0, 0))
        with self.assertRaisesRegex(TypeError, "is not a torch op"):
            ptxpp.torch.cache_stats(lambda x: x)


class Errors(unittest.TestCase):
    def check(self, pattern, fn):
        with self.assertRaisesRegex(RuntimeError, pattern):
            fn()

    def test_each_bad_argument_is_named(self):
        x = torch.randn(128)
        self.check(r"axpb: argument 'x' must be a Float tensor, not Double", lambda: ops.axpb(x.double(), 1.0, 0))
        self.check(r"axpb: argument 'x' must have 1 dimensions, not 2", lambda: ops.axpb(x.view(2, 64), 1.0, 0))
        self.check(r"axpb: argument 'x' must be contiguous", lambda: ops.axpb(torch.randn(256)[::2], 1.0, 0))
        self.check(r"axpb: argument 'shift': 4294967296 does not fit a s32", lambda: ops.axpb(x, 1.0, 2**32))
        self.check(r"vector_add: dimension 0 of 'in1' is 64, but N is 128 \(dimension 0 of 'in0'\)",
                   lambda: ops.vector_add(x, torch.randn(64)))
        self.check(r"row_stats: dimension 1 of 'x' must be 4, not 5", lambda: ops.row_stats(torch.randn(8, 5)))
        self.check(r"vector_add: argument 'in1' is on meta, but 'in0' is on cpu",
                   lambda: ops.vector_add(x, torch.empty(128, device="meta")))

    def test_kernels_no_op_can_call_raise_why(self):
        self.check(r"torch op with_tensor_map: kernel parameter 'map' is a tensor map: torch ops take tensors and scalars",
                   lambda: ops.with_tensor_map())
        self.check(r"torch op unsized_output: output dimension K is not a dimension of any input",
                   lambda: ops.unsized_output())
        # with arguments, torch's own error shows the placeholder schema
        self.check(r"Declaration: ptxpp_test::unsized_output\(\.\.\.\) -> \(\)", lambda: ops.unsized_output(torch.randn(4)))

    def test_kernel_errors_reach_python(self):
        # vector_add needs N to be a multiple of 4: the DSL's error comes through
        self.check(r"vector_add: .*N must be a multiple of 4", lambda: ops.vector_add(torch.randn(6), torch.randn(6)))


if __name__ == "__main__":
    unittest.main(verbosity=2)
