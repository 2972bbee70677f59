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
#include "tcgen05_codes.hpp"
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
using namespace tcgen05_codes;

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

// One tcgen05.mma as one thread issues it: its instruction descriptor checked against the kind
// and form, then A and B (and the block scale factors) gathered as values from each CTA of the
// group, then D = A * B (+ D) written to tensor memory. The checks run in a fixed order: the
// first one that fails is the error reported.
class MmaRun {
 public:
  MmaRun(const Program& p, const DInst& in, Tcgen05Warp& w, int lane)
      : p_(p), in_(in), w_(w), lane_(lane), kind_(in.boolop), group_(in.vec), idesc_(static_cast<uint32_t>(w.value(in.ops[3], lane))),
        sparse_(in.flags & kTc05Sparse), scaled_(kind_ >= kMXF8F6F4), ws_(in.flags & kTc05Ws), a_tmem_(in.flags & kTc05ATmem),
        vec_(scaled_ ? in.mma_k : 0) {}

  MmaWritten run() {
    decode_descriptor();
    check_types();
    check_shape();
    check_sparsity_selector();
    check_major_ness();
    place_group();
    read_operand_descriptors();
    gather_operands();
    write_d();
    // dense M = 128 of cta_group::2 (layout B) writes half of the N columns in each lane
    const uint32_t span = Mc_ == 64 && group_ == 2 && !sparse_ ? f_.N / 2 : f_.N;
    return {dt_ & 0xFFFF, span, first_rank_, ctas_};
  }

 private:
  // (w_.fail does not return; GCC does not see that through the virtual call)
  void fail(const std::string& what) const {
    w_.fail(lane_, fmt::format("tcgen05.mma{}.kind::{}: {}", sparse_ ? ".sp" : "", kKindNames[kind_], what));
  }

  // The instruction descriptor's fields (Table 45; 46 and 47 with block scaling) and the A and
  // B types they name; its sparse bit (2) must match the form.
  void decode_descriptor() {
    if ((idesc_ >> 2 & 1) != sparse_)
      fail(sparse_ ? fmt::format("the instruction descriptor {:#010x} does not set bit 2 (sparse A), which tcgen05.mma.sp needs", idesc_)
                   : fmt::format("the instruction descriptor {:#010x} sets bit 2 (sparse A), which only tcgen05.mma.sp may", idesc_));
    const auto fail_with = [this](const std::string& what) { fail(what); };
    f_ = scaled_ ? scaled_idesc(idesc_, kind_, vec_, fail_with) : plain_idesc(idesc_, ws_, fail_with);
    ta_ = element_type(kind_, f_.atype);
    tb_ = element_type(kind_, f_.btype);
  }

  // The A, B and D types that the kind takes, and the descriptor bits that only some kinds use.
  void check_types() const {
    if (!ta_ || !tb_)
      fail(fmt::format("the instruction descriptor {:#010x} has A type {} and B type {} (bits 7-9, 10-12): not types of this kind", idesc_, f_.atype,
                       f_.btype));
    const unsigned dtype = f_.dtype;
    const bool d_ok = kind_ == kI8 ? dtype == 2 : kind_ == kF16 || kind_ == kF8F6F4 ? dtype <= 1 : dtype == 1;
    if (!d_ok) fail(fmt::format("the instruction descriptor {:#010x} has D type {} (bits 4-5): not a D type of this kind (0 f16, 1 f32, 2 s32)", idesc_, dtype));
    if (kind_ == kF16 && f_.atype != f_.btype) fail(fmt::format("A is {} and B is {}: .kind::f16 needs both f16 or both bf16", ta_->name, tb_->name));
    if (kind_ == kF16 && f_.atype == 1 && dtype != 1) fail("bf16 inputs need an f32 D");
    if (f_.saturate && kind_ != kI8) fail("the saturate bit (3) of the instruction descriptor is only for .kind::i8");
    if (kind_ == kI8 && (f_.neg_a || f_.neg_b)) fail("the negate bits (13, 14) of the instruction descriptor are not for .kind::i8");
  }

  // M and N: Table 39 for .ws (whose zero-column mask is checked too), valid_shape otherwise.
  void check_shape() const {
    const unsigned M = f_.M, N = f_.N;
    if (!ws_) {
      if (!valid_shape(kind_, group_, M, N, scaled_, sparse_, a_tmem_))
        fail(fmt::format("M = {} and N = {} (instruction descriptor {:#010x}) is not a shape of tcgen05.mma.cta_group::{}", M, N, idesc_, group_));
      return;
    }
    // Table 39: M 32, 64, 128 and N 64, 128, 256 (sparse: 64, 128)
    if (!((M == 32 || M == 64 || M == 128) && (N == 64 || N == 128 || (N == 256 && !sparse_))))
      fail(fmt::format("M = {} and N = {} (instruction descriptor {:#010x}) is not a shape of tcgen05.mma.ws{} (M 32, 64, 128; N 64, 128{})", M, N, idesc_,
                       sparse_ ? ".sp" : "", sparse_ ? "" : ", 256"));
    if (M != 128)
      fail(fmt::format("tcgen05.mma.ws with M = {}: the emulator does not support its tensor memory data path layout ({}) yet; M = 128 (layout D) runs",
                       M, M == 64 ? "layout E" : "layout G"));
    const auto fail_with = [this](const std::string& what) { fail(what); };
    if (in_.flags & kTc05ZeroMask) check_zero_column_mask(w_.value(in_.ops[5], lane_), fail_with);
  }

  // The sparsity selector: bits 0-1 (reserved, so checked with the descriptor, with block
  // scaling): 9.7.16.10.8.4
  unsigned selector() const { return idesc_ & 3; }
  void check_sparsity_selector() const {
    if (sparse_ && !scaled_ && (kind_ == kF8F6F4 || kind_ == kI8) && selector() != 0)
      fail(fmt::format("the instruction descriptor {:#010x} has sparsity selector {} (bits 0-1): it must be 0 for .kind::i8 and ::f8f6f4", idesc_, selector()));
    if (sparse_ && (kind_ == kF16 || kind_ == kTF32) && selector() > 1)
      fail(fmt::format("the instruction descriptor {:#010x} has sparsity selector {} (bits 0-1): the metadata of .kind::f16 and ::tf32 is one 32-bit column of "
                       "the 64-bit granule at [sp-meta-tmem], selector 0 or 1 (this emulator's reading of the manual's figures)",
                       idesc_, selector()));
  }

  // Which operands may be read MN-major (transposed, bits 15 and 16).
  void check_major_ness() const {
    if (a_tmem_ && f_.trans_a) fail("A in tensor memory cannot be transposed (bit 15 of the instruction descriptor)");
    // Table 52: only 8-, 16- and 32-bit elements are read MN-major (the 6- and 4-bit types are K-major only)
    const auto narrow = [](const ElementType* t) { return t->k == 'f' && (t->fmt == Format::E2M3 || t->fmt == Format::E3M2 || t->fmt == Format::E2M1); };
    if ((f_.trans_a && narrow(ta_)) || (f_.trans_b && narrow(tb_)))
      fail(fmt::format("the instruction descriptor {:#010x} transposes (bits 15, 16) {}: 6- and 4-bit elements are K-major only", idesc_,
                       f_.trans_a && narrow(ta_) ? fmt::format("A of {}", ta_->name) : fmt::format("B of {}", tb_->name)));
  }

  // The CTAs: cta_group::1 this one; cta_group::2 the pair (ranks 2i, 2i + 1), each holding
  // M / 2 rows of A and D and N / 2 rows of B. K: 32 bytes of A's elements as stored; sparse A
  // holds half of twice as many (9.7.16.10.8).
  void place_group() {
    const std::pair<uint32_t, uint32_t> group_ranks = cta_group_ranks(w_, in_, lane_, "tcgen05.mma");
    first_rank_ = group_ranks.first, ctas_ = group_ranks.second;
    Ka_ = 256 / ta_->bits, K_ = sparse_ ? 2 * Ka_ : Ka_, Mc_ = f_.M / ctas_, Nc_ = f_.N / ctas_;
    // an MN-major operand is read in 16-byte chunks of consecutive rows
    if ((f_.trans_a && !a_tmem_ && Mc_ * ta_->bits % 128 != 0) || (f_.trans_b && Nc_ * tb_->bits % 128 != 0))
      fail(fmt::format("an MN-major operand of {} rows of {} must be whole 16-byte chunks", f_.trans_b ? Nc_ : Mc_, f_.trans_b ? tb_->name : ta_->name));
    dt_ = tmem_address(w_, in_.ops[0], lane_);
    at_ = tmem_address(w_, in_.ops[1], lane_);
  }

  // Where row m (of this CTA's Mc) and column col of cols of D (or A's 32-bit column) sit: lane
  // and column offsets. M = 128 (cta_group::1) and 256 (::2): lane m; M = 64: lanes 0-15 of each
  // warp's quarter (layout F; sparse M = 128 of cta_group::2, layout C, likewise in each CTA,
  // this emulator's reading); dense M = 128 of cta_group::2 (layout B): 64 rows, the second half
  // of the columns in lanes 64-127.
  std::pair<uint32_t, uint32_t> place(unsigned m, unsigned col, unsigned cols) const {
    if (Mc_ == 64 && (group_ == 1 || sparse_)) return {32 * (m / 16) + m % 16, col};
    if (Mc_ == 64) return {m + 64 * (col / (cols / 2)), col % (cols / 2)};
    return {m, col};
  }

  // The shared memory descriptors of B and A (when A is not in tensor memory), and .sp's metadata address.
  void read_operand_descriptors() {
    std::string error;
    if (!blackwell_descriptor(w_.value(in_.ops[2], lane_), bd_, error)) fail("B: " + error);
    if (!a_tmem_ && !blackwell_descriptor(w_.value(in_.ops[1], lane_), ad_, error)) fail("A: " + error);
    if (sparse_) meta_ = sparse_metadata_address();
  }

  uint32_t sparse_metadata_address() const {
    // B's 64 bytes of K a row K-major: in an atom of 64 or 128 bytes, or at LBO steps without swizzle
    if (!f_.trans_b && bd_.width == 2)
      fail("B K-major with the 32-byte swizzle: its 64-byte rows of K span two swizzle atoms, and the manual gives no stride between them (not "
           "supported by the emulator)");
    const uint32_t meta = tmem_address(w_, sparse_meta_address(in_), lane_), dt = dt_, at = at_;
    // 9.7.16.10.8.5: the half-datapath layouts (F, C) use the same lane alignment for A, D and the metadata
    if (meta >> 16 != dt >> 16 || (a_tmem_ && at >> 16 != dt >> 16))
      fail(fmt::format("[sp-meta-tmem] {:#x} has lane {}, d-tmem {:#x} lane {}{}: A, D and the sparsity metadata must use the same lane alignment", meta,
                       meta >> 16, dt, dt >> 16, a_tmem_ ? fmt::format(", [a-tmem] {:#x} lane {}", at, at >> 16) : ""));
    if (meta & 1)
      fail(fmt::format("[sp-meta-tmem] {:#x} is at the odd column {}: the metadata is read in 64-bit granules of two columns (this emulator's reading; "
                       "the GPU reports a misaligned address)",
                       meta, meta & 0xFFFF));
    return meta;
  }

  // A (Mc rows per CTA; sparse: expanded to K with its metadata) and B (Nc rows per CTA) as
  // values, negated as the descriptor says, and the scale factors of block scaling.
  void gather_operands() {
    const unsigned M = f_.M, N = f_.N;
    a_.assign(size_t{M} * K_, 0.0);
    b_.assign(size_t{N} * K_, 0.0);
    scale_a_.assign(scaled_ ? size_t{M} * vec_ : 0, 0.0);
    scale_b_.assign(scaled_ ? size_t{ctas_} * N * vec_ : 0, 0.0);
    std::vector<uint32_t> bits(static_cast<size_t>(std::max(M, N)) * K_);
    for (uint32_t c = 0; c < ctas_; ++c) gather_cta(c, bits);
  }

  void gather_cta(uint32_t c, std::vector<uint32_t>& bits) {
    const uint32_t rank = first_rank_ + c;
    const auto shared = [this, rank](uint64_t offset) { return w_.shared16(rank, offset, lane_); };
    if (a_tmem_)
      load_a_from_tmem(rank, bits);
    else
      load_operand(shared, ad_, f_.trans_a, *ta_, Mc_, Ka_, bits);
    const double sa = f_.neg_a ? -1.0 : 1.0, sb = f_.neg_b ? -1.0 : 1.0;
    std::vector<double> packed(size_t{Mc_} * Ka_);
    for (size_t i = 0; i < packed.size(); ++i) packed[i] = sa * element_value(*ta_, bits[i]);
    if (sparse_) {
      const SparseA sp{"tcgen05.mma.sp", ta_->bits, static_cast<int>(K_), static_cast<int>(selector()), false, static_cast<int>(c * Mc_),
                       static_cast<int>(Mc_), true};
      packed = tcgen05_expand_sparse(w_, lane_, rank, meta_, sp, packed, [this](unsigned m) { return place(m, 0, 1).first; });
    }
    std::copy(packed.begin(), packed.end(), a_.begin() + static_cast<std::ptrdiff_t>(c * Mc_ * K_));
    load_operand(shared, bd_, f_.trans_b, *tb_, Nc_, K_, bits);
    for (size_t i = 0; i < size_t{Nc_} * K_; ++i) b_[c * Nc_ * K_ + i] = sb * element_value(*tb_, bits[i]);
    if (scaled_) {  // each CTA's scale factors: of its rows of A, and of all N columns of B
      std::vector<double> scales;
      const Opnd sfb = scale_b_address(in_);
      read_scale_factors(w_, lane_, rank, tmem_address(w_, in_.ops[5], lane_), Mc_, vec_, f_.sfa_id, f_.ue4m3, "scale-A", scales);
      std::copy(scales.begin(), scales.end(), scale_a_.begin() + static_cast<std::ptrdiff_t>(c * Mc_ * vec_));
      read_scale_factors(w_, lane_, rank, tmem_address(w_, sfb, lane_), f_.N, vec_, f_.sfb_id, f_.ue4m3, "scale-B", scales);
      std::copy(scales.begin(), scales.end(), scale_b_.begin() + static_cast<std::ptrdiff_t>(c * f_.N * vec_));
    }
  }

  // A of tensor memory: its Ka elements a row packed in 32-bit columns, placed as D's rows are.
  void load_a_from_tmem(uint32_t rank, std::vector<uint32_t>& bits) const {
    TensorMemory& tm = w_.tmem(rank);
    const unsigned a_cols = Ka_ * ta_->bits / 32, per = 32 / ta_->bits;
    const uint32_t l0 = at_ >> 16, c0 = at_ & 0xFFFF;
    for (unsigned m = 0; m < Mc_; ++m) {
      for (unsigned j = 0; j < a_cols; ++j) {
        const auto [pl, pc] = place(m, j, a_cols);
        const uint32_t tl = l0 + pl, tc = c0 + pc;
        if (tl >= TensorMemory::kLanes || tc >= TensorMemory::kColumns || !tm.allocated(tc, 1))
          w_.fail(lane_, fmt::format("tcgen05.mma: A at tensor memory lane {}, column {}: not allocated (allocated: {})", tl, tc, tm.describe()));
        const uint32_t word = tm.cell(tl, tc);
        for (unsigned e = 0; e < per; ++e) bits[m * Ka_ + j * per + e] = ta_->bits == 32 ? word : word >> (e * ta_->bits) & ((1u << ta_->bits) - 1);
      }
    }
  }

  // D = A * B (+ D): each CTA's Mc rows in its own tensor memory, one element per 32-bit column
  // (an f16 D element in the column's low half, the unpacked layout that tcgen05.ld .pack::16b
  // pairs up); the lanes that .disable_output_lane masks are left alone.
  void write_d() const {
    const bool accumulate = w_.value(in_.ops[4], lane_) != 0;
    const double scale_d = (in_.flags & kTc05ScaleD) ? std::ldexp(1.0, -static_cast<int>(in_.mma_k)) : 1.0;
    const uint32_t l0 = dt_ >> 16, c0 = dt_ & 0xFFFF;
    const unsigned N = f_.N;
    for (uint32_t c = 0; c < ctas_; ++c) {
      TensorMemory& tm = w_.tmem(first_rank_ + c);
      for (unsigned m = 0; m < Mc_; ++m) {
        for (unsigned n = 0; n < N; ++n) {
          const auto [pl, pc] = place(m, n, N);
          const uint32_t tl = l0 + pl, tc = c0 + pc;
          if (tl >= TensorMemory::kLanes || tc >= TensorMemory::kColumns || !tm.allocated(tc, 1))
            w_.fail(lane_, fmt::format("tcgen05.mma: D at tensor memory lane {}, column {}: not allocated (allocated: {})", tl, tc, tm.describe()));
          if (in_.flags & kTc05DisableLanes) {
            const uint64_t mask = w_.reg(p_.vec_slots[in_.ops[5].slot + c * 4 + tl / 32], lane_);
            if (mask >> (tl % 32) & 1) continue;
          }
          uint32_t& cell = tm.cell(tl, tc);
          cell = d_element(dot(c, m, n), cell, accumulate, scale_d);
        }
      }
    }
  }

  // Row m of CTA c's A times column n of B: exact for the integer kinds; for floats one
  // rounding (in d_element) of a near-exact sum.
  double dot(uint32_t c, unsigned m, unsigned n) const {
    double sum = 0;
    const double* ar = &a_[(c * Mc_ + m) * size_t{K_}];
    const double* br = &b_[n * size_t{K_}];
    if (scaled_) {  // K / vec consecutive elements share a scale factor
      const double* sar = &scale_a_[(c * Mc_ + m) * size_t{vec_}];
      const double* sbr = &scale_b_[(c * f_.N + n) * size_t{vec_}];
      const unsigned block = K_ / vec_;
      for (unsigned k = 0; k < K_; ++k) sum += ar[k] * br[k] * sar[k / block] * sbr[k / block];
    } else {
      for (unsigned k = 0; k < K_; ++k) sum += ar[k] * br[k];
    }
    return sum;
  }

  // The new D cell: s32 (saturated with bit 3), f32 or f16 (dtype 0), plus the old one scaled
  // by .scale_d when accumulating.
  uint32_t d_element(double sum, uint32_t cell, bool accumulate, double scale_d) const {
    if (kind_ == kI8) {
      int64_t acc = static_cast<int64_t>(sum) + (accumulate ? static_cast<int32_t>(cell) : 0);
      if (f_.saturate) acc = std::clamp<int64_t>(acc, INT32_MIN, INT32_MAX);
      return static_cast<uint32_t>(acc);
    }
    if (f_.dtype != 0) {
      const double old = accumulate ? static_cast<double>(std::bit_cast<float>(cell)) * scale_d : 0.0;
      const float f = static_cast<float>(sum + old);
      return std::isnan(f) ? 0x7fffffffu : std::bit_cast<uint32_t>(f);
    }
    const double old = accumulate ? decode(Format::F16, cell & 0xFFFF) * scale_d : 0.0;
    return encode(Format::F16, sum + old);
  }

  const Program& p_;
  const DInst& in_;
  Tcgen05Warp& w_;
  const int lane_;
  const unsigned kind_, group_;
  const uint32_t idesc_;
  const bool sparse_, scaled_, ws_, a_tmem_;
  const unsigned vec_;  // scale factors per row
  Idesc f_;
  const ElementType* ta_ = nullptr;
  const ElementType* tb_ = nullptr;
  uint32_t first_rank_ = 0, ctas_ = 1;
  unsigned Ka_ = 0, K_ = 0, Mc_ = 0, Nc_ = 0;
  uint32_t dt_ = 0, at_ = 0, meta_ = 0;  // d-tmem, a-tmem, [sp-meta-tmem]
  SmemMatrix bd_, ad_;
  std::vector<double> a_, b_, scale_a_, scale_b_;
};

}  // namespace

MmaWritten tcgen05_mma(const Program& p, const DInst& in, Tcgen05Warp& w, int lane) { return MmaRun(p, in, w, lane).run(); }

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
