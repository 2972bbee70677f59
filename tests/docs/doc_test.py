#!/usr/bin/env python3
"""The doc test: every code block of README.md and docs/*.md is compiled or run, so a stale
example fails CI.

A block's info string is its language, then words that say what the test does with it:

  ```cpp                 with `int main(`: a program, compiled against the installed ptxpp
                         (pkg-config) with -Wall -Wextra -Werror (WARNINGS) and run (exit
                         status 0);
                         without: a fragment, compiled (-fsyntax-only) inside a function, after
                         the usual includes and `using namespace ptx::types; namespace inst = ptx::inst;`
  ```sh                  run with bash -euo pipefail in a sandbox directory (the repository's
                         top-level entries linked in, build/release the build tree, HOME a
                         scratch folder), with the installed ptxpp's bin on PATH and
                         CMAKE_PREFIX_PATH and PKG_CONFIG_PATH set to it; the blocks of one
                         file run in order and share exported variables and files
  ```LANG output         what the block before prints on stdout, compared exactly
  ```LANG file=NAME      also written to NAME in the sandbox, for the blocks after it
  ```cpp no-compile      not compiled (an excerpt); ```sh no-run: not run (a synopsis, or a
                         command a test cannot run, such as the test command itself)

  ```python              with --python PY (scripts/test-python, with the package installed):
                         run by PY in the sandbox directory, after its setup; the other
                         blocks are checked without --python (the ctest docs.code_blocks)
  ```python no-run       not run (a synopsis of calls, an excerpt)

Other languages (cmake) are counted, not checked: a cmake block is an excerpt (no-run) or
written to a file (file=NAME) that a shell block after it builds. A block may be preceded by a
hidden setup, `<!-- doc-test setup: CODE -->` (C++ statements before a fragment, shell commands
before a shell block, Python statements before a Python block), which the rendered page does
not show.

Usage: doc_test.py --source DIR --build DIR --cxx CXX [--work DIR] [--keep]
       doc_test.py --source DIR --python PY [--work DIR] [--keep]
"""
import argparse
import collections
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
from dataclasses import dataclass, field

FENCE = re.compile(r"^(```+)(.*)$")
MAIN = re.compile(r"\bint\s+main\s*\(")
SETUP = re.compile(r"^<!-- doc-test setup:(.*?)(-->)?$")
TIMEOUT = 120  # seconds, per compile and per block
# What a careful user compiles with; GCC 12 warns about designated initializers that leave
# members out ({.grid = {40}, .block = {256}}), the documented way to fill the launch structs.
WARNINGS = ["-Wall", "-Wextra", "-Werror", "-Wno-missing-field-initializers"]
FRAGMENT_PRELUDE = """#include <cstdint>
#include <iostream>
#include <memory>
#include <string>
#include <vector>

#include <ptxpp/dsl.hpp>
#include <ptxpp/emu/emulator.hpp>
#include <ptxpp/ptxpp.hpp>
#include <ptxpp/runtime.hpp>
using namespace ptx::types;
namespace inst = ptx::inst;
"""


@dataclass
class Block:
    path: str  # relative to the repository
    line: int  # the line of the first line of code (after the fence)
    lang: str
    attrs: list
    code: str
    setup: str = ""
    setup_line: int = 0

    def where(self):
        return f"{self.path}:{self.line - 1}"

    def attr(self, name):
        for a in self.attrs:
            if a == name or a.startswith(name + "="):
                return a.partition("=")[2] or True
        return None


@dataclass
class Tally:
    counts: collections.Counter = field(default_factory=collections.Counter)
    failures: list = field(default_factory=list)

    def fail(self, block, what, detail=""):
        self.failures.append(f"{block.where()}: {what}" + (f"\n{detail.rstrip()}" if detail else ""))


def read_blocks(root, rel):
    """The fenced blocks of one markdown file; a fence without a language is an error."""
    lines = open(os.path.join(root, rel), encoding="utf-8").read().split("\n")
    blocks, errors, i = [], [], 0
    setup, setup_line = None, 0
    while i < len(lines):
        m = SETUP.match(lines[i])
        if m:
            setup_line, body = i + 1, [m.group(1)]
            while not m.group(2) and i + 1 < len(lines):
                i += 1
                m = re.match(r"^(.*?)(-->)?$", lines[i])
                body.append(m.group(1))
            setup = "\n".join(body).strip()
            i += 1
            continue
        m = FENCE.match(lines[i])
        if not m:
            if lines[i].strip():
                setup = None
            i += 1
            continue
        words = m.group(2).split()
        if not words:
            errors.append(f"{rel}:{i + 1}: a code block without a language (```cpp, ```sh, ```text ...)")
        start, ticks = i + 1, m.group(1)
        i += 1
        while i < len(lines) and lines[i] != ticks:
            i += 1
        if words:
            blocks.append(Block(rel, start + 1, words[0], words[1:], "\n".join(lines[start:i]) + "\n",
                                setup or "", setup_line))
        setup = None
        i += 1
    return blocks, errors


def run(cmd, **kw):
    """cmd's exit status and output (stdout and stderr together); past TIMEOUT its whole process
    group is killed (a block may start processes of its own) and the status is 124."""
    with subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, start_new_session=True,
                          **kw) as proc:
        try:
            out, _ = proc.communicate(timeout=TIMEOUT)
        except subprocess.TimeoutExpired:
            os.killpg(proc.pid, signal.SIGKILL)
            out, _ = proc.communicate()
            return subprocess.CompletedProcess(cmd, 124, out + f"\n(killed after {TIMEOUT} s)\n")
        return subprocess.CompletedProcess(cmd, proc.returncode, out)


class Checker:
    def __init__(self, args, tally):
        self.args, self.tally = args, tally
        self.work = args.work
        self.prefix = os.path.join(self.work, "prefix")
        self.env = dict(os.environ)
        self.env["PATH"] = os.path.join(self.prefix, "bin") + os.pathsep + self.env["PATH"]
        self.env["PKG_CONFIG_PATH"] = os.path.join(self.prefix, "lib", "pkgconfig")
        self.env["CMAKE_PREFIX_PATH"] = self.prefix
        if args.cxx:
            self.env["CXX"] = args.cxx
        self.fragments = []

    def install(self):
        r = run(["cmake", "--install", self.args.build, "--prefix", self.prefix])
        if r.returncode != 0:
            sys.exit(f"doc test: cmake --install {self.args.build} failed:\n{r.stdout}")
        r = run(["pkg-config", "--cflags", "--libs", "ptxpp"], env=self.env)
        if r.returncode != 0:
            sys.exit(f"doc test: pkg-config ptxpp failed:\n{r.stdout}")
        self.flags = r.stdout.split()

    def sandbox(self, rel):
        """A fresh directory that looks like the repository root, for one markdown file's blocks.
        The project's CMakeLists.txt and CMakePresets.json are left out: a block that configures
        or builds the project there (not a doc test's business: mark it no-run) fails at once
        instead of reconfiguring the build tree behind build/release."""
        box = os.path.join(self.work, "sandbox-" + re.sub(r"[^A-Za-z0-9]+", "-", rel))
        os.makedirs(os.path.join(box, "home"))
        for entry in os.listdir(self.args.source):
            if entry not in ("build", ".git", "CMakeLists.txt", "CMakePresets.json"):
                os.symlink(os.path.join(self.args.source, entry), os.path.join(box, entry))
        os.makedirs(os.path.join(box, "build"))
        if self.args.build:
            os.symlink(os.path.abspath(self.args.build), os.path.join(box, "build", "release"))
        return box

    def check_file(self, rel, blocks):
        box = self.sandbox(rel)
        env = dict(self.env, HOME=os.path.join(box, "home"))
        state = os.path.join(self.work, f"state-{os.path.basename(box)}.sh")
        open(state, "w").close()
        for n, b in enumerate(blocks):
            follows = blocks[n + 1] if n + 1 < len(blocks) and blocks[n + 1].attr("output") else None
            name = b.attr("file")
            if isinstance(name, str):
                os.makedirs(os.path.dirname(os.path.join(box, name)), exist_ok=True)
                with open(os.path.join(box, name), "w") as f:
                    f.write(b.code)
            if b.attr("output"):
                continue  # compared with the block before
            if self.args.python:  # the Python blocks alone
                if b.lang == "python":
                    self.py(b, box, env, follows)
                continue
            if b.lang == "python":
                self.tally.counts["python (checked by scripts/test-python)"] += 1
            elif b.lang == "cpp":
                self.cpp(b, box, env, follows)
            elif b.lang == "sh":
                self.sh(b, box, env, state, follows)
            else:
                self.tally.counts[f"{b.lang} (not checked)" if not name else f"{b.lang} (written to a file)"] += 1

    def compare(self, b, out, follows):
        if follows is None:
            return True
        self.tally.counts["outputs compared"] += 1
        if out == follows.code:
            return True
        self.tally.fail(b, f"prints something other than the output block at {follows.where()}", out)
        return False

    def cpp(self, b, box, env, follows):
        if b.attr("no-compile"):
            self.tally.counts["cpp skipped (no-compile)"] += 1
            return
        if not MAIN.search(b.code):
            self.fragments.append(b)  # compiled together at the end
            self.tally.counts["cpp fragments compiled"] += 1
            return
        self.tally.counts["cpp programs compiled and run"] += 1
        base = os.path.join(self.work, f"program{self.tally.counts['cpp programs compiled and run']}")
        with open(base + ".cpp", "w") as f:
            f.write(f'#line {b.line} "{b.path}"\n{b.code}')
        r = run([self.args.cxx, "-std=c++20"] + WARNINGS + [base + ".cpp", "-o", base] + self.flags)
        if r.returncode != 0:
            return self.tally.fail(b, "does not compile", r.stdout)
        r = run(["sh", "-c", f"'{base}' > '{base}.out'"], cwd=box, env=env)
        if r.returncode != 0:
            return self.tally.fail(b, f"exits with {r.returncode}", open(base + ".out").read() + r.stdout)
        self.compare(b, open(base + ".out").read(), follows)

    def sh(self, b, box, env, state, follows):
        if b.attr("no-run"):
            self.tally.counts["sh skipped (no-run)"] += 1
            return
        self.tally.counts["sh blocks run"] += 1
        out = state + ".out"
        script = f"set -euo pipefail\nsource '{state}'\ncd '{box}'\n{b.setup}\n{{\n{b.code}\n}} > '{out}'\nexport -p > '{state}'\n"
        r = run(["bash", "-c", script], cwd=box, env=env)
        if r.returncode != 0:
            return self.tally.fail(b, f"exits with {r.returncode}", f"{b.code}--- its output:\n{open(out).read()}{r.stdout}")
        self.compare(b, open(out).read(), follows)

    def py(self, b, box, env, follows):
        if b.attr("no-run"):
            self.tally.counts["python skipped (no-run)"] += 1
            return
        self.tally.counts["python blocks run"] += 1
        # the setup's lines, then the block's, each where the markdown file has it (for tracebacks)
        src = os.path.join(self.work, f"block{self.tally.counts['python blocks run']}.py")
        with open(src, "w") as f:
            f.write(b.setup + "\n" + "\n" * max(0, b.line - 2 - b.setup.count("\n")) + b.code)
        r = run([self.args.python, src], cwd=box, env=env)
        if r.returncode != 0:
            return self.tally.fail(b, f"exits with {r.returncode}", r.stdout)
        self.compare(b, r.stdout, follows)

    def compile_fragments(self):
        """All fragments in one translation unit (one compile), each in a function of its own;
        #line makes every error name the markdown file and line."""
        if not self.fragments:
            return
        parts = [FRAGMENT_PRELUDE]
        for n, b in enumerate(self.fragments):
            parts.append(f"namespace doc_fragment_{n} {{\n[[maybe_unused]] void fragment() {{\n")
            if b.setup:
                parts.append(f'#line {b.setup_line} "{b.path}"\n{b.setup}\n')
            parts.append(f'#line {b.line} "{b.path}"\n{b.code}}}\n}}\n')
        src = os.path.join(self.work, "fragments.cpp")
        with open(src, "w") as f:
            f.write("".join(parts))
        r = run([self.args.cxx, "-std=c++20", "-fsyntax-only"] + WARNINGS + ["-Wno-unused", "-Wno-unused-parameter", src] +
                self.flags)
        if r.returncode != 0:
            self.tally.failures.append(f"C++ fragments (compiled together, {src}) do not compile:\n{r.stdout.rstrip()}")


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--source", required=True)
    p.add_argument("--build")
    p.add_argument("--cxx")
    p.add_argument("--python", help="check the Python blocks alone, with this interpreter (ptxpp installed)")
    p.add_argument("--work", help="scratch directory (default: a new temporary one, removed)")
    p.add_argument("--keep", action="store_true", help="keep the scratch directory")
    args = p.parse_args()
    if not args.python and not (args.build and args.cxx):
        p.error("--build and --cxx are required without --python")
    args.source = os.path.abspath(args.source)
    made = args.work is None
    args.work = os.path.abspath(args.work or tempfile.mkdtemp(prefix="ptxpp-doc-test-"))
    files = ["README.md"] + sorted("docs/" + f for f in os.listdir(os.path.join(args.source, "docs"))
                                   if f.endswith(".md"))
    tally = Tally()
    checker = Checker(args, tally)
    try:
        if not args.python:
            checker.install()
        for rel in files:
            blocks, errors = read_blocks(args.source, rel)
            tally.failures += errors
            before = collections.Counter(tally.counts)
            checker.check_file(rel, blocks)
            print(f"{rel}: {len(blocks)} blocks" + "".join(
                f"; {k} {v}" for k, v in sorted((tally.counts - before).items())))
        if not args.python:
            checker.compile_fragments()
    finally:
        if made and not args.keep:
            shutil.rmtree(args.work, ignore_errors=True)
    print("doc test, all files:" + "".join(f"\n  {k}: {v}" for k, v in sorted(tally.counts.items())))
    for f in tally.failures:
        print(f"FAIL: {f}")
    print(f"{len(tally.failures)} failure(s)" if tally.failures else "doc test: every checked block passed")
    return 1 if tally.failures else 0


if __name__ == "__main__":
    sys.exit(main())
