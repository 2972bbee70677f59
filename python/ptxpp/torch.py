"""Loading ptxpp torch ops (libraries built with ptxpp_add_torch_ops in CMake)."""

import os

import torch

__all__ = ["load_library", "ops"]

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
