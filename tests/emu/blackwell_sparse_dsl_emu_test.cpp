// The DSL's sparse tcgen05.mma (an InstrDescriptor with sparse set and MmaOptions'
// sparse_metadata: tcgen05.mma.sp) built on examples::tcgen05_mma_sparse_probe and run on the
// emulator, for kind::f16 (bf16, f32 D) and kind::i8 (s8, s32 D), M = 128, N = 32; each against
// a CPU reference that expands A's stored half with the 2:4 metadata this test writes (placed in
// tensor memory per docs/emulator.md, "Metadata").
#include <cstdint>
#include <cstring>
#include <random>
#include <vector>

#include <gtest/gtest.h>

#include "../../examples/kernels/tcgen05_mma_probe.hpp"
#include "../unit/ptxas_util.hpp"
#include "emu_test_util.hpp"

namespace ptx::test {
namespace {

namespace bw = ptx::blackwell;

constexpr int kM = 128, kN = 32;
constexpr int kStoredBytes = 32;  // A's row: the non-zero half of the dense K

// The metadata fields the manual lists as meaningful: the indices of a chunk of four units'
// two non-zeros, the first (stored first) in bits 0-1, the second in bits 2-3.
constexpr uint32_t kFields[] = {0b0100, 0b1000, 0b1100, 0b1001, 0b1101, 0b0110, 0b1110};

// One sparse case: codes of A's stored elements and of B, where each stored element of A sits
// in the dense K, and the metadata words of the 128 tensor memory lanes (2 columns each).
struct SparseCase {
  int unit = 1;                // bytes of an element (and of a metadata unit): 2 for kind::f16, 1 for i8
  int selector = 0;            // the metadata column of kind::f16's fields
  std::vector<uint32_t> a;     // kM x stored_k()
  std::vector<int> a_k;        // kM x stored_k(): the dense k of each stored element
  std::vector<uint32_t> b;     // kN x dense_k()
  std::vector<uint32_t> meta;  // lane * 2 + column
  int stored_k() const { return kStoredBytes / unit; }
  int dense_k() const { return 2 * stored_k(); }
};

// Random metadata for every row (in meta, and the dense k of A's stored elements in a_k):
// 8-bit units: row m's 16 fields in lane m, fields 8c.. in column c; 16-bit units: fields
// 4j..4j + 3 of row m in lane 16 (m / 16) + 8j + m % 8, bits 16 (m / 8 % 2) on, column selector.
void random_metadata(SparseCase& c, std::mt19937& g) {
  c.meta.assign(kM * 2, 0);
  c.a_k.assign(static_cast<size_t>(kM * c.stored_k()), 0);
  for (int m = 0; m < kM; ++m)
    for (int ch = 0; ch < c.dense_k() / 4; ++ch) {
      const uint32_t v = kFields[g() % 7];
      c.a_k[static_cast<size_t>(m * c.stored_k() + 2 * ch)] = 4 * ch + static_cast<int>(v & 3);
      c.a_k[static_cast<size_t>(m * c.stored_k() + 2 * ch + 1)] = 4 * ch + static_cast<int>(v >> 2);
      int lane = m, column = ch / 8, bit = 4 * (ch % 8);
      if (c.unit == 2)
        lane = m / 16 * 16 + 8 * (ch / 4) + m % 8, column = c.selector, bit = 16 * (m / 8 % 2) + 4 * (ch % 4);
      c.meta[static_cast<size_t>(lane * 2 + column)] |= v << bit;
    }
}

// The probe's image: A's rows of 32 bytes, then B's of 64 (examples/kernels/tcgen05_mma_probe.hpp).
std::vector<uint32_t> image(const SparseCase& c) {
  const uint32_t total = examples::probe_image_bytes(kN, examples::kSparseProbeBRowBytes);
  std::vector<uint8_t> bytes(total, 0);
  auto place = [&](uint32_t base, int rows, uint32_t row_bytes, const std::vector<uint32_t>& codes, int k) {
    for (int r = 0; r < rows; ++r)
      for (int byte = 0; byte < static_cast<int>(row_bytes); ++byte)
        bytes[base + examples::probe_offset(r, byte, row_bytes)] =
            static_cast<uint8_t>(codes[static_cast<size_t>(r * k + byte / c.unit)] >> (8 * (byte % c.unit)));
  };
  place(0, kM, kStoredBytes, c.a, c.stored_k());
  place(kM * kStoredBytes, kN, examples::kSparseProbeBRowBytes, c.b, c.dense_k());
  std::vector<uint32_t> words(total / 4);
  std::memcpy(words.data(), bytes.data(), total);
  return words;
}

// Runs the probe (ptxas checks it first for sm_100a) and returns D's 32-bit words, kM x kN.
std::vector<uint32_t> run(const SparseCase& c, const bw::InstrDescriptor& id) {
  auto tr = examples::tcgen05_mma_sparse_probe(kN, [&](const Reg& d, const Reg& da, const Reg& db, const Reg& meta) {
              ptx::Reg fresh = d != d;  // enable-input-d false: D = A * B
              bw::mma(id, d, da, db, fresh, {.sparse_metadata = &meta});
            }).trace();
  EXPECT_NE(tr->ptx.find("tcgen05.mma.sp.cta_group::1." + std::string(bw::kind_name(id.kind))), std::string::npos)
      << tr->ptx;
  if (have_ptxas()) {
    const auto r = run_ptxas(tr->ptx, "sm_100a");
    EXPECT_TRUE(r.ok) << r.log;
  }
  EmuRun emu;
  emu.buffer(image(c), "image");
  emu.buffer(c.meta, "meta");
  const uint64_t out = emu.buffer(std::vector<uint32_t>(kM * kN, 0xFFFFFFFFu), "out");
  emu.launch(*tr);
  return emu.read<uint32_t>(out, kM * kN);
}

// D[i][j] = sum over A's stored elements s of row i: A[i][s] * B[j][its dense k].
template <class Value>
std::vector<double> reference(const SparseCase& c, Value value) {
  std::vector<double> d(kM * kN, 0.0);
  for (int i = 0; i < kM; ++i)
    for (int j = 0; j < kN; ++j)
      for (int s = 0; s < c.stored_k(); ++s) {
        const size_t as = static_cast<size_t>(i * c.stored_k() + s);
        d[static_cast<size_t>(i * kN + j)] +=
            value(c.a[as]) * value(c.b[static_cast<size_t>(j * c.dense_k() + c.a_k[as])]);
      }
  return d;
}

TEST(BlackwellSparseDslOnEmulator, F16Bf16ToF32) {
  std::mt19937 g(31);
  SparseCase c;
  c.unit = 2, c.selector = 1;
  // bf16 quarters -2..2: every product and sum exact in f32
  auto code = [&] {
    const float x = static_cast<float>(static_cast<int>(g() % 17) - 8) / 4;
    uint32_t bits;
    std::memcpy(&bits, &x, 4);
    return bits >> 16;
  };
  for (int i = 0; i < kM * c.stored_k(); ++i) c.a.push_back(code());
  for (int i = 0; i < kN * c.dense_k(); ++i) c.b.push_back(code());
  random_metadata(c, g);
  bw::InstrDescriptor id = bw::bf16_f32(kM, kN);
  id.sparse = true, id.sparsity_selector = c.selector;
  ASSERT_EQ(bw::mma_k(id.kind, true), c.dense_k());
  const auto got = run(c, id);
  const auto want = reference(c, [](uint32_t h) {
    const uint32_t bits = h << 16;
    float x;
    std::memcpy(&x, &bits, 4);
    return static_cast<double>(x);
  });
  for (size_t e = 0; e < want.size(); ++e) {
    float x;
    std::memcpy(&x, &got[e], 4);
    ASSERT_EQ(x, want[e]) << "row " << e / kN << ", column " << e % kN;
  }
}

TEST(BlackwellSparseDslOnEmulator, I8S8ToS32) {
  std::mt19937 g(32);
  SparseCase c;
  for (int i = 0; i < kM * c.stored_k(); ++i) c.a.push_back(g() & 0xFF);
  for (int i = 0; i < kN * c.dense_k(); ++i) c.b.push_back(g() & 0xFF);
  random_metadata(c, g);
  const bw::InstrDescriptor id{.kind = bw::MmaKind::I8,
                               .a = bw::MmaType::s8,
                               .b = bw::MmaType::s8,
                               .d = bw::AccType::s32,
                               .m = kM,
                               .n = kN,
                               .sparse = true};
  ASSERT_EQ(bw::mma_k(id.kind, true), c.dense_k());
  const auto got = run(c, id);
  const auto want = reference(c, [](uint32_t b) { return static_cast<double>(static_cast<int8_t>(b)); });
  for (size_t e = 0; e < want.size(); ++e)
    ASSERT_EQ(static_cast<int32_t>(got[e]), want[e]) << "row " << e / kN << ", column " << e % kN;
}

}  // namespace
}  // namespace ptx::test
