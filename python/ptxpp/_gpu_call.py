"""Calling a kernel on CUDA arrays: torch CUDA tensors, objects with __cuda_array_interface__
(CuPy, Numba) and CUDA DLPack arrays. The shapes and dtypes are checked as for the emulator
(ptxpp._call), missing outputs are allocated on the same device (torch, CuPy), and the kernel
is launched through a ptxpp._core.GpuKernel bound once per (template, bindings, arch, GPU):
on torch's current stream for torch tensors, the interface's stream for __cuda_array_interface__,
else the default stream. Nothing here synchronizes with the host."""

import functools

import numpy as np

from . import _call, _core, _gpu_plan
from ._kernel import Scalar, TensorMap

_DLPACK_KINDS = {0: "int", 1: "uint", 2: "float"}  # kDLInt, kDLUInt, kDLFloat (kDLBfloat = 4)


def _numpy_dtype(torch_name):
    """NumPy's dtype of a torch dtype's name (torch names its types as NumPy does: float32, int8, bool, ...);
    a type NumPy lacks (float8_e4m3fn, ...) is void, which no ptxpp array type matches."""
    try:
        return np.dtype(torch_name)
    except TypeError:
        return np.dtype(np.void)


def _c_strides(shape, itemsize):
    strides, step = [], itemsize
    for n in reversed(shape):
        strides.append(step)
        step *= n
    return tuple(reversed(strides))


def _contiguous(shape, strides, itemsize):
    """Row-major and packed (dimensions of size 1 may have any stride)."""
    return strides is None or all(n == 1 or s == w for n, s, w in zip(shape, strides, _c_strides(shape, itemsize)))


class _GpuArg:
    """One CUDA array argument: its address, shape and dtype (checked by _call._Arg's rules), the object to return."""

    check_dtype = _call._Arg.check_dtype
    stream = None  # the stream the array's producer named (__cuda_array_interface__ v3)
    _dtype_name = None  # torch's name of the type (else NumPy's, when an error needs it)

    @property
    def dtype_name(self):
        return self._dtype_name or self.np_dtype.name

    def __init__(self, kernel, index, value):
        self.name, self.result, self.readonly = kernel.arg_names[index], value, False
        output = kernel.outputs[index]
        if _call._torch_tensor(value):
            self._torch(kernel, value, output)
        elif hasattr(value, "__cuda_array_interface__"):
            self._interface(kernel, value.__cuda_array_interface__)
        else:
            self._dlpack(kernel, value)
        if self.readonly and output:
            raise ValueError(f"kernel {kernel.name}: output '{self.name}' is read-only")
        if not self.contiguous:
            raise ValueError(f"kernel {kernel.name}: {'output' if output else 'argument'} '{self.name}' "
                             f"is not contiguous")

    def _torch(self, kernel, t, output):
        self._dtype_name = str(t.dtype).replace("torch.", "")
        self.np_dtype = None if self._dtype_name == "bfloat16" else _numpy_dtype(self._dtype_name)
        self.shape = tuple(t.shape)
        self.copied = not output and not t.is_contiguous()
        if self.copied:
            t = t.contiguous()  # an input: read from a copy (on the current stream)
        self.keep, self.contiguous, self.ptr = t, t.is_contiguous(), t.data_ptr()

    def _interface(self, kernel, cai):
        try:
            self.np_dtype = np.dtype(cai["typestr"])
        except TypeError:
            raise TypeError(f"kernel {kernel.name}: argument '{self.name}' has array type "
                            f"{cai['typestr']!r}, which NumPy does not know") from None
        self.shape = tuple(cai["shape"])
        self.ptr, self.readonly = int(cai["data"][0]), bool(cai["data"][1])
        self.contiguous = _contiguous(self.shape, cai.get("strides"), self.np_dtype.itemsize)
        stream = cai.get("stream")
        self.stream = None if stream is None else int(stream)

    def _dlpack(self, kernel, value):
        self.ptr, self.shape, strides, (code, bits, lanes), _ = _core.dlpack_cuda(value)
        if lanes != 1 or (code not in _DLPACK_KINDS and not (code == 4 and bits == 16)):
            raise TypeError(f"kernel {kernel.name}: argument '{self.name}' has DLPack type code {code}, "
                            f"{bits} bits, {lanes} lanes: no ptxpp type")
        self.np_dtype = None if code == 4 else np.dtype(f"{_DLPACK_KINDS[code]}{bits}")
        self._dtype_name = "bfloat16" if code == 4 else None
        self.contiguous = _contiguous(self.shape, strides, 1)  # strides in elements


def torch_stream_reader():
    """A function of a GPU ordinal giving torch's current stream there as an int:
    torch._C._cuda_getCurrentRawStream where CUDA torch has it (what inductor's generated code
    calls: no torch.cuda.Stream object is made, about a microsecond less a call), else
    torch.cuda.current_stream(ordinal).cuda_stream."""
    import torch
    raw = getattr(getattr(torch, "_C", None), "_cuda_getCurrentRawStream", None)
    if raw is not None:
        return raw
    return lambda ordinal: torch.cuda.current_stream(ordinal).cuda_stream


def _stream_of(arg, ordinal):
    if _call._torch_tensor(arg.result):
        return torch_stream_reader()(ordinal)
    return arg.stream or 0


def _allocate(kernel, i, like, shape, ordinal):
    """An output on the inputs' device: torch.empty for torch tensors, cupy.empty for CuPy arrays."""
    dtype = kernel.params[i].dtype
    module = type(like).__module__ if like is not None else ""
    if _call._torch_tensor(like):
        import torch
        from ._torch_op import _TORCH
        return torch.empty(shape, dtype=_TORCH[dtype.name], device=like.device)
    if module.startswith("cupy"):
        import cupy
        with cupy.cuda.Device(ordinal):
            return cupy.empty(shape, dtype=_call.numpy_dtype(dtype))
    raise TypeError(f"kernel {kernel.name}: output '{kernel.arg_names[i]}' cannot be allocated for "
                    f"{type(like).__name__} arrays: pass it")


def _bound(kernel, c, ordinal):
    """The kernel traced for the call's bindings and loaded on GPU `ordinal`: bound once, then cached."""
    try:
        key = (tuple(sorted(c.template.items())), tuple(sorted(c.bindings.items())), c.arch, ordinal)
        g = kernel._gpu_kernels.get(key)
    except TypeError:  # unhashable template parameters: _trace names them
        key, g = None, None
    if g is None:
        k, traced = kernel._trace(c.bindings, c.template, c.arch)
        maps = {i: (list(c.output_shape(kernel, i)), list(p.box), p.dtype, p.swizzle)
                for i, p in enumerate(kernel.params) if isinstance(p, TensorMap)}
        # A kernel of a ptxpp.Module (k None) runs in its module's trace, as on the emulator.
        g = _core.bind_gpu(traced if k is None else k, c.bindings, ordinal, maps)
        if key is not None:
            kernel._gpu_kernels[key] = g
    return g


def run(kernel, c, ordinal, args=None, kwargs=None):
    """Checks and launches the call `c` (from args, kwargs): then keeps its plan for calls like it (ptxpp._gpu_plan)."""
    values = {i: _GpuArg(kernel, i, a) for i, a in zip(c.given, c.arrays)}
    _call._bind(kernel, [(kernel.params[i], values[i]) for i in c.given], c.bindings)
    first = values[c.given[0]]
    outputs = []
    for i in c.tensor_idx:
        if i not in values:
            values[i] = _GpuArg(kernel, i, _allocate(kernel, i, first.result, c.output_shape(kernel, i), ordinal))
        if kernel.outputs[i]:
            outputs.append(values[i].result)
    launch_args = [_call._scalar_bytes(kernel, p, p.name, c.scalars[i]) if isinstance(p, Scalar) else values[i].ptr
                   for i, p in enumerate(kernel.params)]
    bound = _bound(kernel, c, ordinal)
    bound.launch(launch_args, _stream_of(first, ordinal))
    if args is not None:
        _remember(kernel, c, ordinal, args, kwargs, values, bound)
    return outputs[0] if len(outputs) == 1 else tuple(outputs)


def _remember(kernel, c, ordinal, args, kwargs, values, bound):
    """Keeps the plan of this call, which passed every check, under its signature (no plan when an input was copied)."""
    if any(getattr(values[i], "copied", False) for i in c.given):
        return
    try:
        key = _gpu_plan.signature_key(kernel, args, kwargs)
        hash(key)
    except TypeError:  # an unhashable keyword value: every such call takes the full path
        return
    readers = [(pos, _gpu_plan.reader_for(a, _call._torch_tensor(a))) for pos, a in zip(c.array_pos, c.arrays)]
    _gpu_plan.store(kernel, key, readers, args, _plan(kernel, c, ordinal, values, bound))


def _plan(kernel, c, ordinal, values, bound):
    scalars = [(i, c.scalar_from[i]) + _gpu_plan.packing(_call._scalar_layout(p.dtype),
                                                         functools.partial(_call._scalar_bytes, kernel, p, p.name))
               for i, p in enumerate(kernel.params) if isinstance(p, Scalar)]
    allocations, outputs = [], []
    for i in c.tensor_idx:
        if i not in c.given:
            out, shape = values[i].result, c.output_shape(kernel, i)
            allocate = functools.partial(_allocate, kernel, i, shape=shape, ordinal=ordinal)  # (like)
            allocations.append((i, allocate, _gpu_plan.reader_for(out, _call._torch_tensor(out))))
        if kernel.outputs[i]:
            outputs.append((False, c.array_pos[c.given.index(i)]) if i in c.given else (True, len(allocations) - 1))
    stream_of = None  # the first array's __cuda_array_interface__ stream, as _stream_of
    if _call._torch_tensor(values[c.given[0]].result):
        stream_of = functools.partial(torch_stream_reader(), ordinal)  # torch's current stream, at each call
    return _core.Plan(bound, list(c.given), scalars, allocations, outputs, stream_of, c.array_pos[0])
