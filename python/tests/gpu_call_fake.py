"""Run by test_gpu_call.py in a process whose CUDA driver is the fake one (PTXPP_LIBCUDA =
tests/runtime/fake_cuda.cpp's library, argv[1]): calls kernels on __cuda_array_interface__
arrays backed by the fake driver's memory and prints, as JSON, each scenario's driver log
(the calls the launch made) or error message."""

import ctypes
import json
import sys
import types

import numpy as np

import ptxpp
from ptxpp import Tile, smem
from ptxpp.types import f32
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

    def __init__(self, shape, code=2, bits=32):
        self.shape = (ctypes.c_int64 * len(shape))(*shape)
        self.ptr = fake.fake_cuda_alloc(max(int(np.prod(shape)) * bits // 8, 1))
        self.dtype = DLDataType(code, bits, 1)

    def __dlpack_device__(self):
        return (2, 0)  # kDLCUDA, device 0

    def __dlpack__(self, **kwargs):
        self.managed = DLManagedTensor(DLTensor(self.ptr, DLDevice(2, 0), len(self.shape), self.dtype, self.shape,
                                                None, 0), None, None)
        return _capsule(ctypes.addressof(self.managed), b"dltensor", None)


class TorchLikeTensor:
    """What ptxpp reads of a torch CUDA tensor (no CUDA torch here): a stand-in named torch.Tensor."""

    def __init__(self, n, ordinal=0):
        self.shape, self.dtype, self.ptr = (n,), "torch.float32", fake.fake_cuda_alloc(4 * n)
        self.device = types.SimpleNamespace(type="cuda", index=ordinal)

    def is_contiguous(self):
        return True

    def data_ptr(self):
        return self.ptr


TorchLikeTensor.__module__, TorchLikeTensor.__name__ = "torch", "Tensor"


def stub_torch():
    """torch.cuda.current_stream(device) of a stand-in torch module: stream 4242 (CUDA torch is not here)."""
    torch = types.ModuleType("torch")
    torch.cuda = types.SimpleNamespace(current_stream=lambda device: types.SimpleNamespace(cuda_stream=4242))
    sys.modules["torch"] = torch


@ptxpp.kernel(in_specs=(Tile("N", f32),), block=32, arch="sm_90a")
def big_smem(x):
    """Shared memory past 48 KB: dynamic, given at launch."""
    smem.alloc(f32, 16384)
    ptxpp.ptx.ret()


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


def main():
    fake.fake_cuda_set(b"log_params", 1)
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
    print(json.dumps(out))


if __name__ == "__main__":
    main()
