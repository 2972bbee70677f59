// tcgen05_decode: a tcgen05 instruction's modifiers and operands into a DInst (tcgen05.cpp runs it).
#include "tcgen05.hpp"
#include "tcgen05_codes.hpp"
#include "vocab_util.hpp"

#include <algorithm>

#include <fmt/format.h>

namespace ptx::emu {

using spec::Mod;
using spec::Opcode;
using namespace tcgen05_codes;

// ---- decoding --------------------------------------------------------------------------------

namespace {

bool is_reg(const Opnd& o, const Program& p, char kind, unsigned bits) {
  if (o.kind != Opnd::Reg || (o.neg && kind != 'p')) return false;  // a predicate may be negated (!p)
  const Ty t = p.slot_types[o.slot];
  return kind == 'p' ? t.k == 'p' : t.k != 'p' && t.bits == bits;
}
bool is_imm(const Opnd& o) { return o.kind == Opnd::Imm && !o.symbol; }
bool is_tmem_addr(const Opnd& o, const Program& p) {
  return o.kind == Opnd::Addr && !o.symbol && (o.slot == kNoSlot || p.slot_types[o.slot].bits == 32);
}

}  // namespace

namespace {

// The operands every tcgen05.mma form starts with: [d-tmem], a-desc or [a-tmem], b-desc, idesc.
std::optional<Tcgen05DecodeError> check_d_a_b_idesc(std::span<const Opnd> ops, const Program& p) {
  auto bad = [](std::string what) { return Tcgen05DecodeError{false, std::move(what)}; };
  if (!is_tmem_addr(ops[0], p)) return bad("d-tmem of tcgen05.mma must be a tensor memory address [register]");
  if (ops[1].kind == Opnd::Addr ? !is_tmem_addr(ops[1], p) : !(is_reg(ops[1], p, 'b', 64) || is_imm(ops[1])))
    return bad("a of tcgen05.mma must be a 64-bit descriptor (register or immediate) or a tensor memory address [a-tmem]");
  if (!(is_reg(ops[2], p, 'b', 64) || is_imm(ops[2]))) return bad("b-desc of tcgen05.mma must be a 64-bit register or an immediate");
  if (!(is_reg(ops[3], p, 'b', 32) || is_imm(ops[3]))) return bad("idesc of tcgen05.mma must be a 32-bit register or an immediate");
  return std::nullopt;
}

// tcgen05.mma.kind.block_scale{.scale_vectorsize} [d-tmem], a-desc or [a-tmem], b-desc, idesc,
// [scale-A-tmem], [scale-B-tmem], enable-input-d. DInst: ops[0-3] d, a, b, idesc, ops[4]
// enable-input-d, ops[5] scale-A-tmem; scale-B-tmem's register in callee and its offset in
// mma_m | mma_n << 16 (scale_b_address); mma_k the scale factors per row (1, 2, 4).
std::optional<Tcgen05DecodeError> decode_block_scaled(DInst& d, int kind, bool block_scale, unsigned scale_vec, unsigned block,
                                                      std::span<const Opnd> ops, const Program& p) {
  auto bad = [](std::string what) { return Tcgen05DecodeError{false, std::move(what)}; };
  if (kind < kMXF8F6F4) return bad(fmt::format(".block_scale and a scale vector size are only for .kind::mxf8f6f4, ::mxf4 and ::mxf4nvf4, not .kind::{}", kKindNames[kind]));
  const std::string name = fmt::format(".kind::{}", kKindNames[kind]);
  if (!block_scale) return bad(fmt::format("tcgen05.mma{} needs .block_scale", name));
  if (scale_vec && block) return bad("tcgen05.mma takes one scale vector size (.scale_vec::NX or .blockN)");
  // Table 54: .block32 is 1X for mxf8f6f4 and 2X for the 4-bit kinds (K = 64), .block16 4X;
  // without a size ptxas reads .block32, except for mxf4nvf4, which must name one.
  if (kind == kMXF4NVF4 && !scale_vec && !block) return bad("tcgen05.mma.kind::mxf4nvf4.block_scale needs a scale vector size (.scale_vec::2X, ::4X, .block16, .block32)");
  const unsigned vec = scale_vec ? scale_vec : block == 16 ? 4 : kind == kMXF8F6F4 ? 1 : 2;
  const bool valid = kind == kMXF8F6F4 ? vec == 1 : kind == kMXF4 ? vec == 2 : vec == 2 || vec == 4;
  if (!valid)
    return bad(fmt::format("{} scale factors per row ({}) is not a scale vector size of {} (1X/.block32 for mxf8f6f4, 2X/.block32 for mxf4, "
                           "2X/4X/.block32/.block16 for mxf4nvf4)",
                           vec, block ? fmt::format(".block{}", block) : fmt::format(".scale_vec::{}X", scale_vec), name));
  if (ops.size() != 7) return bad(fmt::format("tcgen05.mma{}.block_scale with {} operands; it takes 7 ([d-tmem], a, b-desc, idesc, [scale-A-tmem], [scale-B-tmem], enable-input-d)", name, ops.size()));
  if (auto e = check_d_a_b_idesc(ops, p)) return e;
  const bool a_tmem = ops[1].kind == Opnd::Addr;
  for (int i : {4, 5})
    if (!is_tmem_addr(ops[i], p) || ops[i].imm > 0xFFFFFFFFu)
      return bad(fmt::format("{} of tcgen05.mma must be a tensor memory address [register]", i == 4 ? "scale-A-tmem" : "scale-B-tmem"));
  if (!(is_reg(ops[6], p, 'p', 1) || is_imm(ops[6]))) return bad("enable-input-d of tcgen05.mma must be a predicate");
  d.sub = static_cast<uint8_t>(Tc05Op::Mma);
  d.boolop = static_cast<uint8_t>(kind);
  d.mma_k = static_cast<uint16_t>(vec);
  if (a_tmem) d.flags |= kTc05ATmem;
  d.nops = 6;
  for (size_t i = 0; i < 4; ++i) d.ops[i] = ops[i];
  d.ops[4] = ops[6];
  d.ops[5] = ops[4];
  d.callee = ops[5].slot;
  d.mma_m = static_cast<uint16_t>(ops[5].imm & 0xFFFF);
  d.mma_n = static_cast<uint16_t>(ops[5].imm >> 16);
  return std::nullopt;
}

// tcgen05.mma.cta_group.kind [d-tmem], a-desc or [a-tmem], b-desc, idesc, {disable-output-lane,}
// enable-input-d {, scale-input-d}. DInst: ops[0-3] d, a, b, idesc, ops[4] enable-input-d, ops[5]
// disable-output-lane (kTc05DisableLanes); mma_k scale-input-d (kTc05ScaleD).
std::optional<Tcgen05DecodeError> decode_dense(DInst& d, int kind, unsigned cta_group, std::span<const Opnd> ops, const Program& p) {
  auto bad = [](std::string what) { return Tcgen05DecodeError{false, std::move(what)}; };
  // [d], a, b, idesc, {disable-output-lane,} enable-input-d {, scale-input-d}
  if (ops.size() < 5 || ops.size() > 7) return bad(fmt::format("tcgen05.mma with {} operands", ops.size()));
  const bool lanes = ops[4].kind == Opnd::Vec;
  const size_t enable = lanes ? 5 : 4;
  if (ops.size() < enable + 1) return bad("tcgen05.mma needs enable-input-d");
  const bool scale = ops.size() == enable + 2;
  if (ops.size() > enable + 2) return bad(fmt::format("tcgen05.mma with {} operands", ops.size()));
  if (auto e = check_d_a_b_idesc(ops, p)) return e;
  const bool a_tmem = ops[1].kind == Opnd::Addr;
  if (!(is_reg(ops[enable], p, 'p', 1) || is_imm(ops[enable]))) return bad("enable-input-d of tcgen05.mma must be a predicate");
  if (lanes) {
    const uint32_t want = 4 * cta_group;
    if (ops[4].count != want) return bad(fmt::format("disable-output-lane of tcgen05.mma.cta_group::{} must be {} registers", cta_group, want));
    for (uint32_t i = 0; i < want; ++i) {
      const uint32_t slot = p.vec_slots[ops[4].slot + i];
      if (slot == kNoSlot || p.slot_types[slot].bits != 32) return bad("disable-output-lane of tcgen05.mma must be 32-bit registers");
    }
  }
  if (scale) {
    const Opnd& s = ops[enable + 1];
    if (!is_imm(s) || s.imm > 15) return bad("scale-input-d of tcgen05.mma must be an immediate 0 to 15");
    if (kind != kF16 && kind != kTF32) return bad("scale-input-d is only for tcgen05.mma .kind::f16 and .kind::tf32");
    d.flags |= kTc05ScaleD;
    d.mma_k = static_cast<uint16_t>(s.imm);
  }
  d.sub = static_cast<uint8_t>(Tc05Op::Mma);
  d.boolop = static_cast<uint8_t>(kind);
  if (a_tmem) d.flags |= kTc05ATmem;
  if (lanes) d.flags |= kTc05DisableLanes;
  d.nops = 6;
  for (size_t i = 0; i < 4; ++i) d.ops[i] = ops[i];
  d.ops[4] = ops[enable];
  if (lanes) d.ops[5] = ops[4];
  return std::nullopt;
}

// The buffer of a .collector::<buffer>::{fill, use, lastuse, discard} modifier: 'a', or '0' to
// '3' for b0 to b3; 0 for other modifiers.
char collector_buffer(Mod mo) {
  switch (mo) {
    case Mod::collector_a_fill: case Mod::collector_a_use: case Mod::collector_a_lastuse: case Mod::collector_a_discard: return 'a';
    case Mod::collector_b0_fill: case Mod::collector_b0_use: case Mod::collector_b0_lastuse: case Mod::collector_b0_discard: return '0';
    case Mod::collector_b1_fill: case Mod::collector_b1_use: case Mod::collector_b1_lastuse: case Mod::collector_b1_discard: return '1';
    case Mod::collector_b2_fill: case Mod::collector_b2_use: case Mod::collector_b2_lastuse: case Mod::collector_b2_discard: return '2';
    case Mod::collector_b3_fill: case Mod::collector_b3_use: case Mod::collector_b3_lastuse: case Mod::collector_b3_discard: return '3';
    default: return 0;
  }
}

// tcgen05.mma.ws.cta_group::1.kind{.collector::bN::op} [d-tmem], a, b-desc, idesc, enable-input-d
// {, zero-column-mask-desc}. DInst as tcgen05.mma's, with kTc05Ws; ops[5] the zero-column mask
// descriptor (kTc05ZeroMask).
std::optional<Tcgen05DecodeError> decode_ws(DInst& d, int kind, unsigned cta_group, std::optional<Mod> collector, std::span<const Opnd> ops,
                                            const Program& p) {
  auto bad = [](std::string what) { return Tcgen05DecodeError{false, std::move(what)}; };
  if (cta_group != 1) return bad("tcgen05.mma.ws is .cta_group::1 only");
  if (collector && collector_buffer(*collector) == 'a')
    return bad(fmt::format("{}: tcgen05.mma.ws takes .collector::b0 to ::b3 with ::fill, ::use, ::lastuse or ::discard", *collector));
  if (ops.size() != 5 && ops.size() != 6)
    return bad(fmt::format("tcgen05.mma.ws with {} operands; it takes [d-tmem], a, b-desc, idesc, enable-input-d and optionally zero-column-mask-desc", ops.size()));
  if (auto e = check_d_a_b_idesc(ops, p)) return e;
  const bool a_tmem = ops[1].kind == Opnd::Addr;
  if (!(is_reg(ops[4], p, 'p', 1) || is_imm(ops[4]))) return bad("enable-input-d of tcgen05.mma.ws must be a predicate");
  if (ops.size() == 6 && !(is_reg(ops[5], p, 'b', 64) || is_imm(ops[5]))) return bad("zero-column-mask-desc of tcgen05.mma.ws must be a 64-bit register or an immediate");
  d.sub = static_cast<uint8_t>(Tc05Op::Mma);
  d.boolop = static_cast<uint8_t>(kind);
  d.flags |= kTc05Ws;
  if (a_tmem) d.flags |= kTc05ATmem;
  if (ops.size() == 6) d.flags |= kTc05ZeroMask;
  d.nops = 6;
  for (size_t i = 0; i < ops.size(); ++i) d.ops[i] = ops[i];
  return std::nullopt;
}

// The modifiers of a tcgen05 instruction other than its operation (tcgen05_decode reads them first).
struct Tc05Modifiers {
  unsigned cta_group = 0, num = 0;
  int shape = -1, kind = -1, cp_shape = -1;
  unsigned cp_rows = 0;               // tcgen05.cp .64x128b / .32x128b: their shape needs the multicast
  std::optional<Mod> cp_multicast;    // .warpx2::02_13, .warpx2::01_23, .warpx4
  bool pack = false, multicast = false, cluster = false, shared_cta = false, down = false, arrive_one = false, block_scale = false, ws = false,
       sparse = false;
  std::optional<Mod> collector;       // mma: .collector::a::* or (.ws) .collector::bN::*
  bool dst_fmt = false;               // cp: .b8x16 ...
  unsigned src_bits = 0;              // ... .b6x16_p32 (6) or .b4x16_p64 (4)
  bool red = false, red_op = false, red_max = false, red_abs = false, red_nan = false;  // ld.red .min/.max {.abs}{.NaN}
  char red_type = 0;                  // ld.red .u32 ('u'), .s32 ('s'), .f32 ('f')
  unsigned scale_vec = 0, block = 0;  // .scale_vec::NX; .block16 / .block32
};

// Reads `mods` but the operation `what` into `m`; an error for a modifier tcgen05 does not take.
std::optional<Tcgen05DecodeError> read_modifiers(std::span<const Mod> mods, Mod what, Tc05Modifiers& m) {
  for (Mod mo : mods) {
    if (mo == what) continue;
    if (mo == Mod::cta_group_1 || mo == Mod::cta_group_2) m.cta_group = mo == Mod::cta_group_1 ? 1 : 2;
    else if (mo == Mod::sync || mo == Mod::aligned || mo == Mod::b32 || mo == Mod::b64) continue;
    else if (mo == Mod::shared_cta) m.shared_cta = true;
    else if (mo == Mod::shared_cluster) m.cluster = true;
    else if (mo == Mod::_16x64b) m.shape = k16x64b;
    else if (mo == Mod::_16x128b) m.shape = k16x128b;
    else if (mo == Mod::_16x256b) m.shape = k16x256b;
    else if (mo == Mod::_32x32b) m.shape = k32x32b;
    else if (mo == Mod::_16x32bx2) m.shape = k16x32bx2;
    else if (spec::repetition(mo) && what != Mod::cp) m.num = spec::repetition(mo);
    else if (mo == Mod::pack_16b || mo == Mod::unpack_16b) m.pack = true;
    else if (mo == Mod::kind_f16) m.kind = kF16;
    else if (mo == Mod::kind_tf32) m.kind = kTF32;
    else if (mo == Mod::kind_f8f6f4) m.kind = kF8F6F4;
    else if (mo == Mod::kind_i8) m.kind = kI8;
    else if (mo == Mod::kind_mxf8f6f4) m.kind = kMXF8F6F4;
    else if (mo == Mod::kind_mxf4) m.kind = kMXF4;
    else if (mo == Mod::kind_mxf4nvf4) m.kind = kMXF4NVF4;
    else if (mo == Mod::block_scale) m.block_scale = true;
    else if (mo == Mod::scale_vec_1X || mo == Mod::scale_vec_2X || mo == Mod::scale_vec_4X) m.scale_vec = mo == Mod::scale_vec_1X ? 1 : mo == Mod::scale_vec_2X ? 2 : 4;
    else if (mo == Mod::block16 || mo == Mod::block32) m.block = mo == Mod::block16 ? 16 : 32;
    else if (mo == Mod::sp) m.sparse = true;
    else if (mo == Mod::ws) m.ws = true;
    else if (collector_buffer(mo)) m.collector = mo;  // operand reuse hints: no effect on the result
    else if (mo == Mod::mbarrier_arrive_one) m.arrive_one = true;
    else if (mo == Mod::multicast_cluster) m.multicast = true;
    else if (mo == Mod::_128x256b) m.cp_shape = k128x256b;
    else if (mo == Mod::_4x256b) m.cp_shape = k4x256b;
    else if (mo == Mod::_128x128b) m.cp_shape = k128x128b;
    else if (mo == Mod::_64x128b || mo == Mod::_32x128b) m.cp_rows = mo == Mod::_64x128b ? 64 : 32;
    else if (mo == Mod::warpx2_02_13 || mo == Mod::warpx2_01_23 || mo == Mod::warpx4) m.cp_multicast = mo;
    else if (mo == Mod::b8x16) m.dst_fmt = true;
    else if (mo == Mod::b6x16_p32 || mo == Mod::b4x16_p64) m.src_bits = mo == Mod::b6x16_p32 ? 6 : 4;
    else if (mo == Mod::down) m.down = true;
    else if (mo == Mod::red) m.red = true;
    else if (mo == Mod::min || mo == Mod::max) m.red_max = mo == Mod::max, m.red_op = true;
    else if (mo == Mod::abs) m.red_abs = true;
    else if (mo == Mod::NaN) m.red_nan = true;
    else if (mo == Mod::u32 || mo == Mod::s32 || mo == Mod::f32) m.red_type = mo == Mod::u32 ? 'u' : mo == Mod::s32 ? 's' : 'f';
    else return Tcgen05DecodeError{true, fmt::format("the modifier {} of tcgen05{}", mo, what)};  // unsupported
  }
  return std::nullopt;
}

// tcgen05.ld / tcgen05.st{.red}: the shape, .num and registers, [taddr], immHalfSplitoff, redval.
std::optional<Tcgen05DecodeError> decode_ld_st(DInst& d, Mod what, const Tc05Modifiers& m, std::span<const Opnd> ops,
                                               const Program& p) {
  auto bad = [](std::string text) { return Tcgen05DecodeError{false, std::move(text)}; };
  const bool ld = what == Mod::ld;
  if (m.shape < 0 || m.num == 0) return bad(fmt::format("tcgen05{} needs a shape (.16x64b, .16x128b, .16x256b, .32x32b, .16x32bx2) and .num (.x1 to .x128)", what));
  const bool split = m.shape == k16x32bx2;
  // tcgen05.ld.red.shape.num.redOp{.abs}{.NaN}.type r, redval, [taddr] {, immHalfSplitoff}: the
  // operands but redval decode as tcgen05.ld's
  std::vector<Opnd> o(ops.begin(), ops.end());
  if (m.red) {
    if (m.shape != k32x32b && !split) return bad("tcgen05.ld.red takes the shapes .32x32b and .16x32bx2");
    if (!m.red_op || !m.red_type) return bad("tcgen05.ld.red needs .min or .max and a type (.u32, .s32, .f32)");
    if ((m.red_abs || m.red_nan) && m.red_type != 'f') return bad("tcgen05.ld.red: .abs and .NaN are for .f32 only");
    if (m.num < 2) return bad("tcgen05.ld.red needs .num of at least .x2");
    if (m.pack) return bad("tcgen05.ld.red has no .pack::16b");
    if (ops.size() != (split ? 4u : 3u)) return bad(fmt::format("tcgen05.ld.red with {} operands; it takes {}", ops.size(), split ? 4 : 3));
    if (!is_reg(ops[1], p, 'b', 32)) return bad("redval of tcgen05.ld.red must be a 32-bit register");
    o.erase(o.begin() + 1);
  }
  if (o.size() != (split ? 3u : 2u)) return bad(fmt::format("tcgen05{} with {} operands; it takes {}", what, o.size(), split ? 3 : 2));
  // normalized: ops[0] the registers, ops[1] [taddr], ops[2] immHalfSplitoff, ops[3] redval
  const Opnd& regs = ld ? o[0] : o[split ? 2 : 1];
  const Opnd& taddr = ld ? o[1] : o[0];
  const unsigned want = m.num * kRegsPerRep[m.shape];
  if (want > 128) return bad(fmt::format("tcgen05{}: .x{} of this shape would be {} registers (at most 128)", what, m.num, want));
  if (regs.kind != Opnd::Vec || regs.count != want)
    return bad(fmt::format("tcgen05{} of this shape and .x{} takes {} registers in braces", what, m.num, want));
  for (uint32_t i = 0; i < regs.count; ++i) {
    const uint32_t slot = p.vec_slots[regs.slot + i];
    if (slot == kNoSlot || p.slot_types[slot].bits != 32) return bad(fmt::format("the registers of tcgen05{} must be 32-bit", what));
  }
  if (!is_tmem_addr(taddr, p)) return bad(fmt::format("the tensor memory address of tcgen05{} must be [register] or [register+offset] (32-bit)", what));
  d.sub = static_cast<uint8_t>(ld ? Tc05Op::Ld : Tc05Op::St);
  d.boolop = static_cast<uint8_t>(m.shape);
  d.mma_n = static_cast<uint16_t>(m.num);
  if (m.pack) d.flags |= kTc05Pack;
  d.nops = 3;
  d.ops[0] = regs;
  d.ops[1] = taddr;
  if (split) {
    const Opnd& off = ld ? o[2] : o[1];
    if (!is_imm(off)) return bad(fmt::format("immHalfSplitoff of tcgen05{}.16x32bx2 must be an immediate", what));
    d.ops[2] = off;
  } else {
    d.ops[2].kind = Opnd::Imm;
    d.ops[2].imm = 0;
  }
  if (m.red) {
    d.nops = 4;
    d.ops[3] = ops[1];
    d.flags |= kTc05Red | (m.red_max ? kTc05RedMax : 0) | (m.red_abs ? kTc05RedAbs : 0) | (m.red_nan ? kTc05RedNaN : 0);
    d.type = Ty{m.red_type, 32};
  }
  return std::nullopt;
}

}  // namespace

std::optional<Tcgen05DecodeError> tcgen05_decode(DInst& d, std::span<const Mod> mods, std::span<const Opnd> ops,
                                                 const Program& p) {
  auto bad = [](std::string what) { return Tcgen05DecodeError{false, std::move(what)}; };
  auto unsupported = [](std::string what) { return Tcgen05DecodeError{true, std::move(what)}; };
  // the operation: the first modifier that names one (the others may come in any order)
  static constexpr Mod kOperations[] = {Mod::alloc, Mod::dealloc, Mod::relinquish_alloc_permit, Mod::ld, Mod::st, Mod::wait_ld, Mod::wait_st,
                                                     Mod::mma, Mod::commit, Mod::cp, Mod::shift, Mod::fence_before_thread_sync, Mod::fence_after_thread_sync};
  const auto op_it = std::find_first_of(mods.begin(), mods.end(), std::begin(kOperations), std::end(kOperations));
  if (op_it == mods.end()) return unsupported("this tcgen05 instruction");
  const Mod what = *op_it;
  Tc05Modifiers m;
  if (auto e = read_modifiers(mods, what, m)) return e;
  if (m.sparse && what != Mod::mma) return bad(fmt::format(".sp is for tcgen05.mma, not tcgen05{}", what));
  if ((m.red_op || m.red_abs || m.red_nan || m.red_type) && !(m.red && what == Mod::ld))
    return bad(fmt::format("tcgen05{}: .min, .max, .abs, .NaN and the types .u32, .s32, .f32 are for tcgen05.ld.red", what));
  if (m.red && what != Mod::ld) return bad(fmt::format("tcgen05{}.red: .red is for tcgen05.ld", what));
  if ((m.dst_fmt || m.src_bits) && what != Mod::cp) return bad(fmt::format("tcgen05{}: .b8x16, .b6x16_p32 and .b4x16_p64 are for tcgen05.cp", what));
  d.op = Opc::Tcgen05;
  d.vec = static_cast<uint8_t>(m.cta_group);
  auto need_group = [&]() -> std::optional<Tcgen05DecodeError> {
    if (!m.cta_group) return bad(fmt::format("tcgen05{} needs .cta_group::1 or .cta_group::2", what));
    return std::nullopt;
  };
  auto count = [&](size_t n) -> std::optional<Tcgen05DecodeError> {
    if (ops.size() != n) return bad(fmt::format("tcgen05{} with {} operands; it takes {}", what, ops.size(), n));
    return std::nullopt;
  };
  auto copy_ops = [&]() {
    d.nops = static_cast<uint8_t>(ops.size());
    for (size_t i = 0; i < ops.size() && i < 6; ++i) d.ops[i] = ops[i];
  };
  if (what == Mod::wait_ld) {  // tcgen05.ld completed when issued; this only ends the check on its registers (exec.cpp)
    d.sub = static_cast<uint8_t>(Tc05Op::WaitLd);
    return std::nullopt;
  }
  if (what == Mod::wait_st || what == Mod::fence_before_thread_sync || what == Mod::fence_after_thread_sync) {
    d.op = Opc::Nop;  // every tcgen05 operation completed when issued
    return std::nullopt;
  }
  if (what == Mod::alloc || what == Mod::dealloc) {
    if (auto e = need_group()) return e;
    if (auto e = count(2)) return e;
    d.sub = static_cast<uint8_t>(what == Mod::alloc ? Tc05Op::Alloc : Tc05Op::Dealloc);
    if (what == Mod::alloc && ops[0].kind != Opnd::Addr) return bad("the destination of tcgen05.alloc must be a shared memory address [dst]");
    if (what == Mod::dealloc && !(is_reg(ops[0], p, 'b', 32) || is_imm(ops[0]))) return bad("taddr of tcgen05.dealloc must be a 32-bit register or an immediate");
    if (!(is_reg(ops[1], p, 'b', 32) || is_imm(ops[1]))) return bad(fmt::format("nCols of tcgen05{} must be a 32-bit register or an immediate", what));
    d.space = m.shared_cta ? Space::Shared : Space::Generic;
    copy_ops();
    return std::nullopt;
  }
  if (what == Mod::relinquish_alloc_permit) {
    if (auto e = need_group()) return e;
    if (auto e = count(0)) return e;
    d.sub = static_cast<uint8_t>(Tc05Op::Relinquish);
    return std::nullopt;
  }
  if (what == Mod::ld || what == Mod::st) return decode_ld_st(d, what, m, ops, p);
  if (what == Mod::mma) {
    if (auto e = need_group()) return e;
    if (m.kind < 0) return bad("tcgen05.mma needs a .kind (::f16, ::tf32, ::f8f6f4, ::i8, ::mxf8f6f4, ::mxf4, ::mxf4nvf4)");
    if (m.ws && (m.kind >= kMXF8F6F4 || m.block_scale || m.scale_vec || m.block)) return bad("tcgen05.mma.ws has no block scaling (.kind::f16, ::tf32, ::f8f6f4, ::i8)");
    if (!m.ws && m.collector && collector_buffer(*m.collector) != 'a')
      return bad(fmt::format("{}: tcgen05.mma takes .collector::a::fill, ::use, ::lastuse or ::discard (.collector::bN is for tcgen05.mma.ws)", *m.collector));
    auto decode_mma = [&](std::span<const Opnd> o) {
      if (m.ws) return decode_ws(d, m.kind, m.cta_group, m.collector, o, p);
      if (m.kind >= kMXF8F6F4 || m.block_scale || m.scale_vec || m.block) return decode_block_scaled(d, m.kind, m.block_scale, m.scale_vec, m.block, o, p);
      return decode_dense(d, m.kind, m.cta_group, o, p);
    };
    if (!m.sparse) return decode_mma(ops);
    // [sp-meta-tmem] stands after b-desc: the rest decodes as the dense form's; the address is
    // kept in d-tmem's unused slot2 and count (sparse_meta_address)
    if (ops.size() < 5 || !is_tmem_addr(ops[3], p) || ops[3].imm > 0xFFFFFFFFu)
      return bad("tcgen05.mma.sp takes [sp-meta-tmem], a tensor memory address [register], after b-desc");
    std::vector<Opnd> rest(ops.begin(), ops.end());
    rest.erase(rest.begin() + 3);
    if (auto e = decode_mma(rest)) {
      e->what = "tcgen05.mma.sp (its operands without [sp-meta-tmem]): " + e->what;
      return e;
    }
    d.flags |= kTc05Sparse;
    d.ops[0].slot2 = ops[3].slot;
    d.ops[0].count = static_cast<uint32_t>(ops[3].imm);
    return std::nullopt;
  }
  if (what == Mod::commit) {
    if (auto e = need_group()) return e;
    if (!m.arrive_one) return bad("tcgen05.commit needs .mbarrier::arrive::one");
    if (auto e = count(m.multicast ? 2 : 1)) return e;
    if (ops[0].kind != Opnd::Addr) return bad("the mbarrier of tcgen05.commit must be an address [mbar]");
    if (m.multicast && !(is_reg(ops[1], p, 'b', 16) || is_imm(ops[1]))) return bad("ctaMask of tcgen05.commit must be a 16-bit register or an immediate");
    d.sub = static_cast<uint8_t>(Tc05Op::Commit);
    d.space = m.cluster ? Space::SharedCluster : Space::Generic;
    if (m.multicast) d.flags |= kMulticast;
    copy_ops();
    return std::nullopt;
  }
  if (what == Mod::cp) {
    if (auto e = need_group()) return e;
    if (m.cp_rows || m.cp_multicast) {
      if (m.cp_shape >= 0 || !m.cp_rows || !m.cp_multicast || (m.cp_rows == 32) != (m.cp_multicast == Mod::warpx4))
        return bad("tcgen05.cp: .64x128b needs .warpx2::02_13 or .warpx2::01_23, .32x128b needs .warpx4, and the other shapes take none");
      m.cp_shape = m.cp_rows == 32 ? k32x128b_x4 : m.cp_multicast == Mod::warpx2_02_13 ? k64x128b_02_13 : k64x128b_01_23;
    }
    if (m.cp_shape < 0) return bad("tcgen05.cp needs a shape (.128x256b, .4x256b, .128x128b, .64x128b, .32x128b)");
    if (m.dst_fmt != (m.src_bits != 0)) return bad("tcgen05.cp decompresses with both .b8x16 and a source format (.b6x16_p32 or .b4x16_p64), or neither");
    if (auto e = count(2)) return e;
    if (!is_tmem_addr(ops[0], p)) return bad("taddr of tcgen05.cp must be a tensor memory address [register]");
    if (!(is_reg(ops[1], p, 'b', 64) || is_imm(ops[1]))) return bad("s-desc of tcgen05.cp must be a 64-bit register or an immediate");
    d.sub = static_cast<uint8_t>(Tc05Op::Cp);
    d.boolop = static_cast<uint8_t>(m.cp_shape);
    d.mma_k = static_cast<uint16_t>(m.src_bits);  // 0: no decompression
    copy_ops();
    return std::nullopt;
  }
  if (what == Mod::shift) {
    if (auto e = need_group()) return e;
    if (!m.down) return bad("tcgen05.shift needs .down");
    if (auto e = count(1)) return e;
    if (!is_tmem_addr(ops[0], p)) return bad("taddr of tcgen05.shift must be a tensor memory address [register]");
    d.sub = static_cast<uint8_t>(Tc05Op::Shift);
    copy_ops();
    return std::nullopt;
  }
  return unsupported(fmt::format("tcgen05{}", what));
}

}  // namespace ptx::emu
