// wgmma, the warpgroup-level matrix multiply-accumulate of sm_90a (PTX ISA 9.7.15).
//
// D (64 x N) = A (64 x K) * B (K x N) + D, issued by the four warps of a warpgroup.
// Here wgmma.mma_async runs to completion when a warp issues it, so wgmma.fence,
// commit_group and wait_group have nothing left to order (they decode to Nop), and the
// results are in the registers after wait_group as the ISA requires. Each warp computes
// its own 16 rows of D (rows 16 * rank ...): they depend only on that warp's registers,
// its 16 rows of A and all of B, so no warp waits for the others.
//
// A and B in shared memory are described by 64-bit matrix descriptors (9.7.15.5.1.2), decoded
// with the canonical layouts in smem_matrix.cpp (shared with tcgen05.mma).
//
// wgmma.mma_async.sp (9.7.15.6): K twice the dense one's; A (from a descriptor or registers) holds
// its non-zero half in the layout of a dense A, expanded with the sp-meta operand of the lanes
// sp-sel names (sparse_matrix.cpp, the figures of mma.sp); B is a dense K x N.
#include "wgmma.hpp"
#include "vocab_util.hpp"

#include <algorithm>
#include <bit>
#include <charconv>
#include <cmath>
#include <vector>

#include <fmt/format.h>

#include "float_formats.hpp"
#include "matrix_modifiers.hpp"
#include "smem_matrix.hpp"
#include "sparse_matrix.hpp"

namespace ptx::emu {

using spec::Mod;
using spec::Opcode;

namespace {

// DInst::sub of a wgmma.mma_async: its immediate operands and A's source.
// kSparse: wgmma.mma_async.sp (ops[4] sp-meta, ops[5] sp-sel).
enum WgmmaBits : uint8_t { kTransA = 1, kTransB = 2, kNegA = 4, kNegB = 8, kARegs = 16, kSparse = 32 };

// K of one wgmma is 32 bytes of A's row for every type: 16 (f16, bf16), 8 (tf32), 32 (8-bit), 256 (b1).
unsigned k_for(Ty a) { return 256u / a.bits; }

bool is_fp8(Ty t) { return t.k == 'E' || t.k == 'M'; }
bool is_int8(Ty t) { return (t.k == 's' || t.k == 'u') && t.bits == 8; }

// N: multiples of 8 up to 256; the integer and b1 forms take 8, 16, 24 and multiples of 16 from 32
// (the manual's list stops at 224; ptxas 13.0 also takes 240 and 256).
bool valid_n(unsigned n, bool integer) {
  if (n < 8 || n > 256 || n % 8 != 0) return false;
  return !integer || n <= 32 || n % 16 == 0;
}

}  // namespace

std::optional<WgmmaDecodeError> wgmma_decode(DInst& d, std::span<const Mod> mods, std::span<const Opnd> ops,
                                             const Program& p) {
  auto bad = [](std::string what) { return WgmmaDecodeError{false, std::move(what)}; };
  auto unsupported = [](std::string what) { return WgmmaDecodeError{true, std::move(what)}; };
  enum class Kind { None, Mma, Sync } kind = Kind::None;
  std::vector<Ty> types;  // .dtype .atype .btype, in order
  unsigned m = 0, n = 0, k = 0;
  bool shape = false, satfinite = false, and_op = false, popc = false, sparse = false;
  for (Mod mo : mods) {
    if (mo == Mod::mma_async) kind = Kind::Mma;
    else if (mo == Mod::fence || mo == Mod::commit_group || mo == Mod::wait_group) kind = Kind::Sync;
    else if (mo == Mod::sp) sparse = true;
    else if (mo == Mod::sync || mo == Mod::aligned) continue;
    else if (mo == Mod::satfinite) satfinite = true;
    else if (mo == Mod::and_) and_op = true;
    else if (mo == Mod::popc) popc = true;
    else if (auto t = matrix_element_type(mo)) types.push_back(*t);
    else if (parse_matrix_shape(mo, m, n, k)) shape = true;
    else return unsupported(fmt::format("the modifier {} of wgmma", mo));
  }
  if (kind == Kind::Sync) {  // every wgmma.mma_async completed at issue: nothing to fence or wait for
    d.op = Opc::Nop;
    return std::nullopt;
  }
  if (kind == Kind::None) return unsupported("this wgmma instruction");
  if (!shape || types.size() != 3) return bad("wgmma.mma_async needs a shape .m64nNkK and the types .dtype.atype.btype");
  const Ty td = types[0], ta = types[1], tb = types[2];
  const std::string names = fmt::format("{}.{}.{}.{}", sparse ? ".sp" : "", matrix_type_name(td), matrix_type_name(ta), matrix_type_name(tb));
  const std::string type_names = names.substr(sparse ? 3 : 0);
  const bool f16 = ta.k == 'h' && tb.k == 'h' && (td == Ty{'h', 16} || td == Ty{'f', 32});
  const bool bf16 = ta.k == 'B' && tb.k == 'B' && td == Ty{'f', 32};
  const bool tf32 = ta.k == 't' && tb.k == 't' && td == Ty{'f', 32};
  const bool fp8 = is_fp8(ta) && is_fp8(tb) && (td == Ty{'h', 16} || td == Ty{'f', 32});
  const bool int8 = is_int8(ta) && is_int8(tb) && td == Ty{'s', 32};
  const bool b1 = ta == Ty{'b', 1} && tb == Ty{'b', 1} && td == Ty{'s', 32};
  if (!(f16 || bf16 || tf32 || fp8 || int8 || b1)) return bad(fmt::format("wgmma.mma_async{} is not a type combination of the ISA", names));
  if (sparse && b1) return bad("wgmma.mma_async.sp has no .b1 form");
  const unsigned want_k = k_for(ta) * (sparse ? 2 : 1);  // mma_async.sp: A's K twice the dense one
  if (m != 64 || k != want_k || !valid_n(n, int8 || b1))
    return bad(fmt::format("wgmma.mma_async{}.m{}n{}k{}{}: not a shape of the ISA (m64nNk{} with these types)", sparse ? ".sp" : "", m, n, k,
                           type_names, want_k));
  if (satfinite && !int8) return bad(".satfinite is only for integer wgmma.mma_async");
  if (b1 != (and_op && popc)) return bad("wgmma.mma_async.b1 needs .and.popc, and only it takes them");

  // Operands: d, a (descriptor or 4 registers), b-desc, (.sp: sp-meta, sp-sel,) scale-d, then
  // immediates by type. `at` counts past the sparse pair, so the dense checks read the same operand.
  const bool a_regs = ops.size() > 1 && ops[1].kind == Opnd::Vec;
  const size_t extra = sparse ? 2 : 0;
  const size_t count = ((f16 || bf16) ? (a_regs ? 7 : 8) : (tf32 || fp8) ? 6 : 4) + extra;
  if (ops.size() != count)
    return bad(fmt::format("wgmma.mma_async{} with {} operands; this form has {}{}", names, ops.size(), count,
                           sparse ? " (d, a, b-desc, sp-meta, sp-sel, scale-d, ...)" : ""));
  auto at = [&](size_t dense_index) -> const Opnd& { return ops[dense_index < 3 ? dense_index : dense_index + extra]; };
  auto registers = [&](const Opnd& o, uint32_t want, const char* what) -> std::optional<WgmmaDecodeError> {
    if (o.kind != Opnd::Vec || o.count != want) return bad(fmt::format("{} of wgmma.mma_async{} must be {} registers in braces", what, names, want));
    for (uint32_t i = 0; i < o.count; ++i) {
      const uint32_t slot = p.vec_slots[o.slot + i];
      if (slot == kNoSlot || p.slot_types[slot].bits != 32) return bad(fmt::format("{} of wgmma.mma_async must be 32-bit registers", what));
    }
    return std::nullopt;
  };
  auto descriptor = [&](const Opnd& o, const char* what) -> std::optional<WgmmaDecodeError> {
    if ((o.kind == Opnd::Reg && !o.neg && p.slot_types[o.slot].bits == 64) || (o.kind == Opnd::Imm && !o.symbol)) return std::nullopt;
    return bad(fmt::format("{} of wgmma.mma_async must be a 64-bit register or an immediate", what));
  };
  if (auto e = registers(ops[0], td.bits == 16 ? n / 4 : n / 2, "d")) return e;
  if (auto e = a_regs ? registers(ops[1], 4, "a") : descriptor(ops[1], "a-desc")) return e;
  if (auto e = descriptor(ops[2], "b-desc")) return e;
  if (sparse) {
    const Opnd &meta = ops[3], &sel = ops[4];
    if (!((meta.kind == Opnd::Reg && !meta.neg && p.slot_types[meta.slot].bits == 32) || (meta.kind == Opnd::Imm && !meta.symbol)))
      return bad("sp-meta of wgmma.mma_async.sp must be a 32-bit register or an immediate");
    const uint64_t selectors = sparse_selectors(ta.bits, static_cast<int>(k));
    if (sel.kind != Opnd::Imm || sel.symbol || sel.imm >= selectors)
      return bad(fmt::format("sp-sel of wgmma.mma_async{} must be an immediate below {}", names, selectors));
  }
  const Opnd& scale_d = at(3);
  const bool pred = scale_d.kind == Opnd::Reg && p.slot_types[scale_d.slot].k == 'p';
  if (!pred && !(scale_d.kind == Opnd::Imm && !scale_d.symbol && scale_d.imm <= 1))
    return bad("scale-d of wgmma.mma_async must be a predicate or the immediate 0 or 1");
  // The trailing immediates: imm-scale-a and imm-scale-b (-1 negates), then imm-trans-a (A from
  // a descriptor only) and imm-trans-b (1: MN-major).
  for (size_t i = 4; i < count - extra; ++i) {
    const Opnd& o = at(i);
    const int64_t v = static_cast<int64_t>(o.imm);
    const bool scale = i < 6;
    if (o.kind != Opnd::Imm || o.symbol || (scale ? v != -1 && v != 1 : v != 0 && v != 1))
      return bad(fmt::format("{} of wgmma.mma_async must be the immediate {}",
                             scale ? (i == 4 ? "imm-scale-a" : "imm-scale-b") : (i == 6 && count - extra == 8 ? "imm-trans-a" : "imm-trans-b"),
                             scale ? "-1 or 1" : "0 or 1"));
  }
  const size_t dense_count = count - extra;
  const bool neg_a = dense_count >= 6 && static_cast<int64_t>(at(4).imm) == -1;
  const bool neg_b = dense_count >= 6 && static_cast<int64_t>(at(5).imm) == -1;
  const bool trans_a = dense_count == 8 && at(6).imm == 1;
  const bool trans_b = dense_count >= 7 && at(dense_count - 1).imm == 1;

  d.op = Opc::Wgmma;
  d.type = td, d.type2 = ta, d.type3 = tb;
  d.mma_m = static_cast<uint16_t>(m), d.mma_n = static_cast<uint16_t>(n), d.mma_k = static_cast<uint16_t>(k);
  d.flags = satfinite ? uint32_t{kSatfinite} : 0u;
  d.sub = static_cast<uint8_t>((trans_a ? kTransA : 0) | (trans_b ? kTransB : 0) | (neg_a ? kNegA : 0) | (neg_b ? kNegB : 0) |
                               (a_regs ? kARegs : 0) | (sparse ? kSparse : 0));
  d.nops = sparse ? 6 : 4;
  for (size_t i = 0; i < 4; ++i) d.ops[i] = at(i);
  if (sparse) d.ops[4] = ops[3], d.ops[5] = ops[4];
  return std::nullopt;
}

namespace {

double element_value(Ty t, uint32_t bits) {
  switch (t.k) {
    case 'h': return decode(Format::F16, bits);
    case 'B': return decode(Format::BF16, bits);
    case 't': return decode(Format::TF32, bits);
    case 'E': return decode(Format::E4M3, bits);
    case 'M': return decode(Format::E5M2, bits);
    case 's': return static_cast<double>(static_cast<int8_t>(static_cast<uint8_t>(bits)));
    default: return static_cast<double>(bits);  // u8, b1
  }
}

// An operand all lanes must give alike (descriptors, scale-d): its value.
uint64_t uniform(WgmmaWarp& w, const Opnd& o, const char* what) {
  const uint64_t v = w.value(o, 0);
  for (int l = 1; l < 32; ++l)
    if (w.value(o, l) != v) w.fail(fmt::format("wgmma.mma_async: {} differs between lanes 0 and {} of the warp", what, l));
  return v;
}

}  // namespace

void wgmma_execute(const Program& p, const DInst& in, WgmmaWarp& w) {
  const unsigned N = in.mma_n, K = in.mma_k;
  const Ty td = in.type, ta = in.type2, tb = in.type3;
  const Opnd &od = in.ops[0], &oa = in.ops[1], &ob = in.ops[2];
  const bool sparse = in.sub & kSparse;
  const unsigned KA = sparse ? K / 2 : K;  // the columns of A as stored (.sp: its non-zero half)

  // A: this warp's 16 rows; B: all N columns (as [n][k]); both as values, negated per imm-scale.
  std::vector<uint32_t> a_bits(16 * KA), b_bits(static_cast<size_t>(N) * K);
  const auto shared = [&w](uint64_t offset) { return w.shared16(offset); };
  if (in.sub & kARegs) {
    // The register fragment: register j of lane l holds row g + 8 (j % 2) of the warp's rows,
    // the 4 bytes at 16 (j / 2) + 4 t of its 32-byte K row (g = l / 4, t = l % 4).
    for (int l = 0; l < 32; ++l)
      for (unsigned j = 0; j < 4; ++j) {
        const uint32_t v = static_cast<uint32_t>(w.reg(p.vec_slots[oa.slot + j], l));
        const unsigned row = static_cast<unsigned>(l) / 4 + 8 * (j % 2);
        const unsigned first_k = (16 * (j / 2) + 4 * (static_cast<unsigned>(l) % 4)) * 8 / ta.bits;
        for (unsigned e = 0; e < 32 / ta.bits; ++e)
          a_bits[row * KA + first_k + e] = ta.bits == 32 ? v : v >> (e * ta.bits) & ((1u << ta.bits) - 1);
      }
  } else {
    load_smem_operand(shared, hopper_descriptor(uniform(w, oa, "the A descriptor")), in.sub & kTransA, ta.bits, 16 * w.rank(), 16, KA, a_bits);
  }
  const SmemMatrix b_desc = hopper_descriptor(uniform(w, ob, "the B descriptor"));
  if (!(in.sub & kTransB) && K * tb.bits > 128 * b_desc.width && b_desc.width > 1)
    w.fail(fmt::format("wgmma.mma_async.sp: B K-major with the {}-byte swizzle: its {}-byte rows of K span two swizzle atoms, and the "
                       "manual gives no stride between them (not supported by the emulator)", 16 * b_desc.width, K * tb.bits / 8));
  load_smem_operand(shared, b_desc, in.sub & kTransB, tb.bits, 0, N, K, b_bits);
  const bool scale_d = uniform(w, in.ops[3], "scale-d") != 0;

  std::vector<double> a(a_bits.size()), b(b_bits.size());
  const double sa = (in.sub & kNegA) ? -1.0 : 1.0, sb = (in.sub & kNegB) ? -1.0 : 1.0;
  for (size_t i = 0; i < a.size(); ++i) a[i] = sa * element_value(ta, a_bits[i]);
  if (sparse)
    a = expand_sparse({"wgmma.mma_async.sp", ta.bits, static_cast<int>(K), static_cast<int>(in.ops[5].imm), false, 16 * static_cast<int>(w.rank())},
                      a, [&](int lane) { return w.value(in.ops[4], lane); },
                      [&](int, const std::string& what) { w.fail(fmt::format("{} (warp {} of the warpgroup)", what, w.rank())); });
  for (size_t i = 0; i < b.size(); ++i) b[i] = sb * element_value(tb, b_bits[i]);

  // D: element i of lane l is row g + 8 ((i / 2) % 2), column 8 (i / 4) + 2 t + i % 2; f16
  // registers hold elements 2j (low half) and 2j + 1, .f32/.s32 registers one each.
  const unsigned per_reg = td.bits == 16 ? 2 : 1;
  for (int l = 0; l < 32; ++l) {
    const unsigned g = static_cast<unsigned>(l) / 4, t = static_cast<unsigned>(l) % 4;
    for (uint32_t r = 0; r < od.count; ++r) {
      uint64_t& reg = w.reg(p.vec_slots[od.slot + r], l);
      uint64_t out = 0;
      for (unsigned h = 0; h < per_reg; ++h) {
        const unsigned i = r * per_reg + h;
        const unsigned row = g + 8 * (i / 2 % 2), col = 8 * (i / 4) + 2 * t + i % 2;
        double sum = 0;  // exact for the integer types; one rounding of a near-exact sum for floats
        for (unsigned k = 0; k < K; ++k) sum += a[row * K + k] * b[col * K + k];
        uint64_t bits;
        if (td.k == 's') {  // .s32: wrapping, or clamped with .satfinite
          int64_t acc = static_cast<int64_t>(sum) + (scale_d ? static_cast<int32_t>(static_cast<uint32_t>(reg)) : 0);
          if (in.flags & kSatfinite) acc = std::clamp<int64_t>(acc, INT32_MIN, INT32_MAX);
          bits = static_cast<uint32_t>(acc);
        } else if (td.k == 'f') {
          const double c = scale_d ? static_cast<double>(std::bit_cast<float>(static_cast<uint32_t>(reg))) : 0.0;
          const float f = static_cast<float>(sum + c);
          bits = std::isnan(f) ? 0x7fffffffu : std::bit_cast<uint32_t>(f);  // the canonical NaN, as mma.sync
        } else {
          const double c = scale_d ? decode(Format::F16, static_cast<uint32_t>(reg >> (16 * h) & 0xFFFF)) : 0.0;
          bits = encode(Format::F16, sum + c);
        }
        out |= bits << (16 * h);
      }
      reg = out;
    }
  }
}

}  // namespace ptx::emu
