"""The rmsnorm example kernel (rows.py): prints its PTX with --ptx, runs on the emulator with --run."""

import sys

import numpy as np

from example_main import example_main
from rows import rmsnorm


def run():
    rng = np.random.default_rng(0)
    x = rng.standard_normal((4, 96), dtype=np.float32)
    w = rng.standard_normal(96, dtype=np.float32)
    want = x / np.sqrt((x * x).mean(axis=1, keepdims=True) + 1e-5) * w
    assert np.allclose(rmsnorm(x, w, eps=1e-5), want, rtol=1e-3, atol=1e-4)


if __name__ == "__main__":
    sys.exit(example_main("rmsnorm: a ptxpp Python DSL example", rmsnorm, {"M": 1024, "N": 4096}, run))
