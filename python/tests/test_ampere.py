"""The Ampere helpers: mma.sync on fragments (run on the emulator against NumPy), ldmatrix,
cp.async and its ring."""

import numpy as np
import pytest

import ptxpp
from ptxpp import Tile, ptx, reg, smem
from ptxpp.types import f16, f32, u32

from conftest import body_lines, trace

amp = ptx.ampere
F = amp.forms.m16n8k16_f16_f32


@ptxpp.kernel(in_specs=(Tile(16, 16, f16), Tile(8, 16, f16)), out_specs=(Tile(16, 8, f32),), block=32, arch="sm_80")
def mma_tile(a, bt, d):
    """D (16x8) = A (16x16) B with B given transposed (8x16, k contiguous): one mma.sync.
    Each lane loads its fragment registers by the manual's layout (g = lane/4, t = lane%4)."""
    pa, pb, pd = ptx.global_ptrs(a, bt, d)
    lane = ptx.read(ptx.special.laneid(), u32)
    g, t = lane >> 2, lane & 3
    fa, fb, acc = amp.Fragment(F, amp.MmaOperand.A, "a"), amp.Fragment(F, amp.MmaOperand.B, "b"), amp.Fragment(F, amp.MmaOperand.C, "c")
    row_a = pa + (g * 16 + t * 2) * 2          # A[g][2t]: a pair of f16 per register
    for r in range(4):                          # A k16: register r at row g + 8(r%2), col 2t + 8(r>=2)
        ptx.inst.ld.global_.b32(fa[r], ptx.addr(row_a, ((r % 2) * 8 * 16 + (r // 2) * 8) * 2))
    col_b = pb + (g * 16 + t * 2) * 2          # B k16: register r holds k = 2t + 8r, +1 of column n = g
    for r in range(2):
        ptx.inst.ld.global_.b32(fb[r], ptx.addr(col_b, r * 8 * 2))
    amp.zero(acc)
    amp.mma(F, acc, fa, fb, acc)
    out = pd + (g * 8 + t * 2) * 4             # C/D: element e at row g + 8(e>=2), col 2t + e%2
    for e in range(4):
        ptx.inst.st.global_.f32(ptx.addr(out, ((e // 2) * 8 * 8 + e % 2) * 4), acc[e])
    ptx.ret()


def test_mma_sync_on_the_emulator_matches_numpy():
    rng = np.random.default_rng(1)
    a = rng.integers(-4, 5, (16, 16)).astype(np.float16)
    b = rng.integers(-4, 5, (16, 8)).astype(np.float16)
    d = mma_tile(a, np.ascontiguousarray(b.T))
    assert np.array_equal(d, a.astype(np.float32) @ b.astype(np.float32))
    assert "mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 \t{%c0, %c1, %c2, %c3}, {%a0, %a1, %a2, %a3}, {%b0, %b1}, " \
           "{%c0, %c1, %c2, %c3};" in body_lines(mma_tile.ptx())


def test_forms_layouts_and_checks():
    assert F.mnemonic() == "mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32"
    assert (F.m, F.n, F.k, F.registers(amp.MmaOperand.A)) == (16, 8, 16, 4)
    assert amp.fragment_row_col(F, amp.MmaOperand.C, 5, 3) == (9, 3)
    assert amp.fragment_lane_element(F, amp.MmaOperand.C, 9, 3) == (5, 3)
    with pytest.raises(ptxpp.Error, match="mma.sync"):
        amp.mma_form(amp.Shape.m16n8k32, f16, f16, f32)


def test_ldmatrix_and_cp_async(lines):
    def body(x):
        buf = smem.alloc(f16, (16, 16), align=128)
        base = buf.base()
        regs = amp.ldmatrix(4, base, 0, True)
        assert len(regs) == 4
        ring = amp.CpAsyncRing(2, 512)
        amp.cp_async_16(buf.addr(ring.write_offset), ptx.addr(x.global_ptr()))
        ring.commit()
        ring.wait()
        ring.release()

    got = lines(body, arch="sm_80")
    assert "ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16 \t{%r2, %r3, %r4, %r5}, [%r1];" in got
    assert got[-3:] == ["cp.async.cg.shared.global \t[smem], [%rd2], 16;", "cp.async.commit_group;", "cp.async.wait_group \t0;"]


def test_fragments_of_another_trace_are_refused():
    kept = []
    trace(lambda x: kept.append(amp.Fragment(F, amp.MmaOperand.C)), arch="sm_80")
    with pytest.raises(ptxpp.Error, match="a fragment made in another trace"):
        trace(lambda x: amp.zero(kept[0]), arch="sm_80")
