"""Listings: a PTX module written statement by statement, with the names the text uses
(C++'s ``ptx::Listing`` and ``ptx::listing``, docs/transpile.md). What ``ptxpp transpile
--lang python`` writes, and what a user edits when taking over someone else's kernel::

    from ptxpp import DType, ptx
    from ptxpp import listing as lst

    m = lst.Listing(target="sm_90a")
    m.text(".version 8.8\\n.target sm_90a\\n.address_size 64\\n\\n.visible .entry k(.param .u64 p)\\n")

    @m.body                                   # the function body that follows, traced by m.ptx()
    def _():
        rd = lst.regs(DType.b64, "%rd", 2)    # .reg .b64 %rd<2>;
        ptx.inst.ld.param.u64(rd[1], ptx.addr("p"))
        ptx.inst.ret()

    print(m.ptx())                            # canonical PTX

Instructions are ``ptx.inst`` calls, checked against the ISA table unless ``validate=False``.
Declarations, directives and labels are written where they stand, with exact names
(``lst.stmt``, ``lst.label``); nested blocks and loops are decorated functions run at once.
"""

from . import _core

_l = _core.listing
Listing = _l.Listing
regs = _l.regs
reg = _l.reg
reg_ref = _l.reg_ref
label = _l.label
stmt = _l.stmt
instruction = _l.instruction
operand = _l.operand
block = _l.block
repeat_while = _l.repeat_while
repeat_until = _l.repeat_until
wait_loop = _l.wait_loop
comment = _l.comment
comment_same_line = _l.comment_same_line
blank_line = _l.blank_line
trail = _l.trail

__all__ = ["Listing", "regs", "reg", "reg_ref", "label", "stmt", "instruction", "operand", "block", "repeat_while",
           "repeat_until", "wait_loop", "comment", "comment_same_line", "blank_line", "trail"]
