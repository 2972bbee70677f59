"""Registers: ``reg.scalar(u32)`` declares one (``%r7``), ``reg.array(f32, 8, "acc")`` declares
``%acc<8>``. Operators on registers emit one instruction each (see docs/python.md)."""

from . import _core

Reg = _core.Reg
RegArray = _core.RegArray


def scalar(dtype, init=None, name=""):
    """A fresh register of type ``dtype`` (auto-named, or ``%name``); with ``init``, one ``mov``."""
    return _core.reg_scalar(dtype, init, name)


def array(dtype, count, name=""):
    """``count`` registers declared together: ``.reg .f32 %acc<8>;``. ``a[k] = expr`` renames
    the instruction that computed ``expr`` to write ``%acc<k>`` (no ``mov``)."""
    return _core.reg_array(dtype, count, name)


__all__ = ["Reg", "RegArray", "scalar", "array"]
