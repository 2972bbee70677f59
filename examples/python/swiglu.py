"""The swiglu example kernel (elementwise.py): prints its PTX with --ptx, runs on the emulator with --run."""

import sys

import numpy as np

from elementwise import swiglu
from example_main import example_main


def run():
    rng = np.random.default_rng(0)
    g, u = rng.standard_normal((2, 1000), dtype=np.float32)
    want = g / (1 + np.exp(-g)) * u
    assert np.allclose(swiglu(g, u), want, rtol=1e-5, atol=1e-6)


if __name__ == "__main__":
    sys.exit(example_main("swiglu: a ptxpp Python DSL example", swiglu, {"N": 1 << 20}, run))
