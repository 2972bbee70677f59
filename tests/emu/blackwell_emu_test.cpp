// The Blackwell helpers and the sm_100 GEMM example on the CPU device: tcgen05.st/ld against
// the fragment maps of ptx::blackwell (tmem_fragment_row_col), and gemm_sm100 (TMA, the mbarrier
// ring, tcgen05.mma into tensor memory, tcgen05.commit, the tcgen05.ld epilogue) against a CPU
// reference, on reduced shapes.
#include <chrono>
#include <cmath>
#include <iostream>
#include <random>
#include <string>
#include <vector>

#include <gtest/gtest.h>
#include <ptxpp/runtime.hpp>

#include "../../examples/kernels/bf16_host.hpp"
#include "../../examples/kernels/gemm_sm100.hpp"
#include "../../examples/kernels/gemm_sm100_grouped.hpp"
#include "../unit/ptxas_util.hpp"
#include "emu_test_util.hpp"

namespace ptx::test {
namespace {

using examples::from_bf16;
using examples::to_bf16;
namespace bw = ptx::blackwell;

struct LoadCase {
  bw::TmemShape shape;
  int num;
};
constexpr LoadCase kLoadCases[] = {{bw::TmemShape::S32x32b, 4}, {bw::TmemShape::S16x64b, 2}, {bw::TmemShape::S16x128b, 2},
                                   {bw::TmemShape::S16x256b, 2}};

// One warp writes lane l, column c of 32 allocated columns with 1000 l + c (tcgen05.st.32x32b.x32),
// then reads them back with each shape; register r of thread t goes to out[case][t][r].
TEST(BlackwellOnEmulator, TensorMemoryLoadsFollowTheFragmentMaps) {
  size_t total = 0;
  for (const LoadCase& c : kLoadCases) total += 32u * static_cast<size_t>(bw::tmem_regs(c.shape, c.num));
  auto k = ptx::kernel("tmem_maps").out(ptx::tensor(u32, {static_cast<int64_t>(total)})).block(32).arch("sm_100a").body([](ptx::Tensor out) {
    namespace inst = ptx::inst;
    auto slot = ptx::smem::alloc(u32, {1}, 16);
    bw::tmem_alloc(slot.addr(0), 32);
    bw::tmem_relinquish_alloc_permit();
    bw::fence_before_thread_sync();
    inst::bar.sync(0);
    bw::fence_after_thread_sync();
    ptx::Reg tmem(b32);
    inst::ld.shared.b32(tmem, slot.addr(0));
    ptx::Reg t = ptx::read(ptx::special::tid.x(), u32);
    ptx::Reg base = t * 1000u;
    ptx::RegArray v(b32, 32, "v");
    for (size_t j = 0; j < 32; ++j) inst::add.u32(v[j], base, static_cast<uint32_t>(j));
    bw::tmem_store(bw::TmemShape::S32x32b, 32, tmem, v, 0);
    bw::tmem_wait_st();
    ptx::Reg po = out.global_ptr();
    int64_t offset = 0;
    for (const LoadCase& c : kLoadCases) {
      const int n = bw::tmem_regs(c.shape, c.num);
      ptx::RegArray r(b32, static_cast<size_t>(n));
      bw::tmem_load(c.shape, c.num, r, 0, tmem);
      bw::tmem_wait_ld();
      ptx::Reg off = t * static_cast<uint32_t>(4 * n);
      ptx::Reg p = po + off;
      for (int i = 0; i < n; ++i) inst::st.global.b32(ptx::addr(p, offset + 4 * i), r[static_cast<size_t>(i)]);
      offset += 4 * 32 * n;
    }
    bw::fence_before_thread_sync();
    inst::bar.sync(0);
    bw::fence_after_thread_sync();
    bw::tmem_dealloc(tmem, 32);
    ptx::ret();
  });
  auto tr = k.trace();
  EmuRun run;
  const uint64_t o = run.buffer(std::vector<uint32_t>(total, 0xFFFFFFFFu), "out");
  run.launch(*tr);
  const auto got = run.read<uint32_t>(o, total);
  size_t at = 0;
  for (const LoadCase& c : kLoadCases) {
    const int n = bw::tmem_regs(c.shape, c.num);
    for (int t = 0; t < 32; ++t)
      for (int r = 0; r < n; ++r) {
        const auto [row, col] = bw::tmem_fragment_row_col(c.shape, c.num, t, r);
        EXPECT_EQ(got[at + static_cast<size_t>(t * n + r)], static_cast<uint32_t>(1000 * row + col))
            << bw::shape_name(c.shape) << ".x" << c.num << " thread " << t << " register " << r;
      }
    at += 32u * static_cast<size_t>(n);
  }
}

std::vector<uint16_t> random_bf16(size_t n, unsigned seed) {
  std::mt19937 g(seed);
  std::uniform_real_distribution<float> d(-1.0f, 1.0f);
  std::vector<uint16_t> v(n);
  for (auto& x : v) x = to_bf16(d(g));
  return v;
}

// One tcgen05.mma (M 128, N 64, K 16, bf16 -> f32) through the helpers on unswizzled operands
// laid out here on the host: A K-major (8 rows x 16-byte core matrices: LBO 128 bytes between
// them along K, SBO 256 along M), B K-major the same or (b_mn_major) MN-major (8 K rows x 16
// bytes of N: LBO 128 along K, SBO 256 along N; transpose B in the instruction descriptor):
// the descriptors' LBO/SBO, the instruction descriptor and the 32x32b read-back against a CPU product.
void one_mma(bool b_mn_major) {
  constexpr int M = 128, N = 64, K = 16;
  constexpr uint32_t kLbo = 128, kSbo = 256, kABytes = M * K * 2, kBBytes = N * K * 2;
  const auto a = random_bf16(M * K, 71), b = random_bf16(N * K, 72);
  std::vector<uint16_t> image((kABytes + kBBytes) / 2);
  auto place = [&](uint32_t base, int r, int k, uint16_t v) {
    const uint32_t off = base + static_cast<uint32_t>(r / 8) * kSbo + static_cast<uint32_t>(k / 8) * kLbo +
                         static_cast<uint32_t>(r % 8) * 16 + static_cast<uint32_t>(k % 8) * 2;
    image[off / 2] = v;
  };
  for (int r = 0; r < M; ++r)
    for (int k = 0; k < K; ++k) place(0, r, k, a[static_cast<size_t>(r * K + k)]);
  for (int n = 0; n < N; ++n)
    for (int k = 0; k < K; ++k) {
      if (!b_mn_major) {
        place(kABytes, n, k, b[static_cast<size_t>(n * K + k)]);
        continue;
      }
      const uint32_t off = kABytes + static_cast<uint32_t>(n / 8) * kSbo + static_cast<uint32_t>(k / 8) * kLbo +
                           static_cast<uint32_t>(k % 8) * 16 + static_cast<uint32_t>(n % 8) * 2;
      image[off / 2] = b[static_cast<size_t>(n * K + k)];
    }

  auto kern = ptx::kernel("one_mma")
                  .in(ptx::tensor(u16, {static_cast<int64_t>(image.size())}))
                  .out(ptx::tensor(f32, {M, N}))
                  .block(128)
                  .arch("sm_100a")
                  .body([&](ptx::Tensor img, ptx::Tensor out) {
                    namespace inst = ptx::inst;
                    auto buf = ptx::smem::alloc(b8, {kABytes + kBBytes}, 1024);
                    auto bars = ptx::smem::alloc(b64, {1}, 8);
                    auto slot = ptx::smem::alloc(u32, {1}, 16);
                    const hopper::Mbarrier done(bars.addr(0));
                    ptx::Reg t = ptx::read(ptx::special::tid.x(), u32);
                    ptx::Reg warp = t >> 5;
                    ptx::Reg pi = img.global_ptr();
                    ptx::Reg sbase = buf.base();
                    for (uint32_t i = 0; i < (kABytes + kBBytes) / 16 / 128; ++i) {  // 16 bytes per thread per step
                      ptx::Reg idx = t + i * 128;
                      ptx::Reg off = idx << 4;
                      ptx::Reg src = pi + off;
                      ptx::Reg dst = sbase + off;
                      ptx::RegArray q(b32, 4);
                      inst::ld.global.v4.b32(ptx::vec(q[0], q[1], q[2], q[3]), ptx::addr(src));
                      inst::st.shared.v4.b32(ptx::addr(dst), ptx::vec(q[0], q[1], q[2], q[3]));
                    }
                    hopper::fence_proxy_async();  // the generic-proxy stores, seen by the tensor core
                    ptx::Reg t0 = t == 0u;
                    done.init(1, &t0);
                    hopper::fence_mbarrier_init();
                    ptx::Reg w0 = warp == 0u;
                    ptx::if_(w0, [&] { bw::tmem_alloc(slot.addr(0), 64); });
                    bw::fence_before_thread_sync();
                    inst::bar.sync(0);
                    bw::fence_after_thread_sync();
                    ptx::Reg tmem(b32);
                    inst::ld.shared.b32(tmem, slot.addr(0));
                    ptx::if_(t0, [&] {
                      const bw::SmemDescriptor layout = bw::k_major(0, bw::SmemSwizzle::None, kSbo, kLbo);
                      ptx::Reg da = bw::make_smem_descriptor(sbase, layout);
                      ptx::Reg sb = sbase + kABytes;
                      ptx::Reg db = bw::make_smem_descriptor(sb, b_mn_major ? bw::mn_major(0, bw::SmemSwizzle::None, kLbo, kSbo) : layout);
                      ptx::Reg fresh = t != t;  // enable-input-d false: D = A * B
                      bw::InstrDescriptor id = bw::bf16_f32(M, N);
                      id.transpose_b = b_mn_major;
                      bw::mma(id, tmem, da, db, fresh);
                      bw::commit(bw::CtaGroup::One, done);
                    });
                    done.wait(0);
                    bw::fence_after_thread_sync();
                    ptx::Reg lanes = warp << 21;
                    ptx::Reg ta = tmem + lanes;
                    ptx::RegArray d(f32, N, "d");
                    bw::tmem_load(bw::TmemShape::S32x32b, N, d, 0, ta);
                    bw::tmem_wait_ld();
                    ptx::Reg po = out.global_ptr();
                    ptx::Reg row_off = t * static_cast<uint32_t>(N * 4);
                    ptx::Reg prow = po + row_off;
                    for (int j = 0; j < N; ++j) inst::st.global.f32(ptx::addr(prow, 4 * j), d[static_cast<size_t>(j)]);
                    bw::fence_before_thread_sync();
                    inst::bar.sync(0);
                    ptx::if_(w0, [&] {
                      bw::fence_after_thread_sync();
                      bw::tmem_dealloc(tmem, 64);
                    });
                    ptx::ret();
                  });
  auto tr = kern.trace();
  if (have_ptxas()) {
    const auto r = run_ptxas(tr->ptx, "sm_100a");
    EXPECT_TRUE(r.ok) << r.log;
  }
  EmuRun run;
  run.buffer(image, "image");
  const uint64_t o = run.buffer(std::vector<float>(M * N, -1.0f), "out");
  run.launch(*tr);
  const auto got = run.read<float>(o, M * N);
  for (int i = 0; i < M; ++i)
    for (int j = 0; j < N; ++j) {
      double ref = 0;
      for (int k = 0; k < K; ++k)
        ref += static_cast<double>(from_bf16(a[static_cast<size_t>(i * K + k)])) * from_bf16(b[static_cast<size_t>(j * K + k)]);
      ASSERT_NEAR(got[static_cast<size_t>(i * N + j)], ref, 1e-5 * (1 + std::fabs(ref))) << i << "," << j;
    }
}

TEST(BlackwellOnEmulator, OneMmaOnUnswizzledKMajorOperands) { one_mma(false); }
TEST(BlackwellOnEmulator, OneMmaWithAnMnMajorB) { one_mma(true); }

// Runs the GEMM on the CPU device and compares every element with a double-precision reference
// (bf16 C: within the bf16 rounding of the reference).
void check_gemm(int64_t M, int64_t N, int64_t K, int cta_group, DType out) {
  const auto a = random_bf16(static_cast<size_t>(M * K), 41), b = random_bf16(static_cast<size_t>(N * K), 42);
  const size_t esize = out == f32 ? 4 : 2;
  Device cpu = device::cpu();
  DevicePtr da = cpu.alloc(a.size() * 2, "A"), db = cpu.alloc(b.size() * 2, "B"), dc = cpu.alloc(static_cast<size_t>(M * N) * esize, "C");
  cpu.copy_to_device(da, a.data(), a.size() * 2);
  cpu.copy_to_device(db, b.data(), b.size() * 2);
  cpu.fill(dc, 0xff, static_cast<size_t>(M * N) * esize);  // NaN: every element must be written
  const auto maps = examples::gemm_sm100_tensor_maps(cpu, da, db, M, N, K, cta_group);
  auto k = bind(cpu, examples::gemm_sm100("sm_100a", cta_group, out), {{"M", M}, {"N", N}, {"K", K}});
  const auto start = std::chrono::steady_clock::now();
  k(maps.first, maps.second, dc);
  cpu.synchronize();
  const double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  std::cout << "[ gemm_sm100 cta_group " << cta_group << " " << name(out) << " " << M << "x" << N << "x" << K
            << " ] emulator: " << secs << " s\n";
  std::vector<float> got(static_cast<size_t>(M * N));
  if (out == f32) {
    cpu.copy_to_host(got.data(), dc, got.size() * 4);
  } else {
    std::vector<uint16_t> h(got.size());
    cpu.copy_to_host(h.data(), dc, h.size() * 2);
    for (size_t i = 0; i < h.size(); ++i) got[i] = from_bf16(h[i]);
  }
  for (int64_t i = 0; i < M; ++i)
    for (int64_t j = 0; j < N; ++j) {
      double ref = 0;
      for (int64_t kk = 0; kk < K; ++kk)
        ref += static_cast<double>(from_bf16(a[static_cast<size_t>(i * K + kk)])) * from_bf16(b[static_cast<size_t>(j * K + kk)]);
      const double tol = out == f32 ? 1e-3 * (1 + std::fabs(ref)) : 1e-3 + std::fabs(ref) / 128;
      ASSERT_NEAR(got[static_cast<size_t>(i * N + j)], ref, tol) << i << "," << j;
    }
  cpu.free(da);
  cpu.free(db);
  cpu.free(dc);
}

// 256 x 512 x 640: four CTAs, 10 K tiles: the producer runs two rounds of its 4-stage run-time
// loop and two unrolled tiles; the MMA issuer one peeled tile, two rounds and one unrolled tile.
TEST(BlackwellOnEmulator, GemmSm100MatchesTheCpuReference) { check_gemm(256, 512, 640, 1, f32); }
TEST(BlackwellOnEmulator, GemmSm100Bf16OutputMatchesTheCpuReference) { check_gemm(128, 256, 320, 1, bf16); }
// Fewer K tiles than stages: no run-time loop.
TEST(BlackwellOnEmulator, GemmSm100WithOneKTile) { check_gemm(128, 256, 64, 1, f32); }
// The CTA pair (tcgen05.mma.cta_group::2): 512 x 256 x 640 is two clusters of two CTAs.
TEST(BlackwellOnEmulator, GemmSm100PairMatchesTheCpuReference) { check_gemm(512, 256, 640, 2, f32); }

// Three problems of different M, N, K in one launch (2 + 2 + 1 tiles).
TEST(BlackwellOnEmulator, GemmSm100GroupedMatchesTheCpuReference) {
  struct Shape {
    int64_t M, N, K;
  };
  const std::vector<Shape> shapes = {{256, 256, 256}, {128, 512, 512}, {128, 256, 768}};
  Device cpu = device::cpu();
  std::vector<examples::GemmGroup> groups;
  std::vector<std::vector<uint16_t>> as, bs;
  for (size_t g = 0; g < shapes.size(); ++g) {
    const Shape& s = shapes[g];
    as.push_back(random_bf16(static_cast<size_t>(s.M * s.K), 50 + static_cast<unsigned>(g)));
    bs.push_back(random_bf16(static_cast<size_t>(s.N * s.K), 60 + static_cast<unsigned>(g)));
    examples::GemmGroup p{s.M, s.N, s.K, cpu.alloc(as.back().size() * 2, "A"), cpu.alloc(bs.back().size() * 2, "B"),
                          cpu.alloc(static_cast<size_t>(s.M * s.N) * 4, "C")};
    cpu.copy_to_device(p.a, as.back().data(), as.back().size() * 2);
    cpu.copy_to_device(p.b, bs.back().data(), bs.back().size() * 2);
    cpu.fill(p.c, 0xff, static_cast<size_t>(s.M * s.N) * 4);
    groups.push_back(p);
  }
  const auto args = examples::gemm_sm100_grouped_args(cpu, groups);
  EXPECT_EQ(args.tiles, 5);
  auto k = bind(cpu, examples::gemm_sm100_grouped("sm_100a"), {{"G", args.groups}, {"T", args.tiles}});
  k(args.maps, args.problems);
  cpu.synchronize();
  for (size_t g = 0; g < shapes.size(); ++g) {
    const Shape& s = shapes[g];
    std::vector<float> got(static_cast<size_t>(s.M * s.N));
    cpu.copy_to_host(got.data(), groups[g].c, got.size() * 4);
    for (int64_t i = 0; i < s.M; ++i)
      for (int64_t j = 0; j < s.N; ++j) {
        double ref = 0;
        for (int64_t kk = 0; kk < s.K; ++kk)
          ref += static_cast<double>(from_bf16(as[g][static_cast<size_t>(i * s.K + kk)])) *
                 from_bf16(bs[g][static_cast<size_t>(j * s.K + kk)]);
        ASSERT_NEAR(got[static_cast<size_t>(i * s.N + j)], ref, 1e-3 * (1 + std::fabs(ref))) << "group " << g << " " << i << "," << j;
      }
    cpu.free(groups[g].a);
    cpu.free(groups[g].b);
    cpu.free(groups[g].c);
  }
  cpu.free(args.maps);
  cpu.free(args.problems);
}

}  // namespace
}  // namespace ptx::test
