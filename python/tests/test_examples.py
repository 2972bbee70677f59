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
