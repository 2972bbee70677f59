// mma.sync, the warp-level matrix multiply-accumulate (PTX ISA 9.7.14.5).
//
// D = A * B + C, with each matrix spread over the registers of the warp's 32 threads in the
// fragment layouts of the manual (9.7.14.5.1 to 9.7.14.5.13). Every m16n8kK and m8n8kK form
// other than m8n8k4 .f16 shares one scheme once a register is seen as 32-bit words of
// packed elements (g = lane / 4, t = lane % 4, P elements per word):
//   A (m16): register r holds row g + 8 (r % 2), word t + 4 (r / 2) of that row;
//   A (m8):  row g, word t;
//   B:       register r holds column g, word t + 4 r of that column;
//   C/D:     element e at row g + 8 (e / 2) (m16; g for m8), column 2 t + e % 2.
// (The manual gives each shape and type its own formulas; they all reduce to these.)
// m8n8k4 .f16 (9.7.14.5.1) is four independent 8x8x4 products, one per quad pair (lanes
// 4q..4q+3 and 16+4q..16+4q+3), with row- or column-major A and B; the manual gives C and D
// the layout of .ctype, so .f32.f16.f16.f16 returns D in .f16's layout, as eight .f32 registers.
//
// Arithmetic: integer products are exact, wrapping to 32 bits (or clamped with .satfinite);
// the .b1 forms add popc(a XOR b) or popc(a AND b). .f64 forms compute each element of D as
// a chain of fused multiply-adds, c + a0 b0 first, then a1 b1, ..., each rounded in the
// instruction's .rnd mode (.rn by default). The other floating-point forms add the exact
// products (in double) to C and round once into D's type.
//
// mma.sp (9.7.14.6): A's registers hold its non-zero half in the layout of a dense A of K/2
// columns; the metadata operand e of the lanes the selector f names places it (sparse_matrix.cpp).
// .kind::f8f6f4's 6- and 4-bit types sit one per byte where fp8 elements do (see value()).
// Every form of the ISA runs but the block-scaled ones (kBlockScaled says why).
#include "mma_sync.hpp"
#include "vocab_util.hpp"

#include <algorithm>
#include <bit>
#include <cfenv>
#include <charconv>
#include <cmath>
#include <vector>

#include <fmt/format.h>

#include "float_formats.hpp"
#include "matrix_modifiers.hpp"
#include "sparse_matrix.hpp"

namespace ptx::emu {

using spec::Mod;
using spec::Opcode;

namespace {

// DInst::sub of an mma.sync: the layouts of m8n8k4 .f16 and the .b1 operation.
// kSparse: mma.sp (kOrdered: .sp::ordered_metadata).
enum MmaBits : uint8_t { kAColMajor = 1, kBRowMajor = 2, kBitXor = 4, kBitAnd = 8, kSparse = 16, kOrdered = 32 };

bool is_fp8(Ty t) { return t.k == 'E' || t.k == 'M'; }
bool is_f6f4(Ty t) { return t.k == '4' || t.k == '6' || t.k == '7'; }
bool is_int(Ty t, unsigned bits) { return (t.k == 's' || t.k == 'u') && t.bits == bits; }

// Whether m, n, k is one of `shapes` (given as {m, k}; n is always 8).
bool shape_in(unsigned m, unsigned n, unsigned k, std::initializer_list<std::pair<unsigned, unsigned>> shapes) {
  if (n != 8) return false;
  for (auto s : shapes)
    if (s.first == m && s.second == k) return true;
  return false;
}

// The manual's text (9.7.14.3) says what scale_A and scale_B are, but which thread's
// scale-a-data / scale-b-data byte holds the scale factor of each row of A and column of B, as
// {byte-id, thread-id} select them, only its figures show.
constexpr const char* kBlockScaled =
    "the block-scaled mma forms (.kind::mxf4, .kind::mxf4nvf4, .kind::mxf8f6f4 with .block_scale): the manual gives the "
    "layout of the scale factors in scale-a-data/scale-b-data over the threads, as {byte-id, thread-id} select them, only "
    "in figures, not in its text";

// ---- execution ------------------------------------------------------------------------

unsigned width(Ty t) { return t.k == 'h' || t.k == 'B' ? 16 : t.k == 't' ? 32 : t.bits; }

double value(Ty t, uint64_t bits) {
  switch (t.k) {
    case 'h': return decode(Format::F16, static_cast<uint32_t>(bits));
    case 'B': return decode(Format::BF16, static_cast<uint32_t>(bits));
    case 't': return decode(Format::TF32, static_cast<uint32_t>(bits));
    case 'E': return decode(Format::E4M3, static_cast<uint32_t>(bits));
    case 'M': return decode(Format::E5M2, static_cast<uint32_t>(bits));
    // .kind::f8f6f4's 8-bit containers (9.7.14.5.14): e2m1 in the central bits 2-5, e2m3 and
    // e3m2 in the low bits 0-5; the padding bits are not read
    case '4': return decode(Format::E2M1, static_cast<uint32_t>(bits >> 2) & 0xF);
    case '6': return decode(Format::E2M3, static_cast<uint32_t>(bits) & 0x3F);
    case '7': return decode(Format::E3M2, static_cast<uint32_t>(bits) & 0x3F);
    case 'f': return t.bits == 64 ? std::bit_cast<double>(bits) : std::bit_cast<float>(static_cast<uint32_t>(bits));
    case 's': {
      const unsigned shift = 64 - t.bits;
      return static_cast<double>(static_cast<int64_t>(bits << shift) >> shift);
    }
    default: return static_cast<double>(t.bits >= 64 ? bits : bits & ((uint64_t{1} << t.bits) - 1));
  }
}

enum class Which { A, B, C };

struct Place {
  int group, row, col;
};

// Where element e (counted over the thread's registers, low bits first) of operand `which`
// lives: which product (m8n8k4 .f16 only), row and column.
Place place(const DInst& in, Which which, Ty t, int lane, int e) {
  const int g = lane / 4, tq = lane % 4;
  if (in.mma_m == 8 && in.mma_k == 4 && in.type2.k == 'h') {  // m8n8k4 .f16: per quad pair
    const int group = (lane % 16) / 4, hi = lane >= 16 ? 4 : 0;
    switch (which) {
      case Which::A: return in.sub & kAColMajor ? Place{group, e + hi, tq} : Place{group, tq + hi, e};
      case Which::B: return in.sub & kBRowMajor ? Place{group, tq, e + hi} : Place{group, e, tq + hi};
      case Which::C:  // C and D alike in the layout of .ctype (the manual keys it to .ctype)
        if (in.type4.k == 'h') return {group, tq + hi, e};
        return {group, (tq & 1) + (e & 2) + hi, (e & 4) + (tq & 2) + (e & 1)};
    }
  }
  const unsigned w = width(t);
  const int per = w >= 32 ? 1 : static_cast<int>(32 / w), r = e / per, i = e % per;
  switch (which) {
    case Which::A:
      if (in.mma_m == 8) return {0, g, tq * per + i};
      return {0, g + 8 * (r % 2), (tq + 4 * (r / 2)) * per + i};
    case Which::B: return {0, (tq + 4 * r) * per + i, g};
    case Which::C: break;
  }
  return {0, in.mma_m == 8 ? g : g + 8 * (e / 2), 2 * tq + e % 2};
}

// Restores the rounding mode of the host's floating-point environment on exit.
class RoundingScope {
 public:
  explicit RoundingScope(int mode) : saved_(std::fegetround()) { std::fesetround(mode); }
  ~RoundingScope() { std::fesetround(saved_); }
  RoundingScope(const RoundingScope&) = delete;
  RoundingScope& operator=(const RoundingScope&) = delete;

 private:
  int saved_;
};

int host_rounding(uint32_t flags) {
  if (flags & kRz) return FE_TOWARDZERO;
  if (flags & kRm) return FE_DOWNWARD;
  if (flags & kRp) return FE_UPWARD;
  return FE_TONEAREST;
}

}  // namespace

std::optional<MmaDecodeError> mma_decode(DInst& d, std::span<const Mod> mods, std::span<const Opnd> ops,
                                         const Program& p) {
  (void)p;
  auto bad = [](std::string what) { return MmaDecodeError{false, std::move(what)}; };
  auto unsupported = [](std::string what) { return MmaDecodeError{true, std::move(what)}; };
  std::vector<Ty> types;  // .dtype .atype .btype .ctype, in order
  unsigned m = 0, n = 0, k = 0, layouts = 0;
  bool shape = false, sparse = false, ordered = false, f8f6f4 = false, popc = false, xor_op = false, and_op = false, rnd = false;
  uint8_t sub = 0;
  for (Mod mo : mods) {
    if (mo == Mod::sync || mo == Mod::aligned) continue;
    if (mo == Mod::sp || mo == Mod::sp_ordered_metadata) {
      sparse = true;
      ordered = mo == Mod::sp_ordered_metadata;
    }
    else if (mo == Mod::row || mo == Mod::col) {
      if (layouts == 0 && mo == Mod::col) sub |= kAColMajor;
      if (layouts == 1 && mo == Mod::row) sub |= kBRowMajor;
      ++layouts;
    } else if (mo == Mod::satfinite) d.flags |= kSatfinite;
    else if (mo == Mod::rn || mo == Mod::rz || mo == Mod::rm || mo == Mod::rp) {
      rnd = true;
      d.flags |= mo == Mod::rn ? kRn : mo == Mod::rz ? kRz : mo == Mod::rm ? kRm : kRp;
    } else if (mo == Mod::xor_) xor_op = true;
    else if (mo == Mod::and_) and_op = true;
    else if (mo == Mod::popc) popc = true;
    else if (mo == Mod::kind_f8f6f4) f8f6f4 = true;
    else if (mo == Mod::kind_f16 || mo == Mod::kind_i8 || mo == Mod::kind_mxf4 || mo == Mod::kind_mxf4nvf4 || mo == Mod::kind_mxf8f6f4 ||
             mo == Mod::kind_tf32 || mo == Mod::block_scale)
      return unsupported(kBlockScaled);
    else if (auto t = matrix_element_type(mo)) types.push_back(*t);
    else if (parse_matrix_shape(mo, m, n, k)) shape = true;
    else if (mo == Mod::ue8m0 || mo == Mod::ue4m3 || mo == Mod::scale_vec_1X || mo == Mod::scale_vec_2X || mo == Mod::scale_vec_4X)
      return unsupported(kBlockScaled);
    else return unsupported(fmt::format("the modifier {} of mma", mo));
  }
  if (!shape || types.size() != 4 || layouts != 2)
    return bad("mma needs .sync.aligned, a shape .mMnNkK, the layouts .row/.col of A and B, and the types .dtype.atype.btype.ctype");
  const Ty td = types[0], ta = types[1], tb = types[2], tc = types[3];
  const std::string names = fmt::format("{}.m{}n{}k{}.{}.{}.{}.{}", sparse ? ".sp" : "", m, n, k, matrix_type_name(td), matrix_type_name(ta),
                                        matrix_type_name(tb), matrix_type_name(tc));
  const Ty f16{'h', 16}, f32{'f', 32}, f64{'f', 64}, s32{'s', 32};
  using Shapes = std::initializer_list<std::pair<unsigned, unsigned>>;
  // the dense shapes, and those of mma.sp (K twice the dense one's)
  auto shapes = [&](Shapes dense, Shapes sp) { return shape_in(m, n, k, sparse ? sp : dense); };
  const bool volta = !sparse && shape_in(m, n, k, {{8, 4}}) && ta == f16 && tb == f16 &&
                     ((td == f16 && tc == f16) || (td == f32 && (tc == f16 || tc == f32)));
  const bool half = shapes({{16, 8}, {16, 16}}, {{16, 16}, {16, 32}}) && ta == f16 && tb == f16 && td == tc && (td == f16 || td == f32);
  const bool bf16 = shapes({{16, 8}, {16, 16}}, {{16, 16}, {16, 32}}) && ta.k == 'B' && tb.k == 'B' && td == f32 && tc == f32;
  const bool tf32 = shapes({{16, 4}, {16, 8}}, {{16, 8}, {16, 16}}) && ta.k == 't' && tb.k == 't' && td == f32 && tc == f32;
  const bool fp8 = (f8f6f4 ? shapes({{16, 32}}, {{16, 64}}) : shapes({{16, 16}, {16, 32}}, {{16, 64}})) &&
                   (is_fp8(ta) || is_f6f4(ta)) && (is_fp8(tb) || is_f6f4(tb)) && td == tc && (td == f16 || td == f32);
  const bool dbl = !sparse && shape_in(m, n, k, {{8, 4}, {16, 4}, {16, 8}, {16, 16}}) && ta == f64 && tb == f64 && td == f64 && tc == f64;
  const bool int8 = shapes({{8, 16}, {16, 16}, {16, 32}}, {{16, 32}, {16, 64}}) && is_int(ta, 8) && is_int(tb, 8) && td == s32 && tc == s32;
  const bool int4 = shapes({{8, 32}, {16, 32}, {16, 64}}, {{16, 64}, {16, 128}}) && is_int(ta, 4) && is_int(tb, 4) && td == s32 && tc == s32;
  const bool b1 = !sparse && shape_in(m, n, k, {{8, 128}, {16, 128}, {16, 256}}) && ta == Ty{'b', 1} && tb == Ty{'b', 1} && td == s32 &&
                  tc == s32;
  if (!(volta || half || bf16 || tf32 || fp8 || dbl || int8 || int4 || b1))
    return bad(fmt::format("mma{}: not a shape and type combination of the ISA", names));
  if (!volta && sub != 0) return bad(fmt::format("mma{} takes only .row.col (A row-major, B column-major)", names));
  if (f8f6f4 && !fp8) return bad(".kind::f8f6f4 is only for mma.m16n8k32 (mma.sp.m16n8k64) with 8-, 6- and 4-bit floating-point types");
  if (!f8f6f4 && (is_f6f4(ta) || is_f6f4(tb))) return bad(fmt::format("mma{}: .e3m2/.e2m3/.e2m1 need .kind::f8f6f4", names));
  if ((d.flags & kSatfinite) && !(int8 || int4)) return bad(".satfinite is only for integer (.s8/.u8/.s4/.u4) mma");
  if (rnd && !dbl) return bad("a rounding modifier (.rn/.rz/.rm/.rp) is only for .f64 mma");
  if (b1 != popc || (b1 && xor_op == and_op) || (!b1 && (xor_op || and_op)))
    return bad("mma with .b1 needs .popc and one of .xor/.and; only it takes them");
  const size_t want_ops = sparse ? 6 : 4;
  if (ops.size() != want_ops)
    return bad(fmt::format("mma{} with {} operands; it has {}", names, ops.size(), sparse ? "6 (d, a, b, c, e, f)" : "4 (d, a, b, c)"));
  if (sparse) {
    const uint64_t selectors = sparse_selectors(width(ta), static_cast<int>(k));
    if (ops[5].kind != Opnd::Imm || ops[5].imm >= selectors)
      return bad(fmt::format("mma{}: the sparsity selector f must be an immediate below {}", names, selectors));
    if (ops[4].kind != Opnd::Reg && ops[4].kind != Opnd::Imm) return bad(fmt::format("mma{}: the metadata e must be a register", names));
  }
  if (fp8 && k == 16 && ops[2].kind == Opnd::Vec && ops[2].count == 2)
    return unsupported(fmt::format("mma{} with two registers for b (ptxas accepts them; the manual gives one register and says "
                                   "nothing of a second)", names));
  d.op = Opc::Mma;
  d.mma_m = static_cast<uint16_t>(m), d.mma_n = static_cast<uint16_t>(n), d.mma_k = static_cast<uint16_t>(k);
  d.type = td, d.type2 = ta, d.type3 = tb, d.type4 = tc;
  d.sub = static_cast<uint8_t>(sub | (xor_op ? kBitXor : 0) | (and_op ? kBitAnd : 0) | (sparse ? kSparse : 0) | (ordered ? kOrdered : 0));
  return std::nullopt;
}

void mma_execute(const Program& p, const DInst& in, MmaWarp& w) {
  const int M = in.mma_m, N = in.mma_n, K = in.mma_k;
  const Ty td = in.type, ta = in.type2, tb = in.type3, tc = in.type4;
  const int groups = M == 8 && K == 4 && ta.k == 'h' ? 4 : 1;  // m8n8k4 .f16: one product per quad pair
  // Each operand must be a vector of exactly the registers the shape gives a thread (an unvalidated
  // module may hold anything there); sinks only in d.
  const char* names[4] = {"d", "a", "b", "c"};
  const Ty types[4] = {td, ta, tb, tc};
  const bool sparse = in.sub & kSparse;
  const int KA = sparse ? K / 2 : K;  // the columns of A in its registers (mma.sp: the non-zero half)
  const int elements[4] = {M * N, M * KA, K * N, M * N};
  for (int i = 0; i < 4; ++i) {
    const Opnd& op = in.ops[i];
    const unsigned wbits = width(types[i]);
    const unsigned per_reg = wbits >= 32 ? 1 : 32 / wbits;
    const uint32_t want = static_cast<uint32_t>(elements[i] * groups) / 32 / per_reg;
    bool ok = op.kind == Opnd::Vec && op.count == want;
    for (uint32_t r = 0; ok && i > 0 && r < op.count; ++r) ok = p.vec_slots[op.slot + r] != kNoSlot;
    if (!ok) w.fail(0, fmt::format("mma.m{}n{}k{}: operand {} must be a vector of {} registers", M, N, K, names[i], want));
  }
  std::vector<double> A(static_cast<size_t>(groups * M * KA)), B(static_cast<size_t>(groups * K * N)),
      C(static_cast<size_t>(groups * M * N));
  auto gather = [&](const Opnd& op, Which which, Ty t, std::vector<double>& out, int rows, int cols) {
    const unsigned wbits = width(t);
    const unsigned per_reg = wbits >= 32 ? 1 : 32 / wbits;
    const uint64_t mask = wbits >= 64 ? ~uint64_t{0} : (uint64_t{1} << wbits) - 1;
    for (int l = 0; l < 32; ++l)
      for (uint32_t r = 0; r < op.count; ++r) {
        const uint64_t v = w.reg(p.vec_slots[op.slot + r], l);
        for (unsigned e = 0; e < per_reg; ++e) {
          const Place at = place(in, which, t, l, static_cast<int>(r * per_reg + e));
          out[static_cast<size_t>((at.group * rows + at.row) * cols + at.col)] = value(t, per_reg == 1 ? v : (v >> (e * wbits)) & mask);
        }
      }
  };
  gather(in.ops[1], Which::A, ta, A, M, KA);
  if (sparse)
    A = expand_sparse({"mma.sp", width(ta), K, static_cast<int>(in.ops[5].imm), (in.sub & kOrdered) != 0}, A,
                      [&](int lane) { return in.ops[4].kind == Opnd::Reg ? w.reg(in.ops[4].slot, lane) : in.ops[4].imm; },
                      [&](int lane, const std::string& what) { w.fail(lane, what); });
  gather(in.ops[2], Which::B, tb, B, K, N);
  gather(in.ops[3], Which::C, tc, C, M, N);

  const bool f64 = td == Ty{'f', 64};
  std::optional<RoundingScope> rounding;
  if (f64) rounding.emplace(host_rounding(in.flags));
  auto element = [&](const Place& at) -> uint64_t {
    const double* a = &A[static_cast<size_t>((at.group * M + at.row) * K)];
    const double* b = &B[static_cast<size_t>(at.group * K * N + at.col)];
    const double c = C[static_cast<size_t>((at.group * M + at.row) * N + at.col)];
    if (td.k == 's') {  // integer accumulation: exact, wrapping (or saturating with .satfinite)
      int64_t acc = static_cast<int64_t>(c);
      for (int kk = 0; kk < K; ++kk) {
        const auto x = static_cast<int64_t>(a[kk]), y = static_cast<int64_t>(b[static_cast<size_t>(kk * N)]);
        acc += in.sub & kBitXor ? (x ^ y) : in.sub & kBitAnd ? (x & y) : x * y;
      }
      if (in.flags & kSatfinite) acc = std::clamp<int64_t>(acc, INT32_MIN, INT32_MAX);
      return static_cast<uint64_t>(acc) & 0xFFFFFFFFu;
    }
    if (f64) {  // a chain of fused multiply-adds in the host's rounding mode, set from .rnd
      double acc = c;
      for (int kk = 0; kk < K; ++kk) {
        volatile double r = std::fma(a[kk], b[static_cast<size_t>(kk * N)], acc);  // (volatile: not moved out of the mode, as in exec.cpp)
        acc = r;
      }
      return std::bit_cast<uint64_t>(acc);
    }
    double acc = c;
    for (int kk = 0; kk < K; ++kk) acc += a[kk] * b[static_cast<size_t>(kk * N)];
    if (td.k == 'f') {
      const float f = static_cast<float>(acc);
      return std::isnan(f) ? 0x7fffffffu : std::bit_cast<uint32_t>(f);
    }
    return encode(Format::F16, acc);
  };
  const unsigned wd = width(td), per_reg = wd >= 32 ? 1 : 32 / wd;
  const uint64_t dmask = wd >= 64 ? ~uint64_t{0} : (uint64_t{1} << wd) - 1;
  for (int l = 0; l < 32; ++l)
    for (uint32_t r = 0; r < in.ops[0].count; ++r) {
      uint64_t packed = 0;
      for (unsigned e = 0; e < per_reg; ++e)
        packed |= (element(place(in, Which::C, td, l, static_cast<int>(r * per_reg + e))) & dmask) << (e * wd);
      if (p.vec_slots[in.ops[0].slot + r] != kNoSlot) w.reg(p.vec_slots[in.ops[0].slot + r], l) = packed;
    }
}

}  // namespace ptx::emu
