"""Host cost of calling a Python kernel on CUDA arrays, measured without a GPU: the CUDA driver
is the fake one (tests/runtime/fake_cuda.cpp, which logs each call: a few hundred ns of its own),
the arrays are __cuda_array_interface__ objects in its memory. Prints µs per call of
  - the whole call, axpy(x, y, 2.0): argument checks, shape binding, the bound-kernel lookup, launch;
  - GpuKernel.launch alone (the C++ part: arguments into fixed arrays, the driver call);
so the difference is the Python dispatch (ptxpp._call, ptxpp._gpu_call, the plan of a repeated call:
ptxpp._gpu_plan). For reference, a native op's per-call cost on the same machine: torch.add on two
4-element CPU tensors when torch is importable, else numpy.add on two 4-element arrays.
With torch importable, also:
  - the eager gate alone (ptxpp._torch_eager.eager: may a call on torch tensors skip the torch op?);
  - axpy(x, y, 2.0) on 4-element torch tensors through KernelFunction, the gate and a plan: CPU torch
    has no CUDA tensors, so the plan is made for CPU tensors by ptxpp._gpu_call.run and
    torch's current stream is a stand-in (its cost on a GPU machine is not in this figure).

    PYTHONPATH=<dir with ptxpp>:python/tests python bench/python_dispatch.py build/release/tests/libptxpp_fake_cuda.so
"""

import os
import sys
import time

if len(sys.argv) != 2:
    sys.exit(__doc__)
os.environ["PTXPP_LIBCUDA"] = os.path.abspath(sys.argv[1])  # before the runtime loads a driver

import ctypes  # noqa: E402

fake = ctypes.CDLL(os.environ["PTXPP_LIBCUDA"])
fake.fake_cuda_alloc.restype = ctypes.c_ulonglong
fake.fake_cuda_alloc.argtypes = [ctypes.c_size_t]

from test_run import axpy  # noqa: E402


class CudaArray:
    def __init__(self, n):
        self.__cuda_array_interface__ = {"shape": (n,), "typestr": "<f4", "data": (fake.fake_cuda_alloc(4 * n), False),
                                         "strides": None, "version": 3}


def per_call_us(fn, iters=20000):
    fn()
    best = float("inf")
    for _ in range(5):
        fake.fake_cuda_clear_log()  # the fake driver's log grows by a line per launch
        t0 = time.perf_counter()
        for _ in range(iters):
            fn()
        best = min(best, (time.perf_counter() - t0) / iters)
    return best * 1e6


def native_op():
    """(name, a call of a framework's own op on tiny CPU arrays): what "within 2 us of a native op" compares to."""
    try:
        import torch
    except ImportError:
        import numpy as np
        a, b = np.ones(4, np.float32), np.ones(4, np.float32)
        return "numpy.add on 4-element arrays", lambda: np.add(a, b)
    a, b = torch.ones(4), torch.ones(4)
    return "torch.add on 4-element CPU tensors", lambda: torch.add(a, b)


def main():
    x, y = CudaArray(1024), CudaArray(1024)
    axpy(x, y, 2.0)  # binds (traces, loads the module)
    (bound,) = axpy._gpu_kernels.values()
    args = [x.__cuda_array_interface__["data"][0], y.__cuda_array_interface__["data"][0], b"\0\0\0@"]
    whole = per_call_us(lambda: axpy(x, y, 2.0))
    launch = per_call_us(lambda: bound.launch(args, 0))
    print(f"python dispatch (fake driver): axpy(x, y, 2.0) on __cuda_array_interface__ arrays: {whole:.2f} us/call; "
          f"GpuKernel.launch alone: {launch:.2f} us/call; Python dispatch: {whole - launch:.2f} us/call")
    name, op = native_op()
    native = per_call_us(op)
    print(f"native op for reference: {name}: {native:.2f} us/call; axpy - native: {whole - native:.2f} us/call "
          f"({whole / native:.1f}x)")
    if name.startswith("torch"):
        torch_eager(native)


def torch_eager(native):
    import types
    import torch
    from ptxpp import _call, _gpu_call, _torch_eager
    x, y = torch.ones(4), torch.ones(4)
    gate = per_call_us(lambda: _torch_eager.eager((x, y, 2.0)))
    # no CUDA in CPU torch: stand-ins for what ptxpp reads torch's current stream with (_gpu_call.torch_stream_reader)
    torch.cuda.current_stream = lambda device: types.SimpleNamespace(cuda_stream=0)
    torch._C._cuda_getCurrentRawStream = lambda device: 0
    _gpu_call.run(axpy, _call._Call(axpy, (x, y, 2.0), {}), 0, (x, y, 2.0), {})  # the plan, as for CUDA tensors
    whole = per_call_us(lambda: axpy(x, y, 2.0))
    print(f"torch eager gate (ptxpp._torch_eager.eager, 2 tensors + a scalar, grad mode on): {gate:.2f} us/call; "
          f"axpy(x, y, 2.0) on torch tensors through the gate and a plan: {whole:.2f} us/call "
          f"(- native: {whole - native:.2f} us/call)")


if __name__ == "__main__":
    main()
