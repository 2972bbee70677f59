// The DSL's descriptor encodings against CUTLASS/CuTe's host encoders, bit for bit: every
// line of tests/encodings/cutlass-4.2.0.txt (written by scripts/gen-cutlass-encodings from
// tests/encodings/src/cutlass_encodings.cu) is rebuilt with the ptxpp API and compared.
// CUTLASS is not needed here: the data is checked in.
#include <gtest/gtest.h>

#include <cstdint>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include "ptxpp/dsl/blackwell/block_scaled_descriptor.hpp"
#include "ptxpp/dsl/blackwell/instr_descriptor.hpp"
#include "ptxpp/dsl/blackwell/smem_descriptor.hpp"
#include "ptxpp/dsl/hopper/wgmma.hpp"
#include "ptxpp/emu/tensor_map.hpp"
#include "ptxpp/runtime/tensor_map.hpp"

namespace {

namespace bw = ptx::blackwell;
namespace hp = ptx::hopper;

// One data line: its kind and key=value fields.
struct Line {
  std::string kind, text;
  std::map<std::string, std::string> f;
  const std::string& at(const std::string& k) const {
    static const std::string none;
    auto it = f.find(k);
    if (it == f.end()) ADD_FAILURE() << "no field " << k << " in: " << text;
    return it == f.end() ? none : it->second;
  }
  uint64_t num(const std::string& k) const { return std::stoull(at(k), nullptr, 0); }
  int i(const std::string& k) const { return static_cast<int>(num(k)); }
  bool b(const std::string& k) const { return num(k) != 0; }
};

std::vector<Line> load() {
  std::ifstream in(PTXPP_ENCODINGS_DIR "/cutlass-4.2.0.txt");
  EXPECT_TRUE(in) << "cannot open " PTXPP_ENCODINGS_DIR "/cutlass-4.2.0.txt";
  std::vector<Line> lines;
  for (std::string s; std::getline(in, s);) {
    if (s.empty() || s[0] == '#') continue;
    Line l;
    l.text = s;
    std::istringstream words(s);
    words >> l.kind;
    for (std::string w; words >> w;) {
      const auto eq = w.find('=');
      l.f[w.substr(0, eq)] = w.substr(eq + 1);
    }
    lines.push_back(std::move(l));
  }
  return lines;
}

const std::vector<Line>& data() {
  static const std::vector<Line> lines = load();
  return lines;
}

// Runs `check` on every line of `kind`; a mismatch names the line. Returns how many there were.
template <class F> int for_each_line(const std::string& kind, F check) {
  int n = 0;
  for (const Line& l : data())
    if (l.kind == kind) {
      SCOPED_TRACE(l.text);
      ++n;
      check(l);
    }
  return n;
}

std::string hex(uint64_t v) {
  std::ostringstream s;
  s << "0x" << std::hex << v;
  return s.str();
}

// ---------------------------------------------------------------- wgmma descriptors

hp::DescSwizzle wgmma_swizzle(const std::string& s) {
  if (s == "none") return hp::DescSwizzle::None;
  if (s == "32B") return hp::DescSwizzle::B32;
  if (s == "64B") return hp::DescSwizzle::B64;
  if (s == "128B") return hp::DescSwizzle::B128;
  ADD_FAILURE() << "swizzle " << s;
  return hp::DescSwizzle::None;
}

bw::SmemSwizzle umma_swizzle(const std::string& s) {
  if (s == "none") return bw::SmemSwizzle::None;
  if (s == "32B") return bw::SmemSwizzle::B32;
  if (s == "64B") return bw::SmemSwizzle::B64;
  if (s == "128B") return bw::SmemSwizzle::B128;
  if (s == "128B_base32B") return bw::SmemSwizzle::B128_Base32B;
  ADD_FAILURE() << "swizzle " << s;
  return bw::SmemSwizzle::None;
}

int type_bits(const std::string& t) {
  if (t == "f16" || t == "bf16") return 16;
  if (t == "tf32" || t == "f32" || t == "s32") return 32;
  return 8;
}

// Start, LBO and SBO of one 32-byte K block of an MN x K tile laid out as CuTe's
// tile_to_shape(atom, (MN, K)) lays it (atoms along MN first), by the canonical layouts
// the DSL documents (k_major / mn_major). `span`: the swizzle span (16 for none);
// `atom_rows`: K rows of an MN-major atom (8; 4 for 128B with 32-byte atomicity).
struct Placement {
  uint32_t start, lbo, sbo;
};
Placement place(const Line& l, uint32_t span, uint32_t atom_rows) {
  const uint32_t bits = type_bits(l.at("type")), mn = l.i("mn"), base = l.i("base"), kb = l.i("kblock");
  const uint32_t mn_bytes = mn * bits / 8, kbyte = 32 * kb;
  if (l.at("major") == "K") {
    const uint32_t atoms_mn_bytes = mn / 8 * 8 * span;  // one column of atoms along MN
    const uint32_t start = base + kbyte / span * atoms_mn_bytes + kbyte % span;
    if (span == 16) return {start, mn * 16, 128};     // core matrices: K apart mn/8 x 128 bytes, MN 128
    return {start, 16, 8 * span};                     // LBO unused inside the span: 16 (1 in the field)
  }
  const uint32_t atom_bytes = atom_rows * span, atoms_mn = mn_bytes / span;
  const uint32_t k_rows = kbyte * 8 / bits;         // K rows before this block
  const uint32_t start = base + k_rows / atom_rows * atoms_mn * atom_bytes;
  // Documented difference: where the block is one core matrix / atom along the direction a
  // field steps (32 bytes of tf32 K are 8 rows; a tile one swizzle span wide), the hardware
  // never reads that field and CuTe writes the stride of a size-1 mode, 0.
  const uint32_t k_groups = 256 / bits / atom_rows;  // atoms (core matrices) along K in one block
  if (span == 16) return {start, k_groups > 1 ? mn_bytes * 8 : 0, 128};  // LBO along K, SBO along MN
  return {start, atoms_mn > 1 ? atom_bytes : 0, k_groups > 1 ? atoms_mn * atom_bytes : 0};  // LBO along MN, SBO along K
}

TEST(CutlassEncodings, WgmmaDescriptorFields) {
  const int n = for_each_line("wgmma_raw", [](const Line& l) {
    const hp::MatrixDescriptor d{static_cast<uint32_t>(l.num("start")), static_cast<uint32_t>(l.num("lbo")),
                                 static_cast<uint32_t>(l.num("sbo")), static_cast<uint32_t>(l.num("base_offset")),
                                 wgmma_swizzle(l.at("swizzle"))};
    EXPECT_EQ(hex(d.bits()), hex(l.num("bits")));
    EXPECT_EQ(hp::MatrixDescriptor::decode(l.num("bits")), d);
  });
  EXPECT_GT(n, 500);
}

TEST(CutlassEncodings, WgmmaDescriptorsOfCanonicalTiles) {
  const int n = for_each_line("wgmma_layout", [](const Line& l) {
    const hp::DescSwizzle s = wgmma_swizzle(l.at("swizzle"));
    const Placement p = place(l, hp::swizzle_bytes(s), 8);
    EXPECT_EQ(p.start, l.num("start"));
    const hp::MatrixDescriptor d =
        l.at("major") == "K" ? hp::k_major(p.start, s, p.sbo, p.lbo) : hp::mn_major(p.start, s, p.lbo, p.sbo);
    EXPECT_EQ(hex(d.bits()), hex(l.num("bits")));
  });
  EXPECT_GT(n, 1000);
}

// ---------------------------------------------------------------- tcgen05 shared-memory descriptors

TEST(CutlassEncodings, TcgenSmemDescriptorFields) {
  const int n = for_each_line("umma_raw", [](const Line& l) {
    const bw::SmemDescriptor d{static_cast<uint32_t>(l.num("start")), static_cast<uint32_t>(l.num("lbo")),
                               static_cast<uint32_t>(l.num("sbo")), static_cast<uint32_t>(l.num("base_offset")),
                               l.b("lbo_absolute"), umma_swizzle(l.at("swizzle"))};
    EXPECT_EQ(hex(d.bits()), hex(l.num("bits")));
    EXPECT_EQ(bw::SmemDescriptor::decode(l.num("bits")), d);
  });
  EXPECT_GT(n, 300);
}

TEST(CutlassEncodings, TcgenSmemDescriptorsOfCanonicalTiles) {
  const int n = for_each_line("umma_layout", [](const Line& l) {
    const bw::SmemSwizzle s = umma_swizzle(l.at("swizzle"));
    const Placement p = place(l, bw::swizzle_bytes(s), s == bw::SmemSwizzle::B128_Base32B ? 4 : 8);
    EXPECT_EQ(p.start, l.num("start"));
    const bw::SmemDescriptor d =
        l.at("major") == "K" ? bw::k_major(p.start, s, p.sbo, p.lbo) : bw::mn_major(p.start, s, p.lbo, p.sbo);
    EXPECT_EQ(hex(d.bits()), hex(l.num("bits")));
  });
  EXPECT_GT(n, 1000);
}

// ---------------------------------------------------------------- instruction descriptors

bw::MmaType mma_type(const std::string& t) {
  static const std::map<std::string, bw::MmaType> types = {
      {"f16", bw::MmaType::f16},   {"bf16", bw::MmaType::bf16}, {"tf32", bw::MmaType::tf32},
      {"e4m3", bw::MmaType::e4m3}, {"e5m2", bw::MmaType::e5m2}, {"e2m3", bw::MmaType::e2m3},
      {"e3m2", bw::MmaType::e3m2}, {"e2m1", bw::MmaType::e2m1}, {"u8", bw::MmaType::u8},
      {"s8", bw::MmaType::s8}};
  auto it = types.find(t);
  if (it == types.end()) ADD_FAILURE() << "type " << t;
  return it == types.end() ? bw::MmaType::f16 : it->second;
}

// CuTe's M is the instruction's: 256 only with cta_group::2; a descriptor's bits do not depend
// on the group, which only decides the legal shapes. N not a multiple of 16 needs ::1.
ptx::blackwell::CtaGroup group_of(int m) { return m == 256 ? bw::CtaGroup::Two : bw::CtaGroup::One; }

TEST(CutlassEncodings, TcgenInstrDescriptors) {
  const int n = for_each_line("idesc", [](const Line& l) {
    static const std::map<std::string, bw::MmaKind> kinds = {
        {"f16", bw::MmaKind::F16}, {"tf32", bw::MmaKind::TF32}, {"f8f6f4", bw::MmaKind::F8F6F4}, {"i8", bw::MmaKind::I8}};
    static const std::map<std::string, bw::AccType> accs = {
        {"f16", bw::AccType::f16}, {"f32", bw::AccType::f32}, {"s32", bw::AccType::s32}};
    bw::InstrDescriptor d;
    d.kind = kinds.at(l.at("kind"));
    d.a = mma_type(l.at("a"));
    d.b = mma_type(l.at("b"));
    d.d = accs.at(l.at("d"));
    d.m = l.i("m");
    d.n = l.i("n");
    d.group = group_of(d.m);
    d.transpose_a = l.at("major_a") == "MN";
    d.transpose_b = l.at("major_b") == "MN";
    d.negate_a = l.b("negate_a");
    d.negate_b = l.b("negate_b");
    d.saturate = l.b("saturate");
    d.sparse = l.b("sparse");
    d.sparsity_selector = l.i("sparse_id");
    d.max_shift = static_cast<bw::WsMaxShift>(l.i("max_shift"));
    // tcgen05.mma.ws shapes: M = 32, or a maximum shift (only .ws takes one).
    d.ws = d.m == 32 || d.max_shift != bw::WsMaxShift::None;
    EXPECT_EQ(hex(d.bits()), hex(l.num("bits")));
    EXPECT_EQ(bw::InstrDescriptor::decode(static_cast<uint32_t>(l.num("bits")), d.kind, d.group, d.ws), d);
  });
  EXPECT_GT(n, 700);
}

TEST(CutlassEncodings, TcgenBlockScaledInstrDescriptors) {
  const int n = for_each_line("idesc_bs", [](const Line& l) {
    static const std::map<std::string, bw::ScaledKind> kinds = {
        {"mxf8f6f4", bw::ScaledKind::MXF8F6F4}, {"mxf4", bw::ScaledKind::MXF4}, {"mxf4nvf4", bw::ScaledKind::MXF4NVF4}};
    static const std::map<std::string, bw::ScaleVec> vecs = {
        {"1X", bw::ScaleVec::X1}, {"2X", bw::ScaleVec::X2}, {"4X", bw::ScaleVec::X4}};
    bw::BlockScaledDescriptor d;
    d.kind = kinds.at(l.at("kind"));
    d.vec = vecs.at(l.at("vec"));
    d.a = mma_type(l.at("a"));
    d.b = mma_type(l.at("b"));
    d.scale_type = l.at("scale") == "ue8m0" ? bw::ScaleType::ue8m0 : bw::ScaleType::ue4m3;
    d.m = l.i("m");
    d.n = l.i("n");
    d.group = group_of(d.m);
    d.scale_a_id = l.i("sfa_id");
    d.scale_b_id = l.i("sfb_id");
    d.transpose_a = l.at("major_a") == "MN";
    d.transpose_b = l.at("major_b") == "MN";
    d.negate_a = l.b("negate_a");
    d.negate_b = l.b("negate_b");
    d.sparse = l.b("sparse");
    EXPECT_EQ(hex(d.bits()), hex(l.num("bits")));
    EXPECT_EQ(bw::BlockScaledDescriptor::decode(static_cast<uint32_t>(l.num("bits")), d.kind, d.vec, d.group), d);
  });
  EXPECT_GT(n, 100);
}

// ---------------------------------------------------------------- TMA tensor maps

std::vector<uint64_t> nums(const std::string& csv) {
  std::vector<uint64_t> v;
  std::istringstream in(csv);
  for (std::string x; std::getline(in, x, ',');) v.push_back(std::stoull(x));
  return v;
}

ptx::TmaType tma_type(const std::string& t) {
  static const std::map<std::string, ptx::TmaType> types = {
      {"f16", ptx::TmaType::f16},  {"bf16", ptx::TmaType::bf16}, {"tf32", ptx::TmaType::tf32},
      {"f32", ptx::TmaType::f32},  {"s32", ptx::TmaType::s32},   {"e4m3", ptx::TmaType::u8},
      {"s8", ptx::TmaType::u8}};  // CuTe moves every 8-bit type as UINT8
  return types.at(t);
}

ptx::TmaSwizzle tma_swizzle(const std::string& s) {
  static const std::map<std::string, ptx::TmaSwizzle> sw = {
      {"none", ptx::TmaSwizzle::none}, {"32B", ptx::TmaSwizzle::b32}, {"64B", ptx::TmaSwizzle::b64},
      {"128B", ptx::TmaSwizzle::b128}, {"128B_base32B", ptx::TmaSwizzle::b128_atom_32b}};
  return sw.at(s);
}

// A row-major (K-major: K contiguous) or column-major (MN-major) rows x cols matrix, one
// tile_m x tile_k tile per copy, as the runtime's TensorMapSpec describes it (dims innermost
// first, packed strides); CUTLASS asks for 128-byte L2 promotion.
ptx::TensorMapSpec tma_spec(const Line& l) {
  ptx::TensorMapSpec s;
  s.type = tma_type(l.at("type"));
  const uint64_t rows = l.num("rows"), cols = l.num("cols");
  const uint32_t tm = l.i("tile_m"), tk = l.i("tile_k");
  const bool k_major = l.at("major") == "K";
  s.dims = k_major ? std::vector<uint64_t>{cols, rows} : std::vector<uint64_t>{rows, cols};
  s.box = k_major ? std::vector<uint32_t>{tk, tm} : std::vector<uint32_t>{tm, tk};
  s.swizzle = tma_swizzle(l.at("swizzle"));
  s.l2_promotion = ptx::TmaL2Promotion::b128;
  return s;
}

template <class A> std::vector<uint64_t> first(const A& a, size_t n) { return {a.begin(), a.begin() + n}; }

TEST(CutlassEncodings, TmaTensorMapArguments) {
  const ptx::Device cpu = ptx::device::cpu();
  const int n = for_each_line("tma", [&](const Line& l) {
    const ptx::TensorMapSpec s = tma_spec(l);
    EXPECT_EQ(ptx::check_tensor_map(s, 0x10000), "");
    // The CPU device writes the fields it would give the driver into the map; read them back.
    const ptx::TensorMap m = ptx::make_tensor_map(cpu, ptx::DevicePtr{0x10000}, s);
    const auto d = ptx::emu::decode(m.bytes.data());
    ASSERT_TRUE(d.has_value());
    EXPECT_EQ(d->dtype, l.i("dtype"));
    EXPECT_EQ(d->rank, l.i("rank"));
    EXPECT_EQ(first(d->dims, d->rank), nums(l.at("dims")));
    EXPECT_EQ(std::vector<uint64_t>(d->strides.begin() + 1, d->strides.begin() + d->rank), nums(l.at("strides")));
    EXPECT_EQ(first(d->box, d->rank), nums(l.at("box")));
    EXPECT_EQ(first(d->element_strides, d->rank), nums(l.at("element_strides")));
    EXPECT_EQ(d->interleave, l.i("interleave"));
    EXPECT_EQ(d->swizzle, l.i("swizzle_code"));
    EXPECT_EQ(d->l2_promotion, l.i("l2"));
    EXPECT_EQ(d->oob_nan, l.i("oob"));
  });
  EXPECT_GT(n, 50);
}

}  // namespace
