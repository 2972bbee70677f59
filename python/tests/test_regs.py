"""Registers and operators: one instruction per operator, the rename rule, ~p."""

import pytest

import ptxpp
from ptxpp import ptx, reg
from ptxpp.types import f32, pred, s32, u32, u64


def test_each_operator_is_one_instruction(lines):
    def body(x):
        a, b = reg.scalar(s32), reg.scalar(s32)
        a + b, a - 1, a * 4, a / b, a % b, a << 2, a >> 1, a & b, a | 3, a ^ b, ~a, -a
        a < b, a <= 1, a > b, a >= 1, a == b, a != 7

    assert lines(body) == [
        "add.s32 \t%r3, %r1, %r2;", "sub.s32 \t%r4, %r1, 1;", "mul.lo.s32 \t%r5, %r1, 4;", "div.s32 \t%r6, %r1, %r2;",
        "rem.s32 \t%r7, %r1, %r2;", "shl.b32 \t%r8, %r1, 2;", "shr.s32 \t%r9, %r1, 1;", "and.b32 \t%r10, %r1, %r2;",
        "or.b32 \t%r11, %r1, 3;", "xor.b32 \t%r12, %r1, %r2;", "not.b32 \t%r13, %r1;", "neg.s32 \t%r14, %r1;",
        "setp.lt.s32 \t%p1, %r1, %r2;", "setp.le.s32 \t%p2, %r1, 1;", "setp.gt.s32 \t%p3, %r1, %r2;",
        "setp.ge.s32 \t%p4, %r1, 1;", "setp.eq.s32 \t%p5, %r1, %r2;", "setp.ne.s32 \t%p6, %r1, 7;"]


def test_numbers_on_the_left_and_in_place_operators(lines):
    def body(x):
        a, f = reg.scalar(u32), reg.scalar(f32)
        1 - a
        a += 1
        f *= 0.5
        f + 2  # an integer with a float register: exactly representable, as a float immediate

    assert lines(body) == ["sub.u32 \t%r2, 1, %r1;", "add.u32 \t%r1, %r1, 1;", "mul.rn.f32 \t%f1, %f1, 0f3F000000;",
                           "add.rn.f32 \t%f2, %f1, 0f40000000;"]


def test_a_64_bit_pointer_plus_a_32_bit_offset_is_one_mad_wide(lines):
    def body(x):
        p, i = reg.scalar(u64), reg.scalar(u32)
        p + i * 4

    assert lines(body) == ["mul.lo.u32 \t%r2, %r1, 4;", "mad.wide.u32 \t%rd2, %r2, 1, %rd1;"]


def test_rename_rule_for_arrays_and_set(lines):
    def body(x):
        a, b = reg.array(f32, 2, "a"), reg.array(f32, 2, "b")
        for k in range(2):
            a[k] = a[k] + b[k]  # renamed: no mov
        a[0] = b[1]  # not just computed: a mov
        c = reg.scalar(f32)
        t = c * 2.0
        c.set(t)  # renamed; t now names c's register
        c.set(t + c)

    assert lines(body) == ["add.rn.f32 \t%a0, %a0, %b0;", "add.rn.f32 \t%a1, %a1, %b1;", "mov.f32 \t%a0, %b1;",
                           "mul.rn.f32 \t%f3, %f3, 0f40000000;", "add.rn.f32 \t%f3, %f3, %f3;"]


def test_init_read_and_arrays(lines):
    def body(x):
        r = reg.scalar(u32, init=ptx.special.tid.x())
        q = ptx.read(ptx.special.laneid(), u32)
        acc = reg.array(f32, 4, "acc")
        assert len(acc) == 4 and len(acc[1:3]) == 2 and acc.type == f32
        for v in acc:
            v.set(0.0)
        with pytest.raises(IndexError, match="register array index 4 out of range"):
            acc[4]

    assert lines(body) == ["mov.u32 \t%r1, %tid.x;", "mov.u32 \t%r2, %laneid;"] + [f"mov.f32 \t%acc{k}, 0f00000000;" for k in range(4)]


def test_predicates(lines):
    def body(x):
        p, q = reg.scalar(pred), reg.scalar(pred)
        p & q, p | q
        r = reg.scalar(u32)
        ptx.inst.selp.u32(r, 1, 2, ~p)

    assert lines(body) == ["and.pred \t%p3, %p1, %p2;", "or.pred \t%p4, %p1, %p2;", "selp.u32 \t%r1, 1, 2, !%p1;"]


def test_a_register_has_no_truth_value():
    def body(x):
        if reg.scalar(u32) < 3:
            pass

    with pytest.raises(TypeError, match="no Python truth value"):
        from conftest import trace
        trace(body)


def test_operator_type_errors_name_the_users_line():
    from conftest import trace

    def body(x):
        reg.scalar(u32) + reg.scalar(f32)

    with pytest.raises(ptxpp.Error, match=r"test_regs.py:\d+: operator \+: operand types differ \(.u32 and .f32\)"):
        trace(body)
    with pytest.raises(ptxpp.Error, match="has no exact .f32 value"):
        trace(lambda x: reg.scalar(f32) + 16777217)
    with pytest.raises(TypeError, match="unsupported operand"):
        trace(lambda x: reg.scalar(f32) + "one")


def test_registers_of_another_trace_are_refused():
    from conftest import trace
    kept = []
    trace(lambda x: kept.append(reg.scalar(u32)))
    with pytest.raises(ptxpp.Error, match="register"):
        trace(lambda x: kept[0] + 1)
