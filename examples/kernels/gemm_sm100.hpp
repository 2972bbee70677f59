// A bf16 GEMM for Blackwell (sm_100a) on TMA, mbarriers, tcgen05.mma and tensor memory:
// C = A * B^T.
//
//   A: M x K bf16, row-major (K contiguous), read through a tensor map "a" (dims {K, M})
//   B: N x K bf16, row-major (K contiguous), read through a tensor map "b" (dims {K, N})
//   C: M x N f32 or bf16, row-major
//
// cta_group 1: one CTA computes a 128 x 256 tile of C with six warps (192 threads):
//  * warp 4 is the producer: its elected lane (elect.sync) waits for an empty stage, arms the
//    stage's full mbarrier (mbarrier.arrive.expect_tx, 48 KB) and issues two TMA tile loads
//    (cp.async.bulk.tensor.2d: A 64 x 128 and B 64 x 256 bf16 boxes, 128-byte swizzle).
//  * warp 5 is the MMA issuer: its elected lane waits for a full stage, then
//    (tcgen05.fence::after_thread_sync) issues four tcgen05.mma.cta_group::1.kind::f16
//    (M 128, N 256, K 16: K-major descriptors, 128B swizzle, start + 32 bytes per K step)
//    accumulating into 256 columns of tensor memory, and tcgen05.commit on the stage's empty
//    mbarrier: it frees the stage when those MMAs have read it. After the last stage, one more
//    tcgen05.commit arrives on the accumulator mbarrier.
//  * warps 0-3 are the epilogue: warp w reads tensor-memory lanes 32w..32w+31 (rows of the
//    tile) once the accumulator mbarrier completes, 32 columns at a time
//    (tcgen05.ld.sync.aligned.32x32b.x32, tcgen05.wait::ld), and stores them to global memory
//    (st.global.v4.f32; for bf16 C, cvt.rn.bf16x2.f32 pairs first, then st.global.v4.b32). Warp 0 also allocates the
//    256 columns (tcgen05.alloc, then relinquish_alloc_permit) and frees them at the end.
// cta_group 2: clusters of two CTAs along M compute a 256 x 256 tile with
// tcgen05.mma.cta_group::2 (M 256, N 256): each CTA loads its 128 rows of A and its 128 rows
// (half) of B into its own shared memory (cp.async.bulk.tensor ... .cta_group::2), completing
// the leader CTA's (rank 0) full mbarrier, whose producer expects the bytes of both (64 KB);
// the leader's MMA warp issues for the pair,
// and tcgen05.commit .multicast::cluster (mask 0b11) frees the stage in both CTAs and signals
// both accumulator mbarriers. Each CTA's tensor memory holds its own 128 rows x 256 columns
// (tcgen05.alloc.cta_group::2 by warp 0 of both CTAs). M must then be a multiple of 256.
//
// The K tile is 64 (one 128-byte swizzle row) and the ring has kGemm100Stages = 4 stages
// (4 x 48 KB of dynamic shared memory for cta_group 1, 4 x 32 KB for 2). Stage indices are
// trace-time values: the K loops are run-time loops whose bodies cover one round of the
// stages (ptx::hopper::PipelineState); the MMA issuer peels the first K tile (its first MMA
// overwrites the accumulator: enable-input-d false). M must be a multiple of 128 (256 for
// cta_group 2), N of 256 and K of 64 (an error otherwise); C offsets are 32-bit (C < 4 GiB).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <utility>

#include <ptxpp/dsl.hpp>
#include <ptxpp/runtime.hpp>

#include "gemm_sm90.hpp"

namespace examples {

inline constexpr int kGemm100TileM = 128, kGemm100TileN = 256, kGemm100TileK = 64, kGemm100Stages = 4;

inline ptx::Dim3 gemm_sm100_grid(const ptx::Bindings& b) {
  return ptx::Dim3(static_cast<uint32_t>((b.at("N") + kGemm100TileN - 1) / kGemm100TileN),
                   static_cast<uint32_t>((b.at("M") + kGemm100TileM - 1) / kGemm100TileM));
}

// The tensor maps the kernel takes: A (boxes of 64 x 128) and B (boxes of 64 x 256, or 64 x 128
// with cta_group 2: each CTA of the pair loads half of the B tile), bf16, 128-byte swizzle:
// the same as gemm_sm90's.
inline std::pair<ptx::TensorMap, ptx::TensorMap> gemm_sm100_tensor_maps(const ptx::Device& dev, ptx::DevicePtr a,
                                                                         ptx::DevicePtr b, int64_t M, int64_t N, int64_t K,
                                                                         int cta_group = 1) {
  return gemm_sm90_tensor_maps(dev, a, b, M, N, K, cta_group);
}

// out: f32 or bf16 (the element type of C).
inline ptx::Kernel gemm_sm100(const std::string& arch, int cta_group = 1, ptx::DType out = ptx::DType::f32) {
  using namespace ptx::types;
  namespace inst = ptx::inst;
  if (cta_group != 1 && cta_group != 2)
    throw ptx::Error("gemm_sm100: cta_group is 1 or 2, not " + std::to_string(cta_group), ptx::SourceLocation::current());
  if (out != f32 && out != bf16)
    throw ptx::Error("gemm_sm100: C is f32 or bf16, not " + std::string(ptx::name(out)), ptx::SourceLocation::current());
  std::string kname = cta_group == 1 ? "gemm_sm100" : "gemm_sm100_2sm";
  if (out == bf16) kname += "_bf16";
  ptx::Kernel k = ptx::kernel(kname);
  if (cta_group > 1) k.cluster(ptx::Dim3(1, 2, 1));
  return k.tensor_map("a")
      .tensor_map("b")
      .out(ptx::tensor(out, {"M", "N"}))
      .block(192)
      .maxntid(ptx::Dim3(192))
      .grid(gemm_sm100_grid)
      .arch(arch)
      .body([cta_group, out](ptx::TensorMapParam a, ptx::TensorMapParam b, ptx::Tensor c) {
        namespace hop = ptx::hopper;
        namespace bw = ptx::blackwell;
        const int64_t M = c.dim(0), N = c.dim(1), K = a.bound("K");
        if (M % kGemm100TileM != 0 || N % kGemm100TileN != 0 || K % kGemm100TileK != 0 || K <= 0)
          throw ptx::Error("gemm_sm100: M must be a multiple of 128, N of 256 and K a positive multiple of 64 (the CTA tile); got M=" +
                               std::to_string(M) + ", N=" + std::to_string(N) + ", K=" + std::to_string(K),
                           ptx::SourceLocation::current());
        if (M % (kGemm100TileM * cta_group) != 0)
          throw ptx::Error("gemm_sm100: with cta_group 2 (a pair of CTAs along M), M must be a multiple of 256; got M=" +
                               std::to_string(M),
                           ptx::SourceLocation::current());
        if (M * N * static_cast<int64_t>(ptx::bits(out) / 8) >= (int64_t{1} << 32))
          throw ptx::Error("gemm_sm100: C must be under 4 GiB (32-bit offsets)", ptx::SourceLocation::current());
        const bool pair = cta_group == 2;
        const bw::CtaGroup group = pair ? bw::CtaGroup::Two : bw::CtaGroup::One;
        constexpr int S = kGemm100Stages;
        constexpr uint32_t kCols = kGemm100TileN;                     // accumulator columns (f32)
        const uint32_t kABytes = 128 * 64 * 2;                        // one stage of A (this CTA's rows)
        const uint32_t kBBytes = (pair ? 128 : 256) * 64 * 2;         // one stage of B (this CTA's part)
        const uint32_t kStageTx = (pair ? 2 : 1) * (kABytes + kBBytes);  // bytes the full mbarrier waits for
        const int64_t kt_total = K / kGemm100TileK;

        auto smA = ptx::smem::alloc(bf16, {S, 128, 64}, 1024, ptx::smem::Swizzle::B128);
        auto smB = ptx::smem::alloc(bf16, {S, pair ? 128 : 256, 64}, 1024, ptx::smem::Swizzle::B128);
        auto bars = ptx::smem::alloc(b64, {2 * S + 1}, 8);  // full, empty, accumulator ready
        auto slot = ptx::smem::alloc(u32, {1}, 16);        // tcgen05.alloc writes the address here
        hop::Pipeline pipe(bars, S);
        const hop::Mbarrier accum(bars.addr(8 * 2 * S));

        ptx::Reg tid = ptx::read(ptx::special::tid.x(), u32);
        ptx::Reg warp = tid >> 5;
        ptx::Reg bx = ptx::read(ptx::special::ctaid.x(), u32);
        ptx::Reg by = ptx::read(ptx::special::ctaid.y(), u32);
        ptx::Reg is0 = tid == 0u;
        std::optional<ptx::Reg> rank;
        if (pair) rank.emplace(ptx::read(ptx::special::cluster_ctarank, u32));
        // full: the (leader's) producer's arrive + the stage's bytes; empty, accumulator: one tcgen05.commit
        accum.init(1, &is0);
        pipe.init(1, 1, &is0);
        ptx::Reg is_warp0 = warp == 0u;
        ptx::if_(is_warp0, [&] {
          bw::tmem_alloc(slot.addr(0), kCols, group);
          bw::tmem_relinquish_alloc_permit(group);
        });
        bw::fence_before_thread_sync();
        if (pair) hop::cluster_sync();  // the peer's TMA completes the leader's mbarriers: both inited first
        else inst::bar.sync(0);
        bw::fence_after_thread_sync();
        ptx::Reg tmem(b32);
        inst::ld.shared.b32(tmem, slot.addr(0));
        ptx::Reg sa = smA.base();

        // ---- producer: warp 4 ----
        ptx::Reg is_producer = warp == 4u;
        ptx::if_(is_producer, [&] {
          ptx::Reg elected = ptx::warp::elect_one();
          ptx::if_(elected, [&] {
            ptx::Reg map_a = a.generic_address();
            ptx::Reg map_b = b.generic_address();
            ptx::Reg m0 = by << 7;
            ptx::Reg n0 = bx << 8;
            std::optional<ptx::Reg> leader_bars, is_leader;
            if (pair) {
              ptx::Reg part = *rank << 7;  // this CTA's 128 rows of the B tile
              n0 += part;
              ptx::Reg bars_base = sa + static_cast<uint32_t>(bars.offset() - smA.offset());
              leader_bars.emplace(hop::map_shared_rank(bars_base, 0));
              is_leader.emplace(*rank == 0u);
            }
            ptx::Reg kc(u32);
            inst::mov.u32(kc, 0u);
            hop::PipelineState st(pipe, 1);
            auto produce = [&] {
              st.wait_empty();
              // the stage's full mbarrier: this CTA's, or the leader's for the pair
              const hop::Mbarrier full = pair ? hop::Mbarrier(ptx::addr(*leader_bars, 8 * st.stage())) : st.full();
              if (pair) st.full().arrive_expect_tx(kStageTx, &*is_leader);  // rank 0 is the leader: its own barrier
              else full.arrive_expect_tx(kStageTx);
              if (pair) {  // .cta_group::2: the completion may go to the leader's mbarrier
                bw::tma_load_pair(smA.addr(static_cast<int64_t>(st.stage()) * kABytes), map_a, {kc, m0}, full);
                bw::tma_load_pair(smB.addr(static_cast<int64_t>(st.stage()) * kBBytes), map_b, {kc, n0}, full);
              } else {
                hop::tma_load(smA.addr(static_cast<int64_t>(st.stage()) * kABytes), map_a, {kc, m0}, full);
                hop::tma_load(smB.addr(static_cast<int64_t>(st.stage()) * kBBytes), map_b, {kc, n0}, full);
              }
              kc += 64u;
              st.advance();
            };
            const int64_t rounds = kt_total / S;
            if (rounds > 0)
              ptx::loop(0u, static_cast<uint32_t>(rounds * S), S, [&](const ptx::Reg&) {
                for (int u = 0; u < S; ++u) produce();
              });
            for (int64_t kt = rounds * S; kt < kt_total; ++kt) produce();
          });
        });

        // ---- MMA issuer: warp 5 (of the leader CTA for the pair) ----
        ptx::Reg is_mma = warp == 5u;
        if (pair) {
          ptx::Reg leader = *rank == 0u;
          is_mma = is_mma & leader;
        }
        ptx::if_(is_mma, [&] {
          ptx::Reg elected = ptx::warp::elect_one();
          ptx::if_(elected, [&] {
            // B's address from A's (the emulator does not read `mov.u32 r, dyn_smem+OFF`)
            ptx::Reg sb = sa + static_cast<uint32_t>(smB.offset() - smA.offset());
            const bw::SmemDescriptor layout = bw::k_major(0, bw::SmemSwizzle::B128, 1024);
            ptx::Reg da = bw::make_smem_descriptor(sa, layout);
            ptx::Reg db = bw::make_smem_descriptor(sb, layout);
            const bw::InstrDescriptor id = bw::bf16_f32(pair ? 256 : 128, 256, group);
            ptx::Reg on = tid == tid;   // enable-input-d true: D += A * B
            ptx::Reg off = tid != tid;  // false: D = A * B (the first MMA)
            std::optional<ptx::Reg> mask;
            if (pair) {
              mask.emplace(b16);
              inst::mov.b16(*mask, 3);
            }
            auto release = [&](const hop::Mbarrier& bar) {
              if (pair) bw::commit_multicast(group, bar, *mask);
              else bw::commit(group, bar);
            };
            hop::PipelineState st(pipe, 0);
            auto consume = [&](bool first_tile) {
              st.wait_full();
              bw::fence_after_thread_sync();
              for (int ks = 0; ks < 4; ++ks) {
                const int64_t oa = (static_cast<int64_t>(st.stage()) * kABytes + ks * 32) / 16;  // 16-byte units
                const int64_t ob = (static_cast<int64_t>(st.stage()) * kBBytes + ks * 32) / 16;
                std::optional<ptx::Reg> dak, dbk;
                if (oa != 0) dak.emplace(da + oa);
                if (ob != 0) dbk.emplace(db + ob);
                bw::mma(id, tmem, oa ? *dak : da, ob ? *dbk : db, (first_tile && ks == 0) ? off : on);
              }
              release(st.empty());  // the stage is free once these MMAs have read it
              st.advance();
            };
            consume(true);
            const int64_t rounds = (kt_total - 1) / S;
            if (rounds > 0)
              ptx::loop(0u, static_cast<uint32_t>(rounds * S), S, [&](const ptx::Reg&) {
                for (int u = 0; u < S; ++u) consume(false);
              });
            for (int64_t kt = 1 + rounds * S; kt < kt_total; ++kt) consume(false);
            release(accum);  // every MMA above has completed
          });
        });

        // ---- epilogue: warps 0-3, thread t holds row t of the tile (tensor-memory lane t) ----
        ptx::Reg is_epilogue = warp < 4u;
        ptx::if_(is_epilogue, [&] {
          accum.wait(0);
          bw::fence_after_thread_sync();
          ptx::Reg lane_base = warp << 21;  // (32 w) << 16: the warp's lane quarter
          ptx::Reg taddr = tmem + lane_base;
          ptx::Reg row = by << 7;  // with the pair too: rows 256 (by / 2) + 128 rank = 128 by
          row += tid;
          ptx::Reg col = bx << 8;
          ptx::Reg coff = row * static_cast<uint32_t>(N);
          coff += col;
          const int esize = out == f32 ? 4 : 2;
          coff = coff * static_cast<uint32_t>(esize);
          ptx::Reg pc = c.global_ptr();
          ptx::Reg cptr = pc + coff;
          ptx::RegArray v(f32, 32, "acc");
          ptx::RegArray h(b32, 16, "pk");
          for (int chunk = 0; chunk < static_cast<int>(kCols) / 32; ++chunk) {
            bw::tmem_load(bw::TmemShape::S32x32b, 32, v, 0, taddr, 32 * chunk);
            bw::tmem_wait_ld();
            const int64_t base = static_cast<int64_t>(chunk) * 32 * esize;
            if (out == f32) {
              for (int j = 0; j < 8; ++j) {
                const auto q = static_cast<size_t>(4 * j);
                inst::st.global.v4.f32(ptx::addr(cptr, base + 16 * j), ptx::vec(v[q], v[q + 1], v[q + 2], v[q + 3]));
              }
            } else {
              for (int j = 0; j < 16; ++j) {
                const auto q = static_cast<size_t>(2 * j);
                inst::cvt.rn.bf16x2.f32(h[static_cast<size_t>(j)], v[q + 1], v[q]);  // low half: the even column
              }
              for (int j = 0; j < 4; ++j) {
                const auto q = static_cast<size_t>(4 * j);
                inst::st.global.v4.b32(ptx::addr(cptr, base + 16 * j), ptx::vec(h[q], h[q + 1], h[q + 2], h[q + 3]));
              }
            }
          }
        });

        // ---- teardown: every tcgen05 operation is done before warp 0 frees the columns ----
        bw::fence_before_thread_sync();
        if (pair) hop::cluster_sync();  // neither CTA leaves while the pair's MMAs or commits may still reach it
        else inst::bar.sync(0);
        ptx::if_(is_warp0, [&] {
          bw::fence_after_thread_sync();
          bw::tmem_dealloc(tmem, kCols, group);
        });
        ptx::ret();
      });
}

}  // namespace examples
