"""The softmax example kernel (rows.py): prints its PTX with --ptx, runs on the emulator with --run."""

import sys

import numpy as np

from example_main import example_main
from rows import softmax


def run():
    rng = np.random.default_rng(0)
    x = rng.standard_normal((4, 96), dtype=np.float32)
    e = np.exp(x - x.max(axis=1, keepdims=True))
    assert np.allclose(softmax(x), e / e.sum(axis=1, keepdims=True), rtol=1e-4, atol=1e-6)


if __name__ == "__main__":
    sys.exit(example_main("softmax: a ptxpp Python DSL example", softmax, {"M": 1024, "N": 4096}, run))
