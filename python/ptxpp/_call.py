"""Calling a kernel on arrays: binds the shape variables from the arguments' shapes (a
mismatch is an exception naming the argument), allocates missing outputs, and runs the
kernel: NumPy arrays, CPU torch tensors and CPU DLPack arrays on the CPU emulator (ptx::emu,
with its out-of-bounds and race checks); CUDA torch tensors, __cuda_array_interface__ and
CUDA DLPack arrays on their GPU (ptxpp._gpu_call)."""

import functools
import struct

import numpy as np

from . import _core, _gpu_plan
from ._kernel import Scalar, TensorMap, Tile

_NUMPY = {
    "f32": np.float32, "f64": np.float64, "f16": np.float16,
    "s8": np.int8, "s16": np.int16, "s32": np.int32, "s64": np.int64,
    "u8": np.uint8, "u16": np.uint16, "u32": np.uint32, "u64": np.uint64,
    "b8": np.uint8, "b16": np.uint16, "b32": np.uint32, "b64": np.uint64,
}


@functools.lru_cache(maxsize=None)
def numpy_dtype(dtype):
    """The NumPy dtype of a ptxpp type (bf16 needs the ml_dtypes package)."""
    if dtype.name in _NUMPY:
        return np.dtype(_NUMPY[dtype.name])
    if dtype.name == "bf16":
        try:
            import ml_dtypes
        except ImportError:
            raise TypeError("bf16 arrays need the ml_dtypes package (pip install ml_dtypes)") from None
        return np.dtype(ml_dtypes.bfloat16)
    raise TypeError(f"no NumPy array type for {dtype.name} tensors")


def _torch_tensor(x):
    t = type(x)
    return t.__module__.startswith("torch") and t.__name__ in ("Tensor", "Parameter")


def _is_array(a):
    t = type(a)
    return (t is np.ndarray or isinstance(a, np.ndarray) or _torch_tensor(a) or hasattr(t, "__cuda_array_interface__")
            or hasattr(t, "__dlpack__") or hasattr(a, "__cuda_array_interface__"))  # (last: an instance's attribute)


def _device_of(kernel, index, value):
    """None for an array in host memory, else the CUDA device's ordinal (errors name the argument)."""
    if isinstance(value, np.ndarray):
        return None
    if _torch_tensor(value):
        kind = value.device.type
        if kind == "cpu":
            return None
        if kind == "cuda":
            return value.device.index
        raise _core.Error(f"kernel {kernel.name}: argument '{kernel.arg_names[index]}' is on {value.device}; "
                          f"kernels run on CPU tensors (the emulator) and CUDA tensors (the GPU)")
    t = type(value)
    if hasattr(t, "__dlpack_device__"):
        kind, ordinal = value.__dlpack_device__()
        if int(kind) == 1:  # kDLCPU
            return None
        if int(kind) == 2:  # kDLCUDA
            return int(ordinal)
        raise _core.Error(f"kernel {kernel.name}: argument '{kernel.arg_names[index]}' is on DLPack device type "
                          f"{int(kind)}; kernels run on CPU (1) and CUDA (2) arrays")
    if hasattr(value, "__cuda_array_interface__"):
        return 0  # the interface names no device: GPU 0 (give __dlpack_device__ for another)
    raise TypeError(f"kernel {kernel.name}: argument '{kernel.arg_names[index]}' is a {t.__name__} with "
                    f"__dlpack__ but no __dlpack_device__")


def _where(ordinal):
    return "in host memory" if ordinal is None else f"on CUDA device {ordinal}"


def _one_device(kernel, given, arrays):
    """The CUDA device all array arguments are on, or None when all are in host memory; else an error."""
    first = None
    for i, a in zip(given, arrays):
        d = _device_of(kernel, i, a)
        if first is None:
            first = (i, d)
        elif d != first[1]:
            raise _core.Error(f"kernel {kernel.name}: argument '{kernel.arg_names[i]}' is {_where(d)}, but "
                              f"'{kernel.arg_names[first[0]]}' is {_where(first[1])}: give all arrays on one device")
    return None if first is None else first[1]


class _Arg:
    """One array argument as the emulator gets it: a C-contiguous NumPy array, and the object to return."""

    def __init__(self, kernel, index, value):
        self.name = kernel.arg_names[index]
        self.result = value
        if _torch_tensor(value):
            self.dtype_name = str(value.dtype).replace("torch.", "")
            t = value.detach()
            if not t.is_contiguous():
                raise ValueError(f"kernel {kernel.name}: argument '{self.name}' is not contiguous")
            if str(t.dtype) == "torch.bfloat16":  # NumPy has no bf16: the bits, checked as bf16 above
                import torch
                self.array, self.np_dtype = t.view(torch.int16).numpy(), None
            else:
                self.array = t.numpy()
                self.np_dtype = self.array.dtype
            self.shape = tuple(t.shape)
        elif isinstance(value, np.ndarray) or hasattr(type(value), "__dlpack__"):
            if not isinstance(value, np.ndarray):  # a host DLPack array: NumPy's view of its memory
                value = np.from_dlpack(value)
            self.array, self.shape, self.np_dtype = value, value.shape, value.dtype
            self.dtype_name = value.dtype.name
        else:
            raise TypeError(f"kernel {kernel.name}: argument '{self.name}' must be an array (NumPy, torch), "
                            f"not {type(value).__name__}")

    @classmethod
    def described(cls, kernel, index, shape, dtype):
        """An argument known only by its shape and NumPy dtype (a JAX array under jit)."""
        arg = cls.__new__(cls)
        arg.name, arg.result, arg.array = kernel.arg_names[index], None, None
        arg.shape, arg.np_dtype, arg.dtype_name = tuple(shape), np.dtype(dtype), np.dtype(dtype).name
        return arg

    def check_dtype(self, kernel, spec):
        if self.np_dtype is None:  # torch bf16
            ok = spec.dtype.name == "bf16"
        else:
            ok = self.np_dtype == numpy_dtype(spec.dtype)
        if not ok:
            raise TypeError(f"kernel {kernel.name}: argument '{self.name}' must be a {spec.dtype.name} array, "
                            f"not {self.dtype_name}")


def _bind(kernel, specs_args, bindings):
    """Binds shape variables from the arrays (checking ranks, static dimensions, agreement)."""
    bound_by = {k: "a keyword argument" for k in bindings}
    for spec, arg in specs_args:
        arg.check_dtype(kernel, spec)
        if len(arg.shape) != len(spec.shape):
            raise ValueError(f"kernel {kernel.name}: argument '{arg.name}' must have {len(spec.shape)} dimension(s) "
                             f"({spec!r}), not {len(arg.shape)}")
        for d, (want, size) in enumerate(zip(spec.shape, arg.shape)):
            where = f"dimension {d} of '{arg.name}'"
            if isinstance(want, int):
                if size != want:
                    raise ValueError(f"kernel {kernel.name}: {where} must be {want}, not {size}")
            elif want not in bindings:
                bindings[want], bound_by[want] = size, where
            elif bindings[want] != size:
                raise ValueError(f"kernel {kernel.name}: {where} is {size}, but {want} is {bindings[want]} "
                                 f"({bound_by[want]})")


@functools.lru_cache(maxsize=None)
def _scalar_layout(dtype):
    """How a scalar of a ptxpp type becomes bytes: ("bf16",), ("float", struct format, NumPy dtype),
    or ("int", bytes, signed, min, max)."""
    if dtype.name == "bf16":
        return ("bf16",)
    dt = numpy_dtype(dtype)
    if np.issubdtype(dt, np.integer):
        info = np.iinfo(dt)
        return ("int", dt.itemsize, info.min < 0, int(info.min), int(info.max))
    return ("float", {2: "<e", 4: "<f", 8: "<d"}[dt.itemsize], dt)


def _scalar_bytes(kernel, spec, name, value):
    if isinstance(value, bool) or not isinstance(value, (int, float, np.integer, np.floating)):
        raise TypeError(f"kernel {kernel.name}: scalar '{name}' must be a number, not {type(value).__name__}")
    layout = _scalar_layout(spec.dtype)
    if layout[0] == "float":
        try:
            return struct.pack(layout[1], value)  # round to nearest, as NumPy
        except OverflowError:  # NumPy's result: infinity
            return np.array(value, dtype=layout[2]).tobytes()
    if layout[0] == "bf16":
        bits = np.array(value, dtype=np.float32).view(np.uint32)
        rounded = (bits + 0x7FFF + ((bits >> 16) & 1)) >> 16
        return np.uint16(rounded).tobytes()
    _, size, signed, low, high = layout
    if isinstance(value, (float, np.floating)):
        raise TypeError(f"kernel {kernel.name}: scalar '{name}' is a {spec.dtype.name}: give an integer, not {value!r}")
    if not low <= int(value) <= high:
        raise ValueError(f"kernel {kernel.name}: scalar '{name}': {value} does not fit a {spec.dtype.name}")
    return int(value).to_bytes(size, "little", signed=signed)


def _array_param(p):
    """A parameter given as an array: a tensor, or a tensor map that describes its array."""
    return isinstance(p, Tile) or (isinstance(p, TensorMap) and p.launchable())


def _layout(kernel):
    """The indices of the kernel's array parameters, its inputs among them, and its scalars (kept on the kernel)."""
    layout = kernel.__dict__.get("_call_layout")
    if layout is None:
        tensor_idx = [i for i, p in enumerate(kernel.params) if _array_param(p)]
        layout = (tensor_idx, [i for i in tensor_idx if not kernel.outputs[i]],
                  [i for i, p in enumerate(kernel.params) if isinstance(p, Scalar)])
        kernel._call_layout = layout
    return layout


class _Call:
    """One call's arguments sorted out: which parameters the arrays are given for, the scalars,
    the bindings (from keywords), template parameters and arch."""

    def __init__(self, kernel, args, kwargs):
        if any(isinstance(p, TensorMap) and not p.launchable() for p in kernel.params):
            raise TypeError(f"kernel {kernel.name} takes a tensor map with no array description: give it one "
                            f"(TensorMap(name, dims..., dtype, box=...)) to launch it from Python")
        kwargs = dict(kwargs)
        self.tensor_idx, input_idx, scalar_idx = _layout(kernel)
        is_array = [_is_array(a) for a in args]
        self.array_pos = [p for p, array in enumerate(is_array) if array]  # where each came from (a plan reads them there)
        number_pos = [p for p, array in enumerate(is_array) if not array]
        self.arrays = [args[p] for p in self.array_pos]
        numbers = [args[p] for p in number_pos]
        if len(self.arrays) == len(self.tensor_idx):
            self.given = self.tensor_idx
        elif len(self.arrays) == len(input_idx):
            self.given = input_idx
        else:
            raise TypeError(f"kernel {kernel.name} takes {len(input_idx)} input array(s) (and optionally "
                            f"{len(self.tensor_idx) - len(input_idx)} output(s)), not {len(self.arrays)}")
        if len(numbers) > len(scalar_idx):
            raise TypeError(f"kernel {kernel.name} takes {len(scalar_idx)} scalar(s), not {len(numbers)}")
        self.scalars = dict(zip(scalar_idx, numbers))
        self.scalar_from = dict(zip(scalar_idx, number_pos))  # a position in args, or a keyword's name
        for i in scalar_idx:
            name = kernel.params[i].name
            if name in kwargs:
                if i in self.scalars:
                    raise TypeError(f"kernel {kernel.name}: scalar '{name}' given twice")
                self.scalars[i], self.scalar_from[i] = kwargs.pop(name), name
            elif i not in self.scalars:
                raise TypeError(f"kernel {kernel.name}: scalar '{name}' is missing")
        self.bindings, self.template, self.arch = kernel._split(kwargs)

    def output_shape(self, kernel, i):
        """The shape of output i, from the bindings (an error when the inputs bind too little)."""
        spec = kernel.params[i]
        unbound = [d for d in spec.shape if isinstance(d, str) and d not in self.bindings]
        if unbound:
            raise TypeError(f"kernel {kernel.name}: output '{kernel.arg_names[i]}' cannot be allocated: "
                            f"{', '.join(unbound)} is bound by no input (pass it as a keyword, or pass the output)")
        return tuple(self.bindings[d] if isinstance(d, str) else d for d in spec.shape)


def call(kernel, args, kwargs):
    if kernel._gpu_plans:  # a call on CUDA arrays like an earlier one (from the torch op): its plan (ptxpp._gpu_plan)
        result = _gpu_plan.call(kernel, args, kwargs)
        if result is not None:
            return result
    c = _Call(kernel, args, kwargs)
    ordinal = _one_device(kernel, c.given, c.arrays)
    if ordinal is not None:
        from . import _gpu_call
        return _gpu_call.run(kernel, c, ordinal, args, kwargs)
    return _run_cpu(kernel, c)


def _run_cpu(kernel, c):
    values = {}
    for i, a in zip(c.given, c.arrays):
        values[i] = _Arg(kernel, i, a)
    bindings = c.bindings
    _bind(kernel, [(kernel.params[i], values[i]) for i in c.given], bindings)
    outputs = []
    for i in c.tensor_idx:
        if i in values:
            if kernel.outputs[i]:
                outputs.append(values[i].result)
            continue
        like = next((values[j].result for j in c.given), None)
        out = _allocate(like, kernel.params[i].dtype, c.output_shape(kernel, i))
        values[i] = _Arg(kernel, i, out)
        outputs.append(out)
    run_args = []
    for i, p in enumerate(kernel.params):
        if isinstance(p, Scalar):
            run_args.append(_scalar_bytes(kernel, p, p.name, c.scalars[i]))
        else:
            a = values[i]
            array = a.array
            if not array.flags.c_contiguous:
                if kernel.outputs[i]:
                    raise ValueError(f"kernel {kernel.name}: output '{a.name}' must be C-contiguous")
                array = np.ascontiguousarray(array)  # an input: read from a copy
            back = array is a.array and bool(array.flags.writeable)
            if array.dtype.name == "bfloat16":  # ml_dtypes' type, which nanobind does not take: its bits
                array = array.view(np.uint16)
            if isinstance(p, TensorMap):
                run_args.append((array, back, list(array.shape), list(p.box), p.dtype, p.swizzle))
            else:
                run_args.append((array, back))
    _, traced = kernel._trace(bindings, c.template, c.arch)
    _core.run_cpu(traced, run_args)
    return outputs[0] if len(outputs) == 1 else tuple(outputs)


def _allocate(like, dtype, shape):
    if like is not None and _torch_tensor(like):
        import torch
        names = {"f32": torch.float32, "f64": torch.float64, "f16": torch.float16, "bf16": torch.bfloat16,
                 "s8": torch.int8, "s16": torch.int16, "s32": torch.int32, "s64": torch.int64, "u8": torch.uint8}
        if dtype.name not in names:
            raise TypeError(f"no torch dtype for {dtype.name}")
        return torch.zeros(shape, dtype=names[dtype.name])
    return np.zeros(shape, dtype=numpy_dtype(dtype))
