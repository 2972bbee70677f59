"""Shared memory (static, dynamic past 48 KB) and the warp helpers."""

import pytest

import ptxpp
from ptxpp import ptx, reg, smem, Tile
from ptxpp.types import f32, u32

from conftest import trace


def test_static_shared_memory(lines):
    def body(x):
        buf = smem.alloc(f32, (8, 32))
        assert buf.bytes == 1024 and buf.symbol == "smem"
        v = reg.scalar(f32)
        ptx.inst.st.shared.f32(buf.addr(16), v)
        buf.base()

    text = trace(body)
    assert ".shared .align 16 .b8 smem[1024];" in text
    assert "st.shared.f32 \t[smem+16], %f1;" in text and "mov.u32 \t%r1, smem;" in text


def test_above_48_kb_shared_memory_goes_dynamic():
    @ptxpp.kernel(in_specs=(Tile("N", f32),), arch="sm_90a")
    def k(x, *, N):
        a = smem.alloc(f32, 8192)          # 32 KB
        b = smem.alloc(f32, N, align=128)  # 32 KB more at N = 8192
        ptx.inst.st.shared.f32(b.addr(4), reg.scalar(f32))

    small, big = k.trace(N=16), k.trace(N=8192)
    assert small.dynamic_smem_bytes == 0 and small.static_smem_bytes == 32768 + 64
    assert big.dynamic_smem_bytes == 65536 and ".extern .shared .align 1024 .b8 dyn_smem[];" in big.ptx
    assert "[dyn_smem+32772]" in big.ptx


def test_shared_memory_errors():
    with pytest.raises(ptxpp.Error, match="shared memory dimension 0 is not positive"):
        trace(lambda x: smem.alloc(f32, (4, 0)))
    with pytest.raises(ptxpp.Error, match=r"test_smem_warp.py:\d+: this shared memory allocation \(.f32\[102400\], 409600 bytes\) brings the kernel to 409600 bytes; sm_90a allows 232448"):
        trace(lambda x: smem.alloc(f32, 102400))


def test_swizzle_and_warp_helpers(lines):
    def body(x):
        off = reg.scalar(u32)
        smem.swizzle(off, smem.Swizzle.B128)
        v = reg.scalar(f32)
        ptx.warp.reduce_sum(v)

    got = lines(body)
    assert got[:3] == ["shr.u32 \t%r2, %r1, 3;", "and.b32 \t%r3, %r2, 112;", "xor.b32 \t%r4, %r1, %r3;"]
    assert len(got) == 3 + 10 and got[3] == "shfl.sync.bfly.b32 \t%f2, %f1, 16, 0x1f, 0xffffffff;"


def test_elect_one_needs_sm90():
    assert "elect.sync" in trace(lambda x: ptx.warp.elect_one())
    with pytest.raises(ptxpp.Error, match="sm_90"):
        trace(lambda x: ptx.warp.elect_one(), arch="sm_80")


def test_shared_arrays_indexed_with_registers(lines):
    def body(x):
        partials = smem.alloc(f32, (8, 2))
        assert partials.shape == (8, 2)
        warp = ptx.read(ptx.special.tid.x(), u32) >> 5
        acc = reg.scalar(f32)
        partials[warp][1] = acc
        partials[3, 0] = acc
        v = partials[warp, 1]
        with pytest.raises(ptxpp.Error, match="index 8 is outside dimension 0 of the shared array \\(size 8\\)"):
            partials[8]

    assert lines(body) == [".shared .align 16 .b8 smem[64];", "mov.u32 \t%r1, %tid.x;", "shr.u32 \t%r2, %r1, 5;", "mov.u32 \t%r3, smem;",
                           "mad.lo.u32 \t%r3, %r2, 8, %r3;", "st.shared.f32 \t[%r3+4], %f1;", "st.shared.f32 \t[smem+24], %f1;",
                           "mov.u32 \t%r4, smem;", "mad.lo.u32 \t%r4, %r2, 8, %r4;", "ld.shared.f32 \t%f2, [%r4+4];"]


@ptxpp.kernel(out_specs=(Tile(1, f32),), block=64, arch="sm_90a")
def block_sum(y):
    """The sum of the thread indices of a 64-thread block: warp sums through shared memory."""
    partials = smem.alloc(f32, (2, 1))
    tid = ptx.read(ptx.special.tid.x(), u32)
    v = reg.scalar(f32)
    ptx.inst.cvt.rn.f32.u32(v, tid)
    total = ptx.warp.reduce_sum(v)
    lane, warp = tid & 31, tid >> 5

    @ptx.if_(lane == 0)
    def _():
        partials[warp][0] = total  # mov.u32; mad.lo.u32; st.shared.f32

    ptx.inst.bar.sync(0)

    @ptx.if_(tid == 0)
    def _():
        s = partials[0, 0] + partials[1, 0]
        ptx.inst.st.global_.f32(ptx.addr(y.global_ptr()), s)

    ptx.ret()


def test_a_block_reduction_through_indexed_shared_memory_runs():
    assert block_sum()[0] == sum(range(64))
