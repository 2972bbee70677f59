// A bf16 GEMM for Hopper (sm_90a) on TMA, mbarriers and wgmma: C = A * B^T.
//
//   A: M x K bf16, row-major (K contiguous), read through a tensor map "a" (dims {K, M})
//   B: N x K bf16, row-major (K contiguous), read through a tensor map "b" (dims {K, N})
//   C: M x N f32, row-major
//
// One CTA computes a 128 x 256 tile of C with three warpgroups (384 threads):
//  * warpgroup 0 is the producer (setmaxnreg.dec to 40 registers): its warp 0 waits for an
//    empty stage, and one lane of it (elect.sync) arms the stage's full mbarrier
//    (mbarrier.arrive.expect_tx, 48 KB) and issues two TMA tile loads
//    (cp.async.bulk.tensor.2d: A 64 x 128 and B 64 x 256 bf16 boxes, 128-byte swizzle) that
//    complete it. Warps 1-3 have nothing to do.
//  * warpgroups 1 and 2 are the consumers (setmaxnreg.inc to 232 registers), rows 0-63 and
//    64-127 of the tile, 128 f32 accumulators per thread: per stage they wait for it to be
//    full, issue four wgmma.mma_async.m64n256k16.f32.bf16.bf16 (K-major descriptors, 128B
//    swizzle, start + 32 bytes per K step) and commit them; wgmma.wait_group 1 then leaves
//    that group running while the previous stage's group has finished, and that stage is
//    released (lane 0 of each of the 8 consumer warps arrives on its empty mbarrier, after
//    its own wait: each warp's reads of it are done).
// The K tile is 64 (one 128-byte swizzle row), the pipeline has kGemm90Stages = 4 stages
// (4 x 48 KB of dynamic shared memory, plus the 4 full and 4 empty mbarriers). Stage
// indices are trace-time values: the K loops are run-time loops whose bodies cover one
// round of the stages, each side's phase parity a register flipped once a round
// (ptx::hopper::PipelineState); the consumers peel the first tile (nothing to release yet),
// and K/64 mod 4 leftover tiles follow the loops unrolled. The epilogue stores the
// accumulators (the m64n256 fragment: ptx::hopper::accumulator_row_col) with
// st.global.v2.f32. M must be a multiple of 128, N of 256 and K of 64 (an error otherwise);
// C offsets are 32-bit, so C must be under 4 GiB.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include <ptxpp/dsl.hpp>
#include <ptxpp/runtime.hpp>

namespace examples {

inline constexpr int kGemm90TileM = 128, kGemm90TileN = 256, kGemm90TileK = 64, kGemm90Stages = 4;

inline ptx::Dim3 gemm_sm90_grid(const ptx::Bindings& b) {
  return ptx::Dim3(static_cast<uint32_t>((b.at("N") + kGemm90TileN - 1) / kGemm90TileN),
                   static_cast<uint32_t>((b.at("M") + kGemm90TileM - 1) / kGemm90TileM));
}

// The tensor maps the kernel takes: A (M x K, boxes of 64 x 128) and B (N x K, boxes of
// 64 x 256 / cluster_m: with a cluster each CTA loads its part of B for all), bf16, 128-byte swizzle.
inline std::pair<ptx::TensorMap, ptx::TensorMap> gemm_sm90_tensor_maps(const ptx::Device& dev, ptx::DevicePtr a,
                                                                        ptx::DevicePtr b, int64_t M, int64_t N, int64_t K,
                                                                        int cluster_m = 1) {
  auto spec = [&](int64_t rows, int box_rows) {
    ptx::TensorMapSpec s;
    s.type = ptx::TmaType::bf16;
    s.dims = {static_cast<uint64_t>(K), static_cast<uint64_t>(rows)};
    s.box = {kGemm90TileK, static_cast<uint32_t>(box_rows)};
    s.swizzle = ptx::TmaSwizzle::b128;
    return s;
  };
  return {ptx::make_tensor_map(dev, a, spec(M, kGemm90TileM)), ptx::make_tensor_map(dev, b, spec(N, kGemm90TileN / cluster_m))};
}

// cluster_m = 2: clusters of two CTAs along M (the same B tile): each CTA loads half of the B
// tile and multicasts it to both (cp.async.bulk.tensor ... .multicast::cluster, ctaMask 0b11);
// a stage is free once the consumers of both CTAs released it (the empty mbarriers count 16
// arrivals; consumers arrive on both CTAs' through mapa + mbarrier.arrive.release.cluster);
// barrier.cluster after the mbarrier inits and before exiting. M must then be a multiple of 256.
inline ptx::Kernel gemm_sm90(const std::string& arch, int cluster_m = 1) {
  using namespace ptx::types;
  namespace inst = ptx::inst;
  if (cluster_m != 1 && cluster_m != 2)
    throw ptx::Error("gemm_sm90: cluster_m is 1 or 2, not " + std::to_string(cluster_m), ptx::SourceLocation::current());
  ptx::Kernel k = ptx::kernel(cluster_m == 1 ? "gemm_sm90" : "gemm_sm90_c2");
  if (cluster_m > 1) k.cluster(ptx::Dim3(1, static_cast<uint32_t>(cluster_m), 1));
  return k
      .tensor_map("a")
      .tensor_map("b")
      .out(ptx::tensor(f32, {"M", "N"}))
      .block(384)
      .maxntid(ptx::Dim3(384))  // ptxas then gives each thread 65536 / 384 = 168 registers at launch:
                                // 128 x 40 (producer) + 256 x 232 (consumers) after setmaxnreg is the same pool
      .grid(gemm_sm90_grid)
      .arch(arch)
      .body([cluster_m](ptx::TensorMapParam a, ptx::TensorMapParam b, ptx::Tensor c) {
        namespace hop = ptx::hopper;
        const int64_t M = c.dim(0), N = c.dim(1), K = a.bound("K");
        if (M % kGemm90TileM != 0 || N % kGemm90TileN != 0 || K % kGemm90TileK != 0 || K <= 0)
          throw ptx::Error("gemm_sm90: M must be a multiple of 128, N of 256 and K a positive multiple of 64 (the CTA tile); got M=" +
                               std::to_string(M) + ", N=" + std::to_string(N) + ", K=" + std::to_string(K),
                           ptx::SourceLocation::current());
        if (M % (kGemm90TileM * cluster_m) != 0)
          throw ptx::Error("gemm_sm90: with clusters of " + std::to_string(cluster_m) + " CTAs along M, M must be a multiple of " +
                               std::to_string(kGemm90TileM * cluster_m) + "; got M=" + std::to_string(M),
                           ptx::SourceLocation::current());
        if (M * N * 4 >= (int64_t{1} << 32))
          throw ptx::Error("gemm_sm90: C must be under 4 GiB (32-bit offsets)", ptx::SourceLocation::current());
        constexpr int S = kGemm90Stages;
        constexpr uint32_t kABytes = 128 * 64 * 2, kBBytes = 256 * 64 * 2;  // one stage of A, of B
        constexpr int kN = kGemm90TileN, kAcc = kN / 2;                    // wgmma N, accumulators per thread
        const int64_t kt_total = K / kGemm90TileK;

        auto smA = ptx::smem::alloc(bf16, {S, 128, 64}, 1024, ptx::smem::Swizzle::B128);
        auto smB = ptx::smem::alloc(bf16, {S, kN, 64}, 1024, ptx::smem::Swizzle::B128);
        auto bars = ptx::smem::alloc(b64, {2 * S}, 8);
        hop::Pipeline pipe(bars, S);

        ptx::Reg tid = ptx::read(ptx::special::tid.x(), u32);
        ptx::Reg bx = ptx::read(ptx::special::ctaid.x(), u32);
        ptx::Reg by = ptx::read(ptx::special::ctaid.y(), u32);
        ptx::Reg is0 = tid == 0u;
        // full: the producer's arrive (+ 48 KB of transactions); empty: one arrive per consumer warp (of each CTA)
        pipe.init(1, static_cast<uint32_t>(8 * cluster_m), &is0);
        if (cluster_m > 1) hop::cluster_sync();
        else inst::bar.sync(0);

        // ---- producer: warpgroup 0, its warp 0 (hop::warp_specialize) ----
        auto producer = [&] {
          ptx::Reg map_a = a.generic_address();
          ptx::Reg map_b = b.generic_address();
          ptx::Reg elected = ptx::warp::elect_one();
          ptx::Reg m0 = by << 7;
          ptx::Reg n0 = bx << 8;
          // with a cluster: this CTA's part of B (rows n0 + rank * 256 / cluster_m), at that offset in the stage
          std::optional<ptx::Reg> mask, bdst;
          int64_t bdst_off = 0;
          if (cluster_m > 1) {
            ptx::Reg rank = ptx::read(ptx::special::cluster_ctarank, u32);
            ptx::Reg part = rank << 7;
            n0 += part;
            ptx::Reg part_bytes = rank << 14;  // 128 rows x 128 bytes
            ptx::Reg base = smA.base();
            bdst.emplace(base + part_bytes);
            bdst_off = static_cast<int64_t>(smB.offset() - smA.offset());
            mask.emplace(b16);
            inst::mov.b16(*mask, (1 << cluster_m) - 1);
          }
          ptx::Reg kc(u32);
          inst::mov.u32(kc, 0u);
          hop::PipelineState st(pipe, 1);
          auto produce = [&] {
            st.wait_empty();
            const hop::Mbarrier full = st.full();
            full.arrive_expect_tx(kABytes + kBBytes, &elected);
            hop::tma_load(smA.addr(static_cast<int64_t>(st.stage()) * kABytes), map_a, {kc, m0}, full, {.guard = &elected});
            if (cluster_m > 1)
              hop::tma_load(ptx::addr(*bdst, bdst_off + static_cast<int64_t>(st.stage()) * kBBytes), map_b, {kc, n0}, full,
                            {.guard = &elected, .multicast = &*mask});
            else
              hop::tma_load(smB.addr(static_cast<int64_t>(st.stage()) * kBBytes), map_b, {kc, n0}, full, {.guard = &elected});
            kc += 64u;
            st.advance();
          };
          const int64_t rounds = kt_total / S;
          if (rounds > 0)
            ptx::loop(0u, static_cast<uint32_t>(rounds * S), S, [&](const ptx::Reg&) {
              for (int u = 0; u < S; ++u) produce();
            });
          for (int64_t kt = rounds * S; kt < kt_total; ++kt) produce();
        };

        // ---- consumers: warpgroups 1 and 2 ----
        auto consumers = [&](const ptx::Reg& ct) {  // ct = tid - 128: 0..255
          ptx::Reg wg = ct >> 7;             // 0, 1: rows 64 * wg of the tile
          ptx::Reg t = ct & 127u;            // the thread in its warpgroup
          ptx::Reg lane0 = ct & 31u;
          ptx::Reg leader = lane0 == 0u;     // lane 0 of each consumer warp releases a stage
          ptx::Reg a_rows = wg << 13;        // 64 rows x 128 bytes
          ptx::Reg sa = smA.base();
          ptx::Reg sa_wg = sa + a_rows;
          // B's address from A's (one base register for both)
          ptx::Reg sb = sa + static_cast<uint32_t>(smB.offset() - smA.offset());
          const hop::MatrixDescriptor layout = hop::k_major(0, hop::DescSwizzle::B128, 1024);
          ptx::Reg da = hop::make_descriptor(sa_wg, layout);
          ptx::Reg db = hop::make_descriptor(sb, layout);
          // with a cluster: the mbarriers of each CTA of the cluster (mapa)
          std::vector<ptx::Reg> peer_bars;
          if (cluster_m > 1) {
            ptx::Reg bars_base = sa + static_cast<uint32_t>(bars.offset() - smA.offset());
            for (int r = 0; r < cluster_m; ++r) peer_bars.push_back(hop::map_shared_rank(bars_base, r));
          }
          auto release = [&](int stage) {
            if (cluster_m == 1) {
              pipe.empty(stage).arrive(&leader);
              return;
            }
            for (const ptx::Reg& pb : peer_bars) hop::Mbarrier(ptx::addr(pb, 8 * (S + stage))).arrive_cluster(&leader);
          };
          ptx::RegArray acc(f32, kAcc, "acc");
          for (size_t i = 0; i < acc.size(); ++i) inst::mov.f32(acc[i], 0.0f);
          ptx::Reg accumulate = t == t;    // scale-d: true (D += A * B)
          hop::PipelineState st(pipe, 0);
          // Waits for the stage, issues its four wgmmas as one group; when `release_previous`,
          // waits for the previous group (wait_group 1) and releases the previous stage.
          auto consume = [&](bool release_previous) {
            st.wait_full();
            hop::wgmma_fence();
            for (int ks = 0; ks < 4; ++ks) {
              const int64_t oa = (static_cast<int64_t>(st.stage()) * kABytes + ks * 32) / 16;  // 16-byte units
              const int64_t ob = (static_cast<int64_t>(st.stage()) * kBBytes + ks * 32) / 16;
              std::optional<ptx::Reg> dak, dbk;
              if (oa != 0) dak.emplace(da + oa);
              if (ob != 0) dbk.emplace(db + ob);
              hop::mma_async(kN, bf16, acc, 0, oa ? *dak : da, ob ? *dbk : db, accumulate);
            }
            hop::wgmma_commit();
            if (release_previous) {
              hop::wgmma_wait(1);
              release((st.stage() + S - 1) % S);
            }
            st.advance();
          };
          consume(false);  // tile 0
          const int64_t rounds = (kt_total - 1) / S;
          if (rounds > 0)
            ptx::loop(0u, static_cast<uint32_t>(rounds * S), S, [&](const ptx::Reg&) {
              for (int u = 0; u < S; ++u) consume(true);
            });
          for (int64_t kt = 1 + rounds * S; kt < kt_total; ++kt) consume(true);
          hop::wgmma_wait(0);
          release((st.stage() + S - 1) % S);  // the last stage (no producer waits for it)

          // ---- epilogue: register i of thread t is row 16 (t/32) + (t%32)/4 + 8 ((i/2)%2),
          // column 8 (i/4) + 2 (t%4) + i%2 of the warpgroup's 64 x 256 block ----
          ptx::Reg pc = c.global_ptr();
          ptx::Reg warp = t >> 5;
          ptx::Reg lane = t & 31u;
          ptx::Reg row = by << 7;
          ptx::Reg wg64 = wg << 6;
          row += wg64;
          ptx::Reg w16 = warp << 4;
          row += w16;
          ptx::Reg g = lane >> 2;
          row += g;
          ptx::Reg col = bx << 8;
          ptx::Reg q = lane & 3u;
          ptx::Reg q2 = q << 1;
          col += q2;
          ptx::Reg coff = row * static_cast<uint32_t>(N);
          coff += col;
          coff = coff << 2;
          ptx::Reg cptr = pc + coff;
          for (int i = 0; i < kAcc; i += 2) {
            const int64_t o = ((8 * ((i / 2) % 2)) * N + 8 * (i / 4)) * 4;
            inst::st.global.v2.f32(ptx::addr(cptr, o), ptx::vec(acc[static_cast<size_t>(i)], acc[static_cast<size_t>(i + 1)]));
          }
        };
        hop::warp_specialize(tid, {}, producer, consumers);
        if (cluster_m > 1) hop::cluster_sync();  // no CTA leaves while the other may still arrive on its mbarriers
        ptx::ret();
      });
}

}  // namespace examples
