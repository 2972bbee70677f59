#!/usr/bin/env python3
"""Checks the directive table (`directive` lines of spec/isa/*.isa) against ptxas,
and the validator against both.

    check_directives.py [--ptxas PTXAS] [--ptxpp PTXPP] [--only NAME] [-v]

For every directive with a usage template below, one small module per case:
  - written at each place the template knows: legal where the table says so;
  - at the lowest target and PTX version the table allows (legal), and one
    target / one version below (illegal);
  - with one operand too many or too few (counted directives);
  - without a directive it needs, with one it conflicts with;
  - removed directives at the lowest version ptxas reads (illegal).
Each module is assembled by ptxas (the final word) and checked by `ptxpp check`.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import ptxisa  # noqa: E402
from check_samples import load_expectations  # noqa: E402
from ptxisa import Target  # noqa: E402


@dataclass
class Case:
    directive: str
    what: str
    module: str          # the module text after .version/.target/.address_size
    target: Target
    ptx: tuple[int, int]
    legal: bool


KERNEL = ".visible .entry sample_kernel() { ret; }"

# How each directive is written: (place, text). Statements and header directives
# take OPS (their operands, joined with ", "); words are shown in a declaration.
HEADER_OPS = {".pragma": ['"nounroll"'], ".abi_preserve": ["8"], ".abi_preserve_control": ["8"]}
STATEMENTS = {
    ".pragma": ("module body", '.pragma {ops};', ['"nounroll"']),
    ".file": ("module body", ".file {sops}", ["1", '"sample.cu"']),
    ".loc": ("body module", ".loc {sops}", ["1", "1", "1"]),
    ".alias": ("module body", ".alias {ops};", ["sample_alias", "sample_aliasee"]),
    ".branchtargets": ("body", "sample_bt: .branchtargets {ops};", ["sample_label"]),
    ".calltargets": ("body", "sample_ct: .calltargets {ops};", ["sample_callee"]),
    ".callprototype": ("body module", "sample_cp: .callprototype _ ({ops});", []),
    ".section": ("module body", ".section .debug_abbrev {{ .b8 0 }}", []),
}
WORDS = {
    ".reg": ".reg .b32 sample_v", ".const": ".const .b32 sample_v", ".global": ".global .b32 sample_v",
    ".local": ".local .b32 sample_v", ".param": ".param .b32 sample_v", ".shared": ".shared .b32 sample_v",
    ".sreg": ".sreg .u32 sample_v", ".tex": ".tex .u32 sample_v",
    ".ptr": ".param .u64 .ptr .global .align 8 sample_v", ".align": ".param .align 8 .b8 sample_v[8]",
    ".attribute": ".global .attribute(.managed) .u32 sample_v",
    ".extern": ".extern .global .u32 sample_v", ".visible": ".visible .global .u32 sample_v",
    ".weak": ".weak .global .u32 sample_v", ".common": ".common .global .u32 sample_v",
}
WORD_PLACES = ("module", "body", "entry-param", "func-param")
HEADER_PLACES = ("entry", "func")
CONTEXT = [".file 1 \"sample.cu\"", ".visible .func sample_callee() { ret; }"]
ALIAS_CONTEXT = [".visible .func sample_aliasee() { ret; }", ".visible .func sample_alias();"]


def header_use(name: str, ops: list[str]) -> str:
    return f"{name} {', '.join(ops)}".strip() + (";" if name == ".pragma" else "")


def module_for(d: ptxisa.Directive, place: str, text: str, extra_header: str = "") -> str:
    """A module with `text` written at `place`."""
    lines = list(CONTEXT)
    if d.name == ".file":
        lines = [x for x in lines if not x.startswith(".file")]
    if d.name == ".alias":
        lines += ALIAS_CONTEXT
    if place == "module":
        lines += [text, KERNEL]
    elif place == "body":
        lines += [".visible .entry sample_kernel() {", "\t" + text, "sample_label:", "\tret;", "}"]
    elif place == "entry":
        lines += [f".visible .entry sample_kernel() {extra_header}{text} {{ ret; }}"]
    elif place == "func":
        lines += [f".visible .func sample_fn() {text} {{ ret; }}", KERNEL]
    elif place == "entry-param":
        lines += [f".visible .entry sample_kernel({text}) {{ ret; }}"]
    elif place == "func-param":
        lines += [f".visible .func sample_fn({text}) {{ ret; }}", KERNEL]
    return "\n".join(lines) + "\n"


def default_ops(d: ptxisa.Directive) -> list[str]:
    if d.name in HEADER_OPS:
        return HEADER_OPS[d.name]
    return ["32"] * d.min_operands


def cases_for(d: ptxisa.Directive) -> list[Case]:
    """The cases of one directive, or [] when no usage template fits it."""
    if d.name in WORDS:
        def use(p: str, ops=None) -> str:
            text = WORDS[d.name]
            if d.name == ".align" and "param" not in p:
                text = text.replace(".param", ".global")  # .align on a variable
            return text + ("" if "param" in p else ";")
        places = WORD_PLACES
        counted = False
    elif d.name in STATEMENTS:
        where, fmt, ops0 = STATEMENTS[d.name]
        places = tuple(where.split()) + (HEADER_PLACES if set(d.places) & set(HEADER_PLACES) else ())
        use = lambda p, ops=None: (header_use(d.name, ops if ops is not None else ops0)  # noqa: E731
                                   if p in HEADER_PLACES else fmt.format(ops=", ".join(ops if ops is not None else ops0),
                                                   sops=" ".join(ops if ops is not None else ops0)))
        counted = d.counted
    elif d.counted and set(d.places) & set(HEADER_PLACES):
        places = HEADER_PLACES
        use = lambda p, ops=None: header_use(d.name, ops if ops is not None else default_ops(d))  # noqa: E731
        counted = d.name not in HEADER_OPS
    else:
        return []
    needs = " ".join(f"{n} 32" for n in d.needs) + (" " if d.needs else "")
    target = d.req.lowest_target()
    if target is None:
        return []
    ptx = max(d.req.ptx, ptxisa.TARGET_MIN_PTX[target.name()])
    out: list[Case] = []
    removed = d.removed is not None and ptx >= d.removed

    def add(what: str, place: str, text: str, legal: bool, t: Target = target, v: tuple[int, int] = ptx,
            header: str = needs) -> None:
        out.append(Case(d.name, what, module_for(d, place, text, header if place == "entry" else ""), t, v,
                        legal and not removed))

    for p in places:
        add(f"at {p}", p, use(p), p in d.places)
    home = next((p for p in places if p in d.places), None)
    if home is None:
        return out
    for t in reversed(ptxisa.KNOWN_TARGETS):
        if not d.req.allows(t):
            v = max(ptxisa.TARGET_MIN_PTX[t.name()], ptx)
            if v <= (9, 0):
                add(f"target {t.name()}", home, use(home), False, t, v)
            break
    if d.req.ptx > ptxisa.TARGET_MIN_PTX[target.name()]:
        lower = ptxisa.TARGET_MIN_PTX[target.name()]
        add(f"PTX {lower[0]}.{lower[1]}", home, use(home), False, target, lower)
    if counted:
        base = default_ops(d) if d.name not in STATEMENTS else STATEMENTS[d.name][2]
        if d.max_operands is not None:
            add("one operand too many", home, use(home, base + ["1"] * (d.max_operands + 1 - len(base))), False)
        if d.min_operands > 0:
            add("one operand too few", home, use(home, base[:d.min_operands - 1]), False)
    if d.needs and home == "entry":
        add("without " + " ".join(d.needs), home, use(home), False, header="")
    for c in d.conflicts:
        if home == "entry":
            add("with " + c, home, use(home), False, header=needs + f"{c} 32 ")
    return out


def run(cmd: list[str]) -> tuple[int, str]:
    p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, errors="replace")
    return p.returncode, p.stdout


def verdicts(c: Case, ptxas: str, ptxpp: str | None, tmp: Path) -> tuple[bool, bool | None, str]:
    text = f".version {c.ptx[0]}.{c.ptx[1]}\n.target {c.target.name()}\n.address_size 64\n" + c.module
    path = tmp / "directive.ptx"
    path.write_text(text)
    rc, out = run([ptxas, f"-arch={c.target.name()}", str(path), "-o", os.devnull])
    ok = rc == 0
    vok = None
    if ptxpp:
        vrc, vout = run([ptxpp, "check", str(path)])
        vok = vrc == 0
        out += vout
    return ok, vok, out


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--ptxas", default=os.environ.get("PTXAS", "ptxas"))
    ap.add_argument("--ptxpp", help="the ptxpp binary: also check the validator")
    ap.add_argument("--only", default="", help="only directives whose name contains TEXT")
    ap.add_argument("--expect", type=Path, default=Path(__file__).resolve().parent.parent / "expected",
                    help="expected disagreements (`directive NAME CASE ;; reason` lines; default spec/expected)")
    ap.add_argument("-v", "--verbose", action="store_true")
    args = ap.parse_args()
    expected = load_expectations(args.expect)
    spec = ptxisa.load(Path(__file__).resolve().parent.parent / "isa")
    cases = [c for d in spec.directives if args.only in d.name for c in cases_for(d)]
    untested = [d.name for d in spec.directives if args.only in d.name and not cases_for(d)]
    table_bad = valid_bad = table_raw = valid_raw = 0
    with tempfile.TemporaryDirectory(prefix="ptxpp-directives-") as tmp:
        for c in cases:
            ok, vok, out = verdicts(c, args.ptxas, args.ptxpp, Path(tmp))
            bad_t, bad_v = ok != c.legal, vok is not None and vok != ok
            key = f"directive {c.directive} {c.what}"
            listed = key in expected
            table_bad += bad_t and not listed
            valid_bad += bad_v and not listed
            table_raw += bad_t
            valid_raw += bad_v
            if bad_t or bad_v or args.verbose:
                flags = ("TABLE " if bad_t else "") + ("VALIDATOR " if bad_v else "") + \
                    (f"(expected: {expected[key]}) " if listed and (bad_t or bad_v) else "")
                print(f"  {flags or 'ok '}{c.directive} {c.what} [{c.target.name()} ptx{c.ptx[0]}.{c.ptx[1]}]: "
                      f"table {'legal' if c.legal else 'illegal'}, ptxas {'accepts' if ok else 'rejects'}"
                      + (f", validator {'accepts' if vok else 'rejects'}" if vok is not None else ""))
                if (bad_t or bad_v) and args.verbose:
                    print("    " + c.module.replace("\n", "\n    ") + out.replace("\n", "\n    | "))
    print(f"directive cases: {len(cases)} ({sum(c.legal for c in cases)} legal) from "
          f"{len({c.directive for c in cases})} directives; without a usage template: {', '.join(untested) or 'none'}")
    print(f"table vs ptxas: {len(cases) - table_raw} of {len(cases)} agree"
          + (f" ({table_raw - table_bad} expected disagreements)" if table_raw > table_bad else ""))
    if args.ptxpp:
        print(f"validator vs ptxas: {len(cases) - valid_raw} of {len(cases)} agree"
              + (f" ({valid_raw - valid_bad} expected disagreements)" if valid_raw > valid_bad else ""))
    failures = table_bad + valid_bad
    print("OK" if failures == 0 else f"FAIL: {failures} disagreements")
    return 0 if failures == 0 else 1


if __name__ == "__main__":
    sys.exit(main())
