"""The Hopper helpers of hopper_forms.cpp: the tensor-map edits (tensormap.replace, publish,
acquire), the im2col TMA load and prefetch, the fragment maps and wgmma_kind_info. The program is
tests/python/python_twins.cpp's hopper_forms written in Python: its PTX is the twin's byte for
byte (when PTXPP_CXX_EXAMPLES gives the C++ build) and ptxas takes it (sm_90a)."""

import pytest

import ptxpp
from ptxpp import TensorMap, Tile, ptx, reg, smem
from ptxpp.types import b16, b64, bf16, e4m3, e5m2, f16, f32, s8, s32, u8, u16, u32, u64

from test_blackwell import assert_ptxas_accepts, instructions
from test_blackwell_forms import cxx_twin

hop = ptx.hopper
S = hop.TensormapSpace


def edit_tensormap(smap, src, dst, ptr):
    rows, stride = reg.scalar(u32), reg.scalar(u64)
    ptx.inst.mov.u32(rows, 40)
    ptx.inst.mov.u64(stride, 256)
    hop.tensormap_replace_global_address(S.shared, smap.addr(0), ptr)
    hop.tensormap_replace_rank(S.shared, smap.addr(0), 2)
    hop.tensormap_replace_box_dim(S.shared, smap.addr(0), 1, 8)
    hop.tensormap_replace_global_dim(S.shared, smap.addr(0), 1, rows)
    hop.tensormap_replace_global_stride(S.shared, smap.addr(0), 1, stride)
    hop.tensormap_replace_element_stride(S.global_, ptx.addr(src), 0, 1)
    hop.tensormap_replace(S.shared, smap.addr(0), hop.TensormapElemtype.bf16)
    hop.tensormap_replace(S.shared, smap.addr(0), hop.TensormapInterleave.none)
    hop.tensormap_replace(S.shared, smap.addr(0), hop.TensormapSwizzle.b128)
    hop.tensormap_replace(S.global_, ptx.addr(src), hop.TensormapFill.nan_request_zero_fma)
    hop.tensormap_publish(ptx.addr(dst), smap.addr(0))
    hop.tensormap_acquire(ptr)


@ptxpp.kernel(in_specs=(Tile(128, u8, name="tmpl"), Tile(128, u8, name="ws"), TensorMap("m")), arch="sm_90a",
              name="hf")
def hopper_forms(tmpl, ws, m):
    smap = smem.alloc(b64, 16, align=128)
    buf = smem.alloc(f32, 256, align=128)
    bars = smem.alloc(b64, 1, align=8)
    edit_tensormap(smap, tmpl.global_ptr(), ws.global_ptr(), ws.ptr())
    bar = hop.Mbarrier(bars.addr(0))
    tmap = m.generic_address()
    x = ptx.read(ptx.special.tid.x(), u32)
    p = x == 0
    off, policy, mask = reg.scalar(u16), reg.scalar(b64), reg.scalar(b16)
    ptx.inst.mov.u16(off, 2)
    ptx.inst.createpolicy.fractional.L2_evict_first.b64(policy, 1.0)
    ptx.inst.mov.b16(mask, 1)
    hop.tma_load_im2col(buf.addr(0), tmap, [x, 0, 0], [off], bar)
    hop.tma_load_im2col(buf.addr(0), tmap, [x, 0, 0, 0, 1], [off, 1, 65535], bar, guard=p, multicast=mask,
                        cache_hint=policy)
    hop.tma_prefetch_im2col(tmap, [x, 0, 0, 0], [off, 0], cache_hint=policy)
    hop.tma_prefetch_im2col(tmap, [x, 0, 0], [7], guard=p)
    ptx.ret()


def test_tensormap_edits_and_im2col_emit_the_cxx_instructions():
    text = hopper_forms.ptx()
    r = "tensormap.replace.tile."
    got = instructions(text)
    assert got[7:19] == [
        r + "global_address.shared::cta.b1024.b64 \t[smem], %rd5;", r + "rank.shared::cta.b1024.b32 \t[smem], 1;",
        r + "box_dim.shared::cta.b1024.b32 \t[smem], 1, 8;", r + "global_dim.shared::cta.b1024.b32 \t[smem], 1, %r1;",
        r + "global_stride.shared::cta.b1024.b64 \t[smem], 0, %rd6;",
        r + "element_stride.global.b1024.b32 \t[%rd2], 0, 1;", r + "elemtype.shared::cta.b1024.b32 \t[smem], 10;",
        r + "interleave_layout.shared::cta.b1024.b32 \t[smem], 0;", r + "swizzle_mode.shared::cta.b1024.b32 \t[smem], 3;",
        r + "fill_mode.global.b1024.b32 \t[%rd2], 1;",
        "tensormap.cp_fenceproxy.global.shared::cta.tensormap::generic.release.gpu.sync.aligned \t[%rd4], [smem], 128;",
        "fence.proxy.tensormap::generic.acquire.gpu \t[%rd5], 128;"]
    im = [l for l in got if "im2col" in l]
    assert im[0] == ("cp.async.bulk.tensor.3d.shared::cluster.global.im2col.mbarrier::complete_tx::bytes "
                     "\t[smem_2], [%rd8, {%r2, 0, 0}], [smem_3], {%rs1};")
    assert im[3] == "@%p1 cp.async.bulk.prefetch.tensor.3d.L2.global.im2col \t[%rd8, {%r2, 0, 0}], {7};"
    assert_ptxas_accepts(text, "sm_90a")


def test_same_ptx_as_the_cxx_twin():
    assert hopper_forms.ptx() == cxx_twin("hopper_forms")


def test_fragment_maps_are_cxx_ones():
    assert hop.accumulator_thread_reg(64, 9, 3) == (5, 3)
    for t, r in ((0, 0), (37, 5), (127, 31)):  # the inverse of accumulator_row_col
        assert hop.accumulator_thread_reg(64, *hop.accumulator_row_col(64, f32, t, r)) == (t, r)
    assert hop.a_fragment_row_col(bf16, 5, 3, 1) == (9, 11)
    assert hop.a_fragment_row_col(e4m3, 5, 2, 3) == (1, 23)
    for a, row, col in ((bf16, 9, 11), (e4m3, 1, 23), (s8, 40, 31)):
        t, r, e = hop.a_fragment_slot(a, row, col)
        assert hop.a_fragment_row_col(a, t, r, e) == (row, col)


def test_wgmma_kind_info():
    i = hop.wgmma_kind_info(hop.WgmmaKind(e4m3, e5m2, f16))
    assert (i.problem, i.k, i.acc_per_n, i.scale, i.trans, i.integer) == (None, 32, 4, True, False, False)
    i = hop.wgmma_kind_info((s8, u8, s32, True))
    assert (i.problem, i.k, i.integer, i.and_popc) == (None, 32, True, False)
    assert hop.wgmma_kind_info((f16, bf16, f32)).problem == "16-bit A and B have the same type"
    assert hop.WgmmaKind(s8, s8, s32, satfinite=True).satfinite
    assert hop.wgmma_is_8bit_float(e5m2) and not hop.wgmma_is_8bit_float(s8)
    assert hop.wgmma_is_8bit_int(u8) and not hop.wgmma_is_8bit_int(e4m3)
    with pytest.raises(TypeError, match=r"test_hopper_forms\.py:\d+: wgmma_kind_info: argument 'kind' is a "
                                        r"ptx\.hopper\.WgmmaKind or a tuple"):
        hop.wgmma_kind_info([f16, f16, f32])


def misuse(body):
    return ptxpp.kernel(arch="sm_90a", name="k")(body).ptx()


@pytest.mark.parametrize("call, message", [
    (lambda b, r: hop.tensormap_replace_rank("shared", b.addr(0), 2),
     r"tensormap_replace_rank: argument 'space' is a ptx\.hopper\.TensormapSpace, not str"),
    (lambda b, r: hop.tensormap_replace(S.shared, b.addr(0), hop.DescSwizzle.B128),
     r"tensormap_replace: argument 'v' is a ptx\.hopper\.TensormapElemtype, .*TensormapFill, not DescSwizzle"),
    (lambda b, r: hop.tensormap_replace_box_dim(S.shared, b.addr(0), 1.0, 8),
     r"tensormap_replace_box_dim: argument 'dim' is an int, not float"),
    (lambda b, r: hop.tensormap_replace_global_dim(S.shared, b.addr(0), 1, "rows"),
     r"tensormap_replace_global_dim: argument 'value' is an operand .*, not str"),
    (lambda b, r: hop.tensormap_acquire(b.addr(0)), r"tensormap_acquire: argument 'map' is a register, not Operand"),
    (lambda b, r: hop.tma_prefetch_im2col(r, [0, 0, 0], [1], guard=1),
     r"tma_prefetch_im2col: argument 'guard' is a register, not int"),
    (lambda b, r: hop.tma_load_im2col(b.addr(0), 0, [0, 0, 0], [1], 1),
     r"tma_load_im2col: argument 'map' is a register, not int"),
    (lambda b, r: hop.tma_load_im2col(b.addr(0), r, [0, 0, 0], [1], b.addr(8)),
     r"tma_load_im2col: argument 'bar' is a ptx\.hopper\.Mbarrier, not Operand"),
])
def test_a_wrong_argument_is_a_type_error_naming_it_at_the_users_line(call, message):
    def body():
        b = smem.alloc(b64, 16, align=128)
        r = reg.scalar(b64)
        ptx.inst.mov.b64(r, 0)
        call(b, r)

    with pytest.raises(TypeError, match=r"test_hopper_forms\.py:\d+: " + message):
        misuse(body)


def test_cxx_checks_reach_python_with_the_users_line():
    def body():
        r = reg.scalar(b64)
        ptx.inst.mov.b64(r, 0)
        hop.tma_prefetch_im2col(r, [0, 0, 0, 0], [1])

    with pytest.raises(ptxpp.Error, match=r"test_hopper_forms\.py:\d+: .*4 coordinates take 2 im2col offsets, not 1"):
        misuse(body)
