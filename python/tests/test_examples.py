"""examples/python: each prints PTX identical to its C++ twin's (examples/*.cpp), which ptxas
accepts, and runs on the CPU emulator with NumPy's result."""

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
EXAMPLES = ROOT / "examples" / "python"
NAMES = ["identity", "vector_add", "swiglu", "rmsnorm", "layernorm", "softmax"]
ARCHS = ["sm_80", "sm_90a", "sm_100a"]
PTXAS = shutil.which("ptxas") or ("/usr/local/cuda/bin/ptxas" if os.path.exists("/usr/local/cuda/bin/ptxas") else None)
# The C++ examples' binaries (build/release/examples); scripts/test sets this.
CXX = os.environ.get("PTXPP_CXX_EXAMPLES")


def python_example(name, *args):
    r = subprocess.run([sys.executable, str(EXAMPLES / f"{name}.py"), *args], capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    return r.stdout


@pytest.mark.parametrize("name", NAMES)
@pytest.mark.parametrize("arch", ARCHS)
def test_same_ptx_as_the_cxx_example(name, arch):
    if not CXX:
        pytest.skip("PTXPP_CXX_EXAMPLES (the C++ examples' build directory) is not set")
    cxx = subprocess.run([os.path.join(CXX, f"ptxpp-example-{name}"), "--ptx", "--arch", arch],
                         capture_output=True, text=True, check=True).stdout
    assert python_example(name, "--ptx", "--arch", arch) == cxx


@pytest.mark.parametrize("name", NAMES)
def test_ptxas_accepts_the_ptx(name, tmp_path):
    if not PTXAS:
        pytest.skip("ptxas not found (/usr/local/cuda/bin)")
    ptx = tmp_path / f"{name}.ptx"
    ptx.write_text(python_example(name, "--ptx", "--arch", "sm_90a"))
    r = subprocess.run([PTXAS, "-arch=sm_90a", str(ptx), "-o", str(tmp_path / "out.cubin")], capture_output=True, text=True)
    assert r.returncode == 0, r.stderr


@pytest.mark.parametrize("name", NAMES)
def test_runs_on_the_emulator(name):
    assert "matches NumPy on the CPU emulator" in python_example(name, "--run")


# The Hopper GEMM: sm_90a only (setmaxnreg, wgmma), its tensor maps given NumPy arrays on the emulator.
GEMM_DIMS = [[], ["--dim", "M=256", "--dim", "N=512", "--dim", "K=640"], ["--dim", "K=64"]]


@pytest.mark.parametrize("dims", GEMM_DIMS, ids=["8192^3", "256x512x640", "K=64"])
def test_gemm_sm90_same_ptx_as_the_cxx_example(dims):
    if not CXX:
        pytest.skip("PTXPP_CXX_EXAMPLES (the C++ examples' build directory) is not set")
    cxx = subprocess.run([os.path.join(CXX, "ptxpp-example-gemm_sm90"), "--ptx", *dims],
                         capture_output=True, text=True, check=True).stdout
    assert python_example("gemm_sm90", "--ptx", *dims) == cxx


def test_gemm_sm90_ptxas_accepts_the_ptx(tmp_path):
    if not PTXAS:
        pytest.skip("ptxas not found (/usr/local/cuda/bin)")
    ptx = tmp_path / "gemm_sm90.ptx"
    ptx.write_text(python_example("gemm_sm90", "--ptx"))
    r = subprocess.run([PTXAS, "-arch=sm_90a", str(ptx), "-o", str(tmp_path / "out.cubin")], capture_output=True, text=True)
    assert r.returncode == 0, r.stderr


def test_gemm_sm90_runs_on_the_emulator():
    pytest.importorskip("ml_dtypes", reason="bf16 NumPy arrays need ml_dtypes")
    assert "matches NumPy on the CPU emulator" in python_example("gemm_sm90", "--run")


# The Blackwell GEMM: sm_100a only (tcgen05, tensor memory); the CTA pair, bf16 C and the grouped GEMM
# (gemm_sm100_grouped.py; traced only: its arguments hold device addresses) are flags of both twins.
GEMM100_FLAGS = [[], ["--cta-group", "2"], ["--bf16-out"], ["--grouped"],
                 ["--cta-group", "2", "--bf16-out", "--dim", "K=64"],
                 ["--dim", "M=256", "--dim", "N=512", "--dim", "K=640"], ["--grouped", "--dim", "G=1", "--dim", "T=3"]]
GEMM100_IDS = ["8192^3", "pair", "bf16-out", "grouped", "pair-bf16-K=64", "256x512x640", "grouped-G=1"]


@pytest.mark.parametrize("flags", GEMM100_FLAGS, ids=GEMM100_IDS)
def test_gemm_sm100_same_ptx_as_the_cxx_example(flags):
    if not CXX:
        pytest.skip("PTXPP_CXX_EXAMPLES (the C++ examples' build directory) is not set")
    cxx = subprocess.run([os.path.join(CXX, "ptxpp-example-gemm_sm100"), "--ptx", *flags],
                         capture_output=True, text=True, check=True).stdout
    assert python_example("gemm_sm100", "--ptx", *flags) == cxx


@pytest.mark.parametrize("flags", GEMM100_FLAGS[:4], ids=GEMM100_IDS[:4])
def test_gemm_sm100_ptxas_accepts_the_ptx(flags, tmp_path):
    if not PTXAS:
        pytest.skip("ptxas not found (/usr/local/cuda/bin)")
    ptx = tmp_path / "gemm_sm100.ptx"
    ptx.write_text(python_example("gemm_sm100", "--ptx", *flags))
    r = subprocess.run([PTXAS, "-arch=sm_100a", str(ptx), "-o", str(tmp_path / "out.cubin")], capture_output=True, text=True)
    assert r.returncode == 0, r.stderr


@pytest.mark.parametrize("flags", [[], ["--cta-group", "2", "--bf16-out"]], ids=["128x256x320", "pair-bf16-256x256x320"])
def test_gemm_sm100_runs_on_the_emulator(flags):
    pytest.importorskip("ml_dtypes", reason="bf16 NumPy arrays need ml_dtypes")
    assert "matches NumPy on the CPU emulator" in python_example("gemm_sm100", "--run", *flags)


def test_readme_python_kernel_prints_the_same_ptx_as_its_cxx_twin(tmp_path):
    """README.md's first example: the Python kernel, then the C++ one, then the PTX both print (the
    doc test compares that output with the C++ block; this, with the Python block)."""
    readme = (ROOT / "README.md").read_text()
    start = readme.index("```python\n") + len("```python\n")
    code = readme[start:readme.index("```\n", start)]
    out_start = readme.index("```ptx output\n", start) + len("```ptx output\n")
    want = readme[out_start:readme.index("```\n", out_start)]
    script = tmp_path / "readme_first.py"
    script.write_text("import numpy as np\n" + code)
    r = subprocess.run([sys.executable, str(script)], capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    assert r.stdout == want


def test_gemm_sm90_cluster_multicast_runs_on_the_emulator():
    """gemm_sm90(cluster_m=2): B multicast to the two CTAs of a cluster, stages released on both."""
    pytest.importorskip("ml_dtypes", reason="bf16 NumPy arrays need ml_dtypes")
    r = subprocess.run([sys.executable, "-c", "import gemm_sm90 as g; g.run(256, 256, 128, cluster_m=2)"],
                       cwd=EXAMPLES, capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
