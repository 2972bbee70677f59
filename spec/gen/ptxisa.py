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
    # "unified" or "independent": the module's texturing mode (.target ..., texmode_independent)
    texmode: str = ""

    def merge(self, other: "Requirement") -> "Requirement":
        return Requirement(max(self.ptx, other.ptx), self.targets + other.targets, other.texmode or self.texmode)

    def allows(self, t: Target) -> bool:
        return all(any(t.satisfies(c) for c in alts) for alts in self.targets)

    def text(self) -> str:
        parts = [f"ptx {self.ptx[0]}.{self.ptx[1]}"] if self.ptx != (1, 0) else []
        parts += ["|".join(c.text() for c in alts) for alts in self.targets]
        parts += [f"texmode_{self.texmode}"] if self.texmode else []
        return " ".join(parts)

    def lowest_target(self) -> Target | None:
        for t in KNOWN_TARGETS:
            if self.allows(t):
                return t
        return None


def parse_requirement(words: list[str], where: str) -> Requirement:
    ptx = (1, 0)
    targets: list[tuple[TargetCond, ...]] = []
    texmode = ""
    i = 0
    while i < len(words):
        w = words[i]
        if w in ("texmode_unified", "texmode_independent"):
            texmode = w.split("_")[1]
            i += 1
            continue
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
                raise SpecError(where, f"bad requirement '{w}' (want ptx X.Y, sm_N+, sm_Na, sm_Nf, texmode_...)")
            number, suffix, plus = int(m.group(1)), m.group(2), m.group(3)
            if plus and suffix:
                raise SpecError(where, f"'{alt}': '+' goes with a plain sm_N")
            kind = "plus" if plus else {"a": "arch", "f": "family", "": "exact"}[suffix]
            alts.append(TargetCond(number, kind))
        targets.append(tuple(alts))
        i += 1
    return Requirement(ptx, tuple(targets), texmode)


# ---------------------------------------------------------------- groups, forms

@dataclass
class Value:
    text: str                 # ".rn" or a compound ".relaxed.cta"
    req: Requirement

    @property
    def parts(self) -> list[str]:
        return ["." + p for p in self.text[1:].split(".")]

    @property
    def is_pattern(self) -> bool:
        """A value with character classes, `.b[0-7][0-7]` (component groups only)."""
        return "[" in self.text

    def matches(self, text: str) -> bool:
        """Whether `text` is this value (a pattern: one of the texts it stands for)."""
        if not self.is_pattern:
            return text == self.text
        parts = PATTERN_CLASS.split(self.text)  # literal, class, literal, class, ...
        return re.fullmatch("".join(re.escape(t) if i % 2 == 0 else "[" + t + "]" for i, t in enumerate(parts)),
                            text) is not None

    def samples(self) -> list[str]:
        """Texts to sample: the value itself, or a pattern's lowest and highest texts."""
        if not self.is_pattern:
            return [self.text]
        lo = PATTERN_CLASS.sub(lambda m: m.group(1)[0], self.text)
        hi = PATTERN_CLASS.sub(lambda m: m.group(1)[-1], self.text)
        return [lo] if lo == hi else [lo, hi]


PATTERN_CLASS = re.compile(r"\[([0-9A-Za-z-]+)\]")


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
    # [a, b, c] / [a, {b,} c]: a bracketed list of operands (texture, surface and
    # tensor-map accesses); each member has its own kind. Empty for plain operands.
    members: list["OperandSlot"] = field(default_factory=list)

    def names(self) -> list[str]:
        """The operand names this slot binds (the members of a bracketed list)."""
        if self.members:
            return [n for m in self.members for n in m.names()]
        return [self.name] + ([self.pair] if self.pair else [])


@dataclass
class Kind:
    """One alternative of an operand kind."""

    kind: str                 # reg imm pred vec addr label symbol func args texref samplerref surfref sink
    type: str | None = None   # ".b32", ".type" (group), ".type[2]"
    count: str | None = None  # vec: "4" or ".vec" (a group)
    space: str | None = None  # addr: ".shared", ".ss", "generic"
    wide: bool = False
    negate: bool = False      # pred(!)
    # vec(.shape:n/2, ...): the count is the number after `count_letter` in the
    # chosen value of group `count`, then `count_op` ("*" or "/") `count_factor`.
    count_letter: str = ""
    count_op: str = ""
    count_factor: int = 1
    imm: bool = False         # vec(..., imm): elements may also be immediates
    # imm(.u32, 4, 8, 16), imm(.u32, 0..1048560/16): the legal values, as (low, high, step) ranges
    values: list[tuple[int, int, int]] = field(default_factory=list)
    # label(branchtargets), label(calltargets), label(callprototype), symbol(calltable):
    # what the name must refer to (the label of that directive, a call table)
    of: str = ""
    # reg(.b32, exact), addr(tmem, .b32, exact): the register's declared type must be T
    # itself (no other type of its size)
    exact: bool = False
    unified: bool = False     # addr(S, unified): written [a].unified
    # reg(.u32, .sel) / reg(.u32, {.sel}): a register component from group .sel
    # (%r1.b0, video operand selectors), required / optional; reg(..., neg): -r allowed
    component: str | None = None
    component_optional: bool = False

    def count_text(self) -> str:
        if not self.count_letter and not self.count_op:
            return self.count or ""
        return (f"{self.count}" + (f":{self.count_letter}" if self.count_letter else "") +
                (f"{self.count_op}{self.count_factor}" if self.count_op else ""))

    def vec_count(self, chosen: dict[str, str]) -> int | None:
        """The number of registers of a vec kind, given the chosen value texts
        by group name; None when the count's group is absent (a scalar)."""
        if self.count is None:
            return None
        if self.count.isdigit():
            return int(self.count)
        v = chosen.get(self.count)
        if v is None:
            return None
        if not self.count_letter:
            m = re.search(r"(\d+)", v)  # the value's number: ".v4" -> 4, ".3d" -> 3
        else:
            m = re.search(re.escape(self.count_letter) + r"(\d+)", v)
        if not m:
            return None
        n = int(m.group(1))
        if self.count_op == "*":
            n *= self.count_factor
        elif self.count_op == "/":
            n //= self.count_factor
        elif self.count_op == "-":  # vec(.dim-2, ...): two fewer than the value's number
            n -= self.count_factor
        return n

    def text(self) -> str:
        if self.kind == "reg":
            comp = (f", {{{self.component}}}" if self.component_optional else f", {self.component}") \
                if self.component else ""
            return (f"reg({self.type}{', wide' if self.wide else ''}{', exact' if self.exact else ''}{comp}"
                    f"{', neg' if self.negate else ''})")
        if self.kind == "imm":
            if self.values:
                vals = [str(lo) if lo == hi else f"{lo}..{hi}" + (f"/{st}" if st != 1 else "")
                        for lo, hi, st in self.values]
                return f"imm({self.type or '.u32'}, {', '.join(vals)})"
            return f"imm({self.type})" if self.type else "imm"
        if self.kind == "pred":
            return "pred(!)" if self.negate else "pred"
        if self.kind == "vec":
            return (f"vec({self.count_text()}, {self.type}{', wide' if self.wide else ''}"
                    f"{', imm' if self.imm else ''})")
        if self.kind == "addr":
            if self.type:  # addr(tmem, .b32): [reg] or [reg+imm] with a register of type T
                return f"addr({self.space}, {self.type}{', exact' if self.exact else ''})"
            return f"addr({self.space})" if self.space else "addr"
        if self.of:
            return f"{self.kind}({self.of})"
        if self.kind == "symbol" and self.space:
            return f"symbol({self.space})"
        return self.kind


KIND_RE = re.compile(r"^(\w+)(?:\((.*)\))?$")
LABEL_OF = {"label": ("branchtargets", "calltargets", "callprototype"), "symbol": ("calltable",)}
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
            k.exact = "exact" in args[1:]
            k.negate = "neg" in args[1:]
            for a in args[1:]:
                cm = re.fullmatch(r"(\{)?(\.[\w$]+)(\})?", a)
                if cm and bool(cm.group(1)) == bool(cm.group(3)):
                    k.component, k.component_optional = cm.group(2), bool(cm.group(1))
                elif a not in ("wide", "exact", "neg"):
                    raise SpecError(where, f"bad reg kind '{alt}' (want reg(T), and optionally wide, exact, neg, "
                                           f".sel or {{.sel}})")
        elif name == "imm":
            k.type = args[0] if args else None
            try:
                for a in args[1:]:
                    vm = re.fullmatch(r"(-?\w+)(?:\.\.(-?\w+)(?:/(\w+))?)?", a)
                    lo = int(vm.group(1), 0)
                    k.values.append((lo, int(vm.group(2), 0) if vm.group(2) else lo, int(vm.group(3) or "1", 0)))
            except (ValueError, AttributeError):
                raise SpecError(where, f"imm values must be integers N or ranges LO..HI or LO..HI/STEP: '{alt}'") from None
        elif name == "pred":
            k.negate = args == ["!"]
        elif name == "vec":
            if len(args) < 2 or any(a not in ("wide", "imm") for a in args[2:]):
                raise SpecError(where, "vec needs a count and a type: vec(.vec, .type), and optionally wide, imm")
            k.count, k.type = args[:2]
            k.wide = "wide" in args[2:]
            k.imm = "imm" in args[2:]
            cm = re.fullmatch(r"(\.[\w:$]+?)(?::([A-Za-z]))?(?:([*/-])(\d+))?", k.count)
            if cm and (cm.group(2) or cm.group(3)):
                k.count, k.count_letter = cm.group(1), cm.group(2) or ""
                k.count_op, k.count_factor = cm.group(3) or "", int(cm.group(4) or 1)
            elif not (k.count.isdigit() or re.fullmatch(r"\.[\w$]+", k.count)):
                raise SpecError(where, f"bad vec count '{k.count}' (want N, .group or .group:L, .group:L/N, .group:L*N, .group-N)")
        elif name == "symbol" and len(args) == 1 and (args[0].startswith(".") or args[0] == "generic"):
            k.space = args[0]  # symbol(S): a variable of state space S (a group or a literal)
        elif name in ("label", "symbol") and args:
            if len(args) != 1 or args[0] not in LABEL_OF.get(name, ()):
                raise SpecError(where, f"bad {name} kind '{alt}' (want {name}({'|'.join(LABEL_OF[name])}))")
            k.of = args[0]
        elif name == "addr":
            # addr(S, unified): also written [a].unified
            k.unified = "unified" in args
            args = [a for a in args if a != "unified"]
            k.space = args[0] if args else "generic"
            # addr(S, T), addr(S, T, exact): the address is a register of type T (plus an offset)
            if len(args) > 1:
                if not args[1].startswith(".") or any(a != "exact" for a in args[2:]):
                    raise SpecError(where, f"bad addr kind '{alt}' (want addr(S), addr(S, T) or addr(S, T, exact))")
                k.type = args[1]
                k.exact = "exact" in args[2:]
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
    ties: dict[str, str] = field(default_factory=dict)        # `x: KIND if .group`
    op_reqs: dict[str, Requirement] = field(default_factory=dict)  # `x: KIND [ptx 7.1]`: when x is written
    req: Requirement = field(default_factory=Requirement)
    notes: list[str] = field(default_factory=list)
    block: "Block | None" = None
    index: int = 0

    def group(self, name: str) -> Group | None:
        return self.groups.get(name) or (self.block.groups.get(name) if self.block else None)

    def kind(self, operand: str) -> list[Kind] | None:
        return self.kinds.get(operand) or (self.block.kinds.get(operand) if self.block else None)

    def op_req(self, operand: str) -> Requirement:
        """What writing `operand` requires (`x: KIND [ptx 7.1 sm_60+]`), beyond the form's requirement."""
        if operand in self.kinds:
            return self.op_reqs.get(operand, Requirement())
        return self.block.op_reqs.get(operand, Requirement()) if self.block else Requirement()

    def tie(self, operand: str) -> str | None:
        """The group whose slot decides whether optional `operand` is written (`x: KIND if .group`)."""
        if operand in self.kinds:
            return self.ties.get(operand)
        return self.block.ties.get(operand) if self.block else None

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
    ties: dict[str, str] = field(default_factory=dict)        # `x: KIND if .group`
    op_reqs: dict[str, Requirement] = field(default_factory=dict)  # `x: KIND [ptx 7.1]`: when x is written
    req: Requirement = field(default_factory=Requirement)
    notes: list[str] = field(default_factory=list)
    deprecated: bool = False
    strict_order: bool = False   # ptxas wants the manual's modifier order (`order strict`)
    # `order head N`: the first N modifier slots of every form are part of the
    # instruction's name (wmma.load.a): they come first, in the form's order.
    head: int = 0
    # `order .row .col`: modifiers of one such set keep their relative order
    # (like types do); an item belongs to a set when all its values are in it.
    order_sets: list[set[str]] = field(default_factory=list)


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


DIRECTIVE_PLACES = ("module", "body", "entry", "func", "proto", "entry-param", "func-param", "none")


@dataclass
class Directive:
    """A directive (chapter 11) or declaration word (chapter 5): where it may be
    written, how many operands it takes, and what it requires."""

    name: str                 # ".maxntid"
    section: str
    places: list[str]         # DIRECTIVE_PLACES; ["none"]: never written (predefined)
    min_operands: int = 0
    max_operands: int | None = None   # None: unbounded
    counted: bool = False             # `operands` was given (statement and header directives)
    needs: list[str] = field(default_factory=list)       # other directives of the same header it needs
    conflicts: list[str] = field(default_factory=list)   # ... it cannot be written with
    removed: tuple[int, int] | None = None               # not accepted from this PTX version on
    deprecated: bool = False
    req: Requirement = field(default_factory=Requirement)
    notes: list[str] = field(default_factory=list)
    where: str = ""


DIRECTIVE_KEYWORDS = ("in", "operands", "needs", "conflicts", "removed", "deprecated", "requires")
DIRECTIVE_SYNTAX = ("want: directive NAME SECTION [in PLACE...] [operands N|N..M|N..] [needs NAME...] "
                    "[conflicts NAME...] [removed ptx X.Y] [deprecated] [requires ...]")


def parse_directive(text: str, where: str) -> Directive:
    words = text.split()
    if len(words) < 3 or not re.fullmatch(r"(?:\.|@@)[\w$]+", words[1]) or not re.fullmatch(r"[\d.]+", words[2]):
        raise SpecError(where, DIRECTIVE_SYNTAX)
    d = Directive(words[1], words[2], [], where=where)
    i = 3
    while i < len(words):
        key = words[i]
        j = i + 1
        while j < len(words) and words[j] not in DIRECTIVE_KEYWORDS:
            j += 1
        args = words[i + 1:j] if key != "requires" else words[i + 1:]
        if key == "in" and args and all(p in DIRECTIVE_PLACES for p in args):
            d.places = args
        elif key == "operands" and len(args) == 1 and re.fullmatch(r"\d+(\.\.(\d+)?)?", args[0]):
            lo, dots, hi = args[0].partition("..")
            d.counted, d.min_operands = True, int(lo)
            d.max_operands = int(hi) if hi else (None if dots else int(lo))
        elif key in ("needs", "conflicts") and args and all(a.startswith(".") for a in args):
            setattr(d, key, args)
        elif key == "removed" and len(args) == 2 and args[0] == "ptx" and re.fullmatch(r"\d+\.\d+", args[1]):
            d.removed = tuple(int(x) for x in args[1].split("."))
        elif key == "deprecated" and not args:
            d.deprecated = True
        elif key == "requires":
            d.req = parse_requirement(args, where)
            break
        else:
            raise SpecError(where, f"cannot read '{' '.join(words[i:j])}' ({DIRECTIVE_SYNTAX}; places: "
                                   f"{', '.join(DIRECTIVE_PLACES)})")
        i = j
    if not d.places:
        raise SpecError(where, f"directive {d.name}: say where it is written (in PLACE...)")
    return d


@dataclass
class Spec:
    chapters: list[Chapter] = field(default_factory=list)
    blocks: list[Block] = field(default_factory=list)
    sregs: list[SpecialRegister] = field(default_factory=list)
    directives: list[Directive] = field(default_factory=list)

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
    m = re.fullmatch(r"\[(.*)\]", text)
    if m:
        # [a, b, c] with optional members written {b,}: a bracketed operand list
        members = []
        for item in re.findall(r"\{\s*[\w-]+\s*,\s*\}|[^,{}\s]+", m.group(1)):
            om = re.fullmatch(r"\{\s*([\w-]+)\s*,\s*\}", item)
            members.append(parse_operand_slot(om.group(1) if om else item, bool(om), where))
        if len(members) < 2 or any(mb.members or mb.address for mb in members):
            raise SpecError(where, f"cannot read operand '{text}' (want [a], [a, b, ...] or [a, {{b,}} c])")
        return OperandSlot("[" + ", ".join(mb.name for mb in members) + "]", optional, address=True, members=members)
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
        vm = re.fullmatch(r"(\.(?:[\w:$.]|\[[0-9A-Za-z-]+\])+)\s*(?:\[(.*)\])?", item)
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


def write_if_changed(out: Path, text: str) -> None:
    """Write text to out (making its folder) unless out holds it already: an unchanged output keeps
    its time stamp, so the build does not recompile what includes it."""
    if not out.exists() or out.read_text() != text:
        out.parent.mkdir(parents=True, exist_ok=True)
        out.write_text(text)


def generator_main(render, out_name: str) -> int:
    """main() of a generator run as `GENERATOR SPEC_DIR OUT`: writes render(spec) to OUT if it
    changed. Exit status 2 on a wrong command line, 1 (with the error) when the spec does not load."""
    if len(sys.argv) != 3:
        print(f"usage: {Path(sys.argv[0]).name} SPEC_DIR {out_name}", file=sys.stderr)
        return 2
    try:
        spec = load(Path(sys.argv[1]))
    except SpecError as e:
        print(e, file=sys.stderr)
        return 1
    write_if_changed(Path(sys.argv[2]), render(spec))
    return 0


def parse_file(path: Path, spec: Spec) -> None:
    block: Block | None = None
    form: Form | None = None
    directive: Directive | None = None   # the last `directive` line: its `note` lines follow
    for lineno, raw in enumerate(path.read_text().splitlines(), 1):
        where = f"{path}:{lineno}"
        line = raw.split("#", 1)[0].rstrip()
        if not line.strip():
            continue
        indent = len(line) - len(line.lstrip())
        text = line.strip()
        if indent == 0:
            form = None
            directive = None
            words = text.split()
            if words[0] == "directive":
                directive = parse_directive(text, where)
                if any(d.name == directive.name for d in spec.directives):
                    raise SpecError(where, f"directive {directive.name} described twice")
                spec.directives.append(directive)
                block = None
            elif words[0] == "chapter":
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
                raise SpecError(where, f"expected 'instruction', 'sreg', 'directive' or 'chapter', found '{words[0]}'")
            continue
        if directive is not None:
            if not text.startswith("note "):
                raise SpecError(where, "only 'note' lines may follow a directive line")
            directive.notes.append(text[5:].strip())
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
        elif re.fullmatch(r"order head \d+", text):
            block.head = int(text.split()[2])
        elif re.fullmatch(r"order(\s+\.[\w:$]+)+", text):
            block.order_sets.append(set(text.split()[1:]))
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
            # `x: KIND if .group`: optional operand x is written exactly when .group's slot is
            tie = re.search(r"\s+if\s+(\.[\w:$]+)\s*$", kinds)
            if tie:
                kinds = kinds[:tie.start()]
            # `x: KIND [ptx 7.1 sm_60+]`: what writing x requires (an operand the manual added later)
            op_req = re.search(r"\s+\[([^\[\]]*)\]\s*$", kinds)
            if op_req:
                kinds = kinds[:op_req.start()]
            parsed = parse_kinds(kinds.strip(), where)
            for n in names.split(","):
                (form.kinds if form_line else block.kinds)[n.strip()] = parsed
                if tie:
                    (form.ties if form_line else block.ties)[n.strip()] = tie.group(1)
                if op_req:
                    (form.op_reqs if form_line else block.op_reqs)[n.strip()] = \
                        parse_requirement(op_req.group(1).split(), where)
            if not form_line:
                form = None
        else:
            raise SpecError(where, f"cannot read '{text}'")


def check(spec: Spec) -> None:
    """Consistency: every operand has a kind, every type reference names a group."""
    for f in spec.forms():
        for op in f.operands:
            for name in op.names():
                kinds = f.kind(name)
                if not kinds:
                    raise SpecError(f.where, f"operand '{name}' of '{f.syntax}' has no kind")
                tie = f.tie(name)
                if tie and (not op.optional or not f.group(tie) or not any(tie in s.names and s.optional
                                                                           for s in f.slots)):
                    raise SpecError(f.where, f"operand '{name}' of '{f.syntax}': 'if {tie}' needs an optional "
                                             f"operand and an optional slot {{{tie}}}")
                for k in kinds:
                    if k.component and not f.group(k.component):
                        raise SpecError(f.where, f"component group '{k.component}' of '{name}' is not a group of "
                                                 f"'{f.syntax}'")
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
                if g is not None and any(v.is_pattern for v in g.values):
                    raise SpecError(f.where, f"group {n} has pattern values ([0-7]): only component groups may")


LITERAL_TYPES = {
    ".pred", ".b8", ".b16", ".b32", ".b64", ".b128", ".u8", ".u16", ".u32", ".u64", ".s8", ".s16", ".s32", ".s64",
    ".f16", ".f16x2", ".bf16", ".bf16x2", ".f32", ".f64", ".tf32", ".e4m3", ".e5m2", ".e4m3x2", ".e5m2x2",
    ".u16x2", ".s16x2", ".f32x2", ".e2m3x2", ".e3m2x2", ".e2m1x2", ".ue8m0x2", ".b4", ".s4", ".u4", ".b1",
    ".e3m2", ".e2m3", ".e2m1", ".ue8m0", ".ue4m3",
    ".e4m3x4", ".e5m2x4", ".e2m3x4", ".e3m2x4", ".e2m1x4", ".u2", ".s2",
    ".texref", ".samplerref", ".surfref", ".global", ".shared", ".local", ".const", ".param", ".shared::cta",
    ".shared::cluster", ".param::entry", ".param::func",
}


def is_literal_type(t: str) -> bool:
    return t in LITERAL_TYPES


if __name__ == "__main__":
    s = load(Path(sys.argv[1]) if len(sys.argv) > 1 else Path(__file__).resolve().parent.parent / "isa")
    print(f"{len(s.blocks)} blocks, {sum(len(b.forms) for b in s.blocks)} forms, {len(s.chapters)} chapter entries, "
          f"{len(s.sregs)} special registers, {len(s.directives)} directives")


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
    cls: int = 0              # order class: 0 free, 1 types, 2+i the block's `order` set i


def order_class(block: "Block | None", texts: list[str]) -> int:
    """The order class of an item whose possible texts are `texts`: 1 for types,
    2+i when all are in the block's i-th `order` set, else 0."""
    if all(is_type_text(t) for t in texts):
        return 1
    for i, s in enumerate(block.order_sets if block else []):
        if all(all(p in s for p in ["." + q for q in t[1:].split(".")]) for t in texts):
            return 2 + i
    return 0


def _items(form: Form) -> list[_Item]:
    out = []
    for si, slot in enumerate(form.slots):
        for n in slot.names:
            g = form.group(n)
            if g is not None:
                texts = [v.text for v in g.values]
                out.append(_Item(si, None, g, all(is_type_text(t) for t in texts), order_class(form.block, texts)))
            else:
                out.append(_Item(si, n, None, is_type_text(n), order_class(form.block, [n])))
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
    """Any order, except that type modifiers (and the block's `order` sets) keep
    the form's relative order, and the `order head` slots come first."""
    items = _items(form)
    used = [False] * len(items)
    head = form.block.head if form.block else 0

    def head_allows(k: int) -> bool:
        """`order head N`: the items of the first N slots come first, in the form's
        order; an optional one may be left out, but not given later."""
        if head == 0:
            return True
        skippable = [used[h] or form.slots[items[h].slot].optional for h in range(len(items)) if items[h].slot < head]
        if items[k].slot < head:
            return (all(skippable[:k]) and not any(used[h] for h in range(k + 1, len(items)))
                    and not any(used[n] for n in range(len(items)) if items[n].slot >= head))
        return all(skippable)

    def rec(j: int, chosen: dict, last: dict) -> dict | None:
        if j == len(mods):
            # every required slot fully used, every optional slot all-or-nothing
            for si, slot in enumerate(form.slots):
                flags = [used[k] for k, it in enumerate(items) if it.slot == si]
                if (not slot.optional and not all(flags)) or (slot.optional and any(flags) and not all(flags)):
                    return None
            return chosen
        for k, it in enumerate(items):
            if used[k] or not head_allows(k):
                continue
            if it.cls and k < last.get(it.cls, -1):
                continue
            nxt = {**last, it.cls: k} if it.cls else last
            if it.group is None:
                if mods[j] != it.text:
                    continue
                used[k] = True
                r = rec(j + 1, chosen, nxt)
                used[k] = False
                if r is not None:
                    return r
            else:
                for v in it.group.values:
                    n = len(v.parts)
                    if mods[j:j + n] != v.parts:
                        continue
                    used[k] = True
                    r = rec(j + n, {**chosen, it.group.name: v}, nxt)
                    used[k] = False
                    if r is not None:
                        return r
        return None

    return rec(0, {}, {})


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
