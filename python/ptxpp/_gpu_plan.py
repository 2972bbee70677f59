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
the fast path give up before the launch and the full path decide. The hot path is C++
(python/src/gpu_plan.cpp: PlanSignature.run); here the signature's key and the plans' storing."""

from . import _core

_MAX_PLANS = 1024  # per kernel: a workload of ever new shapes does not grow the cache without bound


def reader_for(value, torch_tensor):
    """How to read an array of value's type, in the order _gpu_call._GpuArg and _call._device_of look."""
    if torch_tensor:
        return _core.PlanReader.Torch
    if hasattr(value, "__cuda_array_interface__"):
        if hasattr(type(value), "__dlpack_device__"):  # the device it names is a fact
            return _core.PlanReader.InterfaceDlpackDevice
        return _core.PlanReader.Interface
    return _core.PlanReader.Dlpack


_FLOAT_PACKS = {"<e": _core.PlanPack.F16, "<f": _core.PlanPack.F32, "<d": _core.PlanPack.F64}


def packing(layout, full):
    """(how, bytes, python) of a scalar from _call._scalar_layout(dtype): struct's packing in C++ (a value
    out of range is a miss: the full path, `full`, names it); bf16 through `full` itself."""
    if layout[0] == "float":
        return _FLOAT_PACKS[layout[1]], {"<e": 2, "<f": 4, "<d": 8}[layout[1]], None
    if layout[0] == "int":
        return (_core.PlanPack.Signed if layout[2] else _core.PlanPack.Unsigned), layout[1], None
    return _core.PlanPack.Python, 2, full


def signature_key(kernel, args, kwargs):
    """(the arguments' types, the keywords: scalars by type, the rest by type and value): as plan_call computes it."""
    return _core.plan_key(kernel._scalar_names, args, kwargs)


def store(kernel, key, readers, args, plan):
    """Keeps `plan` for calls with this signature and the facts of args' arrays (as the hot path reads them)."""
    signatures = kernel._gpu_plans
    if len(signatures) >= _MAX_PLANS or sum(len(s.plans) for s in signatures.values()) >= _MAX_PLANS:
        signatures.clear()
    signature = signatures.get(key) or _core.PlanSignature(readers)
    facts = signature.facts(args)
    if facts is None:  # unreadable: every such call takes the full path
        return
    try:
        signature.plans[facts] = plan
    except TypeError:  # an unhashable fact (a producer's list of strides)
        return
    signatures[key] = signature


def call(kernel, args, kwargs):
    """The result of a call whose signature has a plan (after its launch), else None."""
    return _core.plan_call(kernel._gpu_plans, kernel._scalar_names, args, kwargs)
