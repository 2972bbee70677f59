"""Kernels called on torch tensors go through a torch custom op (torch.library), one per
kernel and set of template parameters, so that torch.compile(fullgraph=True) sees one
opaque node: its fake implementation gives the outputs' shapes and dtypes from the
inputs', its CPU implementation runs the kernel on the emulator (ptxpp._call), and its CUDA
implementation launches it on the tensors' GPU on torch's current stream (ptxpp._gpu_call: no
host synchronization, no allocation but torch.empty of the outputs), which CUDA graph capture
records once the kernel has been called outside the capture (binding loads a module)."""

import itertools
import threading

import torch

from . import _call
from ._kernel import Scalar

_lib = torch.library.Library("ptxpp", "FRAGMENT")
_lock = threading.Lock()
_serial = itertools.count()

_TORCH = {"f32": torch.float32, "f64": torch.float64, "f16": torch.float16, "bf16": torch.bfloat16,
          "s8": torch.int8, "s16": torch.int16, "s32": torch.int32, "s64": torch.int64, "u8": torch.uint8}


def _schema(kernel, name):
    args = []
    for i, p in enumerate(kernel.params):
        if isinstance(p, Scalar):
            args.append(f"{'float' if p.dtype.name.startswith(('f', 'bf')) else 'int'} s{i}")
        elif not kernel.outputs[i]:
            args.append(f"Tensor t{i}")
    outs = sum(kernel.outputs)
    ret = "Tensor" if outs == 1 else "(" + ", ".join(["Tensor"] * outs) + ")"
    return f"{name}({', '.join(args)}) -> {ret}"


def _output_shapes(kernel, tensors, bindings):
    bindings = dict(bindings)
    inputs = [i for i, p in enumerate(kernel.params) if _call._array_param(p) and not kernel.outputs[i]]
    for i, t in zip(inputs, tensors):
        for d, size in zip(kernel.params[i].shape, t.shape):
            if isinstance(d, str):
                bindings.setdefault(d, size)
    shapes = []
    for i, p in enumerate(kernel.params):
        if kernel.outputs[i]:
            shapes.append((tuple(bindings[d] if isinstance(d, str) else d for d in p.shape), _TORCH[p.dtype.name]))
    return shapes


def _make_op(kernel, bindings, template, arch):
    name = f"{kernel.name}_{next(_serial)}"
    _lib.define(_schema(kernel, name))
    keywords = dict(template, **bindings)
    if arch is not None:
        keywords["arch"] = arch

    def run(*args):  # CPU tensors on the emulator, CUDA tensors on their GPU (_call.call sorts them)
        return _call.call(kernel, args, keywords)

    def fake(*args):
        tensors = [a for a in args if isinstance(a, torch.Tensor)]
        outs = [torch.empty(s, dtype=dt, device=tensors[0].device if tensors else "cpu")
                for s, dt in _output_shapes(kernel, tensors, bindings)]
        return outs[0] if len(outs) == 1 else tuple(outs)

    _lib.impl(name, run, "CPU")
    _lib.impl(name, run, "CUDA")
    torch.library.register_fake(f"ptxpp::{name}", fake, lib=_lib)
    return getattr(torch.ops.ptxpp, name)


def call(kernel, args, kwargs):
    """k(tensors..., scalars...) through the kernel's custom op, which allocates the outputs.
    Outputs given by the caller are written in place by the eager path instead (not an op)."""
    arrays = [a for a in args if isinstance(a, torch.Tensor)]
    numbers = iter(a for a in args if not isinstance(a, torch.Tensor))
    inputs = iter(arrays)
    rest = dict(kwargs)  # without the scalars
    op_args = []
    for i, p in enumerate(kernel.params):
        if isinstance(p, Scalar):
            op_args.append(rest.pop(p.name) if p.name in rest else next(numbers, None))
        elif not kernel.outputs[i]:
            op_args.append(next(inputs, None))
    if len(arrays) != len(_call._layout(kernel)[1]) or any(a is None for a in op_args) \
            or next(numbers, None) is not None:
        return _call.call(kernel, args, kwargs)  # outputs given, or a mistake the eager path names
    op = (kernel._torch_op_plain or plain_op(kernel)) if not rest else _op_for(kernel, rest)
    return op(*op_args)


def plain_op(kernel):
    """The op of calls without keywords, found (or made) once. ptxpp.kernel makes it when the kernel
    is made, if torch is imported by then, and again when its default arch changes: dynamo
    (torch.compile) cannot trace making an op, so a kernel's first call inside a compiled function
    needs it made already."""
    if kernel._torch_op_plain is None:
        kernel._torch_op_plain = _op_for(kernel, {})
    return kernel._torch_op_plain


def _op_for(kernel, rest):
    bindings, template, arch = kernel._split(dict(rest))
    key = (tuple(sorted(template.items())), tuple(sorted(bindings.items())), arch)
    op = kernel._torch_ops.get(key)
    if op is None:
        with _lock:
            op = kernel._torch_ops.get(key) or _make_op(kernel, bindings, template, arch)
            kernel._torch_ops[key] = op
    return op
