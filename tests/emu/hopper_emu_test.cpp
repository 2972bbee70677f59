// The sm_90 GEMM example (examples/kernels/gemm_sm90.hpp) on the CPU device: TMA tile loads
// with the 128-byte swizzle, the 4-stage mbarrier pipeline and wgmma, against a CPU reference.
#include <chrono>
#include <cmath>
#include <cstring>
#include <iostream>
#include <random>
#include <vector>

#include <gtest/gtest.h>
#include <ptxpp/runtime.hpp>

#include "../../examples/kernels/gemm_sm90.hpp"
#include "../../examples/kernels/gemm_sm90_grouped.hpp"
#include "../../examples/kernels/gemm_sm90_grouped_contiguous.hpp"
#include "../../examples/kernels/gemm_sm90_persistent.hpp"
#include "../../examples/kernels/bf16_host.hpp"

namespace ptx::test {
namespace {

using examples::from_bf16;
using examples::to_bf16;

std::vector<uint16_t> random_bf16(size_t n, unsigned seed) {
  std::mt19937 g(seed);
  std::uniform_real_distribution<float> d(-1.0f, 1.0f);
  std::vector<uint16_t> v(n);
  for (auto& x : v) x = to_bf16(d(g));
  return v;
}

// Runs the GEMM on the CPU device and compares every element with a double-precision reference.
void check_gemm(int64_t M, int64_t N, int64_t K, int cluster_m = 1) {
  const auto a = random_bf16(static_cast<size_t>(M * K), 31), b = random_bf16(static_cast<size_t>(N * K), 32);
  Device cpu = device::cpu();
  DevicePtr da = cpu.alloc(a.size() * 2, "A"), db = cpu.alloc(b.size() * 2, "B"), dc = cpu.alloc(static_cast<size_t>(M * N) * 4, "C");
  cpu.copy_to_device(da, a.data(), a.size() * 2);
  cpu.copy_to_device(db, b.data(), b.size() * 2);
  cpu.fill(dc, 0xff, static_cast<size_t>(M * N) * 4);  // NaN: every element must be written
  const auto [ma, mb] = examples::gemm_sm90_tensor_maps(cpu, da, db, M, N, K, cluster_m);
  auto k = bind(cpu, examples::gemm_sm90("sm_90a", cluster_m), {{"M", M}, {"N", N}, {"K", K}});
  const auto start = std::chrono::steady_clock::now();
  k(ma, mb, dc);
  cpu.synchronize();
  const double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  std::cout << "[ gemm_sm90" << (cluster_m > 1 ? "_c2 " : " ") << M << "x" << N << "x" << K << " ] emulator: " << secs << " s\n";
  std::vector<float> got(static_cast<size_t>(M * N));
  cpu.copy_to_host(got.data(), dc, got.size() * 4);
  for (int64_t i = 0; i < M; ++i)
    for (int64_t j = 0; j < N; ++j) {
      double ref = 0;
      for (int64_t kk = 0; kk < K; ++kk)
        ref += static_cast<double>(from_bf16(a[static_cast<size_t>(i * K + kk)])) * from_bf16(b[static_cast<size_t>(j * K + kk)]);
      ASSERT_NEAR(got[static_cast<size_t>(i * N + j)], ref, 1e-3 * (1 + std::fabs(ref))) << i << "," << j;
    }
  cpu.free(da);
  cpu.free(db);
  cpu.free(dc);
}

// 256 x 512 x 640: four CTAs, 10 K tiles: the producer runs two rounds of its 4-stage run-time
// loop (each stage's barriers go through phases 0, 1 and 0 again) and two unrolled tiles; the
// consumers one peeled tile, two rounds and one unrolled tile.
TEST(HopperOnEmulator, GemmSm90MatchesTheCpuReference) { check_gemm(256, 512, 640); }

// Clusters of two CTAs along M, B multicast: 512 x 256 x 640 is two clusters, 10 K tiles.
TEST(HopperOnEmulator, GemmSm90ClusterMulticastMatchesTheCpuReference) { check_gemm(512, 256, 640, 2); }

// Fewer K tiles than stages: no run-time loop.
TEST(HopperOnEmulator, GemmSm90WithOneKTile) { check_gemm(128, 256, 64); }

// prefix + the number (appended: GCC 12 warns falsely on `"A" + std::to_string(n)`)
std::string label(const char* prefix, int64_t n) {
  std::string s = prefix;
  s.append(std::to_string(n));
  return s;
}

// sum_k A[i, k] * B[j, k] in double (A: rows x K, B: N x K, bf16).
double dot_ref(const std::vector<uint16_t>& a, const std::vector<uint16_t>& b, int64_t i, int64_t j, int64_t K) {
  double ref = 0;
  for (int64_t kk = 0; kk < K; ++kk)
    ref += static_cast<double>(from_bf16(a[static_cast<size_t>(i * K + kk)])) * from_bf16(b[static_cast<size_t>(j * K + kk)]);
  return ref;
}

// A C element against its reference: f32 within accumulation-order error; bf16 the
// reference rounded to bf16, within one bf16 ulp of it (the f32 sum may round the other way).
void expect_element(ptx::DType out, const std::vector<uint8_t>& c, size_t idx, double ref, const std::string& where) {
  if (out == ptx::types::f32) {
    float got;
    std::memcpy(&got, c.data() + idx * 4, 4);
    ASSERT_NEAR(got, ref, 1e-3 * (1 + std::fabs(ref))) << where;
  } else {
    uint16_t got;
    std::memcpy(&got, c.data() + idx * 2, 2);
    const double r = from_bf16(to_bf16(static_cast<float>(ref)));
    ASSERT_NEAR(from_bf16(got), r, std::fabs(r) / 128 + 1e-6) << where;
  }
}

// The persistent GEMM with `sms` CTAs on the CPU device.
void check_persistent(int64_t M, int64_t N, int64_t K, int64_t sms, ptx::DType out, int group_m) {
  const auto a = random_bf16(static_cast<size_t>(M * K), 41), b = random_bf16(static_cast<size_t>(N * K), 42);
  const size_t esize = out == ptx::types::f32 ? 4 : 2, cbytes = static_cast<size_t>(M * N) * esize;
  Device cpu = device::cpu();
  DevicePtr da = cpu.alloc(a.size() * 2, "A"), db = cpu.alloc(b.size() * 2, "B"), dc = cpu.alloc(cbytes, "C");
  cpu.copy_to_device(da, a.data(), a.size() * 2);
  cpu.copy_to_device(db, b.data(), b.size() * 2);
  cpu.fill(dc, 0xff, cbytes);  // NaN: every element must be written
  const auto maps = examples::gemm_sm90_tensor_maps(cpu, da, db, M, N, K);
  auto k = bind(cpu, examples::gemm_sm90_persistent("sm_90a", out, group_m), {{"M", M}, {"N", N}, {"K", K}, {"SMS", sms}});
  ASSERT_EQ(k.traced().grid.x, static_cast<uint32_t>(sms));
  k(maps.first, maps.second, dc);
  cpu.synchronize();
  std::vector<uint8_t> got(cbytes);
  cpu.copy_to_host(got.data(), dc, cbytes);
  for (int64_t i = 0; i < M; ++i)
    for (int64_t j = 0; j < N; ++j)
      expect_element(out, got, static_cast<size_t>(i * N + j), dot_ref(a, b, i, j, K), label("", i) + label(",", j));
  cpu.free(da);
  cpu.free(db);
  cpu.free(dc);
}

// 384 x 512: 6 tiles on 4 CTAs (CTAs 0 and 1 run two tiles each); bands of 2 tile-rows
// (the last band is one row); 5 K tiles per tile: the ring's stage and phase carry over
// from one tile to the next (5 is not a multiple of the 4 stages).
TEST(HopperOnEmulator, GemmSm90PersistentLoopsOverTiles) { check_persistent(384, 512, 320, 4, ptx::types::f32, 2); }

// bf16 output (cvt.rn.bf16x2.f32), 3 CTAs for 4 tiles, one K tile each, default bands.
TEST(HopperOnEmulator, GemmSm90PersistentBf16Output) { check_persistent(256, 512, 64, 3, ptx::types::bf16, 8); }

// One CTA does all 6 tiles (the ring goes round many times).
TEST(HopperOnEmulator, GemmSm90PersistentOneCta) { check_persistent(256, 768, 192, 1, ptx::types::bf16, 1); }

// The grouped GEMM: groups of M_g rows (some empty, some not a multiple of 128), common N, K.
void check_grouped(const std::vector<int64_t>& ms, int64_t N, int64_t K, int64_t sms, ptx::DType out) {
  Device cpu = device::cpu();
  const size_t esize = out == ptx::types::f32 ? 4 : 2;
  std::vector<std::vector<uint16_t>> as, bs;
  std::vector<examples::GroupedGemmProblem> probs;
  const uint64_t guard_bytes = 256 * N * esize;  // after each D_g: must stay untouched
  for (size_t g = 0; g < ms.size(); ++g) {
    const int64_t m = ms[g];
    as.push_back(random_bf16(static_cast<size_t>(m * K), 50 + static_cast<unsigned>(g)));
    bs.push_back(random_bf16(static_cast<size_t>(N * K), 60 + static_cast<unsigned>(g)));
    examples::GroupedGemmProblem p;
    p.m = m;
    p.a = cpu.alloc(std::max<size_t>(as[g].size() * 2, 2), label("A", g));
    p.b = cpu.alloc(bs[g].size() * 2, label("B", g));
    p.d = cpu.alloc(static_cast<size_t>(m * N) * esize + guard_bytes, label("D", g));
    if (m > 0) cpu.copy_to_device(p.a, as[g].data(), as[g].size() * 2);
    cpu.copy_to_device(p.b, bs[g].data(), bs[g].size() * 2);
    cpu.fill(p.d, 0xff, static_cast<size_t>(m * N) * esize + guard_bytes);
    probs.push_back(p);
  }
  const examples::GroupedGemmArgs args = examples::gemm_sm90_grouped_args(cpu, probs, N, K);
  auto k = bind(cpu, examples::gemm_sm90_grouped("sm_90a", N, K, out), {{"G", static_cast<int64_t>(ms.size())}, {"SMS", sms}});
  k(args.problems, args.maps);
  cpu.synchronize();
  for (size_t g = 0; g < ms.size(); ++g) {
    const int64_t m = ms[g];
    std::vector<uint8_t> got(static_cast<size_t>(m * N) * esize + guard_bytes);
    cpu.copy_to_host(got.data(), probs[g].d, got.size());
    for (int64_t i = 0; i < m; ++i)
      for (int64_t j = 0; j < N; ++j)
        expect_element(out, got, static_cast<size_t>(i * N + j), dot_ref(as[g], bs[g], i, j, K), label("group ", g) + label(": ", i) + label(",", j));
    for (size_t x = static_cast<size_t>(m * N) * esize; x < got.size(); ++x)
      ASSERT_EQ(got[x], 0xff) << "group " << g << ": byte " << x << " past D_g was written";
    cpu.free(probs[g].a);
    cpu.free(probs[g].b);
    cpu.free(probs[g].d);
  }
  cpu.free(args.problems);
  cpu.free(args.maps);
}

// M_g = 0, 37, 128, 200 (tiles: 0, 1, 1, 2 per N tile), N = 512 (2 N tiles): 8 tiles on 3 CTAs,
// 3 K tiles each; bf16 D.
TEST(HopperOnEmulator, GemmSm90GroupedMoeShapes) { check_grouped({0, 37, 128, 200}, 512, 192, 3, ptx::types::bf16); }

// f32 D, three groups with the empty one last and a 1-row group; 2 CTAs.
TEST(HopperOnEmulator, GemmSm90GroupedF32) { check_grouped({130, 1, 0}, 256, 320, 2, ptx::types::f32); }

// The contiguous grouped GEMM: A [M, K] and D [M, N] of all routed tokens, B [G, N, K], the
// device array `offsets` (G + 1 u32). `rows[g]`: the rows [lo, hi) group g is expected to
// own; every other row of D and a guard past D must stay untouched (NaN bytes).
void check_contiguous(const std::vector<uint32_t>& offsets, const std::vector<std::pair<int64_t, int64_t>>& rows, int64_t M,
                      int64_t N, int64_t K, int64_t sms, ptx::DType out) {
  const int64_t G = static_cast<int64_t>(offsets.size()) - 1;
  const size_t esize = out == ptx::types::f32 ? 4 : 2;
  const size_t dbytes = static_cast<size_t>(M * N) * esize, guard_bytes = static_cast<size_t>(N) * esize * 8;
  const auto a = random_bf16(static_cast<size_t>(M * K), 70), b = random_bf16(static_cast<size_t>(G * N * K), 71);
  Device cpu = device::cpu();
  DevicePtr da = cpu.alloc(a.size() * 2, "A"), db = cpu.alloc(b.size() * 2, "B"), doff = cpu.alloc(offsets.size() * 4, "offsets"),
            dd = cpu.alloc(dbytes + guard_bytes, "D");
  cpu.copy_to_device(da, a.data(), a.size() * 2);
  cpu.copy_to_device(db, b.data(), b.size() * 2);
  cpu.copy_to_device(doff, offsets.data(), offsets.size() * 4);
  cpu.fill(dd, 0xff, dbytes + guard_bytes);
  const auto maps = examples::gemm_sm90_grouped_contiguous_tensor_maps(cpu, da, db, M, G, N, K);
  auto k = bind(cpu, examples::gemm_sm90_grouped_contiguous("sm_90a", G, N, K, out), {{"M", M}, {"SMS", sms}});
  const auto start = std::chrono::steady_clock::now();
  k(maps.first, maps.second, doff, dd);
  cpu.synchronize();
  std::cout << "[ gemm_sm90_grouped_contiguous G=" << G << " M=" << M << " ] emulator: "
            << std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count() << " s\n";
  std::vector<uint8_t> got(dbytes + guard_bytes);
  cpu.copy_to_host(got.data(), dd, got.size());
  std::vector<int64_t> group_of(static_cast<size_t>(M), -1);
  for (int64_t g = 0; g < G; ++g)
    for (int64_t r = rows[static_cast<size_t>(g)].first; r < rows[static_cast<size_t>(g)].second; ++r) group_of[static_cast<size_t>(r)] = g;
  std::vector<std::vector<uint16_t>> bs;  // B_g, N x K
  for (int64_t g = 0; g < G; ++g) bs.emplace_back(b.begin() + g * N * K, b.begin() + (g + 1) * N * K);
  for (int64_t i = 0; i < M; ++i) {
    const int64_t g = group_of[static_cast<size_t>(i)];
    if (g < 0) {
      for (size_t x = static_cast<size_t>(i * N) * esize; x < static_cast<size_t>((i + 1) * N) * esize; ++x)
        ASSERT_EQ(got[x], 0xff) << "row " << i << " belongs to no group but was written";
      continue;
    }
    for (int64_t j = 0; j < N; ++j)
      expect_element(out, got, static_cast<size_t>(i * N + j), dot_ref(a, bs[static_cast<size_t>(g)], i, j, K), label("group ", g) + label(": row ", i) + label(",", j));
  }
  for (size_t x = dbytes; x < got.size(); ++x) ASSERT_EQ(got[x], 0xff) << "byte " << x - dbytes << " past D was written";
  for (DevicePtr p : {da, db, doff, dd}) cpu.free(p);
}

// Well-formed offsets: group g owns [offsets[g], offsets[g + 1]).
std::vector<std::pair<int64_t, int64_t>> spans(const std::vector<uint32_t>& offsets) {
  std::vector<std::pair<int64_t, int64_t>> r;
  for (size_t g = 0; g + 1 < offsets.size(); ++g) r.emplace_back(offsets[g], offsets[g + 1]);
  return r;
}

// M_g = 0, 37, 128, 135 (tiles 0, 1, 1, 2): groups starting inside a tile, a partial last tile
// whose A rows run into the next group and past M (TMA zero fill); 4 tiles on 3 CTAs; bf16 D.
TEST(HopperOnEmulator, GemmSm90GroupedContiguousMoeShapes) {
  const std::vector<uint32_t> off = {0, 0, 37, 165, 300};
  check_contiguous(off, spans(off), 300, 256, 128, 3, ptx::types::bf16);
}

// f32 D, two N tiles; offsets[0] = 5 and offsets[G] = 131 < M = 200: rows 0-4 and 131-199
// belong to no group and stay untouched; a 1-row group and an empty last one; 2 CTAs.
TEST(HopperOnEmulator, GemmSm90GroupedContiguousF32RowsOutsideTheGroups) {
  const std::vector<uint32_t> off = {5, 130, 131, 131};
  check_contiguous(off, spans(off), 200, 512, 64, 2, ptx::types::f32);
}

// Bad device data, M = 200: the decreasing pair 100 -> 60 is an empty group, group 2 starts
// where group 0 ended (rows 60-99 are not taken twice) and stops at M (offsets[3] = 0xffffffff),
// the decrease after it is empty again: group 0 owns [0, 100), group 2 [100, 200); nothing is
// written past D.
TEST(HopperOnEmulator, GemmSm90GroupedContiguousBadOffsetsStayInsideD) {
  check_contiguous({0, 100, 60, 0xffffffffu, 7}, {{0, 100}, {100, 100}, {100, 200}, {200, 200}}, 200, 256, 128, 2,
                   ptx::types::bf16);
}

}  // namespace
}  // namespace ptx::test
