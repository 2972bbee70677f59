"""The vector_add example kernel (elementwise.py): prints its PTX with --ptx, runs on the emulator with --run."""

import sys

import numpy as np

from elementwise import vector_add
from example_main import example_main


def run():
    rng = np.random.default_rng(0)
    x, y = rng.standard_normal((2, 4096), dtype=np.float32)
    assert np.array_equal(vector_add(x, y), x + y)


if __name__ == "__main__":
    sys.exit(example_main("vector_add: a ptxpp Python DSL example", vector_add, {"N": 1 << 20}, run))
