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

# Bound once: each check is one call or attribute read (the gate runs on every call; bench/python_dispatch.py times it).
_compiling = torch.compiler.is_compiling
_function_mode = torch._C._is_torch_function_mode_enabled
_dispatch_modes = torch._C._len_torch_dispatch_stack  # user modes and infra modes (fake, proxy, functional)
_transforms = torch._C._functorch.peek_interpreter_stack  # vmap, grad, jvp: None outside them
_jit_tracing = torch._C._is_tracing
_grad_enabled = torch._C.is_grad_enabled
_forward_ad = torch.autograd.forward_ad  # its _current_level is -1 outside a dual_level()
_Tensor, _Parameter = torch.Tensor, torch.nn.Parameter


def eager(args):
    """Whether a call on these arguments may bypass the torch op (on any device: the caller checks it)."""
    if _compiling():  # first: dynamo traces this function, folds it to True and reads no further
        return False
    if _function_mode() or _dispatch_modes() or _transforms() is not None or _jit_tracing():
        return False
    if _forward_ad._current_level >= 0:  # dual tensors are plain ones: the op, where an autograd formula would see them
        return False
    grad = _grad_enabled()
    for a in args:
        t = type(a)
        if t is _Tensor or t is _Parameter:
            if grad and a.requires_grad:
                return False
        elif t is not float and t is not int and isinstance(a, _Tensor):  # a subclass: FakeTensor, DTensor, ...
            return False
    return True


def _on_cuda(args):
    tensors = [a for a in args if isinstance(a, _Tensor)]
    return bool(tensors) and all(t.is_cuda for t in tensors)


def call(kernel, args, kwargs):
    """k(args, **kwargs) on torch tensors: directly when eager() allows it and the tensors are CUDA, else the op."""
    if eager(args):
        if kernel._gpu_plans:  # a hit implies CUDA tensors: a plan's facts hold each tensor's device
            result = _core.plan_call(kernel._gpu_plans, kernel._scalar_names, args, kwargs)
            if result is not None:
                return result
        if _on_cuda(args):
            return _call.call(kernel, args, kwargs)
    from . import _torch_op
    return _torch_op.call(kernel, args, kwargs)
