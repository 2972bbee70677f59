// A persistent bf16 GEMM for Hopper (sm_90a): C = A * B^T with one CTA per SM looping over
// the output tiles. Same tile (128 x 256 x 64), roles (a TMA producer warpgroup, two wgmma
// consumer warpgroups of m64n256k16), swizzle and 4-stage full/empty mbarrier ring as
// gemm_sm90 (examples/kernels/gemm_sm90.hpp); C is f32 or bf16 (f32 accumulation; bf16 packs
// two adjacent columns with cvt.rn.bf16x2.f32 and stores them with one st.global.b32).
//
// Launch: grid = min(SMS, tiles) CTAs, SMS a binding (the device's SM count, default 132:
// H100 SXM / H200) read only by the grid function: the PTX does not depend on it, each CTA
// reads %nctaid.x. Static schedule: CTA c handles tiles c, c + nctaid, c + 2 nctaid, ...
//
// Rasterization (grouped along M, for L2 reuse): tile ids walk `group_m` tile-rows of M
// (a band of group_m * 128 rows), down a column of N tiles first, then to the next N tile;
// the last band may be shorter. For tile t, with tn = N / 256 tiles per row:
//   band = t / (group_m * tn); first = band * group_m; rows = min(group_m, M / 128 - first)
//   m_tile = first + (t mod (group_m * tn)) mod rows;  n_tile = (t mod (group_m * tn)) / rows
// The tiles in flight at once (one per SM) then share group_m A bands and ~SMS / group_m
// B tiles instead of one A band and SMS B tiles (row-major order).
//
// The ring runs on across tiles: stage and phase are run-time registers (RingState) that
// the producer and the consumers advance once per K tile whatever output tile it belongs
// to, so K / 64 need not be a multiple of the stage count and the producer fills stages of
// tile i+1 while the consumers still work on tile i (the producer waits only on empty
// barriers). The epilogue of tile i cannot race with the mainloop of tile i+1: (1) the
// accumulators are registers of the consumer threads, stored straight from registers to
// global memory (no shared-memory staging); a consumer issues tile i+1's first wgmma only
// after its own epilogue stores have read them (program order), behind wgmma.fence, and the
// epilogue reads them only after wgmma.wait_group 0 (every wgmma of tile i done); (2) the
// shared-memory stages are handed back through the empty mbarriers only after the wgmmas
// reading them completed (wait_group 1, then 0 for the tile's last stage), before the
// epilogue, so the producer's TMA writes for tile i+1 never touch a stage still read; (3)
// the first wgmma of a tile has scale-d false (D = A * B), so no zeroing instructions touch
// the accumulators between tiles.
#pragma once

#include <algorithm>
#include <cstdint>
#include <optional>
#include <string>

#include "gemm_sm90.hpp"

namespace examples {

inline constexpr int kGemm90DefaultSms = 132;  // H100 SXM, H200
inline constexpr int kGemm90GroupM = 8;

namespace sm90 {

// One side's position in the full/empty ring, at run time: `stage` (u32) and the phase
// parity (b32). advance(): stage + 1, wrapping to 0 with the phase flipped (five
// instructions: add, setp, selp, selp, xor).
class RingState {
 public:
  RingState(const ptx::Reg& bars_base, int stages, uint32_t initial_phase)
      : bars_(bars_base), stages_(stages), stage_(ptx::types::u32), phase_(ptx::types::b32) {
    ptx::inst::mov.u32(stage_, 0u);
    ptx::inst::mov.b32(phase_, initial_phase);
  }
  const ptx::Reg& stage() const { return stage_; }
  const ptx::Reg& phase() const { return phase_; }
  // The shared address of full(stage): bars + 8 stage (empty(stage) is 8 * stages further).
  ptx::Reg full_addr() const {
    ptx::Reg s8 = stage_ << 3;
    return s8 + bars_;
  }
  int stages() const { return stages_; }
  void advance() {
    using namespace ptx::types;
    stage_ += 1u;
    ptx::Reg wrap = stage_ == static_cast<uint32_t>(stages_);
    ptx::inst::selp.u32(stage_, 0u, stage_, wrap);
    ptx::Reg flip(b32);
    ptx::inst::selp.b32(flip, 1u, 0u, wrap);
    phase_ ^= flip;
  }

 private:
  const ptx::Reg& bars_;
  int stages_;
  ptx::Reg stage_, phase_;
};

// The shared-memory layout of the ring: A stages, B stages, then the 2 * S mbarriers.
struct Ring {
  ptx::smem::Buffer a, b, bars;
  static Ring alloc() {
    using namespace ptx::types;
    constexpr int S = kGemm90Stages;
    return Ring{ptx::smem::alloc(bf16, {S, 128, 64}, 1024, ptx::smem::Swizzle::B128),
                ptx::smem::alloc(bf16, {S, kGemm90TileN, 64}, 1024, ptx::smem::Swizzle::B128), ptx::smem::alloc(b64, {2 * S}, 8)};
  }
};

inline constexpr uint32_t kABytes = 128 * 64 * 2, kBBytes = 256 * 64 * 2;  // one stage of A, of B

// What every persistent sm90 GEMM CTA does first: the ring in shared memory, its mbarriers
// initialised by thread 0 (full: 1 arrival, empty: 8, one per consumer warp), bar.sync, the
// shared addresses of the A stages, B stages and barriers (one base register and two adds)
// and %nctaid.x.
struct Cta {
  ptx::Reg tid, sa, sb, bars, nct;

  static Cta setup() {
    using namespace ptx::types;
    const Ring ring = Ring::alloc();
    ptx::hopper::Pipeline pipe(ring.bars, kGemm90Stages);
    ptx::Reg tid = ptx::read(ptx::special::tid.x(), u32);
    ptx::Reg is0 = tid == 0u;
    pipe.init(1, 8, &is0);
    ptx::inst::bar.sync(0);
    ptx::Reg sa = ring.a.base();
    ptx::Reg sb = sa + static_cast<uint32_t>(ring.b.offset() - ring.a.offset());
    ptx::Reg bars = sa + static_cast<uint32_t>(ring.bars.offset() - ring.a.offset());
    ptx::Reg nct = ptx::read(ptx::special::nctaid.x(), u32);
    return Cta{std::move(tid), std::move(sa), std::move(sb), std::move(bars), std::move(nct)};
  }
};

// The registers of a consumer thread (warpgroups 1 and 2; ct = tid - 128, from
// hop::warp_specialize after its setmaxnreg.inc 232): the wgmma descriptors of its warpgroup's 64 rows of A and of B (stage
// 0), the scale-d predicates (accumulate: true, overwrite: false), the 128 f32 accumulators,
// `leader` (lane 0 of each warp releases the stages) and the thread's first accumulator row
// in the 128-row tile and column in the 256-column tile.
struct Consumer {
  ptx::Reg leader, da, db, accumulate, overwrite;
  ptx::RegArray acc;
  ptx::Reg frow, fcol;

  static Consumer setup(const ptx::Reg& ct, const ptx::Reg& sa, const ptx::Reg& sb);
};

// Producer: the K tiles of one output tile (m0, n0 in elements): per K tile, wait for the
// stage to be empty, arm its full barrier with the stage's bytes and issue the two TMA loads
// (the elected lane). A run-time loop of kt_total iterations. With b_group, B's map is 3-D
// ({K, N, groups}) and the tile is in its slice *b_group (gemm_sm90_grouped_contiguous).
inline void produce_tile(RingState& st, const ptx::Reg& sa, const ptx::Reg& sb, const ptx::Reg& map_a, const ptx::Reg& map_b,
                         const ptx::Reg& m0, const ptx::Reg& n0, const ptx::Reg& elected, int64_t kt_total,
                         const ptx::Reg* b_group = nullptr) {
  namespace hop = ptx::hopper;
  using namespace ptx::types;
  const int S = st.stages();
  ptx::loop(0u, static_cast<uint32_t>(kt_total), 1, [&](const ptx::Reg& kt) {
    ptx::Reg fb = st.full_addr();
    hop::Mbarrier(ptx::addr(fb, 8 * S)).wait(st.phase());
    const hop::Mbarrier full(ptx::addr(fb));
    full.arrive_expect_tx(kABytes + kBBytes, &elected);
    ptx::Reg kc = kt << 6;
    ptx::Reg oa = st.stage() << 14;  // kABytes
    ptx::Reg da = sa + oa;
    ptx::Reg ob = st.stage() << 15;  // kBBytes
    ptx::Reg db = sb + ob;
    hop::tma_load(ptx::addr(da), map_a, {kc, m0}, full, {.guard = &elected});
    if (b_group) hop::tma_load(ptx::addr(db), map_b, {kc, n0, *b_group}, full, {.guard = &elected});
    else hop::tma_load(ptx::addr(db), map_b, {kc, n0}, full, {.guard = &elected});
    st.advance();
  });
}

// Consumers: the K tiles of one output tile into `acc` (128 f32 per thread). The first K
// tile's first wgmma overwrites the accumulators (scale-d false); from the second K tile
// on, one wgmma group stays in flight (wait_group 1) and the previous stage is released;
// the tile's last stage is released after wait_group 0, before the caller's epilogue.
inline void consume_tile(RingState& st, const ptx::Reg& da, const ptx::Reg& db, const ptx::RegArray& acc,
                         const ptx::Reg& overwrite, const ptx::Reg& accumulate, const ptx::Reg& leader, int64_t kt_total) {
  namespace hop = ptx::hopper;
  using namespace ptx::types;
  const int S = st.stages();
  ptx::Reg prev_fb(u32);  // the full barrier of the stage before (its empty one is 8 * S further)
  auto consume = [&](bool first) {
    ptx::Reg fb = st.full_addr();
    hop::Mbarrier(ptx::addr(fb)).wait(st.phase());
    hop::wgmma_fence();
    ptx::Reg s10 = st.stage() << 10;  // kABytes / 16: the descriptor's start is in 16-byte units
    ptx::Reg so(u64);
    ptx::inst::cvt.u64.u32(so, s10);
    ptx::Reg das = da + so;
    ptx::Reg so2 = so << 1;  // kBBytes / 16
    ptx::Reg dbs = db + so2;
    for (int ks = 0; ks < 4; ++ks) {
      std::optional<ptx::Reg> dak, dbk;
      if (ks != 0) {
        dak.emplace(das + static_cast<int64_t>(2 * ks));  // + 32 bytes per K step of 16
        dbk.emplace(dbs + static_cast<int64_t>(2 * ks));
      }
      hop::mma_async(kGemm90TileN, bf16, acc, 0, ks ? *dak : das, ks ? *dbk : dbs, first && ks == 0 ? overwrite : accumulate);
    }
    hop::wgmma_commit();
    if (!first) {
      hop::wgmma_wait(1);
      hop::Mbarrier(ptx::addr(prev_fb, 8 * S)).arrive(&leader);
    }
    prev_fb = fb;
    st.advance();
  };
  consume(true);
  if (kt_total > 1) ptx::loop(1u, static_cast<uint32_t>(kt_total), 1, [&](const ptx::Reg&) { consume(false); });
  hop::wgmma_wait(0);
  hop::Mbarrier(ptx::addr(prev_fb, 8 * S)).arrive(&leader);
}

// The epilogue of one warpgroup's 64 x 256 block: register i of thread t is row
// 16 (t/32) + (t%32)/4 + 8 ((i/2)%2), column 8 (i/4) + 2 (t%4) + i%2. `cptr` points at the
// thread's first element (row r0, column c0) of a row-major matrix of `ld` columns of
// `out` (f32: st.global.v2.f32 per pair; bf16: cvt.rn.bf16x2.f32 + st.global.b32 per pair).
// With row guards (rows_ok_lo / rows_ok_hi), the pairs of rows r0 / r0 + 8 are stored only
// when they hold (partial tiles of the grouped GEMM).
inline void store_accumulators(const ptx::RegArray& acc, ptx::DType out, const ptx::Reg& cptr, int64_t ld,
                               const ptx::Reg* rows_ok_lo = nullptr, const ptx::Reg* rows_ok_hi = nullptr) {
  using namespace ptx::types;
  namespace inst = ptx::inst;
  const int64_t esize = out == f32 ? 4 : 2;
  auto half = [&](int hi) {
    for (int i = 0; i < kGemm90TileN / 2; i += 2) {
      if ((i / 2) % 2 != hi) continue;
      const int64_t o = ((8 * hi) * ld + 8 * (i / 4)) * esize;
      const ptx::Reg& lo_col = acc[static_cast<size_t>(i)];
      const ptx::Reg& hi_col = acc[static_cast<size_t>(i + 1)];
      if (out == f32) {
        inst::st.global.v2.f32(ptx::addr(cptr, o), ptx::vec(lo_col, hi_col));
      } else {
        ptx::Reg packed(b32);
        inst::cvt.rn.bf16x2.f32(packed, hi_col, lo_col);  // the first source goes to the upper half
        inst::st.global.b32(ptx::addr(cptr, o), packed);
      }
    }
  };
  for (int hi = 0; hi < 2; ++hi) {
    const ptx::Reg* guard = hi ? rows_ok_hi : rows_ok_lo;
    if (guard) ptx::if_(*guard, [&] { half(hi); });
    else half(hi);
  }
}

// The thread's position in its warpgroup's accumulator block: row (t/32) * 16 + (t%32)/4 and
// column 2 (t%4), from t = the thread in its warpgroup.
inline std::pair<ptx::Reg, ptx::Reg> fragment_origin(const ptx::Reg& t) {
  ptx::Reg warp = t >> 5;
  ptx::Reg lane = t & 31u;
  ptx::Reg row = warp << 4;
  ptx::Reg g = lane >> 2;
  row += g;
  ptx::Reg q = lane & 3u;
  ptx::Reg col = q << 1;
  return {std::move(row), std::move(col)};
}

inline Consumer Consumer::setup(const ptx::Reg& ct, const ptx::Reg& sa, const ptx::Reg& sb) {
  using namespace ptx::types;
  namespace hop = ptx::hopper;
  ptx::Reg wg = ct >> 7;
  ptx::Reg tw = ct & 127u;
  ptx::Reg lane0 = ct & 31u;
  ptx::Reg leader = lane0 == 0u;
  ptx::Reg a_rows = wg << 13;  // 64 rows x 128 bytes
  ptx::Reg sa_wg = sa + a_rows;
  const hop::MatrixDescriptor layout = hop::k_major(0, hop::DescSwizzle::B128, 1024);
  ptx::Reg da = hop::make_descriptor(sa_wg, layout);
  ptx::Reg db = hop::make_descriptor(sb, layout);
  ptx::Reg accumulate = tw == tw;
  ptx::Reg overwrite = tw != tw;
  ptx::RegArray acc(f32, kGemm90TileN / 2, "acc");
  auto [frow, fcol] = fragment_origin(tw);
  ptx::Reg wg64 = wg << 6;
  frow += wg64;
  return Consumer{std::move(leader), std::move(da), std::move(db), std::move(accumulate), std::move(overwrite),
                  std::move(acc), std::move(frow), std::move(fcol)};
}

}  // namespace sm90

inline int64_t gemm_sm90_tiles(int64_t M, int64_t N) { return (M / kGemm90TileM) * (N / kGemm90TileN); }

// grid.x = min(SMS, tiles): no CTA without a tile.
inline ptx::Dim3 gemm_sm90_persistent_grid(const ptx::Bindings& b) {
  const auto sms = b.find("SMS");
  const int64_t ctas = std::min<int64_t>(sms == b.end() ? kGemm90DefaultSms : sms->second, gemm_sm90_tiles(b.at("M"), b.at("N")));
  return ptx::Dim3(static_cast<uint32_t>(std::max<int64_t>(ctas, 1)));
}

// The persistent GEMM: tensor maps as gemm_sm90_tensor_maps(dev, a, b, M, N, K) makes
// them; C of `out` (f32 or bf16), M x N. group_m: the rasterization's band height in tiles.
inline ptx::Kernel gemm_sm90_persistent(const std::string& arch, ptx::DType out = ptx::types::f32,
                                        int group_m = kGemm90GroupM) {
  using namespace ptx::types;
  namespace inst = ptx::inst;
  if (out != f32 && out != bf16)
    throw ptx::Error("gemm_sm90_persistent: C is f32 or bf16", ptx::SourceLocation::current());
  if (group_m < 1) throw ptx::Error("gemm_sm90_persistent: group_m must be at least 1", ptx::SourceLocation::current());
  return ptx::kernel(out == f32 ? "gemm_sm90_persistent" : "gemm_sm90_persistent_bf16")
      .tensor_map("a")
      .tensor_map("b")
      .out(ptx::tensor(out, {"M", "N"}))
      .block(384)
      .maxntid(ptx::Dim3(384))
      .grid(gemm_sm90_persistent_grid)
      .arch(arch)
      .body([out, group_m](ptx::TensorMapParam a, ptx::TensorMapParam b, ptx::Tensor c) {
        const int64_t M = c.dim(0), N = c.dim(1), K = a.bound("K");
        if (M % kGemm90TileM != 0 || N % kGemm90TileN != 0 || K % kGemm90TileK != 0 || K <= 0 || M <= 0 || N <= 0)
          throw ptx::Error("gemm_sm90_persistent: M must be a multiple of 128, N of 256 and K a positive multiple of 64 (the CTA tile); got M=" +
                               std::to_string(M) + ", N=" + std::to_string(N) + ", K=" + std::to_string(K),
                           ptx::SourceLocation::current());
        const int64_t esize = out == f32 ? 4 : 2;
        if (M * N * esize >= (int64_t{1} << 32))
          throw ptx::Error("gemm_sm90_persistent: C must be under 4 GiB (32-bit offsets)", ptx::SourceLocation::current());
        constexpr int S = kGemm90Stages;
        const int64_t kt_total = K / kGemm90TileK;
        const int64_t tm = M / kGemm90TileM, tn = N / kGemm90TileN, tiles = tm * tn;
        const int64_t band = static_cast<int64_t>(group_m) * tn;

        const sm90::Cta cta = sm90::Cta::setup();
        const ptx::Reg &tid = cta.tid, &sa = cta.sa, &sb = cta.sb, &bars = cta.bars, &nct = cta.nct;

        // Tile t -> (m0, n0) in elements: the grouped rasterization above.
        auto tile_origin = [&](const ptx::Reg& t) {
          ptx::Reg bi = t / static_cast<uint32_t>(band);
          ptx::Reg first = bi * static_cast<uint32_t>(group_m);
          ptx::Reg in_band = t % static_cast<uint32_t>(band);
          ptx::Reg left = static_cast<uint32_t>(tm) - first;
          ptx::Reg rows(u32);
          inst::min.u32(rows, left, static_cast<uint32_t>(group_m));
          ptx::Reg mt = in_band % rows;
          mt += first;
          ptx::Reg nt = in_band / rows;
          ptx::Reg m0 = mt << 7;
          ptx::Reg n0 = nt << 8;
          return std::pair<ptx::Reg, ptx::Reg>(std::move(m0), std::move(n0));
        };

        // ---- producer: warpgroup 0, its warp 0 (ptx::hopper::warp_specialize) ----
        auto producer = [&] {
          ptx::Reg map_a = a.generic_address();
          ptx::Reg map_b = b.generic_address();
          ptx::Reg elected = ptx::warp::elect_one();
          sm90::RingState st(bars, S, 1);
          ptx::Reg t = ptx::read(ptx::special::ctaid.x(), u32);
          ptx::while_([&] { return t < static_cast<uint32_t>(tiles); },
                      [&] {
                        auto [m0, n0] = tile_origin(t);
                        sm90::produce_tile(st, sa, sb, map_a, map_b, m0, n0, elected, kt_total);
                        t += nct;
                      });
        };

        // ---- consumers: warpgroups 1 and 2 ----
        auto consumers = [&](const ptx::Reg& ct) {
          const sm90::Consumer cs = sm90::Consumer::setup(ct, sa, sb);
          ptx::Reg pc = c.global_ptr();
          sm90::RingState st(bars, S, 0);
          ptx::Reg t = ptx::read(ptx::special::ctaid.x(), u32);
          ptx::while_([&] { return t < static_cast<uint32_t>(tiles); },
                      [&] {
                        sm90::consume_tile(st, cs.da, cs.db, cs.acc, cs.overwrite, cs.accumulate, cs.leader, kt_total);
                        auto [m0, n0] = tile_origin(t);
                        ptx::Reg row = m0 + cs.frow;
                        ptx::Reg col = n0 + cs.fcol;
                        ptx::Reg off = row * static_cast<uint32_t>(N);
                        off += col;
                        off = off * static_cast<uint32_t>(esize);
                        ptx::Reg cptr = pc + off;
                        sm90::store_accumulators(cs.acc, out, cptr, N);
                        t += nct;
                      });
        };
        ptx::hopper::warp_specialize(tid, {}, producer, consumers);
        ptx::ret();
      });
}

}  // namespace examples
