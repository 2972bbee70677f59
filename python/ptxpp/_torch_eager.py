"""Eager calls on torch CUDA tensors skip the kernel's torch op when nothing would see it: no
torch.compile/export trace, no TorchDispatchMode (FakeTensorMode, make_fx, functionalization)
or TorchFunctionMode, no torch.func transform (vmap, grad), no torch.jit trace, only plain
tensors (torch.Tensor, nn.Parameter: no FakeTensor or other subclass), and nothing autograd
would record (an input requiring grad under grad mode, a forward-AD dual level: the op is what
such calls get). Such a call takes the kernel's plan (ptxpp._gpu_plan), else the full CUDA
path (ptxpp._call), which checks it, launches on torch.cuda.current_stream (the capture stream
during CUDA graph capture) and keeps its plan. Anything else, CPU and meta tensors included, goes through the op
(ptxpp._torch_op), as before."""

import torch

from . import _call, _core

# Bound once (the gate runs on every call; bench/python_dispatch.py times it): is_compiling here, the
# rest in C++ (_core.TorchGate: torch's callables called from there cost a fraction of a Python call).
_compiling = torch.compiler.is_compiling
_gate = _core.TorchGate(
    torch._C._is_torch_function_mode_enabled,
    torch._C._len_torch_dispatch_stack,  # user modes and infra modes (fake, proxy, functional)
    torch._C._functorch.peek_interpreter_stack,  # vmap, grad, jvp: None outside them
    torch._C._is_tracing,
    torch._C.is_grad_enabled,
    torch.autograd.forward_ad,  # its _current_level is -1 outside a dual_level(): dual tensors are plain ones
    torch.Tensor, torch.nn.Parameter)  # plain tensors; any other subclass (FakeTensor, DTensor, ...) is not
_Tensor = torch.Tensor


def eager(args):
    """Whether a call on these arguments may bypass the torch op (on any device: the caller checks it):
    no function or dispatch mode, functorch transform or jit trace, forward-AD level, plain tensors
    only (torch.Tensor, nn.Parameter), none requiring grad under grad mode."""
    if _compiling():  # first: dynamo traces this function, folds it to True and reads no further
        return False
    return _gate.eager(args)


def _on_cuda(args):
    tensors = [a for a in args if isinstance(a, _Tensor)]
    return bool(tensors) and all(t.is_cuda for t in tensors)


def call(kernel, args, kwargs):
    """k(args, **kwargs) on torch tensors: directly when eager() allows it and the tensors are CUDA, else the op."""
    if not _compiling():  # first, as in eager(): dynamo folds it and never reaches the C++ gate
        # eager()'s gate and the kernel's plan (a hit implies CUDA tensors: a plan's facts hold each tensor's device)
        result = _gate.call(kernel._gpu_plans, kernel._scalar_names, args, kwargs)
        if result is not False:  # eager: the plan's result, or None (no plan)
            if result is not None:
                return result
            if _on_cuda(args):
                return _call.call(kernel, args, kwargs)
    from . import _torch_op
    return _torch_op.call(kernel, args, kwargs)
