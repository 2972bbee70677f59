#!/usr/bin/env python3
"""Checks `ptxpp check` against ptxas on operand forms and declarations
(the samples of operand_samples.py), both ways.

    check_operands.py --ptxpp PTXPP [--ptxas PTXAS [--record]] [--only TEXT] [-v]

ptxas 13.0's verdict on every sample is recorded in spec/expected/operands.txt,
one line per sample:

    CATEGORY/NAME accept|reject DIGEST [;; reason ptxpp disagrees]

DIGEST names the sample's text, so a changed sample needs its verdict recorded
again. Without --ptxas (as in CI: no ptxas run, a few seconds) ptxpp is compared
with the recorded verdicts; with --ptxas the samples are assembled again and a
verdict that changed is reported; --record rewrites the file (keeping reasons).
A disagreement fails the check unless its line gives a reason; a line with a
reason whose sample now agrees fails too (remove the reason), so any change in
ptxpp's answers shows here.

ptxas runs with at most PTXAS_MEMORY of address space: `%r<4294967295>` is
refused for memory (ptxas keeps about 8 bytes per declared register), and the
verdict must not depend on the machine.
"""

from __future__ import annotations

import argparse
import os
import re
import resource
import subprocess
import sys
import tempfile
from collections import defaultdict
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import operand_samples  # noqa: E402
from operand_samples import Sample  # noqa: E402

EXPECTED = Path(__file__).resolve().parent.parent / "expected" / "operands.txt"
PTXAS_MEMORY = 4 << 30
LINE = re.compile(r"^(\S+) (accept|reject) ([0-9a-f]{12})(?: ;; (.*))?$")
HEADER = """\
# ptxas 13.0's verdict on each sample of spec/gen/operand_samples.py, and where `ptxpp check`
# knowingly disagrees, why (after ;;). Written by spec/gen/check_operands.py --ptxas PTXAS --record;
# the reasons are kept when it is rewritten. Format: spec/gen/check_operands.py.
"""


class Recorded:
    def __init__(self, verdict: bool, digest: str, reason: str | None):
        self.verdict, self.digest, self.reason = verdict, digest, reason


def load(path: Path) -> dict[str, Recorded]:
    out: dict[str, Recorded] = {}
    if not path.exists():
        return out
    for raw in path.read_text().splitlines():
        if not raw.strip() or raw.startswith("#"):
            continue
        mt = LINE.match(raw)
        if not mt:
            raise SystemExit(f"{path}: malformed line: {raw}")
        out[mt.group(1)] = Recorded(mt.group(2) == "accept", mt.group(3), mt.group(4))
    return out


def save(path: Path, samples: list[Sample], verdicts: dict[str, bool], old: dict[str, Recorded]) -> None:
    lines = [HEADER]
    for s in samples:
        reason = old[s.key].reason if s.key in old else None
        lines.append(f"{s.key} {'accept' if verdicts[s.key] else 'reject'} {s.digest()}"
                     + (f" ;; {reason}" if reason else "") + "\n")
    path.write_text("".join(lines))


def limit_memory() -> None:
    resource.setrlimit(resource.RLIMIT_AS, (PTXAS_MEMORY, PTXAS_MEMORY))


def run_ptxas(ptxas: str, s: Sample, path: Path) -> tuple[bool, str]:
    p = subprocess.run([ptxas, f"-arch={s.target}", str(path), "-o", os.devnull], stdout=subprocess.PIPE,
                       stderr=subprocess.STDOUT, text=True, errors="replace", preexec_fn=limit_memory, timeout=120)
    return p.returncode == 0, p.stdout


def run_ptxpp(ptxpp: str, path: Path) -> tuple[bool, str]:
    p = subprocess.run([ptxpp, "check", str(path)], stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                       errors="replace", timeout=60)
    if p.returncode not in (0, 1):
        raise SystemExit(f"ptxpp check {path} exited {p.returncode} (a crash?):\n{p.stdout}")
    if p.returncode == 1 and ": error:" not in p.stdout:
        raise SystemExit(f"ptxpp check {path} failed without a located error:\n{p.stdout}")
    return p.returncode == 0, p.stdout


def word(ok: bool) -> str:
    return "accepts" if ok else "rejects"


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--ptxpp", required=True, help="the ptxpp binary")
    ap.add_argument("--ptxas", help="assemble the samples again (else: the recorded verdicts)")
    ap.add_argument("--record", action="store_true", help="with --ptxas: rewrite the expected file")
    ap.add_argument("--expect", type=Path, default=EXPECTED)
    ap.add_argument("--only", default="", help="only samples whose CATEGORY/NAME contains TEXT")
    ap.add_argument("-v", "--verbose", action="store_true", help="print the module and both outputs of a disagreement")
    args = ap.parse_args()
    if args.record and (not args.ptxas or args.only):
        ap.error("--record needs --ptxas, and all samples (no --only)")
    samples = [s for s in operand_samples.SAMPLES if args.only in s.key]
    recorded = load(args.expect)
    failures = 0
    ptxas_ok: dict[str, bool] = {}
    rows: dict[str, list[int]] = defaultdict(lambda: [0, 0, 0, 0, 0])  # samples, ptxas accepts, false, missed, listed
    with tempfile.TemporaryDirectory(prefix="ptxpp-operands-") as tmp:
        path = Path(tmp) / "sample.ptx"
        for s in samples:
            path.write_text(s.text)
            rec = recorded.get(s.key)
            ptxas_out = ""
            if args.ptxas:
                ptxas_ok[s.key], ptxas_out = run_ptxas(args.ptxas, s, path)
                if rec and rec.verdict != ptxas_ok[s.key] and rec.digest == s.digest() and not args.record:
                    print(f"  ptxas changed its verdict on {s.key}: now {word(ptxas_ok[s.key])}")
                    failures += 1
            elif not rec or rec.digest != s.digest():
                print(f"  {s.key}: no ptxas verdict recorded for this text: run with --ptxas PTXAS --record")
                failures += 1
                continue
            else:
                ptxas_ok[s.key] = rec.verdict
            ok, out = run_ptxpp(args.ptxpp, path)
            row = rows[s.category]
            row[0] += 1
            row[1] += ptxas_ok[s.key]
            disagree = ok != ptxas_ok[s.key]
            row[2] += disagree and not ok
            row[3] += disagree and ok
            reason = rec.reason if rec else None
            row[4] += disagree and reason is not None
            if disagree and reason is None:
                failures += 1
                kind = "false error" if not ok else "missed error"
                print(f"  {kind}: {s.key}: ptxas {word(ptxas_ok[s.key])}, ptxpp {word(ok)}")
            elif disagree and args.verbose:
                print(f"  known: {s.key}: ptxas {word(ptxas_ok[s.key])}, ptxpp {word(ok)} -- {reason}")
            elif not disagree and reason is not None and not args.record:
                failures += 1
                print(f"  {s.key}: ptxpp now agrees with ptxas ({word(ok)}): remove the reason from {args.expect.name}")
            if disagree and args.verbose:
                print("    " + s.text.replace("\n", "\n    ") + "\n    ptxas: " + ptxas_out.strip().replace("\n", "\n    ")
                      + "\n    ptxpp: " + out.strip().replace("\n", "\n    "))
    if args.record:
        save(args.expect, samples, ptxas_ok, recorded)
        print(f"recorded {len(ptxas_ok)} verdicts in {args.expect}")
    print(f"{'category':8} {'samples':>7} {'ptxas ok':>8} {'false err':>9} {'missed err':>10} {'listed':>6}")
    total = [0] * 5
    for cat in sorted(rows):
        r = rows[cat]
        total = [a + b for a, b in zip(total, r)]
        print(f"{cat:8} {r[0]:7} {r[1]:8} {r[2]:9} {r[3]:10} {r[4]:6}")
    print(f"{'all':8} {total[0]:7} {total[1]:8} {total[2]:9} {total[3]:10} {total[4]:6}")
    print(f"(false err: ptxas accepts, ptxpp rejects; missed err: ptxas rejects, ptxpp accepts; "
          f"listed: of those, known with a reason in {args.expect.name}; verdicts {'from ptxas' if args.ptxas else 'recorded'})")
    print("OK" if failures == 0 else f"FAIL: {failures}")
    return 0 if failures == 0 else 1


if __name__ == "__main__":
    sys.exit(main())
