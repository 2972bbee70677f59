#!/usr/bin/env python3
"""Generates the C++ ISA tables from spec/isa/*.isa.

    gen_tables.py SPEC_DIR OUT.inc

The output is included by src/spec/isa.cpp; its types are declared in
include/ptxpp/spec/isa.hpp. Every group, kind and requirement is resolved
per form here, so the C++ side only indexes flat arrays.
"""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import ptxisa  # noqa: E402


def cstr(s: str) -> str:
    return '"' + s.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n") + '"'


class Tables:
    def __init__(self) -> None:
        self.target_conds: list[str] = []
        self.target_sets: list[str] = []
        self.values: list[str] = []
        self.groups: list[str] = []
        self.group_ids: dict[int, int] = {}  # id(Group) -> index
        self.slot_items: list[str] = []
        self.slots: list[str] = []
        self.kinds: list[str] = []
        self.operands: list[str] = []
        self.members: list[str] = []      # operands of bracketed lists [a, b, c]
        self.imm_values: list[str] = []   # imm(.u32, 4, 8, 16): {low, high, step} ranges
        self.forms: list[str] = []
        self.blocks: list[str] = []
        self.chapters: list[str] = []
        self.sregs: list[str] = []
        self.directives: list[str] = []

    def requirement(self, r: ptxisa.Requirement) -> str:
        first = len(self.target_sets)
        for alts in r.targets:
            c0 = len(self.target_conds)
            for c in alts:
                kind = {"plus": "Plus", "arch": "Arch", "family": "Family", "exact": "Exact"}[c.kind]
                self.target_conds.append(f"{{{c.number}, TargetKind::{kind}}}")
            self.target_sets.append(f"{{{c0}, {len(alts)}}}")
        texmode = {"": "Any", "unified": "Unified", "independent": "Independent"}[r.texmode]
        return f"{{{{{r.ptx[0]}, {r.ptx[1]}}}, {first}, {len(r.targets)}, TexMode::{texmode}}}"

    def group(self, g: ptxisa.Group) -> int:
        key = id(g)
        if key not in self.group_ids:
            v0 = len(self.values)
            for v in g.values:
                self.values.append(f"{{{cstr(v.text)}, {len(v.parts)}, {self.requirement(v.req)}}}")
            self.groups.append(f"{{{cstr(g.name)}, {v0}, {len(g.values)}}}")
            self.group_ids[key] = len(self.groups) - 1
        return self.group_ids[key]

    def ref(self, form: ptxisa.Form, name: str | None) -> str:
        """A type, count or space reference: a group of the form, or a literal."""
        if not name:
            return "{}"
        doubled = name.endswith("[2]")
        base = name[:-3] if doubled else name
        g = form.group(base)
        if g is not None:
            return f"{{true, {str(doubled).lower()}, {self.group(g)}, {cstr(base)}}}"
        return f"{{false, {str(doubled).lower()}, 0, {cstr(base)}}}"

    def kind_list(self, form: ptxisa.Form, kinds: list[ptxisa.Kind]) -> tuple[int, int]:
        k0 = len(self.kinds)
        for k in kinds:
            tag = {"reg": "Reg", "imm": "Imm", "pred": "Pred", "vec": "Vec", "addr": "Addr", "label": "Label",
                   "symbol": "Symbol", "func": "Func", "args": "Args", "texref": "TexRef",
                   "samplerref": "SamplerRef", "surfref": "SurfRef", "sink": "Sink"}[k.kind]
            count_literal = int(k.count) if k.count and k.count.isdigit() else 0
            count = "{}" if (not k.count or k.count.isdigit()) else self.ref(form, k.count)
            count_letter = f"'{k.count_letter}'" if k.count_letter else "0"
            count_op = f"'{k.count_op}'" if k.count_op else "0"
            self.kinds.append(
                f"{{KindTag::{tag}, {self.ref(form, k.type)}, {count_literal}, {count}, {self.ref(form, k.space)}, "
                f"{str(k.wide).lower()}, {str(k.negate).lower()}, {count_letter}, {count_op}, {k.count_factor}, "
                f"{str(k.imm).lower()}, {len(self.imm_values)}, {len(k.values)}, {str(k.exact).lower()}, "
                f"{self.ref(form, k.component)}, {str(k.component_optional).lower()}, {str(k.unified).lower()}}}")
            self.imm_values += [f"{{{lo}, {hi}, {st}}}" for lo, hi, st in k.values]
        return k0, len(kinds)

    def operand(self, f: ptxisa.Form, op: ptxisa.OperandSlot) -> str:
        m0 = len(self.members)
        if op.members:
            rows = [self.operand(f, m) for m in op.members]  # members are plain operands
            m0 = len(self.members)
            self.members += rows
        k0, kn = self.kind_list(f, f.kind(op.name)) if not op.members else (0, 0)
        p0, pn = self.kind_list(f, f.kind(op.pair)) if op.pair else (0, 0)
        tie = f.tie(op.name) if not op.members else None
        if_group = self.group(f.group(tie)) if tie else 0xFFFFFFFF
        return (f"{{{cstr(op.name)}, {str(op.optional).lower()}, {str(op.address).lower()}, "
                f"{cstr(op.pair or '')}, {str(op.pair_optional).lower()}, {k0}, {kn}, {p0}, {pn}, "
                f"{m0}, {len(op.members)}, {if_group}u, {self.requirement(f.op_req(op.name))}, "
                f"{self.requirement(f.op_req(op.pair)) if op.pair else '{}'}}}")

    def form(self, f: ptxisa.Form, block_index: int) -> None:
        s0 = len(self.slots)
        for s in f.slots:
            i0 = len(self.slot_items)
            for n in s.names:
                g = f.group(n)
                if g is not None:
                    texts = [v.text for v in g.values]
                    is_type = all(ptxisa.is_type_text(t) for t in texts)
                    self.slot_items.append(f"{{true, {self.group(g)}, {cstr(n)}, {str(is_type).lower()}, "
                                           f"{ptxisa.order_class(f.block, texts)}}}")
                else:
                    self.slot_items.append(f"{{false, 0, {cstr(n)}, {str(ptxisa.is_type_text(n)).lower()}, "
                                           f"{ptxisa.order_class(f.block, [n])}}}")
            self.slots.append(f"{{{i0}, {len(s.names)}, {str(s.optional).lower()}}}")
        o0 = len(self.operands)
        for op in f.operands:
            self.operands.append(self.operand(f, op))
        self.forms.append(
            f"{{{cstr(f.opcode)}, {cstr(f.syntax)}, {s0}, {len(f.slots)}, {o0}, {len(f.operands)}, "
            f"{self.requirement(f.requirement())}, {block_index}, {cstr(f.where)}}}")

    def emit(self, spec: ptxisa.Spec) -> str:
        # Forms sorted by opcode (stable: the spec's order within an opcode), for lookup.
        order = sorted(((f.opcode, bi, fi) for bi, b in enumerate(spec.blocks) for fi, f in enumerate(b.forms)),
                       key=lambda t: t[0])
        for _, bi, fi in order:
            self.form(spec.blocks[bi].forms[fi], bi)
        for bi, b in enumerate(spec.blocks):
            notes = "\n".join(b.notes + [n for f in b.forms for n in f.notes])  # one note per line
            self.blocks.append(f"{{{cstr(b.opcode)}, {cstr(' '.join(b.sections))}, {str(b.deprecated).lower()}, "
                               f"{str(b.strict_order).lower()}, "
                               f"{cstr(notes)}, {cstr(b.where)}, {b.head}}}")
        for c in spec.chapters:
            self.chapters.append(f"{{{cstr(c.section)}, {cstr(c.opcode)}, {cstr(c.title)}}}")
        for r in sorted(spec.sregs, key=lambda r: r.name):
            comps = "".join(r.components)
            self.sregs.append(f"{{{cstr(r.name)}, {cstr(r.type)}, {cstr(comps)}, {r.count}, "
                              f"{self.requirement(r.req)}, {cstr(r.section)}}}")

        places = {"module": 1, "body": 2, "entry": 4, "func": 8, "proto": 16, "entry-param": 32, "func-param": 64,
                  "none": 0}
        for d in sorted(spec.directives, key=lambda d: d.name):
            removed = d.removed or (0, 0)
            self.directives.append(
                f"{{{cstr(d.name)}, {cstr(d.section)}, {sum(places[p] for p in d.places)}, {str(d.counted).lower()}, "
                f"{d.min_operands}, {255 if d.max_operands is None else d.max_operands}, {cstr(' '.join(d.needs))}, "
                f"{cstr(' '.join(d.conflicts))}, {{{removed[0]}, {removed[1]}}}, {str(d.deprecated).lower()}, "
                f"{self.requirement(d.req)}, {cstr(' '.join(d.notes))}}}")

        def array(ctype: str, name: str, rows: list[str]) -> str:
            if not rows:
                return f"constexpr std::array<{ctype}, 0> {name}{{}};\n"
            body = ",\n".join("    " + r for r in rows)
            return f"constexpr std::array<{ctype}, {len(rows)}> {name}{{{{\n{body}}}}};\n"

        out = ["// Generated by spec/gen/gen_tables.py from spec/isa/*.isa. Do not edit.\n"]
        out.append(array("TargetCond", "kTargetConds", self.target_conds))
        out.append(array("TargetSet", "kTargetSets", self.target_sets))
        out.append(array("Value", "kValues", self.values))
        out.append(array("Group", "kGroups", self.groups))
        out.append(array("SlotItem", "kSlotItems", self.slot_items))
        out.append(array("Slot", "kSlots", self.slots))
        out.append(array("Kind", "kKinds", self.kinds))
        out.append(array("Operand", "kOperands", self.operands))
        out.append(array("Operand", "kMembers", self.members))
        out.append(array("ImmRange", "kImmValues", self.imm_values))
        out.append(array("Form", "kForms", self.forms))
        out.append(array("Block", "kBlocks", self.blocks))
        out.append(array("Chapter", "kChapters", self.chapters))
        out.append(array("SpecialRegister", "kSpecialRegisters", self.sregs))
        out.append(array("DirectiveSpec", "kDirectives", self.directives))
        return "".join(out)


def main() -> int:
    return ptxisa.generator_main(lambda spec: Tables().emit(spec), "OUT.inc")


if __name__ == "__main__":
    sys.exit(main())
