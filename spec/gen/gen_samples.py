#!/usr/bin/env python3
"""Sample instructions for every form of the ISA table, legal and illegal.

Each legal sample uses one choice per modifier slot, so that every value of
every group (and every optional modifier, present and absent) appears at
least once, with every kind of every operand; it is placed in a module for
the lowest target and PTX version its choices need. Illegal samples break one
thing each: a value outside its group, two modifiers swapped, a required
modifier dropped, a register of the wrong type, one operand too many or too
few, a target or PTX version below the minimum.

Used by check_samples.py; `gen_samples.py --list FORM-SUBSTRING` prints samples.
"""

from __future__ import annotations

import itertools
import re
import sys
from dataclasses import dataclass, field
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import ptxisa  # noqa: E402
from ptxisa import Kind, Requirement, Target  # noqa: E402

# Registers every sample kernel declares: name prefix per type.
# (.reg .bf16 is rejected by ptxas: bf16 values live in .b16/.b32 registers; .b128 needs PTX 8.3.)
SCALAR_TYPES = [".pred", ".b8", ".b16", ".b32", ".b64", ".b128", ".u8", ".u16", ".u32", ".u64", ".s8", ".s16",
                ".s32", ".s64", ".f16", ".f16x2", ".f32", ".f64"]
REGS_PER_TYPE = 16
# Rows per form beyond "every option once": pairs of options of two slots, up to this many rows.
PAIRWISE_ROWS = 32
# Legal rows per form that also get illegal variants.
ILLEGAL_ROWS = 3

# Types that are spelled in instructions but held in registers of another type.
REGISTER_TYPE = {
    ".f16x2": ".b32", ".bf16x2": ".b32", ".u16x2": ".b32", ".s16x2": ".b32", ".f32x2": ".b64",
    ".e4m3x2": ".b16", ".e5m2x2": ".b16", ".e2m3x2": ".b16", ".e3m2x2": ".b16", ".e2m1x2": ".b8",
    ".ue8m0x2": ".b16", ".tf32": ".b32", ".e4m3": ".b8", ".e5m2": ".b8", ".bf16": ".b16", ".b1": ".b32",
    ".u4": ".b32", ".s4": ".b32", ".b4": ".b32",
    ".e4m3x4": ".b32", ".e5m2x4": ".b32", ".e2m3x4": ".b32", ".e3m2x4": ".b32", ".e2m1x4": ".b16",
}
SIZE = {".pred": 0, ".b8": 8, ".u8": 8, ".s8": 8, ".b16": 16, ".u16": 16, ".s16": 16, ".f16": 16, ".bf16": 16,
        ".b32": 32, ".u32": 32, ".s32": 32, ".f32": 32, ".f16x2": 32, ".bf16x2": 32, ".b64": 64, ".u64": 64,
        ".s64": 64, ".f64": 64, ".b128": 128}
DOUBLE = {".u16": ".u32", ".u32": ".u64", ".s16": ".s32", ".s32": ".s64", ".b16": ".b32", ".b32": ".b64",
          ".f16": ".f32", ".f32": ".f64", ".u8": ".u16", ".s8": ".s16", ".b8": ".b16"}


def reg_name(t: str, i: int) -> str:
    return f"%r{t[1:].replace('x', 'x')}_{i}"


def register_for(t: str) -> str:
    return REGISTER_TYPE.get(t, t)


def is_float(t: str) -> bool:
    return t.startswith((".f", ".bf", ".tf", ".e"))


def wrong_type(t: str) -> str:
    """A register type that no operand of type t accepts."""
    size = SIZE.get(register_for(t), 32)
    if is_float(t):
        return ".u64" if size != 64 else ".u32"
    return ".f64" if size != 64 else ".f32"


@dataclass
class Sample:
    form: ptxisa.Form
    text: str                 # the instruction, without ';'
    target: Target
    ptx: tuple[int, int]
    legal: bool
    why: str                  # for illegal samples: what is broken
    index: int = 0
    extra_decls: list[str] = field(default_factory=list)
    texmode: str = ""         # "independent": the module says .target ..., texmode_independent


class FormSampler:
    def __init__(self, form: ptxisa.Form, all_forms: list[ptxisa.Form]):
        self.f = form
        self.all_forms = all_forms

    # ---- modifiers ----------------------------------------------------------------
    def slot_options(self, slot: ptxisa.Slot) -> list[list[tuple[str, ptxisa.Value | None, str | None]]]:
        """Options for a slot: each a list of (modifier text, value, group name) for its items."""
        per_item = []
        for name in slot.names:
            g = self.f.group(name)
            if g is None:
                per_item.append([(name, None, None)])
            else:
                per_item.append([(v.text, v, g.name) for v in g.values])
        combos = [list(c) for c in itertools.product(*per_item)] if len(per_item) > 1 else [[o] for o in per_item[0]]
        if slot.optional:
            return [[]] + combos
        return combos

    def choices(self) -> list[list[list[tuple[str, ptxisa.Value | None, str | None]]]]:
        """Rows of one option per slot, so that every option of every slot appears at least once."""
        options = [self.slot_options(s) for s in self.f.slots]
        n = max((len(o) for o in options), default=1)
        # enough rows for every register component (%r1.b0) and negation (-a) too
        for k in self.reg_kinds():
            n = max(n, len(self.component_options(k)) if k.component else 1, 2 if k.negate else 1)
        picks = [[i % len(o) for o in options] for i in range(n)]
        # Then pairs: every two options of two different slots together, while under the cap.
        covered = {(a, pa[a], b, pa[b]) for pa in picks for a, b in itertools.combinations(range(len(options)), 2)}
        for a, b in itertools.combinations(range(len(options)), 2):
            for x in range(len(options[a])):
                for y in range(len(options[b])):
                    if len(picks) >= PAIRWISE_ROWS:
                        break
                    if (a, x, b, y) in covered:
                        continue
                    pick = [len(picks) % len(o) for o in options]
                    pick[a], pick[b] = x, y
                    picks.append(pick)
                    covered |= {(c, pick[c], d, pick[d]) for c, d in itertools.combinations(range(len(options)), 2)}
        return [[o[p] for o, p in zip(options, pick)] for pick in picks]

    # ---- operands ---------------------------------------------------------------------
    row = 0  # the row being sampled: picks register components and negation

    def reg_kinds(self) -> list[Kind]:
        return [k for o in self.f.operands for n in o.names() for k in (self.f.kind(n) or []) if k.kind == "reg"]

    def component_options(self, kind: Kind) -> list[str]:
        """Component suffixes to sample for reg(T, .sel) / reg(T, {.sel}) ('' = none)."""
        g = self.f.group(kind.component)
        texts = [t for v in g.values for t in v.samples()] if g else []
        return ([""] if kind.component_optional else []) + texts

    def resolve(self, ref: str | None, chosen: dict[str, str]) -> str | None:
        if ref is None:
            return None
        doubled = ref.endswith("[2]")
        base = ref[:-3] if doubled else ref
        t = chosen.get(base, base)
        if doubled:
            t = DOUBLE.get(t, t)
        return t

    def operand_text(self, kind: Kind, chosen: dict[str, str], counter: dict[str, int], bad_type: bool = False) -> str | None:
        def reg(t: str) -> str:
            rt = register_for(t)
            if bad_type:
                rt = ".pred" if kind.wide else wrong_type(t)
            i = counter.get(rt, 0)
            counter[rt] = i + 1
            return reg_name(rt, i % REGS_PER_TYPE)

        if kind.kind == "reg":
            text = reg(self.resolve(kind.type, chosen))
            if kind.component:
                opts = self.component_options(kind)
                text += opts[self.row % len(opts)]
            if kind.negate and not bad_type and self.row % 2 == 1:
                text = "-" + text
            return text
        if kind.kind == "pred":
            return reg(".pred") if not bad_type else reg(".u32")
        if kind.kind == "imm":
            t = self.resolve(kind.type, chosen) if kind.type else ".u32"
            if kind.values and not bad_type:
                return str(kind.values[0][0])
            if bad_type:
                return "1" if is_float(t) else "0f3F800000"
            if is_float(t):
                return "0d3FF0000000000000" if register_for(t) == ".f64" else "0f3F800000"
            return "1"
        if kind.kind == "vec":
            t = self.resolve(kind.type, chosen)
            n = kind.vec_count(chosen)
            if n is None:
                return reg(t)
            # vec(..., imm): the first element an immediate, the rest registers
            elems = [reg(t) for _ in range(n)]
            if kind.imm and not bad_type and elems:
                # an integer literal, or a float literal for float elements
                elems[0] = ("0d3FF0000000000000" if register_for(t) == ".f64" else "0f3F800000") if is_float(t) else "0"
            return "{" + ", ".join(elems) + "}"
        if kind.kind == "addr":
            space = self.resolve(kind.space, chosen)
            if bad_type:
                return reg(".u64")  # not an address
            if kind.type:  # addr(tmem, .b32): a register of that type
                return "[" + reg(self.resolve(kind.type, chosen)) + "]"
            if space in (".shared", ".shared::cta", ".shared::cluster"):
                return "[" + reg(".u32") + "]"
            if space in (".param", ".param::entry", ".param::func"):
                return "[sample_local_param]"
            # [a].unified: only for .global and generic addresses
            unified = kind.unified and space in (None, "", "generic", ".global")
            return "[" + reg(".u64") + "]" + (".unified" if unified else "")
        if kind.kind in ("texref", "samplerref", "surfref"):
            return {"texref": "sample_tex", "samplerref": "sample_smp", "surfref": "sample_surf"}[kind.kind]
        if kind.kind == "label":
            if kind.of == "branchtargets":
                return "sample_btargets"
            if kind.of in ("calltargets", "callprototype"):
                return f"sample_{kind.of}_{self.call_signature()}"
            return "$L_sample_end"
        if kind.kind == "symbol":
            if kind.of == "calltable":
                return f"sample_calltable_{self.call_signature()}"
            # symbol(S): a variable of state space S (the kernel's parameter for .param)
            space = (self.resolve(kind.space, chosen) or "") if kind.space else ""
            return SYMBOL_OF_SPACE.get(space.split("::")[0], "sample_global")
        if kind.kind == "func":
            return f"sample_fn_{self.call_signature()}"
        if kind.kind == "args":
            return "(" + reg(".b32") + ")"
        if kind.kind == "sink":
            return "_"
        return None

    def call_signature(self) -> str:
        """Which sample callee fits a call form: an `args` operand first is the
        return list ("r"), a later one the parameter list ("p"); "n" for neither."""
        is_args = [bool(self.f.kind(o.name)) and self.f.kind(o.name)[0].kind == "args" for o in self.f.operands]
        sig = ("r" if is_args[:1] == [True] else "") + ("p" if any(is_args[1:]) else "")
        return sig or "n"

    def operands(self, chosen: dict[str, str], kind_pick: int, with_optional: bool,
                 bad_operand: int = -1, bad_value: int = -1) -> list[str] | None:
        counter: dict[str, int] = {}
        out = []

        def one(op: ptxisa.OperandSlot, bad: bool) -> str | None:
            if op.members:  # [a, b, c]: each member by its own kind
                texts = []
                for j, m in enumerate(op.members):
                    if m.optional and not with_optional:
                        continue
                    t = one(m, bad and j == len(op.members) - 1)
                    if t is None:
                        return None
                    texts.append(t)
                return "[" + ", ".join(texts) + "]"
            kinds = self.f.kind(op.name)
            k = kinds[kind_pick % len(kinds)]
            text = self.operand_text(k, chosen, counter, bad_type=bad)
            if text is None:
                return None
            if op.address and k.kind != "addr":
                text = f"[{text}]"  # [a] of a non-address kind: a texture, sampler or surface in brackets
            if op.pair:
                pk = self.f.kind(op.pair)[0]
                second = self.operand_text(pk, chosen, counter)
                if second is None:
                    return None
                text = f"{text}|{second}"
            return text

        for i, op in enumerate(self.f.operands):
            tie = self.f.tie(op.name) if not op.members else None
            if tie is not None:
                if tie not in chosen:  # written exactly when its modifier is
                    continue
            elif op.optional and not with_optional:
                continue
            text = one(op, i == bad_operand)
            if text is None:
                return None
            if i == bad_value:  # an immediate that is not one of its values
                text = str(max(hi for k in self.f.kind(op.name) for _, hi, _ in k.values) + 1)
            out.append(text)
        return out

    def operand_requirement(self, chosen: dict[str, str], with_optional: bool) -> Requirement:
        """What the operands written (as operands() writes them) require: `x: KIND [ptx 7.1]`."""
        req = Requirement()
        for op in self.f.operands:
            tie = self.f.tie(op.name) if not op.members else None
            if (tie is not None and tie not in chosen) or (tie is None and op.optional and not with_optional):
                continue
            for m in op.members or [op]:
                if m.optional and not with_optional:
                    continue
                for n in m.names():  # a pair p|q is always written
                    req = req.merge(self.f.op_req(n))
        return req

    def kinds_of(self, op: ptxisa.OperandSlot) -> list[ptxisa.Kind]:
        """The kinds of an operand; of a bracketed list, those of its last member."""
        return self.f.kind(op.members[-1].name if op.members else op.name)

    # ---- samples ------------------------------------------------------------------------
    def requirement(self, row) -> Requirement:
        req = self.f.requirement()
        for opt in row:
            for _, v, _ in opt:
                if v is not None:
                    req = req.merge(v.req)
        return req

    def place(self, req: Requirement) -> tuple[Target, tuple[int, int]] | None:
        t = req.lowest_target()
        if t is None:
            return None
        ptx = max(req.ptx, ptxisa.TARGET_MIN_PTX[t.name()])
        if ptx > (9, 0):
            return None
        return t, ptx

    def samples(self, legal_only: bool = False) -> list[Sample]:
        f = self.f
        out: list[Sample] = []
        rows = self.choices()
        kind_count = max((len(f.kind(n)) for o in f.operands for n in o.names()), default=1)
        legal_rows: list[tuple] = []  # (row index, (row, chosen, mods, target, ptx, req))
        for i, row in enumerate(rows):
            row_req = self.requirement(row)
            self.row = i
            chosen = {g: text for opt in row for text, v, g in opt if g}
            mods = "".join(text for opt in row for text, _, _ in opt)
            has_optional = any(o.optional or any(m.optional for m in o.members) for o in f.operands)
            variants = [(k, True) for k in range(max(1, kind_count if i == 0 else 1))]
            if has_optional:
                variants.append((0, False))
            for kind_pick, with_opt in variants:
                req = row_req.merge(self.operand_requirement(chosen, with_opt))
                placed = self.place(req)
                if placed is None:
                    continue
                target, ptx = placed
                texmode = req.texmode
                ops = self.operands(chosen, kind_pick, with_opt)
                if ops is None:
                    continue
                text = f"{f.opcode}{mods} " + ", ".join(ops) if ops else f"{f.opcode}{mods}"
                out.append(Sample(f, text.strip(), target, ptx, True, "", texmode=samplers_mode(text, texmode)))
                if kind_pick == 0 and with_opt and (not legal_rows or legal_rows[-1][0] != i):
                    legal_rows.append((i, (row, chosen, mods, target, ptx, req)))
        # Illegal variants of a few legal rows spread over the form (different values, requirements).
        if legal_rows and not legal_only:
            step = max(1, len(legal_rows) // ILLEGAL_ROWS)
            seen = {(s.text, s.target, s.ptx) for s in out}
            for i, args in legal_rows[::step][:ILLEGAL_ROWS]:
                self.row = i
                for s in self.illegal(*args):
                    if (s.text, s.target, s.ptx, s.texmode) not in seen:
                        seen.add((s.text, s.target, s.ptx, s.texmode))
                        out.append(s)
        return out

    def other_forms(self, mods_text: str) -> list[ptxisa.Form]:
        """The other forms of the opcode whose modifiers fit mods_text."""
        mods = ptxisa.split_mnemonic(self.f.opcode + mods_text)[1]
        return [g for g in self.all_forms
                if g is not self.f and g.opcode == self.f.opcode and ptxisa.match_form(g, mods) is not None]

    def other_form_takes(self, mods_text: str, count: int) -> bool:
        return any(sum(not o.optional for o in g.operands) <= count <= len(g.operands)
                   for g in self.other_forms(mods_text))

    def illegal_components(self, mods, ops, add, inst) -> None:
        """Register components (%r1.b0) and negation (-a), for forms of blocks that use them:
        a bogus component, a required one dropped, one where none is allowed, a negation
        where none is allowed (unless another form with these modifiers allows it there)."""
        f = self.f
        block_kinds = [k for g in (f.block.forms if f.block else [f]) for o in g.operands for n in o.names()
                       for k in (g.kind(n) or [])]
        if not any(k.component or (k.kind == "reg" and k.negate) for k in block_kinds):
            return
        plain = [o for o in f.operands if not o.optional and not o.members and not o.pair]
        if len(plain) != len(f.operands) or len(ops) != len(f.operands):
            return
        others = [g for g in self.other_forms(mods) if len(g.operands) == len(f.operands)]
        kinds = [f.kind(o.name) for o in f.operands]
        first = lambda ks: ks[0] if ks and ks[0].kind == "reg" else None  # noqa: E731
        split = re.compile(r"^(-?%\w+)(\.\w+)?$")
        samples = []

        def replace(i: int, text: str, why: str) -> None:
            bad = list(ops)
            bad[i] = text
            samples.append((inst(mods, bad), why))

        for i, ks in enumerate(kinds):
            k, m = first(ks), split.match(ops[i])
            if k and k.component and m:
                replace(i, m.group(1) + ".bogus", f"operand {f.operands[i].name}: a bogus component")
                if not k.component_optional:
                    replace(i, m.group(1), f"operand {f.operands[i].name}: component missing")
                break
        sel = next((g.values[0].samples()[0] for k in block_kinds if k.component
                    for g in [f.group(k.component)] if g), None)
        for i, ks in enumerate(kinds):
            k, m = first(ks), split.match(ops[i])
            if sel and k and m and not any(x.component for x in ks) and \
                    not any(x.component for g in others for x in (g.kind(g.operands[i].name) or [])):
                replace(i, m.group(1) + sel, f"operand {f.operands[i].name}: a component where none is allowed")
                break
        for i, ks in enumerate(kinds[1:], 1):
            k, m = first(ks), split.match(ops[i])
            if k and m and not ops[i].startswith("-") and not any(x.negate for x in ks) and \
                    not any(x.kind == "reg" and x.negate for g in others for x in (g.kind(g.operands[i].name) or [])):
                replace(i, "-" + ops[i], f"operand {f.operands[i].name}: negation where none is allowed")
                break
        for text, why in samples:
            add(text, why)

    def classify(self, mods_text: str, chosen: dict[str, str] | None = None) -> str:
        """'same' if the modifiers fit this form (with the same values as `chosen`), 'other' if
        another form of the opcode or other values (two types swapped: cvt.u64.u8), else 'none'."""
        mods = ptxisa.split_mnemonic(self.f.opcode + mods_text)[1]
        m = ptxisa.match_form(self.f, mods)
        if m is not None:
            if chosen is not None and {g: v.text for g, v in m[0].items()} != chosen:
                return "other"
            return "same"
        for g in self.f.block.forms if self.f.block else []:
            if g is not self.f and ptxisa.match_form(g, mods) is not None:
                return "other"
        for g in self.all_forms:
            if g.opcode == self.f.opcode and g.block is not self.f.block and ptxisa.match_form(g, mods) is not None:
                return "other"
        return "none"

    def illegal(self, row, chosen, mods, target, ptx, req) -> list[Sample]:
        f = self.f
        out: list[Sample] = []
        ops = self.operands(chosen, 0, True) or []

        def add(text: str, why: str, t: Target = target, v: tuple[int, int] = ptx, legal: bool = False,
                texmode: str = req.texmode) -> None:
            out.append(Sample(f, text, t, v, legal, why, texmode=samplers_mode(text, texmode)))

        def inst(m: str, operands: list[str]) -> str:
            return f"{f.opcode}{m} " + ", ".join(operands) if operands else f"{f.opcode}{m}"

        # a value outside its group
        for si, opt in enumerate(row):
            if opt and opt[0][2] is not None:
                bad = list(row)
                bad[si] = [(".bogus", None, None)] + opt[1:]
                add(inst("".join(t for o in bad for t, _, _ in o), ops), f"illegal value in slot {si}")
                break
        # two modifiers swapped: legal when ptxas reads them in any order (see match_form)
        present = [o for o in row if o]
        swaps = 0
        for a, b in itertools.combinations(range(len(present)), 2):
            if present[a] == present[b] or swaps == 2:
                continue
            swapped = list(present)
            swapped[a], swapped[b] = swapped[b], swapped[a]
            text = "".join(t for o in swapped for t, _, _ in o)
            if text == mods:
                continue
            verdict = self.classify(text, chosen)
            if verdict == "other":
                continue
            add(inst(text, ops), "modifiers reordered" if verdict == "same" else "modifiers out of order",
                legal=verdict == "same")
            swaps += 1
        # a required modifier dropped
        for si, (slot, opt) in enumerate(zip(f.slots, row)):
            if not slot.optional and opt:
                dropped = "".join(t for j, o in enumerate(row) if j != si for t, _, _ in o)
                if self.classify(dropped) == "none":
                    add(inst(dropped, ops), "required modifier missing")
                break
        # wrong operand type
        for oi, op in enumerate(f.operands):
            kinds = self.kinds_of(op)
            if kinds[0].kind in ("reg", "pred", "vec"):
                bad_ops = self.operands(chosen, 0, True, bad_operand=oi)
                if bad_ops:
                    add(inst(mods, bad_ops), f"operand {op.name} of the wrong type")
                break
        # operand count (unless another form with these modifiers takes that many)
        required = [o for o in f.operands if not o.optional]
        if required:
            more = ops + ["1"] if all(not o.optional for o in f.operands) else ops + ["1", "1"]
            if not self.other_form_takes(mods, len(more)):
                add(inst(mods, more), "too many operands")
            if len(ops) > 0 and not self.other_form_takes(mods, len(required) - 1):
                add(inst(mods, ops[:len(required) - 1]), "too few operands")
        self.illegal_components(mods, ops, add, inst)
        # too-low target or version
        for t in reversed(ptxisa.KNOWN_TARGETS):
            if not req.allows(t):
                v = max(ptxisa.TARGET_MIN_PTX[t.name()], ptx)
                if v <= (9, 0):
                    add(inst(mods, ops), f"target {t.name()} not allowed", t, v)
                break
        if req.ptx > ptxisa.TARGET_MIN_PTX[target.name()]:
            lower = ptxisa.TARGET_MIN_PTX[target.name()]
            add(inst(mods, ops), f"PTX {lower[0]}.{lower[1]} below the minimum", target, lower)
        # the other texturing mode
        if req.texmode:
            other = "unified" if req.texmode == "independent" else "independent"
            add(inst(mods, ops), f"texmode_{other}", texmode=other)
        # an immediate that is not one of its legal values
        for oi, op in enumerate(f.operands):
            kinds = f.kind(op.name) if not op.members else []
            if kinds and all(k.kind == "imm" and k.values for k in kinds):
                bad_ops = self.operands(chosen, 0, True, bad_value=oi)
                if bad_ops:
                    add(inst(mods, bad_ops), f"operand {op.name} not one of its values")
                break
        return out


def sreg_samples(r: ptxisa.SpecialRegister) -> list[Sample]:
    """A special register read with mov at its lowest target and version (every
    component, every type including legacy narrower ones, a family's first and
    last register); illegal: a too-low target or version, a type of another size,
    a component missing, bogus or out of range."""
    form = ptxisa.Form(f"sreg {r.name}", "mov", [], [], r.where)  # stand-in for reports and --forms
    target = r.req.lowest_target()
    if target is None:
        return []
    ptx = max(r.req.ptx, ptxisa.TARGET_MIN_PTX[target.name()])
    if ptx > (9, 0):
        return []
    types = r.type.split("|")
    names = [f"{r.name}0", f"{r.name}{r.count - 1}"] if r.count else [r.name]
    comps = r.components or [""]
    out: list[Sample] = []

    def mov(t: str, operand: str) -> str:
        return f"mov{t} {reg_name(register_for(t), 0)}, {operand}"

    def add(text: str, legal: bool, why: str = "", t: Target = target, v: tuple[int, int] = ptx) -> None:
        out.append(Sample(form, text, t, v, legal, why))

    for name in names:
        for c in comps:
            for t in types:
                add(mov(t, name + c), True)
    first = names[0] + comps[0]
    add(mov(".pred" if types[0] != ".pred" else ".u32", first), False, "a type of another size")
    if r.components:
        add(mov(types[0], names[0]), False, "component missing")
        add(mov(types[0], names[0] + ".q"), False, "bogus component")
    else:
        add(mov(types[0], names[0] + ".x"), False, "a component on a scalar register")
    if r.count:
        add(mov(types[0], f"{r.name}{r.count}" + comps[0]), False, "index out of range")
    for t in reversed(ptxisa.KNOWN_TARGETS):
        if not r.req.allows(t):
            v = max(ptxisa.TARGET_MIN_PTX[t.name()], ptx)
            if v <= (9, 0):
                add(mov(types[0], first), False, f"target {t.name()} not allowed", t, v)
            break
    if r.req.ptx > ptxisa.TARGET_MIN_PTX[target.name()]:
        lower = ptxisa.TARGET_MIN_PTX[target.name()]
        add(mov(types[0], first), False, f"PTX {lower[0]}.{lower[1]} below the minimum", target, lower)
    return out


def samplers_mode(text: str, texmode: str) -> str:
    """.samplerref variables exist only in independent modules: a sample using sample_smp goes in one
    unless its form asks for a mode."""
    return "independent" if not texmode and "sample_smp" in text else texmode


def all_samples(spec: ptxisa.Spec) -> list[Sample]:
    out = []
    forms = list(spec.forms())
    for f in forms:
        out += FormSampler(f, forms).samples()
    for r in spec.sregs:
        out += sreg_samples(r)
    for i, s in enumerate(out):
        s.index = i
    return out


# Targets of control-flow samples (see FormSampler.call_signature): a callee per
# signature (n: none, p: one .b32 parameter, r: one .b32 return value, rp: both),
# a call table, a .calltargets and a .callprototype of each, and .branchtargets.
_SIGS = {"n": ("", "()"), "p": ("", "(.param .b32 a)"), "r": ("(.param .b32 r) ", "()"),
         "rp": ("(.param .b32 r) ", "(.param .b32 a)")}
CALL_CONTEXT_MODULE = [f".func {ret}sample_fn_{s}{params} {{ ret; }}" for s, (ret, params) in _SIGS.items()] + \
    [f".global .u64 sample_calltable_{s}[1] = {{ sample_fn_{s} }};" for s in _SIGS]
CALL_CONTEXT_BODY = ["sample_btargets: .branchtargets $L_sample_end;"] + \
    [f"sample_calltargets_{s}: .calltargets sample_fn_{s};" for s in _SIGS] + \
    [f"sample_callprototype_{s}: .callprototype {ret.replace(' r)', ' _)')}_ {params.replace(' a)', ' _)')};"
     for s, (ret, params) in _SIGS.items()]


# symbol(S): the sample variable of each state space (module_text declares them)
SYMBOL_OF_SPACE = {".global": "sample_global", ".shared": "sample_shared", ".const": "sample_const",
                   ".local": "sample_local", ".param": "sample_param"}


def module_text(samples: list[Sample]) -> tuple[str, dict[int, int]]:
    """One module with one kernel holding the samples; returns it and line -> sample index."""
    t, v = samples[0].target, samples[0].ptx
    independent = samples[0].texmode == "independent"
    lines = [f".version {v[0]}.{v[1]}", f".target {t.name()}" + (", texmode_independent" if independent else ""),
             ".address_size 64", "",
             ".global .align 16 .b8 sample_global[256];", ".shared .align 16 .b8 sample_shared[256];",
             ".const .align 16 .b8 sample_const[256];", ".global .texref sample_tex;",
             ".global .surfref sample_surf;"] + ([".global .samplerref sample_smp;"] if independent else []) + \
        CALL_CONTEXT_MODULE + ["", ".visible .entry samples(.param .u64 sample_param)", "{"]
    for ty in SCALAR_TYPES:
        if ty == ".b128" and v < (8, 3):
            continue
        lines.append(f"\t.reg {ty} %r{ty[1:]}_<{REGS_PER_TYPE}>;")
    lines.append("\t.param .align 16 .b8 sample_local_param[64];")
    lines.append("\t.local .align 16 .b8 sample_local[64];")
    lines += CALL_CONTEXT_BODY
    where = {}
    for s in samples:
        lines.append(f"\t{s.text};")
        where[len(lines)] = s.index
    lines += ["$L_sample_end:", "\tret;", "}", ""]
    return "\n".join(lines), where


def main() -> int:
    spec = ptxisa.load(Path(__file__).resolve().parent.parent / "isa")
    samples = all_samples(spec)
    pattern = sys.argv[2] if len(sys.argv) > 2 and sys.argv[1] == "--list" else None
    for s in samples:
        if pattern is None or pattern in s.form.syntax:
            print(f"{'ok ' if s.legal else 'BAD'} {s.target.name():8s} ptx{s.ptx[0]}.{s.ptx[1]}  {s.text};"
                  + (f"   // {s.why}" if s.why else ""))
    print(f"{len(samples)} samples ({sum(s.legal for s in samples)} legal) from "
          f"{sum(1 for _ in spec.forms())} forms", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
