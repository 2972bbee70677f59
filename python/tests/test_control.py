"""Labels, branches and the structured helpers (the C++ DSL's sequences)."""

import pytest

import ptxpp
from ptxpp import ptx, reg
from ptxpp.types import u32

from conftest import trace


def test_if_else_loop_while(lines):
    def body(x):
        a = reg.scalar(u32)
        p = a < 4
        ptx.if_(p, lambda: a.__iadd__(1), lambda: a.__isub__(1))

        @ptx.if_(p)
        def _():
            a.set(a * 2)

        @ptx.loop(0, 8, 2)
        def _(i):
            a.set(a + i)

        ptx.while_(lambda: a < 100, lambda: a.__imul__(3))

    assert lines(body) == [
        "setp.lt.u32 \t%p1, %r1, 4;", "@!%p1 bra \t$L__else;", "add.u32 \t%r1, %r1, 1;", "bra.uni \t$L__endif;",
        "$L__else:", "sub.u32 \t%r1, %r1, 1;", "$L__endif:",
        "@!%p1 bra \t$L__endif_2;", "mul.lo.u32 \t%r1, %r1, 2;", "$L__endif_2:",
        "mov.u32 \t%r3, 0;", "setp.ge.u32 \t%p2, %r3, 8;", "@%p2 bra \t$L__loop_end;", "$L__loop:",
        "add.u32 \t%r1, %r1, %r3;", "add.u32 \t%r3, %r3, 2;", "setp.lt.u32 \t%p2, %r3, 8;", "@%p2 bra \t$L__loop;",
        "$L__loop_end:", "$L__while:", "setp.lt.u32 \t%p3, %r1, 100;", "@!%p3 bra \t$L__while_end;",
        "mul.lo.u32 \t%r1, %r1, 3;", "bra.uni \t$L__while;", "$L__while_end:"]


def test_a_label_used_but_never_placed_is_reported_where_it_was_made():
    def body(x):
        done = ptx.Label("done")  # the line the error names
        ptx.bra(done)

    line = body.__code__.co_firstlineno + 1
    with pytest.raises(ptxpp.Error, match=rf"test_control.py:{line}: .*done"):
        trace(body)


def test_an_exception_in_a_branch_body_comes_out_as_itself():
    def body(x):
        ptx.if_(reg.scalar(u32) < 1, lambda: 1 / 0)

    with pytest.raises(ZeroDivisionError):
        trace(body)


def test_asm_is_checked(lines):
    assert lines(lambda x: ptx.asm("membar.gl;")) == ["membar.gl;"]
    with pytest.raises(ptxpp.Error):
        trace(lambda x: ptx.asm("frobnicate.u32 %r1;"))
