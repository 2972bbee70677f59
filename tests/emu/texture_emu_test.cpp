// Texture and surface objects on the emulator: tex (point sampling with every address mode,
// normalized coordinates, linear filtering with 9-bit weights, normalized-float reads), tld4,
// txq, suq, and surface loads, stores and reductions. Expected values are computed here from the
// CUDA programming guide's texture fetching formulas (written independently of the emulator);
// every kernel is assembled by ptxas.
#include <gtest/gtest.h>

#include <bit>
#include <cmath>
#include <cstring>
#include <cstdint>
#include <string>
#include <vector>

#include <ptxpp/emu/texture.hpp>

#include "../unit/ptxas_util.hpp"
#include "emu_test_util.hpp"

namespace ptx::test {
namespace {

using emu::AddressMode;
using emu::ChannelKind;
using emu::FilterMode;
using emu::ReadMode;
using emu::ResourceShape;

void expect_assembles(const std::string& ptx) {
  if (!have_ptxas()) return;
  const auto as = run_ptxas(ptx, "sm_90");
  EXPECT_TRUE(as.ok) << as.log;
}

std::string expect_error(EmuRun& run, const std::string& ptx, const std::string& entry, emu::Dim3 block = {1, 1, 1}) {
  try {
    run.launch(ptx, entry, {1, 1, 1}, block);
  } catch (const emu::Error& e) {
    return e.what();
  }
  ADD_FAILURE() << "no error";
  return {};
}

const char* kHeader = ".version 8.0\n.target sm_90\n.address_size 64\n\n";

// tex.2d with .f32 coordinates: thread i reads (u, v) = coords[2i, 2i+1], writes x, y of the
// texel and the residency predicate.
const std::string kTex2d = std::string(kHeader) + R"(.visible .entry tex2d(.param .u64 tex, .param .u64 coords, .param .u64 out)
{
	.reg .b64 %rd<8>;
	.reg .f32 %f<8>;
	.reg .b32 %r<4>;
	.reg .pred %p<2>;
	ld.param.u64 %rd1, [tex];
	ld.param.u64 %rd2, [coords];
	ld.param.u64 %rd3, [out];
	cvta.to.global.u64 %rd2, %rd2;
	cvta.to.global.u64 %rd3, %rd3;
	mov.u32 %r1, %tid.x;
	mul.wide.u32 %rd4, %r1, 8;
	add.u64 %rd5, %rd2, %rd4;
	ld.global.v2.f32 {%f1, %f2}, [%rd5];
	tex.2d.v4.f32.f32 {%f3, %f4, %f5, %f6}|%p1, [%rd1, {%f1, %f2}];
	selp.u32 %r2, 1, 0, %p1;
	mul.wide.u32 %rd4, %r1, 12;
	add.u64 %rd6, %rd3, %rd4;
	st.global.f32 [%rd6], %f3;
	st.global.f32 [%rd6+4], %f4;
	st.global.u32 [%rd6+8], %r2;
	ret;
}
)";

// tex.1d with .f32 coordinates: out[i] = x of the texel at coords[i].
const std::string kTex1d = std::string(kHeader) + R"(.visible .entry tex1d(.param .u64 tex, .param .u64 coords, .param .u64 out)
{
	.reg .b64 %rd<8>;
	.reg .f32 %f<8>;
	.reg .b32 %r<4>;
	ld.param.u64 %rd1, [tex];
	ld.param.u64 %rd2, [coords];
	ld.param.u64 %rd3, [out];
	cvta.to.global.u64 %rd2, %rd2;
	cvta.to.global.u64 %rd3, %rd3;
	mov.u32 %r1, %tid.x;
	mul.wide.u32 %rd4, %r1, 4;
	add.u64 %rd5, %rd2, %rd4;
	ld.global.f32 %f1, [%rd5];
	tex.1d.v4.f32.f32 {%f3, %f4, %f5, %f6}, [%rd1, {%f1}];
	add.u64 %rd6, %rd3, %rd4;
	st.global.f32 [%rd6], %f3;
	ret;
}
)";

// ---- the reference: the CUDA programming guide's texture fetching, per dimension ----------

struct RefDim {
  int n;
  AddressMode mode;
};

// The texel index a point-sampled coordinate u selects, or -1 for the border. Normalized
// coordinates: wrap keeps the fraction, mirror reflects every other period, clamp holds to
// [0, 1 - 1/N] (texel N - 1), border is outside [0, 1).
int ref_point_index(double u, RefDim d, bool normalized) {
  if (normalized) {
    switch (d.mode) {
      case AddressMode::Wrap: u = u - std::floor(u); break;
      case AddressMode::Mirror: {
        const double f = u - 2 * std::floor(u / 2);
        u = f <= 1 ? f : 2 - f;
        break;
      }
      default: break;
    }
    u *= d.n;
  }
  const int i = static_cast<int>(std::floor(u));
  if (d.mode == AddressMode::Border) return i < 0 || i >= d.n ? -1 : i;
  return std::min(std::max(i, 0), d.n - 1);
}

// Texel index i under the mode (for linear filtering's neighbours), -1 for the border.
int ref_index(int i, RefDim d) {
  switch (d.mode) {
    case AddressMode::Clamp: return std::min(std::max(i, 0), d.n - 1);
    case AddressMode::Border: return i < 0 || i >= d.n ? -1 : i;
    case AddressMode::Wrap: return ((i % d.n) + d.n) % d.n;
    case AddressMode::Mirror: {
      const int p = ((i % (2 * d.n)) + 2 * d.n) % (2 * d.n);
      return p < d.n ? p : 2 * d.n - 1 - p;
    }
  }
  return i;
}

// The weight alpha of linear filtering: frac(x - 0.5) in 9-bit fixed point (8 fractional bits).
double ref_alpha(double xb) {
  const double a = xb - std::floor(xb);
  return std::round(a * 256) / 256;
}

emu::Resource pitch2d(uint64_t addr, uint32_t w, uint32_t h, uint64_t pitch, ChannelKind k, uint8_t channels) {
  emu::Resource r;
  r.shape = ResourceShape::Pitch2D;
  r.address = addr;
  r.width = w;
  r.height = h;
  r.pitch = pitch;
  r.format = {k, channels};
  return r;
}

// ---- tests --------------------------------------------------------------------------------

TEST(EmuTexture, PointSamplingFollowsEachAddressMode) {
  expect_assembles(kTex2d);
  // A 5 x 3 texture of float2 texels, rows 64 bytes apart (40 used).
  const int W = 5, H = 3, pitch_floats = 16;
  std::vector<float> texels(static_cast<size_t>(pitch_floats * H), -999.0f);
  auto tx = [&](int x, int y, int c) { return 100.0f * static_cast<float>(y) + 10.0f * static_cast<float>(x) + static_cast<float>(c); };
  for (int y = 0; y < H; ++y)
    for (int x = 0; x < W; ++x)
      for (int c = 0; c < 2; ++c) texels[static_cast<size_t>(y * pitch_floats + 2 * x + c)] = tx(x, y, c);
  struct Case {
    bool normalized;
    AddressMode mx, my;
  };
  const Case cases[] = {{true, AddressMode::Wrap, AddressMode::Wrap},     {true, AddressMode::Mirror, AddressMode::Mirror},
                        {true, AddressMode::Clamp, AddressMode::Border},  {true, AddressMode::Border, AddressMode::Clamp},
                        {false, AddressMode::Clamp, AddressMode::Clamp},  {false, AddressMode::Border, AddressMode::Border},
                        {true, AddressMode::Wrap, AddressMode::Mirror}};
  // unnormalized coordinates in texels, normalized ones in [0, 1) and beyond; none on a texel edge
  const std::vector<float> unnorm = {0.3f, 0.7f, 4.9f, 2.2f, -0.4f, 1.5f, 5.3f, -2.6f, 7.1f, 3.9f, -9.2f, 0.1f, 2.5f, 2.99f, 1.01f, 0.0f};
  const std::vector<float> norm = {0.05f, 0.1f, 0.95f, 0.9f, -0.13f, 0.4f, 1.07f, -0.3f, 2.45f, 1.7f, -1.55f, -2.2f, 0.5f, 0.2f, 3.61f, 0.55f};
  for (const Case& c : cases) {
    EmuRun run;
    const uint64_t buf = run.emu.memory().alloc(texels.size() * 4, "texels");
    run.emu.memory().write(buf, texels.data(), texels.size() * 4);
    emu::TextureDesc d;
    d.resource = pitch2d(buf, W, H, pitch_floats * 4, ChannelKind::F32, 2);
    d.normalized_coords = c.normalized;
    d.address = {c.mx, c.my, AddressMode::Clamp};
    d.border_color = {-1.0f, -2.0f, 0, 0};
    const uint64_t tex = run.emu.memory().create_texture(d);
    run.scalar(tex);
    const std::vector<float>& coords = c.normalized ? norm : unnorm;
    run.buffer(coords, "coords");
    const size_t n = coords.size() / 2;
    const uint64_t out = run.buffer(std::vector<float>(n * 3), "out");
    run.launch(kTex2d, "tex2d", {1, 1, 1}, {static_cast<uint32_t>(n), 1, 1});
    const auto got = run.read<float>(out, n * 3);
    for (size_t i = 0; i < n; ++i) {
      const int x = ref_point_index(coords[2 * i], {W, c.mx}, c.normalized), y = ref_point_index(coords[2 * i + 1], {H, c.my}, c.normalized);
      for (int ch = 0; ch < 2; ++ch) {
        const float want = x < 0 || y < 0 ? d.border_color[static_cast<size_t>(ch)] : tx(x, y, ch);
        EXPECT_EQ(got[i * 3 + static_cast<size_t>(ch)], want)
            << "normalized " << c.normalized << " modes " << int(c.mx) << "," << int(c.my) << " at (" << coords[2 * i] << ", " << coords[2 * i + 1] << ") channel " << ch;
      }
      uint32_t resident = 0;
      std::memcpy(&resident, &got[i * 3 + 2], 4);
      EXPECT_EQ(resident, 1u);
    }
  }
}

TEST(EmuTexture, LinearFilteringUsesNineBitWeights1D) {
  expect_assembles(kTex1d);
  const int N = 8;
  std::vector<float> texels(N);
  for (int i = 0; i < N; ++i) texels[static_cast<size_t>(i)] = static_cast<float>((i * 37) % 11) - 3.5f;
  const std::vector<float> coords = {0.8f, 1.3f, 3.5f, 4.123f, 7.9f, -1.0f, 9.0f, 0.5f, 2.77f, 5.0f, 6.51f, 0.55f};
  for (bool normalized : {false, true}) {
    EmuRun run;
    const uint64_t buf = run.buffer(texels, "texels");
    run.args.clear();
    emu::TextureDesc d;
    d.resource.shape = ResourceShape::Array1D;
    d.resource.address = buf;
    d.resource.width = N;
    d.resource.format = {ChannelKind::F32, 1};
    d.filter = FilterMode::Linear;
    d.normalized_coords = normalized;
    d.address = {normalized ? AddressMode::Wrap : AddressMode::Clamp, AddressMode::Clamp, AddressMode::Clamp};
    run.scalar(run.emu.memory().create_texture(d));
    std::vector<float> c = coords;
    if (normalized)
      for (float& u : c) u /= N;
    run.buffer(c, "coords");
    const uint64_t out = run.buffer(std::vector<float>(c.size()), "out");
    run.launch(kTex1d, "tex1d", {1, 1, 1}, {static_cast<uint32_t>(c.size()), 1, 1});
    const auto got = run.read<float>(out, c.size());
    for (size_t k = 0; k < c.size(); ++k) {
      // tex(x) = (1 - a) T[i] + a T[i + 1], i = floor(x - 0.5), a = frac(x - 0.5) in 1.8 fixed point
      const double x = normalized ? static_cast<double>(c[k]) * N : c[k];
      const double xb = x - 0.5;
      const int i = static_cast<int>(std::floor(xb));
      const double a = ref_alpha(xb);
      const RefDim dim{N, d.address[0]};
      auto T = [&](int at) -> double {
        const int idx = ref_index(at, dim);
        return idx < 0 ? 0.0 : texels.at(static_cast<size_t>(idx));  // (no border here)
      };
      const double want = (1 - a) * T(i) + a * T(i + 1);
      EXPECT_NEAR(got[k], want, 1e-5) << "x = " << x << (normalized ? " (normalized)" : "");
    }
  }
  // The weight is quantized: between 0 and 1, x = 0.8 (a = 0.3) gives 77/256, not 0.3.
  EmuRun run;
  const uint64_t buf = run.buffer(std::vector<float>{0.0f, 1.0f}, "ramp");
  run.args.clear();
  emu::TextureDesc d;
  d.resource.shape = ResourceShape::Array1D;
  d.resource.address = buf;
  d.resource.width = 2;
  d.resource.format = {ChannelKind::F32, 1};
  d.filter = FilterMode::Linear;
  run.scalar(run.emu.memory().create_texture(d));
  run.buffer(std::vector<float>{0.8f, 1.0f + 0.5f / 512}, "coords");
  const uint64_t out = run.buffer(std::vector<float>(2), "out");
  run.launch(kTex1d, "tex1d", {1, 1, 1}, {2, 1, 1});
  const auto got = run.read<float>(out, 2);
  EXPECT_EQ(got[0], 77.0f / 256.0f);
  EXPECT_EQ(got[1], 128.0f / 256.0f);  // a = 0.5 + 1/1024: 128.25/256 rounds to 128/256
}

TEST(EmuTexture, LinearFilteringIn2DWeighsFourTexels) {
  const int W = 6, H = 4;
  std::vector<float> texels(static_cast<size_t>(W * H * 2));
  for (size_t i = 0; i < texels.size(); ++i) texels[i] = std::sin(static_cast<float>(i) * 0.7f) * 10.0f;
  const std::vector<float> coords = {0.3f, 0.2f, 1.77f, 2.31f, 5.9f, 3.99f, -1.0f, 2.0f, 3.14f, 1.41f, 2.5f, 2.5f, 4.02f, 0.61f, 6.5f, -0.7f};
  for (AddressMode mode : {AddressMode::Clamp, AddressMode::Border}) {
    EmuRun run;
    const uint64_t buf = run.emu.memory().alloc(texels.size() * 4, "texels");
    run.emu.memory().write(buf, texels.data(), texels.size() * 4);
    emu::TextureDesc d;
    d.resource.shape = ResourceShape::Array2D;
    d.resource.address = buf;
    d.resource.width = W;
    d.resource.height = H;
    d.resource.format = {ChannelKind::F32, 2};
    d.filter = FilterMode::Linear;
    d.address = {mode, mode, mode};
    d.border_color = {5.0f, -5.0f, 0, 0};
    run.scalar(run.emu.memory().create_texture(d));
    run.buffer(coords, "coords");
    const size_t n = coords.size() / 2;
    const uint64_t out = run.buffer(std::vector<float>(n * 3), "out");
    run.launch(kTex2d, "tex2d", {1, 1, 1}, {static_cast<uint32_t>(n), 1, 1});
    const auto got = run.read<float>(out, n * 3);
    for (size_t k = 0; k < n; ++k) {
      // tex(x, y) = (1-a)(1-b) T[i, j] + a(1-b) T[i+1, j] + (1-a) b T[i, j+1] + a b T[i+1, j+1]
      const double xb = coords[2 * k] - 0.5, yb = coords[2 * k + 1] - 0.5;
      const int i = static_cast<int>(std::floor(xb)), j = static_cast<int>(std::floor(yb));
      const double a = ref_alpha(xb), b = ref_alpha(yb);
      for (int ch = 0; ch < 2; ++ch) {
        auto T = [&](int x, int y) -> double {
          const int xi = ref_index(x, {W, mode}), yi = ref_index(y, {H, mode});
          if (xi < 0 || yi < 0) return d.border_color[static_cast<size_t>(ch)];
          return texels[static_cast<size_t>((yi * W + xi) * 2 + ch)];
        };
        const double want = (1 - a) * (1 - b) * T(i, j) + a * (1 - b) * T(i + 1, j) + (1 - a) * b * T(i, j + 1) + a * b * T(i + 1, j + 1);
        EXPECT_NEAR(got[k * 3 + static_cast<size_t>(ch)], want, 1e-4) << "mode " << int(mode) << " at (" << coords[2 * k] << ", " << coords[2 * k + 1] << ")";
      }
    }
  }
}

// tex.3d with .f32 coordinates: out[i] = x of the texel at coords[4i .. 4i+2].
const std::string kTex3d = std::string(kHeader) + R"(.visible .entry tex3d(.param .u64 tex, .param .u64 coords, .param .u64 out)
{
	.reg .b64 %rd<8>;
	.reg .f32 %f<8>;
	.reg .b32 %r<4>;
	ld.param.u64 %rd1, [tex];
	ld.param.u64 %rd2, [coords];
	ld.param.u64 %rd3, [out];
	cvta.to.global.u64 %rd2, %rd2;
	cvta.to.global.u64 %rd3, %rd3;
	mov.u32 %r1, %tid.x;
	mul.wide.u32 %rd4, %r1, 16;
	add.u64 %rd5, %rd2, %rd4;
	ld.global.v4.f32 {%f1, %f2, %f3, %f4}, [%rd5];
	tex.3d.v4.f32.f32 {%f4, %f5, %f6, %f7}, [%rd1, {%f1, %f2, %f3, %f3}];
	mul.wide.u32 %rd4, %r1, 4;
	add.u64 %rd6, %rd3, %rd4;
	st.global.f32 [%rd6], %f4;
	ret;
}
)";

TEST(EmuTexture, TrilinearFilteringWithAModePerDimension) {
  expect_assembles(kTex3d);
  const int W = 4, H = 3, D = 5;
  std::vector<uint16_t> texels(static_cast<size_t>(W * H * D));  // u16 read as normalized floats
  for (size_t i = 0; i < texels.size(); ++i) texels[i] = static_cast<uint16_t>((i * 7919) % 65536);
  EmuRun run;
  auto& mem = run.emu.memory();
  const uint64_t b = mem.alloc(texels.size() * 2, "volume");
  mem.write(b, texels.data(), texels.size() * 2);
  emu::TextureDesc d;
  d.resource.shape = ResourceShape::Array3D;
  d.resource.address = b;
  d.resource.width = W;
  d.resource.height = H;
  d.resource.depth = D;
  d.resource.format = {ChannelKind::U16, 1};
  d.read_mode = ReadMode::NormalizedFloat;
  d.filter = FilterMode::Linear;
  d.normalized_coords = true;
  d.address = {AddressMode::Wrap, AddressMode::Mirror, AddressMode::Clamp};
  run.scalar(mem.create_texture(d));
  const std::vector<float> coords = {0.1f, 0.2f, 0.3f, 0, -0.37f, 1.4f, 0.95f, 0, 1.61f, -0.8f, -0.2f, 0, 0.5f, 0.5f, 0.5f, 0,
                                     2.03f, 2.71f, 1.3f, 0, -1.9f, 0.05f, 0.61f, 0};
  run.buffer(coords, "coords");
  const size_t n = coords.size() / 4;
  const uint64_t out = run.buffer(std::vector<float>(n), "out");
  run.launch(kTex3d, "tex3d", {1, 1, 1}, {static_cast<uint32_t>(n), 1, 1});
  const auto got = run.read<float>(out, n);
  const int size[3] = {W, H, D};
  for (size_t k = 0; k < n; ++k) {
    int i[3];
    double a[3];
    for (int dim = 0; dim < 3; ++dim) {
      const double xb = static_cast<double>(coords[4 * k + static_cast<size_t>(dim)]) * size[dim] - 0.5;
      i[dim] = static_cast<int>(std::floor(xb));
      a[dim] = ref_alpha(xb);
    }
    double want = 0;
    for (int corner = 0; corner < 8; ++corner) {
      double wgt = 1;
      int at[3];
      for (int dim = 0; dim < 3; ++dim) {
        const bool hi = (corner >> dim) & 1;
        wgt *= hi ? a[dim] : 1 - a[dim];
        at[dim] = ref_index(i[dim] + (hi ? 1 : 0), {size[dim], d.address[static_cast<size_t>(dim)]});
      }
      want += wgt * texels[static_cast<size_t>((at[2] * H + at[1]) * W + at[0])] / 65535.0;
    }
    EXPECT_NEAR(got[k], want, 1e-5) << "at (" << coords[4 * k] << ", " << coords[4 * k + 1] << ", " << coords[4 * k + 2] << ")";
  }
}

// Integer coordinates, normalized-float and element reads of 8-bit channels, arrays and 3D.
const std::string kTexInt = std::string(kHeader) + R"(.visible .entry texint(.param .u64 t2, .param .u64 t2s, .param .u64 t2u, .param .u64 ta1, .param .u64 ta2, .param .u64 t3, .param .u64 out)
{
	.reg .b64 %rd<12>;
	.reg .f32 %f<24>;
	.reg .b32 %r<24>;
	ld.param.u64 %rd1, [t2];
	ld.param.u64 %rd2, [t2s];
	ld.param.u64 %rd3, [t2u];
	ld.param.u64 %rd4, [ta1];
	ld.param.u64 %rd5, [ta2];
	ld.param.u64 %rd6, [t3];
	ld.param.u64 %rd7, [out];
	cvta.to.global.u64 %rd7, %rd7;
	mov.u32 %r1, %tid.x;
	mov.u32 %r2, %tid.y;
	mov.u32 %r3, %tid.z;
	tex.2d.v4.f32.s32 {%f1, %f2, %f3, %f4}, [%rd1, {%r1, %r2}];
	tex.2d.v4.f32.s32 {%f5, %f6, %f7, %f8}, [%rd2, {%r1, %r2}];
	tex.2d.v4.u32.s32 {%r4, %r5, %r6, %r7}, [%rd3, {%r1, %r2}];
	tex.a1d.v4.f32.s32 {%f9, %f10, %f11, %f12}, [%rd4, {%r2, %r1}];
	tex.a2d.v4.f32.s32 {%f13, %f14, %f15, %f16}, [%rd5, {%r3, %r1, %r2, %r2}];
	tex.3d.v4.s32.s32 {%r8, %r9, %r10, %r11}, [%rd6, {%r1, %r2, %r3, %r3}];
	mad.lo.u32 %r12, %r2, 4, %r1;
	mad.lo.u32 %r12, %r3, 12, %r12;
	mul.wide.u32 %rd8, %r12, 64;
	add.u64 %rd9, %rd7, %rd8;
	st.global.v4.f32 [%rd9], {%f1, %f2, %f3, %f4};
	st.global.v4.f32 [%rd9+16], {%f5, %f6, %f7, %f8};
	st.global.v4.u32 [%rd9+32], {%r4, %r5, %r6, %r7};
	st.global.f32 [%rd9+48], %f9;
	st.global.f32 [%rd9+52], %f13;
	st.global.u32 [%rd9+56], %r8;
	st.global.u32 [%rd9+60], %r11;
	ret;
}
)";

TEST(EmuTexture, IntegerCoordinatesNormalizedReadsArraysAnd3D) {
  expect_assembles(kTexInt);
  EmuRun run;
  auto& mem = run.emu.memory();
  const int W = 4, H = 3, D = 2;
  // RGBA8 texels: unsigned, read as normalized floats and as elements; signed, as normalized floats
  std::vector<uint8_t> rgba(static_cast<size_t>(W * H * 4));
  for (size_t i = 0; i < rgba.size(); ++i) rgba[i] = static_cast<uint8_t>(i * 53 + 7);
  const uint64_t b8 = mem.alloc(rgba.size(), "rgba8");
  mem.write(b8, rgba.data(), rgba.size());
  emu::TextureDesc t2;
  t2.resource.shape = ResourceShape::Array2D;
  t2.resource.address = b8;
  t2.resource.width = W;
  t2.resource.height = H;
  t2.resource.format = {ChannelKind::U8, 4};
  t2.read_mode = ReadMode::NormalizedFloat;
  emu::TextureDesc t2s = t2;
  t2s.resource.format.kind = ChannelKind::S8;
  emu::TextureDesc t2u = t2;
  t2u.read_mode = ReadMode::ElementType;
  // a layered 1D array: H layers of W floats; a layered 2D array: D layers of W x H floats
  std::vector<float> layers1(static_cast<size_t>(W * H)), layers2(static_cast<size_t>(W * H * D));
  for (size_t i = 0; i < layers1.size(); ++i) layers1[i] = 0.5f + static_cast<float>(i);
  for (size_t i = 0; i < layers2.size(); ++i) layers2[i] = -0.25f * static_cast<float>(i);
  const uint64_t bl1 = mem.alloc(layers1.size() * 4, "layers1"), bl2 = mem.alloc(layers2.size() * 4, "layers2");
  mem.write(bl1, layers1.data(), layers1.size() * 4);
  mem.write(bl2, layers2.data(), layers2.size() * 4);
  emu::TextureDesc ta1;
  ta1.resource.shape = ResourceShape::Layered1D;
  ta1.resource.address = bl1;
  ta1.resource.width = W;
  ta1.resource.layers = H;
  emu::TextureDesc ta2;
  ta2.resource.shape = ResourceShape::Layered2D;
  ta2.resource.address = bl2;
  ta2.resource.width = W;
  ta2.resource.height = H;
  ta2.resource.layers = D;
  // a 3D array of int2 texels
  std::vector<int32_t> vol(static_cast<size_t>(W * H * D * 2));
  for (size_t i = 0; i < vol.size(); ++i) vol[i] = static_cast<int32_t>(i * 7) - 40;
  const uint64_t bv = mem.alloc(vol.size() * 4, "volume");
  mem.write(bv, vol.data(), vol.size() * 4);
  emu::TextureDesc t3;
  t3.resource.shape = ResourceShape::Array3D;
  t3.resource.address = bv;
  t3.resource.width = W;
  t3.resource.height = H;
  t3.resource.depth = D;
  t3.resource.format = {ChannelKind::S32, 2};
  for (const emu::TextureDesc* d : {&t2, &t2s, &t2u, &ta1, &ta2, &t3}) run.scalar(mem.create_texture(*d));
  const uint64_t out = run.buffer(std::vector<uint32_t>(static_cast<size_t>(W * H * D * 16)), "out");
  run.launch(kTexInt, "texint", {1, 1, 1}, {W, H, D});
  const auto got = run.read<uint32_t>(out, static_cast<size_t>(W * H * D * 16));
  auto f = [](uint32_t b) { return std::bit_cast<float>(b); };
  for (int z = 0; z < D; ++z)
    for (int y = 0; y < H; ++y)
      for (int x = 0; x < W; ++x) {
        const size_t o = static_cast<size_t>(((z * H + y) * W + x) * 16);
        for (int c = 0; c < 4; ++c) {
          const uint8_t v = rgba[static_cast<size_t>((y * W + x) * 4 + c)];
          EXPECT_EQ(f(got[o + static_cast<size_t>(c)]), static_cast<float>(v) / 255.0f) << x << "," << y << " channel " << c;
          const float sv = std::max(static_cast<float>(static_cast<int8_t>(v)) / 127.0f, -1.0f);
          EXPECT_EQ(f(got[o + 4 + static_cast<size_t>(c)]), sv) << x << "," << y << " channel " << c;
          EXPECT_EQ(got[o + 8 + static_cast<size_t>(c)], v);
        }
        EXPECT_EQ(f(got[o + 12]), layers1[static_cast<size_t>(y * W + x)]);            // layer y, texel x
        EXPECT_EQ(f(got[o + 13]), layers2[static_cast<size_t>((z * H + y) * W + x)]);  // layer z, texel (x, y)
        const size_t v3 = static_cast<size_t>(((z * H + y) * W + x) * 2);
        EXPECT_EQ(static_cast<int32_t>(got[o + 14]), vol[v3]);
        EXPECT_EQ(got[o + 15], 1u);  // the absent w channel
      }
}

const std::string kTld4 = std::string(kHeader) + R"(.visible .entry gather(.param .u64 tex, .param .u64 coords, .param .u64 out)
{
	.reg .b64 %rd<8>;
	.reg .f32 %f<12>;
	.reg .b32 %r<4>;
	ld.param.u64 %rd1, [tex];
	ld.param.u64 %rd2, [coords];
	ld.param.u64 %rd3, [out];
	cvta.to.global.u64 %rd2, %rd2;
	cvta.to.global.u64 %rd3, %rd3;
	mov.u32 %r1, %tid.x;
	mul.wide.u32 %rd4, %r1, 8;
	add.u64 %rd5, %rd2, %rd4;
	ld.global.v2.f32 {%f1, %f2}, [%rd5];
	tld4.g.2d.v4.f32.f32 {%f3, %f4, %f5, %f6}, [%rd1, {%f1, %f2}];
	tld4.a.2d.v4.f32.f32 {%f7, %f8, %f9, %f10}, [%rd1, {%f1, %f2}];
	mul.wide.u32 %rd4, %r1, 32;
	add.u64 %rd6, %rd3, %rd4;
	st.global.v4.f32 [%rd6], {%f3, %f4, %f5, %f6};
	st.global.v4.f32 [%rd6+16], {%f7, %f8, %f9, %f10};
	ret;
}
)";

TEST(EmuTexture, Tld4GathersOneComponentOfTheBilinearFootprint) {
  expect_assembles(kTld4);
  const int W = 5, H = 4;
  std::vector<float> texels(static_cast<size_t>(W * H * 4));
  for (size_t i = 0; i < texels.size(); ++i) texels[i] = static_cast<float>(i);
  EmuRun run;
  const uint64_t buf = run.emu.memory().alloc(texels.size() * 4, "texels");
  run.emu.memory().write(buf, texels.data(), texels.size() * 4);
  emu::TextureDesc d;
  d.resource = pitch2d(buf, W, H, W * 16, ChannelKind::F32, 4);
  d.address = {AddressMode::Clamp, AddressMode::Clamp, AddressMode::Clamp};
  run.scalar(run.emu.memory().create_texture(d));
  const std::vector<float> coords = {1.2f, 1.7f, 0.1f, 0.1f, 4.9f, 3.6f, 2.5f, 3.0f};
  run.buffer(coords, "coords");
  const size_t n = coords.size() / 2;
  const uint64_t out = run.buffer(std::vector<float>(n * 8), "out");
  run.launch(kTld4, "gather", {1, 1, 1}, {static_cast<uint32_t>(n), 1, 1});
  const auto got = run.read<float>(out, n * 8);
  for (size_t k = 0; k < n; ++k) {
    const int i = static_cast<int>(std::floor(coords[2 * k] - 0.5)), j = static_cast<int>(std::floor(coords[2 * k + 1] - 0.5));
    // the four texels counter-clockwise from the lower left: (i, j+1), (i+1, j+1), (i+1, j), (i, j)
    const int xs[4] = {i, i + 1, i + 1, i}, ys[4] = {j + 1, j + 1, j, j};
    for (int s = 0; s < 4; ++s) {
      const int x = std::clamp(xs[s], 0, W - 1), y = std::clamp(ys[s], 0, H - 1);
      EXPECT_EQ(got[k * 8 + static_cast<size_t>(s)], texels[static_cast<size_t>((y * W + x) * 4 + 1)]) << "g, sample " << s << " of " << k;
      EXPECT_EQ(got[k * 8 + 4 + static_cast<size_t>(s)], texels[static_cast<size_t>((y * W + x) * 4 + 3)]) << "a, sample " << s << " of " << k;
    }
  }
}

const std::string kQueries = std::string(kHeader) + R"(.visible .entry queries(.param .u64 tex, .param .u64 surf, .param .u64 out)
{
	.reg .b64 %rd<4>;
	.reg .b32 %r<26>;
	.reg .pred %p<4>;
	ld.param.u64 %rd1, [tex];
	ld.param.u64 %rd2, [surf];
	ld.param.u64 %rd3, [out];
	cvta.to.global.u64 %rd3, %rd3;
	txq.width.b32 %r1, [%rd1];
	txq.height.b32 %r2, [%rd1];
	txq.depth.b32 %r3, [%rd1];
	txq.channel_data_type.b32 %r4, [%rd1];
	txq.channel_order.b32 %r5, [%rd1];
	txq.normalized_coords.b32 %r6, [%rd1];
	txq.filter_mode.b32 %r7, [%rd1];
	txq.addr_mode_0.b32 %r8, [%rd1];
	txq.addr_mode_1.b32 %r9, [%rd1];
	txq.addr_mode_2.b32 %r10, [%rd1];
	txq.array_size.b32 %r11, [%rd1];
	txq.num_mipmap_levels.b32 %r12, [%rd1];
	txq.num_samples.b32 %r13, [%rd1];
	txq.level.width.b32 %r14, [%rd1], 0;
	istypep.texref %p1, %rd1;
	istypep.surfref %p2, %rd1;
	istypep.surfref %p3, %rd2;
	selp.u32 %r22, 1, 0, %p1;
	selp.u32 %r23, 2, 0, %p2;
	selp.u32 %r24, 4, 0, %p3;
	or.b32 %r22, %r22, %r23;
	or.b32 %r22, %r22, %r24;
	suq.width.b32 %r15, [%rd2];
	suq.height.b32 %r16, [%rd2];
	suq.depth.b32 %r17, [%rd2];
	suq.channel_data_type.b32 %r18, [%rd2];
	suq.channel_order.b32 %r19, [%rd2];
	suq.array_size.b32 %r20, [%rd2];
	suq.memory_layout.b32 %r21, [%rd2];
	st.global.v4.u32 [%rd3], {%r1, %r2, %r3, %r4};
	st.global.v4.u32 [%rd3+16], {%r5, %r6, %r7, %r8};
	st.global.v4.u32 [%rd3+32], {%r9, %r10, %r11, %r12};
	st.global.v4.u32 [%rd3+48], {%r13, %r14, %r15, %r16};
	st.global.v4.u32 [%rd3+64], {%r17, %r18, %r19, %r20};
	st.global.v2.u32 [%rd3+80], {%r21, %r22};
	ret;
}
)";

TEST(EmuTexture, TxqAndSuqReportTheDescriptors) {
  expect_assembles(kQueries);
  EmuRun run;
  auto& mem = run.emu.memory();
  const uint64_t buf = mem.alloc(1 << 16, "data");
  emu::TextureDesc t;
  t.resource.shape = ResourceShape::Layered2D;
  t.resource.address = buf;
  t.resource.width = 7;
  t.resource.height = 5;
  t.resource.layers = 3;
  t.resource.format = {ChannelKind::U16, 2};
  t.read_mode = ReadMode::NormalizedFloat;
  t.filter = FilterMode::Linear;
  t.normalized_coords = true;
  t.address = {AddressMode::Mirror, AddressMode::Border, AddressMode::Wrap};
  emu::SurfaceDesc s;
  s.resource = pitch2d(buf, 9, 6, 64, ChannelKind::S32, 1);
  run.scalar(mem.create_texture(t));
  run.scalar(mem.create_surface(s));
  const uint64_t out = run.buffer(std::vector<uint32_t>(22), "out");
  run.launch(kQueries, "queries", {1, 1, 1}, {1, 1, 1});
  const auto got = run.read<uint32_t>(out, 22);
  // channel types and orders: OpenCL's enumerations (CL_UNORM_INT16 0x10D3, CL_RG 0x10B2,
  // CL_SIGNED_INT32 0x10D9, CL_R 0x10B0); addressing modes: txq's { wrap, mirror, clamp_ogl,
  // clamp_to_edge, clamp_to_border }; filter modes { nearest, linear }
  const std::vector<uint32_t> want = {7, 5, 1, 0x10D3, 0x10B2, 1, 1, 1, 4, 0, 3, 1, 0, 7,
                                      9, 6, 1, 0x10D9, 0x10B0, 0, 1,
                                      1 | 4};  // istypep: the texture is a .texref, not a .surfref; the surface a .surfref
  EXPECT_EQ(got, want);
}

// Surfaces: thread (x, y) stores at byte x * 4 of row y, then loads what another thread stored;
// loads and stores of vectors of bytes and half-words; the out-of-range modes.
const std::string kSurface = std::string(kHeader) + R"(.visible .entry surf(.param .u64 s2, .param .u64 s1, .param .u64 out)
{
	.reg .b64 %rd<8>;
	.reg .b32 %r<24>;
	.reg .b16 %h<8>;
	.reg .pred %p<2>;
	ld.param.u64 %rd1, [s2];
	ld.param.u64 %rd2, [s1];
	ld.param.u64 %rd3, [out];
	cvta.to.global.u64 %rd3, %rd3;
	mov.u32 %r1, %tid.x;
	mov.u32 %r2, %tid.y;
	shl.b32 %r3, %r1, 2;
	mad.lo.u32 %r4, %r2, 1000, %r1;
	sust.b.2d.b32.trap [%rd1, {%r3, %r2}], %r4;
	bar.sync 0;
	sub.u32 %r5, 5, %r1;
	shl.b32 %r5, %r5, 2;
	suld.b.2d.b32.trap %r6, [%rd1, {%r5, %r2}];
	add.u32 %r7, %r5, 8;
	suld.b.2d.b32.zero %r8, [%rd1, {%r7, %r2}];
	suld.b.2d.b32.clamp %r9, [%rd1, {%r7, %r2}];
	sub.u32 %r10, %r2, 2;
	suld.b.2d.b32.clamp %r11, [%rd1, {%r3, %r10}];
	cvt.u16.u32 %h1, %r1;
	cvt.u16.u32 %h2, %r2;
	mov.u32 %r13, 0;
	mov.u32 %r14, 0;
	mov.u32 %r15, 0;
	mov.u32 %r16, 0;
	setp.eq.u32 %p1, %r2, 0;
	@%p1 sust.b.1d.v2.b16.trap [%rd2, {%r3}], {%h1, %h2};
	bar.sync 0;
	@%p1 suld.b.1d.v4.b8.trap {%r13, %r14, %r15, %r16}, [%rd2, {%r3}];
	mad.lo.u32 %r17, %r2, 6, %r1;
	mul.wide.u32 %rd4, %r17, 32;
	add.u64 %rd5, %rd3, %rd4;
	st.global.v4.u32 [%rd5], {%r6, %r8, %r9, %r11};
	st.global.v4.u32 [%rd5+16], {%r13, %r14, %r15, %r16};
	ret;
}
)";

TEST(EmuSurface, StoresLoadsAndOutOfRangeModes) {
  const std::string& ptx = kSurface;
  expect_assembles(ptx);
  EmuRun run;
  auto& mem = run.emu.memory();
  const int W = 6, H = 3;
  const uint64_t b2 = mem.alloc(32 * H, "surface2d");  // rows of 24 bytes, 32 apart
  mem.fill(b2, 0xEE, 32 * H);
  const uint64_t b1 = mem.alloc(W * 4, "surface1d");
  emu::SurfaceDesc s2;
  s2.resource = pitch2d(b2, W, H, 32, ChannelKind::U32, 1);
  emu::SurfaceDesc s1;
  s1.resource.shape = ResourceShape::Array1D;
  s1.resource.address = b1;
  s1.resource.width = W;
  s1.resource.format = {ChannelKind::U8, 4};
  run.scalar(mem.create_surface(s2));
  run.scalar(mem.create_surface(s1));
  const uint64_t out = run.buffer(std::vector<uint32_t>(static_cast<size_t>(W * H * 8)), "out");
  run.launch(ptx, "surf", {1, 1, 1}, {W, H, 1});
  // the stores, in the pitched memory
  std::vector<uint32_t> raw(static_cast<size_t>(8 * H));
  mem.read(raw.data(), b2, raw.size() * 4);
  for (int y = 0; y < H; ++y) {
    for (int x = 0; x < W; ++x) EXPECT_EQ(raw[static_cast<size_t>(y * 8 + x)], static_cast<uint32_t>(y * 1000 + x));
    EXPECT_EQ(raw[static_cast<size_t>(y * 8 + 6)], 0xEEEEEEEEu);  // the padding is untouched
  }
  const auto got = run.read<uint32_t>(out, static_cast<size_t>(W * H * 8));
  auto elem = [&](int x, int y) { return static_cast<uint32_t>(y * 1000 + x); };
  for (int y = 0; y < H; ++y)
    for (int x = 0; x < W; ++x) {
      const size_t o = static_cast<size_t>((y * W + x) * 8);
      const int mirror = 5 - x, past = mirror + 2;  // element 5 - x, and two further (out of range for x < 2)
      EXPECT_EQ(got[o], elem(mirror, y));
      EXPECT_EQ(got[o + 1], past < W ? elem(past, y) : 0u) << ".zero at x = " << past;
      EXPECT_EQ(got[o + 2], elem(std::min(past, W - 1), y)) << ".clamp at x = " << past;
      EXPECT_EQ(got[o + 3], elem(x, std::clamp(y - 2, 0, H - 1))) << ".clamp at y = " << y - 2;
      if (y == 0) {  // two half-words (x, 0) stored at byte 4x, read back as four bytes
        const uint32_t want[4] = {static_cast<uint32_t>(x), 0, 0, 0};
        for (int k = 0; k < 4; ++k) EXPECT_EQ(got[o + 4 + static_cast<size_t>(k)], want[k]);
      }
    }
}

// Layered and 3D surfaces: thread (x, y, z) stores two words at element x of row y of layer z,
// reads them back as one .b64 from the 3D surface over the same memory, and a .zero load past
// the last slice.
const std::string kSurfaceLayers = std::string(kHeader) + R"(.visible .entry layers(.param .u64 sa, .param .u64 s3, .param .u64 out)
{
	.reg .b64 %rd<8>;
	.reg .b32 %r<16>;
	ld.param.u64 %rd1, [sa];
	ld.param.u64 %rd2, [s3];
	ld.param.u64 %rd3, [out];
	cvta.to.global.u64 %rd3, %rd3;
	mov.u32 %r1, %tid.x;
	mov.u32 %r2, %tid.y;
	mov.u32 %r3, %tid.z;
	shl.b32 %r4, %r1, 3;
	mad.lo.u32 %r5, %r3, 100, %r2;
	mad.lo.u32 %r5, %r5, 10, %r1;
	not.b32 %r6, %r5;
	sust.b.a2d.v2.b32.trap [%rd1, {%r3, %r4, %r2, %r2}], {%r5, %r6};
	bar.sync 0;
	suld.b.3d.b64.trap %rd4, [%rd2, {%r4, %r2, %r3, %r3}];
	add.u32 %r7, %r3, 2;
	mov.u64 %rd5, 77;
	suld.b.3d.b64.zero %rd5, [%rd2, {%r4, %r2, %r7, %r7}];
	mad.lo.u32 %r8, %r3, 3, %r2;
	mad.lo.u32 %r8, %r8, 4, %r1;
	mul.wide.u32 %rd6, %r8, 16;
	add.u64 %rd7, %rd3, %rd6;
	st.global.v2.u64 [%rd7], {%rd4, %rd5};
	ret;
}
)";

TEST(EmuSurface, LayeredAnd3DSurfacesShareTheLayout) {
  expect_assembles(kSurfaceLayers);
  EmuRun run;
  auto& mem = run.emu.memory();
  const int W = 4, H = 3, L = 2;
  const uint64_t b = mem.alloc(static_cast<size_t>(W * H * L * 8), "layers");
  emu::SurfaceDesc sa;
  sa.resource.shape = ResourceShape::Layered2D;
  sa.resource.address = b;
  sa.resource.width = W;
  sa.resource.height = H;
  sa.resource.layers = L;
  sa.resource.format = {ChannelKind::U32, 2};
  emu::SurfaceDesc s3 = sa;
  s3.resource.shape = ResourceShape::Array3D;
  s3.resource.layers = 1;
  s3.resource.depth = L;
  run.scalar(mem.create_surface(sa));
  run.scalar(mem.create_surface(s3));
  const uint64_t out = run.buffer(std::vector<uint64_t>(static_cast<size_t>(W * H * L * 2)), "out");
  run.launch(kSurfaceLayers, "layers", {1, 1, 1}, {W, H, L});
  const auto got = run.read<uint64_t>(out, static_cast<size_t>(W * H * L * 2));
  for (int z = 0; z < L; ++z)
    for (int y = 0; y < H; ++y)
      for (int x = 0; x < W; ++x) {
        const uint32_t v = static_cast<uint32_t>((z * 100 + y) * 10 + x);
        const size_t o = static_cast<size_t>(((z * H + y) * W + x) * 2);
        EXPECT_EQ(got[o], static_cast<uint64_t>(~v) << 32 | v) << x << "," << y << "," << z;
        EXPECT_EQ(got[o + 1], 0u) << ".zero past the last slice";
      }
}

const std::string kSurfTrap = std::string(kHeader) + R"(.visible .entry trap(.param .u64 s)
{
	.reg .b64 %rd<2>;
	.reg .b32 %r<4>;
	ld.param.u64 %rd1, [s];
	mov.u32 %r1, %tid.x;
	shl.b32 %r2, %r1, 3;
	suld.b.1d.b32.trap %r3, [%rd1, {%r2}];
	ret;
}
)";

TEST(EmuSurface, TrapReportsTheLaneInstructionAndCoordinate) {
  expect_assembles(kSurfTrap);
  EmuRun run;
  const uint64_t b = run.emu.memory().alloc(40, "s");
  emu::SurfaceDesc s;
  s.resource.shape = ResourceShape::Linear;
  s.resource.address = b;
  s.resource.width = 10;
  s.resource.format = {ChannelKind::F32, 1};
  run.scalar(run.emu.memory().create_surface(s));
  // lanes 0-4 read bytes 0..32; lane 5 reads byte 40, past the 40-byte row
  const std::string err = expect_error(run, kSurfTrap, "trap", {8, 1, 1});
  EXPECT_NE(err.find("thread (5,0,0)"), std::string::npos) << err;
  EXPECT_NE(err.find("suld.b.1d.b32.trap"), std::string::npos) << err;
  EXPECT_NE(err.find("x = 40 bytes is out of range"), std::string::npos) << err;
}

const std::string kSured = std::string(kHeader) + R"(.visible .entry reduce(.param .u64 s32, .param .u64 s64)
{
	.reg .b64 %rd<4>;
	.reg .b32 %r<8>;
	.reg .b32 %x<6>;
	ld.param.u64 %rd1, [s32];
	ld.param.u64 %rd2, [s64];
	mov.u32 %r1, %tid.x;
	sub.u32 %r2, 50, %r1;
	mov.u32 %x0, 0;
	mov.u32 %x1, 4;
	mov.u32 %x2, 8;
	mov.u32 %x3, 12;
	mov.u32 %x4, 16;
	mov.u32 %x5, 20;
	sured.b.add.1d.u32.trap [%rd1, {%x0}], %r1;
	sured.b.min.1d.s32.trap [%rd1, {%x1}], %r2;
	sured.b.max.1d.u32.trap [%rd1, {%x2}], %r2;
	shl.b32 %r3, 1, %r1;
	sured.b.or.1d.b32.trap [%rd1, {%x3}], %r3;
	not.b32 %r4, %r3;
	sured.b.and.1d.b32.trap [%rd1, {%x4}], %r4;
	sured.b.min.1d.u32.trap [%rd1, %x5], %r2;
	cvt.u64.u32 %rd3, %r1;
	shl.b64 %rd3, %rd3, 32;
	sured.b.add.1d.u64.trap [%rd2, {%x2}], %rd3;
	ret;
}
)";

TEST(EmuSurface, ReductionsCombineEveryThread) {
  expect_assembles(kSured);
  EmuRun run;
  auto& mem = run.emu.memory();
  const uint64_t b32 = mem.alloc(24, "words"), b64 = mem.alloc(16, "dwords");
  const std::vector<uint32_t> init = {7, 0, 0, 0, 0xFFFFFFFFu, 100};
  mem.write(b32, init.data(), 24);
  emu::SurfaceDesc s;
  s.resource.shape = ResourceShape::Array1D;
  s.resource.address = b32;
  s.resource.width = 6;
  s.resource.format = {ChannelKind::U32, 1};
  emu::SurfaceDesc d = s;
  d.resource.address = b64;
  d.resource.width = 2;
  d.resource.format = {ChannelKind::U32, 2};
  run.scalar(mem.create_surface(s));
  run.scalar(mem.create_surface(d));
  const uint32_t n = 32;
  run.launch(kSured, "reduce", {1, 1, 1}, {n, 1, 1});
  std::vector<uint32_t> w(6);
  mem.read(w.data(), b32, 24);
  std::vector<uint64_t> q(2);
  mem.read(q.data(), b64, 16);
  uint32_t sum = 7, orv = 0, andv = 0xFFFFFFFFu, umin = 100;
  int32_t smin = 0;
  uint32_t umax = 0;
  uint64_t sum64 = 0;
  for (uint32_t t = 0; t < n; ++t) {
    const uint32_t v = 50 - t;
    sum += t;
    smin = std::min(smin, static_cast<int32_t>(v));
    umax = std::max(umax, v);
    orv |= 1u << t;
    andv &= ~(1u << t);
    umin = std::min(umin, v);
    sum64 += static_cast<uint64_t>(t) << 32;
  }
  EXPECT_EQ(w[0], sum);
  EXPECT_EQ(static_cast<int32_t>(w[1]), smin);
  EXPECT_EQ(w[2], umax);
  EXPECT_EQ(w[3], orv);
  EXPECT_EQ(w[4], andv);
  EXPECT_EQ(w[5], umin);
  EXPECT_EQ(q[0], 0u);
  EXPECT_EQ(q[1], sum64);
}

// tex.level (a texture without mipmaps: level 0), offsets, and .f16x2 results.
const std::string kTexForms = std::string(kHeader) + R"(.visible .entry forms(.param .u64 tex, .param .u64 out)
{
	.reg .b64 %rd<4>;
	.reg .f32 %f<16>;
	.reg .b32 %r<8>;
	ld.param.u64 %rd1, [tex];
	ld.param.u64 %rd2, [out];
	cvta.to.global.u64 %rd2, %rd2;
	mov.f32 %f1, 0f40200000;
	mov.f32 %f2, 0f3FC00000;
	mov.f32 %f3, 0f40000000;
	tex.level.2d.v4.f32.f32 {%f4, %f5, %f6, %f7}, [%rd1, {%f1, %f2}], %f3;
	mov.u32 %r1, 1;
	mov.u32 %r2, -1;
	tex.2d.v4.f32.f32 {%f8, %f9, %f10, %f11}, [%rd1, {%f1, %f2}], {%r1, %r2};
	tex.2d.v2.f16x2.f32 {%r3, %r4}, [%rd1, {%f1, %f2}];
	st.global.v4.f32 [%rd2], {%f4, %f5, %f6, %f7};
	st.global.v4.f32 [%rd2+16], {%f8, %f9, %f10, %f11};
	st.global.v2.u32 [%rd2+32], {%r3, %r4};
	ret;
}
)";

TEST(EmuTexture, LevelOffsetsAndHalfResults) {
  expect_assembles(kTexForms);
  EmuRun run;
  auto& mem = run.emu.memory();
  const int W = 4, H = 4;
  std::vector<float> texels(static_cast<size_t>(W * H * 4));
  for (int y = 0; y < H; ++y)
    for (int x = 0; x < W; ++x)
      for (int c = 0; c < 4; ++c) texels[static_cast<size_t>((y * W + x) * 4 + c)] = static_cast<float>(x + 4 * y) + 0.25f * static_cast<float>(c);
  const uint64_t b = mem.alloc(texels.size() * 4, "texels");
  mem.write(b, texels.data(), texels.size() * 4);
  emu::TextureDesc t;
  t.resource.shape = ResourceShape::Array2D;
  t.resource.address = b;
  t.resource.width = W;
  t.resource.height = H;
  t.resource.format = {ChannelKind::F32, 4};
  run.scalar(mem.create_texture(t));
  const uint64_t out = run.buffer(std::vector<uint32_t>(10), "out");
  run.launch(kTexForms, "forms", {1, 1, 1}, {1, 1, 1});
  const auto got = run.read<uint32_t>(out, 10);
  auto texel = [&](int x, int y, int c) { return texels[static_cast<size_t>((y * W + x) * 4 + c)]; };
  for (int c = 0; c < 4; ++c) {
    EXPECT_EQ(std::bit_cast<float>(got[static_cast<size_t>(c)]), texel(2, 1, c)) << "tex.level, channel " << c;      // (2.5, 1.5)
    EXPECT_EQ(std::bit_cast<float>(got[4 + static_cast<size_t>(c)]), texel(3, 0, c)) << "offset (1, -1), channel " << c;
  }
  // texel (2, 1) = {6, 6.25, 6.5, 6.75} as halves: 6 = 0x4600, 6.25 = 0x4640, 6.5 = 0x4680, 6.75 = 0x46C0
  EXPECT_EQ(got[8], 0x46404600u);
  EXPECT_EQ(got[9], 0x46C04680u);
}

// sust.p: x in elements, each value converted to its channel (u8: the low bits; f16: rounded).
const std::string kSustP = std::string(kHeader) + R"(.visible .entry fmt(.param .u64 s8, .param .u64 sh)
{
	.reg .b64 %rd<3>;
	.reg .b32 %r<8>;
	.reg .f32 %f<3>;
	ld.param.u64 %rd1, [s8];
	ld.param.u64 %rd2, [sh];
	mov.u32 %r1, %tid.x;
	add.u32 %r2, %r1, 1;
	add.u32 %r3, %r1, 2;
	add.u32 %r4, %r1, 300;
	sust.p.1d.v4.b32.trap [%rd1, {%r1}], {%r1, %r2, %r3, %r4};
	cvt.rn.f32.u32 %f1, %r1;
	neg.f32 %f2, %f1;
	mov.b32 %r5, %f1;
	mov.b32 %r6, %f2;
	sust.p.1d.v2.b32.trap [%rd2, {%r1}], {%r5, %r6};
	ret;
}
)";

TEST(EmuSurface, FormattedStoresConvertToTheChannelFormat) {
  expect_assembles(kSustP);
  EmuRun run;
  auto& mem = run.emu.memory();
  const uint64_t b8 = mem.alloc(16, "rgba8"), bh = mem.alloc(16, "half2");
  emu::SurfaceDesc s8;
  s8.resource.shape = ResourceShape::Array1D;
  s8.resource.address = b8;
  s8.resource.width = 4;
  s8.resource.format = {ChannelKind::U8, 4};
  emu::SurfaceDesc sh = s8;
  sh.resource.address = bh;
  sh.resource.format = {ChannelKind::F16, 2};
  run.scalar(mem.create_surface(s8));
  run.scalar(mem.create_surface(sh));
  run.launch(kSustP, "fmt", {1, 1, 1}, {4, 1, 1});
  std::vector<uint8_t> bytes(16);
  mem.read(bytes.data(), b8, 16);
  std::vector<uint16_t> halves(8);
  mem.read(halves.data(), bh, 16);
  const uint16_t f16_of[4] = {0x0000, 0x3C00, 0x4000, 0x4200};  // 0, 1, 2, 3
  for (int x = 0; x < 4; ++x) {
    const uint8_t want[4] = {static_cast<uint8_t>(x), static_cast<uint8_t>(x + 1), static_cast<uint8_t>(x + 2), static_cast<uint8_t>((x + 300) & 0xFF)};
    for (int c = 0; c < 4; ++c) EXPECT_EQ(bytes[static_cast<size_t>(4 * x + c)], want[c]) << x << " " << c;
    EXPECT_EQ(halves[static_cast<size_t>(2 * x)], f16_of[x]);
    EXPECT_EQ(halves[static_cast<size_t>(2 * x + 1)], f16_of[x] | 0x8000);
  }
}

const std::string kTxqLevel = std::string(kHeader) + R"(.visible .entry lvl(.param .u64 tex)
{
	.reg .b64 %rd<2>;
	.reg .b32 %r<4>;
	ld.param.u64 %rd1, [tex];
	mov.u32 %r1, 1;
	txq.level.width.b32 %r2, [%rd1], %r1;
	ret;
}
)";

TEST(EmuTexture, TxqOfAMissingLevelIsReported) {
  expect_assembles(kTxqLevel);
  EmuRun run;
  emu::TextureDesc t;
  t.resource.address = run.emu.memory().alloc(64, "texels");
  t.resource.width = 16;
  run.scalar(run.emu.memory().create_texture(t));
  const std::string err = expect_error(run, kTxqLevel, "lvl");
  EXPECT_NE(err.find("level 1 of a texture without mipmaps"), std::string::npos) << err;
}

TEST(EmuTexture, BadHandlesAndDescriptorsAreReported) {
  expect_assembles(kTex1d);
  {  // a buffer's address instead of a handle
    EmuRun run;
    const uint64_t b = run.emu.memory().alloc(64, "data");
    run.scalar(b);
    run.buffer(std::vector<float>{0.5f}, "coords");
    run.buffer(std::vector<float>(1), "out");
    const std::string err = expect_error(run, kTex1d, "tex1d");
    EXPECT_NE(err.find("tex.1d.v4.f32.f32: the texture operand"), std::string::npos) << err;
    EXPECT_NE(err.find("data+0, not a texture or surface object"), std::string::npos) << err;
  }
  {  // a value that is nothing, and a destroyed texture, and a surface given to tex
    for (int which = 0; which < 3; ++which) {
      EmuRun run;
      auto& mem = run.emu.memory();
      const uint64_t b = mem.alloc(64, "data");
      emu::TextureDesc t;
      t.resource.address = b;
      t.resource.width = 16;
      emu::SurfaceDesc s;
      s.resource = t.resource;
      uint64_t h = 12345;
      if (which == 1) {
        h = mem.create_texture(t);
        mem.destroy_texture(h);
      } else if (which == 2) {
        h = mem.create_surface(s);
      }
      run.scalar(h);
      run.buffer(std::vector<float>{0.5f}, "coords");
      run.buffer(std::vector<float>(1), "out");
      const std::string err = expect_error(run, kTex1d, "tex1d");
      const char* want[] = {"0x3039 is not a texture or surface object", "is a destroyed texture object", "is a surface object"};
      EXPECT_NE(err.find(want[which]), std::string::npos) << err;
    }
  }
  {  // descriptors: too little memory, freed memory, wrap without normalized coordinates, a bad pitch
    emu::Emulator emu;
    auto& mem = emu.memory();
    const uint64_t b = mem.alloc(1000, "small");
    emu::TextureDesc t;
    t.resource = pitch2d(b, 10, 8, 128, ChannelKind::F32, 1);  // 7 * 128 + 40 = 936 bytes: fits
    EXPECT_NO_THROW(mem.create_texture(t));
    t.resource.height = 9;  // 8 * 128 + 40 = 1064 bytes
    try {
      mem.create_texture(t);
      ADD_FAILURE() << "no error";
    } catch (const emu::Error& e) {
      EXPECT_NE(std::string(e.what()).find("needs 1064 bytes from small+0, but the buffer has 1000 bytes"), std::string::npos) << e.what();
    }
    t.resource.height = 2;
    t.address[0] = AddressMode::Wrap;
    EXPECT_THROW(mem.create_texture(t), emu::Error);
    t.address[0] = AddressMode::Clamp;
    t.resource.pitch = 20;  // less than a row of 40 bytes
    EXPECT_THROW(mem.create_texture(t), emu::Error);
    t.resource.pitch = 64;
    t.filter = FilterMode::Linear;
    t.resource.format.kind = ChannelKind::U8;  // linear filtering of elements read as integers
    EXPECT_THROW(mem.create_texture(t), emu::Error);
    t.resource.format.kind = ChannelKind::F32;
    emu::SurfaceDesc s;
    s.resource = t.resource;
    s.resource.width = 0;
    EXPECT_THROW(mem.create_surface(s), emu::Error);
    mem.free(b);
    try {
      mem.create_texture(t);
      ADD_FAILURE() << "no error";
    } catch (const emu::Error& e) {
      EXPECT_NE(std::string(e.what()).find("was freed"), std::string::npos) << e.what();
    }
    EXPECT_THROW(mem.destroy_texture(0x1234), emu::Error);
  }
  {  // memory freed after the texture was made: reported at the read
    EmuRun run;
    auto& mem = run.emu.memory();
    const uint64_t b = mem.alloc(64, "texels");
    emu::TextureDesc t;
    t.resource.address = b;
    t.resource.width = 16;
    run.scalar(mem.create_texture(t));
    mem.free(b);
    run.buffer(std::vector<float>{2.5f}, "coords");
    run.buffer(std::vector<float>(1), "out");
    const std::string err = expect_error(run, kTex1d, "tex1d");
    EXPECT_NE(err.find("texel (2, 0, 0) at texels+8 (freed)"), std::string::npos) << err;
  }
}

TEST(EmuTexture, UnsupportedFormsAreReportedByName) {
  EmuRun run;
  const std::string grad = std::string(kHeader) + R"(.visible .entry g(.param .u64 t)
{
	.reg .b64 %rd<2>;
	.reg .f32 %f<8>;
	ld.param.u64 %rd1, [t];
	mov.f32 %f1, 0f3F000000;
	tex.grad.2d.v4.f32.f32 {%f2, %f3, %f4, %f5}, [%rd1, {%f1, %f1}], {%f1, %f1}, {%f1, %f1};
	ret;
}
)";
  expect_assembles(grad);
  run.scalar(uint64_t{0});
  std::string err = expect_error(run, grad, "g");
  EXPECT_NE(err.find("does not support tex.grad"), std::string::npos) << err;
  const std::string texref = std::string(kHeader) + R"(.global .texref tr;
.visible .entry r(.param .u64 o)
{
	.reg .b32 %r<6>;
	mov.u32 %r1, 0;
	tex.1d.v4.u32.s32 {%r2, %r3, %r4, %r5}, [tr, {%r1}];
	ret;
}
)";
  expect_assembles(texref);
  err = expect_error(run, texref, "r");
  EXPECT_NE(err.find(".texref"), std::string::npos) << err;
  EXPECT_NE(err.find("does not support"), std::string::npos) << err;
  // a .2d lookup on a 1D texture
  EmuRun run2;
  const uint64_t b = run2.emu.memory().alloc(64, "texels");
  emu::TextureDesc t;
  t.resource.address = b;
  t.resource.width = 16;
  run2.scalar(run2.emu.memory().create_texture(t));
  run2.buffer(std::vector<float>{0.5f, 0.5f}, "coords");
  run2.buffer(std::vector<float>(3), "out");
  err = expect_error(run2, kTex2d, "tex2d");
  EXPECT_NE(err.find(".2d on a linear resource (it takes .1d)"), std::string::npos) << err;
  // .f32 results from 8-bit integers read as elements
  EmuRun run3;
  t.resource.format = {ChannelKind::U8, 4};
  t.resource.address = run3.emu.memory().alloc(64, "texels");
  run3.scalar(run3.emu.memory().create_texture(t));
  run3.buffer(std::vector<float>{0.5f}, "coords");
  run3.buffer(std::vector<float>(1), "out");
  err = expect_error(run3, kTex1d, "tex1d");
  EXPECT_NE(err.find("floating-point results from a texture of integer channels read as elements"), std::string::npos) << err;
  // a surface load at a byte offset that is not a multiple of its size
  std::string misaligned = kSurfTrap;
  misaligned.replace(misaligned.find("shl.b32 %r2, %r1, 3;"), 20, "mul.lo.u32 %r2, %r1, 6;");
  expect_assembles(misaligned);
  EmuRun run4;
  emu::SurfaceDesc s;
  s.resource.address = run4.emu.memory().alloc(64, "s");
  s.resource.width = 16;
  run4.scalar(run4.emu.memory().create_surface(s));
  err = expect_error(run4, misaligned, "trap", {2, 1, 1});
  EXPECT_NE(err.find("thread (1,0,0)"), std::string::npos) << err;
  EXPECT_NE(err.find("x = 6 bytes is not a multiple of the access's 4 bytes"), std::string::npos) << err;
}

}  // namespace
}  // namespace ptx::test
