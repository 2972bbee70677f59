// tcgen05, the 5th-generation tensor core instructions of sm_100a (PTX ISA 9.7.16).
//
// Tensor memory is per CTA: 128 lanes x 512 columns of 32-bit cells, allocated by columns
// (tcgen05.alloc writes lane << 16 | column, lane 0, to shared memory). A warp reaches only
// its quarter of the lanes with tcgen05.ld/st: warp w, lanes 32 (w % 4) to 32 (w % 4) + 31.
//
// tcgen05.mma runs to completion when a thread issues it (it is issued by one thread), and
// so do tcgen05.cp and tcgen05.shift; tcgen05.commit then arrives on its mbarrier at once
// (exec.cpp), and tcgen05.ld completes at issue, so tcgen05.wait and tcgen05.fence have
// nothing to order here; exec.cpp still reports a tcgen05.ld destination register used before
// the warp's tcgen05.wait::ld, which on the GPU would read (or race with) the load in flight.
//
// D = A * B (+ D): A is M x K (shared memory through a descriptor, or tensor memory), B is
// K x N (shared memory), D is M x N in tensor memory. K is 32 bytes of elements (16 f16/bf16,
// 8 tf32, 32 of the 8-bit kinds, whose 6- and 4-bit types sit one per byte). The instruction
// descriptor (9.7.16.4.2) gives the types, shape, negation and major-ness; the shared memory
// descriptors (9.7.16.4.1) are decoded by smem_matrix.cpp. tcgen05.mma.sp's A is its non-zero
// half, expanded to twice the K with the metadata in tensor memory (tcgen05_sparse.cpp), and
// its B has twice the K.
#include "tcgen05.hpp"
#include "vocab_util.hpp"

#include <algorithm>
#include <bit>
#include <cmath>
#include <tuple>

#include <fmt/format.h>

#include "bounds.hpp"
#include "float_formats.hpp"
#include "smem_matrix.hpp"
#include "tcgen05_scale.hpp"
#include "tcgen05_sparse.hpp"

namespace ptx::emu {

using spec::Mod;
using spec::Opcode;

// ---- tensor memory -------------------------------------------------------------------------

void TensorMemory::reset() {
  allocations_.clear();
  relinquished = false;
  if (!cells_.empty()) std::fill(cells_.begin(), cells_.end(), 0u);
}

std::optional<uint32_t> TensorMemory::alloc(uint32_t columns) {
  for (uint32_t c = 0; c + columns <= kColumns; c += columns)
    if (!std::any_of(allocations_.begin(), allocations_.end(),
                     [&](const Allocation& a) { return a.column < c + columns && c < a.column + a.columns; })) {
      allocations_.push_back({c, columns});
      return c;
    }
  return std::nullopt;
}

std::string TensorMemory::dealloc(uint32_t column, uint32_t columns) {
  for (auto it = allocations_.begin(); it != allocations_.end(); ++it)
    if (it->column == column) {
      if (it->columns != columns)
        return fmt::format("tcgen05.dealloc of {} columns at column {}: the allocation there has {} columns", columns, column, it->columns);
      allocations_.erase(it);
      return "";
    }
  return fmt::format("tcgen05.dealloc of {} columns at column {}: no allocation starts there (allocated: {})", columns, column, describe());
}

bool TensorMemory::allocated(uint32_t column, uint32_t columns) const {
  if (column >= kColumns || columns > kColumns - column) return false;
  for (uint32_t c = column; c < column + columns; ++c)
    if (!std::any_of(allocations_.begin(), allocations_.end(), [&](const Allocation& a) { return c >= a.column && c < a.column + a.columns; }))
      return false;
  return true;
}

std::string TensorMemory::describe() const {
  if (allocations_.empty()) return "none";
  std::string s;
  for (const Allocation& a : allocations_) s += fmt::format("{}columns {}-{}", s.empty() ? "" : ", ", a.column, a.column + a.columns - 1);
  return s;
}

uint32_t& TensorMemory::cell(uint32_t lane, uint32_t column) {
  if (cells_.empty()) cells_.assign(size_t{kLanes} * kColumns, 0u);
  return cells_[size_t{lane} * kColumns + column];
}

// ---- decoding --------------------------------------------------------------------------------

namespace {

// tcgen05.ld/st shapes (DInst::boolop)
enum Shape : uint8_t { k16x64b, k16x128b, k16x256b, k32x32b, k16x32bx2 };
constexpr unsigned kRegsPerRep[] = {1, 2, 4, 1, 1};
// tcgen05.mma kinds (DInst::boolop); from kMXF8F6F4 on block-scaled (.block_scale)
enum Kind : uint8_t { kF16, kTF32, kF8F6F4, kI8, kMXF8F6F4, kMXF4, kMXF4NVF4 };
// tcgen05.cp shapes (DInst::boolop)
enum CpShape : uint8_t { k128x256b, k4x256b, k128x128b, k64x128b_02_13, k64x128b_01_23, k32x128b_x4 };

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

const char* kKindNames[] = {"f16", "tf32", "f8f6f4", "i8", "mxf8f6f4", "mxf4", "mxf4nvf4"};

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
  for (Mod mo : mods) {
    if (mo == what) continue;
    if (mo == Mod::cta_group_1 || mo == Mod::cta_group_2) cta_group = mo == Mod::cta_group_1 ? 1 : 2;
    else if (mo == Mod::sync || mo == Mod::aligned || mo == Mod::b32 || mo == Mod::b64) continue;
    else if (mo == Mod::shared_cta) shared_cta = true;
    else if (mo == Mod::shared_cluster) cluster = true;
    else if (mo == Mod::_16x64b) shape = k16x64b;
    else if (mo == Mod::_16x128b) shape = k16x128b;
    else if (mo == Mod::_16x256b) shape = k16x256b;
    else if (mo == Mod::_32x32b) shape = k32x32b;
    else if (mo == Mod::_16x32bx2) shape = k16x32bx2;
    else if (spec::repetition(mo) && what != Mod::cp) num = spec::repetition(mo);
    else if (mo == Mod::pack_16b || mo == Mod::unpack_16b) pack = true;
    else if (mo == Mod::kind_f16) kind = kF16;
    else if (mo == Mod::kind_tf32) kind = kTF32;
    else if (mo == Mod::kind_f8f6f4) kind = kF8F6F4;
    else if (mo == Mod::kind_i8) kind = kI8;
    else if (mo == Mod::kind_mxf8f6f4) kind = kMXF8F6F4;
    else if (mo == Mod::kind_mxf4) kind = kMXF4;
    else if (mo == Mod::kind_mxf4nvf4) kind = kMXF4NVF4;
    else if (mo == Mod::block_scale) block_scale = true;
    else if (mo == Mod::scale_vec_1X || mo == Mod::scale_vec_2X || mo == Mod::scale_vec_4X) scale_vec = mo == Mod::scale_vec_1X ? 1 : mo == Mod::scale_vec_2X ? 2 : 4;
    else if (mo == Mod::block16 || mo == Mod::block32) block = mo == Mod::block16 ? 16 : 32;
    else if (mo == Mod::sp) sparse = true;
    else if (mo == Mod::ws) ws = true;
    else if (collector_buffer(mo)) collector = mo;  // operand reuse hints: no effect on the result
    else if (mo == Mod::mbarrier_arrive_one) arrive_one = true;
    else if (mo == Mod::multicast_cluster) multicast = true;
    else if (mo == Mod::_128x256b) cp_shape = k128x256b;
    else if (mo == Mod::_4x256b) cp_shape = k4x256b;
    else if (mo == Mod::_128x128b) cp_shape = k128x128b;
    else if (mo == Mod::_64x128b || mo == Mod::_32x128b) cp_rows = mo == Mod::_64x128b ? 64 : 32;
    else if (mo == Mod::warpx2_02_13 || mo == Mod::warpx2_01_23 || mo == Mod::warpx4) cp_multicast = mo;
    else if (mo == Mod::b8x16) dst_fmt = true;
    else if (mo == Mod::b6x16_p32 || mo == Mod::b4x16_p64) src_bits = mo == Mod::b6x16_p32 ? 6 : 4;
    else if (mo == Mod::down) down = true;
    else if (mo == Mod::red) red = true;
    else if (mo == Mod::min || mo == Mod::max) red_max = mo == Mod::max, red_op = true;
    else if (mo == Mod::abs) red_abs = true;
    else if (mo == Mod::NaN) red_nan = true;
    else if (mo == Mod::u32 || mo == Mod::s32 || mo == Mod::f32) red_type = mo == Mod::u32 ? 'u' : mo == Mod::s32 ? 's' : 'f';
    else return unsupported(fmt::format("the modifier {} of tcgen05{}", mo, what));
  }
  if (sparse && what != Mod::mma) return bad(fmt::format(".sp is for tcgen05.mma, not tcgen05{}", what));
  if ((red_op || red_abs || red_nan || red_type) && !(red && what == Mod::ld))
    return bad(fmt::format("tcgen05{}: .min, .max, .abs, .NaN and the types .u32, .s32, .f32 are for tcgen05.ld.red", what));
  if (red && what != Mod::ld) return bad(fmt::format("tcgen05{}.red: .red is for tcgen05.ld", what));
  if ((dst_fmt || src_bits) && what != Mod::cp) return bad(fmt::format("tcgen05{}: .b8x16, .b6x16_p32 and .b4x16_p64 are for tcgen05.cp", what));
  d.op = Opc::Tcgen05;
  d.vec = static_cast<uint8_t>(cta_group);
  auto need_group = [&]() -> std::optional<Tcgen05DecodeError> {
    if (!cta_group) return bad(fmt::format("tcgen05{} needs .cta_group::1 or .cta_group::2", what));
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
    d.space = shared_cta ? Space::Shared : Space::Generic;
    copy_ops();
    return std::nullopt;
  }
  if (what == Mod::relinquish_alloc_permit) {
    if (auto e = need_group()) return e;
    if (auto e = count(0)) return e;
    d.sub = static_cast<uint8_t>(Tc05Op::Relinquish);
    return std::nullopt;
  }
  if (what == Mod::ld || what == Mod::st) {
    const bool ld = what == Mod::ld;
    if (shape < 0 || num == 0) return bad(fmt::format("tcgen05{} needs a shape (.16x64b, .16x128b, .16x256b, .32x32b, .16x32bx2) and .num (.x1 to .x128)", what));
    const bool split = shape == k16x32bx2;
    // tcgen05.ld.red.shape.num.redOp{.abs}{.NaN}.type r, redval, [taddr] {, immHalfSplitoff}: the
    // operands but redval decode as tcgen05.ld's
    std::vector<Opnd> o(ops.begin(), ops.end());
    if (red) {
      if (shape != k32x32b && !split) return bad("tcgen05.ld.red takes the shapes .32x32b and .16x32bx2");
      if (!red_op || !red_type) return bad("tcgen05.ld.red needs .min or .max and a type (.u32, .s32, .f32)");
      if ((red_abs || red_nan) && red_type != 'f') return bad("tcgen05.ld.red: .abs and .NaN are for .f32 only");
      if (num < 2) return bad("tcgen05.ld.red needs .num of at least .x2");
      if (pack) return bad("tcgen05.ld.red has no .pack::16b");
      if (ops.size() != (split ? 4u : 3u)) return bad(fmt::format("tcgen05.ld.red with {} operands; it takes {}", ops.size(), split ? 4 : 3));
      if (!is_reg(ops[1], p, 'b', 32)) return bad("redval of tcgen05.ld.red must be a 32-bit register");
      o.erase(o.begin() + 1);
    }
    if (o.size() != (split ? 3u : 2u)) return bad(fmt::format("tcgen05{} with {} operands; it takes {}", what, o.size(), split ? 3 : 2));
    // normalized: ops[0] the registers, ops[1] [taddr], ops[2] immHalfSplitoff, ops[3] redval
    const Opnd& regs = ld ? o[0] : o[split ? 2 : 1];
    const Opnd& taddr = ld ? o[1] : o[0];
    const unsigned want = num * kRegsPerRep[shape];
    if (want > 128) return bad(fmt::format("tcgen05{}: .x{} of this shape would be {} registers (at most 128)", what, num, want));
    if (regs.kind != Opnd::Vec || regs.count != want)
      return bad(fmt::format("tcgen05{} of this shape and .x{} takes {} registers in braces", what, num, want));
    for (uint32_t i = 0; i < regs.count; ++i) {
      const uint32_t slot = p.vec_slots[regs.slot + i];
      if (slot == kNoSlot || p.slot_types[slot].bits != 32) return bad(fmt::format("the registers of tcgen05{} must be 32-bit", what));
    }
    if (!is_tmem_addr(taddr, p)) return bad(fmt::format("the tensor memory address of tcgen05{} must be [register] or [register+offset] (32-bit)", what));
    d.sub = static_cast<uint8_t>(ld ? Tc05Op::Ld : Tc05Op::St);
    d.boolop = static_cast<uint8_t>(shape);
    d.mma_n = static_cast<uint16_t>(num);
    if (pack) d.flags |= kTc05Pack;
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
    if (red) {
      d.nops = 4;
      d.ops[3] = ops[1];
      d.flags |= kTc05Red | (red_max ? kTc05RedMax : 0) | (red_abs ? kTc05RedAbs : 0) | (red_nan ? kTc05RedNaN : 0);
      d.type = Ty{red_type, 32};
    }
    return std::nullopt;
  }
  if (what == Mod::mma) {
    if (auto e = need_group()) return e;
    if (kind < 0) return bad("tcgen05.mma needs a .kind (::f16, ::tf32, ::f8f6f4, ::i8, ::mxf8f6f4, ::mxf4, ::mxf4nvf4)");
    if (ws && (kind >= kMXF8F6F4 || block_scale || scale_vec || block)) return bad("tcgen05.mma.ws has no block scaling (.kind::f16, ::tf32, ::f8f6f4, ::i8)");
    if (!ws && collector && collector_buffer(*collector) != 'a')
      return bad(fmt::format("{}: tcgen05.mma takes .collector::a::fill, ::use, ::lastuse or ::discard (.collector::bN is for tcgen05.mma.ws)", *collector));
    auto decode_mma = [&](std::span<const Opnd> o) {
      if (ws) return decode_ws(d, kind, cta_group, collector, o, p);
      if (kind >= kMXF8F6F4 || block_scale || scale_vec || block) return decode_block_scaled(d, kind, block_scale, scale_vec, block, o, p);
      return decode_dense(d, kind, cta_group, o, p);
    };
    if (!sparse) return decode_mma(ops);
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
    if (!arrive_one) return bad("tcgen05.commit needs .mbarrier::arrive::one");
    if (auto e = count(multicast ? 2 : 1)) return e;
    if (ops[0].kind != Opnd::Addr) return bad("the mbarrier of tcgen05.commit must be an address [mbar]");
    if (multicast && !(is_reg(ops[1], p, 'b', 16) || is_imm(ops[1]))) return bad("ctaMask of tcgen05.commit must be a 16-bit register or an immediate");
    d.sub = static_cast<uint8_t>(Tc05Op::Commit);
    d.space = cluster ? Space::SharedCluster : Space::Generic;
    if (multicast) d.flags |= kMulticast;
    copy_ops();
    return std::nullopt;
  }
  if (what == Mod::cp) {
    if (auto e = need_group()) return e;
    if (cp_rows || cp_multicast) {
      if (cp_shape >= 0 || !cp_rows || !cp_multicast || (cp_rows == 32) != (cp_multicast == Mod::warpx4))
        return bad("tcgen05.cp: .64x128b needs .warpx2::02_13 or .warpx2::01_23, .32x128b needs .warpx4, and the other shapes take none");
      cp_shape = cp_rows == 32 ? k32x128b_x4 : cp_multicast == Mod::warpx2_02_13 ? k64x128b_02_13 : k64x128b_01_23;
    }
    if (cp_shape < 0) return bad("tcgen05.cp needs a shape (.128x256b, .4x256b, .128x128b, .64x128b, .32x128b)");
    if (dst_fmt != (src_bits != 0)) return bad("tcgen05.cp decompresses with both .b8x16 and a source format (.b6x16_p32 or .b4x16_p64), or neither");
    if (auto e = count(2)) return e;
    if (!is_tmem_addr(ops[0], p)) return bad("taddr of tcgen05.cp must be a tensor memory address [register]");
    if (!(is_reg(ops[1], p, 'b', 64) || is_imm(ops[1]))) return bad("s-desc of tcgen05.cp must be a 64-bit register or an immediate");
    d.sub = static_cast<uint8_t>(Tc05Op::Cp);
    d.boolop = static_cast<uint8_t>(cp_shape);
    d.mma_k = static_cast<uint16_t>(src_bits);  // 0: no decompression
    copy_ops();
    return std::nullopt;
  }
  if (what == Mod::shift) {
    if (auto e = need_group()) return e;
    if (!down) return bad("tcgen05.shift needs .down");
    if (auto e = count(1)) return e;
    if (!is_tmem_addr(ops[0], p)) return bad("taddr of tcgen05.shift must be a tensor memory address [register]");
    d.sub = static_cast<uint8_t>(Tc05Op::Shift);
    copy_ops();
    return std::nullopt;
  }
  return unsupported(fmt::format("tcgen05{}", what));
}

// ---- tcgen05.ld / tcgen05.st ---------------------------------------------------------------

namespace {

uint32_t addr_of(Tcgen05Warp& w, const Opnd& o, int lane) {
  return static_cast<uint32_t>((o.slot != kNoSlot ? w.reg(o.slot, lane) : 0) + o.imm);
}

// An operand all issuing lanes give alike: its value in lane `first`, checked against the others.
uint64_t uniform(Tcgen05Warp& w, const Opnd& o, uint32_t exec, const char* what, const char* inst) {
  const int first = std::countr_zero(exec);
  const uint64_t v = o.kind == Opnd::Addr ? addr_of(w, o, first) : w.value(o, first);
  for (uint32_t m = exec & (exec - 1); m; m &= m - 1) {
    const int l = std::countr_zero(m);
    const uint64_t x = o.kind == Opnd::Addr ? addr_of(w, o, l) : w.value(o, l);
    if (x != v) w.fail(l, fmt::format("{}: {} differs between lanes {} and {} of the warp ({:#x} and {:#x})", inst, what, first, l, v, x));
  }
  return v;
}

// tcgen05.ld.red: the minimum or maximum of a thread's loaded columns, as .u32, .s32 or .f32
// (.abs: of their magnitudes; NaNs are skipped unless all are NaN, and with .NaN any NaN gives
// the canonical NaN; -0.0 is below +0.0). The loaded registers keep the values as loaded.
uint32_t load_reduction(const DInst& in, const std::vector<uint32_t>& loaded) {
  const bool max = in.flags & kTc05RedMax;
  if (in.type.k != 'f') {
    auto key = [&](uint32_t v) { return in.type.k == 's' ? static_cast<int64_t>(static_cast<int32_t>(v)) : static_cast<int64_t>(v); };
    uint32_t best = loaded[0];
    for (uint32_t v : loaded)
      if (max ? key(v) > key(best) : key(v) < key(best)) best = v;
    return best;
  }
  std::optional<uint32_t> best;
  bool nan = false;
  for (uint32_t v : loaded) {
    if (in.flags & kTc05RedAbs) v &= 0x7FFFFFFFu;
    const float f = std::bit_cast<float>(v);
    if (std::isnan(f)) {
      nan = true;
      continue;
    }
    // order of floats with -0.0 below +0.0: compare the sign-magnitude bits as integers
    auto order = [](uint32_t x) { return x >> 31 ? -static_cast<int64_t>(x & 0x7FFFFFFFu) - 1 : static_cast<int64_t>(x); };
    if (!best || (max ? order(v) > order(*best) : order(v) < order(*best))) best = v;
  }
  if ((nan && (in.flags & kTc05RedNaN)) || !best) return 0x7FFFFFFFu;
  return *best;
}

// The CTAs a .cta_group::N instruction acts on: this one, or the pair (ranks 2i, 2i + 1) it is in.
std::pair<uint32_t, uint32_t> cta_group_ranks(Tcgen05Warp& w, const DInst& in, int lane, const char* inst) {
  if (in.vec != 2) return {w.rank(), 1};
  const uint32_t first = w.rank() & ~1u;
  if (first + 1 >= w.cluster_size())
    w.fail(lane, fmt::format("{}.cta_group::2 needs a pair of CTAs in the cluster (ranks {} and {}); the cluster has {}", inst, first, first + 1,
                             w.cluster_size()));
  return {first, 2};
}

// The tensor memory lane and column of register r of thread l, relative to taddr (9.7.16.2.3).
std::pair<unsigned, unsigned> fragment_position(unsigned shape, unsigned l, unsigned r, unsigned split) {
  switch (shape) {
    case k16x64b: return {l / 4 + 8 * (l % 2), l / 2 % 2 + 2 * r};
    case k16x128b: return {l / 4 + 8 * (r % 2), l % 4 + 4 * (r / 2)};
    case k16x256b: return {l / 4 + 8 * (r / 2 % 2), r % 2 + 2 * (l % 4) + 8 * (r / 4)};
    case k16x32bx2: return {l % 16, r + (l / 16) * split};
    default: return {l, r};  // .32x32b
  }
}

// A check that a warp's access stays in its lane quarter and in allocated columns.
void check_access(Tcgen05Warp& w, TensorMemory& tm, int lane, const char* inst, uint32_t tl, uint32_t col, uint32_t cols) {
  const uint32_t q = w.warp() % 4;
  if (tl < 32 * q || tl >= 32 * q + 32)
    w.fail(lane, fmt::format("{}: warp {} may access tensor memory lanes {} to {} (its warp id % 4 is {}); this reaches lane {}", inst, w.warp(),
                             32 * q, 32 * q + 31, q, tl));
  if (!fits(col, cols, TensorMemory::kColumns) || !tm.allocated(col, cols))
    w.fail(lane, fmt::format("{}: tensor memory columns {} to {} are not allocated (allocated: {})", inst, col, col + cols - 1, tm.describe()));
}

}  // namespace

void tcgen05_ld_st(const Program& p, const DInst& in, Tcgen05Warp& w, uint32_t exec) {
  const bool ld = static_cast<Tc05Op>(in.sub) == Tc05Op::Ld;
  const char* inst = ld ? "tcgen05.ld" : "tcgen05.st";
  if (exec == 0) return;
  if (exec != 0xFFFFFFFFu) w.fail(std::countr_zero(~exec), fmt::format("{} (.sync.aligned) needs all 32 lanes of the warp", inst));
  const uint32_t taddr = static_cast<uint32_t>(uniform(w, in.ops[1], exec, "the tensor memory address", inst));
  const uint32_t lane0 = taddr >> 16, col0 = taddr & 0xFFFF;
  const unsigned shape = in.boolop, split = static_cast<unsigned>(in.ops[2].imm);
  const bool pack = in.flags & kTc05Pack;
  TensorMemory& tm = w.tmem(w.rank());
  const Opnd& regs = in.ops[0];
  for (unsigned l = 0; l < 32; ++l)
    for (unsigned r = 0; r < regs.count; ++r) {
      const auto [dl, dc] = fragment_position(shape, l, r, split);
      const uint32_t tl = lane0 + dl;
      // .pack::16b/.unpack::16b: the register's two halves are the low halves of two adjacent columns
      const uint32_t col = col0 + (pack ? 2 * dc : dc), cols = pack ? 2 : 1;
      check_access(w, tm, static_cast<int>(l), inst, tl, col, cols);
      uint64_t& reg = w.reg(p.vec_slots[regs.slot + r], static_cast<int>(l));
      if (ld) {
        reg = pack ? (tm.cell(tl, col) & 0xFFFFu) | (tm.cell(tl, col + 1) & 0xFFFFu) << 16 : tm.cell(tl, col);
      } else if (pack) {
        tm.cell(tl, col) = static_cast<uint32_t>(reg & 0xFFFF);
        tm.cell(tl, col + 1) = static_cast<uint32_t>(reg >> 16 & 0xFFFF);
      } else {
        tm.cell(tl, col) = static_cast<uint32_t>(reg);
      }
    }
  if (in.flags & kTc05Red)
    for (unsigned l = 0; l < 32; ++l) {
      std::vector<uint32_t> loaded(regs.count);
      for (unsigned r = 0; r < regs.count; ++r) loaded[r] = static_cast<uint32_t>(w.reg(p.vec_slots[regs.slot + r], static_cast<int>(l)));
      w.reg(in.ops[3].slot, static_cast<int>(l)) = load_reduction(in, loaded);
    }
}

// ---- tcgen05.mma ---------------------------------------------------------------------------

namespace {

struct ElementType {
  const char* name;
  unsigned bits;  // in memory (the 6- and 4-bit types: one per byte, but two e2m1 per byte for mxf4/mxf4nvf4)
  char k;         // 'f' float (fmt), 's', 'u'
  Format fmt;
};

// The A/B type of an instruction descriptor field for a kind; nullptr when the kind has no such type.
const ElementType* element_type(unsigned kind, unsigned code) {
  static const ElementType kF16T{"f16", 16, 'f', Format::F16}, kBF16T{"bf16", 16, 'f', Format::BF16}, kTF32T{"tf32", 32, 'f', Format::TF32},
      kE4M3T{"e4m3", 8, 'f', Format::E4M3}, kE5M2T{"e5m2", 8, 'f', Format::E5M2}, kE2M3T{"e2m3", 8, 'f', Format::E2M3},
      kE3M2T{"e3m2", 8, 'f', Format::E3M2}, kE2M1T{"e2m1", 8, 'f', Format::E2M1}, kU8T{"u8", 8, 'u', Format::F16}, kS8T{"s8", 8, 's', Format::F16},
      kE2M1PackedT{"e2m1", 4, 'f', Format::E2M1};
  switch (kind) {
    case kF16: return code == 0 ? &kF16T : code == 1 ? &kBF16T : nullptr;
    case kTF32: return code == 2 ? &kTF32T : nullptr;
    case kMXF4:
    case kMXF4NVF4: return code == 1 ? &kE2M1PackedT : nullptr;  // Table 47: E2M1 = 1
    case kMXF8F6F4:
    case kF8F6F4: {
      static const ElementType* const kCodes[8] = {&kE4M3T, &kE5M2T, nullptr, &kE2M3T, &kE3M2T, &kE2M1T, nullptr, nullptr};
      return kCodes[code & 7];
    }
    default: return code == 0 ? &kU8T : code == 1 ? &kS8T : nullptr;
  }
}

double element_value(const ElementType& t, uint32_t bits) {
  if (t.k == 's') return static_cast<double>(static_cast<int8_t>(static_cast<uint8_t>(bits)));
  if (t.k == 'u') return static_cast<double>(bits & 0xFF);
  if (t.fmt == Format::E2M3 || t.fmt == Format::E3M2) bits &= 0x3F;  // the low bits of the byte
  if (t.fmt == Format::E2M1) bits &= 0xF;
  return decode(t.fmt, bits);
}

// The dense shapes (9.7.16.10.1), as the DSL's instruction descriptor checks them: cta_group::1
// M = 64 with N 8..256 step 8, M = 128 with N 16..256 step 16; cta_group::2 M = 128 or 256 with N
// 16..256 step 16. .kind::i8 takes N = 8, 16, 24 and 32..256 step 16 (those of them M allows;
// cta_group::2 from 32). The block-scaled kinds (Table 39): cta_group::1 M = 128 with N multiples
// of 8, cta_group::2 M = 128 or 256 with N multiples of 16 (sparse: 256 only). The sparse forms
// take the dense shapes otherwise.
bool valid_shape(unsigned kind, unsigned group, unsigned m, unsigned n, bool scaled, bool sparse, bool a_tmem) {
  if (n > 256) return false;
  if (scaled && sparse && group == 2 && m != 256) return false;  // Table 39: sparse block-scaled cta_group::2 is M = 256 only
  if (scaled) return group == 1 ? m == 128 && n >= 8 && n % 8 == 0 : (m == 128 || m == 256) && n >= 16 && n % 16 == 0;
  if (group == 1 ? m != 64 && m != 128 : m != 128 && m != 256) return false;
  // cta_group::1: N 8..256 step 8 (kind::i8: 8, 16, 24, then step 16), A in tensor memory with
  // M = 128 step 16; cta_group::2: N 16..256 step 16 (kind::i8: 32..256 step 32)
  const unsigned step = group == 2 ? (kind == kI8 ? 32 : 16) : a_tmem && m == 128 ? 16 : 8;
  if (n < step || n % step != 0) return false;
  return group == 2 || kind != kI8 || n <= 24 || n % 16 == 0;
}

// The instruction descriptor's fields (Table 45 without block scaling; Tables 46, 47 with it).
struct Idesc {
  bool saturate = false, neg_a = false, neg_b = false, trans_a = false, trans_b = false, ue4m3 = false;
  unsigned dtype = 1, atype = 0, btype = 0, M = 0, N = 0, sfa_id = 0, sfb_id = 0;
};

// Rows of an operand in shared memory as element bits (out[row * K + k]); two e2m1 per byte
// (the 4-bit kinds) in the K-major layout of bytes, the low nibble first.
void load_operand(const std::function<const uint8_t*(uint64_t)>& shared, const SmemMatrix& d, bool mn_major, const ElementType& t, unsigned rows,
                  unsigned K, std::vector<uint32_t>& out) {
  if (t.bits != 4) return load_smem_operand(shared, d, mn_major, t.bits, 0, rows, K, out);
  std::vector<uint32_t> bytes(size_t{rows} * K / 2);
  load_smem_operand(shared, d, false, 8, 0, rows, K / 2, bytes);
  for (size_t i = 0; i < size_t{rows} * K; ++i) out[i] = bytes[i / 2] >> (4 * (i % 2)) & 0xF;
}

uint32_t tmem_address(Tcgen05Warp& w, const Opnd& o, int lane) {
  return static_cast<uint32_t>((o.slot != kNoSlot ? w.reg(o.slot, lane) : 0) + o.imm);
}

// scale-B-tmem of a block-scaled mma (decode_block_scaled keeps it outside DInst::ops).
Opnd scale_b_address(const DInst& in) {
  Opnd o;
  o.kind = Opnd::Addr;
  o.slot = in.callee;
  o.imm = uint64_t{in.mma_m} | uint64_t{in.mma_n} << 16;
  return o;
}

// [sp-meta-tmem] of tcgen05.mma.sp (tcgen05_decode keeps it in d-tmem's slot2 and count).
Opnd sparse_meta_address(const DInst& in) {
  Opnd o;
  o.kind = Opnd::Addr;
  o.slot = in.ops[0].slot2;
  o.imm = in.ops[0].count;
  return o;
}

// The zero-column mask descriptor of .ws (9.7.16.4.3): the emulator runs the ones that zero no
// column of B and shift none (Non-Zero Mask, bit 39, clear; Column Shift, bits 56-61, 0).
template <class Fail>
void check_zero_column_mask(uint64_t zcm, Fail& fail) {
  if (zcm >> 36 & 7 || zcm >> 62)
    fail(fmt::format("the zero-column mask descriptor {:#018x} sets a reserved bit (36-38 or 62-63)", zcm));
  if (zcm >> 39 & 1 || zcm >> 56 & 0x3F)
    fail(fmt::format("the zero-column mask descriptor {:#018x} sets the Non-Zero Mask (bit 39) or a Column Shift (bits 56-61): the emulator does not "
                     "support zeroing or shifting columns of B yet",
                     zcm));
}

// Table 45 (.kind::tf32, f16, f8f6f4, i8).
template <class Fail>
Idesc plain_idesc(uint32_t idesc, bool ws, Fail& fail) {
  Idesc f;
  f.saturate = idesc >> 3 & 1;
  f.dtype = idesc >> 4 & 3, f.atype = idesc >> 7 & 7, f.btype = idesc >> 10 & 7;
  f.neg_a = idesc >> 13 & 1, f.neg_b = idesc >> 14 & 1, f.trans_a = idesc >> 15 & 1, f.trans_b = idesc >> 16 & 1;
  f.N = (idesc >> 17 & 0x3F) << 3, f.M = (idesc >> 24 & 0x1F) << 4;
  if (idesc >> 6 & 1 || idesc >> 23 & 1 || idesc >> 29 & 1) fail(fmt::format("the instruction descriptor {:#010x} sets a reserved bit (6, 23 or 29)", idesc));
  // the maximum shift (bits 30-31) bounds the zero-column mask's column shift of .ws
  if (idesc >> 30 && !ws) fail(fmt::format("the instruction descriptor {:#010x} sets the maximum shift (bits 30-31), which is only for tcgen05.mma.ws", idesc));
  return f;
}

// Tables 46 (.kind::mxf8f6f4) and 47 (.kind::mxf4, mxf4nvf4): D is f32; bits 4-5 the scale
// factor B ID, 23 the scale type (1 ue8m0, 0 ue4m3), 27-28 M >> 7, 29-30 the scale factor A ID.
// An ID picks bytes of a scale factor cell: 1X any byte, 2X byte 0 or 2, 4X byte 0 only.
template <class Fail>
Idesc scaled_idesc(uint32_t idesc, unsigned kind, unsigned vec, Fail& fail) {
  Idesc f;
  const bool fp4 = kind != kMXF8F6F4;
  const uint32_t reserved = 0x3u | 1u << 3 | 1u << 6 | 0x7u << 24 | (fp4 ? 1u << 12 : 1u << 31);
  if (idesc & reserved)
    fail(fmt::format("the instruction descriptor {:#010x} sets a reserved bit ({} of Table {})", idesc, fp4 ? "0-1, 3, 6, 12 or 24-26" : "0-1, 3, 6, 24-26 or 31",
                     fp4 ? 47 : 46));
  if (fp4 && idesc >> 31)
    fail(fmt::format("the instruction descriptor {:#010x} sets bit 31 (K = 96), which only sm_103a supports; the emulator runs K = 64", idesc));
  f.sfb_id = idesc >> 4 & 3, f.atype = idesc >> 7 & 7, f.btype = idesc >> 10 & (fp4 ? 3 : 7);
  f.neg_a = idesc >> 13 & 1, f.neg_b = idesc >> 14 & 1, f.trans_a = idesc >> 15 & 1, f.trans_b = idesc >> 16 & 1;
  f.N = (idesc >> 17 & 0x3F) << 3, f.ue4m3 = !(idesc >> 23 & 1), f.M = (idesc >> 27 & 3) << 7, f.sfa_id = idesc >> 29 & 3;
  if (fp4 && (f.trans_a || f.trans_b)) fail(fmt::format("the instruction descriptor {:#010x} sets a transpose bit (15, 16): .kind::mxf4 and ::mxf4nvf4 do not transpose", idesc));
  if (f.ue4m3 && (kind != kMXF4NVF4 || vec != 4))
    fail(fmt::format("the instruction descriptor {:#010x} has scale type ue4m3 (bit 23 = 0): only .kind::mxf4nvf4 with .scale_vec::4X/.block16 takes "
                     "ue4m3 scale factors; the others take ue8m0 (bit 23 = 1)",
                     idesc));
  for (const auto& [id, name, bits] : {std::tuple{f.sfa_id, "A", "29-30"}, std::tuple{f.sfb_id, "B", "4-5"}})
    if (id % vec != 0 || id + vec > 4)
      fail(fmt::format("the instruction descriptor {:#010x} has scale factor {} ID {} (bits {}): with .scale_vec::{}X it must be {}", idesc, name, id, bits, vec,
                       vec == 1 ? "0-3" : vec == 2 ? "0 or 2" : "0"));
  return f;
}

}  // namespace

MmaWritten tcgen05_mma(const Program& p, const DInst& in, Tcgen05Warp& w, int lane) {
  const unsigned kind = in.boolop, group = in.vec;
  const uint32_t idesc = static_cast<uint32_t>(w.value(in.ops[3], lane));
  const bool sparse = in.flags & kTc05Sparse;
  auto fail = [&](const std::string& what) { w.fail(lane, fmt::format("tcgen05.mma{}.kind::{}: {}", sparse ? ".sp" : "", kKindNames[kind], what)); };
  // the instruction descriptor
  if ((idesc >> 2 & 1) != sparse)
    fail(sparse ? fmt::format("the instruction descriptor {:#010x} does not set bit 2 (sparse A), which tcgen05.mma.sp needs", idesc)
                : fmt::format("the instruction descriptor {:#010x} sets bit 2 (sparse A), which only tcgen05.mma.sp may", idesc));
  const bool scaled = kind >= kMXF8F6F4;
  const unsigned vec = scaled ? in.mma_k : 0;  // scale factors per row
  const bool ws = in.flags & kTc05Ws;
  const Idesc fields = scaled ? scaled_idesc(idesc, kind, vec, fail) : plain_idesc(idesc, ws, fail);
  const bool saturate = fields.saturate, neg_a = fields.neg_a, neg_b = fields.neg_b, trans_a = fields.trans_a, trans_b = fields.trans_b;
  const unsigned dtype = fields.dtype, atype = fields.atype, btype = fields.btype, M = fields.M, N = fields.N;
  const ElementType* ta = element_type(kind, atype);
  const ElementType* tb = element_type(kind, btype);
  if (!ta || !tb) fail(fmt::format("the instruction descriptor {:#010x} has A type {} and B type {} (bits 7-9, 10-12): not types of this kind", idesc, atype, btype));
  const bool d_ok = kind == kI8 ? dtype == 2 : kind == kF16 || kind == kF8F6F4 ? dtype <= 1 : dtype == 1;
  if (!d_ok) fail(fmt::format("the instruction descriptor {:#010x} has D type {} (bits 4-5): not a D type of this kind (0 f16, 1 f32, 2 s32)", idesc, dtype));
  if (kind == kF16 && atype != btype) fail(fmt::format("A is {} and B is {}: .kind::f16 needs both f16 or both bf16", ta->name, tb->name));
  if (kind == kF16 && atype == 1 && dtype != 1) fail("bf16 inputs need an f32 D");
  if (saturate && kind != kI8) fail("the saturate bit (3) of the instruction descriptor is only for .kind::i8");
  if (kind == kI8 && (neg_a || neg_b)) fail("the negate bits (13, 14) of the instruction descriptor are not for .kind::i8");
  if (ws) {  // Table 39: M 32, 64, 128 and N 64, 128, 256 (sparse: 64, 128)
    if (!((M == 32 || M == 64 || M == 128) && (N == 64 || N == 128 || (N == 256 && !sparse))))
      fail(fmt::format("M = {} and N = {} (instruction descriptor {:#010x}) is not a shape of tcgen05.mma.ws{} (M 32, 64, 128; N 64, 128{})", M, N, idesc,
                       sparse ? ".sp" : "", sparse ? "" : ", 256"));
    if (M != 128)
      fail(fmt::format("tcgen05.mma.ws with M = {}: the emulator does not support its tensor memory data path layout ({}) yet; M = 128 (layout D) runs",
                       M, M == 64 ? "layout E" : "layout G"));
    if (in.flags & kTc05ZeroMask) check_zero_column_mask(w.value(in.ops[5], lane), fail);
  } else if (!valid_shape(kind, group, M, N, scaled, sparse, in.flags & kTc05ATmem)) {
    fail(fmt::format("M = {} and N = {} (instruction descriptor {:#010x}) is not a shape of tcgen05.mma.cta_group::{}", M, N, idesc, group));
  }
  // the sparsity selector (bits 0-1; reserved, so checked above, with block scaling): 9.7.16.10.8.4
  const unsigned selector = idesc & 3;
  if (sparse && !scaled && (kind == kF8F6F4 || kind == kI8) && selector != 0)
    fail(fmt::format("the instruction descriptor {:#010x} has sparsity selector {} (bits 0-1): it must be 0 for .kind::i8 and ::f8f6f4", idesc, selector));
  if (sparse && (kind == kF16 || kind == kTF32) && selector > 1)
    fail(fmt::format("the instruction descriptor {:#010x} has sparsity selector {} (bits 0-1): the metadata of .kind::f16 and ::tf32 is one 32-bit column of "
                     "the 64-bit granule at [sp-meta-tmem], selector 0 or 1 (this emulator's reading of the manual's figures)",
                     idesc, selector));
  const bool a_tmem = in.flags & kTc05ATmem;
  if (a_tmem && trans_a) fail("A in tensor memory cannot be transposed (bit 15 of the instruction descriptor)");
  // Table 52: only 8-, 16- and 32-bit elements are read MN-major (the 6- and 4-bit types are K-major only)
  const auto narrow = [](const ElementType* t) { return t->k == 'f' && (t->fmt == Format::E2M3 || t->fmt == Format::E3M2 || t->fmt == Format::E2M1); };
  if ((trans_a && narrow(ta)) || (trans_b && narrow(tb)))
    fail(fmt::format("the instruction descriptor {:#010x} transposes (bits 15, 16) {}: 6- and 4-bit elements are K-major only", idesc,
                     trans_a && narrow(ta) ? fmt::format("A of {}", ta->name) : fmt::format("B of {}", tb->name)));

  // The CTAs: cta_group::1 this one; cta_group::2 the pair (ranks 2i, 2i + 1), each holding
  // M / 2 rows of A and D and N / 2 rows of B.
  const std::pair<uint32_t, uint32_t> group_ranks = cta_group_ranks(w, in, lane, "tcgen05.mma");
  const uint32_t first_rank = group_ranks.first, ctas = group_ranks.second;
  // K: 32 bytes of A's elements as stored; sparse A holds half of twice as many (9.7.16.10.8)
  const unsigned Ka = 256 / ta->bits, K = sparse ? 2 * Ka : Ka, Mc = M / ctas, Nc = N / ctas;
  // an MN-major operand is read in 16-byte chunks of consecutive rows
  if ((trans_a && !a_tmem && Mc * ta->bits % 128 != 0) || (trans_b && Nc * tb->bits % 128 != 0))
    fail(fmt::format("an MN-major operand of {} rows of {} must be whole 16-byte chunks", trans_b ? Nc : Mc, trans_b ? tb->name : ta->name));
  const uint32_t dt = static_cast<uint32_t>((in.ops[0].slot != kNoSlot ? w.reg(in.ops[0].slot, lane) : 0) + in.ops[0].imm);
  const uint32_t at = static_cast<uint32_t>((in.ops[1].slot != kNoSlot ? w.reg(in.ops[1].slot, lane) : 0) + in.ops[1].imm);

  // Where row m (of this CTA's Mc) and column n of D (or A's 32-bit column) sit: lane and column
  // offsets. M = 128 (cta_group::1) and 256 (::2): lane m; M = 64: lanes 0-15 of each warp's
  // quarter (layout F; sparse M = 128 of cta_group::2, layout C, likewise in each CTA, this
  // emulator's reading); dense M = 128 of cta_group::2 (layout B): 64 rows, the second half of
  // the columns in lanes 64-127.
  auto place = [&](unsigned m, unsigned col, unsigned cols) -> std::pair<uint32_t, uint32_t> {
    if (Mc == 64 && (group == 1 || sparse)) return {32 * (m / 16) + m % 16, col};
    if (Mc == 64) return {m + 64 * (col / (cols / 2)), col % (cols / 2)};
    return {m, col};
  };
  const bool d16 = dtype == 0;
  // D: one element per 32-bit column; an f16 D element in the column's low half (the
  // unpacked layout that tcgen05.ld .pack::16b pairs up)
  const unsigned d_cols = N;
  // A of tensor memory: its Ka elements packed in 8 32-bit columns per row
  const unsigned a_cols = Ka * ta->bits / 32;

  // Gather A (Mc rows per CTA; sparse: expanded to K with its metadata) and B (Nc rows per CTA) as values.
  std::vector<double> a(static_cast<size_t>(M) * K), b(static_cast<size_t>(N) * K), packed;
  std::vector<uint32_t> bits(static_cast<size_t>(std::max(M, N)) * K);
  const double sa = neg_a ? -1.0 : 1.0, sb = neg_b ? -1.0 : 1.0;
  std::vector<double> scale_a(scaled ? size_t{M} * vec : 0), scale_b(scaled ? size_t{ctas} * N * vec : 0), scales;
  std::string error;
  SmemMatrix bd, ad;
  if (!blackwell_descriptor(w.value(in.ops[2], lane), bd, error)) fail("B: " + error);
  if (!a_tmem && !blackwell_descriptor(w.value(in.ops[1], lane), ad, error)) fail("A: " + error);
  uint32_t meta = 0;
  if (sparse) {
    // B's 64 bytes of K a row K-major: in an atom of 64 or 128 bytes, or at LBO steps without swizzle
    if (!trans_b && bd.width == 2)
      fail("B K-major with the 32-byte swizzle: its 64-byte rows of K span two swizzle atoms, and the manual gives no stride between them (not "
           "supported by the emulator)");
    meta = tmem_address(w, sparse_meta_address(in), lane);
    // 9.7.16.10.8.5: the half-datapath layouts (F, C) use the same lane alignment for A, D and the metadata
    if (meta >> 16 != dt >> 16 || (a_tmem && at >> 16 != dt >> 16))
      fail(fmt::format("[sp-meta-tmem] {:#x} has lane {}, d-tmem {:#x} lane {}{}: A, D and the sparsity metadata must use the same lane alignment", meta,
                       meta >> 16, dt, dt >> 16, a_tmem ? fmt::format(", [a-tmem] {:#x} lane {}", at, at >> 16) : ""));
    if (meta & 1)
      fail(fmt::format("[sp-meta-tmem] {:#x} is at the odd column {}: the metadata is read in 64-bit granules of two columns (this emulator's reading; "
                       "the GPU reports a misaligned address)",
                       meta, meta & 0xFFFF));
  }
  for (uint32_t c = 0; c < ctas; ++c) {
    const uint32_t rank = first_rank + c;
    const auto shared = [&w, rank, lane](uint64_t offset) { return w.shared16(rank, offset, lane); };
    if (a_tmem) {
      TensorMemory& tm = w.tmem(rank);
      const uint32_t l0 = at >> 16, c0 = at & 0xFFFF;
      for (unsigned m = 0; m < Mc; ++m) {
        for (unsigned j = 0; j < a_cols; ++j) {
          const auto [pl, pc] = place(m, j, a_cols);
          const uint32_t tl = l0 + pl, tc = c0 + pc;
          if (tl >= TensorMemory::kLanes || tc >= TensorMemory::kColumns || !tm.allocated(tc, 1))
            w.fail(lane, fmt::format("tcgen05.mma: A at tensor memory lane {}, column {}: not allocated (allocated: {})", tl, tc, tm.describe()));
          const uint32_t word = tm.cell(tl, tc);
          const unsigned per = 32 / ta->bits;
          for (unsigned e = 0; e < per; ++e)
            bits[m * Ka + j * per + e] = ta->bits == 32 ? word : word >> (e * ta->bits) & ((1u << ta->bits) - 1);
        }
      }
    } else {
      load_operand(shared, ad, trans_a, *ta, Mc, Ka, bits);
    }
    packed.resize(size_t{Mc} * Ka);
    for (size_t i = 0; i < packed.size(); ++i) packed[i] = sa * element_value(*ta, bits[i]);
    if (sparse) {
      const SparseA sp{"tcgen05.mma.sp", ta->bits, static_cast<int>(K), static_cast<int>(selector), false, static_cast<int>(c * Mc), static_cast<int>(Mc), true};
      packed = tcgen05_expand_sparse(w, lane, rank, meta, sp, packed, [&](unsigned m) { return place(m, 0, 1).first; });
    }
    std::copy(packed.begin(), packed.end(), a.begin() + static_cast<std::ptrdiff_t>(c * Mc * K));
    load_operand(shared, bd, trans_b, *tb, Nc, K, bits);
    for (size_t i = 0; i < size_t{Nc} * K; ++i) b[c * Nc * K + i] = sb * element_value(*tb, bits[i]);
    if (scaled) {  // each CTA's scale factors: of its rows of A, and of all N columns of B
      const Opnd sfb = scale_b_address(in);
      read_scale_factors(w, lane, rank, tmem_address(w, in.ops[5], lane), Mc, vec, fields.sfa_id, fields.ue4m3, "scale-A", scales);
      std::copy(scales.begin(), scales.end(), scale_a.begin() + static_cast<std::ptrdiff_t>(c * Mc * vec));
      read_scale_factors(w, lane, rank, tmem_address(w, sfb, lane), N, vec, fields.sfb_id, fields.ue4m3, "scale-B", scales);
      std::copy(scales.begin(), scales.end(), scale_b.begin() + static_cast<std::ptrdiff_t>(c * N * vec));
    }
  }

  const bool accumulate = w.value(in.ops[4], lane) != 0;
  const double scale_d = (in.flags & kTc05ScaleD) ? std::ldexp(1.0, -static_cast<int>(in.mma_k)) : 1.0;
  const uint32_t l0 = dt >> 16, c0 = dt & 0xFFFF;
  for (uint32_t c = 0; c < ctas; ++c) {
    TensorMemory& tm = w.tmem(first_rank + c);
    for (unsigned m = 0; m < Mc; ++m) {
      for (unsigned n = 0; n < N; ++n) {
        const auto [pl, pc] = place(m, n, d_cols);
        const uint32_t tl = l0 + pl, tc = c0 + pc;
        if (tl >= TensorMemory::kLanes || tc >= TensorMemory::kColumns || !tm.allocated(tc, 1))
          w.fail(lane, fmt::format("tcgen05.mma: D at tensor memory lane {}, column {}: not allocated (allocated: {})", tl, tc, tm.describe()));
        if (in.flags & kTc05DisableLanes) {
          const uint64_t mask = w.reg(p.vec_slots[in.ops[5].slot + c * 4 + tl / 32], lane);
          if (mask >> (tl % 32) & 1) continue;
        }
        double sum = 0;  // exact for the integer kinds; one rounding of a near-exact sum for floats
        const double* ar = &a[(c * Mc + m) * size_t{K}];
        const double* br = &b[n * size_t{K}];
        if (scaled) {  // K / vec consecutive elements share a scale factor
          const double* sar = &scale_a[(c * Mc + m) * size_t{vec}];
          const double* sbr = &scale_b[(c * N + n) * size_t{vec}];
          const unsigned block = K / vec;
          for (unsigned k = 0; k < K; ++k) sum += ar[k] * br[k] * sar[k / block] * sbr[k / block];
        } else {
          for (unsigned k = 0; k < K; ++k) sum += ar[k] * br[k];
        }
        uint32_t& cell = tm.cell(tl, tc);
        if (kind == kI8) {
          int64_t acc = static_cast<int64_t>(sum) + (accumulate ? static_cast<int32_t>(cell) : 0);
          if (saturate) acc = std::clamp<int64_t>(acc, INT32_MIN, INT32_MAX);
          cell = static_cast<uint32_t>(acc);
        } else if (!d16) {
          const double old = accumulate ? static_cast<double>(std::bit_cast<float>(cell)) * scale_d : 0.0;
          const float f = static_cast<float>(sum + old);
          cell = std::isnan(f) ? 0x7fffffffu : std::bit_cast<uint32_t>(f);
        } else {
          const double old = accumulate ? decode(Format::F16, cell & 0xFFFF) * scale_d : 0.0;
          cell = encode(Format::F16, sum + old);
        }
      }
    }
  }
  const uint32_t span = Mc == 64 && group == 2 && !sparse ? d_cols / 2 : d_cols;
  return {c0, span, first_rank, ctas};
}

uint32_t tcgen05_ld_st_columns(const DInst& in) {
  static constexpr uint32_t kColumnsPerRep[] = {2, 4, 8, 1, 1};
  const uint32_t cols = in.mma_n * kColumnsPerRep[in.boolop] * ((in.flags & kTc05Pack) ? 2 : 1);
  return in.boolop == k16x32bx2 ? cols + static_cast<uint32_t>(std::min<uint64_t>(in.ops[2].imm, TensorMemory::kColumns)) : cols;
}

// ---- tcgen05.cp, tcgen05.shift ---------------------------------------------------------------

// tcgen05.cp: rows of 16 or 32 bytes from shared memory (the descriptor's K-major layout, each
// row one or two 16-byte chunks) to consecutive tensor memory lanes from taddr, one 32-bit
// column per 4 bytes. .64x128b.warpx2::02_13 copies rows 0-31 to the lanes of warps 0 and 2 and
// rows 32-63 to those of warps 1 and 3 (::01_23: warps 0, 1 and 2, 3); .32x128b.warpx4 copies
// its 32 rows to the lanes of all four warps. With decompression (9.7.16.9.1) each 16-byte chunk
// holds 16 elements of 6 bits (12 bytes, then 4 of padding) or 4 bits (8 bytes, then 8), element
// i at bits 6i or 4i, and becomes 16 bytes, element i in the low bits of byte i (this emulator's
// reading of figures 194-198, the byte as tcgen05.mma reads 6- and 4-bit elements). .cta_group::2
// copies in each CTA of the pair, from its own shared memory at the descriptor's offsets (as
// tcgen05.mma.cta_group::2 reads A and B).
void tcgen05_cp(const DInst& in, Tcgen05Warp& w, int lane) {
  SmemMatrix d;
  std::string error;
  if (!blackwell_descriptor(w.value(in.ops[1], lane), d, error)) w.fail(lane, "tcgen05.cp: " + error);
  const uint32_t t = static_cast<uint32_t>((in.ops[0].slot != kNoSlot ? w.reg(in.ops[0].slot, lane) : 0) + in.ops[0].imm);
  const uint32_t l0 = t >> 16, c0 = t & 0xFFFF;
  const unsigned shape = in.boolop, src_bits = in.mma_k;
  const unsigned rows = shape == k128x256b || shape == k128x128b ? 128 : shape == k4x256b ? 4 : shape == k32x128b_x4 ? 32 : 64;
  const unsigned chunks = shape == k128x256b || shape == k4x256b ? 2 : 1;
  const std::pair<uint32_t, uint32_t> group_ranks = cta_group_ranks(w, in, lane, "tcgen05.cp");
  const uint32_t first_rank = group_ranks.first, ctas = group_ranks.second;
  for (uint32_t rank = first_rank; rank < first_rank + ctas; ++rank) {
    TensorMemory& tm = w.tmem(rank);
    if (!tm.allocated(c0, 4 * chunks) || c0 + 4 * chunks > TensorMemory::kColumns)
      w.fail(lane, fmt::format("tcgen05.cp: tensor memory columns {} to {} (CTA rank {}) are not allocated (allocated: {})", c0, c0 + 4 * chunks - 1, rank,
                               tm.describe()));
    for (unsigned r = 0; r < rows; ++r) {
      std::vector<uint32_t> dest_lanes;
      if (shape == k64x128b_02_13) dest_lanes = {r % 32 + 64 * 0 + 32 * (r / 32), r % 32 + 64 + 32 * (r / 32)};
      else if (shape == k64x128b_01_23) dest_lanes = {r % 32 + 64 * (r / 32), r % 32 + 64 * (r / 32) + 32};
      else if (shape == k32x128b_x4) dest_lanes = {r, r + 32, r + 64, r + 96};
      else dest_lanes = {r};
      for (unsigned c = 0; c < chunks; ++c) {
        const uint8_t* src = w.shared16(rank, chunk_address(d, false, r, c), lane);
        uint8_t bytes[16];
        for (unsigned i = 0; i < 16; ++i) {
          if (!src_bits) {
            bytes[i] = src[i];
            continue;
          }
          const unsigned bit = src_bits * i;  // little-endian bits of the packed elements
          const unsigned v = (src[bit / 8] | (bit / 8 + 1 < 16 ? src[bit / 8 + 1] << 8 : 0)) >> (bit % 8);
          bytes[i] = static_cast<uint8_t>(v & ((1u << src_bits) - 1));
        }
        for (uint32_t dl : dest_lanes) {
          const uint32_t tl = l0 + dl;
          if (tl >= TensorMemory::kLanes) w.fail(lane, fmt::format("tcgen05.cp: tensor memory lane {} is out of range (128 lanes)", tl));
          for (unsigned j = 0; j < 4; ++j) tm.cell(tl, c0 + 4 * c + j) = element_bits(bytes, j, 32);
        }
      }
    }
  }
}

// tcgen05.shift.down: the 31 lanes from taddr's, 256 bits (8 columns) each, move down one lane
// (.cta_group::2: in each CTA of the pair).
void tcgen05_shift(const DInst& in, Tcgen05Warp& w, int lane) {
  const uint32_t t = static_cast<uint32_t>((in.ops[0].slot != kNoSlot ? w.reg(in.ops[0].slot, lane) : 0) + in.ops[0].imm);
  const uint32_t l0 = t >> 16, c0 = t & 0xFFFF;
  if (l0 + 32 > TensorMemory::kLanes || l0 % 32 != 0)
    w.fail(lane, fmt::format("tcgen05.shift: the lane of taddr ({}) must be a multiple of 32 below 128", l0));
  const std::pair<uint32_t, uint32_t> group_ranks = cta_group_ranks(w, in, lane, "tcgen05.shift");
  const uint32_t first_rank = group_ranks.first, ctas = group_ranks.second;
  for (uint32_t rank = first_rank; rank < first_rank + ctas; ++rank) {
    TensorMemory& tm = w.tmem(rank);
    if (c0 + 8 > TensorMemory::kColumns || !tm.allocated(c0, 8))
      w.fail(lane, fmt::format("tcgen05.shift: tensor memory columns {} to {} (CTA rank {}) are not allocated (allocated: {})", c0, c0 + 7, rank,
                               tm.describe()));
    for (uint32_t i = 31; i-- > 0;)
      for (uint32_t c = 0; c < 8; ++c) tm.cell(l0 + i + 1, c0 + c) = tm.cell(l0 + i, c0 + c);
  }
}

}  // namespace ptx::emu
