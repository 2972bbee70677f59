"""The Blackwell helpers bound beyond the dense tcgen05.mma: the sparse, .ws and block-scaled forms,
tcgen05.cp and tcgen05.shift, the TMA row gather/scatter. Each program is a C++ one written in
Python (tests/python/python_twins.cpp, which the C++ tests' programs are): the PTX is compared
byte for byte with the twin's when PTXPP_CXX_EXAMPLES gives the C++ build, and the instructions
with the C++ tests' expected lines always; ptxas takes it."""

import os
import subprocess

import pytest

import ptxpp
from ptxpp import ptx, reg, smem
from ptxpp.types import b8, b32, b64, bf16, pred, s32, u32

from test_blackwell import assert_ptxas_accepts, instructions

bw, hop = ptx.blackwell, ptx.hopper
CXX = os.environ.get("PTXPP_CXX_EXAMPLES")  # build/release/examples: the twins are in ../tests


def cxx_twin(name):
    if not CXX:
        pytest.skip("PTXPP_CXX_EXAMPLES (the C++ build's examples directory) is not set")
    return subprocess.run([os.path.join(CXX, "..", "tests", "ptxpp_python_twins"), name], capture_output=True,
                          text=True, check=True).stdout


def sm100(body):
    """The PTX of a kernel `k` with no parameters for sm_100a (the twins' sm100())."""
    return ptxpp.kernel(arch="sm_100a", name="k")(body).ptx()


def scaled(kind, t, vec, m, n, group=bw.CtaGroup.One):
    return bw.BlockScaledDescriptor(kind=kind, a=t, b=t, vec=vec, m=m, n=n, group=group)


def block_scaled_forms(d, at, sa, sb, meta, da, db, idesc, p):
    K, T, V = bw.ScaledKind, bw.MmaType, bw.ScaleVec
    bw.mma_block_scaled(scaled(K.MXF8F6F4, T.e4m3, V.X1, 128, 64), d, da, db, sa, sb, p)
    bw.mma_block_scaled(scaled(K.MXF8F6F4, T.e2m3, V.Default, 128, 8), d, da, db, sa, sb, p,
                        collector_a=bw.CollectorOp.Fill)
    bw.mma_block_scaled(scaled(K.MXF4, T.e2m1, V.Block32, 128, 32), d, da, db, sa, sb, p)
    nv = scaled(K.MXF4NVF4, T.e2m1, V.Block16, 128, 16)
    nv.scale_type = bw.ScaleType.ue4m3
    bw.mma_block_scaled_tmem_a(nv, d, at, db, sa, sb, p, collector_a=bw.CollectorOp.LastUse)
    bw.mma_block_scaled(idesc, d, da, db, sa, sb, p, group=bw.CtaGroup.One, kind=K.MXF4NVF4, vec=V.X2)
    sparse_f4 = scaled(K.MXF4, T.e2m1, V.X2, 128, 64)
    sparse_f4.sparse = True
    bw.mma_block_scaled(sparse_f4, d, da, db, sa, sb, p, sparse_metadata=meta)


def mma_forms():
    d, at, sa, sb, meta = (reg.scalar(b32) for _ in range(5))
    da, db, zcm, idesc, p = reg.scalar(b64), reg.scalar(b64), reg.scalar(b64), reg.scalar(b32), reg.scalar(pred)
    for r, v in ((d, 0), (at, 64), (sa, 128), (sb, 132), (meta, 136)):
        ptx.inst.mov.b32(r, v)
    for r in (da, db, zcm):
        ptx.inst.mov.b64(r, 0)
    ptx.inst.mov.b32(idesc, 0)
    ptx.inst.setp.ne.b32(p, d, 0)
    lanes = [reg.scalar(b32) for _ in range(4)]
    for l in lanes:
        ptx.inst.mov.b32(l, 0)
    block_scaled_forms(d, at, sa, sb, meta, da, db, idesc, p)
    sp = bw.bf16_f32(128, 64)
    sp.sparse, sp.sparsity_selector = True, 1
    bw.mma(sp, d, da, db, p, collector_a=bw.CollectorOp.Use, sparse_metadata=meta, disable_output_lane=lanes,
           scale_input_d=3)
    bw.mma_tmem_a(bw.bf16_f32(128, 64), d, at, db, p, collector_a=bw.CollectorOp.Discard, ashift=True)
    tf32 = bw.InstrDescriptor(kind=bw.MmaKind.TF32, a=bw.MmaType.tf32, b=bw.MmaType.tf32, m=64, n=8)
    bw.mma(tf32, d, da, db, p, scale_input_d=15)
    bw.mma(idesc, d, da, db, p, group=bw.CtaGroup.One, kind=bw.MmaKind.I8, sparse_metadata=meta,
           disable_output_lane=lanes)
    bw.mma_ws(bw.bf16_f32(128, 64), d, da, db, p)
    bw.mma_ws(bw.bf16_f32(32, 256), d, da, db, p, collector_b=bw.CollectorB(bw.CollectorBuffer.B2, bw.CollectorOp.Fill),
              zero_column_mask=zcm)
    ws_sp = bw.InstrDescriptor(kind=bw.MmaKind.I8, a=bw.MmaType.s8, b=bw.MmaType.u8, d=bw.AccType.s32, m=64, n=128)
    ws_sp.sparse = True
    bw.mma_ws_tmem_a(ws_sp, d, at, db, p, collector_b=bw.CollectorB(bw.CollectorBuffer.B3, bw.CollectorOp.LastUse),
                     sparse_metadata=meta)
    bw.mma_ws(idesc, d, da, db, p, kind=bw.MmaKind.F8F6F4, zero_column_mask=zcm)


# tests/dsl/blackwell_mma_forms_test.cpp's expected lines.
MMA_FORMS = [
    "tcgen05.mma.cta_group::1.kind::mxf8f6f4.block_scale.scale_vec::1X \t[%r1], %rd1, %rd2, 143654912, [%r3], [%r4], %p1;",
    "tcgen05.mma.cta_group::1.kind::mxf8f6f4.block_scale.collector::a::fill \t[%r1], %rd1, %rd2, 142740864, [%r3], "
    "[%r4], %p1;",
    "tcgen05.mma.cta_group::1.kind::mxf4.block_scale.block32 \t[%r1], %rd1, %rd2, 143131776, [%r3], [%r4], %p1;",
    "tcgen05.mma.cta_group::1.kind::mxf4nvf4.block_scale.block16.collector::a::lastuse \t[%r1], [%r2], %rd2, "
    "134481024, [%r3], [%r4], %p1;",
    "tcgen05.mma.cta_group::1.kind::mxf4nvf4.block_scale.scale_vec::2X \t[%r1], %rd1, %rd2, %r6, [%r3], [%r4], %p1;",
    "tcgen05.mma.sp.cta_group::1.kind::mxf4.block_scale.scale_vec::2X \t[%r1], %rd1, %rd2, [%r5], 143656068, [%r3], "
    "[%r4], %p1;",
    "tcgen05.mma.sp.cta_group::1.kind::f16.collector::a::use \t[%r1], %rd1, %rd2, [%r5], 135267477, {%r7, %r8, %r9, "
    "%r10}, %p1, 3;",
    "tcgen05.mma.cta_group::1.kind::f16.ashift.collector::a::discard \t[%r1], [%r2], %rd2, 135267472, %p1;",
    "tcgen05.mma.cta_group::1.kind::tf32 \t[%r1], %rd1, %rd2, 67242256, %p1, 15;",
    "tcgen05.mma.sp.cta_group::1.kind::i8 \t[%r1], %rd1, %rd2, [%r5], %r6, {%r7, %r8, %r9, %r10}, %p1;",
    "tcgen05.mma.ws.cta_group::1.kind::f16 \t[%r1], %rd1, %rd2, 135267472, %p1;",
    "tcgen05.mma.ws.cta_group::1.kind::f16.collector::b2::fill \t[%r1], %rd1, %rd2, 37749904, %p1, %rd3;",
    "tcgen05.mma.ws.sp.cta_group::1.kind::i8.collector::b3::lastuse \t[%r1], [%r2], %rd2, [%r5], 69206180, %p1;",
    "tcgen05.mma.ws.cta_group::1.kind::f8f6f4 \t[%r1], %rd1, %rd2, %r6, %p1, %rd3;",
]


def test_every_mma_form_emits_the_cxx_instruction():
    text = sm100(mma_forms)
    assert instructions(text)[14:] == MMA_FORMS
    assert_ptxas_accepts(text)


def mma_pair_forms():
    d, sa, sb, meta = (reg.scalar(b32) for _ in range(4))
    da, p = reg.scalar(b64), reg.scalar(pred)
    for r, v in ((d, 0), (sa, 128), (sb, 132), (meta, 136)):
        ptx.inst.mov.b32(r, v)
    ptx.inst.mov.b64(da, 0)
    ptx.inst.setp.ne.b32(p, d, 0)
    lanes = [reg.scalar(u32) for _ in range(8)]
    for l in lanes:
        ptx.inst.mov.u32(l, 0)
    bw.mma(bw.bf16_f32(256, 128, bw.CtaGroup.Two), d, da, da, p, disable_output_lane=lanes, scale_input_d=1)
    f4 = scaled(bw.ScaledKind.MXF4, bw.MmaType.e2m1, bw.ScaleVec.X2, 256, 128, bw.CtaGroup.Two)
    f4.sparse, f4.scale_a_id, f4.scale_b_id = True, 2, 2
    bw.mma_block_scaled(f4, d, da, da, sa, sb, p, sparse_metadata=meta)
    bw.mma_block_scaled(scaled(bw.ScaledKind.MXF8F6F4, bw.MmaType.e5m2, bw.ScaleVec.Block32, 256, 256, bw.CtaGroup.Two),
                        d, da, da, sa, sb, p)


def test_cta_pair_forms_emit_the_cxx_instruction():
    text = sm100(mma_pair_forms)
    assert instructions(text)[14:] == [
        "tcgen05.mma.cta_group::2.kind::f16 \t[%r1], %rd1, %rd1, 270533776, {%r5, %r6, %r7, %r8, %r9, %r10, %r11, %r12}, "
        "%p1, 1;",
        "tcgen05.mma.sp.cta_group::2.kind::mxf4.block_scale.scale_vec::2X \t[%r1], %rd1, %rd1, [%r4], 1352664228, [%r2], "
        "[%r3], %p1;",
        "tcgen05.mma.cta_group::2.kind::mxf8f6f4.block_scale.block32 \t[%r1], %rd1, %rd1, 281019520, [%r2], [%r3], %p1;"]
    assert_ptxas_accepts(text)


def copy_shift():
    ta = reg.scalar(b32)
    ptx.inst.mov.b32(ta, bw.tmem_address(32, 0))
    sa = smem.alloc(b8, 4096, 128).base()
    sd = bw.make_smem_descriptor(sa, bw.k_major(0, bw.SmemSwizzle.None_, 128, 256))
    S, G = bw.CpShape, bw.CtaGroup.One
    bw.tmem_copy(G, S.S128x256b, ta, sd)
    bw.tmem_copy(G, S.S4x256b, ta, sd)
    bw.tmem_copy(G, S.S128x128b, ta, sd, bw.CpSource.B6x16_P32)
    bw.tmem_copy(G, S.S64x128b_02_13, ta, sd)
    bw.tmem_copy(G, S.S64x128b_01_23, ta, sd, src=bw.CpSource.B4x16_P64)
    bw.tmem_copy(G, S.S32x128b, ta, sd)
    bw.tmem_shift_down(G, ta)


def test_tmem_copy_and_shift_emit_the_cxx_instructions():
    text = sm100(copy_shift)
    assert instructions(text)[6:] == [
        "tcgen05.cp.cta_group::1.128x256b \t[%r1], %rd2;", "tcgen05.cp.cta_group::1.4x256b \t[%r1], %rd2;",
        "tcgen05.cp.cta_group::1.128x128b.b8x16.b6x16_p32 \t[%r1], %rd2;",
        "tcgen05.cp.cta_group::1.64x128b.warpx2::02_13 \t[%r1], %rd2;",
        "tcgen05.cp.cta_group::1.64x128b.warpx2::01_23.b8x16.b4x16_p64 \t[%r1], %rd2;",
        "tcgen05.cp.cta_group::1.32x128b.warpx4 \t[%r1], %rd2;", "tcgen05.shift.cta_group::1.down \t[%r1];"]
    assert_ptxas_accepts(text)


@ptxpp.kernel(in_specs=(ptxpp.TensorMap("m"),), arch="sm_100a", name="g4")
def gather4(m):
    buf, bars = smem.alloc(bf16, (4, 64), 128), smem.alloc(b64, 1, 8)
    bar = hop.Mbarrier(bars.addr(0))
    tmap = m.generic_address()
    r = ptx.read(ptx.special.tid.x(), s32)
    policy = reg.scalar(b64)
    ptx.inst.createpolicy.fractional.L2_evict_last.b64(policy, 1.0)
    bw.tma_load_gather4(buf.addr(0), tmap, 0, [r, 7, r, 3], bar)
    bw.tma_load_gather4(buf.addr(0), tmap, 64, [0, 1, 2, 3], bar, cache_hint=policy)
    hop.fence_proxy_async()
    bw.tma_store_scatter4(tmap, 0, [3, r, 1, 0], buf.addr(0))
    bw.tma_store_scatter4(tmap, 64, [3, 2, 1, r], buf.addr(0), cache_hint=policy)
    hop.bulk_commit()
    hop.bulk_wait(0)
    ptx.ret()


def test_row_gather_and_scatter_emit_the_cxx_instructions():
    text = gather4.ptx()
    g = "cp.async.bulk.tensor.2d.shared::cluster.global.tile::gather4.mbarrier::complete_tx::bytes"
    s = "cp.async.bulk.tensor.2d.global.shared::cta.tile::scatter4.bulk_group"
    assert instructions(text)[4:8] == [
        g + " \t[smem], [%rd2, {0, %r1, 7, %r1, 3}], [smem_2];",
        g + ".L2::cache_hint \t[smem], [%rd2, {64, 0, 1, 2, 3}], [smem_2], %rd3;", "fence.proxy.async.shared::cta;",
        s + " \t[%rd2, {0, 3, %r1, 1, 0}], [smem];"]
    assert_ptxas_accepts(text)


@pytest.mark.parametrize("name", ["mma_forms", "mma_pair_forms", "copy_shift", "gather4"])
def test_same_ptx_as_the_cxx_twin(name):
    text = gather4.ptx() if name == "gather4" else sm100(globals()[name])
    assert text == cxx_twin(name)


def test_descriptors_are_the_cxx_ones():
    """blackwell_mma_forms_test.cpp's hand-worked bit values, and decode round trips."""
    f8 = scaled(bw.ScaledKind.MXF8F6F4, bw.MmaType.e4m3, bw.ScaleVec.X1, 128, 64)
    f8.b, f8.scale_a_id, f8.scale_b_id = bw.MmaType.e5m2, 1, 3
    assert f8.bits() == 0x28900430
    k96 = scaled(bw.ScaledKind.MXF4NVF4, bw.MmaType.e2m1, bw.ScaleVec.Block32, 256, 64, bw.CtaGroup.Two)
    k96.k96 = True
    assert k96.bits() == 0x90900480
    assert bw.BlockScaledDescriptor.decode(f8.bits(), f8.kind, f8.vec, f8.group) == f8
    assert (bw.mma_k(f8), bw.mma_k(k96), bw.scale_factors_per_row(k96)) == (32, 96, 3)
    assert bw.mma_k(bw.MmaKind.F16, True) == 32
    ws = bw.InstrDescriptor(m=64, n=128, ws=True, max_shift=bw.WsMaxShift.By16)
    assert ws.bits() == 0x84200490
    assert bw.InstrDescriptor.decode(ws.bits(), ws.kind, ws.group, True) == ws
    sp = bw.InstrDescriptor(m=128, n=64, sparse=True, sparsity_selector=2)
    assert sp.bits() == 0x08100496


def regs():
    ta, sd = reg.scalar(b32), reg.scalar(b64)
    ptx.inst.mov.b32(ta, 0)
    ptx.inst.mov.b64(sd, 0)
    return ta, sd


def test_wrong_enum_names_the_argument_at_the_users_line():
    def body():
        ta, sd = regs()
        bw.tmem_copy(bw.CtaGroup.One, bw.TmemShape.S32x32b, ta, sd)
    with pytest.raises(TypeError, match=r"test_blackwell_forms\.py:\d+: tmem_copy: argument 'shape' is a "
                                        r"ptx\.blackwell\.CpShape, not TmemShape"):
        sm100(body)

    def body2():
        ta, sd = regs()
        bw.mma_block_scaled(ta, ta, sd, sd, ta, ta, ta == 0, group=bw.CtaGroup.One, kind=bw.MmaKind.F16,
                            vec=bw.ScaleVec.X1)
    with pytest.raises(TypeError, match=r"mma_block_scaled: argument 'kind' is a ptx\.blackwell\.ScaledKind"):
        sm100(body2)


def test_wrong_register_type_names_the_operand_at_the_users_line():
    def body():
        ta, sd = regs()
        bw.tmem_copy(bw.CtaGroup.One, bw.CpShape.S128x256b, ta, ta)
    with pytest.raises(ptxpp.Error, match=r"test_blackwell_forms\.py:\d+: tcgen05\.cp: the shared-memory descriptor is "
                                          r"a 64-bit integer register, not \.b32"):
        sm100(body)

    def body2():
        ta, sd = regs()
        bw.tmem_shift_down(bw.CtaGroup.One, sd)
    with pytest.raises(ptxpp.Error, match=r"tcgen05\.shift: the tensor-memory address is a 32-bit integer register"):
        sm100(body2)

    def body3():
        ta, sd = regs()
        bw.mma_ws(bw.bf16_f32(128, 64), ta, sd, sd, ta == 0, zero_column_mask=5)
    with pytest.raises(TypeError, match=r"test_blackwell_forms\.py:\d+: mma_ws: argument 'zero_column_mask' is a "
                                        r"register, not int"):
        sm100(body3)

    def body4():
        ta, sd = regs()
        bw.mma(bw.bf16_f32(128, 64), ta, sd, sd, ta == 0, scale_input_d=1.5)
    with pytest.raises(TypeError, match=r"test_blackwell_forms\.py:\d+: mma: argument 'scale_input_d' is an int, not float"):
        sm100(body4)


def test_form_misuse_is_the_cxx_error():
    def sparse_without_metadata():
        ta, sd = regs()
        f8 = scaled(bw.ScaledKind.MXF8F6F4, bw.MmaType.e4m3, bw.ScaleVec.X1, 128, 64)
        f8.sparse = True
        bw.mma_block_scaled(f8, ta, sd, sd, ta, ta, ta == 0)
    with pytest.raises(ptxpp.Error, match="tcgen05.mma.sp needs the metadata address"):
        sm100(sparse_without_metadata)

    def three_rows():
        bars = smem.alloc(b64, 1, 8)
        ta, sd = regs()
        bw.tma_load_gather4(bars.addr(0), sd, 0, [1, 2, 3], hop.Mbarrier(bars.addr(0)))
    with pytest.raises(ValueError, match=r"test_blackwell_forms\.py:\d+: tma_load_gather4: argument 'rows' holds the 4 "
                                         r"row coordinates, not 3"):
        sm100(three_rows)
