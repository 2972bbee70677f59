"""The Hopper bf16 TMA + wgmma GEMM (examples/python/gemm_sm90.py, clusters of one CTA) written with
pyptx, for the tracing benchmark (bench/python_trace_bench.py): the same structure (a producer
warp, two consumer warpgroups, four stages, run-time loops over rounds of the stages, the
leftover tiles unrolled, the same epilogue) and the same instructions in the same order, with
pyptx's typed calls where it has them (ptx.mbarrier.init/wait/arrive_expect_tx, ptx.fence,
ptx.bar, ptx.setmaxnreg, ptx.elect_sync, ptx.if_, ptx.wgmma.*, tensor.tma_desc()) and its ptx.inst
chains for the rest. What pyptx lacks, and so differs from ptxpp's PTX:

  - no pipeline/stage helper with compile-time stages (ptxpp's hop.Pipeline/PipelineState): the
    stage cursor is kept in Python here and the phase is a register flipped on wrap, as ptxpp does;
  - no shared-matrix descriptor helper that takes a run-time address (ptxpp's make_descriptor):
    the four instructions are spelled out;
  - its cp.async.bulk.tensor.tile_2d puts the coordinates on the wrong operand, so the TMA load is
    a ptx.inst chain;
  - tensor maps arrive as a pointer parameter (`ld.param.u64 [a_tma_desc]`), not as a 128-byte
    .param passed by value (`mov.b64` + `cvta.param`); it also keeps a .u64 param per tensor;
  - ptx.if_ adds a `bra` to its end label, mbarrier.try_wait is .shared (not .shared::cta),
    arrive.expect_tx writes a state register instead of `_`, and dyn_smem is aligned to 128.

Its PTX assembles with `ptxas -arch sm_90a` (checked by hand:
`python bench/pyptx_gemm_sm90.py > g.ptx && ptxas -arch sm_90a g.ptx`)."""

import pyptx
from pyptx._trace import get_ctx
from pyptx import Tile, ptx, reg
from pyptx.types import b32, b64, bf16, f32, pred, u32, u64

TILE_M, TILE_N, TILE_K, STAGES = 128, 256, 64, 4
A_BYTES, B_BYTES = 128 * 64 * 2, 256 * 64 * 2  # one stage of A, of B
SM_B = STAGES * A_BYTES  # B's stages follow A's
BARS = SM_B + STAGES * B_BYTES  # full mbarriers, then empty ones
SMEM = BARS + 2 * STAGES * 8
DESC_B128 = 4611686293305360384  # K-major, 128-byte swizzle, stride 1024 bytes (as ptxpp's hop.k_major)


def full(stage):
    return ptx.addr("dyn_smem", BARS + 8 * stage)


def empty(stage):
    return ptx.addr("dyn_smem", BARS + 8 * (STAGES + stage))


class Stages:
    """The stage cursor (a Python int) and its phase register, flipped on each wrap."""

    def __init__(self, phase):
        self.stage, self.phase = 0, reg.scalar(b32)
        ptx.inst.mov.b32(self.phase, phase)

    def advance(self):
        self.stage += 1
        if self.stage == STAGES:
            self.stage = 0
            ptx.inst.xor.b32(self.phase, self.phase, 1)


def run_time_rounds(first, rounds, body):
    """for (i = first; i < rounds * STAGES; i += STAGES) body(): ptxpp's ptx.loop, spelled out"""
    ctx = get_ctx()
    i, p = reg.scalar(u32), reg.scalar(pred)
    top, end = ctx.fresh_label("loop"), ctx.fresh_label("loop_end")
    ptx.inst.mov.u32(i, first)
    ptx.inst.setp.ge.u32(p, i, rounds * STAGES)
    ptx.bra(end, pred=p)
    ptx.label(top)
    body()
    ptx.inst.add.u32(i, i, STAGES)
    ptx.inst.setp.lt.u32(p, i, rounds * STAGES)
    ptx.bra(top, pred=p)
    ptx.label(end)


def producer(a, b, bx, by, kt_total):
    map_a, map_b = a.tma_desc(), b.tma_desc()
    leader, elected = reg.scalar(b32), reg.scalar(pred)
    ptx.elect_sync(leader, elected, 0xFFFFFFFF)
    m0, n0, kc = reg.scalar(u32), reg.scalar(u32), reg.scalar(u32)
    ptx.inst.shl.b32(m0, by, 7)
    ptx.inst.shl.b32(n0, bx, 8)
    ptx.inst.mov.u32(kc, 0)
    st = Stages(1)

    def produce():
        ptx.mbarrier.wait(empty(st.stage), st.phase)
        ptx.mbarrier.arrive_expect_tx(full(st.stage), A_BYTES + B_BYTES, pred=elected)
        load = ptx.inst.cp.async_.bulk.tensor._2d.shared__cluster.global_.tile.mbarrier__complete_tx__bytes
        load(ptx.addr("dyn_smem", st.stage * A_BYTES), ptx._make_tma_address(map_a, (kc, m0)), full(st.stage),
             pred=elected)
        load(ptx.addr("dyn_smem", SM_B + st.stage * B_BYTES), ptx._make_tma_address(map_b, (kc, n0)),
             full(st.stage), pred=elected)
        ptx.inst.add.u32(kc, kc, 64)
        st.advance()

    rounds = kt_total // STAGES
    if rounds > 0:
        run_time_rounds(0, rounds, lambda: [produce() for _ in range(STAGES)])
    for _ in range(rounds * STAGES, kt_total):
        produce()


def descriptor(addr):
    """the 64-bit wgmma descriptor of the shared matrix at 32-bit address `addr` (4 instructions)"""
    t, lo, d = reg.scalar(u32), reg.scalar(u64), reg.scalar(b64)
    ptx.inst.shr.u32(t, addr, 4)
    ptx.inst.and_.b32(t, t, 16383)
    ptx.inst.cvt.u64.u32(lo, t)
    ptx.inst.or_.b64(d, lo, DESC_B128)
    return d


def consumers(tid, c, bx, by, kt_total, n):
    ct, wg, t, lane0, leader = (reg.scalar(u32) for _ in range(5))
    ptx.inst.sub.u32(ct, tid, 128)
    ptx.inst.shr.u32(wg, ct, 7)
    ptx.inst.and_.b32(t, ct, 127)
    ptx.inst.and_.b32(lane0, ct, 31)
    is_leader = reg.scalar(pred)
    ptx.inst.setp.eq.u32(is_leader, lane0, 0)
    a_rows, sa, sa_wg, sb = (reg.scalar(u32) for _ in range(4))
    ptx.inst.shl.b32(a_rows, wg, 13)
    ptx.inst.mov.u32(sa, "dyn_smem")
    ptx.inst.add.u32(sa_wg, sa, a_rows)
    ptx.inst.add.u32(sb, sa, SM_B)
    da, db = descriptor(sa_wg), descriptor(sb)
    acc = reg.array(f32, TILE_N // 2, name="%acc")
    for i in range(TILE_N // 2):
        ptx.inst.mov.f32(acc[i], "0f00000000")
    accumulate = reg.scalar(pred)
    ptx.inst.setp.eq.u32(accumulate, t, t)  # scale-d: true (D += A * B)
    st = Stages(0)

    def consume(release_previous):
        ptx.mbarrier.wait(full(st.stage), st.phase)
        ptx.wgmma.fence()
        for ks in range(4):
            oa, ob = (st.stage * A_BYTES + ks * 32) // 16, (st.stage * B_BYTES + ks * 32) // 16  # 16-byte units
            a, b = da, db
            if oa:
                a, b = reg.scalar(u64), reg.scalar(u64)
                ptx.inst.add.u64(a, da, oa)
                ptx.inst.add.u64(b, db, ob)
            ptx.wgmma.mma_async(shape=(64, TILE_N, 16), dtype_d=f32, dtype_a=bf16, dtype_b=bf16, d=acc, a=a, b=b,
                                scale_d=accumulate)
        ptx.wgmma.commit_group()
        if release_previous:
            ptx.wgmma.wait_group(1)
            ptx.inst.mbarrier.arrive.shared__cta.b64("_", empty((st.stage + STAGES - 1) % STAGES), pred=is_leader)
        st.advance()

    consume(False)  # tile 0
    rounds = (kt_total - 1) // STAGES
    if rounds > 0:
        run_time_rounds(0, rounds, lambda: [consume(True) for _ in range(STAGES)])
    for _ in range(1 + rounds * STAGES, kt_total):
        consume(True)
    ptx.wgmma.wait_group(0)
    ptx.inst.mbarrier.arrive.shared__cta.b64("_", empty((st.stage + STAGES - 1) % STAGES), pred=is_leader)
    epilogue(c, acc, t, wg, bx, by, n)


def epilogue(c, acc, t, wg, bx, by, n):
    """register i of thread t is row 16 (t/32) + (t%32)/4 + 8 ((i/2)%2), column 8 (i/4) + 2 (t%4) + i%2"""
    (pc,) = ptx.global_ptrs(c)
    warp, lane, row, wg64, w16, g, col, q, q2, coff = (reg.scalar(u32) for _ in range(10))
    ptx.inst.shr.u32(warp, t, 5)
    ptx.inst.and_.b32(lane, t, 31)
    ptx.inst.shl.b32(row, by, 7)
    ptx.inst.shl.b32(wg64, wg, 6)
    ptx.inst.add.u32(row, row, wg64)
    ptx.inst.shl.b32(w16, warp, 4)
    ptx.inst.add.u32(row, row, w16)
    ptx.inst.shr.u32(g, lane, 2)
    ptx.inst.add.u32(row, row, g)
    ptx.inst.shl.b32(col, bx, 8)
    ptx.inst.and_.b32(q, lane, 3)
    ptx.inst.shl.b32(q2, q, 1)
    ptx.inst.add.u32(col, col, q2)
    ptx.inst.mul.lo.u32(coff, row, n)
    ptx.inst.add.u32(coff, coff, col)
    ptx.inst.shl.b32(coff, coff, 2)
    cptr = reg.scalar(b64)
    ptx.inst.mad.wide.u32(cptr, coff, 1, pc)
    for i in range(0, TILE_N // 2, 2):
        o = ((8 * ((i // 2) % 2)) * n + 8 * (i // 4)) * 4
        ptx.inst.st.global_.v2.f32(ptx.addr(cptr, o) if o else ptx.addr(cptr), [acc[i], acc[i + 1]])


@pyptx.kernel(in_specs=(Tile("M", "K", bf16), Tile("N", "K", bf16)), out_specs=(Tile("M", "N", f32),),
              grid=lambda M, N, K: (N // TILE_N, M // TILE_M, 1), block=(384, 1, 1), smem=SMEM,
              extern_smem="dyn_smem", raw_directives=[("maxntid", (384, 1, 1))], arch="sm_90a")
def gemm_sm90(a, b, c):
    (m, k), n = a.shape, b.shape[0]
    if m % TILE_M or n % TILE_N or k % TILE_K or k <= 0:
        raise ValueError(f"gemm_sm90: M, N, K must be multiples of 128, 256, 64; got {m}, {n}, {k}")
    kt_total = k // TILE_K
    tid, bx, by = reg.scalar(u32), reg.scalar(u32), reg.scalar(u32)
    ptx.inst.mov.u32(tid, ptx.special.tid.x())
    ptx.inst.mov.u32(bx, ptx.special.ctaid.x())
    ptx.inst.mov.u32(by, ptx.special.ctaid.y())
    is0 = reg.scalar(pred)
    ptx.inst.setp.eq.u32(is0, tid, 0)
    for s in range(STAGES):
        ptx.mbarrier.init(full(s), 1, pred=is0)
        ptx.mbarrier.init(empty(s), 8, pred=is0)
    ptx.fence.mbarrier_init()
    ptx.bar.sync(0)
    warpgroup0, warp0, consumer = reg.scalar(pred), reg.scalar(pred), reg.scalar(pred)
    ptx.inst.setp.lt.u32(warpgroup0, tid, 128)
    with ptx.if_(warpgroup0):
        ptx.setmaxnreg(40, inc=False)
    ptx.inst.setp.lt.u32(warp0, tid, 32)
    with ptx.if_(warp0):
        producer(a, b, bx, by, kt_total)
    ptx.inst.setp.ge.u32(consumer, tid, 128)
    with ptx.if_(consumer):
        ptx.setmaxnreg(232, inc=True)
        consumers(tid, c, bx, by, kt_total, n)
    ptx.ret()


if __name__ == "__main__":
    print(gemm_sm90.ptx(M=8192, N=8192, K=8192))
