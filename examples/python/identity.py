"""The identity example kernel (elementwise.py): prints its PTX with --ptx, runs on the emulator with --run."""

import sys

import numpy as np

from elementwise import identity
from example_main import example_main


def run():
    x = np.arange(1000, dtype=np.float32)
    assert np.array_equal(identity(x), x)


if __name__ == "__main__":
    sys.exit(example_main("identity: a ptxpp Python DSL example", identity, {"N": 1 << 20}, run))
