"""Listings: a PTX module written statement by statement, with the names the text uses
(C++'s ``ptx::Listing`` and ``ptx::listing``, docs/transpile.md). What ``ptxpp transpile
--lang python`` writes, and what a user edits when taking over someone else's kernel::

    from ptxpp import DType, ptx
    from ptxpp import listing as lst

    m = lst.Listing(target="sm_90a", version="8.8")   # .version 8.8, .target sm_90a, .address_size 64

    @m.entry("k", [lst.param(DType.u64, "p")], linkage=lst.Linkage.visible)
    def _():                                  # the kernel's body, traced by m.ptx()
        rd = lst.regs(DType.b64, "%rd", 2)    # .reg .b64 %rd<2>;
        ptx.inst.ld.param.u64(rd[1], ptx.addr("p"))
        ptx.inst.ret()

    print(m.ptx())                            # canonical PTX

Instructions are ``ptx.inst`` calls, checked against the ISA table unless ``validate=False``.
Declarations, directives and labels are written where they stand, with exact names
(``lst.stmt``, ``lst.label``); nested blocks and loops are decorated functions run at once.
Function headers and module variables are typed: ``m.entry``, ``m.func``, ``m.func_decl``,
``m.global_``, ``m.const``, ``m.shared``, ``m.var`` with ``lst.param``, ``lst.reg_param``,
``lst.ptr``, ``lst.Space``, ``lst.Linkage`` and the directives (``lst.maxntid(128, 1, 1)``, ...).
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
Space = _l.Space
Linkage = _l.Linkage
Param = _l.Param
Ptr = _l.Ptr
FunctionDirective = _l.FunctionDirective
param = _l.param
reg_param = _l.reg_param
ptr = _l.ptr
maxntid = _l.maxntid
reqntid = _l.reqntid
reqnctapercluster = _l.reqnctapercluster
minnctapersm = _l.minnctapersm
maxnreg = _l.maxnreg
maxclusterrank = _l.maxclusterrank
explicitcluster = _l.explicitcluster
noreturn = _l.noreturn
blocksareclusters = _l.blocksareclusters
abi_preserve = _l.abi_preserve
abi_preserve_control = _l.abi_preserve_control

__all__ = ["Listing", "regs", "reg", "reg_ref", "label", "stmt", "instruction", "operand", "block", "repeat_while",
           "repeat_until", "wait_loop", "comment", "comment_same_line", "blank_line", "trail", "Space", "Linkage", "Param",
           "Ptr", "FunctionDirective", "param", "reg_param", "ptr", "maxntid", "reqntid", "reqnctapercluster",
           "minnctapersm", "maxnreg", "maxclusterrank", "explicitcluster", "noreturn", "blocksareclusters", "abi_preserve",
           "abi_preserve_control"]
