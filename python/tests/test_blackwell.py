"""The Blackwell helpers (ptx.blackwell): tensor memory, tcgen05 descriptors, mma, commit, ld/st,
fences (tests/dsl/blackwell_test.cpp's programs written in Python, the same instructions)."""

import os
import subprocess
import tempfile

import pytest

import ptxpp
from ptxpp import ptx, reg, smem
from ptxpp.types import b16, b32, b64, u32

from conftest import body_lines, trace
from test_examples import PTXAS

bw, hop = ptx.blackwell, ptx.hopper


def assert_ptxas_accepts(text, arch="sm_100a"):
    if not PTXAS:
        return
    with tempfile.TemporaryDirectory() as d:
        with open(os.path.join(d, "t.ptx"), "w") as f:
            f.write(text)
        r = subprocess.run([PTXAS, f"-arch={arch}", "t.ptx", "-o", "t.cubin"], cwd=d, capture_output=True, text=True)
        assert r.returncode == 0, r.stderr


def instructions(text):
    return [l for l in body_lines(text) if not l.startswith((".shared", "$L"))]


def test_mma_commit_and_fences_emit_exactly_their_instructions():
    def body(x):
        slot, bars = smem.alloc(u32, 4, align=16), smem.alloc(b64, 1, align=8)
        bar = hop.Mbarrier(bars.addr(0))
        tid = ptx.read(ptx.special.tid.x(), u32)
        p = tid == 0
        d = reg.scalar(b32)
        ptx.inst.ld.shared.b32(d, slot.addr(0))
        base = slot.base()
        da = bw.make_smem_descriptor(base, bw.k_major(0, bw.SmemSwizzle.B128, 1024))
        db = da + 64
        bw.fence_after_thread_sync()
        bw.mma(bw.bf16_f32(128, 256), d, da, db, p)
        i8 = bw.InstrDescriptor(kind=bw.MmaKind.I8, a=bw.MmaType.s8, b=bw.MmaType.s8, d=bw.AccType.s32, m=128, n=64)
        bw.mma(i8, d, da, db, p)
        idesc = reg.scalar(b32)
        ptx.inst.mov.b32(idesc, 0x08400490)
        bw.mma(idesc, d, da, db, p, group=bw.CtaGroup.One, kind=bw.MmaKind.F16)
        bw.mma_tmem_a(bw.bf16_f32(128, 64), d, d, db, p)
        bw.commit(bw.CtaGroup.One, bar, p)
        mask = reg.scalar(b16)
        ptx.inst.mov.b16(mask, 3)
        bw.commit_multicast(bw.CtaGroup.One, bar, mask)
        bw.fence_before_thread_sync()

    text = trace(body, arch="sm_100a")
    assert instructions(text) == [
        "mov.u32 \t%r1, %tid.x;", "setp.eq.u32 \t%p1, %r1, 0;", "ld.shared.b32 \t%r2, [smem];", "mov.u32 \t%r3, smem;",
        "shr.u32 \t%r4, %r3, 4;", "and.b32 \t%r5, %r4, 16383;", "cvt.u64.u32 \t%rd1, %r5;",
        "or.b64 \t%rd2, %rd1, 4611756662049538048;", "add.u64 \t%rd3, %rd2, 64;", "tcgen05.fence::after_thread_sync;",
        "tcgen05.mma.cta_group::1.kind::f16 \t[%r2], %rd2, %rd3, 138413200, %p1;",
        "tcgen05.mma.cta_group::1.kind::i8 \t[%r2], %rd2, %rd3, 135267488, %p1;", "mov.b32 \t%r6, 138413200;",
        "tcgen05.mma.cta_group::1.kind::f16 \t[%r2], %rd2, %rd3, %r6, %p1;",
        "tcgen05.mma.cta_group::1.kind::f16 \t[%r2], [%r2], %rd3, 135267472, %p1;",
        "@%p1 tcgen05.commit.cta_group::1.mbarrier::arrive::one.shared::cluster.b64 \t[smem_2];", "mov.b16 \t%rs1, 3;",
        "tcgen05.commit.cta_group::1.mbarrier::arrive::one.shared::cluster.multicast::cluster.b64 \t[smem_2], %rs1;",
        "tcgen05.fence::before_thread_sync;"]
    assert_ptxas_accepts(text)


def test_tensor_memory_alloc_load_store():
    def body(x):
        slot = smem.alloc(u32, 1, align=16)
        bw.tmem_alloc(slot.addr(0), 256)
        bw.tmem_relinquish_alloc_permit()
        ta = reg.scalar(b32)
        ptx.inst.ld.shared.b32(ta, slot.addr(0))
        v = reg.array(b32, 32, "v")
        bw.tmem_load(bw.TmemShape.S32x32b, 8, v, 0, ta)
        bw.tmem_load(bw.TmemShape.S16x256b, 4, v, 16, ta, 32, pack16=True)
        bw.tmem_wait_ld()
        bw.tmem_store(bw.TmemShape.S32x32b, 1, ta, v, 31)
        bw.tmem_wait_st()
        bw.tmem_dealloc(ta, 256)

    text = trace(body, arch="sm_100a")
    regs = lambda first, n: "{" + ", ".join(f"%v{i}" for i in range(first, first + n)) + "}"
    assert instructions(text) == [
        "tcgen05.alloc.cta_group::1.sync.aligned.shared::cta.b32 \t[smem], 256;",
        "tcgen05.relinquish_alloc_permit.cta_group::1.sync.aligned;", "ld.shared.b32 \t%r1, [smem];",
        f"tcgen05.ld.sync.aligned.32x32b.x8.b32 \t{regs(0, 8)}, [%r1];",
        f"tcgen05.ld.sync.aligned.16x256b.x4.pack::16b.b32 \t{regs(16, 16)}, [%r1+32];",
        "tcgen05.wait::ld.sync.aligned;", "tcgen05.st.sync.aligned.32x32b.x1.b32 \t[%r1], {%v31};",
        "tcgen05.wait::st.sync.aligned;", "tcgen05.dealloc.cta_group::1.sync.aligned.b32 \t%r1, 256;"]
    assert_ptxas_accepts(text)


def test_descriptors_and_fragment_maps_are_the_cxx_ones():
    assert bw.bf16_f32(128, 256).bits() == 138413200
    assert bw.bf16_f32(256, 256, bw.CtaGroup.Two).bits() == 272630928
    assert bw.k_major(0, bw.SmemSwizzle.B128, 1024).bits() == 4611756662049538048
    d = bw.InstrDescriptor.decode(bw.bf16_f32(128, 64).bits(), bw.MmaKind.F16)
    assert (d.m, d.n, d.a) == (128, 64, bw.MmaType.bf16)
    assert bw.tmem_address(32, 128) == 0x200080
    assert bw.tmem_regs(bw.TmemShape.S16x256b, 2) == 8
    t, r = bw.tmem_fragment_thread_reg(bw.TmemShape.S16x128b, 4, 9, 6)
    assert bw.tmem_fragment_row_col(bw.TmemShape.S16x128b, 4, t, r) == (9, 6)


def test_misuse_is_reported_at_the_users_line():
    with pytest.raises(ptxpp.Error, match="test_blackwell.py"):
        trace(lambda x: bw.tmem_alloc(smem.alloc(u32, 1).addr(0), 48), arch="sm_100a")
    with pytest.raises(ptxpp.Error):
        bw.InstrDescriptor(m=96, n=256).bits()
    with pytest.raises(TypeError, match="group= and kind="):
        def body(x):
            r = reg.scalar(b32)
            ptx.inst.mov.b32(r, 0)
            da = reg.scalar(b64)
            ptx.inst.mov.b64(da, 0)
            bw.mma(r, r, da, da, r == 0)
        trace(body, arch="sm_100a")


def test_pair_tma_load_emits_exactly_its_instruction():
    """tma_load_pair (tests/dsl/blackwell_test.cpp's program): .cta_group::2, the mbarrier this
    CTA's or the leader's (map_shared_rank), 1 to 5 coordinates."""
    def body(m):
        buf, bars = smem.alloc(ptxpp.types.bf16, (64, 64), 1024), smem.alloc(b64, 1, 8)
        tmap = m.generic_address()
        x = ptx.read(ptx.special.tid.x(), u32)
        p = x == 0
        leader = hop.map_shared_rank(bars.base(), 0)
        bw.tma_load_pair(buf.addr(0), tmap, [x, 0], hop.Mbarrier(ptx.addr(leader)), guard=p)
        bw.tma_load_pair(buf.addr(0), tmap, [x], hop.Mbarrier(bars.addr(0)))
        ptx.ret()

    text = ptxpp.kernel(in_specs=(ptxpp.TensorMap("m"),), arch="sm_100a", name="tma2")(body).ptx()
    op = "cp.async.bulk.tensor.{}d.shared::cluster.global.tile.mbarrier::complete_tx::bytes.cta_group::2"
    assert instructions(text)[-3:] == [
        "@%p1 " + op.format(2) + " \t[smem], [%rd2, {%r1, 0}], [%r3];",
        op.format(1) + " \t[smem], [%rd2, {%r1}], [smem_2];", "ret;"]
    assert_ptxas_accepts(text)
    with pytest.raises(ptxpp.Error, match="1 to 5 coordinates"):
        ptxpp.kernel(in_specs=(ptxpp.TensorMap("m"),), arch="sm_100a", name="bad")(
            lambda m: bw.tma_load_pair(smem.alloc(b64, 1, 8).addr(0), m.generic_address(), [0] * 6,
                                       hop.Mbarrier(smem.alloc(b64, 1, 8).addr(0)))).ptx()
