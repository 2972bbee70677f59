"""`ptxpp transpile --lang python`: the Python program it writes, run with the installed
package, prints the module it came from: equal to `ptxpp fmt` of the input (the canonical
form), so byte-identical when the input was canonical (docs/transpile.md). The C++ output's
guarantee, on the nvcc corpus and small files of the real compilers, plain and --sugar."""

import os
import subprocess
import sys
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
    # bytes that are not UTF-8 (a comment's) come back as surrogates: encoded back to those bytes
    return scope["ptx_module"]().ptx().encode("utf-8", "surrogateescape")


def corpus(directory, max_bytes=None, names=None):
    files = sorted((CORPUS / directory).rglob("*.ptx"))
    if names is not None:
        files = [f for f in files if f.name in names]
    if max_bytes is not None:
        files = [f for f in files if f.stat().st_size <= max_bytes]
    return [pytest.param(f, id=str(f.relative_to(CORPUS))) for f in files]


# The whole hand-written and nvcc corpora (what transpile.corpus_roundtrip checks in C++), and
# the real compilers' files up to 6 KB (the C++ test goes to 24 KB); --sugar on a subset. These
# take about 9 s; PTXPP_TRANSPILE_ALL=1 takes every file of tests/corpus both ways (about 35 s).
REAL = ("triton", "cutlass", "clang")
if os.environ.get("PTXPP_TRANSPILE_ALL"):
    ALL = SUGAR = corpus("hand") + corpus("nvcc") + sum((corpus(d) for d in REAL), [])
else:
    ALL = corpus("hand") + corpus("nvcc") + sum((corpus(d, 6000) for d in REAL), [])
    SUGAR = (corpus("hand", names={"control-flow.ptx", "inline-asm-blocks.ptx", "comments-and-whitespace.ptx"}) +
             corpus("nvcc", 20000) + corpus("triton", 6000))


def roundtrip(path, *flags):
    """Transpiles `path` to Python, runs that, and compares the PTX with `ptxpp fmt` of the input."""
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


# What the corpus may not have: Python keywords and names the output uses as register names,
# an f32 literal in an instruction that names .f64 (and the reverse), infinities, an empty
# block, a negated guard, and comments in UTF-8 and in bytes that are not UTF-8.
EDGES = (b".version 8.0\n.target sm_90a\n.address_size 64\n\n// caf\xc3\xa9, not UTF-8: \xff\n"
         b".visible .entry k(.param .u64 p)\n{\n"
         b"\t.reg .b32 \t%in<3>;\n\t.reg .b32 \t%range;\n\t.reg .f64 \t%fd<3>;\n\t.reg .f32 \t%f<3>;\n"
         b"\t.reg .pred \t%p<2>;\n"
         b"\tmov.u32 \t%range, 7; // \xe2\x82\xac\n"
         b"\tmov.f64 \t%fd1, 0d3FF0000000000000;\n"
         b"\tcvt.rn.f32.f64 \t%f1, 0d3FF8000000000000;\n"
         b"\tcvt.f64.f32 \t%fd2, 0f3F800000;\n"
         b"\tmov.f32 \t%f2, 0f3DCCCCCD;\n"
         b"\tmov.f32 \t%f2, 0f7F800000;\n"
         b"\tadd.s32 \t%in1, %range, -2147483648;\n"
         b"\tadd.s64 \t%in2, %in1, 4294967295;\n"
         b"\t{\n\t}\n"
         b"\tsetp.ne.s32 \t%p1, %in1, 0;\n"
         b"\t@!%p1 ret;\n"
         b"\tret;\n}\n")


@needs_cli
@pytest.mark.parametrize("flags", [(), ("--sugar",)], ids=["plain", "sugar"])
def test_names_literals_and_bytes_python_spells_differently(tmp_path, flags):
    path = tmp_path / "edges.ptx"
    path.write_bytes(EDGES)
    source = ptxpp("transpile", "--lang", "python", *flags, str(path)).decode()
    assert "in_2 = lst.regs(DType.b32, \"%in\", 3)" in source
    assert "ptx.inst.cvt.f64.f32(fd[2], ptx.f32imm(1.0))" in source
    assert "ptx.inst.cvt.rn.f32.f64(f[1], 1.5)" in source
    assert "pass" in source
    roundtrip(path, *flags)


@needs_cli
def test_the_program_runs_as_a_script(tmp_path):
    """The generated file is a script too: `python out.py` prints the module."""
    src = CORPUS / "hand" / "control-flow.ptx"
    out = tmp_path / "control_flow.py"
    ptxpp("transpile", "--lang", "python", "--name", "control_flow", "-o", str(out), str(src))
    r = subprocess.run([sys.executable, str(out)], capture_output=True, check=True)
    assert r.stdout == ptxpp("fmt", str(src))


# The typed declarations outside bodies (docs/transpile.md, "Declarations"): the same module as
# tests/transpile/declarations_test.cpp's kModule, written with the same calls in Python's spelling.
DECLARED = """.version 8.0
.target sm_90a
.address_size 64

.global .align 4 .b32 counter[4] = {1, 2, 3, 4};
.extern .shared .align 16 .b8 smem[];
.const .align 8 .u64 limit = 100;

.extern .func (.param .b32 func_retval0) vprintf(
\t.param .b64 vprintf_param_0,
\t.param .b64 vprintf_param_1
);

.func (.reg .b32 r) addone(
\t.reg .b32 a
)
{
\tadd.s32 \tr, a, 1;
\tret;
}

.visible .entry k(
\t.param .u64 .ptr .global .align 16 p,
\t.param .u32 n,
\t.param .align 8 .b8 blob[16]
)
.maxntid 128, 1, 1
.minnctapersm 2
{
\t.reg .b32 %r<2>;
\tld.param.u32 \t%r1, [n];
\tret;
}
"""


def declared_module(n):
    """DECLARED by hand with the typed calls; `n`: the name of k's second parameter."""
    from ptxpp import DType, ptx
    from ptxpp import listing as lst

    m = lst.Listing(target="sm_90a", version="8.0")
    m.blank_line()
    m.global_(DType.b32, "counter", align=4, dims=[4], init=[1, 2, 3, 4])
    m.shared(DType.b8, "smem", linkage=lst.Linkage.extern, align=16, dims=[0])
    m.const(DType.u64, "limit", align=8, init=[100])
    m.func_decl("vprintf", [lst.param(DType.b32, "func_retval0")],
                [lst.param(DType.b64, "vprintf_param_0"), lst.param(DType.b64, "vprintf_param_1")],
                linkage=lst.Linkage.extern)

    @m.func("addone", [lst.reg_param(DType.b32, "r")], [lst.reg_param(DType.b32, "a")])
    def _():
        ptx.inst.add.s32(lst.reg_ref(DType.b32, "r"), lst.reg_ref(DType.b32, "a"), 1)
        ptx.inst.ret()

    @m.entry("k", [lst.param(DType.u64, "p", ptr=lst.ptr(lst.Space.global_, 16)), lst.param(DType.u32, n),
                   lst.param(DType.b8, "blob", align=8, dims=[16])],
             linkage=lst.Linkage.visible, directives=[lst.maxntid(128, 1, 1), lst.minnctapersm(2)])
    def _():
        r = lst.regs(DType.b32, "%r", 2)
        ptx.inst.ld.param.u32(r[1], ptx.addr(n))
        ptx.inst.ret()

    return m


def test_typed_declarations_print_what_cpp_prints():
    assert declared_module("n").ptx() == DECLARED
    edited = DECLARED.replace(".u32 n,", ".u32 count,").replace("[n]", "[count]")
    assert declared_module("count").ptx() == edited


def test_declaration_errors_are_python_exceptions():
    from ptxpp import DType
    from ptxpp import listing as lst

    m = lst.Listing(version="8.0")
    with pytest.raises(Exception, match=r"\.ptr is for kernel \(\.entry\) parameters"):
        m.func("f", [], [lst.param(DType.u64, "p", ptr=lst.ptr(8))], body=lambda: None)
    with pytest.raises(Exception, match="a scalar variable has one initial value"):
        m.global_(DType.b32, "x", init=[1, 2])


@needs_cli
def test_transpiled_declarations_are_calls_that_can_be_edited(tmp_path):
    path = tmp_path / "declared.ptx"
    path.write_text(DECLARED)
    source = ptxpp("transpile", "--lang", "python", str(path)).decode()
    for text in ("m.text(", "m.stmt(", "@m.body", ".entry k", ".func (", ".global .", ".param .", ".version 8"):
        assert text not in source, f"{text!r} is written as text:\n{source}"
    assert run_python(source, "<declared.ptx as Python>") == DECLARED.encode()
    # rename k's parameter n where it is declared and where the body reads it
    edited = source.replace('lst.param(DType.u32, "n")', 'lst.param(DType.u32, "count")')
    edited = edited.replace('ptx.addr("n")', 'ptx.addr("count")')
    assert edited != source
    want = DECLARED.replace(".u32 n,", ".u32 count,").replace("[n]", "[count]")
    assert run_python(edited, "<edited>") == want.encode()
