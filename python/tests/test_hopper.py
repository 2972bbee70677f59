"""The Hopper helpers: mbarriers, pipelines, TMA copies, warp specialization (the C++ helpers'
sequences, tests/dsl/hopper_test.cpp's programs written in Python)."""

import pytest

import ptxpp
from ptxpp import TensorMap, Tile, ptx, reg, smem
from ptxpp.types import b32, b64, f32, u32

from conftest import body_lines, trace

hop = ptx.hopper


def test_mbarrier_emits_exactly_its_instructions(lines):
    def body(x):
        bars = smem.alloc(b64, 1, align=8)
        bar = hop.Mbarrier(bars.addr(0))
        tid = ptx.read(ptx.special.tid.x(), u32)
        p = tid == 0
        bar.init(1, p)
        hop.fence_mbarrier_init()
        bar.arrive()
        bar.arrive_expect_tx(1024, p)
        bar.expect_tx(64)
        bar.wait(0)
        ph = reg.scalar(b32)
        ptx.inst.mov.b32(ph, 1)
        bar.wait(ph)

    got = [l for l in lines(body) if not l.startswith((".shared", "$L"))]
    assert got == [
        "mov.u32 \t%r1, %tid.x;", "setp.eq.u32 \t%p1, %r1, 0;", "@%p1 mbarrier.init.shared::cta.b64 \t[smem], 1;",
        "fence.mbarrier_init.release.cluster;", "mbarrier.arrive.shared::cta.b64 \t_, [smem];",
        "@%p1 mbarrier.arrive.expect_tx.shared::cta.b64 \t_, [smem], 1024;", "mbarrier.expect_tx.shared::cta.b64 \t[smem], 64;",
        "mbarrier.try_wait.parity.shared::cta.b64 \t%p2, [smem], 0;", "@!%p2 bra \t$L__mbar_wait;", "mov.b32 \t%r2, 1;",
        "mbarrier.try_wait.parity.shared::cta.b64 \t%p3, [smem], %r2;", "@!%p3 bra \t$L__mbar_wait_2;"]


@ptxpp.kernel(in_specs=(TensorMap("m"),), arch="sm_90a")
def tma(m):
    buf, bars = smem.alloc(f32, (2, 32), align=128), smem.alloc(b64, 2, align=8)
    pipe = hop.Pipeline(bars, 1)
    tid = ptx.read(ptx.special.tid.x(), u32)
    leader = tid == 0
    pipe.init(1, 1, leader)
    hop.fence_mbarrier_init()
    state = hop.PipelineState(pipe, 0)
    mp = m.generic_address()

    def producer():
        pipe.full(0).arrive_expect_tx(256, leader)
        hop.tma_load(buf.addr(0), mp, [tid, 0], pipe.full(0), guard=leader)

    def consumers(ct):
        state.wait_full()
        hop.fence_proxy_async()
        hop.tma_store(mp, [ct, 8], buf.addr(0))
        hop.bulk_commit()
        hop.bulk_wait(0, read_only=True)

    hop.warp_specialize(tid, producer=producer, consumers=consumers)
    ptx.ret()


def test_tma_pipeline_and_warp_specialization_pass_ptxas():
    text = tma.ptx()
    assert ".param .align 64 .b8 tma_m[128]" in text
    got = body_lines(text)
    assert "@%p1 cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes \t[smem], [%rd2, {%r1, 0}], " \
           "[smem_2];" in got
    assert "setmaxnreg.inc.sync.aligned.u32 \t232;" in got and "cp.async.bulk.wait_group.read \t0;" in got
    from test_examples import PTXAS
    if PTXAS:
        import subprocess, tempfile, os
        with tempfile.TemporaryDirectory() as d:
            open(os.path.join(d, "t.ptx"), "w").write(text)
            r = subprocess.run([PTXAS, "-arch=sm_90a", "t.ptx", "-o", "t.cubin"], cwd=d, capture_output=True, text=True)
            assert r.returncode == 0, r.stderr


def test_a_tensor_map_without_its_array_cannot_be_launched():
    import numpy as np
    with pytest.raises(TypeError, match="takes a tensor map with no array description"):
        tma(np.zeros(4))


def test_misuse_is_reported():
    with pytest.raises(ptxpp.Error, match="a tensor map takes 1 to 5 coordinates, not 6"):
        trace(lambda x: hop.tma_store(x.global_ptr(), [0] * 6, smem.alloc(f32, 4).addr(0)))
    with pytest.raises(TypeError, match="expected an mbarrier"):
        trace(lambda x: hop.tma_load(smem.alloc(f32, 4).addr(0), x.global_ptr(), [0], 3))


def test_wgmma_emits_exactly_its_instructions(lines):
    def body(x):
        sa = smem.alloc(ptxpp.types.bf16, (64, 64), align=1024)
        base = sa.base()
        da = hop.make_descriptor(base, hop.k_major(0, hop.DescSwizzle.B128, 1024))
        db = da + 2
        acc = reg.array(f32, 72, "acc")
        tid = ptx.read(ptx.special.tid.x(), u32)
        p = tid == tid
        hop.wgmma_fence()
        hop.mma_async(8, ptxpp.types.bf16, acc, 0, da, db, p)
        hop.mma_async(128, ptxpp.types.f16, acc, 4, da, db, p, trans_a=1, trans_b=1)
        hop.wgmma_commit()
        hop.wgmma_wait(0)

    got = [l for l in lines(body) if not l.startswith(".shared")]
    acc128 = ", ".join(f"%acc{i}" for i in range(4, 68))
    assert got == [
        "mov.u32 \t%r1, smem;", "shr.u32 \t%r2, %r1, 4;", "and.b32 \t%r3, %r2, 16383;", "cvt.u64.u32 \t%rd2, %r3;",
        "or.b64 \t%rd1, %rd2, 4611686293305360384;", "add.u64 \t%rd3, %rd1, 2;", "mov.u32 \t%r4, %tid.x;",
        "setp.eq.u32 \t%p1, %r4, %r4;", "wgmma.fence.sync.aligned;",
        "wgmma.mma_async.sync.aligned.m64n8k16.f32.bf16.bf16 \t{%acc0, %acc1, %acc2, %acc3}, %rd1, %rd3, %p1, 1, 1, 0, 0;",
        f"wgmma.mma_async.sync.aligned.m64n128k16.f32.f16.f16 \t{{{acc128}}}, %rd1, %rd3, %p1, 1, 1, 1, 1;",
        "wgmma.commit_group.sync.aligned;", "wgmma.wait_group.sync.aligned \t0;"]


def test_wgmma_kinds_are_checked():
    assert hop.WgmmaKind(ptxpp.types.e4m3, ptxpp.types.e5m2, f32).d == f32
    with pytest.raises(ptxpp.Error, match="not a wgmma.mma_async kind: 16-bit A and B have the same type"):
        hop.WgmmaKind(ptxpp.types.f16, ptxpp.types.bf16, f32)
    assert hop.accumulator_row_col(8, f32, 5, 1) == (1, 3)
