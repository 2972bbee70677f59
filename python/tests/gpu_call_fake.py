"""Run by test_gpu_call.py in a process whose CUDA driver is the fake one (PTXPP_LIBCUDA =
tests/runtime/fake_cuda.cpp's library, argv[1]): calls kernels on __cuda_array_interface__
arrays backed by the fake driver's memory and prints, as JSON, each scenario's driver log
(the calls the launch made) or error message."""

import contextlib
import ctypes
import json
import sys
import types

import numpy as np

import ptxpp
from ptxpp import Scalar, Tile, smem
from ptxpp.types import f32, s8, u32, u64
from ptxpp import _call
from test_run import axpy
from test_tensor_map_run import tma_copy

fake = ctypes.CDLL(sys.argv[1])  # the library the runtime loaded: the same instance
fake.fake_cuda_log.restype = ctypes.c_char_p
fake.fake_cuda_alloc.restype = ctypes.c_ulonglong
fake.fake_cuda_alloc.argtypes = [ctypes.c_size_t]
fake.fake_cuda_set.argtypes = [ctypes.c_char_p, ctypes.c_long]


class CudaArray:
    """The smallest __cuda_array_interface__ producer: an address in the fake driver's memory."""

    def __init__(self, shape, typestr="<f4", readonly=False, strides=None, stream=None, ptr=None):
        n = int(np.prod(shape)) * np.dtype(typestr).itemsize
        self.ptr = ptr if ptr is not None else fake.fake_cuda_alloc(max(n, 1))
        self.interface = {"shape": tuple(shape), "typestr": typestr, "data": (self.ptr, readonly),
                          "strides": strides, "version": 3}
        if stream is not None:
            self.interface["stream"] = stream

    @property
    def __cuda_array_interface__(self):
        return self.interface


class DLDevice(ctypes.Structure):
    _fields_ = [("device_type", ctypes.c_int32), ("device_id", ctypes.c_int32)]


class DLDataType(ctypes.Structure):
    _fields_ = [("code", ctypes.c_uint8), ("bits", ctypes.c_uint8), ("lanes", ctypes.c_uint16)]


class DLTensor(ctypes.Structure):
    _fields_ = [("data", ctypes.c_void_p), ("device", DLDevice), ("ndim", ctypes.c_int32), ("dtype", DLDataType),
                ("shape", ctypes.POINTER(ctypes.c_int64)), ("strides", ctypes.POINTER(ctypes.c_int64)),
                ("byte_offset", ctypes.c_uint64)]


class DLManagedTensor(ctypes.Structure):
    _fields_ = [("dl_tensor", DLTensor), ("manager_ctx", ctypes.c_void_p), ("deleter", ctypes.c_void_p)]


_capsule = ctypes.pythonapi.PyCapsule_New
_capsule.restype, _capsule.argtypes = ctypes.py_object, [ctypes.c_void_p, ctypes.c_char_p, ctypes.c_void_p]


class DLPackArray:
    """The smallest DLPack producer (unversioned "dltensor" capsules): CUDA memory of the fake driver."""

    def __init__(self, shape, code=2, bits=32, ordinal=0):
        self.shape = (ctypes.c_int64 * len(shape))(*shape)
        self.ptr = fake.fake_cuda_alloc(max(int(np.prod(shape)) * bits // 8, 1))
        self.dtype, self.ordinal = DLDataType(code, bits, 1), ordinal

    def __dlpack_device__(self):
        return (2, self.ordinal)  # kDLCUDA

    def __dlpack__(self, **kwargs):
        self.managed = DLManagedTensor(DLTensor(self.ptr, DLDevice(2, self.ordinal), len(self.shape), self.dtype,
                                                self.shape, None, 0), None, None)
        return _capsule(ctypes.addressof(self.managed), b"dltensor", None)


class TorchLikeTensor:
    """What ptxpp reads of a torch CUDA tensor (no CUDA torch here): a stand-in named torch.Tensor."""

    requires_grad, is_cuda = False, True

    def __init__(self, n, ordinal=0):
        self.shape, self.dtype, self.ptr = (n,), "torch.float32", fake.fake_cuda_alloc(4 * n)
        self.device = types.SimpleNamespace(type="cuda", index=ordinal)

    def is_contiguous(self):
        return True

    def get_device(self):
        return self.device.index

    def data_ptr(self):
        return self.ptr


TorchLikeTensor.__module__, TorchLikeTensor.__name__ = "torch", "Tensor"


class TorchSubclassLike(TorchLikeTensor):
    """A stand-in for a tensor subclass of torch's (FakeTensor, FunctionalTensor, DTensor, ...)."""


class ParameterLike(TorchLikeTensor):
    """A stand-in for torch.nn.Parameter (a plain tensor for ptxpp)."""


TorchSubclassLike.__module__ = "torch._subclasses.fake_tensor"
ParameterLike.__module__, ParameterLike.__name__ = "torch.nn.parameter", "Parameter"


def stub_torch():
    """A stand-in torch module (CUDA torch is not here): torch.cuda.current_stream(device) gives stream 4242,
    torch.empty a TorchLikeTensor; the checks ptxpp._torch_eager makes read `torch.state` (a test sets them)."""
    torch = types.ModuleType("torch")
    torch.cuda = types.SimpleNamespace(stream=4242)  # what current_stream gives (a test may change it)
    torch.cuda.current_stream = lambda device: types.SimpleNamespace(cuda_stream=torch.cuda.stream)
    torch.empty = lambda shape, dtype, device: TorchLikeTensor(shape[0], device.index)
    torch.Tensor, torch.nn = TorchLikeTensor, types.SimpleNamespace(Parameter=ParameterLike)
    state = torch.state = {"compiling": False, "function_mode": False, "dispatch_modes": 0, "transform": None,
                           "jit_tracing": False, "grad": True}
    torch.compiler = types.SimpleNamespace(is_compiling=lambda: state["compiling"])
    torch.autograd = types.SimpleNamespace(forward_ad=types.SimpleNamespace(_current_level=-1))
    torch._C = types.SimpleNamespace(
        _is_torch_function_mode_enabled=lambda: state["function_mode"],
        _len_torch_dispatch_stack=lambda: state["dispatch_modes"],
        _functorch=types.SimpleNamespace(peek_interpreter_stack=lambda: state["transform"]),
        _is_tracing=lambda: state["jit_tracing"], is_grad_enabled=lambda: state["grad"])
    sys.modules["torch"] = torch


def stub_torch_op(calls):
    """A stand-in for ptxpp._torch_op (which needs torch.library): its call only counts in `calls`."""
    op = types.ModuleType("ptxpp._torch_op")
    op._TORCH = {"f32": "torch.float32"}
    op.call = lambda kernel, args, kwargs: calls.append(kernel.name)
    sys.modules["ptxpp._torch_op"] = ptxpp._torch_op = op


@ptxpp.kernel(in_specs=(Tile("N", f32),), block=32, arch="sm_90a")
def big_smem(x):
    """Shared memory past 48 KB: dynamic, given at launch."""
    smem.alloc(f32, 16384)
    ptxpp.ptx.ret()


@ptxpp.kernel(in_specs=(Tile("N", u32),), scalars=(Scalar("n", u32),), block=32, arch="sm_90a")
def takes_n(x, n):
    """An integer scalar (range-checked)."""
    ptxpp.ptx.ret()


@ptxpp.kernel(in_specs=(Tile("N", u32),), scalars=(Scalar("n", u64),), block=32, arch="sm_90a")
def takes_n64(x, n):
    """A 64-bit unsigned scalar (past a C long long)."""
    ptxpp.ptx.ret()


@ptxpp.kernel(in_specs=(Tile("N", u32),), scalars=(Scalar("n", s8),), block=32, arch="sm_90a")
def takes_s8(x, n):
    """A signed scalar."""
    ptxpp.ptx.ret()


@ptxpp.kernel(in_specs=(Tile("N", f32),), block=32, arch="sm_90a")
def retargeted(x):
    """A kernel whose default arch a test changes."""
    ptxpp.ptx.ret()


class CudaArrayOnDevice(CudaArray):
    """A __cuda_array_interface__ array that names its device by __dlpack_device__ (as CuPy does)."""

    def __init__(self, shape, ordinal):
        super().__init__(shape)
        self.ordinal = ordinal

    def __dlpack_device__(self):
        return (2, self.ordinal)


class CupyLikeArray(CudaArray):
    """An array of a stand-in cupy module (cupy.empty allocates outputs in the fake driver's memory)."""


CupyLikeArray.__module__ = "cupy"


def stub_cupy():
    cupy = types.ModuleType("cupy")
    cupy.cuda = types.SimpleNamespace(Device=lambda ordinal: contextlib.nullcontext())
    cupy.empty = lambda shape, dtype: CupyLikeArray(shape, np.dtype(dtype).str)
    sys.modules["cupy"] = cupy


def log_of(fn):
    """The driver calls fn made (or the error it raised)."""
    fake.fake_cuda_clear_log()
    try:
        fn()
    except Exception as e:  # noqa: BLE001 - the message is the result
        return {"error": f"{type(e).__name__}: {e}"}
    return {"log": fake.fake_cuda_log().decode()}


def error_of(fn):
    return log_of(fn).get("error", "no error")


def cached_calls(out, x, y):
    """Calls after one that stored a plan (ptxpp._gpu_plan): each differs from it in one fact the plan's
    signature must hold, so each must still raise its error, launch with its own bytes, or bind anew."""
    def warm(fn):
        assert "log" in log_of(fn)  # the plan of a call like fn's is stored

    warm(lambda: axpy(x, y, 1.0))
    out["cached_shape"] = error_of(lambda: axpy(x, CudaArray((50,)), 1.0))
    out["cached_dtype"] = error_of(lambda: axpy(CudaArray((100,), "<f8"), y, 1.0))
    out["cached_readonly"] = error_of(lambda: axpy(x, CudaArray((100,), readonly=True), 1.0))
    out["cached_strided_output"] = error_of(lambda: axpy(x, CudaArray((100,), strides=(8,)), 1.0))
    out["cached_strided_input"] = error_of(lambda: axpy(CudaArray((100,), strides=(8,)), y, 1.0))
    out["cached_values"] = [log_of(lambda: axpy(x, y, 1.5)), log_of(lambda: axpy(x, y, -3.25)),
                            log_of(lambda: axpy(x, y, a=0.5)), log_of(lambda: axpy(x, y, a=7.0))]
    one_x, one_y = CudaArray((1,)), CudaArray((1,))
    warm(lambda: axpy(one_x, one_y, 1.0, N=1))
    out["cached_bool_keyword"] = error_of(lambda: axpy(one_x, one_y, 1.0, N=True))  # True == 1 as a dict key
    u = CudaArray((32,), "<u4")
    out["cached_int_values"] = [log_of(lambda: takes_n(u, 7)), log_of(lambda: takes_n(u, 9))]
    out["cached_int_range"] = [error_of(lambda: takes_n(u, -1)), error_of(lambda: takes_n(u, 2**32)),
                               error_of(lambda: takes_n(u, 2**63))]
    out["cached_u64"] = [log_of(lambda: takes_n64(u, 2**64 - 1)), error_of(lambda: takes_n64(u, -1)),
                         error_of(lambda: takes_n64(u, 2**64))]
    out["cached_s8"] = [log_of(lambda: takes_s8(u, -128)), error_of(lambda: takes_s8(u, -129)),
                        error_of(lambda: takes_s8(u, 128))]
    out["cached_int_type"] = [error_of(lambda: takes_n(u, 1.5)), error_of(lambda: takes_n(u, True))]
    d0, d1 = DLPackArray((100,)), DLPackArray((100,), ordinal=1)
    warm(lambda: axpy(d0, DLPackArray((100,)), 1.0))
    out["cached_device_1"] = log_of(lambda: axpy(d1, DLPackArray((100,), ordinal=1), 1.0))
    out["cached_device_1_again"] = log_of(lambda: axpy(d1, DLPackArray((100,), ordinal=1), 1.0))
    warm(lambda: axpy(CudaArrayOnDevice((24,), 0), CudaArrayOnDevice((24,), 0), 1.0))  # N=24: not bound on GPU 1 yet
    out["cached_interface_device_1"] = log_of(lambda: axpy(CudaArrayOnDevice((24,), 1), CudaArrayOnDevice((24,), 1), 1.0))
    warm(lambda: _call.call(axpy, (TorchLikeTensor(48), TorchLikeTensor(48), 1.0), {}))  # N=48: not bound on GPU 1 yet
    t1 = TorchLikeTensor(48, ordinal=1)
    out["cached_torch_device_1"] = log_of(lambda: _call.call(axpy, (t1, TorchLikeTensor(48, ordinal=1), 1.0), {}))
    tx, ty = TorchLikeTensor(100), TorchLikeTensor(100)
    warm(lambda: _call.call(axpy, (tx, ty, 1.0), {}))
    sys.modules["torch"].cuda.stream = 5151  # another current stream: the next launch's
    out["cached_torch_stream"] = log_of(lambda: _call.call(axpy, (tx, ty, 1.0), {}))
    sys.modules["torch"].cuda.stream = 4242
    out["cached_interface_stream"] = log_of(lambda: axpy(CudaArray((100,), stream=99), y, 1.0))  # x's plan: stream 77
    warm(lambda: retargeted(CudaArray((32,))))
    retargeted.arch = "sm_80"
    out["cached_new_arch"] = log_of(lambda: retargeted(CudaArray((32,))))
    stub_cupy()
    c = CupyLikeArray((100,))
    allocated = [axpy(c, 1.0), axpy(c, 2.0)]
    out["cached_allocations"] = [a.ptr for a in allocated]
    out["cached_allocation_log"] = log_of(lambda: allocated.append(axpy(c, 3.0)))
    out["cached_allocation_last"] = allocated[-1].ptr


def torch_eager_calls(out):
    """k(torch tensors) through KernelFunction: launched directly (no op) when eager, else through the op."""
    torch, op_calls = sys.modules["torch"], []
    stub_torch_op(op_calls)

    def routed(fn):  # (the driver log, how many times fn called the op)
        before = len(op_calls)
        return log_of(fn), len(op_calls) - before

    tx, ty = TorchLikeTensor(64), TorchLikeTensor(64)
    out["eager_tx"], out["eager_ty"] = tx.ptr, ty.ptr
    out["eager_first"] = routed(lambda: axpy(tx, ty, 3.0))  # the full path: binds (N=64 is new), keeps the plan
    out["eager_planned"] = routed(lambda: axpy(tx, ty, 4.0))
    out["eager_allocated"] = [routed(lambda: axpy(tx, 5.0)), routed(lambda: axpy(tx, 5.0))]  # full path, then plan
    out["eager_parameter"] = routed(lambda: axpy(ParameterLike(64), ty, 1.0))  # requires_grad False
    gates = {"compiling": True, "function_mode": True, "dispatch_modes": 1, "transform": object(), "jit_tracing": True}
    out["gated"] = {}
    for name, value in gates.items():  # each after the plan of axpy(tx, ty, a) is kept: checked before it
        saved, torch.state[name] = torch.state[name], value
        out["gated"][name] = routed(lambda: axpy(tx, ty, 1.0))
        torch.state[name] = saved
    torch.autograd.forward_ad._current_level = 0  # inside a dual_level()
    out["gated"]["forward_ad"] = routed(lambda: axpy(tx, ty, 1.0))
    torch.autograd.forward_ad._current_level = -1
    grad_x = TorchLikeTensor(64)
    grad_x.requires_grad = True
    out["gated"]["requires_grad"] = routed(lambda: axpy(grad_x, ty, 1.0))
    out["gated"]["subclass"] = routed(lambda: axpy(TorchSubclassLike(64), ty, 1.0))
    torch.state["grad"] = False
    out["eager_no_grad_requires_grad"] = routed(lambda: axpy(grad_x, ty, 1.0))
    torch.state["grad"] = True


def module_calls(out):
    """A kernel calling device functions (test_module's program) on CUDA arrays: bound from its module's trace."""
    from test_module import program
    _, k = program()
    out["module_ptx"] = k.trace(N=64).ptx
    out["module"] = log_of(lambda: k(CudaArray((64,), "<u4"), CudaArray((64,), "<u4")))


def main():
    fake.fake_cuda_set(b"log_params", 1)
    fake.fake_cuda_set(b"devices", 2)
    x, y = CudaArray((100,), stream=77), CudaArray((100,))
    out = {"x": x.ptr, "y": y.ptr}
    out["first"] = log_of(lambda: axpy(x, y, 2.5))
    out["second"] = log_of(lambda: axpy(x, y, a=2.5))
    out["default_stream"] = log_of(lambda: axpy(CudaArray((100,)), y, 1.0))
    out["shape"] = error_of(lambda: axpy(x, CudaArray((50,)), 1.0))
    out["dtype"] = error_of(lambda: axpy(CudaArray((100,), "<f8"), y, 1.0))
    out["mixed"] = error_of(lambda: axpy(np.zeros(100, np.float32), y, 1.0))
    out["readonly"] = error_of(lambda: axpy(x, CudaArray((100,), readonly=True), 1.0))
    out["strided"] = error_of(lambda: axpy(CudaArray((50,), strides=(8,)), CudaArray((50,)), 1.0))
    out["no_output"] = error_of(lambda: axpy(x, 1.0))
    out["scalar"] = error_of(lambda: axpy(x, y, "two"))
    dx, dy = DLPackArray((100,)), DLPackArray((100,))
    out["dx"], out["dy"] = dx.ptr, dy.ptr
    out["dlpack"] = log_of(lambda: axpy(dx, dy, 1.0))
    out["dlpack_dtype"] = error_of(lambda: axpy(DLPackArray((100,), code=4, bits=16), dy, 1.0))
    out["dlpack_mixed"] = error_of(lambda: axpy(dx, np.zeros(100, np.float32), 1.0))
    stub_torch()
    tx, ty = TorchLikeTensor(100), TorchLikeTensor(100)
    out["tx"], out["ty"] = tx.ptr, ty.ptr
    out["torch"] = log_of(lambda: _call.call(axpy, (tx, ty, 3.0), {}))  # the torch op's CUDA implementation's call
    out["two_gpus"] = error_of(lambda: _call.call(axpy, (x, TorchLikeTensor(100, ordinal=1), 3.0), {}))
    out["smem_bytes"] = big_smem.trace(N=32).dynamic_smem_bytes
    out["smem"] = log_of(lambda: big_smem(CudaArray((32,))))
    m = CudaArray((8, 32))
    out["m"] = m.ptr
    out["tensor_map"] = log_of(lambda: tma_copy(m, CudaArray((8, 32))))
    module_calls(out)
    cached_calls(out, x, y)
    torch_eager_calls(out)
    print(json.dumps(out))


if __name__ == "__main__":
    main()
