"""The repeated call on CUDA arrays, made cheap: after a call passed every check of the full path
(ptxpp._call, ptxpp._gpu_call), its plan (bound GpuKernel, where each pointer and scalar goes,
how each scalar is packed, the outputs to allocate, where the stream comes from) is kept per
kernel under the call's signature. A later call with the same signature reads only the
arrays' addresses (and stream), packs the scalars and launches.

The signature holds every fact a check of the full path reads: the arguments' types, each
array's shape, dtype, device, strides (contiguity) and read-only flag, the scalars' types, the
keywords (shape variables, template parameters and arch by type and value; scalars by type).
So a call whose signature differs takes the full path, which raises the named error or stores
a new plan; anything the signature cannot hold (a scalar's range, an unhashable value) makes
the fast path give up before the launch and the full path decide."""

import struct

MISS = object()  # no plan for this call: take the full path
_MAX_PLANS = 1024  # per kernel: a workload of ever new shapes does not grow the cache without bound


def _read_cai(a):
    """(facts, address, stream) of a __cuda_array_interface__ array; facts as _gpu_call._GpuArg checks them."""
    cai = a.__cuda_array_interface__
    data = cai["data"]
    return (tuple(cai["shape"]), cai["typestr"], cai.get("strides"), bool(data[1])), int(data[0]), cai.get("stream")


def _read_cai_dlpack_device(a):
    """As _read_cai, for a type that also names its device by __dlpack_device__ (which _call._device_of reads)."""
    facts, ptr, stream = _read_cai(a)
    return facts + (tuple(a.__dlpack_device__()),), ptr, stream


def _read_torch(t):
    """A torch tensor: its contiguity is a fact (a non-contiguous input is copied by the full path: no plan)."""
    device = t.device
    return (t.dtype, tuple(t.shape), device.type, device.index, t.is_contiguous()), t.data_ptr(), None


def _read_dlpack(a):
    from . import _core
    ptr, shape, strides, dtype, _ = _core.dlpack_cuda(a)
    return (shape, strides, dtype, tuple(a.__dlpack_device__())), ptr, None


def reader_for(value, torch_tensor):
    """How to read an array of value's type, in the order _gpu_call._GpuArg and _call._device_of look."""
    if torch_tensor:
        return _read_torch
    if hasattr(value, "__cuda_array_interface__"):
        return _read_cai_dlpack_device if hasattr(type(value), "__dlpack_device__") else _read_cai
    return _read_dlpack


_INT_FORMATS = {(1, True): "<b", (1, False): "<B", (2, True): "<h", (2, False): "<H", (4, True): "<i",
                (4, False): "<I", (8, True): "<q", (8, False): "<Q"}


def packer_for(layout, full):
    """A scalar's packing as bytes from _call._scalar_layout(dtype): struct's, which raises on a value
    out of range (the full path, `full`, then names it); bf16 through `full` itself."""
    if layout[0] == "float":
        return struct.Struct(layout[1]).pack
    if layout[0] == "int":
        return struct.Struct(_INT_FORMATS[layout[1], layout[2]]).pack
    return full


def keyword_key(scalar_names, kwargs):
    """The keywords' part of the signature: scalars by type, the rest by type and value (1, 1.0 and True are equal keys)."""
    return tuple((k, type(v)) if k in scalar_names else (k, type(v), v) for k, v in kwargs.items())


class Signature:
    """The plans of calls whose arguments have the same types and whose keywords agree: how to read
    their arrays, and a plan per tuple of the arrays' facts."""

    def __init__(self, readers):
        self.readers = readers  # (position in args, reader) per array argument
        self.plans = {}

    def run(self, args, kwargs):
        try:
            read = [reader(args[pos]) for pos, reader in self.readers]
            plan = self.plans.get(tuple([r[0] for r in read]))
            if plan is None:
                return MISS
            launch_args, stream, outputs = plan.arguments(args, kwargs, read)
        except Exception:  # noqa: BLE001 - the full path checks again and names the error
            return MISS
        plan.bound.launch(launch_args, stream)
        return outputs


class Plan:
    """One signature's launch: the bound kernel, the parameter slots, the scalars' packing, the outputs to allocate."""

    def __init__(self, bound, n_params, array_params, scalars, allocations, output_slots, stream_of, first_pos):
        self.bound, self.n_params, self.first_pos = bound, n_params, first_pos  # first_pos: the first array's position
        self.array_params = array_params  # parameter index per array argument (in args order)
        self.scalars = scalars  # (parameter index, position in args or keyword name, pack)
        self.allocations = allocations  # (parameter index, allocate(first array) -> output, reader)
        self.output_slots = output_slots  # per output: ("arg", position in args) or ("new", allocation index)
        self.stream_of = stream_of  # (read arrays) -> CUstream

    def arguments(self, args, kwargs, read):
        launch_args = [None] * self.n_params
        for i, r in zip(self.array_params, read):
            launch_args[i] = r[1]
        for i, where, pack in self.scalars:
            launch_args[i] = pack(kwargs[where] if isinstance(where, str) else args[where])
        stream = self.stream_of(read)
        made = []
        if self.allocations:
            first = args[self.first_pos]
            for i, allocate, reader in self.allocations:
                out = allocate(first)
                launch_args[i] = reader(out)[1]
                made.append(out)
        outputs = [args[where] if kind == "arg" else made[where] for kind, where in self.output_slots]
        return launch_args, stream, (outputs[0] if len(outputs) == 1 else tuple(outputs))


def store(kernel, key, readers, facts, plan):
    signatures = kernel._gpu_plans
    if len(signatures) >= _MAX_PLANS or sum(len(s.plans) for s in signatures.values()) >= _MAX_PLANS:
        signatures.clear()
    signature = signatures.get(key)
    if signature is None:
        signature = signatures[key] = Signature(readers)
    signature.plans[facts] = plan


def call(kernel, args, kwargs):
    """The result of a call whose signature a plan has, else MISS."""
    try:
        signature = kernel._gpu_plans.get((tuple(map(type, args)), keyword_key(kernel._scalar_names, kwargs)
                                           if kwargs else ()))
    except TypeError:  # an unhashable keyword value
        return MISS
    return MISS if signature is None else signature.run(args, kwargs)
