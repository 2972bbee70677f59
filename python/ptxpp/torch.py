"""Loading ptxpp torch ops (libraries built with ptxpp_add_torch_ops in CMake)."""

import os

import torch

__all__ = ["load_library", "ops", "register_backward"]

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
    _loaded[real] = True
    return real


def ops(namespace):
    """The namespace of ops a loaded library defined: ops("my_ops").rmsnorm(x, w, 1e-5)."""
    return getattr(torch.ops, namespace)


def register_backward(op, backward):
    """Makes a ptxpp op differentiable by pairing it with a backward op.

    `backward(*grad_outputs, *tensor_inputs, *scalars)` must return the gradient of
    each tensor input of `op`, in order (one output per tensor input). Both are ops
    of loaded libraries (torch.ops.ns.name). Registered with
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

    def setup_context(ctx, inputs, output):
        ctx.save_for_backward(*inputs[:n_tensors])
        ctx.scalars = inputs[n_tensors:]

    def backward_fn(ctx, *grads):
        grads = grads[:n_outputs] if n_outputs > 1 else grads[:1]
        grads = [g.contiguous() for g in grads]
        result = backward(*grads, *ctx.saved_tensors, *ctx.scalars)
        result = result if isinstance(result, (tuple, list)) else (result,)
        if len(result) != n_tensors:
            raise RuntimeError(f"ptxpp.torch.register_backward: {name}: the backward op returned {len(result)} "
                               f"gradients for {n_tensors} tensor inputs")
        return (*result, *([None] * len(ctx.scalars)))

    torch.library.register_autograd(name, backward_fn, setup_context=setup_context)
