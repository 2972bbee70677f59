"""The grouped bf16 GEMM for Blackwell (sm_100a): examples/kernels/gemm_sm100_grouped.hpp written with
the Python DSL, line for line (the same PTX; `gemm_sm100.py --grouped` prints it). G problems
C_g = A_g * B_g^T of different M, N, K in one launch, on gemm_sm100's pipeline.

  maps:     G x 256 bytes: group g's tensor maps for A_g (bytes 0-127) and B_g (128-255)
  problems: G x 8 u32: M, N, K, the group's first tile, C's address (low, high word), 0, 0

One CTA per 128 x 256 tile of every problem ("T" tiles in all), in group order; each group's M
is a multiple of 128, N of 256 and K of 256. The arguments hold device addresses (C's, and the
tensor maps'), which NumPy arrays do not have: this kernel is traced and printed from Python; the
C++ test (tests/emu/blackwell_emu_test.cpp) runs it on the emulator.
"""

import ptxpp
from ptxpp import Tile, ptx, reg, smem
from ptxpp.types import b32, b64, bf16, f32, u8, u32, u64

STAGES = 4
hop, bw = ptx.hopper, ptx.blackwell


@ptxpp.kernel(in_specs=(Tile("G", 256, u8), Tile("G", 8, u32)), grid=lambda T: (T, 1, 1), block=192, maxntid=192,
              arch="sm_100a", name="gemm_sm100_grouped")
def gemm_sm100_grouped(maps, problems, *, T):
    # T (the tiles of all groups) sizes only the grid: a template parameter, not a dimension of an argument
    G = problems.dim(0)
    if G < 1 or G > 64:
        raise ptxpp.Error(f"gemm_sm100_grouped: 1 to 64 groups, not {G}")
    S, cols, a_bytes, b_bytes = STAGES, 256, 128 * 64 * 2, 256 * 64 * 2

    sm_a = smem.alloc(bf16, (S, 128, 64), 1024, smem.Swizzle.B128)
    sm_b = smem.alloc(bf16, (S, 256, 64), 1024, smem.Swizzle.B128)
    bars = smem.alloc(b64, 2 * S + 1, 8)
    slot = smem.alloc(u32, 1, 16)
    pipe = hop.Pipeline(bars, S)
    accum = hop.Mbarrier(bars.addr(8 * 2 * S))

    tid = ptx.read(ptx.special.tid.x(), u32)
    warp = tid >> 5
    tile = ptx.read(ptx.special.ctaid.x(), u32)
    sel, N, c_addr, m0, n0, rounds = find_group(problems, tile, G)

    is0 = tid == 0
    accum.init(1, is0)
    pipe.init(1, 1, is0)
    is_warp0 = warp == 0

    @ptx.if_(is_warp0)
    def _():
        bw.tmem_alloc(slot.addr(0), cols)
        bw.tmem_relinquish_alloc_permit()

    bw.fence_before_thread_sync()
    ptx.inst.bar.sync(0)
    bw.fence_after_thread_sync()
    tmem = reg.scalar(b32)
    ptx.inst.ld.shared.b32(tmem, slot.addr(0))
    sa = sm_a.base()

    producer(maps, warp, sel, m0, n0, rounds, sm_a, sm_b, pipe, a_bytes, b_bytes)
    mma_issuer(tid, warp, sa, sm_a, sm_b, tmem, pipe, accum, rounds, a_bytes, b_bytes)
    epilogue(tid, warp, tmem, accum, N, c_addr, m0, n0, cols)

    bw.fence_before_thread_sync()
    ptx.inst.bar.sync(0)

    @ptx.if_(is_warp0)
    def _():
        bw.fence_after_thread_sync()
        bw.tmem_dealloc(tmem, cols)

    ptx.ret()


def find_group(problems, tile, G):
    """This CTA's group (the last whose first tile is <= ours), its N and C address, the tile's origin
    and the K loop's rounds."""
    prob = problems.global_ptr()
    sel = reg.scalar(u32)
    ptx.inst.mov.u32(sel, 0)
    for g in range(1, G):
        first = reg.scalar(u32)
        ptx.inst.ld.global_.u32(first, ptx.addr(prob, g * 32 + 12))
        ge = tile >= first
        ptx.inst.selp.u32(sel, g, sel, ge)
    poff = sel << 5
    pg = prob + poff
    N, K, first, c_addr = reg.scalar(u32), reg.scalar(u32), reg.scalar(u32), reg.scalar(u64)
    ptx.inst.ld.global_.u32(N, ptx.addr(pg, 4))
    ptx.inst.ld.global_.u32(K, ptx.addr(pg, 8))
    ptx.inst.ld.global_.u32(first, ptx.addr(pg, 12))
    ptx.inst.ld.global_.u64(c_addr, ptx.addr(pg, 16))
    lt = tile - first
    tiles_n = N >> 8
    tm = lt / tiles_n
    tn_full = tm * tiles_n
    tn = lt - tn_full
    m0 = tm << 7
    n0 = tn << 8
    rounds = K >> 8  # K / (4 stages x 64)
    return sel, N, c_addr, m0, n0, rounds


def producer(maps, warp, sel, m0, n0, rounds, sm_a, sm_b, pipe, a_bytes, b_bytes):
    """Warp 4: the group's tensor maps, from global memory (TMA takes their generic address)."""
    is_producer = warp == 4

    @ptx.if_(is_producer)
    def _():
        elected = ptx.warp.elect_one()

        @ptx.if_(elected)
        def _():
            mp = maps.ptr()
            moff = sel << 8
            map_a = mp + moff
            map_b = map_a + 128
            kc = reg.scalar(u32)
            ptx.inst.mov.u32(kc, 0)
            st = hop.PipelineState(pipe, 1)

            @ptx.loop(0, rounds, 1)
            def _(i):
                nonlocal kc
                for _ in range(STAGES):
                    st.wait_empty()
                    st.full().arrive_expect_tx(a_bytes + b_bytes)
                    hop.tma_load(sm_a.addr(st.stage * a_bytes), map_a, [kc, m0], st.full())
                    hop.tma_load(sm_b.addr(st.stage * b_bytes), map_b, [kc, n0], st.full())
                    kc += 64
                    st.advance()


def mma_issuer(tid, warp, sa, sm_a, sm_b, tmem, pipe, accum, rounds, a_bytes, b_bytes):
    """Warp 5: its elected lane issues the MMAs; a commit frees each stage, the last one the accumulator."""
    is_mma = warp == 5

    @ptx.if_(is_mma)
    def _():
        elected = ptx.warp.elect_one()

        @ptx.if_(elected)
        def _():
            sb = sa + (sm_b.offset - sm_a.offset)
            layout = bw.k_major(0, bw.SmemSwizzle.B128, 1024)
            da = bw.make_smem_descriptor(sa, layout)
            db = bw.make_smem_descriptor(sb, layout)
            idesc = bw.bf16_f32(128, 256)
            on, off = tid == tid, tid != tid
            st = hop.PipelineState(pipe, 0)

            def one_round(first_round):
                for u in range(STAGES):
                    st.wait_full()
                    bw.fence_after_thread_sync()
                    for ks in range(4):
                        oa = (st.stage * a_bytes + ks * 32) // 16
                        ob = (st.stage * b_bytes + ks * 32) // 16
                        dak = da + oa if oa else da
                        dbk = db + ob if ob else db
                        bw.mma(idesc, tmem, dak, dbk, off if first_round and u == 0 and ks == 0 else on)
                    bw.commit(bw.CtaGroup.One, st.empty())
                    st.advance()

            one_round(True)
            ptx.loop(1, rounds, 1, lambda i: one_round(False))
            bw.commit(bw.CtaGroup.One, accum)


def epilogue(tid, warp, tmem, accum, N, c_addr, m0, n0, cols):
    """Warps 0-3: row t of the tile (tensor-memory lane t), 32 columns at a time to C (f32)."""
    is_epilogue = warp < 4

    @ptx.if_(is_epilogue)
    def _():
        accum.wait(0)
        bw.fence_after_thread_sync()
        lane_base = warp << 21
        taddr = tmem + lane_base
        row = m0 + tid
        coff = row * N
        coff += n0
        coff.set(coff << 2)
        cg = reg.scalar(u64)
        ptx.inst.cvta.to.global_.u64(cg, c_addr)
        cptr = cg + coff
        v = reg.array(f32, 32, "acc")
        for chunk in range(cols // 32):
            bw.tmem_load(bw.TmemShape.S32x32b, 32, v, 0, taddr, 32 * chunk)
            bw.tmem_wait_ld()
            for j in range(8):
                q = 4 * j
                ptx.inst.st.global_.v4.f32(ptx.addr(cptr, chunk * 128 + 16 * j), ptx.vec(*v[q:q + 4]))
