"""CPU torch tensors run on the emulator like NumPy arrays (outputs come back as tensors)."""

import numpy as np
import pytest

torch = pytest.importorskip("torch")

import ptxpp  # noqa: E402
from test_run import axpy  # noqa: E402


def test_cpu_tensors_run_on_the_emulator():
    x = torch.arange(100, dtype=torch.float32)
    y = axpy(x, 2.0)
    assert isinstance(y, torch.Tensor) and torch.equal(y, 2 * x)
    y2 = torch.ones(100)
    assert axpy(x, y2, a=3.0) is y2 and torch.equal(y2, 3 * x + 1)


def test_tensor_mismatches_name_the_argument():
    with pytest.raises(TypeError, match="argument 'x' must be a f32 array, not float64"):
        axpy(torch.zeros(8, dtype=torch.float64), 1.0)
    with pytest.raises(ValueError, match="argument 'x' is not contiguous"):
        axpy(torch.zeros(16)[::2], 1.0)
    meta = torch.zeros(8, device="meta")
    with pytest.raises(ptxpp.Error, match="argument 'x' is on meta; kernels run on CPU tensors"):
        axpy(meta, torch.zeros(8, device="meta"), 1.0)  # outputs given: the eager path, which runs only on the CPU


def test_meta_tensors_get_the_output_shapes_from_the_fake_implementation():
    y = axpy(torch.zeros(8, device="meta"), 1.0)
    assert y.device.type == "meta" and y.shape == (8,) and y.dtype == torch.float32


def test_tensors_that_require_grad_are_read():
    x = torch.arange(8, dtype=torch.float32, requires_grad=True)
    assert np.array_equal(axpy(x, 1.0).detach().numpy(), np.arange(8, dtype=np.float32))


def test_under_torch_compile_fullgraph():
    x = torch.arange(64, dtype=torch.float32)

    def f(v):
        return axpy(v * 2, 0.5) + 1

    compiled = torch.compile(f, fullgraph=True, backend="eager")
    assert torch.equal(compiled(x), x + 1)
    assert torch.equal(compiled(x[:32]), x[:32] + 1)  # another N: the kernel traced for it


def test_a_kernels_first_call_may_be_inside_torch_compile_fullgraph():
    # dynamo cannot trace making the torch op (a lock, torch.library calls): a kernel made after
    # torch is imported has the op of its keyword-less calls already, also after a new default arch
    from ptxpp import Scalar, Tile, ptx, reg
    from ptxpp.types import f32, u32

    @ptxpp.kernel(in_specs=(Tile("N", f32),), out_specs=(Tile("N", f32),), scalars=(Scalar("a", f32),), block=32,
                  arch="sm_80")
    def scale(x, y, a, *, N):
        i = ptx.read(ptx.special.tid.x(), u32)
        px, py = ptx.global_ptrs(x, y)
        w = reg.scalar(f32)
        ptx.inst.ld.global_.f32(w, ptx.addr(px + i * 4))
        ptx.inst.mul.rn.f32(w, w, a.load())
        ptx.inst.st.global_.f32(ptx.addr(py + i * 4), w)
        ptx.ret()

    x = torch.arange(32, dtype=torch.float32)
    compiled = torch.compile(lambda v: scale(v, 3.0) + 1, fullgraph=True, backend="eager")
    assert torch.equal(compiled(x), 3 * x + 1)
    scale.arch = "sm_90a"  # a new default: a new op, made at once
    compiled = torch.compile(lambda v: scale(v, 2.0) - 1, fullgraph=True, backend="eager")
    assert torch.equal(compiled(x), 2 * x - 1)


def test_tensor_map_kernels_take_cpu_tensors_as_an_op_and_under_torch_compile():
    from test_tensor_map_run import tma_copy
    x = torch.arange(256, dtype=torch.float32).reshape(8, 32)
    assert torch.equal(tma_copy(x), x)  # the op: its fake implementation binds R and C from the tensor map's tensor
    compiled = torch.compile(lambda v: tma_copy(v + 1), fullgraph=True, backend="eager")
    assert torch.equal(compiled(x), x + 1)


def test_the_op_has_a_cuda_implementation():
    """CUDA tensors launch through the same op (its CUDA kernel: ptxpp._gpu_call), so torch.compile and
    CUDA graphs see one node; the launch itself is checked against the fake driver (test_gpu_call.py)."""
    axpy(torch.zeros(4), 1.0)  # makes the op
    for op in axpy._torch_ops.values():
        name = f"ptxpp::{op.__name__.split('.')[-1]}"
        assert torch._C._dispatch_has_kernel_for_dispatch_key(name, "CUDA")
        assert torch._C._dispatch_has_kernel_for_dispatch_key(name, "CPU")


# ptxpp._torch_eager.eager: whether a call may bypass the op (then, on CUDA tensors, it launches directly).
def test_eager_plain_tensors_bypass_the_op():
    from ptxpp._torch_eager import eager
    x, p = torch.zeros(4), torch.nn.Parameter(torch.zeros(4), requires_grad=False)
    assert eager((x, 2.0)) and eager((p, x, 1))
    g = torch.zeros(4, requires_grad=True)
    with torch.no_grad():
        assert eager((g, x, 1.0))
    with torch.inference_mode():
        assert eager((torch.zeros(4), 1.0))


def test_eager_not_when_autograd_would_record():
    from ptxpp._torch_eager import eager
    assert not eager((torch.zeros(4, requires_grad=True), 1.0))
    assert not eager((torch.zeros(4), torch.nn.Parameter(torch.zeros(4))))
    import torch.autograd.forward_ad as fwAD
    with fwAD.dual_level():
        assert not eager((fwAD.make_dual(torch.zeros(4), torch.ones(4)), 1.0))


def test_eager_not_under_dispatch_or_function_modes():
    from torch.overrides import TorchFunctionMode
    from torch.utils._python_dispatch import TorchDispatchMode
    from torch._subclasses.fake_tensor import FakeTensorMode
    from ptxpp._torch_eager import eager

    class Passing(TorchDispatchMode):
        def __torch_dispatch__(self, func, types, args=(), kwargs=None):
            return func(*args, **(kwargs or {}))

    class PassingFunctions(TorchFunctionMode):
        def __torch_function__(self, func, types, args=(), kwargs=None):
            return func(*args, **(kwargs or {}))

    x = torch.zeros(4)
    with Passing():
        assert not eager((x, 1.0))
    with PassingFunctions():
        assert not eager((x, 1.0))
    with FakeTensorMode():
        assert not eager((x, 1.0))  # a plain tensor, but the mode sees every op
    assert eager((x, 1.0))


def test_eager_not_for_tensor_subclasses():
    from torch._subclasses.fake_tensor import FakeTensorMode
    from ptxpp._torch_eager import eager

    class Sub(torch.Tensor):
        pass

    with FakeTensorMode():
        fake = torch.zeros(4)
    assert not eager((fake, 1.0)) and not eager((torch.zeros(4).as_subclass(Sub), 1.0))


def test_eager_not_under_tracers_or_transforms():
    from torch.fx.experimental.proxy_tensor import make_fx
    from ptxpp._torch_eager import eager
    seen = []

    def f(v):
        seen.append(eager((v, 1.0)))
        return v + 1

    make_fx(f)(torch.zeros(4))
    torch.func.vmap(f)(torch.zeros(2, 4))
    torch.jit.trace(f, torch.zeros(4), check_trace=False)
    assert seen == [False, False, False]


def test_eager_not_under_torch_compile():
    from ptxpp._torch_eager import eager

    def f(v):  # the branch dynamo takes shows what eager() gave while it traced
        return v + 1 if eager((v, 1.0)) else v - 1

    x = torch.zeros(4)
    assert torch.equal(f(x), x + 1)
    assert torch.equal(torch.compile(f, fullgraph=True, backend="eager")(x), x - 1)


def test_cpu_tensors_go_through_the_op():
    k = ptxpp.kernel(in_specs=axpy.in_specs, out_specs=axpy.out_specs, scalars=axpy.scalars, grid=axpy.grid,
                     block=axpy.block, arch=axpy.arch)(axpy.fn)
    assert torch.equal(k(torch.ones(8), 2.0), torch.full((8,), 2.0))
    assert len(k._torch_ops) == 1
