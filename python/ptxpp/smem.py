"""Shared memory: static ``.shared`` arrays while a kernel's total fits in 48 KB, else one
``.extern .shared`` array with every buffer at an offset in it (the C++ DSL decides)."""

from . import _core

Swizzle = _core.Swizzle
Buffer = _core.Buffer


def alloc(dtype, shape, align=16, swizzle=Swizzle.None_):
    """``dtype[shape...]`` aligned to ``align`` bytes: ``.shared .align 16 .b8 smem[N];``."""
    return _core.smem_alloc(dtype, shape, align, swizzle)


def swizzle(byte_offset, mode):
    """CuTe's Swizzle<B,4,3> on a 32-bit byte offset: exactly three instructions."""
    return _core.smem_swizzle(byte_offset, mode)


__all__ = ["Swizzle", "Buffer", "alloc", "swizzle"]
