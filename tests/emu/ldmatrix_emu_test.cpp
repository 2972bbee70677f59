// The ldmatrix/stmatrix shapes of the sm_100a/sm_120a families on the emulator: ldmatrix
// .m16n16 (.b8, and .b8x16 from .b6x16_p32 / .b4x16_p64 rows; always .trans) and .m8n16
// (.b8x16 from packed rows), stmatrix .m16n8.trans.b8. One warp copies random bytes into
// shared memory, each lane gives a row address from a random permutation of 16-byte slots (so
// rows are neither contiguous nor in order), and the registers come back through global
// memory. The expected registers are computed here from the manual's text (9.7.14.5.15-16):
// a lane holds 4 consecutive columns of one row (m8n16) or of two rows g and g + 8 (m16n16),
// stmatrix m16n8's four bytes sit where mma's 16x8 C fragment has its elements, .trans swaps
// rows and columns, and packed rows hold element j at bits w j .. w j + w - 1, widened into the
// low bits of a byte. ptxas checks every kernel for its target.
#include <algorithm>
#include <cstdint>
#include <functional>
#include <numeric>
#include <random>
#include <string>
#include <vector>

#include "../unit/ptxas_util.hpp"
#include "emu_test_util.hpp"

namespace ptx::test {
namespace {

constexpr int kSlots = 64;  // 16-byte row slots of the 1 KiB shared buffer

std::string reg_list(int n) {
  std::string s = "{";
  for (int i = 0; i < n; ++i) s += (i ? ", %v" : "%v") + std::to_string(i);
  return s + "}";
}

// ldmatrix: shared <- in (1 KiB, 32 bytes a lane), bar.sync, one ldmatrix at smem + offs[lane],
// out[lane * regs + i] <- register i. stmatrix: shared <- 0, registers <- in[lane * regs + i],
// one stmatrix, bar.sync, out <- shared (1 KiB).
std::string kernel_text(const std::string& inst, int regs, bool store, const std::string& target) {
  std::string s = ".version 8.7\n.target " + target + "\n.address_size 64\n\n";
  s += ".visible .entry t(.param .u64 pin, .param .u64 poffs, .param .u64 pout)\n{\n";
  s += "\t.shared .align 16 .b8 smem[1024];\n\t.reg .b32 %v<4>;\n\t.reg .b32 %w, %l, %a, %o;\n\t.reg .b64 %in, %offs, %out, %p, %q;\n";
  s += "\tld.param.u64 %in, [pin];\n\tld.param.u64 %offs, [poffs];\n\tld.param.u64 %out, [pout];\n";
  s += "\tcvta.to.global.u64 %in, %in;\n\tcvta.to.global.u64 %offs, %offs;\n\tcvta.to.global.u64 %out, %out;\n";
  s += "\tmov.u32 %l, %tid.x;\n\tmov.u32 %a, smem;\n\tmad.lo.u32 %o, %l, 32, %a;\n";
  s += "\tmul.wide.u32 %p, %l, 32;\n\tadd.s64 %p, %in, %p;\n\tmov.u32 %w, 0;\n";
  for (int i = 0; i < 8; ++i) {
    if (!store) s += "\tld.global.u32 %w, [%p+" + std::to_string(4 * i) + "];\n";
    s += "\tst.shared.u32 [%o+" + std::to_string(4 * i) + "], %w;\n";
  }
  s += "\tbar.sync 0;\n\tmul.wide.u32 %q, %l, 4;\n\tadd.s64 %q, %offs, %q;\n\tld.global.u32 %w, [%q];\n\tadd.u32 %w, %a, %w;\n";
  s += "\tmul.wide.u32 %q, %l, " + std::to_string(4 * regs) + ";\n";
  if (store) {
    s += "\tadd.s64 %p, %in, %q;\n";
    for (int i = 0; i < regs; ++i) s += "\tld.global.u32 %v" + std::to_string(i) + ", [%p+" + std::to_string(4 * i) + "];\n";
    s += "\t" + inst + " [%w], " + reg_list(regs) + ";\n\tbar.sync 0;\n";
    s += "\tmul.wide.u32 %q, %l, 32;\n\tadd.s64 %q, %out, %q;\n";
    for (int i = 0; i < 8; ++i)
      s += "\tld.shared.u32 %v0, [%o+" + std::to_string(4 * i) + "];\n\tst.global.u32 [%q+" + std::to_string(4 * i) + "], %v0;\n";
  } else {
    s += "\t" + inst + " " + reg_list(regs) + ", [%w];\n\tadd.s64 %q, %out, %q;\n";
    for (int i = 0; i < regs; ++i) s += "\tst.global.u32 [%q+" + std::to_string(4 * i) + "], %v" + std::to_string(i) + ";\n";
  }
  return s + "\tret;\n}\n";
}

struct RowData {
  std::vector<uint8_t> bytes;   // the 1 KiB in shared memory (ldmatrix) or the registers (stmatrix)
  std::vector<uint32_t> offs;   // each lane's row offset in shared memory
};

RowData random_setup(uint32_t seed, size_t bytes) {
  std::mt19937 g(seed);
  RowData s;
  s.bytes.resize(bytes);
  for (auto& b : s.bytes) b = static_cast<uint8_t>(g());
  std::vector<uint32_t> slots(kSlots);
  std::iota(slots.begin(), slots.end(), 0u);
  std::shuffle(slots.begin(), slots.end(), g);
  for (int l = 0; l < 32; ++l) s.offs.push_back(slots[static_cast<size_t>(l)] * 16);
  return s;
}

std::vector<uint32_t> run(const std::string& inst, int regs, bool store, const std::string& target, const RowData& s) {
  const std::string text = kernel_text(inst, regs, store, target);
  if (have_ptxas()) {
    const auto r = run_ptxas(text, target);
    EXPECT_TRUE(r.ok) << inst << "\n" << r.log;
  }
  EmuRun r;
  r.buffer(s.bytes, "in");
  r.buffer(s.offs, "offs");
  const uint64_t o = r.buffer(std::vector<uint32_t>(store ? 256 : 32u * static_cast<unsigned>(regs)), "out");
  r.launch(text, "t", {1, 1, 1}, {32, 1, 1});
  return r.read<uint32_t>(o, store ? 256 : 32u * static_cast<unsigned>(regs));
}

// Element k of the row at `row` in shared memory: a byte, or packed `width`-bit elements.
uint32_t element(const std::vector<uint8_t>& smem, uint32_t row, int k, int width) {
  if (width == 8) return smem[row + static_cast<uint32_t>(k)];
  uint32_t v = 0;
  for (int b = 0; b < width; ++b) {
    const int bit = width * k + b;
    v |= static_cast<uint32_t>(smem[row + static_cast<uint32_t>(bit / 8)] >> (bit % 8) & 1) << b;
  }
  return v;
}

struct Source {
  const char* suffix;  // the type modifiers
  int width;           // bits of an element in shared memory
};
constexpr Source kB8{".b8", 8}, kB6{".b8x16.b6x16_p32", 6}, kB4{".b8x16.b4x16_p64", 4};

// Register r of `lane` after ldmatrix .m16n16 (matrix r / 2, rows l/4 + 8 (r % 2) of the transpose).
uint32_t want_m16n16(const RowData& s, int width, int lane, int r) {
  const int m = r / 2, row = lane / 4 + 8 * (r % 2);
  uint32_t want = 0;
  for (int e = 0; e < 4; ++e) {
    const int col = 4 * (lane % 4) + e;  // of the transpose: memory row `col`, element `row`
    want |= element(s.bytes, s.offs[static_cast<size_t>(16 * m + col)], row, width) << (8 * e);
  }
  return want;
}

// Register m of `lane` after ldmatrix .m8n16.
uint32_t want_m8n16(const RowData& s, int width, int lane, int m) {
  uint32_t want = 0;
  for (int e = 0; e < 4; ++e) want |= element(s.bytes, s.offs[static_cast<size_t>(8 * m + lane / 4)], 4 * (lane % 4) + e, width) << (8 * e);
  return want;
}

// Shared memory (1 KiB, zeroed) after stmatrix .m16n8.trans of `matrices` registers per lane.
std::vector<uint8_t> want_m16n8(const std::vector<uint32_t>& offs, int matrices, const std::function<uint32_t(int lane, int m)>& reg) {
  std::vector<uint8_t> want(1024, 0);
  for (int l = 0; l < 32; ++l)
    for (int m = 0; m < matrices; ++m)
      for (int e = 0; e < 4; ++e) {
        const int row = l / 4 + 8 * (e / 2), col = 2 * (l % 4) + e % 2;  // of the 16x8 matrix
        want[offs[static_cast<size_t>(8 * m + col)] + static_cast<uint32_t>(row)] = static_cast<uint8_t>(reg(l, m) >> (8 * e));
      }
  return want;
}

void check_m16n16(int matrices, const Source& src, const std::string& target, uint32_t seed) {
  const std::string inst = "ldmatrix.sync.aligned.m16n16.x" + std::to_string(matrices) + ".trans.shared" + src.suffix;
  const RowData s = random_setup(seed, 1024);
  const int regs = 2 * matrices;
  const auto got = run(inst, regs, false, target, s);
  for (int l = 0; l < 32; ++l)
    for (int r = 0; r < regs; ++r)
      ASSERT_EQ(got[static_cast<size_t>(l * regs + r)], want_m16n16(s, src.width, l, r)) << inst << " lane " << l << " r" << r;
}

void check_m8n16(int matrices, const Source& src, uint32_t seed) {
  const std::string inst = "ldmatrix.sync.aligned.m8n16.x" + std::to_string(matrices) + ".shared" + src.suffix;
  const RowData s = random_setup(seed, 1024);
  const auto got = run(inst, matrices, false, "sm_120a", s);
  for (int l = 0; l < 32; ++l)
    for (int m = 0; m < matrices; ++m)
      ASSERT_EQ(got[static_cast<size_t>(l * matrices + m)], want_m8n16(s, src.width, l, m)) << inst << " lane " << l << " r" << m;
}

TEST(LdmatrixSubByte, M16n16EightBitTransposes) {
  check_m16n16(1, kB8, "sm_100a", 1);
  check_m16n16(2, kB8, "sm_120a", 2);
}

TEST(LdmatrixSubByte, M16n16WidensPackedRows) {
  check_m16n16(2, kB6, "sm_100a", 3);
  check_m16n16(1, kB4, "sm_120a", 4);
}

TEST(LdmatrixSubByte, M8n16WidensPackedRows) {
  check_m8n16(4, kB6, 5);
  check_m8n16(2, kB4, 6);
  check_m8n16(1, kB6, 7);
}

TEST(LdmatrixSubByte, StmatrixM16n8StoresTheTransposeOfTheCFragment) {
  for (int matrices : {1, 4}) {
    const std::string inst = "stmatrix.sync.aligned.m16n8.x" + std::to_string(matrices) + ".trans.shared.b8";
    const RowData s = random_setup(static_cast<uint32_t>(10 + matrices), 32u * 4u * static_cast<unsigned>(matrices));
    const auto got = run(inst, matrices, true, matrices == 1 ? "sm_100a" : "sm_120a", s);
    const auto want = want_m16n8(s.offs, matrices, [&](int l, int m) {
      uint32_t v = 0;
      for (int e = 0; e < 4; ++e) v |= static_cast<uint32_t>(s.bytes[static_cast<size_t>((l * matrices + m) * 4 + e)]) << (8 * e);
      return v;
    });
    for (size_t i = 0; i < want.size(); ++i)
      ASSERT_EQ(static_cast<uint8_t>(got[i / 4] >> (8 * (i % 4))), want[i]) << inst << " shared byte " << i;
  }
}

// tests/emu/kernels/subbyte_matrix.ptx (scripts/emu-vs-gpu compares it with an sm_120 GPU):
// every form in one kernel, on inputs like those emu-vs-gpu gives it (random bytes, the row
// slots a permutation), checked here with the same references.
TEST(LdmatrixSubByte, KernelForTheGpuComparison) {
  const std::string text = emu_kernel("subbyte_matrix.ptx");
  if (have_ptxas()) {
    const auto as = run_ptxas(text, "sm_120a");
    EXPECT_TRUE(as.ok) << as.log;
  }
  const RowData s = random_setup(21, 1024);
  EmuRun emu;
  emu.buffer(s.bytes, "in");
  emu.buffer(s.offs, "offs");
  const uint64_t o = emu.buffer(std::vector<uint32_t>(896), "out");
  emu.launch(text, "subbyte_matrix", {1, 1, 1}, {32, 1, 1});
  const auto got = emu.read<uint32_t>(o, 896);
  const Source m16n16[] = {kB8, kB6, kB4}, m8n16[] = {kB6, kB4};
  for (int l = 0; l < 32; ++l) {
    const uint32_t* regs = &got[static_cast<size_t>(20 * l)];
    for (int f = 0; f < 3; ++f)
      for (int r = 0; r < 4; ++r) ASSERT_EQ(regs[4 * f + r], want_m16n16(s, m16n16[f].width, l, r)) << "lane " << l << " v" << 4 * f + r;
    for (int f = 0; f < 2; ++f)
      for (int m = 0; m < 4; ++m) ASSERT_EQ(regs[12 + 4 * f + m], want_m8n16(s, m8n16[f].width, l, m)) << "lane " << l << " v" << 12 + 4 * f + m;
  }
  const auto want = want_m16n8(s.offs, 4, [&](int l, int m) { return got[static_cast<size_t>(20 * l + m)]; });
  for (size_t i = 0; i < want.size(); ++i)
    ASSERT_EQ(static_cast<uint8_t>(got[640 + i / 4] >> (8 * (i % 4))), want[i]) << "stored byte " << i;
}

// ---- m8n8 .b16, rows the warp's own lanes stored just before -------------------------------------
// Lane l stores 16 bytes (in[16 l ..]) at shared slot l, then, with no barrier between (ldmatrix
// is .sync.aligned: the warp's stores before it are ordered with it, as on the GPU), gives the
// address of slot perm[l] (a permutation: mostly a row another lane stored) to ldmatrix.
std::string m8n8_kernel(const std::string& inst, int regs) {
  std::string s = ".version 8.0\n.target sm_80\n.address_size 64\n\n";
  s += ".visible .entry t(.param .u64 pin, .param .u64 poffs, .param .u64 pout)\n{\n";
  s += "\t.shared .align 16 .b8 smem[512];\n\t.reg .b32 %v<4>;\n\t.reg .b32 %l, %a, %o, %w;\n";
  s += "\t.reg .b64 %in, %offs, %out, %p, %q;\n";
  s += "\tld.param.u64 %in, [pin];\n\tld.param.u64 %offs, [poffs];\n\tld.param.u64 %out, [pout];\n";
  s += "\tcvta.to.global.u64 %in, %in;\n\tcvta.to.global.u64 %offs, %offs;\n\tcvta.to.global.u64 %out, %out;\n";
  s += "\tmov.u32 %l, %tid.x;\n\tmov.u32 %a, smem;\n\tmad.lo.u32 %o, %l, 16, %a;\n";
  s += "\tmul.wide.u32 %p, %l, 16;\n\tadd.s64 %p, %in, %p;\n";
  s += "\tld.global.v4.u32 {%v0, %v1, %v2, %v3}, [%p];\n\tst.shared.v4.u32 [%o], {%v0, %v1, %v2, %v3};\n";
  s += "\tmul.wide.u32 %q, %l, 4;\n\tadd.s64 %q, %offs, %q;\n\tld.global.u32 %w, [%q];\n\tadd.u32 %w, %a, %w;\n";
  s += "\t" + inst + " " + reg_list(regs) + ", [%w];\n";
  s += "\tmul.wide.u32 %q, %l, " + std::to_string(4 * regs) + ";\n\tadd.s64 %q, %out, %q;\n";
  for (int i = 0; i < regs; ++i)
    s += "\tst.global.u32 [%q+" + std::to_string(4 * i) + "], %v" + std::to_string(i) + ";\n";
  return s + "\tret;\n}\n";
}

// Register i of `lane` after ldmatrix.m8n8 .b16, from the manual's layout: matrix i's row r is
// the 16 bytes at offs[8 i + r]; the lane holds row lane / 4, columns 2 (lane % 4) and 2 (lane % 4)
// + 1 (low half first) of the matrix, or of its transpose with .trans.
uint32_t want_m8n8(const std::vector<uint8_t>& smem, const std::vector<uint32_t>& offs, int lane, int i, bool trans) {
  auto at = [&](int row, int col) {
    const uint32_t byte = offs[static_cast<size_t>(8 * i + row)] + 2 * static_cast<uint32_t>(col);
    return static_cast<uint32_t>(smem[byte] | smem[byte + 1] << 8);
  };
  const int g = lane / 4, c = 2 * (lane % 4);
  return trans ? (at(c, g) | at(c + 1, g) << 16) : (at(g, c) | at(g, c + 1) << 16);
}

TEST(LdmatrixM8n8, RowsTheWarpStoredReachEveryLaneWhereTheLayoutPutsThem) {
  std::mt19937 gen(31);
  std::vector<uint8_t> smem(512);
  for (auto& b : smem) b = static_cast<uint8_t>(gen());
  std::vector<uint32_t> slots(32);
  std::iota(slots.begin(), slots.end(), 0u);
  std::shuffle(slots.begin(), slots.end(), gen);
  std::vector<uint32_t> offs;
  for (uint32_t slot : slots) offs.push_back(16 * slot);
  for (int matrices : {1, 2, 4})
    for (bool trans : {false, true}) {
      const std::string inst =
          "ldmatrix.sync.aligned.m8n8.x" + std::to_string(matrices) + (trans ? ".trans" : "") + ".shared.b16";
      const std::string text = m8n8_kernel(inst, matrices);
      if (have_ptxas()) {
        const auto as = run_ptxas(text, "sm_80");
        EXPECT_TRUE(as.ok) << as.log;
      }
      EmuRun r;
      r.buffer(smem, "in");
      r.buffer(offs, "offs");
      const uint64_t o = r.buffer(std::vector<uint32_t>(32u * static_cast<unsigned>(matrices)), "out");
      r.launch(text, "t", {1, 1, 1}, {32, 1, 1});
      const auto got = r.read<uint32_t>(o, 32u * static_cast<unsigned>(matrices));
      for (int l = 0; l < 32; ++l)
        for (int i = 0; i < matrices; ++i)
          EXPECT_EQ(got[static_cast<size_t>(l * matrices + i)], want_m8n8(smem, offs, l, i, trans))
              << inst << " lane " << l << " r" << i;
    }
}

// Forms the validator refuses first by default: the emulator's own decoding names the fault.
TEST(LdmatrixSubByte, MalformedFormsAreReportedUnvalidated) {
  const struct {
    const char* body;
    const char* says;
  } cases[] = {
      {"ldmatrix.sync.aligned.m16n16.x1.shared.b8 {%r0, %r1}, [%r8];", "ldmatrix.m16n16 needs .trans"},
      {"ldmatrix.sync.aligned.m16n16.x4.trans.shared.b8 {%r0, %r1, %r2, %r3}, [%r8];", "not .x4"},
      {"ldmatrix.sync.aligned.m8n16.x1.trans.shared.b8x16.b4x16_p64 {%r0}, [%r8];", "ldmatrix.m8n16 takes no .trans"},
      {"ldmatrix.sync.aligned.m8n16.x1.shared.b8 {%r0}, [%r8];", "from .b6x16_p32 or .b4x16_p64 rows only"},
      {"ldmatrix.sync.aligned.m16n16.x1.trans.shared.b8x16 {%r0, %r1}, [%r8];", ".b8x16 goes with a source format"},
      {"ldmatrix.sync.aligned.m8n8.x1.shared.b8 {%r0}, [%r8];", "ldmatrix.m8n8 moves .b16 elements only"},
      {"stmatrix.sync.aligned.m16n8.x1.shared.b8 [%r8], {%r0};", "stmatrix.m16n8 needs .trans"},
      {"stmatrix.sync.aligned.m16n8.x2.trans.shared.b16 [%r8], {%r0, %r1};", "stmatrix.m16n8 moves .b8 elements only"},
      {"ldmatrix.sync.aligned.x2.trans.shared.b8 {%r0, %r1}, [%r8];", "needs a shape"},
      {"ldmatrix.sync.aligned.m16n16.x2.trans.shared.b8 {%r0, %r1}, [%r8];", "ldmatrix.m16n16.x2 needs 4 registers (two .b32 per matrix)"},
  };
  for (const auto& c : cases) {
    const std::string rep = unvalidated_report(std::string(".version 8.7\n.target sm_100a\n.address_size 64\n\n.visible .entry t()\n{\n") +
                                               "\t.shared .align 16 .b8 smem[512];\n\t.reg .b32 %r<9>;\n\tmov.u32 %r8, smem;\n\t" + c.body +
                                               "\n\tret;\n}\n");
    EXPECT_NE(rep.find(c.says), std::string::npos) << c.body << ": " << rep;
  }
}

}  // namespace
}  // namespace ptx::test
