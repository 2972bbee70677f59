"""The bf16 TMA + tcgen05 GEMM for Blackwell (sm_100a), C = A * B^T: examples/kernels/gemm_sm100.hpp
written with the Python DSL, line for line (the same PTX). Prints its PTX with --ptx, runs on the
emulator with --run; --cta-group 2 is the 2-SM variant, --bf16-out writes C in bf16, --grouped prints
the grouped GEMM (gemm_sm100_grouped.py).

  A: M x K bf16, row-major, read through the tensor map "a" (boxes of 128 x 64)
  B: N x K bf16, row-major, read through the tensor map "b" (boxes of 256 x 64, or 128 x 64 for the pair)
  C: M x N f32 or bf16, row-major

One CTA computes a 128 x 256 tile of C with six warps: warp 4 is the producer (its elected lane
arms a stage's full mbarrier and issues the two TMA loads), warp 5 the MMA issuer (its elected lane
issues four tcgen05.mma per stage into 256 columns of tensor memory, then tcgen05.commit frees the
stage), warps 0-3 the epilogue (tcgen05.ld of their 32 lanes, 32 columns at a time, then global
stores). With cta_group 2, clusters of two CTAs compute a 256 x 256 tile (tcgen05.mma.cta_group::2,
issued by the leader CTA). Four stages; the C++ header explains each step.
"""

import sys

import numpy as np

import ptxpp
from ptxpp import TensorMap, Tile, ptx, reg, smem
from ptxpp.types import b16, b32, b64, bf16, f32, u32

from example_main import example_main
from gemm_sm100_grouped import gemm_sm100_grouped

TILE_M, TILE_N, TILE_K, STAGES = 128, 256, 64, 4
hop, bw = ptx.hopper, ptx.blackwell


def gemm_sm100(cta_group=1, out=f32):
    """The kernel: `cta_group` 1 or 2 (a pair of CTAs along M), C in `out` (f32 or bf16)."""
    if cta_group not in (1, 2):
        raise ptxpp.Error(f"gemm_sm100: cta_group is 1 or 2, not {cta_group}")
    if out not in (f32, bf16):
        raise ptxpp.Error(f"gemm_sm100: C is f32 or bf16, not {out}")
    name = ("gemm_sm100" if cta_group == 1 else "gemm_sm100_2sm") + ("_bf16" if out == bf16 else "")
    kw = {} if cta_group == 1 else {"cluster": (1, 2, 1)}

    @ptxpp.kernel(in_specs=(TensorMap("a", "M", "K", bf16, box=(TILE_M, TILE_K), swizzle=128),
                            TensorMap("b", "N", "K", bf16, box=(TILE_N // cta_group, TILE_K), swizzle=128)),
                  out_specs=(Tile("M", "N", out),),
                  grid=lambda M, N: ((N + TILE_N - 1) // TILE_N, (M + TILE_M - 1) // TILE_M, 1),
                  block=192, maxntid=192, arch="sm_100a", name=name, **kw)
    def gemm(a, b, c):
        body(a, b, c, cta_group, out)

    return gemm


def check_shapes(M, N, K, cta_group, out):
    if M % TILE_M or N % TILE_N or K % TILE_K or K <= 0:
        raise ptxpp.Error("gemm_sm100: M must be a multiple of 128, N of 256 and K a positive multiple of 64 (the CTA "
                          f"tile); got M={M}, N={N}, K={K}")
    if M % (TILE_M * cta_group):
        raise ptxpp.Error("gemm_sm100: with cta_group 2 (a pair of CTAs along M), M must be a multiple of 256; "
                          f"got M={M}")
    if M * N * (4 if out == f32 else 2) >= 1 << 32:
        raise ptxpp.Error("gemm_sm100: C must be under 4 GiB (32-bit offsets)")


def body(a, b, c, cta_group, out):
    M, N, K = c.dim(0), c.dim(1), a.bound("K")
    check_shapes(M, N, K, cta_group, out)
    pair = cta_group == 2
    group = bw.CtaGroup.Two if pair else bw.CtaGroup.One
    S = STAGES
    cols = TILE_N  # accumulator columns (f32)
    a_bytes = 128 * 64 * 2  # one stage of A (this CTA's rows)
    b_bytes = (128 if pair else 256) * 64 * 2  # one stage of B (this CTA's part)
    stage_tx = (2 if pair else 1) * (a_bytes + b_bytes)  # bytes the full mbarrier waits for
    kt_total = K // TILE_K

    sm_a = smem.alloc(bf16, (S, 128, 64), 1024, smem.Swizzle.B128)
    sm_b = smem.alloc(bf16, (S, 128 if pair else 256, 64), 1024, smem.Swizzle.B128)
    bars = smem.alloc(b64, 2 * S + 1, 8)  # full, empty, accumulator ready
    slot = smem.alloc(u32, 1, 16)  # tcgen05.alloc writes the address here
    pipe = hop.Pipeline(bars, S)
    accum = hop.Mbarrier(bars.addr(8 * 2 * S))

    tid = ptx.read(ptx.special.tid.x(), u32)
    warp = tid >> 5
    bx = ptx.read(ptx.special.ctaid.x(), u32)
    by = ptx.read(ptx.special.ctaid.y(), u32)
    is0 = tid == 0
    rank = ptx.read(ptx.special.cluster_ctarank(), u32) if pair else None
    # full: the (leader's) producer's arrive + the stage's bytes; empty, accumulator: one tcgen05.commit
    accum.init(1, is0)
    pipe.init(1, 1, is0)
    is_warp0 = warp == 0

    @ptx.if_(is_warp0)
    def _():
        bw.tmem_alloc(slot.addr(0), cols, group)
        bw.tmem_relinquish_alloc_permit(group)

    bw.fence_before_thread_sync()
    if pair:
        hop.cluster_sync()  # the peer's TMA completes the leader's mbarriers: both inited first
    else:
        ptx.inst.bar.sync(0)
    bw.fence_after_thread_sync()
    tmem = reg.scalar(b32)
    ptx.inst.ld.shared.b32(tmem, slot.addr(0))
    sa = sm_a.base()

    producer(a, b, bx, by, warp, rank, sm_a, sm_b, bars, sa, pipe, kt_total, a_bytes, b_bytes, stage_tx)
    mma_issuer(tid, warp, rank, sm_a, sm_b, sa, tmem, pipe, accum, group, kt_total, a_bytes, b_bytes)
    epilogue(c, tid, warp, bx, by, tmem, accum, N, out, cols)

    # ---- teardown: every tcgen05 operation is done before warp 0 frees the columns ----
    bw.fence_before_thread_sync()
    if pair:
        hop.cluster_sync()  # neither CTA leaves while the pair's MMAs or commits may still reach it
    else:
        ptx.inst.bar.sync(0)

    @ptx.if_(is_warp0)
    def _():
        bw.fence_after_thread_sync()
        bw.tmem_dealloc(tmem, cols, group)

    ptx.ret()


def producer(a, b, bx, by, warp, rank, sm_a, sm_b, bars, sa, pipe, kt_total, a_bytes, b_bytes, stage_tx):
    """Warp 4: its elected lane fills the stages (TMA loads of A and B)."""
    pair = rank is not None
    is_producer = warp == 4

    @ptx.if_(is_producer)
    def _():
        elected = ptx.warp.elect_one()

        @ptx.if_(elected)
        def _():
            map_a, map_b = a.generic_address(), b.generic_address()
            m0 = by << 7
            n0 = bx << 8
            leader_bars = is_leader = None
            if pair:
                part = rank << 7  # this CTA's 128 rows of the B tile
                n0 += part
                bars_base = sa + (bars.offset - sm_a.offset)
                leader_bars = hop.map_shared_rank(bars_base, 0)
                is_leader = rank == 0
            kc = reg.scalar(u32)
            ptx.inst.mov.u32(kc, 0)
            st = hop.PipelineState(pipe, 1)

            def produce():
                nonlocal kc
                st.wait_empty()
                # the stage's full mbarrier: this CTA's, or the leader's for the pair
                full = hop.Mbarrier(ptx.addr(leader_bars, 8 * st.stage)) if pair else st.full()
                if pair:
                    st.full().arrive_expect_tx(stage_tx, is_leader)  # rank 0 is the leader: its own barrier
                    # .cta_group::2: the completion may go to the leader's mbarrier
                    bw.tma_load_pair(sm_a.addr(st.stage * a_bytes), map_a, [kc, m0], full)
                    bw.tma_load_pair(sm_b.addr(st.stage * b_bytes), map_b, [kc, n0], full)
                else:
                    full.arrive_expect_tx(stage_tx)
                    hop.tma_load(sm_a.addr(st.stage * a_bytes), map_a, [kc, m0], full)
                    hop.tma_load(sm_b.addr(st.stage * b_bytes), map_b, [kc, n0], full)
                kc += 64  # add.u32 in place
                st.advance()

            rounds = kt_total // STAGES
            if rounds > 0:
                @ptx.loop(0, rounds * STAGES, STAGES)
                def _(i):
                    for _ in range(STAGES):
                        produce()
            for _ in range(rounds * STAGES, kt_total):
                produce()


def mma_issuer(tid, warp, rank, sm_a, sm_b, sa, tmem, pipe, accum, group, kt_total, a_bytes, b_bytes):
    """Warp 5 (of the leader CTA for the pair): its elected lane issues the MMAs, commits free the stages."""
    pair = rank is not None
    is_mma = warp == 5
    if pair:
        leader = rank == 0
        is_mma.set(is_mma & leader)

    @ptx.if_(is_mma)
    def _():
        elected = ptx.warp.elect_one()

        @ptx.if_(elected)
        def _():
            # B's address from A's (the emulator does not read `mov.u32 r, dyn_smem+OFF`)
            sb = sa + (sm_b.offset - sm_a.offset)
            layout = bw.k_major(0, bw.SmemSwizzle.B128, 1024)
            da = bw.make_smem_descriptor(sa, layout)
            db = bw.make_smem_descriptor(sb, layout)
            idesc = bw.bf16_f32(256 if pair else 128, 256, group)
            on = tid == tid  # enable-input-d true: D += A * B
            off = tid != tid  # false: D = A * B (the first MMA)
            mask = None
            if pair:
                mask = reg.scalar(b16)
                ptx.inst.mov.b16(mask, 3)

            def release(bar):
                if pair:
                    bw.commit_multicast(group, bar, mask)
                else:
                    bw.commit(group, bar)

            st = hop.PipelineState(pipe, 0)

            def consume(first_tile):
                st.wait_full()
                bw.fence_after_thread_sync()
                for ks in range(4):
                    oa = (st.stage * a_bytes + ks * 32) // 16  # 16-byte units
                    ob = (st.stage * b_bytes + ks * 32) // 16
                    dak = da + oa if oa else da
                    dbk = db + ob if ob else db
                    bw.mma(idesc, tmem, dak, dbk, off if first_tile and ks == 0 else on)
                release(st.empty())  # the stage is free once these MMAs have read it
                st.advance()

            consume(True)
            rounds = (kt_total - 1) // STAGES
            if rounds > 0:
                @ptx.loop(0, rounds * STAGES, STAGES)
                def _(i):
                    for _ in range(STAGES):
                        consume(False)
            for _ in range(1 + rounds * STAGES, kt_total):
                consume(False)
            release(accum)  # every MMA above has completed


def epilogue(c, tid, warp, bx, by, tmem, accum, N, out, cols):
    """Warps 0-3: thread t holds row t of the tile (tensor-memory lane t); 32 columns at a time to C."""
    is_epilogue = warp < 4

    @ptx.if_(is_epilogue)
    def _():
        accum.wait(0)
        bw.fence_after_thread_sync()
        lane_base = warp << 21  # (32 w) << 16: the warp's lane quarter
        taddr = tmem + lane_base
        row = by << 7  # with the pair too: rows 256 (by / 2) + 128 rank = 128 by
        row += tid
        col = bx << 8
        coff = row * N
        coff += col
        esize = 4 if out == f32 else 2
        coff.set(coff * esize)
        pc = c.global_ptr()
        cptr = pc + coff
        v = reg.array(f32, 32, "acc")
        h = reg.array(b32, 16, "pk")
        for chunk in range(cols // 32):
            bw.tmem_load(bw.TmemShape.S32x32b, 32, v, 0, taddr, 32 * chunk)
            bw.tmem_wait_ld()
            base = chunk * 32 * esize
            if out == f32:
                for j in range(8):
                    q = 4 * j
                    ptx.inst.st.global_.v4.f32(ptx.addr(cptr, base + 16 * j), ptx.vec(*v[q:q + 4]))
            else:
                for j in range(16):
                    ptx.inst.cvt.rn.bf16x2.f32(h[j], v[2 * j + 1], v[2 * j])  # low half: the even column
                for j in range(4):
                    q = 4 * j
                    ptx.inst.st.global_.v4.b32(ptx.addr(cptr, base + 16 * j), ptx.vec(*h[q:q + 4]))


gemm = gemm_sm100()


def exact_bf16(rng, shape):
    """bf16 values k/8 with |k| <= 8: their products and sums up to K = 1024 are exact in f32."""
    import ml_dtypes
    return (rng.integers(-8, 9, size=shape) / 8).astype(ml_dtypes.bfloat16)


def run(M=128, N=256, K=320, cta_group=1, out=f32):
    rng = np.random.default_rng(0)
    a, b = exact_bf16(rng, (M, K)), exact_bf16(rng, (N, K))
    c = (gemm if (cta_group, out) == (1, f32) else gemm_sm100(cta_group, out))(a, b)
    want = a.astype(np.float32) @ b.astype(np.float32).T
    if out == bf16:
        want = want.astype(c.dtype)  # the kernel rounds each f32 sum to bf16 once (cvt.rn)
    assert np.array_equal(c.astype(np.float32), want.astype(np.float32)), np.abs(c.astype(np.float32) - want).max()


def options(parser):
    parser.add_argument("--cta-group", type=int, choices=(1, 2), default=1,
                        help="1, or 2 for the 2-SM variant (clusters of two CTAs)")
    parser.add_argument("--bf16-out", action="store_true", help="C in bf16 (else f32)")
    parser.add_argument("--grouped", action="store_true", help="the grouped GEMM (dims G groups, T tiles in all)")


def kernel_for(args):
    if args.grouped:
        return gemm_sm100_grouped
    return gemm_sm100(args.cta_group, bf16 if args.bf16_out else f32)


def dims_for(args):
    return {"G": 4, "T": 256} if args.grouped else {"M": 8192, "N": 8192, "K": 8192}


def run_for(args):
    if args.grouped:
        raise ptxpp.Error("--run --grouped: the grouped kernel's arguments hold device addresses, which NumPy arrays "
                          "have not (tests/emu/blackwell_emu_test.cpp runs it from C++)")
    run(M=128 * args.cta_group, cta_group=args.cta_group, out=bf16 if args.bf16_out else f32)


if __name__ == "__main__":
    sys.exit(example_main("gemm_sm100: a bf16 TMA + tcgen05 GEMM for sm_100a (ptxpp Python DSL example)", kernel_for,
                          dims_for, run_for, arch="sm_100a", options=options))
