// wmma, the warp-level matrix instructions of PTX ISA 9.7.14.4 (what nvcuda::wmma compiles
// to): wmma.load.{a,b,c} and wmma.store.d move a matrix between memory and a warp's
// fragment registers, wmma.mma computes D = A * B + C from fragments.
//
// The ISA leaves the fragment opaque (9.7.14.4.1: "the distribution of fragments loaded by
// the threads in a warp is unspecified"); only the register count of each fragment is fixed.
// This emulator uses the mma.sync layouts (9.7.14.5) wherever one matches, so that element-wise
// work on fragments behaves as on a GPU that lowers wmma to mma.sync:
//
// * a multiplicand is seen as R rows of K elements (A: M x K; B as its transpose, N x K) and
//   cut into tiles of 8 rows by 4 registers of K (a register: 32 bits of elements, one .f64):
//   lane l holds of each tile row l / 4, register column l % 4. A's tiles go by 16-row block,
//   then K, then the two 8-row halves of the block (mma.sync's a0..a3 order); B's by 8-column
//   block of N, then K (b0, b1 of each m16n8 half). So m16n16k16 .f16 is two m16n8k16 halves,
//   .tf32 two m16n8k8 halves, .s8 two m16n8k16 halves, m8n8k4 .f64, m8n8k32 .s4 and
//   m8n8k128 .b1 exactly mma.sync's fragments;
// * C and D are 8 x 8 tiles, lane l holding row l / 4, columns 2 (l % 4) and + 1 of each
//   (an .f16x2 register both, the lower column in the low half), in the order 16-row block,
//   8-column block, 8-row half (mma.sync's c0..c3 of each m16n8 half);
// * .f16 multiplicands have 8 registers for every shape (the ISA's count), more than the
//   matrix fills: the natural registers (4 for m16n16k16, 2 for m8n32k16's A and m32n8k16's
//   B) repeat to fill them, and wmma.mma reads only the first copy.
//
// A fragment does not depend on the memory layout (.row/.col) it was loaded with, so
// wmma.mma's layout qualifiers have no effect here. Memory is accessed lane by lane, each lane
// reading or writing the elements its registers hold (as ldmatrix/stmatrix do), through the
// emulator's checks.
#include "wmma.hpp"
#include "vocab_util.hpp"

#include <algorithm>
#include <bit>
#include <cfenv>
#include <charconv>
#include <cfloat>
#include <cmath>
#include <cstring>
#include <vector>

#include <fmt/format.h>

#include "float_formats.hpp"
#include "matrix_modifiers.hpp"

namespace ptx::emu {

using spec::Mod;
using spec::Opcode;

namespace {

constexpr int kLanes = 32;

WmmaOp op_of(const DInst& in) { return static_cast<WmmaOp>(in.sub & kWmmaOpMask); }

struct Shape {
  unsigned m, n, k;
};

// The three shapes of the 16-bit and 8-bit multiplicands.
bool k16_shape(Shape s) { return s.k == 16 && ((s.m == 16 && s.n == 16) || (s.m == 8 && s.n == 32) || (s.m == 32 && s.n == 8)); }

// The multiplicand types a shape takes (9.7.14.4.3).
bool multiplicand_ok(Shape s, Ty t) {
  if (k16_shape(s)) return t == Ty{'h', 16} || t == Ty{'B', 16} || t == Ty{'s', 8} || t == Ty{'u', 8};
  if (s.m == 16 && s.n == 16 && s.k == 8) return t == Ty{'t', 32};
  if (s.m == 8 && s.n == 8 && s.k == 4) return t == Ty{'f', 64};
  if (s.m == 8 && s.n == 8 && s.k == 32) return t == Ty{'s', 4} || t == Ty{'u', 4};
  if (s.m == 8 && s.n == 8 && s.k == 128) return t == Ty{'b', 1};
  return false;
}

// The accumulator types a shape takes.
bool accumulator_ok(Shape s, Ty t) {
  if (k16_shape(s)) return t == Ty{'h', 16} || t == Ty{'f', 32} || t == Ty{'s', 32};
  if (s.m == 16 && s.n == 16 && s.k == 8) return t == Ty{'f', 32};
  if (s.m == 8 && s.n == 8 && s.k == 4) return t == Ty{'f', 64};
  if (s.m == 8 && s.n == 8 && (s.k == 32 || s.k == 128)) return t == Ty{'s', 32};
  return false;
}

bool sub_byte(Ty t) { return t.bits < 8; }
unsigned reg_bytes(Ty t) { return t.bits == 64 ? 8 : 4; }
unsigned per_reg(Ty t) { return reg_bytes(t) * 8 / t.bits; }  // multiplicand elements in one register

// A multiplicand: R rows (A: M, B: N) of K elements.
unsigned natural_regs(unsigned rows, unsigned k, Ty t) { return rows * k * t.bits / 8 / kLanes / reg_bytes(t); }
unsigned multiplicand_regs(unsigned rows, unsigned k, Ty t) { return t == Ty{'h', 16} ? 8 : natural_regs(rows, k, t); }
unsigned accumulator_regs(Shape s, Ty t) { return s.m * s.n / kLanes / (t.bits == 16 ? 2 : 1); }

// The row (of the R x K view) and first K element of natural register r of `lane`.
void multiplicand_position(bool is_a, unsigned rows, unsigned k, Ty t, int lane, unsigned r, unsigned& row, unsigned& k0) {
  const unsigned e = per_reg(t), kblocks = k / (4 * e), g = static_cast<unsigned>(lane) / 4, c = static_cast<unsigned>(lane) % 4;
  unsigned kb;
  if (is_a) {
    const unsigned halves = rows >= 16 ? 2 : 1, half = r % halves;
    kb = r / halves % kblocks;
    row = 16 * (r / halves / kblocks) + 8 * half + g;
  } else {
    kb = r % kblocks;
    row = 8 * (r / kblocks) + g;
  }
  k0 = kb * 4 * e + c * e;
}

// The (row, column) of accumulator element i of `lane`.
void accumulator_position(Shape s, int lane, unsigned i, unsigned& row, unsigned& col) {
  const unsigned tile = i / 2, halves = s.m >= 16 ? 2 : 1, nblocks = s.n / 8;
  const unsigned g = static_cast<unsigned>(lane) / 4, c = static_cast<unsigned>(lane) % 4;
  row = 16 * (tile / halves / nblocks) + 8 * (tile % halves) + g;
  col = 8 * (tile / halves % nblocks) + 2 * c + i % 2;
}

double element_value(Ty t, uint64_t bits) {
  switch (t.k) {
    case 'h': return decode(Format::F16, static_cast<uint32_t>(bits));
    case 'B': return decode(Format::BF16, static_cast<uint32_t>(bits));
    case 't': return decode(Format::TF32, static_cast<uint32_t>(bits));
    case 'f': return t.bits == 64 ? std::bit_cast<double>(bits) : static_cast<double>(std::bit_cast<float>(static_cast<uint32_t>(bits)));
    case 's': {
      const uint64_t sign = uint64_t{1} << (t.bits - 1);
      const uint64_t v = bits & ((sign << 1) - 1);
      return static_cast<double>(static_cast<int64_t>(v ^ sign) - static_cast<int64_t>(sign));
    }
    default: return static_cast<double>(bits);  // u8, u4, b1
  }
}

uint64_t field(uint64_t v, unsigned i, unsigned bits) { return bits >= 64 ? v : v >> (i * bits) & ((uint64_t{1} << bits) - 1); }

// The registers of a fragment operand (a brace vector, checked at decode).
uint32_t slot(const Program& p, const Opnd& o, unsigned r) { return p.vec_slots[o.slot + r]; }

}  // namespace

const char* wmma_name(const DInst& in) {
  switch (op_of(in)) {
    case WmmaOp::LoadA: return "wmma.load.a";
    case WmmaOp::LoadB: return "wmma.load.b";
    case WmmaOp::LoadC: return "wmma.load.c";
    case WmmaOp::StoreD: return "wmma.store.d";
    case WmmaOp::Mma: break;
  }
  return "wmma.mma";
}

std::optional<WmmaDecodeError> wmma_decode(DInst& d, std::span<const Mod> mods, std::span<const Opnd> ops,
                                           const Program& p) {
  auto bad = [](std::string what) { return WmmaDecodeError{false, std::move(what)}; };
  enum class Kind { None, Load, Store, Mma } kind = Kind::None;
  char matrix = 0;
  std::vector<Ty> types;
  std::vector<bool> col;  // the layouts in order: .col true, .row false
  Shape s{0, 0, 0};
  bool shape = false, satfinite = false, popc = false, and_op = false, xor_op = false;
  uint32_t rnd = 0;
  Space space = Space::Generic;
  for (Mod mo : mods) {
    if (mo == Mod::load) kind = Kind::Load;
    else if (mo == Mod::store) kind = Kind::Store;
    else if (mo == Mod::mma) kind = Kind::Mma;
    else if (mo == Mod::a || mo == Mod::b || mo == Mod::c || mo == Mod::d) matrix = mo == Mod::a ? 'a' : mo == Mod::b ? 'b' : mo == Mod::c ? 'c' : 'd';
    else if (mo == Mod::sync || mo == Mod::aligned) continue;
    else if (mo == Mod::row || mo == Mod::col) col.push_back(mo == Mod::col);
    else if (mo == Mod::global) space = Space::Global;
    else if (mo == Mod::shared || mo == Mod::shared_cta) space = Space::Shared;
    else if (mo == Mod::satfinite) satfinite = true;
    else if (mo == Mod::popc) popc = true;
    else if (mo == Mod::and_) and_op = true;
    else if (mo == Mod::xor_) xor_op = true;
    else if (mo == Mod::rn) rnd = kRn;
    else if (mo == Mod::rz) rnd = kRz;
    else if (mo == Mod::rm) rnd = kRm;
    else if (mo == Mod::rp) rnd = kRp;
    else if (auto t = matrix_element_type(mo)) types.push_back(*t);
    else if (parse_matrix_shape(mo, s.m, s.n, s.k)) shape = true;
    else return bad(fmt::format("the modifier {} of wmma is not one of the ISA's", mo));
  }
  if (kind == Kind::None) return bad("wmma needs .load, .store or .mma");
  if (!shape) return bad("wmma needs a shape (.m16n16k16, .m8n32k16, .m32n8k16, .m16n16k8, .m8n8k4, .m8n8k32 or .m8n8k128)");
  const std::string shape_name = fmt::format(".m{}n{}k{}", s.m, s.n, s.k);

  // Each fragment operand: a brace vector of `want` registers of `bits` bits; sinks only where written.
  auto fragment = [&](const Opnd& o, unsigned want, unsigned bits, bool written, const char* what) -> std::optional<WmmaDecodeError> {
    if (o.kind != Opnd::Vec || o.count != want)
      return bad(fmt::format("{} of wmma{} must be a vector of {} registers{}", what, shape_name, want,
                             o.kind == Opnd::Vec ? fmt::format(" (it has {})", o.count) : std::string()));
    for (uint32_t i = 0; i < o.count; ++i) {
      const uint32_t r = p.vec_slots[o.slot + i];
      if (r == kNoSlot) {
        if (written) continue;
        return bad(fmt::format("{} of wmma{} cannot hold the sink _", what, shape_name));
      }
      if (p.slot_types[r].bits != bits || p.slot_types[r].k == 'p')
        return bad(fmt::format("{} of wmma{} must be {}-bit registers", what, shape_name, bits));
    }
    return std::nullopt;
  };

  if (kind == Kind::Load || kind == Kind::Store) {
    const bool load = kind == Kind::Load;
    const char* name = load ? "wmma.load" : "wmma.store";
    if (load ? !(matrix == 'a' || matrix == 'b' || matrix == 'c') : matrix != 'd')
      return bad(load ? "wmma.load needs .a, .b or .c" : "wmma.store needs .d");
    if (col.size() != 1) return bad(fmt::format("{} needs one layout, .row or .col", name));
    if (types.size() != 1) return bad(fmt::format("{} needs one element type", name));
    if (satfinite || popc || and_op || xor_op || rnd) return bad(fmt::format("{} takes no .satfinite, .popc, .and, .xor or rounding", name));
    const Ty t = types[0];
    const bool multiplicand = matrix == 'a' || matrix == 'b';
    if (multiplicand ? !multiplicand_ok(s, t) : !accumulator_ok(s, t))
      return bad(fmt::format("{}.{}{}.{} is not a form of the ISA", name, matrix, shape_name, matrix_type_name(t)));
    if (sub_byte(t) && (matrix == 'a' ? col[0] : !col[0]))
      return bad(fmt::format("{}.{}.{}: the sub-byte types take A row-major and B column-major only", name, matrix, matrix_type_name(t)));
    const unsigned want = matrix == 'a' ? multiplicand_regs(s.m, s.k, t) : matrix == 'b' ? multiplicand_regs(s.n, s.k, t) : accumulator_regs(s, t);
    const size_t addr_at = load ? 1 : 0, regs_at = load ? 0 : 1;
    if (ops.size() != 2 && ops.size() != 3) return bad(fmt::format("{} takes 2 or 3 operands", name));
    if (ops[addr_at].kind != Opnd::Addr) return bad(fmt::format("{} needs an address [p] as its {} operand", name, load ? "second" : "first"));
    if (auto e = fragment(ops[regs_at], want, reg_bytes(t) * 8, load, "r")) return e;
    if (ops.size() == 3 && !((ops[2].kind == Opnd::Reg && !ops[2].neg && p.slot_types[ops[2].slot].bits == 32 && p.slot_types[ops[2].slot].k != 'p') ||
                             (ops[2].kind == Opnd::Imm && !ops[2].symbol)))
      return bad(fmt::format("the stride of {} must be a 32-bit register or an immediate", name));
    d.op = Opc::Wmma;
    d.type = t;
    d.space = space;
    const WmmaOp op = !load ? WmmaOp::StoreD : matrix == 'a' ? WmmaOp::LoadA : matrix == 'b' ? WmmaOp::LoadB : WmmaOp::LoadC;
    d.sub = static_cast<uint8_t>(static_cast<uint8_t>(op) | (col[0] ? kWmmaColMajor : 0));
  } else {
    if (matrix) return bad("wmma.mma takes no .a/.b/.c/.d");
    if (col.size() != 2) return bad("wmma.mma needs two layouts, A's and B's (.row or .col each)");
    if (space != Space::Generic) return bad("wmma.mma takes no state space");
    Ty td, ta, tb, tc;
    if (types.size() == 2) {  // .f16 multiplicands: .dtype.ctype
      td = types[0], tc = types[1], ta = tb = Ty{'h', 16};
    } else if (types.size() == 4) {
      td = types[0], ta = types[1], tb = types[2], tc = types[3];
    } else {
      return bad("wmma.mma needs the types .dtype.ctype (f16 multiplicands) or .dtype.atype.btype.ctype");
    }
    const std::string names = types.size() == 2 ? fmt::format(".{}.{}", matrix_type_name(td), matrix_type_name(tc))
                                                : fmt::format(".{}.{}.{}.{}", matrix_type_name(td), matrix_type_name(ta), matrix_type_name(tb), matrix_type_name(tc));
    const bool f16 = types.size() == 2 && (td == Ty{'h', 16} || td == Ty{'f', 32}) && (tc == Ty{'h', 16} || tc == Ty{'f', 32}) && k16_shape(s);
    const bool f32_acc = td == Ty{'f', 32} && tc == Ty{'f', 32};
    const bool s32_acc = td == Ty{'s', 32} && tc == Ty{'s', 32};
    const bool four = types.size() == 4 && ta == tb;
    const bool bf16 = four && ta == Ty{'B', 16} && f32_acc && k16_shape(s);
    const bool int8 = four && (ta == Ty{'s', 8} || ta == Ty{'u', 8}) && s32_acc && k16_shape(s);
    const bool tf32 = four && ta == Ty{'t', 32} && f32_acc && s.m == 16 && s.n == 16 && s.k == 8;
    const bool f64 = four && ta == Ty{'f', 64} && td == ta && tc == ta && s.m == 8 && s.n == 8 && s.k == 4;
    const bool int4 = four && (ta == Ty{'s', 4} || ta == Ty{'u', 4}) && s32_acc && s.m == 8 && s.n == 8 && s.k == 32;
    const bool b1 = four && ta == Ty{'b', 1} && s32_acc && s.m == 8 && s.n == 8 && s.k == 128;
    if (!(f16 || bf16 || int8 || tf32 || f64 || int4 || b1))
      return bad(fmt::format("wmma.mma{}{} is not a form of the ISA", shape_name, names));
    if ((int4 || b1) && (col[0] || !col[1])) return bad(fmt::format("wmma.mma{}{} takes .row.col only", shape_name, names));
    if (satfinite && !(f16 || int8 || int4)) return bad(fmt::format("wmma.mma{}{} takes no .satfinite", shape_name, names));
    if (rnd && !f64) return bad("only wmma.mma .f64 takes a rounding modifier");
    if (b1 != popc || (b1 && and_op == xor_op) || (!b1 && (and_op || xor_op)))
      return bad("wmma.mma .b1 needs .popc and one of .xor and .and; no other form takes them");
    if (ops.size() != 4) return bad("wmma.mma takes 4 operands: d, a, b, c");
    if (auto e = fragment(ops[0], accumulator_regs(s, td), reg_bytes(td) * 8, true, "d")) return e;
    if (auto e = fragment(ops[1], multiplicand_regs(s.m, s.k, ta), reg_bytes(ta) * 8, false, "a")) return e;
    if (auto e = fragment(ops[2], multiplicand_regs(s.n, s.k, tb), reg_bytes(tb) * 8, false, "b")) return e;
    if (auto e = fragment(ops[3], accumulator_regs(s, tc), reg_bytes(tc) * 8, false, "c")) return e;
    d.op = Opc::Wmma;
    d.type = td, d.type2 = ta, d.type3 = tb, d.type4 = tc;
    d.flags = (satfinite ? uint32_t{kSatfinite} : 0u) | rnd;
    d.sub = static_cast<uint8_t>(static_cast<uint8_t>(WmmaOp::Mma) | (and_op ? kWmmaAnd : 0));
  }
  d.mma_m = static_cast<uint16_t>(s.m), d.mma_n = static_cast<uint16_t>(s.n), d.mma_k = static_cast<uint16_t>(s.k);
  d.nops = static_cast<uint8_t>(ops.size());
  for (size_t i = 0; i < ops.size(); ++i) d.ops[i] = ops[i];
  return std::nullopt;
}

namespace {

// The same value in every lane (the address, the stride): the ISA leaves wmma undefined otherwise.
uint64_t uniform(WmmaWarp& w, const DInst& in, const char* what, auto&& of) {
  const uint64_t v = of(0);
  for (int l = 1; l < kLanes; ++l)
    if (of(l) != v)
      w.fail(l, fmt::format("{}: {} {:#x} differs from lane 0's {:#x}; every lane of the warp must give the same", wmma_name(in), what, of(l), v));
  return v;
}

// wmma.load / wmma.store: the matrix at [p] with `stride` elements between rows (.row) or columns (.col).
void load_store(const Program& p, const DInst& in, WmmaWarp& w) {
  const WmmaOp op = op_of(in);
  const bool store = op == WmmaOp::StoreD, colmajor = in.sub & kWmmaColMajor;
  const Shape s{in.mma_m, in.mma_n, in.mma_k};
  const Ty t = in.type;
  const Opnd& a = store ? in.ops[0] : in.ops[1];
  const Opnd& r = store ? in.ops[1] : in.ops[0];
  // The matrix as stored: rows x cols
  const unsigned rows = op == WmmaOp::LoadB ? s.k : s.m;
  const unsigned cols = op == WmmaOp::LoadA ? s.k : s.n;
  const uint64_t base = uniform(w, in, "the address", [&](int l) { return (a.slot != kNoSlot ? w.reg(a.slot, l) : 0) + a.imm; });
  const uint64_t stride = in.nops == 3 ? uniform(w, in, "the stride", [&](int l) { return w.value(in.ops[2], l) & 0xFFFFFFFFu; })
                                       : (colmajor ? rows : cols);
  // 9.7.14.4.2: each row (column) starts at a multiple of the fragment's size in bytes. The
  // stride is checked against at most 16 bytes, which CUDA's wmma API documents for ldm
  // (a multiple of 16 bytes), so that everything that API allows runs.
  const unsigned frag_bytes = r.count * reg_bytes(t), row_align = std::min(frag_bytes, 16u);
  if (base % frag_bytes != 0)
    w.fail(0, fmt::format("{}: the matrix address {:#x} is not a multiple of {} bytes (the fragment's size, PTX ISA 9.7.14.4.2)",
                          wmma_name(in), base, frag_bytes));
  const uint64_t stride_bits = stride * t.bits;
  if (stride_bits % 8 != 0 || (stride_bits / 8) % row_align != 0)
    w.fail(0, fmt::format("{}: a stride of {} .{} elements ({} bytes) is not a multiple of {} bytes, so the {}s are misaligned "
                          "(PTX ISA 9.7.14.4.2)",
                          wmma_name(in), stride, matrix_type_name(t), static_cast<double>(stride_bits) / 8, row_align, colmajor ? "column" : "row"));
  auto offset_bits = [&](unsigned row, unsigned col) { return (colmajor ? uint64_t{col} * stride + row : uint64_t{row} * stride + col) * t.bits; };

  if (op == WmmaOp::LoadA || op == WmmaOp::LoadB) {
    const bool is_a = op == WmmaOp::LoadA;
    const unsigned view_rows = is_a ? s.m : s.n, natural = natural_regs(view_rows, s.k, t), e = per_reg(t);
    for (int l = 0; l < kLanes; ++l) {
      uint64_t values[8] = {};
      for (unsigned q = 0; q < natural; ++q) {
        unsigned row, k0;
        multiplicand_position(is_a, view_rows, s.k, t, l, q, row, k0);
        if (sub_byte(t)) {  // A row-major, B column-major: the register's elements are 4 contiguous bytes
          uint32_t v;
          std::memcpy(&v, w.memory(l, offset_bits(is_a ? row : k0, is_a ? k0 : row) / 8, 4, false), 4);
          values[q] = v;
          continue;
        }
        for (unsigned i = 0; i < e; ++i) {
          const unsigned mr = is_a ? row : k0 + i, mc = is_a ? k0 + i : row;  // B's view is transposed
          uint64_t v = 0;
          std::memcpy(&v, w.memory(l, offset_bits(mr, mc) / 8, t.bits / 8, false), t.bits / 8);
          values[q] |= t.bits == 64 ? v : v << (i * t.bits);
        }
      }
      for (uint32_t q = 0; q < r.count; ++q)
        if (slot(p, r, q) != kNoSlot) w.reg(slot(p, r, q), l) = values[q % natural];
    }
    return;
  }
  // C and D: one element per register, two per .f16x2 register.
  const unsigned elements = s.m * s.n / kLanes, bytes = t.bits / 8;
  for (int l = 0; l < kLanes; ++l)
    for (unsigned i = 0; i < elements; ++i) {
      unsigned row, col;
      accumulator_position(s, l, i, row, col);
      const unsigned q = t.bits == 16 ? i / 2 : i, shift = t.bits == 16 ? 16 * (i % 2) : 0;
      uint8_t* m = w.memory(l, offset_bits(row, col) / 8, bytes, store);
      if (store) {
        const uint64_t v = slot(p, r, q) == kNoSlot ? 0 : w.reg(slot(p, r, q), l) >> shift;
        std::memcpy(m, &v, bytes);
      } else if (slot(p, r, q) != kNoSlot) {
        uint64_t v = 0;
        std::memcpy(&v, m, bytes);
        uint64_t& reg = w.reg(slot(p, r, q), l);
        reg = t.bits == 16 ? (i % 2 ? (reg & 0xFFFFu) | v << 16 : v) : v;
      }
    }
}

// A multiplicand's values from its fragment, as rows x k (A: M x K; B transposed, N x K).
std::vector<double> gather_multiplicand(const Program& p, WmmaWarp& w, const Opnd& o, bool is_a, unsigned rows, unsigned k, Ty t) {
  std::vector<double> out(static_cast<size_t>(rows) * k);
  const unsigned natural = natural_regs(rows, k, t), e = per_reg(t);
  for (int l = 0; l < kLanes; ++l)
    for (unsigned q = 0; q < natural; ++q) {
      unsigned row, k0;
      multiplicand_position(is_a, rows, k, t, l, q, row, k0);
      const uint64_t v = w.reg(slot(p, o, q), l);
      for (unsigned i = 0; i < e; ++i) out[static_cast<size_t>(row) * k + k0 + i] = element_value(t, field(v, i, t.bits));
    }
  return out;
}

// A rounded to the f32 or f16 of D; .satfinite: infinities clamp to the largest finite value, NaN gives 0.
uint64_t round_float(Ty td, double x, bool satfinite) {
  if (satfinite && std::isnan(x)) return 0;
  if (td.bits == 16) return encode(Format::F16, x, Rounding::Nearest, satfinite);
  float f = static_cast<float>(x);
  if (satfinite && std::isinf(f)) f = std::copysign(FLT_MAX, f);
  return std::isnan(f) ? 0x7fffffffu : std::bit_cast<uint32_t>(f);  // the canonical NaN, as mma.sync
}

void mma(const Program& p, const DInst& in, WmmaWarp& w) {
  const Shape s{in.mma_m, in.mma_n, in.mma_k};
  const Ty td = in.type, ta = in.type2, tb = in.type3, tc = in.type4;
  const std::vector<double> A = gather_multiplicand(p, w, in.ops[1], true, s.m, s.k, ta);
  const std::vector<double> B = gather_multiplicand(p, w, in.ops[2], false, s.n, s.k, tb);  // [n][k]
  const unsigned elements = s.m * s.n / kLanes;
  std::vector<double> C(static_cast<size_t>(s.m) * s.n);
  for (int l = 0; l < kLanes; ++l)
    for (unsigned i = 0; i < elements; ++i) {
      unsigned row, col;
      accumulator_position(s, l, i, row, col);
      const uint64_t v = w.reg(slot(p, in.ops[3], tc.bits == 16 ? i / 2 : i), l);
      C[row * s.n + col] = element_value(tc, tc.bits == 16 ? field(v, i % 2, 16) : v);
    }

  const bool integer = td.k == 's', b1 = ta.k == 'b', and_op = in.sub & kWmmaAnd, sat = in.flags & kSatfinite;
  const int mode = (in.flags & kRz) ? FE_TOWARDZERO : (in.flags & kRm) ? FE_DOWNWARD : (in.flags & kRp) ? FE_UPWARD : FE_TONEAREST;
  std::vector<uint64_t> D(C.size());
  for (unsigned row = 0; row < s.m; ++row)
    for (unsigned col = 0; col < s.n; ++col) {
      const double* a = &A[static_cast<size_t>(row) * s.k];
      const double* b = &B[static_cast<size_t>(col) * s.k];
      const double c = C[row * s.n + col];
      uint64_t bits;
      if (integer) {  // exact; wrapping, or clamped with .satfinite
        int64_t acc = static_cast<int64_t>(c);
        for (unsigned k = 0; k < s.k; ++k) {
          const int64_t x = static_cast<int64_t>(a[k]), y = static_cast<int64_t>(b[k]);
          acc += b1 ? (and_op ? (x & y) : (x ^ y)) : x * y;  // .b1: popc of .and/.xor, bit by bit
        }
        if (sat) acc = std::clamp<int64_t>(acc, INT32_MIN, INT32_MAX);
        bits = static_cast<uint32_t>(static_cast<uint64_t>(acc));
      } else if (td.bits == 64) {  // fused multiply-adds in K order from C, each rounded as .rnd says
        const int saved = std::fegetround();
        std::fesetround(mode);
        volatile double acc = c;
        for (unsigned k = 0; k < s.k; ++k) acc = std::fma(a[k], b[k], acc);
        std::fesetround(saved);
        bits = std::bit_cast<uint64_t>(static_cast<double>(acc));
      } else {  // the products are exact in double; the sum is rounded once to D's type
        double acc = c;
        for (unsigned k = 0; k < s.k; ++k) acc += a[k] * b[k];
        bits = round_float(td, acc, sat);
      }
      D[row * s.n + col] = bits;
    }
  const Opnd& od = in.ops[0];
  for (int l = 0; l < kLanes; ++l)
    for (uint32_t q = 0; q < od.count; ++q) {
      if (slot(p, od, q) == kNoSlot) continue;
      uint64_t v = 0;
      const unsigned per = td.bits == 16 ? 2 : 1;
      for (unsigned h = 0; h < per; ++h) {
        unsigned row, col;
        accumulator_position(s, l, q * per + h, row, col);
        v |= D[row * s.n + col] << (16 * h);
      }
      w.reg(slot(p, od, q), l) = v;
    }
}

}  // namespace

void wmma_execute(const Program& p, const DInst& in, WmmaWarp& w) {
  if (op_of(in) == WmmaOp::Mma) mma(p, in, w);
  else load_store(p, in, w);
}

}  // namespace ptx::emu
