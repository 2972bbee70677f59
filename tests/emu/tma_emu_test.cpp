// TMA tensor copies on the emulator (cp.async.bulk.tensor): tile loads with every
// swizzle mode, out-of-bounds fill, multicast to the CTAs of a cluster, stores and
// reductions. Tensor maps are the CPU device's encoding (emu::encode); the kernels are
// written by hand and also assembled by ptxas for sm_90a; expected tiles are computed
// here from the swizzle as CUDA documents it (CU_TENSOR_MAP_SWIZZLE_32B/64B/128B: the
// 16-byte chunk index within each 128-byte row XOR the row index modulo 2, 4, 8).
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <algorithm>
#include <map>
#include <tuple>
#include <string>
#include <vector>

#include "../unit/ptxas_util.hpp"
#include "emu_test_util.hpp"
#include "ptxpp/emu/tensor_map.hpp"
#include "ptxpp/runtime.hpp"

namespace ptx::test {
namespace {

void expect_assembles(const std::string& text, const char* arch = "sm_90a") {
  if (!have_ptxas()) return;
  const auto r = run_ptxas(text, arch);
  EXPECT_TRUE(r.ok) << r.log;
}

std::string subst(std::string text, const std::map<std::string, std::string>& vars) {
  for (const auto& [k, v] : vars)
    for (size_t at; (at = text.find(k)) != std::string::npos;) text.replace(at, k.size(), v);
  return text;
}

int line_of(const std::string& text, const std::string& what) {
  const size_t at = text.find(what);
  return at == std::string::npos ? 0 : 1 + static_cast<int>(std::count(text.begin(), text.begin() + static_cast<long>(at), '\n'));
}

emu::Arg map_arg(const emu::TensorMapDesc& d) {
  emu::Arg a;
  const auto b = emu::encode(d);
  a.bytes.assign(b.begin(), b.end());
  return a;
}

constexpr uint32_t kF32 = 7;  // CU_TENSOR_MAP_DATA_TYPE_FLOAT32

// A 2D (or 3D) f32 tensor map over `base`: dims innermost first, rows of `row_bytes`.
emu::TensorMapDesc f32_map(uint64_t base, std::vector<uint64_t> dims, std::vector<uint64_t> strides, std::vector<uint16_t> box,
                           uint8_t swizzle = 0, bool nan_fill = false) {
  emu::TensorMapDesc d;
  d.dtype = kF32;
  d.rank = static_cast<uint8_t>(dims.size());
  d.swizzle = swizzle;
  d.oob_nan = nan_fill;
  d.base = base;
  d.strides[0] = 4;
  for (size_t i = 0; i < dims.size(); ++i) {
    d.dims[i] = dims[i];
    d.box[i] = box[i];
    d.element_strides[i] = 1;
    if (i) d.strides[i] = strides[i - 1];
  }
  return d;
}

// Where chunk q (16 bytes) of the dense box lands in shared memory (the box at a 1024-byte boundary).
uint32_t swizzled_chunk(uint32_t q, uint8_t swizzle) {
  const uint32_t mask = swizzle == 0 ? 0 : (1u << swizzle) - 1;
  return q ^ ((q >> 3) & mask);
}

// The shared-memory image of a box of a W x H (x D) f32 tensor at (x0, y0, z0).
std::vector<uint32_t> expected_tile(const std::vector<float>& t, int64_t W, int64_t H, int64_t D, int64_t bx, int64_t by, int64_t bz, int64_t x0,
                                    int64_t y0, int64_t z0, uint8_t swizzle, bool nan_fill) {
  std::vector<uint32_t> dense(static_cast<size_t>(bx * by * bz));
  for (int64_t k = 0; k < bz; ++k)
    for (int64_t j = 0; j < by; ++j)
      for (int64_t i = 0; i < bx; ++i) {
        const int64_t x = x0 + i, y = y0 + j, z = z0 + k;
        uint32_t v = nan_fill ? 0x7FFFFFFFu : 0u;
        if (x >= 0 && x < W && y >= 0 && y < H && z >= 0 && z < D) std::memcpy(&v, &t[static_cast<size_t>((z * H + y) * W + x)], 4);
        dense[static_cast<size_t>((k * by + j) * bx + i)] = v;
      }
  std::vector<uint32_t> out(dense.size());
  for (uint32_t q = 0; q < dense.size() / 4; ++q)
    for (uint32_t e = 0; e < 4; ++e) out[swizzled_chunk(q, swizzle) * 4 + e] = dense[q * 4 + e];
  return out;
}

// Thread 0 loads a box into shared memory (an L2 prefetch of it first, with a cache
// policy); all threads wait on the mbarrier and copy the raw shared-memory tile out.
const std::string kLoad = R"(.version 8.0
.target sm_90a
.address_size 64

.visible .entry load(.param .align 64 .b8 tmap[128], .param .u64 out, .param .u32 x0, .param .u32 y0, .param .u32 z0)
{
	.reg .pred %p<6>;
	.reg .b32 %r<20>;
	.reg .b64 %rd<12>;
	.shared .align 1024 .b8 tile[BYTES];
	.shared .align 8 .b64 bar;
	mov.u32 %r1, %tid.x;
	setp.eq.u32 %p1, %r1, 0;
	mov.u32 %r2, bar;
	mov.u32 %r3, tile;
	@%p1 mbarrier.init.shared::cta.b64 [%r2], 1;
	fence.mbarrier_init.release.cluster;
	bar.sync 0;
	ld.param.u32 %r4, [x0];
	ld.param.u32 %r5, [y0];
	ld.param.u32 %r6, [z0];
	mov.b64 %rd1, tmap;
	cvta.param.u64 %rd2, %rd1;
	createpolicy.fractional.L2::evict_last.b64 %rd9, 1.0;
	@%p1 cp.async.bulk.prefetch.tensor.DIM.L2.global.tile [%rd2, COORDS];
	@%p1 mbarrier.arrive.expect_tx.shared::cta.b64 _, [%r2], BYTES;
	@%p1 cp.async.bulk.tensor.DIM.shared::cluster.global.tile.mbarrier::complete_tx::bytes.L2::cache_hint [%r3], [%rd2, COORDS], [%r2], %rd9;
$wait:
	mbarrier.try_wait.parity.shared::cta.b64 %p2, [%r2], 0;
	@!%p2 bra $wait;
	ld.param.u64 %rd3, [out];
	cvta.to.global.u64 %rd3, %rd3;
	mov.u32 %r7, %r1;
$copy:
	setp.ge.u32 %p3, %r7, WORDS;
	@%p3 bra $done;
	shl.b32 %r8, %r7, 2;
	add.u32 %r9, %r3, %r8;
	ld.shared.u32 %r10, [%r9];
	mul.wide.u32 %rd4, %r7, 4;
	add.u64 %rd5, %rd3, %rd4;
	st.global.u32 [%rd5], %r10;
	add.u32 %r7, %r7, 64;
	bra $copy;
$done:
	ret;
}
)";

// dims 3: z from the parameter z0; dims 4: a 3D copy with z the immediate 4
std::string load_kernel(uint32_t bytes, int dims) {
  return subst(kLoad, {{"BYTES", std::to_string(bytes)},
                       {"WORDS", std::to_string(bytes / 4)},
                       {"DIM", dims == 2 ? "2d" : "3d"},
                       {"COORDS", dims == 2 ? "{%r4, %r5}" : dims == 3 ? "{%r4, %r5, %r6}" : "{%r4, %r5, 4}"}});
}

struct Tensor2d {
  int64_t W = 80, H = 40;
  std::vector<float> data = random_floats(80 * 40, 7);
};

// Runs the load kernel on a W x H f32 tensor; returns the raw tile.
std::vector<uint32_t> run_load(const Tensor2d& t, uint16_t bx, uint16_t by, int32_t x0, int32_t y0, uint8_t swizzle, bool nan_fill = false) {
  EmuRun r;
  const uint64_t g = r.emu.memory().alloc(t.data.size() * 4, "tensor");
  r.emu.memory().write(g, t.data.data(), t.data.size() * 4);
  const uint32_t bytes = bx * by * 4u;
  r.args.push_back(map_arg(f32_map(g, {uint64_t(t.W), uint64_t(t.H)}, {uint64_t(t.W) * 4}, {bx, by}, swizzle, nan_fill)));
  const uint64_t out = r.buffer(std::vector<uint32_t>(bytes / 4), "out");
  r.scalar(x0);
  r.scalar(y0);
  r.scalar(int32_t{0});
  r.launch(load_kernel(bytes, 2), "load", {1, 1, 1}, {64, 1, 1});
  return r.read<uint32_t>(out, bytes / 4);
}

class Swizzle : public ::testing::TestWithParam<uint8_t> {};

TEST_P(Swizzle, Load2dTileMatchesTheSwizzlePattern) {
  const uint8_t sw = GetParam();
  const uint16_t bx = sw == 0 ? 32 : static_cast<uint16_t>(4u << sw);  // rows of 128, 32, 64, 128 bytes
  const uint16_t by = 16;
  const Tensor2d t;
  const auto got = run_load(t, bx, by, 8, 4, sw);
  const auto want = expected_tile(t.data, t.W, t.H, 1, bx, by, 1, 8, 4, 0, sw, false);
  ASSERT_EQ(got.size(), want.size());
  for (size_t i = 0; i < want.size(); ++i) ASSERT_EQ(got[i], want[i]) << "word " << i << " swizzle " << int(sw);
  if (sw != 0) {  // and the swizzle does move data
    const auto plain = expected_tile(t.data, t.W, t.H, 1, bx, by, 1, 8, 4, 0, 0, false);
    EXPECT_NE(got, plain);
  }
  expect_assembles(load_kernel(bx * by * 4u, 2));
}

INSTANTIATE_TEST_SUITE_P(Modes, Swizzle, ::testing::Values(uint8_t{0}, uint8_t{1}, uint8_t{2}, uint8_t{3}));

TEST(EmuTma, OutOfBoundsElementsAreFilled) {
  const Tensor2d t;
  for (const auto& [x0, y0] : std::vector<std::pair<int32_t, int32_t>>{{64, 36}, {-8, -3}, {70, -5}}) {
    for (bool nan : {false, true}) {
      const auto got = run_load(t, 32, 8, x0, y0, 3, nan);
      const auto want = expected_tile(t.data, t.W, t.H, 1, 32, 8, 1, x0, y0, 0, 3, nan);
      for (size_t i = 0; i < want.size(); ++i) ASSERT_EQ(got[i], want[i]) << "word " << i << " at (" << x0 << "," << y0 << ") nan " << nan;
    }
  }
}

TEST(EmuTma, Load3dWithPaddedStrides) {
  // a 24 x 10 x 6 tensor with rows of 32 floats and planes of 12 rows (padding never read)
  const int64_t W = 24, H = 10, D = 6, row = 32, plane = 12 * row;
  const auto raw = random_floats(static_cast<size_t>(plane * D), 11);
  std::vector<float> packed(static_cast<size_t>(W * H * D));
  for (int64_t z = 0; z < D; ++z)
    for (int64_t y = 0; y < H; ++y)
      for (int64_t x = 0; x < W; ++x) packed[static_cast<size_t>((z * H + y) * W + x)] = raw[static_cast<size_t>(z * plane + y * row + x)];
  EmuRun r;
  const uint64_t g = r.emu.memory().alloc(raw.size() * 4, "tensor");
  r.emu.memory().write(g, raw.data(), raw.size() * 4);
  const uint16_t bx = 8, by = 4, bz = 4;
  const uint32_t bytes = bx * by * bz * 4u;
  r.args.push_back(map_arg(f32_map(g, {W, H, D}, {row * 4, plane * 4}, {bx, by, bz})));
  const uint64_t out = r.buffer(std::vector<uint32_t>(bytes / 4), "out");
  r.scalar(int32_t{20});
  r.scalar(int32_t{3});
  r.scalar(int32_t{4});
  const auto want = expected_tile(packed, W, H, D, bx, by, bz, 20, 3, 4, 0, false);
  for (int form : {3, 4}) {  // z from a register, then an immediate coordinate
    const std::string text = load_kernel(bytes, form);
    r.emu.memory().fill(out, 0, bytes);
    r.launch(text, "load", {1, 1, 1}, {64, 1, 1});
    const auto got = r.read<uint32_t>(out, bytes / 4);
    for (size_t i = 0; i < want.size(); ++i) ASSERT_EQ(got[i], want[i]) << "word " << i << " form " << form;
    expect_assembles(text);
  }
}

// The runtime's tensor map for the CPU device (make_tensor_map from a TensorMapSpec) means
// what the emulator's copies read: the same 3D strided box as above, swizzled by 64 bytes.
TEST(EmuTma, RuntimeTensorMapsDriveTheCopies) {
  const int64_t W = 24, H = 10, D = 6, row = 32, plane = 12 * row;
  const auto raw = random_floats(static_cast<size_t>(plane * D), 13);
  std::vector<float> packed(static_cast<size_t>(W * H * D));
  for (int64_t z = 0; z < D; ++z)
    for (int64_t y = 0; y < H; ++y)
      for (int64_t x = 0; x < W; ++x) packed[static_cast<size_t>((z * H + y) * W + x)] = raw[static_cast<size_t>(z * plane + y * row + x)];
  ptx::Device cpu = ptx::device::cpu();
  ptx::DevicePtr a = cpu.alloc(raw.size() * 4);
  ptx::TensorMapSpec spec;
  spec.type = ptx::TmaType::f32;
  spec.dims = {uint64_t(W), uint64_t(H), uint64_t(D)};
  spec.strides = {uint64_t(row) * 4, uint64_t(plane) * 4};
  spec.box = {16, 4, 4};
  spec.swizzle = ptx::TmaSwizzle::b64;
  const ptx::TensorMap m = ptx::make_tensor_map(cpu, a, spec);
  cpu.free(a);
  // the same description over a buffer of this emulator
  EmuRun r;
  const uint64_t g = r.emu.memory().alloc(raw.size() * 4, "tensor");
  r.emu.memory().write(g, raw.data(), raw.size() * 4);
  auto d = emu::decode(m.bytes.data());
  ASSERT_TRUE(d.has_value());
  d->base = g;
  r.args.push_back(map_arg(*d));
  const uint32_t bytes = 16 * 4 * 4 * 4;
  const uint64_t out = r.buffer(std::vector<uint32_t>(bytes / 4), "out");
  r.scalar(int32_t{12});
  r.scalar(int32_t{-1});
  r.scalar(int32_t{3});
  r.launch(load_kernel(bytes, 3), "load", {1, 1, 1}, {64, 1, 1});
  const auto got = r.read<uint32_t>(out, bytes / 4);
  const auto want = expected_tile(packed, W, H, D, 16, 4, 4, 12, -1, 3, 2, false);
  for (size_t i = 0; i < want.size(); ++i) ASSERT_EQ(got[i], want[i]) << "word " << i;
}

// Rank 0 of a 2-CTA cluster loads one box into both CTAs' shared memory
// (.multicast::cluster, ctaMask 0b11); each CTA waits on its own mbarrier.
const std::string kMulticast = R"(.version 8.0
.target sm_90a
.address_size 64

.visible .entry mc(.param .align 64 .b8 tmap[128], .param .u64 out, .param .u32 x0, .param .u32 y0)
{
	.reg .pred %p<6>;
	.reg .b16 %rs<2>;
	.reg .b32 %r<20>;
	.reg .b64 %rd<12>;
	.shared .align 1024 .b8 tile[4096];
	.shared .align 8 .b64 bar;
	mov.u32 %r1, %tid.x;
	setp.eq.u32 %p1, %r1, 0;
	mov.u32 %r2, bar;
	mov.u32 %r3, tile;
	mov.u32 %r11, %cluster_ctarank;
	@%p1 mbarrier.init.shared::cta.b64 [%r2], 1;
	fence.mbarrier_init.release.cluster;
	barrier.cluster.arrive.release.aligned;
	barrier.cluster.wait.acquire.aligned;
	@%p1 mbarrier.arrive.expect_tx.shared::cta.b64 _, [%r2], 4096;
	ld.param.u32 %r4, [x0];
	ld.param.u32 %r5, [y0];
	mov.b64 %rd1, tmap;
	cvta.param.u64 %rd2, %rd1;
	setp.eq.u32 %p4, %r11, 0;
	and.pred %p4, %p4, %p1;
	mov.u16 %rs1, 3;
	@%p4 cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes.multicast::cluster [%r3], [%rd2, {%r4, %r5}], [%r2], %rs1;
$wait:
	mbarrier.try_wait.parity.shared::cta.b64 %p2, [%r2], 0;
	@!%p2 bra $wait;
	ld.param.u64 %rd3, [out];
	cvta.to.global.u64 %rd3, %rd3;
	mul.wide.u32 %rd6, %r11, 4096;
	add.u64 %rd3, %rd3, %rd6;
	mov.u32 %r7, %r1;
$copy:
	setp.ge.u32 %p3, %r7, 1024;
	@%p3 bra $done;
	shl.b32 %r8, %r7, 2;
	add.u32 %r9, %r3, %r8;
	ld.shared.u32 %r10, [%r9];
	mul.wide.u32 %rd4, %r7, 4;
	add.u64 %rd5, %rd3, %rd4;
	st.global.u32 [%rd5], %r10;
	add.u32 %r7, %r7, 64;
	bra $copy;
$done:
	barrier.cluster.arrive.aligned;
	barrier.cluster.wait.aligned;
	ret;
}
)";

TEST(EmuTma, MulticastLoadsIntoTwoCtas) {
  const Tensor2d t;
  EmuRun r;
  const uint64_t g = r.emu.memory().alloc(t.data.size() * 4, "tensor");
  r.emu.memory().write(g, t.data.data(), t.data.size() * 4);
  r.args.push_back(map_arg(f32_map(g, {80, 40}, {320}, {32, 32}, 3)));
  const uint64_t out = r.buffer(std::vector<uint32_t>(2048), "out");
  r.scalar(int32_t{16});
  r.scalar(int32_t{2});
  r.launch(kMulticast, "mc", {2, 1, 1}, {64, 1, 1}, 0, {2, 1, 1});
  const auto got = r.read<uint32_t>(out, 2048);
  const auto want = expected_tile(t.data, 80, 40, 1, 32, 32, 1, 16, 2, 0, 3, false);
  for (uint32_t rank = 0; rank < 2; ++rank)
    for (size_t i = 0; i < want.size(); ++i) ASSERT_EQ(got[rank * 1024 + i], want[i]) << "rank " << rank << " word " << i;
  expect_assembles(kMulticast);
}

// A ctaMask naming a CTA outside the cluster is reported with the instruction and its line.
TEST(EmuTma, MulticastMaskOutsideTheClusterIsReported) {
  const std::string text = subst(kMulticast, {{"mov.u16 %rs1, 3;", "mov.u16 %rs1, 7;"}});
  const Tensor2d t;
  EmuRun r;
  const uint64_t g = r.emu.memory().alloc(t.data.size() * 4, "tensor");
  r.emu.memory().write(g, t.data.data(), t.data.size() * 4);
  r.args.push_back(map_arg(f32_map(g, {80, 40}, {320}, {32, 32}, 3)));
  r.buffer(std::vector<uint32_t>(2048), "out");
  r.scalar(int32_t{0});
  r.scalar(int32_t{0});
  try {
    r.launch(text, "mc", {2, 1, 1}, {64, 1, 1}, 0, {2, 1, 1});
    FAIL() << "no report";
  } catch (const emu::Error& e) {
    const std::string m = e.what();
    EXPECT_NE(m.find("ctaMask 0x7 names CTA rank 2: the cluster has 2 CTAs"), std::string::npos) << m;
    EXPECT_NE(m.find(":" + std::to_string(line_of(text, "cp.async.bulk.tensor"))), std::string::npos) << m;
  }
}

// Every thread fills words of the shared-memory tile (word i = i * 3 + 1, or 0.5 * i
// as floats for the reduction), then thread 0 stores (or add-reduces) the box into the
// tensor at (x0, y0) and waits for the bulk group.
const std::string kStore = R"(.version 8.0
.target sm_90a
.address_size 64

.visible .entry store(.param .align 64 .b8 tmap[128], .param .u32 x0, .param .u32 y0)
{
	.reg .pred %p<6>;
	.reg .b32 %r<20>;
	.reg .f32 %f<4>;
	.reg .b64 %rd<12>;
	.shared .align 1024 .b8 tile[4096];
	mov.u32 %r1, %tid.x;
	setp.eq.u32 %p1, %r1, 0;
	mov.u32 %r3, tile;
	mov.u32 %r7, %r1;
$fill:
	setp.ge.u32 %p3, %r7, 1024;
	@%p3 bra $filled;
	shl.b32 %r8, %r7, 2;
	add.u32 %r9, %r3, %r8;
	VALUE
	add.u32 %r7, %r7, 64;
	bra $fill;
$filled:
	fence.proxy.async.shared::cta;
	bar.sync 0;
	@!%p1 bra $done;
	ld.param.u32 %r4, [x0];
	ld.param.u32 %r5, [y0];
	mov.b64 %rd1, tmap;
	cvta.param.u64 %rd2, %rd1;
	COPY [%rd2, {%r4, %r5}], [%r3];
	cp.async.bulk.commit_group;
	cp.async.bulk.wait_group.read 0;
$done:
	ret;
}
)";

const std::string kStoreValue = "mad.lo.u32 %r10, %r7, 3, 1;\n\tst.shared.u32 [%r9], %r10;";
const std::string kReduceValue = "cvt.rn.f32.u32 %f1, %r7;\n\tmul.f32 %f1, %f1, 0f3F000000;\n\tst.shared.f32 [%r9], %f1;";

TEST(EmuTma, StoreWritesOnlyTheInBoundsPartOfTheBox) {
  const std::string text = subst(kStore, {{"VALUE", kStoreValue}, {"COPY", "cp.async.bulk.tensor.2d.global.shared::cta.tile.bulk_group"}});
  const int64_t W = 80, H = 40, bx = 32, by = 32;
  for (const auto& [x0, y0] : std::vector<std::pair<int32_t, int32_t>>{{8, 4}, {64, 20}}) {
    EmuRun r;
    std::vector<uint32_t> init(static_cast<size_t>(W * H), 0xDEADBEEFu);
    const uint64_t g = r.emu.memory().alloc(init.size() * 4, "tensor");
    r.emu.memory().write(g, init.data(), init.size() * 4);
    r.args.push_back(map_arg(f32_map(g, {80, 40}, {320}, {32, 32}, 3)));
    r.scalar(x0);
    r.scalar(y0);
    r.launch(text, "store", {1, 1, 1}, {64, 1, 1});
    const auto got = r.read<uint32_t>(g, init.size());
    for (int64_t y = 0; y < H; ++y)
      for (int64_t x = 0; x < W; ++x) {
        const int64_t i = x - x0, j = y - y0;
        uint32_t want = 0xDEADBEEFu;
        if (i >= 0 && i < bx && j >= 0 && j < by) {
          const uint32_t k = static_cast<uint32_t>(j * bx + i);  // the box element, dense
          const uint32_t word = swizzled_chunk(k / 4, 3) * 4 + k % 4;
          want = word * 3 + 1;
        }
        ASSERT_EQ(got[static_cast<size_t>(y * W + x)], want) << "(" << x << "," << y << ") box at (" << x0 << "," << y0 << ")";
      }
  }
  expect_assembles(text);
}

// sm_100's .tile::gather4 / .tile::scatter4: four rows of a 2D tensor (box[1] = 1) at any row
// indices, dense and swizzled in shared memory as a 4-row box would be.
std::string four_rows_kernel(const std::string& text) {
  return subst(text, {{".version 8.0\n.target sm_90a", ".version 8.6\n.target sm_100a"}});
}

TEST(EmuTma, Gather4LoadsFourRowsAtAnyIndices) {
  const Tensor2d t;
  const std::string text = four_rows_kernel(subst(subst(kLoad, {{"global.tile.mbarrier", "global.tile::gather4.mbarrier"},
                                                                {"[%rd2, COORDS], [%r2]", "[%rd2, {%r4, %r5, 3, 39, 45}], [%r2]"}}),
                                                    {{"BYTES", "512"}, {"WORDS", "128"}, {"DIM", "2d"}, {"COORDS", "{%r4, %r5}"}}));
  EmuRun r;
  const uint64_t g = r.emu.memory().alloc(t.data.size() * 4, "tensor");
  r.emu.memory().write(g, t.data.data(), t.data.size() * 4);
  r.args.push_back(map_arg(f32_map(g, {80, 40}, {320}, {32, 1}, 3)));
  const uint64_t out = r.buffer(std::vector<uint32_t>(128), "out");
  r.scalar(int32_t{56});  // columns 56..87: the last 8 are past the tensor's 80
  r.scalar(int32_t{17});
  r.scalar(int32_t{0});
  r.launch(text, "load", {1, 1, 1}, {64, 1, 1});
  const auto got = r.read<uint32_t>(out, 128);
  const int64_t rows[4] = {17, 3, 39, 45};  // row 45 is past the tensor's 40: zeros
  std::vector<uint32_t> dense(128, 0);
  for (int j = 0; j < 4; ++j)
    for (int i = 0; i < 32; ++i)
      if (56 + i < 80 && rows[j] < 40) std::memcpy(&dense[static_cast<size_t>(j * 32 + i)], &t.data[static_cast<size_t>(rows[j] * 80 + 56 + i)], 4);
  for (uint32_t q = 0; q < 32; ++q)
    for (uint32_t e = 0; e < 4; ++e) ASSERT_EQ(got[swizzled_chunk(q, 3) * 4 + e], dense[q * 4 + e]) << "chunk " << q;
  expect_assembles(text, "sm_100a");
  // a map whose box has more than one row is refused
  EmuRun bad;
  const uint64_t g2 = bad.emu.memory().alloc(t.data.size() * 4, "tensor");
  bad.args.push_back(map_arg(f32_map(g2, {80, 40}, {320}, {32, 2}, 3)));
  bad.buffer(std::vector<uint32_t>(128), "out");
  bad.scalar(int32_t{0});
  bad.scalar(int32_t{0});
  bad.scalar(int32_t{0});
  try {
    bad.launch(text, "load", {1, 1, 1}, {64, 1, 1});
    FAIL() << "no report";
  } catch (const emu::Error& e) {
    EXPECT_NE(std::string(e.what()).find(".tile::gather4 needs a 2D tiled tensor map with box[1] = 1"), std::string::npos) << e.what();
  }
}

TEST(EmuTma, Scatter4StoresFourRowsAtAnyIndices) {
  // the kStore tile's first 512 bytes (word i = 3 i + 1, swizzled 128B) go to rows 30, 2, 33 and 38 (past the end: dropped)
  const std::string text = four_rows_kernel(
      subst(subst(kStore, {{"COPY [%rd2, {%r4, %r5}]", "COPY [%rd2, {%r4, %r5, 2, 33, 41}]"}}),
            {{"VALUE", kStoreValue}, {"COPY", "cp.async.bulk.tensor.2d.global.shared::cta.tile::scatter4.bulk_group"}}));
  EmuRun r;
  std::vector<uint32_t> init(80 * 40, 0xDEADBEEFu);
  const uint64_t g = r.emu.memory().alloc(init.size() * 4, "tensor");
  r.emu.memory().write(g, init.data(), init.size() * 4);
  r.args.push_back(map_arg(f32_map(g, {80, 40}, {320}, {32, 1}, 3)));
  r.scalar(int32_t{8});
  r.scalar(int32_t{30});
  r.launch(text, "store", {1, 1, 1}, {64, 1, 1});
  const auto got = r.read<uint32_t>(g, init.size());
  const int64_t rows[4] = {30, 2, 33, 41};
  for (int64_t y = 0; y < 40; ++y)
    for (int64_t x = 0; x < 80; ++x) {
      uint32_t want = 0xDEADBEEFu;
      for (int j = 0; j < 4; ++j)
        if (rows[j] == y && x >= 8 && x < 40) {
          const uint32_t k = static_cast<uint32_t>(j * 32 + (x - 8));
          want = (swizzled_chunk(k / 4, 3) * 4 + k % 4) * 3 + 1;
        }
      ASSERT_EQ(got[static_cast<size_t>(y * 80 + x)], want) << "(" << x << "," << y << ")";
    }
  expect_assembles(text, "sm_100a");
}

TEST(EmuTma, ReduceAddsTheBoxIntoTheTensor) {
  const std::string text =
      subst(kStore, {{"VALUE", kReduceValue}, {"COPY", "cp.reduce.async.bulk.tensor.2d.global.shared::cta.add.tile.bulk_group"}});
  const Tensor2d t;
  EmuRun r;
  const uint64_t g = r.emu.memory().alloc(t.data.size() * 4, "tensor");
  r.emu.memory().write(g, t.data.data(), t.data.size() * 4);
  r.args.push_back(map_arg(f32_map(g, {80, 40}, {320}, {32, 32}, 0)));
  r.scalar(int32_t{60});
  r.scalar(int32_t{-4});
  r.launch(text, "store", {1, 1, 1}, {64, 1, 1});
  const auto got = r.read<float>(g, t.data.size());
  for (int64_t y = 0; y < t.H; ++y)
    for (int64_t x = 0; x < t.W; ++x) {
      const int64_t i = x - 60, j = y + 4;
      float want = t.data[static_cast<size_t>(y * t.W + x)];
      if (i >= 0 && i < 32 && j >= 0 && j < 32) want += 0.5f * static_cast<float>(j * 32 + i);
      ASSERT_EQ(got[static_cast<size_t>(y * t.W + x)], want) << "(" << x << "," << y << ")";
    }
  expect_assembles(text);
}

// cp.reduce.async.bulk (no tensor map): 16 words of shared memory added into global memory.
const std::string kBulkReduce = R"(.version 8.0
.target sm_90a
.address_size 64

.visible .entry bulk_reduce(.param .u64 dst)
{
	.reg .pred %p<2>;
	.reg .b32 %r<8>;
	.reg .b64 %rd<4>;
	.shared .align 16 .b32 src[16];
	mov.u32 %r1, %tid.x;
	mov.u32 %r2, src;
	shl.b32 %r3, %r1, 2;
	add.u32 %r4, %r2, %r3;
	mul.lo.u32 %r5, %r1, 3;
	st.shared.u32 [%r4], %r5;
	fence.proxy.async.shared::cta;
	bar.sync 0;
	setp.ne.u32 %p1, %r1, 0;
	@%p1 bra $done;
	ld.param.u64 %rd1, [dst];
	cvta.to.global.u64 %rd1, %rd1;
	cp.reduce.async.bulk.global.shared::cta.bulk_group.add.u32 [%rd1], [%r2], 64;
	cp.async.bulk.commit_group;
	cp.async.bulk.wait_group 0;
$done:
	ret;
}
)";

TEST(EmuTma, BulkReduceAddsIntoGlobalMemory) {
  EmuRun r;
  std::vector<uint32_t> init(16);
  for (uint32_t i = 0; i < 16; ++i) init[i] = 1000 * i;
  const uint64_t dst = r.buffer(init, "dst");
  r.launch(kBulkReduce, "bulk_reduce", {1, 1, 1}, {16, 1, 1});
  const auto got = r.read<uint32_t>(dst, 16);
  for (uint32_t i = 0; i < 16; ++i) EXPECT_EQ(got[i], 1000 * i + 3 * i) << i;
  expect_assembles(kBulkReduce);
}

// im2col mode is reported as not supported, with the instruction's line.
const std::string kIm2col = R"(.version 8.0
.target sm_90a
.address_size 64

.visible .entry im2col(.param .align 64 .b8 tmap[128])
{
	.reg .b16 %rs<2>;
	.reg .b32 %r<8>;
	.reg .b64 %rd<4>;
	.shared .align 1024 .b8 tile[1024];
	.shared .align 8 .b64 bar;
	mov.u32 %r2, bar;
	mov.u32 %r3, tile;
	mov.u32 %r4, 0;
	mov.b64 %rd1, tmap;
	cvta.param.u64 %rd2, %rd1;
	mov.u16 %rs1, 0;
	cp.async.bulk.tensor.3d.shared::cluster.global.im2col.mbarrier::complete_tx::bytes [%r3], [%rd2, {%r4, %r4, %r4}], [%r2], {%rs1};
	ret;
}
)";

// An .im2col copy needs an im2col tensor map: a tiled one is reported, at the instruction's line.
TEST(EmuTma, Im2colCopyWithATiledMapIsReported) {
  EmuRun r;
  r.args.push_back(map_arg(f32_map(0x1000, {64, 8, 4}, {256, 2048}, {16, 8, 4})));
  try {
    r.launch(kIm2col, "im2col", {1, 1, 1}, {32, 1, 1});
    FAIL() << "no report";
  } catch (const emu::Error& e) {
    const std::string m = e.what();
    EXPECT_NE(m.find("an .im2col copy with a tiled tensor map"), std::string::npos) << m;
    EXPECT_NE(m.find(":" + std::to_string(line_of(kIm2col, "cp.async.bulk.tensor"))), std::string::npos) << m;
  }
  expect_assembles(kIm2col);
}

// A tensor map the CPU device did not encode (here: zeros) is reported.
TEST(EmuTma, ForeignTensorMapIsReported) {
  EmuRun r;
  r.args.push_back(map_arg(emu::TensorMapDesc{}));
  std::fill(r.args.back().bytes.begin(), r.args.back().bytes.end(), 0);
  r.buffer(std::vector<uint32_t>(256), "out");
  r.scalar(int32_t{0});
  r.scalar(int32_t{0});
  r.scalar(int32_t{0});
  try {
    r.launch(load_kernel(1024, 2), "load", {1, 1, 1}, {64, 1, 1});
    FAIL() << "no report";
  } catch (const emu::Error& e) {
    EXPECT_NE(std::string(e.what()).find("not one the CPU device encoded"), std::string::npos) << e.what();
  }
}

// ---- im2col loads ----------------------------------------------------------------------

// An N(D)(H)WC f32 tensor (dims innermost first: C, W[, H[, D]], N) and an im2col box.
struct Im2colCase {
  std::vector<uint64_t> dims;       // {C, W, ...spatial..., N}
  std::vector<int> lower, upper;    // {D, H, W} order, rank - 2 values
  uint16_t channels = 8, pixels = 16;
  std::vector<int32_t> coords;      // {c, w, ..., n}
  std::vector<uint16_t> offsets;    // {w, h, d} order (innermost first), rank - 2 values
  std::vector<uint8_t> element_strides;  // empty: 1
};

// The reference gather, written as a convolution's: the output pixels of the bounding box
// (per spatial dimension, lower .. dim - 1 + upper stepping by the element stride, W fastest,
// then the next image), listed in order; the column is the `pixels` entries from the one at
// the copy's coordinates; entry p reads channels c .. c + channels - 1 of the input pixel at
// the output pixel plus the filter offsets (zero outside the tensor).
std::vector<float> im2col_reference(const std::vector<float>& t, const Im2colCase& k) {
  const size_t rank = k.dims.size(), ns = rank - 2;
  auto es = [&](size_t i) { return k.element_strides.empty() ? 1 : k.element_strides[i]; };
  std::vector<std::vector<int64_t>> axis(ns);  // the output positions along each spatial dimension
  for (size_t i = 1; i <= ns; ++i)
    for (int64_t x = k.lower[ns - i]; x <= static_cast<int64_t>(k.dims[i]) - 1 + k.upper[ns - i]; x += es(i)) axis[i - 1].push_back(x);
  // where the copy's coordinates sit in that enumeration
  std::vector<size_t> pos(ns);
  for (size_t i = 0; i < ns; ++i)
    pos[i] = static_cast<size_t>(std::find(axis[i].begin(), axis[i].end(), k.coords[i + 1]) - axis[i].begin());
  int64_t n = k.coords[rank - 1];
  std::vector<float> out;
  for (int p = 0; p < k.pixels; ++p) {
    std::vector<int64_t> px(rank, 0);
    for (size_t i = 0; i < ns; ++i) px[i + 1] = axis[i][pos[i]] + k.offsets[i];
    px[rank - 1] = n;
    for (int c = 0; c < k.channels; ++c) {
      px[0] = k.coords[0] + c;
      bool in = true;
      size_t idx = 0, mul = 1;
      for (size_t i = 0; i < rank; ++i) {
        in = in && px[i] >= 0 && px[i] < static_cast<int64_t>(k.dims[i]);
        idx += static_cast<size_t>(px[i]) * mul;
        mul *= k.dims[i];
      }
      out.push_back(in ? t[idx] : 0.0f);
    }
    // next output pixel: like an odometer over the enumerated positions, then the image
    size_t i = 0;
    for (; i < ns; ++i) {
      if (++pos[i] < axis[i].size()) break;
      pos[i] = 0;
    }
    if (i == ns) n += es(rank - 1);
  }
  return out;
}

std::string im2col_kernel(size_t rank, uint32_t bytes) {
  std::string coords = "{%r4", offsets = "{";
  for (size_t i = 1; i < rank; ++i) coords += ", %r" + std::to_string(4 + i);
  coords += "}";
  for (size_t i = 0; i + 2 < rank; ++i) offsets += std::string(i ? ", " : "") + "%rs" + std::to_string(1 + i);
  offsets += "}";
  return subst(R"(.version 8.0
.target sm_90a
.address_size 64

.visible .entry im2col(.param .align 64 .b8 tmap[128], .param .u64 out, .param .align 4 .b8 coords[20], .param .align 2 .b8 offs[6])
{
	.reg .pred %p<6>;
	.reg .b16 %rs<4>;
	.reg .b32 %r<20>;
	.reg .b64 %rd<12>;
	.shared .align 1024 .b8 tile[BYTES];
	.shared .align 8 .b64 bar;
	mov.u32 %r1, %tid.x;
	setp.eq.u32 %p1, %r1, 0;
	mov.u32 %r2, bar;
	mov.u32 %r3, tile;
	@%p1 mbarrier.init.shared::cta.b64 [%r2], 1;
	fence.mbarrier_init.release.cluster;
	bar.sync 0;
	ld.param.u32 %r4, [coords];
	ld.param.u32 %r5, [coords+4];
	ld.param.u32 %r6, [coords+8];
	ld.param.u32 %r7, [coords+12];
	ld.param.u32 %r8, [coords+16];
	ld.param.u16 %rs1, [offs];
	ld.param.u16 %rs2, [offs+2];
	ld.param.u16 %rs3, [offs+4];
	mov.b64 %rd1, tmap;
	cvta.param.u64 %rd2, %rd1;
	@%p1 cp.async.bulk.prefetch.tensor.DIMd.L2.global.im2col [%rd2, COORDS], OFFSETS;
	@%p1 mbarrier.arrive.expect_tx.shared::cta.b64 _, [%r2], BYTES;
	@%p1 cp.async.bulk.tensor.DIMd.shared::cluster.global.im2col.mbarrier::complete_tx::bytes [%r3], [%rd2, COORDS], [%r2], OFFSETS;
$wait:
	mbarrier.try_wait.parity.shared::cta.b64 %p2, [%r2], 0;
	@!%p2 bra $wait;
	ld.param.u64 %rd3, [out];
	cvta.to.global.u64 %rd3, %rd3;
	mov.u32 %r17, %r1;
$copy:
	setp.ge.u32 %p3, %r17, WORDS;
	@%p3 bra $done;
	shl.b32 %r18, %r17, 2;
	add.u32 %r19, %r3, %r18;
	ld.shared.u32 %r10, [%r19];
	mul.wide.u32 %rd4, %r17, 4;
	add.u64 %rd5, %rd3, %rd4;
	st.global.u32 [%rd5], %r10;
	add.u32 %r17, %r17, 64;
	bra $copy;
$done:
	ret;
}
)", {{"BYTES", std::to_string(bytes)}, {"WORDS", std::to_string(bytes / 4)}, {"DIM", std::to_string(rank)}, {"COORDS", coords},
     {"OFFSETS", offsets}});
}

// Runs one im2col load through the CPU device's encoding (ptx::make_tensor_map, Mode::im2col).
std::vector<float> run_im2col(const std::vector<float>& t, const Im2colCase& k) {
  Device cpu = device::cpu();
  const DevicePtr g = cpu.alloc(t.size() * 4, "tensor");
  cpu.copy_to_device(g, t.data(), t.size() * 4);
  TensorMapSpec s;
  s.mode = TensorMapSpec::Mode::im2col;
  s.type = TmaType::f32;
  s.dims = k.dims;
  s.lower = k.lower;
  s.upper = k.upper;
  s.channels_per_pixel = k.channels;
  s.pixels_per_column = k.pixels;
  s.box = std::vector<uint32_t>(k.dims.size(), 1);
  for (uint8_t e : k.element_strides) s.element_strides.push_back(e);
  const TensorMap map = make_tensor_map(cpu, g, s);
  EmuRun r;
  const uint64_t gt = r.emu.memory().alloc(t.size() * 4, "tensor");
  r.emu.memory().write(gt, t.data(), t.size() * 4);
  emu::TensorMapDesc d = *emu::decode(map.bytes.data());
  d.base = gt;  // the same map over this emulator's copy
  r.args.push_back(map_arg(d));
  const uint32_t bytes = k.channels * k.pixels * 4u;
  const uint64_t out = r.buffer(std::vector<float>(bytes / 4, -1.0f), "out");
  emu::Arg coords, offs;
  int32_t c5[5] = {};
  uint16_t o3[3] = {};
  for (size_t i = 0; i < k.coords.size(); ++i) c5[i] = k.coords[i];
  for (size_t i = 0; i < k.offsets.size(); ++i) o3[i] = k.offsets[i];
  coords.bytes.resize(sizeof c5);
  std::memcpy(coords.bytes.data(), c5, sizeof c5);
  offs.bytes.resize(sizeof o3);
  std::memcpy(offs.bytes.data(), o3, sizeof o3);
  r.args.push_back(coords);
  r.args.push_back(offs);
  r.launch(im2col_kernel(k.dims.size(), bytes), "im2col", {1, 1, 1}, {64, 1, 1});
  expect_assembles(im2col_kernel(k.dims.size(), bytes));
  cpu.free(g);
  return r.read<float>(out, bytes / 4);
}

void check_im2col(const Im2colCase& k, unsigned seed) {
  size_t n = 1;
  for (uint64_t d : k.dims) n *= d;
  const auto t = random_floats(n, seed);
  const auto got = run_im2col(t, k);
  const auto want = im2col_reference(t, k);
  ASSERT_EQ(got.size(), want.size());
  for (size_t i = 0; i < want.size(); ++i) ASSERT_EQ(got[i], want[i]) << "element " << i << " (pixel " << i / k.channels << ")";
}

// 3D (NWC): a 1D convolution with padding 1 and a 3-tap filter (box -1 .. W - 2), tap 2; the
// column runs past the last output pixel of image 0 into image 1.
TEST(EmuTma, Im2col3dLoadGathersTheColumn) {
  check_im2col({.dims = {16, 10, 3}, .lower = {-1}, .upper = {-1}, .channels = 8, .pixels = 16, .coords = {4, 3, 0}, .offsets = {2}, .element_strides = {}}, 21);
}

// 4D (NHWC): a 3x3 filter, padding 1, filter tap (w 0, h 2): out-of-bounds rows read zeros;
// 32 pixels wrap over rows of the 6 x 5 box and into the next image.
TEST(EmuTma, Im2col4dLoadWithPaddingAndWrap) {
  check_im2col({.dims = {8, 6, 5, 2}, .lower = {-1, -1}, .upper = {-1, -1}, .channels = 8, .pixels = 32, .coords = {0, 2, 3, 0},
                .offsets = {0, 2}, .element_strides = {}},
               22);
}

// 5D (NDHWC): a 2x2x2 filter, no padding (box 0 .. dim - 2), tap (1, 1, 1), a channel window at 8.
TEST(EmuTma, Im2col5dLoad) {
  check_im2col({.dims = {16, 4, 3, 3, 2}, .lower = {0, 0, 0}, .upper = {-1, -1, -1}, .channels = 8, .pixels = 24,
                .coords = {8, 1, 0, 1, 0}, .offsets = {1, 1, 1}, .element_strides = {}},
               23);
}

// Element strides are the convolution's stride: 2 along W and H.
TEST(EmuTma, Im2colWithElementStrides) {
  check_im2col({.dims = {8, 9, 7, 2}, .lower = {-1, -1}, .upper = {-1, -1}, .channels = 8, .pixels = 16, .coords = {0, 1, -1, 0},
                .offsets = {1, 0}, .element_strides = {1, 2, 2, 1}},
               24);
}

// ---- tensormap.replace ----------------------------------------------------------------------

// 32 ld.param / st.shared pairs: the template map into smap.
std::string copy_template() {
  std::string t;
  for (int i = 0; i < 128; i += 4)
    t += "\tld.param.u32 %r13, [tmap+" + std::to_string(i) + "];\n\tst.shared.u32 [smap+" + std::to_string(i) + "], %r13;\n";
  return t;
}

// Thread 0 copies the template map (a parameter) to shared memory, replaces fields there,
// copies it to a global workspace with tensormap.cp_fenceproxy, then replaces more fields in
// global memory, fences, and loads a box through the result.
const std::string kReplaceText = R"(.version 8.3
.target sm_90a
.address_size 64

.visible .entry replace(.param .align 64 .b8 tmap[128], .param .u64 ws, .param .u64 base, .param .u64 out)
{
	.reg .pred %p<6>;
	.reg .b32 %r<20>;
	.reg .b64 %rd<20>;
	.shared .align 1024 .b8 tile[1024];
	.shared .align 128 .b8 smap[128];
	.shared .align 8 .b64 bar;
	mov.u32 %r1, %tid.x;
	setp.eq.u32 %p1, %r1, 0;
	mov.u32 %r2, bar;
	mov.u32 %r3, tile;
	mov.u32 %r11, smap;
	@%p1 mbarrier.init.shared::cta.b64 [%r2], 1;
	fence.mbarrier_init.release.cluster;
	@!%p1 bra $skip;
COPY_TEMPLATE	ld.param.u64 %rd1, [base];
	tensormap.replace.tile.global_address.shared::cta.b1024.b64 [%r11], %rd1;
	mov.u32 %r16, 24;
	tensormap.replace.tile.global_dim.shared::cta.b1024.b32 [%r11], 1, %r16;
	tensormap.replace.tile.global_dim.shared::cta.b1024.b32 [%r11], 0, 64;
	tensormap.replace.tile.box_dim.shared::cta.b1024.b32 [%r11], 0, 16;
	tensormap.replace.tile.box_dim.shared::cta.b1024.b32 [%r11], 1, 16;
	tensormap.replace.tile.elemtype.shared::cta.b1024.b32 [%r11], 7;
	ld.param.u64 %rd2, [ws];
	cvta.to.global.u64 %rd3, %rd2;
	tensormap.cp_fenceproxy.global.shared::cta.tensormap::generic.release.gpu.sync.aligned [%rd3], [%r11], 128;
	mov.u64 %rd4, 256;
	tensormap.replace.tile.global_stride.global.b1024.b64 [%rd3], 0, %rd4;
	tensormap.replace.tile.swizzle_mode.global.b1024.b32 [%rd3], 3;
	tensormap.replace.tile.fill_mode.global.b1024.b32 [%rd3], 1;
	tensormap.replace.tile.element_stride.global.b1024.b32 [%rd3], 1, 1;
	tensormap.replace.tile.rank.global.b1024.b32 [%rd3], 1;
	tensormap.replace.tile.interleave_layout.global.b1024.b32 [%rd3], 0;
	fence.proxy.tensormap::generic.release.gpu;
	fence.proxy.tensormap::generic.acquire.gpu [%rd2], 128;
	prefetch.tensormap [%rd2];
	mov.u32 %r4, 56;
	mov.u32 %r5, 12;
	mbarrier.arrive.expect_tx.shared::cta.b64 _, [%r2], 1024;
	cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes [%r3], [%rd2, {%r4, %r5}], [%r2];
$skip:
	bar.sync 0;
$wait:
	mbarrier.try_wait.parity.shared::cta.b64 %p3, [%r2], 0;
	@!%p3 bra $wait;
	ld.param.u64 %rd5, [out];
	cvta.to.global.u64 %rd5, %rd5;
	mov.u32 %r7, %r1;
$copy:
	setp.ge.u32 %p4, %r7, 256;
	@%p4 bra $done;
	shl.b32 %r8, %r7, 2;
	add.u32 %r9, %r3, %r8;
	ld.shared.u32 %r10, [%r9];
	mul.wide.u32 %rd6, %r7, 4;
	add.u64 %rd7, %rd5, %rd6;
	st.global.u32 [%rd7], %r10;
	add.u32 %r7, %r7, 64;
	bra $copy;
$done:
	ret;
}
)";

const std::string kReplace = subst(kReplaceText, {{"COPY_TEMPLATE", copy_template()}});

// The template: a u16 3D map over another buffer with other boxes, no swizzle, zero fill;
// after the replacements, a 64 x 24 f32 tensor (rows of 256 bytes) read through 16 x 16 boxes
// with the 128-byte swizzle and NaN fill: the box at (56, 12) is partly out of bounds.
TEST(EmuTma, TensormapReplaceRewritesEveryField) {
  const int64_t W = 64, H = 24;
  const auto t = random_floats(static_cast<size_t>(W * H), 31);
  EmuRun r;
  const uint64_t g = r.emu.memory().alloc(t.size() * 4, "tensor");
  r.emu.memory().write(g, t.data(), t.size() * 4);
  const uint64_t other = r.emu.memory().alloc(4096, "other");
  emu::TensorMapDesc tmpl;
  tmpl.dtype = 1;  // u16
  tmpl.rank = 3;
  tmpl.base = other;
  tmpl.dims = {32, 8, 8, 0, 0};
  tmpl.strides = {2, 64, 512, 0, 0};
  tmpl.box = {8, 8, 2, 0, 0};
  tmpl.element_strides = {1, 2, 1, 0, 0};
  r.args.push_back(map_arg(tmpl));
  const uint64_t ws = r.buffer(std::vector<uint8_t>(128), "workspace");
  r.scalar(g);
  const uint64_t out = r.buffer(std::vector<uint32_t>(256), "out");
  r.launch(kReplace, "replace", {1, 1, 1}, {64, 1, 1});
  const auto got = r.read<uint32_t>(out, 256);
  const auto want = expected_tile(t, W, H, 1, 16, 16, 1, 56, 12, 0, 3, true);
  for (size_t i = 0; i < want.size(); ++i) ASSERT_EQ(got[i], want[i]) << "word " << i;
  // and the workspace holds the map as the CPU device would encode it
  const auto bytes = r.read<uint8_t>(ws, 128);
  const auto d = emu::decode(bytes.data());
  ASSERT_TRUE(d.has_value());
  EXPECT_EQ(d->base, g);
  EXPECT_EQ(d->dtype, kF32);
  EXPECT_EQ(d->rank, 2);
  EXPECT_EQ(d->dims[0], 64u);
  EXPECT_EQ(d->dims[1], 24u);
  EXPECT_EQ(d->strides[1], 256u);
  EXPECT_EQ(d->swizzle, 3);
  EXPECT_EQ(d->oob_nan, 1);
  EXPECT_EQ(d->element_strides[1], 1);
  expect_assembles(kReplace);
}

// A map built from 128 zero bytes with every field replaced (what Triton's device tensor
// descriptors do, in scratch memory): the zero bytes are a blank map, and the result reads the
// same box as a map replaced from a template.
TEST(EmuTma, TensormapReplaceBuildsAMapFromZeroBytes) {
  const int64_t W = 64, H = 24;
  const auto t = random_floats(static_cast<size_t>(W * H), 31);
  EmuRun r;
  const uint64_t g = r.emu.memory().alloc(t.size() * 4, "tensor");
  r.emu.memory().write(g, t.data(), t.size() * 4);
  r.args.push_back(emu::Arg{std::vector<uint8_t>(128, 0)});
  r.buffer(std::vector<uint8_t>(128), "workspace");
  r.scalar(g);
  const uint64_t out = r.buffer(std::vector<uint32_t>(256), "out");
  std::string every_field = kReplace;  // the template's element stride 0 of 1 is not replaced there
  const std::string last = "tensormap.replace.tile.element_stride.global.b1024.b32 [%rd3], 1, 1;";
  every_field.insert(every_field.find(last) + last.size(), "\n\ttensormap.replace.tile.element_stride.global.b1024.b32 [%rd3], 0, 1;");
  r.launch(every_field, "replace", {1, 1, 1}, {64, 1, 1});
  const auto got = r.read<uint32_t>(out, 256);
  const auto want = expected_tile(t, W, H, 1, 16, 16, 1, 56, 12, 0, 3, true);
  for (size_t i = 0; i < want.size(); ++i) ASSERT_EQ(got[i], want[i]) << "word " << i;
  expect_assembles(every_field);
}

// tensormap.cp_fenceproxy is a warp-collective .sync.aligned copy: the warp copies a map one of its
// lanes has just written in shared memory without a barrier between (Triton does so), as ldmatrix
// reads rows other lanes stored.
TEST(EmuTma, TensormapCopyOrdersTheLanesOfItsWarp) {
  const std::string text = R"(.version 8.3
.target sm_90a
.address_size 64

.visible .entry t(.param .u64 ws)
{
	.reg .pred %p<2>;
	.reg .b32 %r<6>;
	.reg .b64 %rd<3>;
	.shared .align 128 .b8 smap[128];
	mov.u32 %r1, %tid.x;
	mov.u32 %r2, smap;
	shl.b32 %r3, %r1, 2;
	add.u32 %r4, %r2, %r3;
	st.shared.u32 [%r4], 0;
	bar.warp.sync -1;
	setp.eq.u32 %p1, %r1, 0;
	@%p1 tensormap.replace.tile.rank.shared::cta.b1024.b32 [%r2], 1;
	ld.param.u64 %rd1, [ws];
	cvta.to.global.u64 %rd2, %rd1;
	tensormap.cp_fenceproxy.global.shared::cta.tensormap::generic.release.gpu.sync.aligned [%rd2], [%r2], 128;
	ret;
}
)";
  EmuRun r;
  const uint64_t ws = r.buffer(std::vector<uint8_t>(128), "workspace");
  r.launch(text, "t", {1, 1, 1}, {32, 1, 1});
  const auto bytes = r.read<uint8_t>(ws, 128);
  const auto d = emu::decode(bytes.data());
  ASSERT_TRUE(d.has_value());
  EXPECT_EQ(d->rank, 2);
  expect_assembles(text);
}

// Bad values and bytes that are not a tensor map are reported, at the instruction's line.
TEST(EmuTma, TensormapReplaceMisuseIsReported) {
  auto replace_once = [](std::string text, const std::string& what, const std::string& with) {
    return text.replace(text.find(what), what.size(), with);
  };
  const std::string bad_box = replace_once(kReplace, "[%r11], 0, 16;", "[%r11], 0, 300;");
  const std::string bad_atomicity =
      replace_once(kReplace, "swizzle_mode.global.b1024.b32 [%rd3], 3;",
                   "swizzle_mode.global.b1024.b32 [%rd3], 3;\n\ttensormap.replace.tile.swizzle_atomicity.global.b1024.b32 [%rd3], 1;\n"
                   "\ttensormap.replace.tile.swizzle_mode.global.b1024.b32 [%rd3], 1;");
  for (const auto& [text, garbage, what] : std::vector<std::tuple<std::string, bool, std::string>>{
           {bad_box, false, "a box dimension is 1 to 256 (new value 300)"},
           {bad_atomicity, false, "needs the 128B swizzle mode"},
           {kReplace, true, "neither a tensor map the CPU device encoded"}}) {
    emu::Options unvalidated;  // .swizzle_atomicity is sm_100 PTX in this sm_90a module: the emulator's own report
    unvalidated.validate = false;
    EmuRun r{emu::Emulator(unvalidated), {}};
    const uint64_t g = r.emu.memory().alloc(64 * 24 * 4, "tensor");
    emu::TensorMapDesc tmpl = f32_map(g, {64, 24}, {256}, {16, 16});
    r.args.push_back(map_arg(tmpl));
    if (garbage) std::fill(r.args.back().bytes.begin(), r.args.back().bytes.end(), 0xAB);
    r.buffer(std::vector<uint8_t>(128), "workspace");
    r.scalar(g);
    r.buffer(std::vector<uint32_t>(256), "out");
    try {
      r.launch(text, "replace", {1, 1, 1}, {64, 1, 1});
      ADD_FAILURE() << "no report for " << what;
    } catch (const emu::Error& e) {
      EXPECT_NE(std::string(e.what()).find(what), std::string::npos) << e.what();
      EXPECT_NE(std::string(e.what()).find("tensormap.replace"), std::string::npos) << e.what();
    }
  }
  // .swizzle_atomicity is sm_100's (PTX 8.6)
  if (have_ptxas()) {
    const auto r = run_ptxas(replace_once(bad_atomicity, ".version 8.3\n.target sm_90a", ".version 8.6\n.target sm_100a"), "sm_100a");
    EXPECT_TRUE(r.ok) << r.log;
  }
}

// `mov r, sym+OFF`: a shared symbol's address plus an offset, 32- and 64-bit.
TEST(EmuTma, MovOfASymbolPlusAnOffset) {
  const std::string text = R"(.version 8.0
.target sm_90a
.address_size 64

.extern .shared .align 16 .b8 dyn_smem[];

.visible .entry symoff(.param .u64 out)
{
	.reg .b32 %r<8>;
	.reg .b64 %rd<8>;
	mov.u32 %r1, dyn_smem;
	mov.u32 %r2, dyn_smem+48;
	mov.u64 %rd1, dyn_smem+1040;
	st.shared.u32 [dyn_smem+48], 77;
	ld.shared.u32 %r3, [%r2];
	sub.u32 %r4, %r2, %r1;
	cvt.u32.u64 %r5, %rd1;
	sub.u32 %r6, %r5, %r1;
	ld.param.u64 %rd2, [out];
	cvta.to.global.u64 %rd2, %rd2;
	st.global.v4.u32 [%rd2], {%r3, %r4, %r6, %r1};
	ret;
}
)";
  EmuRun r;
  const uint64_t out = r.buffer(std::vector<uint32_t>(4), "out");
  r.launch(text, "symoff", {1, 1, 1}, {1, 1, 1}, 2048);
  const auto got = r.read<uint32_t>(out, 4);
  EXPECT_EQ(got[0], 77u);
  EXPECT_EQ(got[1], 48u);
  EXPECT_EQ(got[2], 1040u);
  expect_assembles(text);
}

}  // namespace
}  // namespace ptx::test
