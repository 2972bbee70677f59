"""Calling kernels on NumPy arrays: the CPU emulator, shape binding, errors naming the argument."""

import numpy as np
import pytest

import ptxpp
from ptxpp import Scalar, Tile, ptx, reg
from ptxpp.types import f32, s32, u32


@ptxpp.kernel(in_specs=(Tile("N", f32),), out_specs=(Tile("N", f32),), scalars=(Scalar("a", f32),),
              grid=lambda N: ((N + 63) // 64, 1, 1), block=64, arch="sm_90a")
def axpy(x, y, a, *, N):
    i = ptx.read(ptx.special.ctaid.x(), u32) * 64 + ptx.read(ptx.special.tid.x(), u32)
    done = ptx.Label("done")
    ptx.bra_unless(i < N, done)
    px, py = ptx.global_ptrs(x, y)
    off = i * 4
    v, w = reg.scalar(f32), reg.scalar(f32)
    ptx.inst.ld.global_.f32(v, ptx.addr(px + off))
    ptx.inst.ld.global_.f32(w, ptx.addr(py + off))
    ptx.inst.fma.rn.f32(w, v, a.load(), w)
    ptx.inst.st.global_.f32(ptx.addr(py + off), w)
    ptx.place(done)
    ptx.ret()


def test_numpy_arrays_run_on_the_emulator():
    x = np.arange(100, dtype=np.float32)
    y = axpy(x, 2.0)  # the output is allocated (zeros) and returned
    assert np.array_equal(y, 2 * x)
    y2 = np.ones(100, np.float32)
    assert axpy(x, y2, a=3.0) is y2  # given outputs are written in place
    assert np.array_equal(y2, 3 * x + 1)
    z = np.ones(200, np.float32)[::2]  # a non-contiguous input is read from a copy
    assert np.array_equal(axpy(z, 1.0), z)


def test_mismatches_name_the_argument():
    x = np.zeros(8, np.float32)
    with pytest.raises(TypeError, match="argument 'x' must be a f32 array, not float64"):
        axpy(x.astype(np.float64), 1.0)
    with pytest.raises(ValueError, match="argument 'x' must have 1 dimension"):
        axpy(x.reshape(2, 4), 1.0)
    with pytest.raises(ValueError, match=r"dimension 0 of 'y' is 4, but N is 8 \(dimension 0 of 'x'\)"):
        axpy(x, np.zeros(4, np.float32), 1.0)
    with pytest.raises(TypeError, match="scalar 'a' is missing"):
        axpy(x)
    with pytest.raises(TypeError, match="scalar 'a' must be a number, not str"):
        axpy(x, "2")
    with pytest.raises(TypeError, match="takes 1 input array\\(s\\) \\(and optionally 1 output\\(s\\)\\), not 3"):
        axpy(x, x, x, 1.0)
    with pytest.raises(ValueError, match="output 'y' must be C-contiguous"):
        axpy(x, np.zeros(16, np.float32)[::2], 1.0)


def test_out_of_bounds_accesses_are_reported_by_the_emulator():
    @ptxpp.kernel(in_specs=(Tile("N", s32),), block=32, arch="sm_90a")
    def oob(x):
        p = x.global_ptr()
        v = reg.scalar(s32)
        ptx.inst.ld.global_.s32(v, ptx.addr(p, 4096))
        ptx.ret()

    with pytest.raises(ptxpp.Error, match="out of bounds"):
        oob(np.zeros(8, np.int32))


def test_outputs_bound_by_no_input_need_the_dimension():
    @ptxpp.kernel(in_specs=(Tile("N", f32),), out_specs=(Tile("K", f32),), arch="sm_90a")
    def k(x, y):
        ptx.ret()

    with pytest.raises(TypeError, match="output 'y' cannot be allocated: K is bound by no input"):
        k(np.zeros(4, np.float32))
    assert k(np.zeros(4, np.float32), K=3).shape == (3,)


def test_integer_scalars_are_range_checked():
    @ptxpp.kernel(in_specs=(Tile("N", u32),), scalars=(Scalar("n", u32),), arch="sm_90a")
    def k(x, n):
        ptx.ret()

    k(np.zeros(4, np.uint32), 7)
    with pytest.raises(ValueError, match="scalar 'n': -1 does not fit a u32"):
        k(np.zeros(4, np.uint32), -1)
    with pytest.raises(TypeError, match="scalar 'n' is a u32: give an integer"):
        k(np.zeros(4, np.uint32), 1.5)
