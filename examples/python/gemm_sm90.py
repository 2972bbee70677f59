"""The bf16 TMA + wgmma GEMM for Hopper (sm_90a), C = A * B^T: examples/kernels/gemm_sm90.hpp
written with the Python DSL, line for line (the same PTX). Prints its PTX with --ptx, runs on
the emulator with --run.

  A: M x K bf16, row-major, read through the tensor map "a" (boxes of 128 x 64)
  B: N x K bf16, row-major, read through the tensor map "b" (boxes of 256 x 64, or 128 x 64 with clusters)
  C: M x N f32, row-major

One CTA computes a 128 x 256 tile of C with three warpgroups: warpgroup 0's first warp is the
producer (one elected lane arms a stage's full mbarrier and issues its two TMA loads), warpgroups
1 and 2 the consumers (rows 0-63 and 64-127: four wgmma.mma_async.m64n256k16 per stage, then the
previous stage released). Four stages of 48 KB (dynamic shared memory); the K loops are run-time
loops over rounds of the stages, the leftover tiles unrolled. The C++ header explains each step.
"""

import sys

import numpy as np

import ptxpp
from ptxpp import TensorMap, Tile, ptx, reg, smem
from ptxpp.types import b16, b64, bf16, f32, u32

from example_main import example_main

TILE_M, TILE_N, TILE_K, STAGES = 128, 256, 64, 4
hop = ptx.hopper


def gemm_sm90(cluster_m=1):
    """The kernel (clusters of `cluster_m` CTAs along M, 1 or 2: B multicast to both)."""
    if cluster_m not in (1, 2):
        raise ptxpp.Error(f"gemm_sm90: cluster_m is 1 or 2, not {cluster_m}")
    kw = {} if cluster_m == 1 else {"cluster": (1, cluster_m, 1)}

    @ptxpp.kernel(in_specs=(TensorMap("a", "M", "K", bf16, box=(TILE_M, TILE_K), swizzle=128),
                            TensorMap("b", "N", "K", bf16, box=(TILE_N // cluster_m, TILE_K), swizzle=128)),
                  out_specs=(Tile("M", "N", f32),),
                  grid=lambda M, N: ((N + TILE_N - 1) // TILE_N, (M + TILE_M - 1) // TILE_M, 1),
                  block=384, maxntid=384, arch="sm_90a", name="gemm_sm90" if cluster_m == 1 else "gemm_sm90_c2", **kw)
    def gemm(a, b, c):
        body(a, b, c, cluster_m)

    return gemm


def check_shapes(M, N, K, cluster_m):
    if M % TILE_M or N % TILE_N or K % TILE_K or K <= 0:
        raise ptxpp.Error("gemm_sm90: M must be a multiple of 128, N of 256 and K a positive multiple of 64 (the CTA "
                          f"tile); got M={M}, N={N}, K={K}")
    if M % (TILE_M * cluster_m):
        raise ptxpp.Error(f"gemm_sm90: with clusters of {cluster_m} CTAs along M, M must be a multiple of "
                          f"{TILE_M * cluster_m}; got M={M}")
    if M * N * 4 >= 1 << 32:
        raise ptxpp.Error("gemm_sm90: C must be under 4 GiB (32-bit offsets)")


def body(a, b, c, cluster_m):
    M, N, K = c.dim(0), c.dim(1), a.bound("K")
    check_shapes(M, N, K, cluster_m)
    S = STAGES
    a_bytes, b_bytes = 128 * 64 * 2, 256 * 64 * 2  # one stage of A, of B
    kn = TILE_N  # wgmma N
    kt_total = K // TILE_K

    sm_a = smem.alloc(bf16, (S, 128, 64), 1024, smem.Swizzle.B128)
    sm_b = smem.alloc(bf16, (S, kn, 64), 1024, smem.Swizzle.B128)
    bars = smem.alloc(b64, 2 * S, 8)
    pipe = hop.Pipeline(bars, S)

    tid = ptx.read(ptx.special.tid.x(), u32)
    bx = ptx.read(ptx.special.ctaid.x(), u32)
    by = ptx.read(ptx.special.ctaid.y(), u32)
    is0 = tid == 0
    # full: the producer's arrive (+ 48 KB of transactions); empty: one arrive per consumer warp (of each CTA)
    pipe.init(1, 8 * cluster_m, is0)
    if cluster_m > 1:
        hop.cluster_sync()
    else:
        ptx.inst.bar.sync(0)

    def producer():  # warpgroup 0, its warp 0
        map_a, map_b = a.generic_address(), b.generic_address()
        elected = ptx.warp.elect_one()
        m0 = by << 7
        n0 = bx << 8
        mask = bdst = None
        bdst_off = 0
        if cluster_m > 1:  # this CTA's part of B (rows n0 + rank * 256 / cluster_m), at that offset in the stage
            rank = ptx.read(ptx.special.cluster_ctarank(), u32)
            part = rank << 7
            n0 += part
            part_bytes = rank << 14  # 128 rows x 128 bytes
            base = sm_a.base()
            bdst = base + part_bytes
            bdst_off = sm_b.offset - sm_a.offset
            mask = reg.scalar(b16)
            ptx.inst.mov.b16(mask, (1 << cluster_m) - 1)
        kc = reg.scalar(u32)
        ptx.inst.mov.u32(kc, 0)
        st = hop.PipelineState(pipe, 1)

        def produce():
            nonlocal kc
            st.wait_empty()
            full = st.full()
            full.arrive_expect_tx(a_bytes + b_bytes, elected)
            hop.tma_load(sm_a.addr(st.stage * a_bytes), map_a, [kc, m0], full, guard=elected)
            if cluster_m > 1:
                hop.tma_load(ptx.addr(bdst, bdst_off + st.stage * b_bytes), map_b, [kc, n0], full, guard=elected,
                             multicast=mask)
            else:
                hop.tma_load(sm_b.addr(st.stage * b_bytes), map_b, [kc, n0], full, guard=elected)
            kc += 64  # add.u32 in place
            st.advance()

        rounds = kt_total // S
        if rounds > 0:
            @ptx.loop(0, rounds * S, S)
            def _(i):
                for _ in range(S):
                    produce()
        for _ in range(rounds * S, kt_total):
            produce()

    def consumers(ct):  # warpgroups 1 and 2; ct = tid - 128: 0..255
        wg = ct >> 7  # 0, 1: rows 64 * wg of the tile
        t = ct & 127  # the thread in its warpgroup
        lane0 = ct & 31
        leader = lane0 == 0  # lane 0 of each consumer warp releases a stage
        a_rows = wg << 13  # 64 rows x 128 bytes
        sa = sm_a.base()
        sa_wg = sa + a_rows
        sb = sa + (sm_b.offset - sm_a.offset)  # B's address from A's (one base register for both)
        layout = hop.k_major(0, hop.DescSwizzle.B128, 1024)
        da = hop.make_descriptor(sa_wg, layout)
        db = hop.make_descriptor(sb, layout)
        peer_bars = []  # with a cluster: the mbarriers of each CTA of the cluster (mapa)
        if cluster_m > 1:
            bars_base = sa + (bars.offset - sm_a.offset)
            peer_bars = [hop.map_shared_rank(bars_base, r) for r in range(cluster_m)]

        def release(stage):
            if cluster_m == 1:
                pipe.empty(stage).arrive(leader)
                return
            for pb in peer_bars:
                hop.Mbarrier(ptx.addr(pb, 8 * (S + stage))).arrive_cluster(leader)

        acc = reg.array(f32, kn // 2, "acc")
        for i in range(len(acc)):
            ptx.inst.mov.f32(acc[i], 0.0)
        accumulate = t == t  # scale-d: true (D += A * B)
        st = hop.PipelineState(pipe, 0)

        def consume(release_previous):
            st.wait_full()
            hop.wgmma_fence()
            for ks in range(4):
                oa = (st.stage * a_bytes + ks * 32) // 16  # 16-byte units
                ob = (st.stage * b_bytes + ks * 32) // 16
                hop.mma_async(kn, bf16, acc, 0, da + oa if oa else da, db + ob if ob else db, accumulate)
            hop.wgmma_commit()
            if release_previous:
                hop.wgmma_wait(1)
                release((st.stage + S - 1) % S)
            st.advance()

        consume(False)  # tile 0
        rounds = (kt_total - 1) // S
        if rounds > 0:
            @ptx.loop(0, rounds * S, S)
            def _(i):
                for _ in range(S):
                    consume(True)
        for _ in range(1 + rounds * S, kt_total):
            consume(True)
        hop.wgmma_wait(0)
        release((st.stage + S - 1) % S)  # the last stage (no producer waits for it)

        # epilogue: register i of thread t is row 16 (t/32) + (t%32)/4 + 8 ((i/2)%2),
        # column 8 (i/4) + 2 (t%4) + i%2 of the warpgroup's 64 x 256 block
        pc = c.global_ptr()
        warp = t >> 5
        lane = t & 31
        row = by << 7
        wg64 = wg << 6
        row += wg64
        w16 = warp << 4
        row += w16
        g = lane >> 2
        row += g
        col = bx << 8
        q = lane & 3
        q2 = q << 1
        col += q2
        coff = row * N
        coff += col
        coff.set(coff << 2)
        cptr = pc + coff
        for i in range(0, kn // 2, 2):
            o = ((8 * ((i // 2) % 2)) * N + 8 * (i // 4)) * 4
            ptx.inst.st.global_.v2.f32(ptx.addr(cptr, o), ptx.vec(acc[i], acc[i + 1]))

    hop.warp_specialize(tid, producer=producer, consumers=consumers)
    if cluster_m > 1:
        hop.cluster_sync()  # no CTA leaves while the other may still arrive on its mbarriers
    ptx.ret()


gemm = gemm_sm90()


def exact_bf16(rng, shape):
    """bf16 values k/8 with |k| <= 8: their products and sums up to K = 1024 are exact in f32."""
    import ml_dtypes
    return (rng.integers(-8, 9, size=shape) / 8).astype(ml_dtypes.bfloat16)


def run(M=128, N=256, K=320, cluster_m=1):
    rng = np.random.default_rng(0)
    a, b = exact_bf16(rng, (M, K)), exact_bf16(rng, (N, K))
    c = (gemm if cluster_m == 1 else gemm_sm90(cluster_m))(a, b)
    want = a.astype(np.float32) @ b.astype(np.float32).T
    assert np.array_equal(c, want), np.abs(c - want).max()


if __name__ == "__main__":
    sys.exit(example_main("gemm_sm90: a bf16 TMA + wgmma GEMM (ptxpp Python DSL example)", gemm,
                          {"M": 8192, "N": 8192, "K": 8192}, run))
