// A grouped bf16 GEMM for Blackwell (sm_100a): G independent problems C_g = A_g * B_g^T of
// different M, N, K in one launch, on the pipeline of gemm_sm100 (TMA, a 4-stage mbarrier ring,
// one elected thread issuing tcgen05.mma.cta_group::1 M 128 N 256 into tensor memory,
// tcgen05.commit, a tcgen05.ld epilogue; f32 C).
//
// Parameters (made by gemm_sm100_grouped_args):
//   maps:     G x 256 bytes: group g's tensor maps for A_g (bytes 0-127) and B_g (128-255), in
//             global memory (TMA reads a descriptor at its generic address there too)
//   problems: G x 8 u32: M, N, K, the group's first tile, C's address (low, high word), 0, 0
// The grid is one CTA per 128 x 256 tile of every problem ("T" tiles in all), in group order:
// a CTA finds its group by comparing its tile number with each group's first tile (G
// ld.global + setp + selp, G a trace-time value), then its tile in the group (row-major over
// N / 256 columns of tiles). Simplification (documented): each group's M is a multiple of 128,
// N of 256 and K of 256 (= 4 stages x 64), so the K loops are run-time loops of whole rounds of
// the ring and stage indices stay trace-time values; the grouped args refuse other shapes.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include <ptxpp/dsl.hpp>
#include <ptxpp/runtime.hpp>

#include "gemm_sm100.hpp"

namespace examples {

// One problem: A (M x K), B (N x K) bf16 row-major, C (M x N) f32 row-major, on the device.
struct GemmGroup {
  int64_t M = 0, N = 0, K = 0;
  ptx::DevicePtr a, b, c;
};

// The grouped kernel's arguments: the maps and problems buffers (on `dev`; free them after the
// launch), the number of groups and of tiles (bind "G" and "T").
struct GemmGroupedArgs {
  ptx::DevicePtr maps, problems;
  int64_t groups = 0, tiles = 0;
};

inline GemmGroupedArgs gemm_sm100_grouped_args(const ptx::Device& dev, const std::vector<GemmGroup>& groups) {
  if (groups.empty()) throw ptx::Error("gemm_sm100_grouped: no groups", ptx::SourceLocation::current());
  GemmGroupedArgs r;
  r.groups = static_cast<int64_t>(groups.size());
  std::vector<uint8_t> maps(groups.size() * 256);
  std::vector<uint32_t> problems(groups.size() * 8);
  for (size_t g = 0; g < groups.size(); ++g) {
    const GemmGroup& p = groups[g];
    if (p.M <= 0 || p.N <= 0 || p.K <= 0 || p.M % 128 != 0 || p.N % 256 != 0 || p.K % 256 != 0 || p.M * p.N * 4 >= (int64_t{1} << 32))
      throw ptx::Error("gemm_sm100_grouped: group " + std::to_string(g) +
                           ": M must be a multiple of 128, N of 256 and K of 256 (C under 4 GiB); got M=" + std::to_string(p.M) +
                           ", N=" + std::to_string(p.N) + ", K=" + std::to_string(p.K),
                       ptx::SourceLocation::current());
    const auto m = gemm_sm100_tensor_maps(dev, p.a, p.b, p.M, p.N, p.K);
    std::copy(m.first.bytes.begin(), m.first.bytes.end(), maps.begin() + static_cast<std::ptrdiff_t>(g * 256));
    std::copy(m.second.bytes.begin(), m.second.bytes.end(), maps.begin() + static_cast<std::ptrdiff_t>(g * 256 + 128));
    uint32_t* w = problems.data() + g * 8;
    w[0] = static_cast<uint32_t>(p.M);
    w[1] = static_cast<uint32_t>(p.N);
    w[2] = static_cast<uint32_t>(p.K);
    w[3] = static_cast<uint32_t>(r.tiles);
    w[4] = static_cast<uint32_t>(p.c.address);
    w[5] = static_cast<uint32_t>(p.c.address >> 32);
    r.tiles += (p.M / 128) * (p.N / 256);
  }
  r.maps = dev.alloc(maps.size(), "grouped maps");
  r.problems = dev.alloc(problems.size() * 4, "grouped problems");
  dev.copy_to_device(r.maps, maps.data(), maps.size());
  dev.copy_to_device(r.problems, problems.data(), problems.size() * 4);
  return r;
}

inline ptx::Kernel gemm_sm100_grouped(const std::string& arch) {
  using namespace ptx::types;
  namespace inst = ptx::inst;
  return ptx::kernel("gemm_sm100_grouped")
      .in(ptx::tensor(u8, {"G", 256}))
      .in(ptx::tensor(u32, {"G", 8}))
      .block(192)
      .maxntid(ptx::Dim3(192))
      .grid([](const ptx::Bindings& b) { return ptx::Dim3(static_cast<uint32_t>(b.at("T"))); })
      .arch(arch)
      .body([](ptx::Tensor maps, ptx::Tensor problems) {
        namespace hop = ptx::hopper;
        namespace bw = ptx::blackwell;
        const int64_t G = problems.dim(0);
        if (G < 1 || G > 64)
          throw ptx::Error("gemm_sm100_grouped: 1 to 64 groups, not " + std::to_string(G), ptx::SourceLocation::current());
        constexpr int S = kGemm100Stages;
        constexpr uint32_t kCols = 256, kABytes = 128 * 64 * 2, kBBytes = 256 * 64 * 2;

        auto smA = ptx::smem::alloc(bf16, {S, 128, 64}, 1024, ptx::smem::Swizzle::B128);
        auto smB = ptx::smem::alloc(bf16, {S, 256, 64}, 1024, ptx::smem::Swizzle::B128);
        auto bars = ptx::smem::alloc(b64, {2 * S + 1}, 8);
        auto slot = ptx::smem::alloc(u32, {1}, 16);
        hop::Pipeline pipe(bars, S);
        const hop::Mbarrier accum(bars.addr(8 * 2 * S));

        ptx::Reg tid = ptx::read(ptx::special::tid.x(), u32);
        ptx::Reg warp = tid >> 5;
        ptx::Reg tile = ptx::read(ptx::special::ctaid.x(), u32);
        // ---- this CTA's group: the last whose first tile is <= ours ----
        ptx::Reg prob = problems.global_ptr();
        ptx::Reg sel(u32);
        inst::mov.u32(sel, 0u);
        for (int64_t g = 1; g < G; ++g) {
          ptx::Reg first(u32);
          inst::ld.global.u32(first, ptx::addr(prob, g * 32 + 12));
          ptx::Reg ge = tile >= first;
          inst::selp.u32(sel, static_cast<uint32_t>(g), sel, ge);
        }
        ptx::Reg poff = sel << 5;
        ptx::Reg pg = prob + poff;
        ptx::Reg N(u32), K(u32), first(u32), c_addr(u64);
        inst::ld.global.u32(N, ptx::addr(pg, 4));
        inst::ld.global.u32(K, ptx::addr(pg, 8));
        inst::ld.global.u32(first, ptx::addr(pg, 12));
        inst::ld.global.u64(c_addr, ptx::addr(pg, 16));
        ptx::Reg lt = tile - first;
        ptx::Reg tiles_n = N >> 8;
        ptx::Reg tm = lt / tiles_n;
        ptx::Reg tn_full = tm * tiles_n;
        ptx::Reg tn = lt - tn_full;
        ptx::Reg m0 = tm << 7;
        ptx::Reg n0 = tn << 8;
        ptx::Reg rounds = K >> 8;  // K / (4 stages x 64)

        ptx::Reg is0 = tid == 0u;
        accum.init(1, &is0);
        pipe.init(1, 1, &is0);
        ptx::Reg is_warp0 = warp == 0u;
        ptx::if_(is_warp0, [&] {
          bw::tmem_alloc(slot.addr(0), kCols);
          bw::tmem_relinquish_alloc_permit();
        });
        bw::fence_before_thread_sync();
        inst::bar.sync(0);
        bw::fence_after_thread_sync();
        ptx::Reg tmem(b32);
        inst::ld.shared.b32(tmem, slot.addr(0));
        ptx::Reg sa = smA.base();

        // ---- producer: warp 4 (the group's tensor maps, from global memory) ----
        ptx::Reg is_producer = warp == 4u;
        ptx::if_(is_producer, [&] {
          ptx::Reg elected = ptx::warp::elect_one();
          ptx::if_(elected, [&] {
            ptx::Reg mp = maps.ptr();  // generic: TMA takes the descriptor's generic address
            ptx::Reg moff = sel << 8;
            ptx::Reg map_a = mp + moff;
            ptx::Reg map_b = map_a + 128;
            ptx::Reg kc(u32);
            inst::mov.u32(kc, 0u);
            hop::PipelineState st(pipe, 1);
            ptx::loop(0u, rounds, 1, [&](const ptx::Reg&) {
              for (int u = 0; u < S; ++u) {
                st.wait_empty();
                st.full().arrive_expect_tx(kABytes + kBBytes);
                hop::tma_load(smA.addr(static_cast<int64_t>(st.stage()) * kABytes), map_a, {kc, m0}, st.full());
                hop::tma_load(smB.addr(static_cast<int64_t>(st.stage()) * kBBytes), map_b, {kc, n0}, st.full());
                kc += 64u;
                st.advance();
              }
            });
          });
        });

        // ---- MMA issuer: warp 5 ----
        ptx::Reg is_mma = warp == 5u;
        ptx::if_(is_mma, [&] {
          ptx::Reg elected = ptx::warp::elect_one();
          ptx::if_(elected, [&] {
            ptx::Reg sb = sa + static_cast<uint32_t>(smB.offset() - smA.offset());
            const bw::SmemDescriptor layout = bw::k_major(0, bw::SmemSwizzle::B128, 1024);
            ptx::Reg da = bw::make_smem_descriptor(sa, layout);
            ptx::Reg db = bw::make_smem_descriptor(sb, layout);
            const bw::InstrDescriptor id = bw::bf16_f32(128, 256);
            ptx::Reg on = tid == tid, off = tid != tid;
            hop::PipelineState st(pipe, 0);
            auto round = [&](bool first_round) {
              for (int u = 0; u < S; ++u) {
                st.wait_full();
                bw::fence_after_thread_sync();
                for (int ks = 0; ks < 4; ++ks) {
                  const int64_t oa = (static_cast<int64_t>(st.stage()) * kABytes + ks * 32) / 16;
                  const int64_t ob = (static_cast<int64_t>(st.stage()) * kBBytes + ks * 32) / 16;
                  std::optional<ptx::Reg> dak, dbk;
                  if (oa != 0) dak.emplace(da + oa);
                  if (ob != 0) dbk.emplace(db + ob);
                  bw::mma(id, tmem, oa ? *dak : da, ob ? *dbk : db, (first_round && u == 0 && ks == 0) ? off : on);
                }
                bw::commit(bw::CtaGroup::One, st.empty());
                st.advance();
              }
            };
            round(true);
            ptx::loop(1u, rounds, 1, [&](const ptx::Reg&) { round(false); });
            bw::commit(bw::CtaGroup::One, accum);
          });
        });

        // ---- epilogue: warps 0-3, row t of the tile ----
        ptx::Reg is_epilogue = warp < 4u;
        ptx::if_(is_epilogue, [&] {
          accum.wait(0);
          bw::fence_after_thread_sync();
          ptx::Reg lane_base = warp << 21;
          ptx::Reg taddr = tmem + lane_base;
          ptx::Reg row = m0 + tid;
          ptx::Reg coff = row * N;
          coff += n0;
          coff = coff << 2;
          ptx::Reg cg(u64);
          inst::cvta.to.global.u64(cg, c_addr);
          ptx::Reg cptr = cg + coff;
          ptx::RegArray v(f32, 32, "acc");
          for (int chunk = 0; chunk < static_cast<int>(kCols) / 32; ++chunk) {
            bw::tmem_load(bw::TmemShape::S32x32b, 32, v, 0, taddr, 32 * chunk);
            bw::tmem_wait_ld();
            for (int j = 0; j < 8; ++j) {
              const auto q = static_cast<size_t>(4 * j);
              inst::st.global.v4.f32(ptx::addr(cptr, chunk * 128 + 16 * j), ptx::vec(v[q], v[q + 1], v[q + 2], v[q + 3]));
            }
          }
        });

        bw::fence_before_thread_sync();
        inst::bar.sync(0);
        ptx::if_(is_warp0, [&] {
          bw::fence_after_thread_sync();
          bw::tmem_dealloc(tmem, kCols);
        });
        ptx::ret();
      });
}

}  // namespace examples
