// A one-tile tcgen05.mma probe for sm_100a: runs whatever tcgen05.mma instructions a callback
// emits on operands the host lays out, and writes D back. The emulator tests of the mma forms
// (tests/emu/blackwell_mma_forms_emu_test.cpp, blackwell_sparse_dsl_emu_test.cpp) check it
// against a CPU reference; the GPU check (bench/gpu_check.cpp) compares a GPU run with an
// emulator run of the same kernel.
//
// 128 threads (one CTA). Inputs: `image` (u32 words): A's 128 rows then B's n rows, each row 32
// bytes, in the unswizzled K-major canonical layout (core matrices of 8 rows x 16 bytes: LBO 128
// bytes between them along K, SBO 8 rows' bytes (256) between groups of 8 rows), copied to
// shared memory; `scales` (u32): the scale factor words of A's rows 0..127 then B's rows 0..63,
// stored to tensor memory columns 64-67 (A) and 68-69 (B), row r at lane r % 32 of column
// r / 32, by every warp into its own lane quarter (the copies block scaling needs). Thread 0
// then emits `issue(d, a_desc, b_desc, scale_a, scale_b)` (D at column 0; the scale factor
// addresses at lane 0 of columns 64 and 68) and a tcgen05.commit; every thread waits for it and
// stores its lane's n columns of D (32-bit) as row tid of `out` (128 x n).
//
// The sparse probe (tcgen05_mma_sparse_probe) is the same with B's rows 64 bytes (tcgen05.mma.sp
// reads twice A's K of B; SBO 512) and, instead of `scales`, `meta` (u32, 128 x 2): thread t
// stores its two words to lane t of columns 64-65, the sparsity metadata, whose address (lane 0,
// column 64) it passes as `issue(d, a_desc, b_desc, meta)`.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>

#include <ptxpp/dsl.hpp>

namespace examples {

inline constexpr uint32_t kProbeLbo = 128, kProbeSbo = 256, kProbeRowBytes = 32;
inline constexpr int64_t kProbeScaleAColumn = 64, kProbeScaleBColumn = 68;
// The sparse probe's: B's row bytes, the metadata's first column.
inline constexpr uint32_t kSparseProbeBRowBytes = 64;
inline constexpr int64_t kSparseProbeMetaColumn = 64;

// The byte offset of byte `byte` of row `row` of an operand of `row_bytes` a row in the probe's
// layout (SBO: 8 rows' bytes).
inline uint32_t probe_offset(int row, int byte, uint32_t row_bytes = kProbeRowBytes) {
  return static_cast<uint32_t>(row / 8) * 8 * row_bytes + static_cast<uint32_t>(byte / 16) * kProbeLbo +
         static_cast<uint32_t>(row % 8) * 16 + static_cast<uint32_t>(byte % 16);
}
// The image's size in bytes for n rows of B: whole 16-byte steps of all 128 threads.
inline uint32_t probe_image_bytes(int n, uint32_t b_row_bytes = kProbeRowBytes) {
  return (128u * kProbeRowBytes + static_cast<uint32_t>(n) * b_row_bytes + 2047) / 2048 * 2048;
}

using ProbeIssue = std::function<void(const ptx::Reg& d, const ptx::Reg& a_desc, const ptx::Reg& b_desc,
                                      const ptx::Reg& scale_a, const ptx::Reg& scale_b)>;
using SparseProbeIssue =
    std::function<void(const ptx::Reg& d, const ptx::Reg& a_desc, const ptx::Reg& b_desc, const ptx::Reg& meta)>;

namespace detail {

// Thread 0's part: the mma (given D's address and the two descriptors), before the commit.
using ProbeMma = std::function<void(const ptx::Reg& tmem, const ptx::Reg& a_desc, const ptx::Reg& b_desc)>;

// The body of both probes: `sf` (dense) or `meta` (sparse) is the tensor memory input.
inline void probe_body(int n, uint32_t b_row_bytes, const ptx::Tensor& img, const ptx::Tensor* sf,
                       const ptx::Tensor* meta, const ptx::Tensor& out, const ProbeMma& issue) {
  using namespace ptx::types;
  const uint32_t total = probe_image_bytes(n, b_row_bytes), a_bytes = 128 * kProbeRowBytes;
  namespace inst = ptx::inst;
  namespace bw = ptx::blackwell;
  namespace hop = ptx::hopper;
  auto buf = ptx::smem::alloc(b8, {total}, 1024);
  auto bars = ptx::smem::alloc(b64, {1}, 8);
  auto slot = ptx::smem::alloc(u32, {1}, 16);
  const hop::Mbarrier done(bars.addr(0));
  ptx::Reg t = ptx::read(ptx::special::tid.x(), u32);
  ptx::Reg warp = t >> 5;
  ptx::Reg pi = img.global_ptr();
  ptx::Reg sbase = buf.base();
  for (uint32_t i = 0; i < total / 16 / 128; ++i) {
    ptx::Reg off = (t + i * 128) << 4;
    ptx::Reg src = pi + off;
    ptx::Reg dst = sbase + off;
    ptx::RegArray q(b32, 4);
    inst::ld.global.v4.b32(ptx::vec(q[0], q[1], q[2], q[3]), ptx::addr(src));
    inst::st.shared.v4.b32(ptx::addr(dst), ptx::vec(q[0], q[1], q[2], q[3]));
  }
  hop::fence_proxy_async();  // the generic-proxy stores, seen by the tensor core
  ptx::Reg t0 = t == 0u;
  done.init(1, &t0);
  hop::fence_mbarrier_init();
  ptx::Reg w0 = warp == 0u;
  ptx::if_(w0, [&] { bw::tmem_alloc(slot.addr(0), 128); });
  bw::fence_before_thread_sync();
  inst::bar.sync(0);
  bw::fence_after_thread_sync();
  ptx::Reg tmem(b32);
  inst::ld.shared.b32(tmem, slot.addr(0));
  // the warp's lane quarter
  auto quarter_address = [&] {
    ptx::Reg quarter = warp << 21;
    return tmem + quarter;
  };
  std::optional<ptx::Reg> tq;
  if (sf != nullptr) {
    // lane l of every quarter holds the words of rows l, 32 + l, ...
    ptx::Reg lane_off = (t & 31u) << 2;
    ptx::Reg ps = sf->global_ptr() + lane_off;
    ptx::RegArray cells(b32, 6);
    for (int c = 0; c < 6; ++c) inst::ld.global.b32(cells[static_cast<size_t>(c)], ptx::addr(ps, 4 * 32 * c));
    tq = quarter_address();
    bw::tmem_store(bw::TmemShape::S32x32b, 4, *tq, cells, 0, kProbeScaleAColumn);
    bw::tmem_store(bw::TmemShape::S32x32b, 2, *tq, cells, 4, kProbeScaleBColumn);
  } else {
    // lane t holds thread t's two metadata words
    tq = quarter_address();
    ptx::Reg row_off = t << 3;
    ptx::Reg pm = meta->global_ptr() + row_off;
    ptx::RegArray words(b32, 2);
    for (int c = 0; c < 2; ++c) inst::ld.global.b32(words[static_cast<size_t>(c)], ptx::addr(pm, 4 * c));
    bw::tmem_store(bw::TmemShape::S32x32b, 2, *tq, words, 0, kSparseProbeMetaColumn);
  }
  bw::tmem_wait_st();
  bw::fence_before_thread_sync();
  inst::bar.sync(0);
  bw::fence_after_thread_sync();
  ptx::if_(t0, [&] {
    const bw::SmemDescriptor layout = bw::k_major(0, bw::SmemSwizzle::None, kProbeSbo, kProbeLbo);
    const bw::SmemDescriptor layout_b = bw::k_major(0, bw::SmemSwizzle::None, 8 * b_row_bytes, kProbeLbo);
    ptx::Reg da = bw::make_smem_descriptor(sbase, layout);
    ptx::Reg sb = sbase + a_bytes;
    ptx::Reg db = bw::make_smem_descriptor(sb, layout_b);
    issue(tmem, da, db);
    bw::commit(bw::CtaGroup::One, done);
  });
  done.wait(0);
  bw::fence_after_thread_sync();
  ptx::RegArray d(f32, static_cast<size_t>(n), "d");
  bw::tmem_load(bw::TmemShape::S32x32b, n, d, 0, *tq);
  bw::tmem_wait_ld();
  ptx::Reg prow = out.global_ptr() + t * static_cast<uint32_t>(n * 4);
  for (int j = 0; j < n; ++j) inst::st.global.f32(ptx::addr(prow, 4 * j), d[static_cast<size_t>(j)]);
  bw::fence_before_thread_sync();
  inst::bar.sync(0);
  ptx::if_(w0, [&] {
    bw::fence_after_thread_sync();
    bw::tmem_dealloc(tmem, 128);
  });
  ptx::ret();
}

}  // namespace detail

// n: 8..64 (D columns).
inline ptx::Kernel tcgen05_mma_probe(int n, const ProbeIssue& issue) {
  using namespace ptx::types;
  return ptx::kernel("tcgen05_mma_probe")
      .in(ptx::tensor(u32, {static_cast<int64_t>(probe_image_bytes(n) / 4)}))
      .in(ptx::tensor(u32, {128 + 64}))
      .out(ptx::tensor(f32, {128, n}))
      .block(128)
      .arch("sm_100a")
      .body([=](ptx::Tensor img, ptx::Tensor sf, ptx::Tensor out) {
        detail::probe_body(n, kProbeRowBytes, img, &sf, nullptr, out,
                           [&](const ptx::Reg& tmem, const ptx::Reg& da, const ptx::Reg& db) {
                             ptx::Reg sfa = tmem + static_cast<uint32_t>(kProbeScaleAColumn);
                             ptx::Reg sfb = tmem + static_cast<uint32_t>(kProbeScaleBColumn);
                             issue(tmem, da, db, sfa, sfb);
                           });
      });
}

// n: 8..64 (D columns); A's rows hold its non-zero half, B's rows 64 bytes.
inline ptx::Kernel tcgen05_mma_sparse_probe(int n, const SparseProbeIssue& issue) {
  using namespace ptx::types;
  return ptx::kernel("tcgen05_mma_sparse_probe")
      .in(ptx::tensor(u32, {static_cast<int64_t>(probe_image_bytes(n, kSparseProbeBRowBytes) / 4)}))
      .in(ptx::tensor(u32, {128, 2}))
      .out(ptx::tensor(f32, {128, n}))
      .block(128)
      .arch("sm_100a")
      .body([=](ptx::Tensor img, ptx::Tensor meta, ptx::Tensor out) {
        detail::probe_body(n, kSparseProbeBRowBytes, img, nullptr, &meta, out,
                           [&](const ptx::Reg& tmem, const ptx::Reg& da, const ptx::Reg& db) {
                             ptx::Reg pm = tmem + static_cast<uint32_t>(kSparseProbeMetaColumn);
                             issue(tmem, da, db, pm);
                           });
      });
}

}  // namespace examples
