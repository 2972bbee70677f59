"""ptxpp.listing (C++'s ptx::Listing, what `transpile --lang python` writes): statements in
place with exact names, nested blocks and loops as decorated functions, text as str or bytes,
and errors at the user's line."""

import pytest

import ptxpp
from ptxpp import DType, ptx
from ptxpp import listing as lst

HEADER = ".version 8.0\n.target sm_90a\n.address_size 64\n\n.visible .entry k(\n\t.param .u64 p\n)\n"


def test_statements_in_place_with_exact_names():
    m = lst.Listing(target="sm_90a")
    m.text(HEADER)

    @m.body
    def _():
        r = lst.regs(DType.b32, "%r", 3)
        done = lst.reg(DType.pred, "%done")
        top = lst.label("$L__BB0_1")
        lst.comment("// count to ten")
        ptx.inst.mov.u32(r[1], 0)

        @lst.repeat_while(top, done)
        def _():
            ptx.inst.add.s32(r[1], r[1], 1)
            ptx.inst.setp.lt.s32(done, r[1], 10)
        lst.trail("// the back edge")

        @lst.block
        def _():
            lst.stmt(".reg .b32 %t;")
            lst.instruction("mov.b32 %t, 0x1F;")
            ptx.inst.add.s32(lst.reg_ref(DType.b32, "%t"), lst.reg_ref(DType.b32, "%t"), lst.operand("0x2"))
        ptx.inst.ret()

    assert m.ptx() == HEADER + (
        "{\n\t.reg .b32 %r<3>;\n\t.reg .pred %done;\n\t// count to ten\n\tmov.u32 \t%r1, 0;\n$L__BB0_1:\n"
        "\tadd.s32 \t%r1, %r1, 1;\n\tsetp.lt.s32 \t%done, %r1, 10;\n\t@%done bra \t$L__BB0_1; // the back edge\n"
        "\t{\n\t\t.reg .b32 %t;\n\t\tmov.b32 \t%t, 0x1F;\n\t\tadd.s32 \t%t, %t, 0x2;\n\t}\n\tret;\n}\n")


def test_bodies_run_when_the_module_is_printed():
    m = lst.Listing()
    m.text(HEADER)
    calls = []
    m.body(lambda: (calls.append(1), ptx.inst.ret()))
    assert calls == []
    assert m.ptx().endswith("{\n\tret;\n}\n")
    assert calls == [1]


def test_text_may_be_bytes_that_are_not_utf8():
    m = lst.Listing()
    m.text(b"// \xff\n" + HEADER.encode())
    m.body(lambda: ptx.inst.ret())
    assert m.ptx().encode("utf-8", "surrogateescape").startswith(b"// \xff\n")


def test_call_arguments_and_wait_loops():
    m = lst.Listing(target="sm_90a", validate=False)
    m.text(".version 8.0\n.target sm_90a\n.address_size 64\n\n.func (.param .b32 r) f(.param .b32 a)\n{\n\tret;\n}\n"
           ".visible .entry k()\n")

    @m.body
    def _():
        p = lst.reg(DType.pred, "%p")
        top, done = lst.label("W"), lst.label("D")
        lst.stmt(".param .b32 a;")
        lst.stmt(".param .b32 r;")
        ptx.inst.call.uni(ptx.args("r"), ptx.symbol("f"), ptx.args("a"))

        @lst.wait_loop(top, done, p)
        def _():
            ptx.inst.setp.ne.s32(p, 1, 0)
        ptx.inst.ret()

    text = m.ptx()
    assert "call.uni 	(r), f, (a);" in text
    assert "W:\n\tsetp.ne.s32 	%p, 1, 0;\n\t@%p bra 	D;\n\tbra.uni 	W;\nD:\n" in text


def test_errors_name_the_users_line():
    m = lst.Listing()
    m.text(HEADER)
    m.body(lambda: lst.stmt(".reg .b32 %a; .reg .b32 %b;"))
    with pytest.raises(ptxpp.Error, match=r"test_listing.py:\d+: .*exactly one statement"):
        m.ptx()
    m = lst.Listing()
    m.text(HEADER)
    m.body(lambda: lst.operand("[%r1"))
    with pytest.raises(ptxpp.Error, match="test_listing.py"):
        m.ptx()
    with pytest.raises(TypeError, match="str or bytes"):
        lst.Listing().text(3)
    with pytest.raises(ptxpp.Error, match="not a target"):
        lst.Listing(target="bogus").ptx()


def test_a_python_exception_in_a_body_comes_out_unchanged():
    m = lst.Listing()
    m.text(HEADER)

    def body():
        raise KeyError("mine")
    m.body(body)
    with pytest.raises(KeyError, match="mine"):
        m.ptx()
