"""Reads the PTX ISA description in spec/isa/*.isa (format: spec/README.md).

Used by gen_tables.py (C++ tables) and gen_samples.py (ptxas agreement samples).
"""

from __future__ import annotations

import re
import sys
from dataclasses import dataclass, field
from pathlib import Path


class SpecError(Exception):
    def __init__(self, where: str, message: str):
        super().__init__(f"{where}: error: {message}")


# ---------------------------------------------------------------- requirements

TARGET_RE = re.compile(r"^sm_(\d+)([af]?)(\+?)$")


@dataclass(frozen=True)
class TargetCond:
    """One alternative of a target requirement."""

    number: int
    kind: str  # "plus" (sm_N+), "arch" (sm_Na), "family" (sm_Nf), "exact" (sm_N)

    def text(self) -> str:
        return {"plus": f"sm_{self.number}+", "arch": f"sm_{self.number}a", "family": f"sm_{self.number}f",
                "exact": f"sm_{self.number}"}[self.kind]


@dataclass(frozen=True)
class Target:
    """A .target value such as sm_90a."""

    number: int
    suffix: str  # "", "a" or "f"

    @staticmethod
    def parse(text: str) -> "Target | None":
        m = re.fullmatch(r"sm_(\d+)([af]?)", text)
        return Target(int(m.group(1)), m.group(2)) if m else None

    def name(self) -> str:
        return f"sm_{self.number}{self.suffix}"

    def satisfies(self, c: TargetCond) -> bool:
        if c.kind == "plus":
            return self.number >= c.number
        if c.kind == "arch":
            return self.number == c.number and self.suffix == "a"
        if c.kind == "family":
            return self.suffix in ("a", "f") and self.number // 10 == c.number // 10 and self.number >= c.number
        return self.number == c.number and self.suffix == ""


# Targets ptxas 13.0 accepts, in order (oldest first).
KNOWN_TARGETS = [Target.parse(t) for t in (
    "sm_75 sm_80 sm_86 sm_87 sm_88 sm_89 sm_90 sm_90a sm_100 sm_100f sm_100a sm_103 sm_103f sm_103a "
    "sm_110 sm_110f sm_110a sm_120 sm_120f sm_120a sm_121 sm_121f sm_121a").split()]

# Lowest PTX ISA version that accepts each target (ptxas 13.0).
TARGET_MIN_PTX = {
    "sm_75": (6, 3), "sm_80": (7, 0), "sm_86": (7, 1), "sm_87": (7, 4), "sm_88": (7, 3), "sm_89": (7, 8),
    "sm_90": (7, 8), "sm_90a": (8, 0), "sm_100": (8, 6), "sm_100a": (8, 6), "sm_100f": (8, 8),
    "sm_103": (8, 8), "sm_103a": (8, 8), "sm_103f": (8, 8), "sm_110": (9, 0), "sm_110a": (9, 0),
    "sm_110f": (9, 0), "sm_120": (8, 7), "sm_120a": (8, 7), "sm_120f": (8, 8), "sm_121": (8, 8),
    "sm_121a": (8, 8), "sm_121f": (8, 8),
}


@dataclass(frozen=True)
class Requirement:
    ptx: tuple[int, int] = (1, 0)
    # Every inner tuple is a set of alternatives; all of them must hold.
    targets: tuple[tuple[TargetCond, ...], ...] = ()

    def merge(self, other: "Requirement") -> "Requirement":
        return Requirement(max(self.ptx, other.ptx), self.targets + other.targets)

    def allows(self, t: Target) -> bool:
        return all(any(t.satisfies(c) for c in alts) for alts in self.targets)

    def text(self) -> str:
        parts = [f"ptx {self.ptx[0]}.{self.ptx[1]}"] if self.ptx != (1, 0) else []
        parts += ["|".join(c.text() for c in alts) for alts in self.targets]
        return " ".join(parts)

    def lowest_target(self) -> Target | None:
        for t in KNOWN_TARGETS:
            if self.allows(t):
                return t
        return None


def parse_requirement(words: list[str], where: str) -> Requirement:
    ptx = (1, 0)
    targets: list[tuple[TargetCond, ...]] = []
    i = 0
    while i < len(words):
        w = words[i]
        if w == "ptx":
            if i + 1 >= len(words) or not re.fullmatch(r"\d+\.\d+", words[i + 1]):
                raise SpecError(where, "'ptx' needs a version such as 8.0")
            major, minor = words[i + 1].split(".")
            ptx = max(ptx, (int(major), int(minor)))
            i += 2
            continue
        alts = []
        for alt in w.split("|"):
            m = TARGET_RE.match(alt)
            if not m:
                raise SpecError(where, f"bad requirement '{w}' (want ptx X.Y, sm_N+, sm_Na, sm_Nf)")
            number, suffix, plus = int(m.group(1)), m.group(2), m.group(3)
            if plus and suffix:
                raise SpecError(where, f"'{alt}': '+' goes with a plain sm_N")
            kind = "plus" if plus else {"a": "arch", "f": "family", "": "exact"}[suffix]
            alts.append(TargetCond(number, kind))
        targets.append(tuple(alts))
        i += 1
    return Requirement(ptx, tuple(targets))


# ---------------------------------------------------------------- groups, forms

@dataclass
class Value:
    text: str                 # ".rn" or a compound ".relaxed.cta"
    req: Requirement

    @property
    def parts(self) -> list[str]:
        return ["." + p for p in self.text[1:].split(".")]


@dataclass
class Group:
    name: str                 # ".type"
    values: list[Value]
    where: str

    def value(self, text: str) -> Value | None:
        return next((v for v in self.values if v.text == text), None)


@dataclass
class Slot:
    """One place in a form's modifier sequence."""

    names: list[str]          # one name, or several for an optional run {.a.b}
    optional: bool

    def text(self) -> str:
        inner = "".join(self.names)
        return "{" + inner + "}" if self.optional else inner


@dataclass
class OperandSlot:
    name: str
    optional: bool = False
    address: bool = False     # [a]
    pair: str | None = None   # p|q: the second name
    pair_optional: bool = False


@dataclass
class Kind:
    """One alternative of an operand kind."""

    kind: str                 # reg imm pred vec addr label symbol func args texref samplerref surfref sink
    type: str | None = None   # ".b32", ".type" (group), ".type[2]"
    count: str | None = None  # vec: "4" or ".vec"
    space: str | None = None  # addr: ".shared", ".ss", "generic"
    wide: bool = False
    negate: bool = False      # pred(!)

    def text(self) -> str:
        if self.kind == "reg":
            return f"reg({self.type}{', wide' if self.wide else ''})"
        if self.kind == "imm":
            return f"imm({self.type})" if self.type else "imm"
        if self.kind == "pred":
            return "pred(!)" if self.negate else "pred"
        if self.kind == "vec":
            return f"vec({self.count}, {self.type}{', wide' if self.wide else ''})"
        if self.kind == "addr":
            return f"addr({self.space})" if self.space else "addr"
        return self.kind


KIND_RE = re.compile(r"^(\w+)(?:\((.*)\))?$")
KIND_NAMES = {"reg", "imm", "pred", "vec", "addr", "label", "symbol", "func", "args", "texref", "samplerref",
              "surfref", "sink"}


def parse_kinds(text: str, where: str) -> list[Kind]:
    out = []
    for alt in split_top(text, "|"):
        alt = alt.strip()
        m = KIND_RE.match(alt)
        if not m or m.group(1) not in KIND_NAMES:
            raise SpecError(where, f"unknown operand kind '{alt}'")
        name, args = m.group(1), [a.strip() for a in split_top(m.group(2) or "", ",") if a.strip()]
        k = Kind(name)
        if name == "reg":
            if not args:
                raise SpecError(where, "reg needs a type: reg(.b32)")
            k.type = args[0]
            k.wide = "wide" in args[1:]
        elif name == "imm":
            k.type = args[0] if args else None
        elif name == "pred":
            k.negate = args == ["!"]
        elif name == "vec":
            if len(args) < 2 or args[2:] not in ([], ["wide"]):
                raise SpecError(where, "vec needs a count and a type: vec(.vec, .type) or vec(.vec, .type, wide)")
            k.count, k.type = args[:2]
            k.wide = args[2:] == ["wide"]
        elif name == "addr":
            k.space = args[0] if args else "generic"
        out.append(k)
    return out


def split_top(text: str, sep: str) -> list[str]:
    """Splits on `sep` outside parentheses, braces and brackets."""
    parts, depth, cur = [], 0, ""
    for ch in text:
        if ch in "([{":
            depth += 1
        elif ch in ")]}":
            depth -= 1
        if ch == sep and depth == 0:
            parts.append(cur)
            cur = ""
        else:
            cur += ch
    parts.append(cur)
    return parts


@dataclass
class Form:
    syntax: str
    opcode: str
    slots: list[Slot]
    operands: list[OperandSlot]
    where: str
    groups: dict[str, Group] = field(default_factory=dict)   # `where` overrides
    kinds: dict[str, list[Kind]] = field(default_factory=dict)
    req: Requirement = field(default_factory=Requirement)
    notes: list[str] = field(default_factory=list)
    block: "Block | None" = None
    index: int = 0

    def group(self, name: str) -> Group | None:
        return self.groups.get(name) or (self.block.groups.get(name) if self.block else None)

    def kind(self, operand: str) -> list[Kind] | None:
        return self.kinds.get(operand) or (self.block.kinds.get(operand) if self.block else None)

    def requirement(self) -> Requirement:
        return self.block.req.merge(self.req) if self.block else self.req


@dataclass
class Block:
    opcode: str
    sections: list[str]
    where: str
    forms: list[Form] = field(default_factory=list)
    groups: dict[str, Group] = field(default_factory=dict)
    kinds: dict[str, list[Kind]] = field(default_factory=dict)
    req: Requirement = field(default_factory=Requirement)
    notes: list[str] = field(default_factory=list)
    deprecated: bool = False
    strict_order: bool = False   # ptxas wants the manual's modifier order (`order strict`)


@dataclass
class Chapter:
    section: str
    opcode: str
    title: str
    where: str


@dataclass
class SpecialRegister:
    name: str                 # "%tid"; for a numbered family "%envreg" with count 32
    type: str                 # ".u32"
    components: list[str]     # [".x", ".y", ".z"] for vector registers
    count: int                # %envreg<32>: 32 registers %envreg0..%envreg31; 0 = just the name
    req: Requirement
    section: str
    where: str


@dataclass
class Spec:
    chapters: list[Chapter] = field(default_factory=list)
    blocks: list[Block] = field(default_factory=list)
    sregs: list[SpecialRegister] = field(default_factory=list)

    def forms(self):
        for b in self.blocks:
            yield from b.forms


# ---------------------------------------------------------------- parsing

MOD_RE = re.compile(r"\.[A-Za-z0-9_$]+(?:::[A-Za-z0-9_$]+)*")


def parse_form_syntax(syntax: str, where: str) -> tuple[str, list[Slot], list[OperandSlot]]:
    m = re.match(r"^([A-Za-z_][A-Za-z0-9_]*)", syntax)
    if not m:
        raise SpecError(where, f"form must start with an opcode: '{syntax}'")
    opcode = m.group(1)
    i = m.end()
    slots: list[Slot] = []
    while i < len(syntax) and syntax[i] in ".{":
        if syntax[i] == ".":
            mm = MOD_RE.match(syntax, i)
            slots.append(Slot([mm.group(0)], False))
            i = mm.end()
        else:
            close = syntax.find("}", i)
            if close < 0:
                raise SpecError(where, "unclosed '{' in the modifiers")
            inner = syntax[i + 1:close]
            names = MOD_RE.findall(inner)
            if not names or "".join(names) != inner:
                # `{, c}` starts the operands
                break
            slots.append(Slot(names, True))
            i = close + 1
    rest = syntax[i:].strip()
    operands: list[OperandSlot] = []
    # Operands: d, [a], p|q, p{|q}, {, c} (optional, also {, [a]})
    j = 0
    first = True
    while j < len(rest):
        ch = rest[j]
        if ch in " \t":
            j += 1
            continue
        optional = False
        if rest.startswith("{,", j) or (first and rest.startswith("{", j) and not rest.startswith("{|", j)):
            close = rest.find("}", j)
            if close < 0:
                raise SpecError(where, "unclosed '{' in the operands")
            inner = rest[j + 1:close].strip()
            if inner.startswith(","):
                inner = inner[1:].strip()
            elif not first:
                raise SpecError(where, f"optional operand must be written {{, x}}: '{rest}'")
            operands.append(parse_operand_slot(inner, True, where))
            j = close + 1
            first = False
            continue
        if ch == ",":
            j += 1
            continue
        # a plain operand up to the next top-level comma or '{,'
        k = j
        depth = 0
        while k < len(rest):
            if rest[k] in "[(":
                depth += 1
            elif rest[k] in "])":
                depth -= 1
            elif depth == 0 and (rest[k] == "," or rest.startswith("{,", k)):
                break
            elif depth == 0 and rest[k] == "{" and not rest.startswith("{|", k):
                break
            k += 1
        operands.append(parse_operand_slot(rest[j:k].strip(), optional, where))
        j = k
        first = False
    return opcode, slots, operands


def parse_operand_slot(text: str, optional: bool, where: str) -> OperandSlot:
    m = re.fullmatch(r"\[([A-Za-z_][\w-]*)\]", text)
    if m:
        return OperandSlot(m.group(1), optional, address=True)
    m = re.fullmatch(r"([A-Za-z_][\w-]*)\{\|([A-Za-z_][\w-]*)\}", text)
    if m:
        return OperandSlot(m.group(1), optional, pair=m.group(2), pair_optional=True)
    m = re.fullmatch(r"([A-Za-z_][\w-]*)\|([A-Za-z_][\w-]*)", text)
    if m:
        return OperandSlot(m.group(1), optional, pair=m.group(2))
    m = re.fullmatch(r"[A-Za-z_][\w-]*", text)
    if m:
        return OperandSlot(text, optional)
    raise SpecError(where, f"cannot read operand '{text}'")


GROUP_RE = re.compile(r"^(\.[\w:$]+)\s*=\s*\{(.*)\}\s*$")


def parse_group(text: str, where: str) -> Group:
    m = GROUP_RE.match(text)
    if not m:
        raise SpecError(where, f"cannot read group '{text}'")
    values = []
    for item in split_top(m.group(2), ","):
        item = item.strip()
        if not item:
            continue
        vm = re.fullmatch(r"(\.[\w:$.]+)\s*(?:\[(.*)\])?", item)
        if not vm:
            raise SpecError(where, f"cannot read group value '{item}'")
        req = parse_requirement(vm.group(2).split(), where) if vm.group(2) else Requirement()
        values.append(Value(vm.group(1), req))
    if not values:
        raise SpecError(where, f"group {m.group(1)} has no values")
    return Group(m.group(1), values, where)


def load(spec_dir: Path) -> Spec:
    spec = Spec()
    for path in sorted(spec_dir.glob("*.isa")):
        parse_file(path, spec)
    check(spec)
    return spec


def parse_file(path: Path, spec: Spec) -> None:
    block: Block | None = None
    form: Form | None = None
    for lineno, raw in enumerate(path.read_text().splitlines(), 1):
        where = f"{path}:{lineno}"
        line = raw.split("#", 1)[0].rstrip()
        if not line.strip():
            continue
        indent = len(line) - len(line.lstrip())
        text = line.strip()
        if indent == 0:
            form = None
            words = text.split()
            if words[0] == "chapter":
                m = re.fullmatch(r'chapter\s+([\d.]+)\s+(\S+)\s+"(.*)"', text)
                if not m:
                    raise SpecError(where, 'want: chapter SECTION OPCODE "TITLE"')
                spec.chapters.append(Chapter(m.group(1), m.group(2), m.group(3), where))
                block = None
            elif words[0] == "sreg":
                # sreg NAME[<N>] TYPE [.c ...] SECTION [requires R...]
                head, _, req_text = text.partition(" requires ")
                parts = head.split()
                m = re.fullmatch(r"(%[\w$]+)(?:<(\d+)>)?", parts[1]) if len(parts) >= 4 else None
                if not m or not parts[2].startswith(".") or not re.fullmatch(r"[\d.]+", parts[-1]):
                    raise SpecError(where, "want: sreg NAME[<N>] TYPE [.COMPONENT...] SECTION [requires ...]")
                spec.sregs.append(SpecialRegister(m.group(1), parts[2], parts[3:-1], int(m.group(2) or 0),
                                                  parse_requirement(req_text.split(), where), parts[-1], where))
                block = None
            elif words[0] == "instruction":
                if len(words) < 3:
                    raise SpecError(where, "want: instruction OPCODE SECTION...")
                block = Block(words[1], words[2:], where)
                spec.blocks.append(block)
            else:
                raise SpecError(where, f"expected 'instruction', 'sreg' or 'chapter', found '{words[0]}'")
            continue
        if block is None:
            raise SpecError(where, "indented line outside a block")
        form_line = form is not None and indent > form_indent
        target_reqs = form.req if form_line else block.req
        if text.startswith("form "):
            opcode, slots, operands = parse_form_syntax(text[5:].strip(), where)
            if opcode != block.opcode:
                raise SpecError(where, f"form opcode '{opcode}' differs from the block's '{block.opcode}'")
            form = Form(text[5:].strip(), opcode, slots, operands, where, block=block, index=len(block.forms))
            form_indent = indent
            block.forms.append(form)
        elif text.startswith("requires "):
            req = parse_requirement(text.split()[1:], where)
            if form_line:
                form.req = target_reqs.merge(req)
            else:
                block.req = block.req.merge(req)
                form = None
        elif text.startswith("where "):
            if not form_line:
                raise SpecError(where, "'where' belongs under a form")
            for g in split_top(text[6:], ";"):
                grp = parse_group(g.strip(), where)
                form.groups[grp.name] = grp
        elif text.startswith("note "):
            (form.notes if form_line else block.notes).append(text[5:].strip())
        elif text == "deprecated":
            block.deprecated = True
        elif text == "order strict":
            block.strict_order = True
        elif text.startswith("."):
            grp = parse_group(text, where)
            if form_line:
                form.groups[grp.name] = grp
            else:
                if grp.name in block.groups:
                    raise SpecError(where, f"group {grp.name} defined twice")
                block.groups[grp.name] = grp
                form = None
        elif re.match(r"^[A-Za-z_][\w-]*(\s*,\s*[A-Za-z_][\w-]*)*\s*:", text):
            names, kinds = text.split(":", 1)
            parsed = parse_kinds(kinds.strip(), where)
            for n in names.split(","):
                (form.kinds if form_line else block.kinds)[n.strip()] = parsed
            if not form_line:
                form = None
        else:
            raise SpecError(where, f"cannot read '{text}'")


def check(spec: Spec) -> None:
    """Consistency: every operand has a kind, every type reference names a group."""
    for f in spec.forms():
        for op in f.operands:
            for name in [op.name] + ([op.pair] if op.pair else []):
                kinds = f.kind(name)
                if not kinds:
                    raise SpecError(f.where, f"operand '{name}' of '{f.syntax}' has no kind")
                for k in kinds:
                    for ref in (k.type, k.count, k.space):
                        if ref and ref.startswith(".") and not is_literal_type(ref):
                            base = ref.split("[")[0]
                            if not f.group(base) or not any(base in s.names for s in f.slots):
                                raise SpecError(f.where, f"'{ref}' in the kind of '{name}' is not a group used by "
                                                         f"'{f.syntax}' (add a slot, or a 'where' with one value)")
        for s in f.slots:
            for n in s.names:
                g = f.group(n)
                if g is None and n in ("", "."):
                    raise SpecError(f.where, "empty modifier")


LITERAL_TYPES = {
    ".pred", ".b8", ".b16", ".b32", ".b64", ".b128", ".u8", ".u16", ".u32", ".u64", ".s8", ".s16", ".s32", ".s64",
    ".f16", ".f16x2", ".bf16", ".bf16x2", ".f32", ".f64", ".tf32", ".e4m3", ".e5m2", ".e4m3x2", ".e5m2x2",
    ".u16x2", ".s16x2", ".f32x2", ".e2m3x2", ".e3m2x2", ".e2m1x2", ".ue8m0x2", ".b4", ".s4", ".u4", ".b1",
    ".texref", ".samplerref", ".surfref", ".global", ".shared", ".local", ".const", ".param", ".shared::cta",
    ".shared::cluster", ".param::entry", ".param::func",
}


def is_literal_type(t: str) -> bool:
    return t in LITERAL_TYPES


if __name__ == "__main__":
    s = load(Path(sys.argv[1]) if len(sys.argv) > 1 else Path(__file__).resolve().parent.parent / "isa")
    print(f"{len(s.blocks)} blocks, {sum(len(b.forms) for b in s.blocks)} forms, {len(s.chapters)} chapter entries, "
          f"{len(s.sregs)} special registers")


# ---------------------------------------------------------------- matching
# How ptxas reads modifiers: in the manual's order, or (unless the block says
# `order strict`) in any order as long as the types keep their relative order.
# The C++ validator (src/spec/form_match.cpp) implements the same rules.

def is_type_text(text: str) -> bool:
    return text in LITERAL_TYPES and not text.startswith((".global", ".shared", ".local", ".const", ".param"))


@dataclass
class _Item:
    slot: int
    text: str | None          # literal
    group: Group | None
    is_type: bool


def _items(form: Form) -> list[_Item]:
    out = []
    for si, slot in enumerate(form.slots):
        for n in slot.names:
            g = form.group(n)
            if g is not None:
                out.append(_Item(si, None, g, all(is_type_text(v.text) for v in g.values)))
            else:
                out.append(_Item(si, n, None, is_type_text(n)))
    return out


def match_strict(form: Form, mods: list[str]) -> dict[str, Value] | None:
    items = _items(form)

    def rec(i: int, j: int, chosen: dict) -> dict | None:
        if i == len(form.slots):
            return chosen if j == len(mods) else None
        slot_items = [it for it in items if it.slot == i]
        if form.slots[i].optional:
            r = rec(i + 1, j, chosen)
            if r is not None:
                return r

        def take(k: int, jj: int, ch: dict) -> dict | None:
            if k == len(slot_items):
                return rec(i + 1, jj, ch)
            it = slot_items[k]
            if it.group is None:
                return take(k + 1, jj + 1, ch) if jj < len(mods) and mods[jj] == it.text else None
            for v in it.group.values:
                n = len(v.parts)
                if mods[jj:jj + n] == v.parts:
                    r = take(k + 1, jj + n, {**ch, it.group.name: v})
                    if r is not None:
                        return r
            return None
        return take(0, j, chosen)

    return rec(0, 0, {})


def match_relaxed(form: Form, mods: list[str]) -> dict[str, Value] | None:
    """Any order, except that type modifiers keep the form's relative order."""
    items = _items(form)
    used = [False] * len(items)

    def rec(j: int, chosen: dict, last_type: int) -> dict | None:
        if j == len(mods):
            # every required slot fully used, every optional slot all-or-nothing
            for si, slot in enumerate(form.slots):
                flags = [used[k] for k, it in enumerate(items) if it.slot == si]
                if (not slot.optional and not all(flags)) or (slot.optional and any(flags) and not all(flags)):
                    return None
            return chosen
        for k, it in enumerate(items):
            if used[k]:
                continue
            if it.is_type and k < last_type:
                continue
            if it.group is None:
                if mods[j] != it.text:
                    continue
                used[k] = True
                r = rec(j + 1, chosen, k if it.is_type else last_type)
                used[k] = False
                if r is not None:
                    return r
            else:
                for v in it.group.values:
                    n = len(v.parts)
                    if mods[j:j + n] != v.parts:
                        continue
                    used[k] = True
                    r = rec(j + n, {**chosen, it.group.name: v}, k if it.is_type else last_type)
                    used[k] = False
                    if r is not None:
                        return r
        return None

    return rec(0, {}, -1)


def match_form(form: Form, mods: list[str]) -> tuple[dict[str, Value], bool] | None:
    """(chosen values by group, whether in the manual's order), or None."""
    r = match_strict(form, mods)
    if r is not None:
        return r, True
    if form.block is not None and form.block.strict_order:
        return None
    r = match_relaxed(form, mods)
    return (r, False) if r is not None else None


def split_mnemonic(text: str) -> tuple[str, list[str]]:
    """'ld.global.shared::cta.u32' -> ('ld', ['.global', '.shared::cta', '.u32'])"""
    head, _, rest = text.partition(".")
    return head, MOD_RE.findall("." + rest) if rest else []
