#!/usr/bin/env python3
"""Checks the ISA table against ptxas (and the validator against both).

    check_samples.py [--ptxas PTXAS] [--ptxpp PTXPP] [--forms TEXT] [--jobs N]
                     [--expect FILE] [--min-agreement 0.995] [--min-samples N] [-v]

Samples (gen_samples.py) are batched into modules per (target, PTX version);
ptxas reports errors per line, so one run judges a whole batch; a fatal error
stops ptxas, so the batch is bisected until every sample has a verdict.

Two comparisons:
  table:     legal samples must assemble, illegal ones must be rejected;
  validator: `ptxpp check` (when --ptxpp is given) must agree with ptxas on
             every sample; the agreement must reach --min-agreement.
Disagreements listed in spec/expected/*.txt (one `SAMPLE ;; reason` per line)
are reported but allowed; unlisted ones fail the check.
"""

from __future__ import annotations

import argparse
import concurrent.futures
import os
import re
import subprocess
import sys
import tempfile
from collections import defaultdict
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import gen_samples  # noqa: E402
import ptxisa  # noqa: E402

ERROR_LINE = re.compile(r", line (\d+); (error|fatal)")
BATCH = 300


def run(cmd: list[str]) -> tuple[int, str]:
    p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, errors="replace")
    return p.returncode, p.stdout


def ptxas_verdicts(ptxas: str, batch: list[gen_samples.Sample], workdir: Path) -> dict[int, bool]:
    """Sample index -> accepted, for one batch (same target and version)."""
    verdicts: dict[int, bool] = {}
    pending = [batch]
    while pending:
        group = pending.pop()
        text, where = gen_samples.module_text(group)
        with tempfile.NamedTemporaryFile("w", suffix=".ptx", dir=workdir, delete=False) as f:
            f.write(text)
            path = f.name
        rc, out = run([ptxas, f"-arch={group[0].target.name()}", path, "-o", os.devnull])
        os.unlink(path)
        bad_lines = {int(m.group(1)) for m in ERROR_LINE.finditer(out)}
        fatal = "fatal" in out and rc != 0
        if rc == 0 or not fatal:
            for line, idx in where.items():
                verdicts[idx] = line not in bad_lines
            continue
        # A fatal error: a sample it names is rejected; the rest are checked again.
        named = {where[l] for l in bad_lines if l in where}
        if named:
            for idx in named:
                verdicts[idx] = False
            rest = [s for s in group if s.index not in named]
            if rest:
                pending.append(rest)
        elif len(group) == 1:
            verdicts[group[0].index] = False
        else:
            half = len(group) // 2
            pending += [group[:half], group[half:]]
    return verdicts


def validator_verdicts(ptxpp: str, batch: list[gen_samples.Sample], workdir: Path) -> dict[int, bool]:
    text, where = gen_samples.module_text(batch)
    with tempfile.NamedTemporaryFile("w", suffix=".ptx", dir=workdir, delete=False) as f:
        f.write(text)
        path = f.name
    rc, out = run([ptxpp, "check", path])
    os.unlink(path)
    bad_lines = {int(m.group(1)) for m in re.finditer(re.escape(path) + r":(\d+):\d+: error", out)}
    if rc != 0 and not bad_lines:
        raise RuntimeError(f"ptxpp check failed without a located error:\n{out}")
    return {idx: line not in bad_lines for line, idx in where.items()}


def load_expectations(path: Path | None) -> dict[str, str]:
    """Expected disagreements: a file, or a directory of *.txt files."""
    out = {}
    files = sorted(path.glob("*.txt")) if path and path.is_dir() else [path] if path and path.exists() else []
    for f in files:
        for raw in f.read_text().splitlines():
            sample, sep, reason = raw.partition(" ;; ")
            if sep and sample.strip() and not sample.lstrip().startswith("#"):
                out[sample.strip()] = reason.strip()
    return out


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--ptxas", default=os.environ.get("PTXAS", "ptxas"))
    ap.add_argument("--ptxpp", help="the ptxpp binary: also check the validator")
    ap.add_argument("--forms", default="", help="only forms whose syntax contains TEXT")
    ap.add_argument("--file", default="", help="only forms from spec files whose name contains TEXT")
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--expect", type=Path, default=Path(__file__).resolve().parent.parent / "expected",
                    help="expected disagreements: a file or a directory of *.txt (default spec/expected)")
    ap.add_argument("--min-agreement", type=float, default=0.995)
    ap.add_argument("--min-samples", type=int, default=0)
    ap.add_argument("-v", "--verbose", action="store_true")
    args = ap.parse_args()

    spec = ptxisa.load(Path(__file__).resolve().parent.parent / "isa")
    samples = [s for s in gen_samples.all_samples(spec)
               if args.forms in s.form.syntax and args.file in Path(s.form.where.split(":")[0]).name]
    batches: dict[tuple, list] = defaultdict(list)
    for s in samples:
        batches[(s.target.name(), s.ptx, s.texmode)].append(s)
    chunks = [b[i:i + BATCH] for b in batches.values() for i in range(0, len(b), BATCH)]

    ptxas_ok: dict[int, bool] = {}
    valid_ok: dict[int, bool] = {}
    with tempfile.TemporaryDirectory(prefix="ptxpp-samples-") as tmp, \
            concurrent.futures.ThreadPoolExecutor(max_workers=args.jobs) as pool:
        work = Path(tmp)
        for v in pool.map(lambda c: ptxas_verdicts(args.ptxas, c, work), chunks):
            ptxas_ok.update(v)
        if args.ptxpp:
            for v in pool.map(lambda c: validator_verdicts(args.ptxpp, c, work), chunks):
                valid_ok.update(v)

    expected = load_expectations(args.expect)
    table_bad = [s for s in samples if ptxas_ok[s.index] != s.legal]
    print(f"samples: {len(samples)} ({sum(s.legal for s in samples)} legal, "
          f"{sum(not s.legal for s in samples)} illegal) from {len({id(s.form) for s in samples})} forms, "
          f"{len(chunks)} ptxas batches")
    failures = 0
    for s in table_bad:
        listed = s.text in expected
        failures += not listed
        if args.verbose or not listed:
            kind = "legal sample rejected" if s.legal else "illegal sample accepted"
            print(f"  table: {kind}: {s.text}   [{s.target.name()} ptx{s.ptx[0]}.{s.ptx[1]}] "
                  f"{s.why} ({s.form.where}){' -- expected: ' + expected[s.text] if listed else ''}")
    print(f"table vs ptxas: {len(samples) - len(table_bad)} of {len(samples)} agree")
    if args.ptxpp:
        agree = sum(valid_ok[s.index] == ptxas_ok[s.index] for s in samples)
        for s in samples:
            if valid_ok[s.index] != ptxas_ok[s.index]:
                listed = s.text in expected
                failures += not listed
                if args.verbose or not listed:
                    print(f"  validator {'accepts' if valid_ok[s.index] else 'rejects'}, ptxas "
                          f"{'accepts' if ptxas_ok[s.index] else 'rejects'}: {s.text}   "
                          f"[{s.target.name()} ptx{s.ptx[0]}.{s.ptx[1]}] ({s.form.where})")
        rate = agree / max(1, len(samples))
        print(f"validator vs ptxas: {agree} of {len(samples)} agree ({100 * rate:.2f}%)")
        if rate < args.min_agreement:
            print(f"FAIL: agreement below {100 * args.min_agreement:.1f}%")
            failures += 1
    if len(samples) < args.min_samples:
        print(f"FAIL: only {len(samples)} samples, want at least {args.min_samples}")
        failures += 1
    print("OK" if failures == 0 else f"FAIL: {failures} unexpected disagreements")
    return 0 if failures == 0 else 1


if __name__ == "__main__":
    sys.exit(main())
