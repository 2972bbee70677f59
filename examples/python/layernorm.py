"""The layernorm example kernel (rows.py): prints its PTX with --ptx, runs on the emulator with --run."""

import sys

import numpy as np

from example_main import example_main
from rows import layernorm


def run():
    rng = np.random.default_rng(0)
    x = rng.standard_normal((4, 96), dtype=np.float32)
    w, b = rng.standard_normal((2, 96), dtype=np.float32)
    mean = x.mean(axis=1, keepdims=True)
    want = (x - mean) / np.sqrt(x.var(axis=1, keepdims=True) + 1e-5) * w + b
    assert np.allclose(layernorm(x, w, b, eps=1e-5), want, rtol=1e-3, atol=1e-3)


if __name__ == "__main__":
    sys.exit(example_main("layernorm: a ptxpp Python DSL example", layernorm, {"M": 1024, "N": 4096}, run))
