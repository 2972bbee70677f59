"""The instruction-level API used inside kernel bodies: ``from ptxpp import ptx``.

``ptx.inst.add.f32(d, a, b)`` emits one instruction; the chains are the ISA table's (generated
from spec/isa at build time, the same automaton as C++'s ``ptx::inst``), and each attribute is
checked when it is read. Python keywords get a trailing underscore (``global_``, ``and_``).
"""

from types import SimpleNamespace

from . import _core
from ._module import call  # ptx.call(f, [args]): a device function's call sequence

inst = _core.inst
Label = _core.Label
Operand = _core.Operand
Error = _core.Error
ChainError = _core.ChainError
_ = _core._

addr = _core.addr
addr0 = _core.addr0
vec = _core.vec
imm = _core.imm
symbol = _core.symbol
pair = _core.pair
args = _core.args
read = _core.read
place = _core.place
bra = _core.bra
bra_if = _core.bra_if
bra_unless = _core.bra_unless
ret = _core.ret
exit = _core.exit
asm = _core.asm


def f32imm(value):
    """A float immediate (``0fXXXXXXXX``), rounded to nearest."""
    return _core.f32(value)


def f64imm(value):
    """A double immediate (``0dXXXXXXXXXXXXXXXX``)."""
    return _core.f64(value)


def global_ptrs(*tensors):
    """``ld.param.u64`` + ``cvta.to.global.u64`` for each tensor parameter, in order."""
    return tuple(t.global_ptr() for t in tensors)


def if_(p, then=None, els=None):
    """``@!p bra END; then() END:`` (with ``els``: ``@!p bra ELSE; then() bra.uni END; ELSE: els() END:``).
    Without ``then``, a decorator: ``@ptx.if_(p)`` over a function of no arguments."""
    if then is None:
        return lambda f: _core.if_(p, f, els)
    return _core.if_(p, then, els)


def loop(begin, end, step=1, body=None):
    """A run-time loop over ``[begin, end)`` by ``step``; ``body(i)`` is traced once. Without
    ``body``, a decorator: ``@ptx.loop(lane, n, 32)`` over ``def _(i): ...``."""
    if body is None:
        return lambda f: _core.loop(begin, end, step, f)
    return _core.loop(begin, end, step, body)


def while_(cond, body=None):
    """``LOOP: p = cond() @!p bra END; body() bra.uni LOOP; END:``; a decorator without ``body``."""
    if body is None:
        return lambda f: _core.while_(cond, f)
    return _core.while_(cond, body)


special = SimpleNamespace(**dict(_core._special_registers()))
special.__doc__ = "Special registers of the ISA table: ptx.special.tid.x(), ptx.special.laneid()"


class _Warp:
    """Warp helpers (full warp, member mask 0xffffffff); each emits a documented fixed sequence."""

    Reduce = _core.Reduce

    @staticmethod
    def reduce(v, op=_core.Reduce.Sum):
        """Butterfly reduction; every lane gets the result (10 instructions for 32-bit values)."""
        return _core.warp_reduce(v, op)

    @staticmethod
    def reduce_sum(v):
        return _core.warp_reduce(v, _core.Reduce.Sum)

    @staticmethod
    def reduce_max(v):
        return _core.warp_reduce(v, _core.Reduce.Max)

    @staticmethod
    def reduce_min(v):
        return _core.warp_reduce(v, _core.Reduce.Min)

    broadcast = staticmethod(_core.warp_broadcast)
    ballot = staticmethod(_core.warp_ballot)
    all = staticmethod(_core.warp_all)
    any = staticmethod(_core.warp_any)
    match_any = staticmethod(_core.warp_match_any)
    elect_one = staticmethod(_core.warp_elect_one)


warp = _Warp()

# The architecture helpers, as C++'s ptx::ampere / ptx::hopper / ptx::blackwell (docs/dsl.md):
# ptx.ampere.mma(...), ...
ampere = _core.ampere
hopper = _core.hopper
blackwell = _core.blackwell
