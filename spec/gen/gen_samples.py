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

# Types that are spelled in instructions but held in registers of another type.
REGISTER_TYPE = {
    ".f16x2": ".b32", ".bf16x2": ".b32", ".u16x2": ".b32", ".s16x2": ".b32", ".f32x2": ".b64",
    ".e4m3x2": ".b16", ".e5m2x2": ".b16", ".e2m3x2": ".b16", ".e3m2x2": ".b16", ".e2m1x2": ".b8",
    ".ue8m0x2": ".b16", ".tf32": ".b32", ".e4m3": ".b8", ".e5m2": ".b8", ".bf16": ".b16", ".b1": ".b32",
    ".u4": ".b32", ".s4": ".b32", ".b4": ".b32",
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
        rows = []
        for i in range(n):
            rows.append([o[i % len(o)] for o in options])
        return rows

    # ---- operands ---------------------------------------------------------------------
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
            return reg(self.resolve(kind.type, chosen))
        if kind.kind == "pred":
            return reg(".pred") if not bad_type else reg(".u32")
        if kind.kind == "imm":
            t = self.resolve(kind.type, chosen) if kind.type else ".u32"
            if bad_type:
                return "1" if is_float(t) else "0f3F800000"
            if is_float(t):
                return "0d3FF0000000000000" if register_for(t) == ".f64" else "0f3F800000"
            return "1"
        if kind.kind == "vec":
            t = self.resolve(kind.type, chosen)
            count = kind.count
            if count and not count.isdigit():
                v = chosen.get(count)
                if v is None:
                    return reg(t)
                n = int(v[2:])
            else:
                n = int(count)
            return "{" + ", ".join(reg(t) for _ in range(n)) + "}"
        if kind.kind == "addr":
            space = self.resolve(kind.space, chosen)
            if bad_type:
                return reg(".u64")  # not an address
            if space in (".shared", ".shared::cta", ".shared::cluster"):
                return "[" + reg(".u32") + "]"
            if space in (".param", ".param::entry", ".param::func"):
                return "[sample_local_param]"
            return "[" + reg(".u64") + "]"
        if kind.kind in ("texref", "samplerref", "surfref"):
            return {"texref": "sample_tex", "samplerref": "sample_smp", "surfref": "sample_surf"}[kind.kind]
        if kind.kind == "label":
            return "$L_sample_end"
        if kind.kind == "symbol":
            return "sample_global"
        if kind.kind == "sink":
            return "_"
        return None

    def operands(self, chosen: dict[str, str], kind_pick: int, with_optional: bool,
                 bad_operand: int = -1) -> list[str] | None:
        counter: dict[str, int] = {}
        out = []
        for i, op in enumerate(self.f.operands):
            if op.optional and not with_optional:
                continue
            kinds = self.f.kind(op.name)
            k = kinds[kind_pick % len(kinds)]
            text = self.operand_text(k, chosen, counter, bad_type=(i == bad_operand))
            if text is None:
                return None
            if op.pair:
                pk = self.f.kind(op.pair)[0]
                second = self.operand_text(pk, chosen, counter)
                if second is None:
                    return None
                text = f"{text}|{second}"
            out.append(text)
        return out

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

    def samples(self) -> list[Sample]:
        f = self.f
        out: list[Sample] = []
        rows = self.choices()
        kind_count = max((len(f.kind(o.name)) for o in f.operands), default=1)
        first_legal: tuple | None = None
        for i, row in enumerate(rows):
            req = self.requirement(row)
            placed = self.place(req)
            if placed is None:
                continue
            target, ptx = placed
            chosen = {g: text for opt in row for text, v, g in opt if g}
            mods = "".join(text for opt in row for text, _, _ in opt)
            has_optional = any(o.optional for o in f.operands)
            variants = [(k, True) for k in range(max(1, kind_count if i == 0 else 1))]
            if has_optional:
                variants.append((0, False))
            for kind_pick, with_opt in variants:
                ops = self.operands(chosen, kind_pick, with_opt)
                if ops is None:
                    continue
                text = f"{f.opcode}{mods} " + ", ".join(ops) if ops else f"{f.opcode}{mods}"
                out.append(Sample(f, text.strip(), target, ptx, True, ""))
                if first_legal is None:
                    first_legal = (row, chosen, mods, target, ptx, req)
        if first_legal:
            out += self.illegal(*first_legal)
        return out

    def classify(self, mods_text: str) -> str:
        """'same' if the modifiers fit this form, 'other' if another form of the opcode, else 'none'."""
        mods = ptxisa.split_mnemonic(self.f.opcode + mods_text)[1]
        if ptxisa.match_form(self.f, mods) is not None:
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

        def add(text: str, why: str, t: Target = target, v: tuple[int, int] = ptx, legal: bool = False) -> None:
            out.append(Sample(f, text, t, v, legal, why))

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
            verdict = self.classify(text)
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
            kinds = f.kind(op.name)
            if kinds[0].kind in ("reg", "pred", "vec"):
                bad_ops = self.operands(chosen, 0, True, bad_operand=oi)
                if bad_ops:
                    add(inst(mods, bad_ops), f"operand {op.name} of the wrong type")
                break
        # operand count
        required = [o for o in f.operands if not o.optional]
        if required:
            add(inst(mods, ops + ["1"] if all(not o.optional for o in f.operands) else ops + ["1", "1"]),
                "too many operands")
            if len(ops) > 0:
                add(inst(mods, ops[:len(required) - 1]), "too few operands")
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
        return out


def all_samples(spec: ptxisa.Spec) -> list[Sample]:
    out = []
    forms = list(spec.forms())
    for f in forms:
        out += FormSampler(f, forms).samples()
    for i, s in enumerate(out):
        s.index = i
    return out


def module_text(samples: list[Sample]) -> tuple[str, dict[int, int]]:
    """One module with one kernel holding the samples; returns it and line -> sample index."""
    t, v = samples[0].target, samples[0].ptx
    lines = [f".version {v[0]}.{v[1]}", f".target {t.name()}", ".address_size 64", "",
             ".global .align 16 .b8 sample_global[256];", ".global .texref sample_tex;",
             ".global .surfref sample_surf;", "",
             ".visible .entry samples(.param .u64 sample_param)", "{"]
    for ty in SCALAR_TYPES:
        if ty == ".b128" and v < (8, 3):
            continue
        lines.append(f"\t.reg {ty} %r{ty[1:]}_<{REGS_PER_TYPE}>;")
    lines.append("\t.param .align 16 .b8 sample_local_param[64];")
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
