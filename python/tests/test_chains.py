"""ptx.inst: chains generated from spec/isa, checked one attribute at a time."""

import pytest

import ptxpp
from ptxpp import ptx, reg
from ptxpp.types import f32, u32

from conftest import trace


def test_a_chain_emits_one_instruction(lines):
    def body(x):
        a, b = reg.scalar(f32), reg.scalar(f32)
        ptx.inst.add.f32(a, a, b)
        ptx.inst.ld.global_.v4.f32([a, b, a, b], ptx.addr(x.global_ptr(), 16))

    assert lines(body) == ["add.f32 \t%f1, %f1, %f2;", "ld.param.u64 \t%rd1, [k_param_0];", "cvta.to.global.u64 \t%rd2, %rd1;",
                           "ld.global.v4.f32 \t{%f1, %f2, %f1, %f2}, [%rd2+16];"]


def test_a_misspelled_modifier_raises_at_the_users_line_with_a_suggestion():
    def body(x):
        v = reg.scalar(f32)
        ptx.inst.ld.globl.f32(v, ptx.addr(x.global_ptr()))  # the line the error names

    with pytest.raises(ptxpp.ChainError) as e:
        trace(body)
    line = body.__code__.co_firstlineno + 2
    assert f"test_chains.py:{line}: ld cannot be followed by .globl; did you mean global_?" in str(e.value)
    assert isinstance(e.value, AttributeError)  # hasattr() and friends work


def test_modifiers_out_of_order_or_after_a_complete_chain_are_refused():
    with pytest.raises(ptxpp.ChainError, match=r"ld.global.f32 is complete: no modifier can follow it \('global_' given\)"):
        trace(lambda x: ptx.inst.ld.global_.f32.global_)
    with pytest.raises(ptxpp.ChainError, match=r"ld.v4 cannot be followed by .global_ \(it can be followed by: .*f32"):
        trace(lambda x: ptx.inst.ld.v4.global_)


def test_an_unknown_instruction_suggests_the_nearest():
    with pytest.raises(ptxpp.ChainError, match=r"ptx.inst has no instruction 'lds'; did you mean ld\?"):
        ptx.inst.lds


def test_an_incomplete_chain_is_not_callable():
    with pytest.raises(ptxpp.ChainError, match=r"ld.global is not a complete instruction; it goes on with: .*f32"):
        trace(lambda x: ptx.inst.ld.global_(reg.scalar(f32), ptx.addr(x.global_ptr())))


def test_keywords_get_a_trailing_underscore_and_dir_lists_the_legal_next_modifiers():
    assert "global_" in dir(ptx.inst.ld)
    assert "and_" in dir(ptx.inst)
    assert "shared_cta" in dir(ptx.inst.ld)
    assert repr(ptx.inst.cp.async_.bulk) == "<ptx.inst.cp.async.bulk (incomplete)>"


def test_guards(lines):
    def body(x):
        p = reg.scalar(u32) < 3
        done = ptx.Label("done")
        ptx.inst.bra[p](done)
        ptx.inst.bra[~p](done)
        ptx.place(done)

    assert lines(body)[-3:] == ["@%p1 bra \t$L__done;", "@!%p1 bra \t$L__done;", "$L__done:"]


def test_operands_are_checked_against_the_isa_table():
    def body(x):
        ptx.inst.ld.global_.f32(reg.scalar(f32), 1)  # an immediate where an address goes

    with pytest.raises(ptxpp.Error, match=r"test_chains.py:\d+: .*ld.global.f32"):
        trace(body)


def test_the_target_is_checked():
    def body(x):
        ptx.inst.mov.u32(reg.scalar(u32), ptx.special.cluster_ctarank())

    with pytest.raises(ptxpp.Error, match="%cluster_ctarank needs PTX ISA 7.8, sm_90 or later; the kernel's target is sm_80"):
        trace(body, arch="sm_80")


def test_floats_are_f32_immediates_unless_the_instruction_is_f64(lines):
    def body(x):
        a, d = reg.scalar(f32), reg.scalar(ptxpp.types.f64)
        ptx.inst.add.f32(a, a, 1.5)
        ptx.inst.add.f64(d, d, 1.5)
        ptx.inst.add.f32(a, a, ptx.f64imm(0.1))

    assert lines(body)[-3:] == ["add.f32 \t%f1, %f1, 0f3FC00000;", "add.f64 \t%fd1, %fd1, 0d3FF8000000000000;",
                                "add.f32 \t%f1, %f1, 0d3FB999999999999A;"]


def test_outside_a_trace():
    with pytest.raises(ptxpp.Error, match="used outside a kernel trace"):
        reg.scalar(f32)
