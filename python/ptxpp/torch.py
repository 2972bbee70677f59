"""Loading ptxpp torch ops (libraries built with ptxpp_add_torch_ops in CMake)."""

import ctypes
import os

import torch

__all__ = ["load_library", "ops", "register_backward", "cache_stats"]

_loaded = {}


def load_library(path):
    """Loads a library of ptxpp torch ops (once per path) and returns its path.

    The ops it defines appear under torch.ops.<namespace>.<name>; they run on CUDA
    tensors (the current stream), on CPU tensors (the ptxpp CPU emulator) and on
    meta/fake tensors (shapes only, for torch.compile).
    """
    real = os.path.realpath(os.fspath(path))
    if real in _loaded:
        return real
    if not os.path.isfile(real):
        raise FileNotFoundError(f"ptxpp.torch.load_library: no such library: {path}")
    torch.ops.load_library(real)
    _loaded[real] = ctypes.CDLL(real)  # the same library: for ptxpp_torch_cache_stats
    return real


def ops(namespace):
    """The namespace of ops a loaded library defined: ops("my_ops").rmsnorm(x, w, 1e-5)."""
    return getattr(torch.ops, namespace)


def register_backward(op, backward):
    """Makes a ptxpp op differentiable by pairing it with a backward op.

    `backward(*grad_outputs, *tensor_inputs, *scalars)` must return the gradient of
    each tensor input of `op`, in order (one output per tensor input). Both are ops
    of loaded libraries (torch.ops.ns.name); `backward` may also be a Python function.
    A backward op's schema is checked here (the tensors it takes and returns, its
    scalars: a TypeError), and each gradient's dtype and shape against its input's
    when it is computed (a RuntimeError naming both ops and the argument). Registered with
    torch.library.register_autograd, so it works in eager mode and under
    torch.compile; scalars get no gradient.
    """
    name = getattr(op, "_qualified_op_name", None)
    if name is None:
        raise TypeError(f"ptxpp.torch.register_backward: {op!r} is not a torch op (torch.ops.ns.name)")
    schema = op.default._schema
    kinds = ["tensor" if a.type.kind() == "TensorType" else "scalar" for a in schema.arguments]
    n_tensors = kinds.count("tensor")
    if kinds != sorted(kinds, key=lambda k: k != "tensor"):
        raise ValueError(f"ptxpp.torch.register_backward: {name}: tensors must come before scalars")
    n_outputs = len(schema.returns)
    if getattr(backward, "_qualified_op_name", None) is not None:
        # a backward op: its schema must fit (a Python function is taken as it is)
        bschema = backward.default._schema
        bname = backward._qualified_op_name
        btensors = [a for a in bschema.arguments if a.type.kind() == "TensorType"]
        bscalars = [(a.name, str(a.type)) for a in bschema.arguments if a.type.kind() != "TensorType"]
        if len(btensors) != n_outputs + n_tensors:
            raise TypeError(f"ptxpp.torch.register_backward({name}, {bname}): {bname} takes {len(btensors)} tensor(s); "
                            f"it must take {n_outputs + n_tensors}: the gradients of {name}'s {n_outputs} output(s), "
                            f"then its {n_tensors} tensor input(s)")
        if len(bschema.returns) != n_tensors:
            raise TypeError(f"ptxpp.torch.register_backward({name}, {bname}): {bname} returns {len(bschema.returns)} "
                            f"tensor(s); it must return {n_tensors}, the gradient of each tensor input of {name}")
        scalars = [(a.name, str(a.type)) for a in schema.arguments[n_tensors:]]
        if bscalars != scalars:
            raise TypeError(f"ptxpp.torch.register_backward({name}, {bname}): {bname} must take {name}'s scalars "
                            f"({', '.join(f'{t} {n}' for n, t in scalars) or 'none'}), not "
                            f"({', '.join(f'{t} {n}' for n, t in bscalars) or 'none'})")

    def setup_context(ctx, inputs, output):
        ctx.save_for_backward(*inputs[:n_tensors])
        ctx.scalars = inputs[n_tensors:]

    names = [a.name for a in schema.arguments[:n_tensors]]
    backward_name = getattr(backward, "_qualified_op_name", getattr(backward, "__name__", repr(backward)))

    def backward_fn(ctx, *grads):
        grads = grads[:n_outputs] if n_outputs > 1 else grads[:1]
        grads = [g.contiguous() for g in grads]
        inputs = ctx.saved_tensors
        result = backward(*grads, *inputs, *ctx.scalars)
        result = result if isinstance(result, (tuple, list)) else (result,)
        if len(result) != n_tensors:
            raise RuntimeError(f"ptxpp.torch.register_backward: {name}: the backward op returned {len(result)} "
                               f"gradients for {n_tensors} tensor inputs")
        # each result is the gradient of an input: its dtype and shape (torch's own
        # check would name neither op nor argument)
        for arg, x, g in zip(names, inputs, result):
            if g.dtype != x.dtype:
                raise RuntimeError(f"{name}: the backward op {backward_name} returned a {g.dtype} gradient for "
                                   f"'{arg}', a {x.dtype} tensor")
            if g.shape != x.shape:
                raise RuntimeError(f"{name}: the backward op {backward_name} returned a gradient of shape "
                                   f"{tuple(g.shape)} for '{arg}', of shape {tuple(x.shape)}")
        return (*result, *([None] * len(ctx.scalars)))

    torch.library.register_autograd(name, backward_fn, setup_context=setup_context)


def cache_stats(op):
    """(hits, misses) of the op's cache of bound kernels: a call on a device and with
    input shapes an earlier call had is a hit (no shape binding, no kernel lookup).
    (0, 0) for an op not yet called. `op`: torch.ops.ns.name of a loaded library."""
    name = getattr(op, "_qualified_op_name", None)
    if name is None:
        raise TypeError(f"ptxpp.torch.cache_stats: {op!r} is not a torch op (torch.ops.ns.name)")
    hits, misses = ctypes.c_uint64(), ctypes.c_uint64()
    for handle in _loaded.values():
        stats = getattr(handle, "ptxpp_torch_cache_stats", None)
        if stats is not None and stats(name.encode(), ctypes.byref(hits), ctypes.byref(misses)):
            return hits.value, misses.value
    return 0, 0
