"""Calling kernels that take tensor maps, and bf16 arrays, on the CPU emulator: a TensorMap spec that
describes its array gets a NumPy array, which the emulator reads through a descriptor of it."""

import numpy as np
import pytest

import ptxpp
from ptxpp import TensorMap, Tile, ptx, smem
from ptxpp.types import b16, b64, bf16, f32, u32

hop = ptx.hopper


@ptxpp.kernel(in_specs=(TensorMap("m", "R", "C", f32, box=(8, 32)),), out_specs=(Tile("R", "C", f32),), block=256,
              arch="sm_90a")
def tma_copy(m, y):
    """One TMA load of the 8 x 32 box at (0, 0) into shared memory; thread t copies element t out."""
    buf, bars = smem.alloc(f32, 256, align=128), smem.alloc(b64, 1, align=8)
    bar = hop.Mbarrier(bars.addr(0))
    tid = ptx.read(ptx.special.tid.x(), u32)
    leader = tid == 0
    bar.init(1, leader)
    hop.fence_mbarrier_init()
    ptx.inst.bar.sync(0)
    bar.arrive_expect_tx(8 * 32 * 4, leader)
    hop.tma_load(buf.addr(0), m.generic_address(), [0, 0], bar, guard=leader)
    bar.wait(0)
    v = buf[tid]
    ptx.inst.st.global_.f32(ptx.addr(y.global_ptr() + tid * 4), v)
    ptx.ret()


def test_a_tensor_map_parameter_takes_a_numpy_array():
    x = np.arange(256, dtype=np.float32).reshape(8, 32)
    assert np.array_equal(tma_copy(x), x)
    big = np.arange(16 * 32, dtype=np.float32).reshape(16, 32)  # the box is the top 8 rows
    assert np.array_equal(tma_copy(big)[:8], big[:8])


def test_tensor_map_arrays_are_checked_and_named():
    with pytest.raises(TypeError, match="argument 'm' must be a f32 array, not float64"):
        tma_copy(np.zeros((8, 32)))
    with pytest.raises(ValueError, match="argument 'm' must have 2 dimension"):
        tma_copy(np.zeros(256, np.float32))
    with pytest.raises(TypeError, match="box= gives the copy's extent in each of the 2"):
        TensorMap("m", "R", "C", f32, box=(8,))
    wide = ptxpp.kernel(in_specs=(TensorMap("m", "R", "C", f32, box=(8, 300)),), arch="sm_90a",
                        name="wide")(lambda m: ptx.ret())
    with pytest.raises(ptxpp.Error, match=r"m: .*box\[0\] = 300: must be 1 to 256.*innermost first"):  # the driver's rule, checked for the emulator too
        wide(np.zeros((8, 512), np.float32))


@ptxpp.kernel(in_specs=(Tile("N", bf16),), out_specs=(Tile("N", bf16),), block=32, arch="sm_90a")
def copy_bf16(x, y):
    off = ptx.read(ptx.special.tid.x(), u32) * 2
    v = ptxpp.reg.scalar(b16)
    ptx.inst.ld.global_.b16(v, ptx.addr(x.global_ptr() + off))
    ptx.inst.st.global_.b16(ptx.addr(y.global_ptr() + off), v)
    ptx.ret()


def test_bf16_numpy_arrays_run_on_the_emulator():
    ml_dtypes = pytest.importorskip("ml_dtypes", reason="bf16 NumPy arrays need ml_dtypes")
    x = (np.arange(32) / 4 - 3).astype(ml_dtypes.bfloat16)
    y = copy_bf16(x)
    assert y.dtype == x.dtype and np.array_equal(y, x)
