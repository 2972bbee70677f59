"""`ptxpp transpile --lang python`: the Python program it writes, run with the installed
package, prints the module it came from: equal to `ptxpp fmt` of the input (the canonical
form), so byte-identical when the input was canonical (docs/transpile.md). The C++ output's
guarantee, on the nvcc corpus and small files of the real compilers, plain and --sugar."""

import os
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
CORPUS = ROOT / "tests" / "corpus"


def _cli():
    """The ptxpp command-line tool: $PTXPP_CLI, else next to the C++ examples (scripts/test-python
    sets PTXPP_CXX_EXAMPLES), else the release build's."""
    candidates = [os.environ.get("PTXPP_CLI")]
    if os.environ.get("PTXPP_CXX_EXAMPLES"):
        candidates.append(os.path.join(os.environ["PTXPP_CXX_EXAMPLES"], "..", "tools", "ptxpp", "ptxpp"))
    candidates.append(str(ROOT / "build" / "release" / "tools" / "ptxpp" / "ptxpp"))
    return next((c for c in candidates if c and os.access(c, os.X_OK)), None)


CLI = _cli()
needs_cli = pytest.mark.skipif(CLI is None, reason="no ptxpp command-line tool (set PTXPP_CLI)")


def ptxpp(*args):
    r = subprocess.run([CLI, *args], capture_output=True)
    assert r.returncode == 0, r.stderr.decode(errors="replace")
    return r.stdout


def run_python(source, name):
    """Runs the generated module's source here (the installed package) and returns its PTX."""
    scope = {"__name__": "transpiled"}
    exec(compile(source, name, "exec"), scope)
    return scope["ptx_module"]().ptx().encode()


def corpus(directory, max_bytes=None, names=None):
    files = sorted((CORPUS / directory).rglob("*.ptx"))
    if names is not None:
        files = [f for f in files if f.name in names]
    if max_bytes is not None:
        files = [f for f in files if f.stat().st_size <= max_bytes]
    return [pytest.param(f, id=str(f.relative_to(CORPUS))) for f in files]


# The whole hand-written and nvcc corpora (what transpile.corpus_roundtrip checks in C++), and
# the real compilers' files up to 6 KB (the C++ test goes to 24 KB; these keep the test short).
ALL = corpus("hand") + corpus("nvcc") + corpus("triton", 6000) + corpus("cutlass", 6000) + corpus("clang", 6000)
SUGAR = (corpus("hand", names={"control-flow.ptx", "inline-asm-blocks.ptx", "comments-and-whitespace.ptx"}) +
         corpus("nvcc", 20000) + corpus("triton", 6000))


def roundtrip(path, *flags):
    want = ptxpp("fmt", str(path))
    source = ptxpp("transpile", "--lang", "python", *flags, str(path)).decode()
    got = run_python(source, f"<{path.name} as Python>")
    assert got == want, f"{path}: the Python program prints another module"
    if path.read_bytes() == want:  # a canonical input comes back byte for byte
        assert got == path.read_bytes()


@needs_cli
@pytest.mark.parametrize("path", ALL)
def test_python_output_prints_the_module(path):
    roundtrip(path)


@needs_cli
@pytest.mark.parametrize("path", SUGAR)
def test_sugared_python_output_prints_the_module(path):
    roundtrip(path, "--sugar")
