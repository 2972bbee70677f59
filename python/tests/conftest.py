"""Helpers for the ptxpp Python tests: trace a small body, and the instruction lines of PTX."""

import pytest

import ptxpp
from ptxpp import Tile
from ptxpp.types import f32


def body_lines(text):
    """The instructions and labels of a one-kernel module, without declarations."""
    body = text[text.index("{") + 1:text.rindex("}")]
    return [line.strip() for line in body.splitlines() if line.strip() and not line.strip().startswith(".reg")]


def trace(body, arch="sm_90a", **kwargs):
    """The PTX of a kernel `k` with one f32[N] input (N=64) whose body is `body(x)`."""
    k = ptxpp.kernel(in_specs=(Tile("N", f32),), arch=arch, **kwargs)(lambda x: body(x))
    k.name = "k"
    return k.ptx(N=64)


@pytest.fixture
def lines():
    return lambda body, **kw: body_lines(trace(body, **kw))
