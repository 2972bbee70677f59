// The DSL's TMA modes past the tile load, run on the CPU device: every reduction operation,
// a store with an L2 cache hint after a prefetch, an im2col load, and Blackwell's row
// gather and scatter, each against a host computation.
#include <cstring>
#include <numeric>
#include <vector>

#include <gtest/gtest.h>
#include <ptxpp/dsl.hpp>
#include <ptxpp/runtime.hpp>

namespace ptx::test {
namespace {

using namespace ptx::types;
using namespace ptx::hopper;
namespace inst = ptx::inst;

constexpr int kWords = 64;

// One CTA of 64 threads: thread t copies src[t] to shared memory, then thread 0 reduces the
// buffer into the 1-D tensor behind `m` with `op` and waits for it.
ptx::Kernel reduce_kernel(TmaReduceOp op, DType t) {
  return ptx::kernel("tma_reduce")
      .tensor_map("m")
      .in("src", ptx::tensor(t, {kWords}))
      .block(kWords)
      .arch("sm_90a")
      .body([op, t](ptx::TensorMapParam m, ptx::Tensor src) {
        auto buf = ptx::smem::alloc(t, {kWords}, 128);
        ptx::Reg tid = ptx::read(ptx::special::tid.x(), u32);
        ptx::Reg off = tid * 4u;
        ptx::Reg off64(u64);
        inst::cvt.u64.u32(off64, off);
        ptx::Reg p = src.global_ptr() + off64;
        ptx::Reg v(b32);
        inst::ld.global.b32(v, ptx::addr(p));
        ptx::Reg s = buf.base() + off;
        inst::st.shared.b32(ptx::addr(s), v);
        fence_proxy_async();
        inst::bar.sync(0);
        ptx::Reg first = tid == 0u;
        ptx::Reg map = m.generic_address();
        tma_reduce(op, map, {0}, buf.addr(0), {.guard = &first});
        bulk_commit();
        bulk_wait(0);
        ptx::ret();
      });
}

// What one element becomes: the ISA's definitions of the operations on 32-bit integers.
uint32_t reduce_u32(TmaReduceOp op, uint32_t old, uint32_t v, bool is_signed) {
  const auto so = static_cast<int32_t>(old), sv = static_cast<int32_t>(v);
  switch (op) {
    case TmaReduceOp::add: return old + v;
    case TmaReduceOp::min: return is_signed ? static_cast<uint32_t>(std::min(so, sv)) : std::min(old, v);
    case TmaReduceOp::max: return is_signed ? static_cast<uint32_t>(std::max(so, sv)) : std::max(old, v);
    case TmaReduceOp::inc: return old >= v ? 0 : old + 1;
    case TmaReduceOp::dec: return old == 0 || old > v ? v : old - 1;
    case TmaReduceOp::bit_and: return old & v;
    case TmaReduceOp::bit_or: return old | v;
    case TmaReduceOp::bit_xor: return old ^ v;
  }
  return 0;
}

template <class T>
std::vector<T> run_reduce(TmaReduceOp op, DType t, TmaType map_type, const std::vector<T>& dst, const std::vector<T>& src) {
  Device cpu = device::cpu();
  const size_t bytes = kWords * 4;
  DevicePtr d = cpu.alloc(bytes, "dst"), s = cpu.alloc(bytes, "src");
  cpu.copy_to_device(d, dst.data(), bytes);
  cpu.copy_to_device(s, src.data(), bytes);
  TensorMapSpec spec;
  spec.type = map_type;
  spec.dims = {kWords};
  spec.box = {kWords};
  const TensorMap map = make_tensor_map(cpu, d, spec);
  bind(cpu, reduce_kernel(op, t))(map, s);
  cpu.synchronize();
  std::vector<T> got(kWords);
  cpu.copy_to_host(got.data(), d, bytes);
  cpu.free(d);
  cpu.free(s);
  return got;
}

TEST(TmaModesOnEmulator, EveryReductionOpOnIntegers) {
  std::vector<uint32_t> dst(kWords), src(kWords);
  for (uint32_t i = 0; i < kWords; ++i) {
    dst[i] = i * 2654435761u;          // large and small, both signs as s32
    src[i] = i % 5 == 0 ? dst[i] : (i * 40503u) ^ (i % 3 == 0 ? 0x80000000u : 0u);
  }
  dst[1] = 0, src[1] = 7;  // dec at 0 wraps to src; inc at src resets
  dst[2] = 9, src[2] = 9;
  for (TmaReduceOp op : {TmaReduceOp::add, TmaReduceOp::min, TmaReduceOp::max, TmaReduceOp::inc, TmaReduceOp::dec,
                         TmaReduceOp::bit_and, TmaReduceOp::bit_or, TmaReduceOp::bit_xor}) {
    const auto got = run_reduce<uint32_t>(op, u32, TmaType::u32, dst, src);
    for (int i = 0; i < kWords; ++i)
      ASSERT_EQ(got[i], reduce_u32(op, dst[i], src[i], false)) << reduce_op_modifier(op) << " element " << i;
  }
  for (TmaReduceOp op : {TmaReduceOp::min, TmaReduceOp::max}) {
    const auto got = run_reduce<uint32_t>(op, s32, TmaType::s32, dst, src);
    for (int i = 0; i < kWords; ++i)
      ASSERT_EQ(got[i], reduce_u32(op, dst[i], src[i], true)) << reduce_op_modifier(op) << ".s32 element " << i;
  }
}

TEST(TmaModesOnEmulator, AddMinMaxOnFloats) {
  std::vector<float> dst(kWords), src(kWords);
  for (int i = 0; i < kWords; ++i) dst[i] = 0.25f * static_cast<float>(i - 30), src[i] = 0.5f * static_cast<float>(17 - i);
  for (TmaReduceOp op : {TmaReduceOp::add, TmaReduceOp::min, TmaReduceOp::max}) {
    const auto got = run_reduce<float>(op, f32, TmaType::f32, dst, src);
    for (int i = 0; i < kWords; ++i) {
      const float want = op == TmaReduceOp::add ? dst[i] + src[i] : op == TmaReduceOp::min ? std::min(dst[i], src[i]) : std::max(dst[i], src[i]);
      ASSERT_EQ(got[i], want) << reduce_op_modifier(op) << " element " << i;
    }
  }
}

// A 2-D f32 tile: prefetched, loaded, scaled by 2 and stored back with an evict-first hint.
TEST(TmaModesOnEmulator, PrefetchLoadAndStoreWithCacheHint) {
  constexpr int W = 32, H = 8;
  auto k = ptx::kernel("tma_store_hint").tensor_map("m").block(W).arch("sm_90a").body([](ptx::TensorMapParam m) {
    auto buf = ptx::smem::alloc(f32, {H, W}, 128);
    auto bars = ptx::smem::alloc(b64, {1}, 8);
    Mbarrier bar(bars.addr(0));
    ptx::Reg tid = ptx::read(ptx::special::tid.x(), u32);
    ptx::Reg first = tid == 0u;
    ptx::Reg map = m.generic_address();
    ptx::Reg policy(b64);
    inst::createpolicy.fractional.L2_evict_first.b64(policy, 1.0f);
    bar.init(1, &first);
    fence_mbarrier_init();
    inst::bar.sync(0);
    tma_prefetch(map, {0, 0}, {.guard = &first, .cache_hint = &policy});
    bar.arrive_expect_tx(W * H * 4, &first);
    tma_load(buf.addr(0), map, {0, 0}, bar, {.guard = &first});
    bar.wait(0);
    for (int r = 0; r < H; ++r) {
      ptx::Reg a = buf.base() + (tid * 4u);
      ptx::Reg v(f32);
      inst::ld.shared.f32(v, ptx::addr(a, r * W * 4));
      inst::add.f32(v, v, v);
      inst::st.shared.f32(ptx::addr(a, r * W * 4), v);
    }
    fence_proxy_async();
    inst::bar.sync(0);
    tma_store(map, {0, 0}, buf.addr(0), {.guard = &first, .cache_hint = &policy});
    bulk_commit();
    bulk_wait(0);
    ptx::ret();
  });
  Device cpu = device::cpu();
  std::vector<float> host(W * H);
  std::iota(host.begin(), host.end(), -10.0f);
  DevicePtr d = cpu.alloc(host.size() * 4, "t");
  cpu.copy_to_device(d, host.data(), host.size() * 4);
  TensorMapSpec spec;
  spec.type = TmaType::f32;
  spec.dims = {W, H};
  spec.box = {W, H};
  bind(cpu, k)(make_tensor_map(cpu, d, spec));
  cpu.synchronize();
  std::vector<float> got(host.size());
  cpu.copy_to_host(got.data(), d, got.size() * 4);
  cpu.free(d);
  for (size_t i = 0; i < got.size(); ++i) ASSERT_EQ(got[i], 2 * host[i]) << i;
}

// An im2col load of a {C = 8, W = 10, N = 3} f32 tensor (bounding box the whole row, 8 pixels
// of 8 channels per column) from output pixel w = 7 of image 1 with filter offset 1: the
// pixels run 7, 8, 9 of image 1 then 0 .. 4 of image 2, each reading input w + 1 (w = 10 is
// past the row: zeros).
TEST(TmaModesOnEmulator, Im2colLoadWithAFilterOffset) {
  constexpr int C = 8, W = 10, N = 3, P = 8;
  auto k = ptx::kernel("tma_im2col").tensor_map("m").out("out", ptx::tensor(f32, {P * C})).block(32).arch("sm_90a")
               .body([](ptx::TensorMapParam m, ptx::Tensor out) {
                 auto buf = ptx::smem::alloc(f32, {P * C}, 128);
                 auto bars = ptx::smem::alloc(b64, {1}, 8);
                 Mbarrier bar(bars.addr(0));
                 ptx::Reg tid = ptx::read(ptx::special::tid.x(), u32);
                 ptx::Reg first = tid == 0u;
                 ptx::Reg map = m.generic_address();
                 ptx::Reg offset(u16);
                 inst::mov.u16(offset, 1);
                 bar.init(1, &first);
                 fence_mbarrier_init();
                 inst::bar.sync(0);
                 tma_prefetch_im2col(map, {0, 7, 1}, {offset}, {.guard = &first});
                 bar.arrive_expect_tx(P * C * 4, &first);
                 tma_load_im2col(buf.addr(0), map, {0, 7, 1}, {offset}, bar, {.guard = &first});
                 bar.wait(0);
                 ptx::Reg po = out.global_ptr();
                 for (int i = 0; i < P * C / 32; ++i) {
                   ptx::Reg idx = tid + static_cast<uint32_t>(32 * i);
                   ptx::Reg off = idx * 4u;
                   ptx::Reg a = buf.base() + off;
                   ptx::Reg v(f32);
                   inst::ld.shared.f32(v, ptx::addr(a));
                   ptx::Reg off64(u64);
                   inst::cvt.u64.u32(off64, off);
                   ptx::Reg g = po + off64;
                   inst::st.global.f32(ptx::addr(g), v);
                 }
                 ptx::ret();
               });
  Device cpu = device::cpu();
  std::vector<float> t(C * W * N);
  for (size_t i = 0; i < t.size(); ++i) t[i] = static_cast<float>(i) + 0.5f;
  DevicePtr d = cpu.alloc(t.size() * 4, "t"), o = cpu.alloc(P * C * 4, "out");
  cpu.copy_to_device(d, t.data(), t.size() * 4);
  TensorMapSpec spec;
  spec.mode = TensorMapSpec::Mode::im2col;
  spec.type = TmaType::f32;
  spec.dims = {C, W, N};
  spec.box = {1, 1, 1};
  spec.lower = {0};
  spec.upper = {0};
  spec.channels_per_pixel = C;
  spec.pixels_per_column = P;
  bind(cpu, k)(make_tensor_map(cpu, d, spec), o);
  cpu.synchronize();
  std::vector<float> got(P * C);
  cpu.copy_to_host(got.data(), o, got.size() * 4);
  cpu.free(d);
  cpu.free(o);
  const int pixel_w[P] = {7, 8, 9, 0, 1, 2, 3, 4}, pixel_n[P] = {1, 1, 1, 2, 2, 2, 2, 2};
  for (int p = 0; p < P; ++p)
    for (int c = 0; c < C; ++c) {
      const int w = pixel_w[p] + 1;
      const float want = w < W ? t[static_cast<size_t>((pixel_n[p] * W + w) * C + c)] : 0.0f;
      ASSERT_EQ(got[static_cast<size_t>(p * C + c)], want) << "pixel " << p << " channel " << c;
    }
}

// Blackwell's row gather and scatter: rows {5, 0, 15, 5} of a 16 x 32 u32 matrix gathered,
// 1000 added, and scattered to rows {3, 9, 0, 12} of another; the other rows stay 0.
TEST(TmaModesOnEmulator, Gather4ThenScatter4) {
  constexpr int R = 16, C = 32;
  auto k = ptx::kernel("tma_gather").tensor_map("in").tensor_map("out").block(32).arch("sm_100a")
               .body([](ptx::TensorMapParam in, ptx::TensorMapParam out) {
                 auto buf = ptx::smem::alloc(u32, {4, C}, 128);
                 auto bars = ptx::smem::alloc(b64, {1}, 8);
                 Mbarrier bar(bars.addr(0));
                 ptx::Reg tid = ptx::read(ptx::special::tid.x(), u32);
                 ptx::Reg first = tid == 0u;
                 ptx::Reg five(s32);
                 inst::mov.s32(five, 5);
                 bar.init(1, &first);
                 fence_mbarrier_init();
                 inst::bar.sync(0);
                 bar.arrive_expect_tx(4 * C * 4, &first);
                 ptx::blackwell::tma_load_gather4(buf.addr(0), in.generic_address(), 0, {five, 0, 15, five}, bar, {.guard = &first});
                 bar.wait(0);
                 for (int r = 0; r < 4; ++r) {
                   ptx::Reg a = buf.base() + (tid * 4u);
                   ptx::Reg v(u32);
                   inst::ld.shared.u32(v, ptx::addr(a, r * C * 4));
                   inst::add.u32(v, v, 1000);
                   inst::st.shared.u32(ptx::addr(a, r * C * 4), v);
                 }
                 fence_proxy_async();
                 inst::bar.sync(0);
                 ptx::blackwell::tma_store_scatter4(out.generic_address(), 0, {3, 9, 0, 12}, buf.addr(0), {.guard = &first});
                 bulk_commit();
                 bulk_wait(0);
                 ptx::ret();
               });
  Device cpu = device::cpu();
  std::vector<uint32_t> a(R * C), zero(R * C, 0);
  std::iota(a.begin(), a.end(), 1u);
  DevicePtr da = cpu.alloc(a.size() * 4, "in"), db = cpu.alloc(a.size() * 4, "out");
  cpu.copy_to_device(da, a.data(), a.size() * 4);
  cpu.copy_to_device(db, zero.data(), zero.size() * 4);
  TensorMapSpec spec;
  spec.type = TmaType::u32;
  spec.dims = {C, R};
  spec.box = {C, 1};
  bind(cpu, k)(make_tensor_map(cpu, da, spec), make_tensor_map(cpu, db, spec));
  cpu.synchronize();
  std::vector<uint32_t> got(a.size());
  cpu.copy_to_host(got.data(), db, got.size() * 4);
  cpu.free(da);
  cpu.free(db);
  const int from_row[R] = {15, -1, -1, 5, -1, -1, -1, -1, -1, 0, -1, -1, 5, -1, -1, -1};
  for (int r = 0; r < R; ++r)
    for (int c = 0; c < C; ++c) {
      const uint32_t want = from_row[r] < 0 ? 0u : a[static_cast<size_t>(from_row[r] * C + c)] + 1000u;
      ASSERT_EQ(got[static_cast<size_t>(r * C + c)], want) << "row " << r << " column " << c;
    }
}

// A tensor map edited on the device: a template map (a placeholder address, 100 rows) copied
// to shared memory, its address and row count replaced, published to a global workspace and
// acquired before a TMA load through it. The box of 8 rows past the new 5 rows reads zeros.
TEST(TmaModesOnEmulator, TensormapEditedOnTheDevice) {
  constexpr int C = 32, BoxRows = 8, Rows = 5;
  auto k = ptx::kernel("tma_edit")
               .in("tmpl", ptx::tensor(u8, {128}))
               .in("src", ptx::tensor(f32, {Rows, C}))
               .scalar("rows", u32)
               .out("ws", ptx::tensor(u8, {128}))
               .out("out", ptx::tensor(f32, {BoxRows, C}))
               .block(32)
               .arch("sm_90a")
               .body([](ptx::Tensor tmpl, ptx::Tensor src, ptx::Scalar rows, ptx::Tensor ws, ptx::Tensor out) {
                 auto smap = ptx::smem::alloc(b64, {16}, 128);
                 auto buf = ptx::smem::alloc(f32, {BoxRows, C}, 128);
                 auto bars = ptx::smem::alloc(b64, {1}, 8);
                 Mbarrier bar(bars.addr(0));
                 ptx::Reg tid = ptx::read(ptx::special::tid.x(), u32);
                 ptx::Reg first = tid == 0u;
                 ptx::Reg half = tid < 16u;
                 ptx::Reg off = tid * 8u;
                 ptx::Reg off64(u64);
                 inst::cvt.u64.u32(off64, off);
                 ptx::Reg from = tmpl.global_ptr() + off64;
                 ptx::Reg word(b64);
                 ptx::Reg to = smap.base() + off;
                 ptx::if_(half, [&] {
                   inst::ld.global.b64(word, ptx::addr(from));
                   inst::st.shared.b64(ptx::addr(to), word);
                 });
                 inst::bar.sync(0);
                 ptx::Reg n = rows.load();
                 ptx::Reg data = src.ptr();
                 ptx::if_(first, [&] {
                   tensormap_replace_global_address(TensormapSpace::shared, smap.addr(0), data);
                   tensormap_replace_global_dim(TensormapSpace::shared, smap.addr(0), 1, n);
                 });
                 inst::bar.sync(0);
                 ptx::Reg gmap = ws.global_ptr();
                 tensormap_publish(ptx::addr(gmap), smap.addr(0));
                 ptx::Reg map = ws.ptr();
                 bar.init(1, &first);
                 fence_mbarrier_init();
                 inst::bar.sync(0);
                 ptx::if_(first, [&] {
                   tensormap_acquire(map);
                   bar.arrive_expect_tx(BoxRows * C * 4);
                   tma_load(buf.addr(0), map, {0, 0}, bar);
                 });
                 bar.wait(0);
                 ptx::Reg po = out.global_ptr();
                 for (int r = 0; r < BoxRows; ++r) {
                   ptx::Reg a = buf.base() + (tid * 4u);
                   ptx::Reg v(f32);
                   inst::ld.shared.f32(v, ptx::addr(a, r * C * 4));
                   ptx::Reg o = tid * 4u;
                   ptx::Reg o64(u64);
                   inst::cvt.u64.u32(o64, o);
                   ptx::Reg g = po + o64;
                   inst::st.global.f32(ptx::addr(g, r * C * 4), v);
                 }
                 ptx::ret();
               });
  Device cpu = device::cpu();
  std::vector<float> data(Rows * C);
  std::iota(data.begin(), data.end(), 1.0f);
  DevicePtr placeholder = cpu.alloc(100 * C * 4, "placeholder"), d = cpu.alloc(data.size() * 4, "src");
  DevicePtr tm = cpu.alloc(128, "template"), ws = cpu.alloc(128, "workspace"), o = cpu.alloc(BoxRows * C * 4, "out");
  cpu.copy_to_device(d, data.data(), data.size() * 4);
  cpu.fill(o, 0xff, BoxRows * C * 4);
  TensorMapSpec spec;
  spec.type = TmaType::f32;
  spec.dims = {C, 100};
  spec.box = {C, BoxRows};
  const TensorMap tmpl = make_tensor_map(cpu, placeholder, spec);
  cpu.copy_to_device(tm, tmpl.bytes.data(), 128);
  bind(cpu, k)(tm, d, uint32_t{Rows}, ws, o);
  cpu.synchronize();
  std::vector<float> got(BoxRows * C);
  cpu.copy_to_host(got.data(), o, got.size() * 4);
  for (DevicePtr p : {placeholder, d, tm, ws, o}) cpu.free(p);
  for (int r = 0; r < BoxRows; ++r)
    for (int c = 0; c < C; ++c)
      ASSERT_EQ(got[static_cast<size_t>(r * C + c)], r < Rows ? data[static_cast<size_t>(r * C + c)] : 0.0f) << "row " << r << " column " << c;
}

}  // namespace
}  // namespace ptx::test
