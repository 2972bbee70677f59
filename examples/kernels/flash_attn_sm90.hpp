// Flash attention forward for Hopper (sm_90a) on TMA, mbarriers and wgmma:
//
//   O = softmax(scale * Q K^T (+ causal mask)) V,   L = logsumexp of each row (optional)
//   Q, K, V, O: bf16 [B, H, S, D] contiguous, read through tensor maps "q", "k", "v"
//   (flash_attn_sm90_tensor_map: dims {D, S, B*H}, boxes of 64 x 128 x 1, 128-byte swizzle);
//   O written with st.global; L: f32 [B, H, S] (natural log, of the scaled scores).
//
// One CTA per (128-row Q tile, head, batch): grid (ceil(S / 128), H, B), 384 threads.
//  * warpgroup 0 is the producer (setmaxnreg.dec 40): one elected lane of its warp 0 loads the
//    Q tile once (its own mbarrier) and then the K and V tiles (128 keys each) into a 4-stage
//    (D = 64) or 3-stage (D = 128) full/empty mbarrier ring (ptx::hopper::Pipeline: its full barriers for K, and one more
//    barrier per stage for V, so that Q K^T starts while V is in flight; D / 64 boxes of each,
//    128-byte swizzle). Warps 1-3 have nothing to do.
//  * warpgroups 1 and 2 are the consumers (setmaxnreg.inc 232), Q rows 0-63 and 64-127 of the
//    tile. Per K/V tile: S = Q K^T with D / 16 wgmma m64n128k16 (bf16, f32 accumulators, both
//    operands K-major from shared memory); the online softmax in registers: each thread holds
//    two rows (g and g + 8 of its warp's 16) x 32 columns of S in the accumulator fragment, so
//    a row's max is the thread's max over its 32 values (a pairwise tree) then two shfl.bfly
//    (1, 2) across the quad of lanes owning the row; p = ex2.approx((s - m) * scale * log2 e) as one fma with the
//    scale folded in the log2 domain; O and the thread's partial row sum l are rescaled by
//    ex2((m_old - m_new) * scale * log2 e); P is converted pairwise to bf16x2 (cvt.rn.bf16x2.f32)
//    which *is* the register A fragment of the next wgmma, and O += P V is 8 wgmma m64nDk16
//    with A from registers and V MN-major from shared memory (trans-b = 1).
//    The softmax overlaps the tensor cores: for tile j, Q K_j^T and P_{j-1} V_{j-1} are issued
//    as two wgmma groups back to back; wait_group 1 (Q K_j^T done) lets the softmax of tile j
//    run while P_{j-1} V_{j-1} still does; wait_group 0 then releases stage j - 1 (lane 0 of
//    each consumer warp arrives on its empty barrier), and O is rescaled and P_j packed into
//    the registers P V just read. The last P V follows the loop.
//  * Tiles are visited from the last one down: the first tile is the only one that needs a
//    mask, and it is peeled. Causal: the diagonal tile (key tile = Q tile, since both are 128)
//    is masked per element (key > query -> -inf) and the tiles above the diagonal are never
//    loaded; CTAs with the most tiles are launched first (Q tile = gridDim.x - 1 - ctaid.x).
//    Non-causal: when S % 128 != 0 the last K/V tile is partial and its keys >= S are masked
//    (TMA fills the rows past S with zeros, so V's padding is 0 and P there is 0). The other
//    tiles run in a run-time loop of one round of the ring, then the 0 to stages - 1 left; every processed tile has at least one unmasked key per row, so m is finite
//    after the first tile and no -inf - -inf appears.
//  * Ping-pong (FlashAttnSm90Options::pingpong, off by default: not yet measured on a GPU): the
//    two consumer warpgroups also take turns at the tensor cores, so that one issues its wgmma
//    groups while the other runs its softmax (FlashAttention-3's inter-warpgroup schedule, on top
//    of the overlap above). A turn is one step: the peeled first tile's Q K^T, a later tile's
//    Q K_j^T + P_{j-1} V_{j-1}, or the last P V. Before the wgmmas of a step warpgroup w waits on
//    its own named barrier (bar.sync kFlashPingpongBarrier + w), after issuing them it arrives on
//    the other's (bar.arrive), kFlashPingpongThreads = 256 each: its 128 threads waiting plus the
//    other warpgroup's 128 arriving. Warpgroup 2 arrives once on warpgroup 1's barrier at the
//    start (warpgroup 1 goes first) and not after its last step, so each arrival meets exactly
//    one bar.sync and no barrier has arrivals pending at exit. Both warpgroups take the same
//    steps (they share the Q tile's K/V tiles, causal or not; every path out of the leftover
//    tiles ends with the last P V). Deadlock-free: warpgroup 1's k-th wait needs warpgroup 2's
//    (k-1)-th arrival (the first: the one at the start), warpgroup 2's k-th wait needs warpgroup
//    1's k-th, and a barrier never holds arrivals of two turns; nor does the ring close a cycle:
//    tile k + stages reuses tile k's stage, which each warpgroup releases in its step k + 1, and
//    a warpgroup waiting for that tile (in its step k + stages >= k + 2) has already let the
//    other into its step k + 1 (stages >= 2 suffice).
//    The barrier ids are registers (wg + 1, 2 - wg: no branch before the wgmmas), so ptxas
//    reserves all 16 barriers; one CTA fits on an SM anyway (its shared memory).
//  * Epilogue: l summed over the quad (two shfl.bfly), O / l converted to bf16x2 and stored
//    with st.global.b32, rows >= S left out; L = (m * scale * log2 e + lg2 l) * ln 2.
//
// Constraints (errors otherwise): D is the variant's head dim, 64 or 128; S >= 1 (any S: a
// partial last tile is masked); B and H at most 65535 (grid y and z); O under 4 GiB (32-bit
// offsets); the softmax scale (a run-time f32) must be positive (the row max is taken on the
// unscaled scores). Shared memory: Q 16 KB (D=64) / 32 KB (D=128) plus 4 / 3 stages of K and V
// (32 KB / 64 KB each).
#pragma once

#include <cstdint>
#include <functional>
#include <limits>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include <ptxpp/dsl.hpp>
#include <ptxpp/runtime.hpp>

namespace examples {

inline constexpr int kFlashTile = 128;   // Q rows per CTA = keys per K/V tile
// The K/V ring's stages: 4 for D = 64 (Q 16 KB + 4 x 32 KB), 3 for D = 128 (Q 32 KB + 3 x 64 KB:
// 224 KB of the 227 KB a CTA may have).
inline constexpr int flash_attn_sm90_stages(int head_dim) { return head_dim == 64 ? 4 : 3; }
// Ping-pong's named barriers: consumer warpgroup 1 waits for its turn on 1, warpgroup 2 on 2
// (bar 0 is the CTA-wide bar.sync after the mbarrier inits). Each completes with 256 threads:
// the 128 of the warpgroup waiting (bar.sync) and the 128 of the other one arriving (bar.arrive).
inline constexpr uint32_t kFlashPingpongBarrier = 1;
inline constexpr uint32_t kFlashPingpongThreads = 2 * 128;

// The variants of flash_attn_sm90 (each one a separate kernel).
struct FlashAttnSm90Options {
  bool causal = false;
  bool with_lse = false;  // also write L f32 [B, H, S]
  bool pingpong = false;  // the consumer warpgroups take turns at the tensor cores (named barriers)
};

inline ptx::Dim3 flash_attn_sm90_grid(const ptx::Bindings& b) {
  return ptx::Dim3(static_cast<uint32_t>((b.at("S") + kFlashTile - 1) / kFlashTile), static_cast<uint32_t>(b.at("H")),
                   static_cast<uint32_t>(b.at("B")));
}

// The tensor map of one of Q, K, V (bf16 [B, H, S, D] at `t`): dims {D, S, B*H}, boxes of
// 64 columns x 128 rows of one head, 128-byte swizzle; rows past S read as zeros.
inline ptx::TensorMap flash_attn_sm90_tensor_map(const ptx::Device& dev, ptx::DevicePtr t, int64_t B, int64_t H, int64_t S,
                                                 int64_t D) {
  ptx::TensorMapSpec s;
  s.type = ptx::TmaType::bf16;
  s.dims = {static_cast<uint64_t>(D), static_cast<uint64_t>(S), static_cast<uint64_t>(B * H)};
  s.box = {64, static_cast<uint32_t>(kFlashTile), 1};
  s.swizzle = ptx::TmaSwizzle::b128;
  return ptx::make_tensor_map(dev, t, s);
}

namespace detail {

inline void flash_attn_sm90_body(const ptx::TensorMapParam& q, const ptx::TensorMapParam& k, const ptx::TensorMapParam& v,
                                 const ptx::Tensor& o, const ptx::Tensor* lse, const ptx::Scalar& scale, int head_dim,
                                 bool causal, bool pingpong) {
  using namespace ptx::types;
  namespace inst = ptx::inst;
  namespace hop = ptx::hopper;
  const int64_t B = o.dim(0), H = o.dim(1), S = o.dim(2), D = o.dim(3);
  const std::string name = "flash_attn_sm90 (D=" + std::to_string(head_dim) + ")";
  if (D != head_dim)
    throw ptx::Error(name + ": the head dim D must be " + std::to_string(head_dim) + " for this variant; got D=" + std::to_string(D),
                     ptx::SourceLocation::current());
  if (B < 1 || H < 1 || S < 1)
    throw ptx::Error(name + ": B, H and S must be positive; got B=" + std::to_string(B) + ", H=" + std::to_string(H) +
                         ", S=" + std::to_string(S),
                     ptx::SourceLocation::current());
  if (B > 65535 || H > 65535)
    throw ptx::Error(name + ": B and H must be at most 65535 (grid z and y); got B=" + std::to_string(B) + ", H=" + std::to_string(H),
                     ptx::SourceLocation::current());
  if (S >= ((int64_t{1} << 32) + B * H * D * 2 - 1) / (B * H * D * 2))  // B * H * S * D * 2 bytes, without overflowing
    throw ptx::Error(name + ": O must be under 4 GiB (32-bit offsets)", ptx::SourceLocation::current());
  constexpr int T = kFlashTile;
  const int ST = flash_attn_sm90_stages(head_dim);
  constexpr uint32_t kBox = 128 * 128;                       // one 64-column x 128-row box: 16 KB
  const int halves = static_cast<int>(D / 64);               // boxes per tile
  const uint32_t kQBytes = static_cast<uint32_t>(halves) * kBox;
  const uint32_t kTileBytes = kQBytes;                       // K or V of one stage
  const int64_t n_tiles = (S + T - 1) / T;                   // Q tiles = K/V tiles
  const int64_t s_rem = S - (n_tiles - 1) * T;               // keys in the last K/V tile, 1..128
  const float kLog2e = 1.4426950408889634f, kLn2 = 0.6931471805599453f;
  const float kNegInf = -std::numeric_limits<float>::infinity();

  auto smQ = ptx::smem::alloc(bf16, {halves, T, 64}, 1024, ptx::smem::Swizzle::B128);
  auto smK = ptx::smem::alloc(bf16, {ST, halves, T, 64}, 1024, ptx::smem::Swizzle::B128);
  auto smV = ptx::smem::alloc(bf16, {ST, halves, T, 64}, 1024, ptx::smem::Swizzle::B128);
  // the ring's full (K) and empty barriers, V's full barriers, then Q's
  auto bars = ptx::smem::alloc(b64, {3 * ST + 1}, 8);
  hop::Pipeline pipe(bars, ST);
  auto v_full = [&](int stage) { return hop::Mbarrier(bars.addr(8 * (2 * ST + stage))); };
  const hop::Mbarrier qbar(bars.addr(8 * 3 * ST));

  ptx::Reg tid = ptx::read(ptx::special::tid.x(), u32);
  ptx::Reg bx = ptx::read(ptx::special::ctaid.x(), u32);
  ptx::Reg hy = ptx::read(ptx::special::ctaid.y(), u32);
  ptx::Reg bz = ptx::read(ptx::special::ctaid.z(), u32);
  // causal: the Q tiles with the most K/V tiles first
  ptx::Reg qtile(u32);
  if (causal) inst::sub.u32(qtile, static_cast<uint32_t>(n_tiles - 1), bx);
  else inst::mov.u32(qtile, bx);
  ptx::Reg bh = bz * static_cast<uint32_t>(H);
  bh += hy;
  // the first K/V tile visited; the rest (first_tile of them) go down to tile 0
  ptx::Reg first_tile(u32);
  if (causal) inst::mov.u32(first_tile, qtile);
  else inst::mov.u32(first_tile, static_cast<uint32_t>(n_tiles - 1));
  ptx::Reg is0 = tid == 0u;
  qbar.init(1, &is0);
  for (int st = 0; st < ST; ++st) v_full(st).init(1, &is0);
  pipe.init(1, 8, &is0);  // full: the producer's arrive + the bytes; empty: one arrive per consumer warp
  inst::bar.sync(0);

  // The consumers' V stage at trace time: their P V lags one tile behind Q K^T (below).
  int v_stage = 0;
  // Traces `tile` once per K/V tile after the first: a run-time loop of ST tiles (a round of
  // the ring: the trace-time stage is the same on every iteration), then the 0 to ST - 1 left;
  // then `finish` once on each path out. Causal (a run-time count): the tiles left are nested
  // `if (left > k)`, and `finish` is traced on every path (the trace-time stages differ, the
  // run-time phases are right on each).
  auto rest_tiles = [&](const std::function<void()>& tile, const std::function<void()>& finish) {
    auto round = [&](const ptx::Reg&) {
      for (int u = 0; u < ST; ++u) tile();
    };
    if (causal) {
      ptx::Reg left = first_tile % static_cast<uint32_t>(ST);
      ptx::Reg rounds_end = first_tile - left;
      ptx::loop(0u, rounds_end, ST, round);
      std::function<void(int)> leftover = [&](int done) {  // tiles of the leftover traced so far
        if (done == ST - 1) {
          finish();
          return;
        }
        const int v_here = v_stage;  // both paths start from it, whichever is traced first
        ptx::Reg more = left > static_cast<uint32_t>(done);
        ptx::if_(
            more,
            [&] {
              v_stage = v_here;
              tile();
              leftover(done + 1);
            },
            [&] {
              v_stage = v_here;
              finish();
            });
      };
      leftover(0);
    } else {
      const int64_t n = n_tiles - 1;
      if (n >= ST) ptx::loop(0u, static_cast<uint32_t>(n / ST * ST), ST, round);
      for (int64_t u = 0; u < n % ST; ++u) tile();
      finish();
    }
  };

  // ---- producer: warpgroup 0, its warp 0 (hop::warp_specialize) ----
  auto producer = [&] {
    ptx::Reg map_q = q.generic_address();
    ptx::Reg map_k = k.generic_address();
    ptx::Reg map_v = v.generic_address();
    ptx::Reg elected = ptx::warp::elect_one();
    ptx::Reg q_row = qtile << 7;
    qbar.arrive_expect_tx(kQBytes, &elected);
    for (int h = 0; h < halves; ++h)
      hop::tma_load(smQ.addr(int64_t{h} * kBox), map_q, {64 * h, q_row, bh}, qbar, {.guard = &elected});
    ptx::Reg kv_row = first_tile << 7;
    hop::PipelineState st(pipe, 1);
    auto produce = [&] {
      st.wait_empty();
      // K and V complete separate barriers: Q K^T starts while V is still in flight
      const hop::Mbarrier full = st.full(), vfull = v_full(st.stage());
      full.arrive_expect_tx(kTileBytes, &elected);
      const int64_t stage_off = int64_t{st.stage()} * halves * kBox;
      for (int h = 0; h < halves; ++h)
        hop::tma_load(smK.addr(stage_off + int64_t{h} * kBox), map_k, {64 * h, kv_row, bh}, full, {.guard = &elected});
      vfull.arrive_expect_tx(kTileBytes, &elected);
      for (int h = 0; h < halves; ++h)
        hop::tma_load(smV.addr(stage_off + int64_t{h} * kBox), map_v, {64 * h, kv_row, bh}, vfull, {.guard = &elected});
      kv_row -= 128u;
      st.advance();
    };
    produce();
    rest_tiles(produce, [] {});
  };

  // ---- consumers: warpgroups 1 and 2 ----
  auto consumers = [&](const ptx::Reg& ct) {  // ct = tid - 128: 0..255
    ptx::Reg wg = ct >> 7;         // rows 64 * wg of the Q tile
    ptx::Reg t = ct & 127u;        // the thread in its warpgroup
    ptx::Reg warp = t >> 5;
    ptx::Reg lane = t & 31u;
    ptx::Reg g = lane >> 2;        // rows g and g + 8 of the warp's 16
    ptx::Reg tq = lane & 3u;       // columns 2 tq, 2 tq + 1 of each 8
    ptx::Reg two_t = tq << 1;
    ptx::Reg leader = lane == 0u;
    ptx::Reg yes = t == t;         // scale-d: D += A * B
    ptx::Reg no = t != t;          // scale-d: D = A * B
    // Ping-pong: this warpgroup's barrier and the other's (kFlashPingpongBarrier + wg, + 1 - wg).
    // Warpgroup 2's arrival here stands for the turn before warpgroup 1's first.
    std::optional<ptx::Reg> my_turn, their_turn;
    if (pingpong) {
      my_turn.emplace(wg + kFlashPingpongBarrier);
      their_turn.emplace(u32);
      inst::sub.u32(*their_turn, kFlashPingpongBarrier + 1, wg);
      ptx::Reg second_wg = wg == 1u;
      inst::bar.arrive[second_wg](kFlashPingpongBarrier, kFlashPingpongThreads);
    }
    // Before a step's wgmmas (after its mbarrier waits: no branch between the fence and the
    // wgmmas) and after issuing them.
    auto take_turn = [&] {
      if (pingpong) inst::bar.sync(*my_turn, kFlashPingpongThreads);
    };
    auto pass_turn = [&] {
      if (pingpong) inst::bar.arrive(*their_turn, kFlashPingpongThreads);
    };
    ptx::Reg sc = scale.load();
    ptx::Reg sl2 = sc * kLog2e;    // the scale in the log2 domain
    ptx::Reg neg_sl2 = -sl2;
    ptx::Reg sq = smQ.base();
    ptx::Reg q_wg = wg << 13;      // 64 rows x 128 bytes
    ptx::Reg sq_wg = sq + q_wg;
    // K's and V's addresses from Q's (the emulator does not read `mov.u32 r, dyn_smem+OFF`)
    ptx::Reg sk = sq + static_cast<uint32_t>(smK.offset() - smQ.offset());
    ptx::Reg sv = sq + static_cast<uint32_t>(smV.offset() - smQ.offset());
    const hop::MatrixDescriptor kmaj = hop::k_major(0, hop::DescSwizzle::B128, 1024);
    // V [key][d]: MN-major (d contiguous); atoms of 8 keys x 64 d, 1024 bytes apart along the
    // keys (SBO), the second 64 columns (D = 128) one box further (LBO)
    const hop::MatrixDescriptor vmaj = hop::mn_major(0, hop::DescSwizzle::B128, kBox, 1024);
    ptx::Reg dq = hop::make_descriptor(sq_wg, kmaj);
    ptx::Reg dk = hop::make_descriptor(sk, kmaj);
    ptx::Reg dv = hop::make_descriptor(sv, vmaj);
    // causal: element (row, col) of the diagonal tile is masked when col > row, i.e. when
    // c(i) = 8 (i/4) + i%2 - 8 ((i/2)%2) > diag = 64 wg + 16 warp + g - 2 tq
    std::optional<ptx::Reg> diag;
    if (causal) {
      ptx::Reg r64 = wg << 6;
      ptx::Reg r16 = warp << 4;
      r64 += r16;
      r64 += g;
      diag.emplace(s32);
      inst::sub.s32(*diag, r64, two_t);
    }

    ptx::RegArray s(f32, 64, "s");                            // S / P of one 64 x 128 tile
    ptx::RegArray oacc(f32, static_cast<uint32_t>(D / 2), "o");  // O, 64 x D
    ptx::RegArray pa(b32, 32, "pa");                          // P in bf16: the A fragments of P V
    ptx::RegArray m(f32, 2, "m"), l(f32, 2, "l");            // per row: running max, partial sum
    for (auto& r : oacc) inst::mov.f32(r, 0.0f);
    qbar.wait(0);
    hop::PipelineState st(pipe, 0);

    // V's side of the ring lags one tile behind K's (P V of tile j - 1 runs while tile j's
    // softmax does): its stage at trace time (v_stage), its phase parity a run-time register.
    ptx::Reg v_phase(b32);
    inst::mov.b32(v_phase, 0);
    auto v_advance = [&] {
      if (++v_stage == ST) {
        v_stage = 0;
        inst::xor_.b32(v_phase, v_phase, 1);
      }
    };

    // S = Q K^T of the tile in K's current stage, as one wgmma group (no wait).
    auto issue_qk = [&] {
      const int64_t stage_off = int64_t{st.stage()} * halves * kBox;
      for (int ks = 0; ks < D / 16; ++ks) {
        const int64_t off = int64_t{ks / 4} * kBox + (ks % 4) * 32;
        ptx::Reg dqk = dq + off / 16;
        ptx::Reg dkk = dk + (stage_off + off) / 16;
        const ptx::Reg& accumulate = ks == 0 ? no : yes;
        hop::mma_async(T, bf16, s, 0, dqk, dkk, accumulate);
      }
      hop::wgmma_commit();
    };
    // O += P V with the P in `pa` and the V in V's current stage (wait_v first), as one wgmma
    // group (no wait).
    auto wait_v = [&] { v_full(v_stage).wait(v_phase); };
    auto issue_pv = [&] {
      const int64_t stage_off = int64_t{v_stage} * halves * kBox;
      for (int kk = 0; kk < T / 16; ++kk) {
        ptx::Reg dvk = dv + (stage_off + kk * 16 * 128) / 16;  // 16 keys x 128 bytes further
        hop::mma_async(static_cast<int>(D), bf16, oacc, 0, pa, 4 * kk, dvk, yes, 1);
      }
      hop::wgmma_commit();
    };
    // After P V completed: the stage goes back to the producer.
    auto release_v = [&] {
      pipe.empty(v_stage).arrive(&leader);
      v_advance();
    };
    // The masks of the first tile visited: the causal diagonal or the keys past S.
    auto apply_mask = [&] {
      if (causal) {
        std::map<int, ptx::Reg> above;  // c -> (c > diag), one setp per distinct c
        for (int i = 0; i < 64; ++i) {
          const int c = 8 * (i / 4) + i % 2 - 8 * ((i / 2) % 2);
          auto it = above.find(c);
          if (it == above.end()) {
            ptx::Reg p(pred);
            inst::setp.lt.s32(p, *diag, c);
            it = above.emplace(c, std::move(p)).first;
          }
          inst::mov.f32[it->second](s[static_cast<size_t>(i)], kNegInf);
        }
      } else if (s_rem < T) {
        std::map<int64_t, ptx::Reg> past;  // lim -> (2 tq >= lim): column 2 tq + c(i) is a key past S
        for (int i = 0; i < 64; ++i) {
          const int64_t lim = s_rem - (8 * (i / 4) + i % 2);
          if (lim > 6) continue;  // 2 tq <= 6: never past S
          if (lim <= 0) {
            inst::mov.f32(s[static_cast<size_t>(i)], kNegInf);
            continue;
          }
          auto it = past.find(lim);
          if (it == past.end()) {
            ptx::Reg p(pred);
            inst::setp.ge.u32(p, two_t, static_cast<uint32_t>(lim));
            it = past.emplace(lim, std::move(p)).first;
          }
          inst::mov.f32[it->second](s[static_cast<size_t>(i)], kNegInf);
        }
      }
    };
    // The max or sum of the S registers `idx` as a pairwise tree (depth 5 for 32 values rather
    // than a chain of 31 dependent instructions; ptxas does not reassociate float math).
    auto reduce_tree = [&](const std::vector<size_t>& idx, bool is_max) {
      auto combine = [&](const ptx::Reg& a, const ptx::Reg& b) {
        ptx::Reg r(f32);
        if (is_max) inst::max.f32(r, a, b);
        else inst::add.rn.f32(r, a, b);
        return r;
      };
      std::vector<ptx::Reg> level;
      for (size_t j = 0; j + 1 < idx.size(); j += 2) level.push_back(combine(s[idx[j]], s[idx[j + 1]]));
      while (level.size() > 1) {
        std::vector<ptx::Reg> next;
        for (size_t j = 0; j + 1 < level.size(); j += 2) next.push_back(combine(level[j], level[j + 1]));
        level = std::move(next);  // (sizes are powers of two: 32 values)
      }
      return std::move(level.front());
    };
    // The online softmax of S in place (P, f32); m and l updated. Not first: returns, per row,
    // the factor O must be rescaled by (ex2((m_old - m_new) * scale * log2 e)).
    auto softmax = [&](bool first) {
      std::vector<ptx::Reg> corrs;
      for (int r = 0; r < 2; ++r) {  // registers i with (i/2)%2 == r
        std::vector<size_t> idx;
        for (size_t i = static_cast<size_t>(2 * r); i < 64; i += 4) idx.insert(idx.end(), {i, i + 1});
        ptx::Reg mx = reduce_tree(idx, true);
        for (int lanes : {1, 2}) {  // the quad of lanes that hold the row
          ptx::Reg other(f32);
          inst::shfl.sync.bfly.b32(other, mx, lanes, 0x1f, 0xffffffffu);
          inst::max.f32(mx, mx, other);
        }
        const size_t ri = static_cast<size_t>(r);
        if (first) {
          inst::mov.f32(m[ri], mx);
        } else {
          inst::max.f32(mx, mx, m[ri]);
          ptx::Reg e = m[ri] - mx;  // m_old - m_new <= 0
          e = e * sl2;
          corrs.emplace_back(f32);
          inst::ex2.approx.ftz.f32(corrs.back(), e);
          inst::mov.f32(m[ri], mx);
        }
        ptx::Reg neg_ms = mx * neg_sl2;
        for (size_t i : idx) {
          inst::fma.rn.f32(s[i], s[i], sl2, neg_ms);
          inst::ex2.approx.ftz.f32(s[i], s[i]);
        }
        ptx::Reg sum = reduce_tree(idx, false);
        if (first) inst::mov.f32(l[ri], sum);
        else inst::fma.rn.f32(l[ri], l[ri], corrs.back(), sum);
      }
      return corrs;
    };
    // P -> bf16 A fragments: register j of k step kk packs columns 8 (j/2) + 2 tq (+1) of keys 16 kk..
    auto pack_p = [&] {
      for (size_t j = 0; j < 32; ++j) inst::cvt.rn.bf16x2.f32(pa[j], s[2 * j + 1], s[2 * j]);
    };

    // The first tile visited: Q K^T, the mask, the softmax that starts m and l, P.
    st.wait_full();
    take_turn();
    hop::wgmma_fence();
    issue_qk();
    pass_turn();
    hop::wgmma_wait(0);
    apply_mask();
    (void)softmax(true);
    pack_p();
    st.advance();
    // Every other tile j: Q K_j^T and P_{j-1} V_{j-1} are issued back to back; once Q K_j^T is
    // done (wait_group 1) the softmax of tile j runs while P V still does; then (wait_group 0)
    // stage j - 1 is released, O rescaled and P_j packed into the registers P V just read.
    // (Both waits come before the fence: ptxas wants no branch between the fence and the wgmmas,
    // or it injects its own warpgroup.arrive.)
    auto tile = [&] {
      st.wait_full();
      wait_v();            // V_{j-1} landed with K_{j-1}: no wait in practice
      take_turn();
      hop::wgmma_fence();  // O and pa were written since the last wgmma
      issue_qk();
      issue_pv();
      pass_turn();
      hop::wgmma_wait(1);
      const std::vector<ptx::Reg> corr = softmax(false);
      hop::wgmma_wait(0);
      release_v();
      for (size_t j = 0; j < oacc.size(); ++j) inst::mul.rn.f32(oacc[j], oacc[j], corr[(j / 2) % 2]);
      pack_p();
      st.advance();
    };
    // The last P V, once per path out of rest_tiles (the trace-time stage of V differs).
    // Ping-pong: the last step; only warpgroup 1 passes the turn (to warpgroup 2's last step).
    auto last_pv = [&] {
      std::optional<ptx::Reg> first_wg;
      if (pingpong) first_wg.emplace(wg == 0u);
      wait_v();
      take_turn();
      hop::wgmma_fence();
      issue_pv();
      if (pingpong) inst::bar.arrive[*first_wg](*their_turn, kFlashPingpongThreads);
      hop::wgmma_wait(0);
      release_v();
    };
    rest_tiles(tile, last_pv);

    // ---- epilogue: O / l in bf16, rows past S left out; L ----
    ptx::Reg po = o.global_ptr();
    ptx::Reg row0 = qtile << 7;
    ptx::Reg r64 = wg << 6;
    row0 += r64;
    ptx::Reg r16 = warp << 4;
    row0 += r16;
    row0 += g;
    ptx::Reg head_row = bh * static_cast<uint32_t>(S);
    std::optional<ptx::Reg> pl;
    if (lse) pl.emplace(lse->global_ptr());
    ptx::Reg lead_col = tq == 0u;
    for (int r = 0; r < 2; ++r) {
      const size_t ri = static_cast<size_t>(r);
      for (int lanes : {1, 2}) {
        ptx::Reg other(f32);
        inst::shfl.sync.bfly.b32(other, l[ri], lanes, 0x1f, 0xffffffffu);
        inst::add.rn.f32(l[ri], l[ri], other);
      }
      ptx::Reg inv(f32);
      inst::rcp.rn.f32(inv, l[ri]);
      ptx::Reg row = row0 + static_cast<uint32_t>(8 * r);
      ptx::Reg valid = row < static_cast<uint32_t>(S);
      ptx::Reg grow = head_row + row;   // the row in [B*H*S]
      ptx::Reg off = grow * static_cast<uint32_t>(D * 2);
      ptx::Reg col_b = tq << 2;         // 2 tq columns x 2 bytes
      off += col_b;
      ptx::Reg prow = po + off;
      for (size_t j = 2 * ri; j < oacc.size(); j += 4) {
        ptx::Reg lo = oacc[j] * inv;
        ptx::Reg hi = oacc[j + 1] * inv;
        ptx::Reg w(b32);
        inst::cvt.rn.bf16x2.f32(w, hi, lo);
        inst::st.global.b32[valid](ptx::addr(prow, static_cast<int64_t>(j / 4) * 16), w);
      }
      if (lse) {
        ptx::Reg lg(f32);
        inst::lg2.approx.ftz.f32(lg, l[ri]);
        ptx::Reg x(f32);
        inst::fma.rn.f32(x, m[ri], sl2, lg);
        ptx::Reg val = x * kLn2;
        ptx::Reg store = valid & lead_col;
        ptx::Reg loff = grow << 2;
        ptx::Reg pli = *pl + loff;
        inst::st.global.f32[store](ptx::addr(pli), val);
      }
    }
  };
  hop::warp_specialize(tid, {}, producer, consumers);
  ptx::ret();
}

}  // namespace detail

// The kernel for one head dim (64 or 128) and the variant in `opt`. Parameters: tensor maps q,
// k, v; O bf16 [B, H, S, D]; (L f32 [B, H, S] with with_lse); scale (f32, > 0).
inline ptx::Kernel flash_attn_sm90(const std::string& arch, int head_dim, const FlashAttnSm90Options& opt) {
  using namespace ptx::types;
  if (head_dim != 64 && head_dim != 128)
    throw ptx::Error("flash_attn_sm90: the head dim is 64 or 128, not " + std::to_string(head_dim), ptx::SourceLocation::current());
  ptx::Kernel k = ptx::kernel("flash_attn_sm90_d" + std::to_string(head_dim) + (opt.causal ? "_causal" : "") +
                              (opt.with_lse ? "_lse" : "") + (opt.pingpong ? "_pingpong" : ""));
  k.tensor_map("q").tensor_map("k").tensor_map("v").out(ptx::tensor(bf16, {"B", "H", "S", "D"}));
  if (opt.with_lse) k.out(ptx::tensor(f32, {"B", "H", "S"}));
  k.scalar("scale", f32)
      .block(384)
      .maxntid(ptx::Dim3(384))  // 168 registers a thread at launch; setmaxnreg: 128 x 40 + 256 x 232
      .grid(flash_attn_sm90_grid)
      .arch(arch);
  const bool causal = opt.causal, pingpong = opt.pingpong;
  if (opt.with_lse)
    return k.body([head_dim, causal, pingpong](ptx::TensorMapParam q, ptx::TensorMapParam kk, ptx::TensorMapParam v, ptx::Tensor o,
                                               ptx::Tensor l, ptx::Scalar scale) {
      detail::flash_attn_sm90_body(q, kk, v, o, &l, scale, head_dim, causal, pingpong);
    });
  return k.body([head_dim, causal, pingpong](ptx::TensorMapParam q, ptx::TensorMapParam kk, ptx::TensorMapParam v, ptx::Tensor o,
                                             ptx::Scalar scale) {
    detail::flash_attn_sm90_body(q, kk, v, o, nullptr, scale, head_dim, causal, pingpong);
  });
}

// The same without ping-pong, the variant named by its flags.
inline ptx::Kernel flash_attn_sm90(const std::string& arch, int head_dim, bool causal, bool with_lse = false) {
  return flash_attn_sm90(arch, head_dim, FlashAttnSm90Options{.causal = causal, .with_lse = with_lse});
}

}  // namespace examples
