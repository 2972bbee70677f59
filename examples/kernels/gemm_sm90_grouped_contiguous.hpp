// A grouped bf16 GEMM for Hopper (sm_90a) whose group sizes are read on the device: the
// "contiguous" mixture-of-experts layout, where a router kernel sorts the routed tokens by
// expert and writes the prefix sums of the counts. Nothing about the groups is needed on the
// host, so the whole MoE layer runs without a host sync and can be captured in a CUDA graph
// (gemm_sm90_grouped.hpp needs M_g on the host: one tensor map per group).
//
//   A        bf16 [M, K] row-major: all routed tokens, sorted by expert; one tensor map
//            (dims {K, M}, boxes 64 x 128, 128-byte swizzle);
//   B        bf16 [G, N, K]: the experts' weights; one 3-D tensor map (dims {K, N, G}, boxes
//            64 x 256 x 1): expert g's tile is coordinate g of the third dimension;
//   offsets  u32 [G + 1], in device memory: group g holds rows [offsets[g], offsets[g + 1]);
//   D        [M, N], f32 or bf16: row r = row r of A times B_g^T, g the group holding r.
// gemm_sm90_grouped_contiguous_tensor_maps(dev, a, b, M, G, N, K) makes the two maps. M (the
// rows of A and D, a binding) is the token buffer's size; offsets[G] may be below it (rows
// past it belong to no group and are not written).
//
// Tiles and roles as gemm_sm90_grouped: one persistent launch walks the 128 x 256 tiles
// group after group, M fastest inside a group (sm90::GroupWalk, gemm_sm90_group_walk.hpp),
// with gemm_sm90_persistent's mainloop, ring and epilogue (sm90:: helpers). On entering
// group g a role loads offsets[g + 1] (offsets[0] once, before the walk); A's TMA row is
// the group's first row plus the tile's, B's coordinate {k, n, g}.
//
// The last M tile of a group is partial: its TMA load of A reads up to 127 rows of the next
// group (or zeros past M, TMA's out-of-bounds fill). Harmless: those rows only feed
// accumulator rows that the epilogue does not store (a thread stores its rows r and r + 8
// only when below the group's end: two guarded blocks).
//
// Bad device data never makes the kernel write outside D or loop without end. A row belongs
// to at most one group: group g's rows are [lo_g, hi_g) with lo_0 = min(offsets[0], M),
// lo_g = hi_(g-1), hi_g = min(max(offsets[g + 1], lo_g), M). So a decreasing pair is an empty
// group, rows past a decrease are not taken again by a later group (no two CTAs store the
// same row), and no row >= M is stored; tiles number at most (M / 128 + G) x N / 256.
#pragma once

#include <algorithm>
#include <cstdint>
#include <string>
#include <utility>

#include "gemm_sm90_group_walk.hpp"
#include "gemm_sm90_persistent.hpp"

namespace examples {

// The tensor maps the kernel takes: A (bf16 [M, K] at `a`) and B (bf16 [G, N, K] at `b`).
inline std::pair<ptx::TensorMap, ptx::TensorMap> gemm_sm90_grouped_contiguous_tensor_maps(const ptx::Device& dev, ptx::DevicePtr a,
                                                                                          ptx::DevicePtr b, int64_t M, int64_t G,
                                                                                          int64_t N, int64_t K) {
  if (M < 1 || G < 1 || N < 1 || K < 1)
    throw ptx::Error("gemm_sm90_grouped_contiguous_tensor_maps: M, G, N and K must be positive; got M=" + std::to_string(M) +
                         ", G=" + std::to_string(G) + ", N=" + std::to_string(N) + ", K=" + std::to_string(K),
                     ptx::SourceLocation::current());
  ptx::TensorMapSpec s;
  s.type = ptx::TmaType::bf16;
  s.swizzle = ptx::TmaSwizzle::b128;
  s.dims = {static_cast<uint64_t>(K), static_cast<uint64_t>(M)};
  s.box = {kGemm90TileK, kGemm90TileM};
  const ptx::TensorMap ma = ptx::make_tensor_map(dev, a, s);
  s.dims = {static_cast<uint64_t>(K), static_cast<uint64_t>(N), static_cast<uint64_t>(G)};
  s.box = {kGemm90TileK, kGemm90TileN, 1};
  return {ma, ptx::make_tensor_map(dev, b, s)};
}

// The most tiles the groups can have: sum of ceil(M_g / 128) <= M / 128 + (groups with rows).
inline int64_t gemm_sm90_grouped_contiguous_max_tiles(int64_t M, int64_t G, int64_t N) {
  return (M / kGemm90TileM + std::min(G, M)) * (N / kGemm90TileN);
}

// Bindings: M (rows of A and D), SMS (optional: the device's SM count, default 132). The
// grid is min(SMS, the most tiles there can be) CTAs. G (experts), N (a multiple of 256) and
// K (of 64) are the layer's, fixed per kernel.
inline ptx::Kernel gemm_sm90_grouped_contiguous(const std::string& arch, int64_t G, int64_t N, int64_t K,
                                                ptx::DType out = ptx::types::bf16) {
  using namespace ptx::types;
  namespace inst = ptx::inst;
  if (out != f32 && out != bf16)
    throw ptx::Error("gemm_sm90_grouped_contiguous: D is f32 or bf16", ptx::SourceLocation::current());
  if (N <= 0 || K <= 0 || N % kGemm90TileN != 0 || K % kGemm90TileK != 0 || N >= (int64_t{1} << 28))
    throw ptx::Error("gemm_sm90_grouped_contiguous: N must be a positive multiple of 256 (below 2^28) and K of 64; got N=" +
                         std::to_string(N) + ", K=" + std::to_string(K),
                     ptx::SourceLocation::current());
  if (G < 1 || G >= (int64_t{1} << 31))
    throw ptx::Error("gemm_sm90_grouped_contiguous: G must be 1 to 2^31 - 1; got " + std::to_string(G),
                     ptx::SourceLocation::current());
  auto grid = [G, N](const ptx::Bindings& b) {
    const auto sms = b.find("SMS");
    const int64_t ctas = std::min<int64_t>(sms == b.end() ? kGemm90DefaultSms : sms->second,
                                           gemm_sm90_grouped_contiguous_max_tiles(b.at("M"), G, N));
    return ptx::Dim3(static_cast<uint32_t>(std::max<int64_t>(ctas, 1)));
  };
  return ptx::kernel(out == f32 ? "gemm_sm90_grouped_contiguous" : "gemm_sm90_grouped_contiguous_bf16")
      .tensor_map("a")
      .tensor_map("b")
      .in("offsets", ptx::tensor(u32, {G + 1}))
      .out("d", ptx::tensor(out, {"M", N}))
      .block(384)
      .maxntid(ptx::Dim3(384))
      .grid(grid)
      .arch(arch)
      .body([out, G, N, K](ptx::TensorMapParam a, ptx::TensorMapParam b, ptx::Tensor offsets, ptx::Tensor d) {
        const int64_t M = d.dim(0);
        // (TMA row coordinates are s32, up to M + 127; tile numbers u32)
        if (M < 1 || M > (int64_t{1} << 30) || gemm_sm90_grouped_contiguous_max_tiles(M, G, N) >= (int64_t{1} << 31))
          throw ptx::Error("gemm_sm90_grouped_contiguous: M must be 1 to 2^30 with under 2^31 tiles; got M=" + std::to_string(M),
                           ptx::SourceLocation::current());
        constexpr int S = kGemm90Stages;
        const int64_t kt_total = K / kGemm90TileK, tn = N / kGemm90TileN;
        const int64_t esize = out == f32 ? 4 : 2;
        const auto m_rows = static_cast<uint32_t>(M);

        const sm90::Cta cta = sm90::Cta::setup();
        const ptx::Reg &tid = cta.tid, &sa = cta.sa, &sb = cta.sb, &bars = cta.bars, &nct = cta.nct;
        ptx::Reg po = offsets.global_ptr();

        // The group's rows [lo, hi) (see the top of the file): hi = min(offsets[0], M) before
        // the walk; entering group g, lo = hi and hi = min(max(offsets[g + 1], lo), M).
        auto walk = [&](ptx::Reg& lo, ptx::Reg& hi) {
          inst::ld.global.u32(hi, ptx::addr(po));
          inst::min.u32(hi, hi, m_rows);
          return sm90::GroupWalk(G, tn, [&](const ptx::Reg& g, ptx::Reg& rows) {
            ptx::Reg o = g << 2;
            ptx::Reg o64(u64);
            inst::cvt.u64.u32(o64, o);
            ptx::Reg pg = po + o64;
            ptx::Reg end(u32);
            inst::ld.global.u32(end, ptx::addr(pg, 4));
            lo = hi;
            inst::max.u32(end, end, lo);
            inst::min.u32(hi, end, m_rows);
            inst::sub.u32(rows, hi, lo);
          });
        };

        // ---- producer: warpgroup 0, its warp 0 (ptx::hopper::warp_specialize) ----
        auto producer = [&] {
          ptx::Reg map_a = a.generic_address();
          ptx::Reg map_b = b.generic_address();
          ptx::Reg elected = ptx::warp::elect_one();
          sm90::RingState st(bars, S, 1);
          ptx::Reg lo(u32), hi(u32);
          sm90::GroupWalk w = walk(lo, hi);
          ptx::while_([&] { return w.to_tile(); },
                      [&] {
                        auto [m0, n0] = w.tile_origin();
                        ptx::Reg row = lo + m0;  // may run past the group: see the top of the file
                        sm90::produce_tile(st, sa, sb, map_a, map_b, row, n0, elected, kt_total, &w.group());
                        w.advance(nct);
                      });
        };

        // ---- consumers: warpgroups 1 and 2 ----
        auto consumers = [&](const ptx::Reg& ct) {
          const sm90::Consumer cs = sm90::Consumer::setup(ct, sa, sb);
          ptx::Reg pd = d.global_ptr();
          sm90::RingState st(bars, S, 0);
          ptx::Reg lo(u32), hi(u32);
          sm90::GroupWalk w = walk(lo, hi);
          ptx::while_([&] { return w.to_tile(); },
                      [&] {
                        sm90::consume_tile(st, cs.da, cs.db, cs.acc, cs.overwrite, cs.accumulate, cs.leader, kt_total);
                        auto [m0, n0] = w.tile_origin();
                        ptx::Reg row = lo + m0;
                        row += cs.frow;
                        ptx::Reg lo_ok = row < hi;
                        ptx::Reg row8 = row + 8u;
                        ptx::Reg hi_ok = row8 < hi;
                        ptx::Reg row_off(u64);  // 64-bit: D may be over 4 GiB
                        inst::mul.wide.u32(row_off, row, static_cast<uint32_t>(N * esize));
                        ptx::Reg col = n0 + cs.fcol;
                        ptx::Reg col_off = col * static_cast<uint32_t>(esize);
                        ptx::Reg col_off64(u64);
                        inst::cvt.u64.u32(col_off64, col_off);
                        ptx::Reg rptr = pd + row_off;
                        ptx::Reg cptr = rptr + col_off64;
                        sm90::store_accumulators(cs.acc, out, cptr, N, &lo_ok, &hi_ok);
                        w.advance(nct);
                      });
        };
        ptx::hopper::warp_specialize(tid, {}, producer, consumers);
        ptx::ret();
      });
}

}  // namespace examples
