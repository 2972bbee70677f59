// A grouped bf16 GEMM for Hopper (sm_90a), as a mixture-of-experts layer runs it: G
// problems D_g = A_g * B_g^T with A_g M_g x K (the tokens routed to expert g; M_g any value,
// 0 included), B_g N x K (the expert's weights), D_g M_g x N (f32 or bf16), N and K common.
// One persistent launch (grid = min(SMS, ...) CTAs, as gemm_sm90_persistent) walks every
// 128 x 256 tile of every group: tiles are numbered group after group (group g has
// ceil(M_g / 128) * N / 256 of them, M-fastest inside the group so that CTAs running at the
// same time share B_g's N tile), and CTA c takes tiles c, c + nctaid, ... (sm90::GroupWalk,
// gemm_sm90_group_walk.hpp). The mainloop, ring and epilogue are gemm_sm90_persistent's
// (examples/kernels/gemm_sm90_persistent.hpp).
//
// Kernel parameters (device arrays the host prepares, gemm_sm90_grouped_args):
//   problems: G x 4 u64 per group {A_g, B_g, D_g, M_g}: the kernel reads D_g and M_g (A_g and
//             B_g are in the tensor maps; kept for tools and debugging);
//   maps:     G x 256 bytes: the tensor map of A_g (dims {K, M_g}, boxes 64 x 128) at byte
//             256 g and that of B_g (dims {K, N}, boxes 64 x 256) at 256 g + 128, 128-byte
//             aligned CUtensorMaps in global memory, used through their generic address.
//
// Why tensor maps prepared on the host rather than `tensormap.replace` of a template in the
// kernel: the host builds the problem array anyway (it knows M_g here), and a map written
// once before the launch is never modified while TMA loads that read it are in flight, so
// the kernel needs no per-CTA map workspace, no replace/fence.proxy.tensormap sequence at
// group changes and no wait for the loads of the previous group before reusing a map
// slot. The price is 256 bytes per group and M_g known on the host at launch; when the
// token counts are produced on the device (a router kernel) and must not be copied back,
// gemm_sm90_grouped_contiguous.hpp takes the tokens of all groups in one buffer and reads
// the group offsets in the kernel (one map for A, one 3-D map for B). Maps written before the launch are
// visible to the tensormap proxy of the kernel (the launch orders them); the producer
// issues prefetch.tensormap on each tile's two maps.
//
// Partial tiles: TMA fills the rows of A_g past M_g with zeros (out of bounds), and the
// epilogue stores a thread's rows r and r + 8 only when they are below M_g (two guarded
// blocks), so no row outside D_g is written.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "gemm_sm90_group_walk.hpp"
#include "gemm_sm90_persistent.hpp"

namespace examples {

struct GroupedGemmProblem {
  ptx::DevicePtr a, b, d;  // A_g (M_g x K bf16), B_g (N x K bf16), D_g (M_g x N)
  int64_t m = 0;
};

// The two device arrays the kernel takes; free them with the device.
struct GroupedGemmArgs {
  ptx::DevicePtr problems, maps;
};

inline GroupedGemmArgs gemm_sm90_grouped_args(const ptx::Device& dev, const std::vector<GroupedGemmProblem>& groups, int64_t N,
                                              int64_t K) {
  std::vector<uint64_t> desc;
  std::vector<uint8_t> maps(groups.size() * 256, 0);
  for (size_t g = 0; g < groups.size(); ++g) {
    const GroupedGemmProblem& p = groups[g];
    if (p.m < 0) throw ptx::Error("gemm_sm90_grouped_args: M_g must not be negative", ptx::SourceLocation::current());
    desc.insert(desc.end(), {p.a.address, p.b.address, p.d.address, static_cast<uint64_t>(p.m)});
    ptx::TensorMapSpec s;
    s.type = ptx::TmaType::bf16;
    s.swizzle = ptx::TmaSwizzle::b128;
    s.box = {kGemm90TileK, kGemm90TileM};
    if (p.m > 0) {  // a group without rows has no tiles: its maps are never read (left zero)
      s.dims = {static_cast<uint64_t>(K), static_cast<uint64_t>(p.m)};
      const ptx::TensorMap ma = ptx::make_tensor_map(dev, p.a, s);
      std::copy(ma.bytes.begin(), ma.bytes.end(), maps.begin() + static_cast<std::ptrdiff_t>(256 * g));
    }
    s.dims = {static_cast<uint64_t>(K), static_cast<uint64_t>(N)};
    s.box = {kGemm90TileK, kGemm90TileN};
    const ptx::TensorMap mb = ptx::make_tensor_map(dev, p.b, s);
    std::copy(mb.bytes.begin(), mb.bytes.end(), maps.begin() + static_cast<std::ptrdiff_t>(256 * g + 128));
  }
  GroupedGemmArgs r{dev.alloc(desc.size() * 8, "grouped_problems"), dev.alloc(maps.size(), "grouped_maps")};
  dev.copy_to_device(r.problems, desc.data(), desc.size() * 8);
  dev.copy_to_device(r.maps, maps.data(), maps.size());
  return r;
}

inline ptx::Dim3 gemm_sm90_grouped_grid(const ptx::Bindings& b) {
  const auto sms = b.find("SMS");
  return ptx::Dim3(static_cast<uint32_t>(sms == b.end() ? kGemm90DefaultSms : sms->second));
}

// Bindings: G (groups), SMS (optional, the grid). N (a multiple of 256) and K (of 64) are
// fixed per kernel: they are the layer's.
inline ptx::Kernel gemm_sm90_grouped(const std::string& arch, int64_t N, int64_t K, ptx::DType out = ptx::types::bf16) {
  using namespace ptx::types;
  namespace inst = ptx::inst;
  if (out != f32 && out != bf16) throw ptx::Error("gemm_sm90_grouped: D is f32 or bf16", ptx::SourceLocation::current());
  if (N <= 0 || K <= 0 || N % kGemm90TileN != 0 || K % kGemm90TileK != 0)
    throw ptx::Error("gemm_sm90_grouped: N must be a positive multiple of 256 and K of 64; got N=" + std::to_string(N) +
                         ", K=" + std::to_string(K),
                     ptx::SourceLocation::current());
  if (N * 128 * 4 >= (int64_t{1} << 31))
    throw ptx::Error("gemm_sm90_grouped: N is too large for 32-bit offsets in a tile", ptx::SourceLocation::current());
  return ptx::kernel(out == f32 ? "gemm_sm90_grouped" : "gemm_sm90_grouped_bf16")
      .in("problems", ptx::tensor(u64, {"G", 4}))
      .in("maps", ptx::tensor(u8, {"G", 256}))
      .block(384)
      .maxntid(ptx::Dim3(384))
      .grid(gemm_sm90_grouped_grid)
      .arch(arch)
      .body([out, N, K](ptx::Tensor problems, ptx::Tensor maps) {
        const int64_t G = problems.dim(0);
        if (G <= 0) throw ptx::Error("gemm_sm90_grouped: G must be at least 1", ptx::SourceLocation::current());
        constexpr int S = kGemm90Stages;
        const int64_t kt_total = K / kGemm90TileK, tn = N / kGemm90TileN;
        const int64_t esize = out == f32 ? 4 : 2;

        const sm90::Cta cta = sm90::Cta::setup();
        const ptx::Reg &tid = cta.tid, &sa = cta.sa, &sb = cta.sb, &bars = cta.bars, &nct = cta.nct;
        ptx::Reg pp = problems.global_ptr();

        // The walk over the groups (gemm_sm90_group_walk.hpp), the same in both roles; `desc`
        // points at the problem of the walk's group, whose M_g it reads on entering it.
        auto walk = [&](ptx::Reg& desc) {
          sm90::GroupWalk w(G, tn, [&](const ptx::Reg& g, ptx::Reg& rows) {
            ptx::Reg o = g << 5;  // 32 bytes per problem
            ptx::Reg o64(u64);
            inst::cvt.u64.u32(o64, o);
            desc = pp + o64;
            inst::ld.global.u32(rows, ptx::addr(desc, 24));
          });
          inst::mov.u64(desc, pp);
          return w;
        };

        // ---- producer: warpgroup 0, its warp 0 (ptx::hopper::warp_specialize) ----
        auto producer = [&] {
          ptx::Reg pmaps = maps.ptr();  // generic addresses of the maps
          ptx::Reg elected = ptx::warp::elect_one();
          sm90::RingState st(bars, S, 1);
          ptx::Reg desc(u64);
          sm90::GroupWalk w = walk(desc);
          ptx::while_([&] { return w.to_tile(); },
                      [&] {
                        ptx::Reg o = w.group() << 8;
                        ptx::Reg o64(u64);
                        inst::cvt.u64.u32(o64, o);
                        ptx::Reg map_a = pmaps + o64;
                        ptx::Reg map_b = map_a + int64_t{128};
                        inst::prefetch.tensormap(ptx::addr(map_a));
                        inst::prefetch.tensormap(ptx::addr(map_b));
                        auto [m0, n0] = w.tile_origin();
                        sm90::produce_tile(st, sa, sb, map_a, map_b, m0, n0, elected, kt_total);
                        w.advance(nct);
                      });
        };

        // ---- consumers ----
        auto consumers = [&](const ptx::Reg& ct) {
          const sm90::Consumer cs = sm90::Consumer::setup(ct, sa, sb);
          sm90::RingState st(bars, S, 0);
          ptx::Reg desc(u64);
          sm90::GroupWalk w = walk(desc);
          ptx::while_([&] { return w.to_tile(); },
                      [&] {
                        sm90::consume_tile(st, cs.da, cs.db, cs.acc, cs.overwrite, cs.accumulate, cs.leader, kt_total);
                        auto [m0, n0] = w.tile_origin();
                        ptx::Reg row = m0 + cs.frow;
                        ptx::Reg lo_ok = row < w.rows();
                        ptx::Reg row8 = row + 8u;
                        ptx::Reg hi_ok = row8 < w.rows();
                        ptx::Reg col = n0 + cs.fcol;
                        ptx::Reg off = row * static_cast<uint32_t>(N);
                        off += col;
                        off = off * static_cast<uint32_t>(esize);
                        ptx::Reg off64(u64);
                        inst::cvt.u64.u32(off64, off);
                        ptx::Reg d(u64);
                        inst::ld.global.u64(d, ptx::addr(desc, 16));
                        ptx::Reg dg(u64);
                        inst::cvta.to.global.u64(dg, d);
                        ptx::Reg cptr = dg + off64;
                        sm90::store_accumulators(cs.acc, out, cptr, N, &lo_ok, &hi_ok);
                        w.advance(nct);
                      });
        };
        ptx::hopper::warp_specialize(tid, {}, producer, consumers);
        ptx::ret();
      });
}

}  // namespace examples
