// cp.async.bulk.tensor (async-copy.isa).
#include <algorithm>
#include <cstring>
#include <mutex>
#include "ptxpp/emu/tensor_map.hpp"

#include "bounds.hpp"
#include "runner.hpp"

namespace ptx::emu::engine {

// The tensor map of cp.async.bulk.tensor lane l, checked against the copy (its kind, rank,
// coordinates) and what the emulator supports.
TensorMapDesc Runner::copy_tensor_map(Warp& w, int l, const DInst& in) {
  const Opnd* o = in.ops;
  // the tensor map: a kernel parameter (by name, or its address from mov/cvta.param), or in global memory
  const uint64_t ta = value(w, o[1], l);
  const uint8_t* tm = nullptr;
  if ((o[1].kind == Opnd::Imm && o[1].symbol && o[1].space == Space::Param) || ta < params_.size()) {
    if (!fits(ta, kTensorMapBytes, params_.size())) fail(w, l, fmt::format("the tensor map at param+{}: out of bounds", ta));
    tm = params_.data() + ta;
  } else {
    tm = resolve(w, l, Space::Generic, ta, kTensorMapBytes, false);
  }
  if (opt_.check_memory && ta % 64 != 0) fail(w, l, fmt::format("the tensor map at {:#x} is not 64-byte aligned", ta));
  const auto desc = decode(tm);
  if (!desc) fail(w, l, "the tensor map is not one the CPU device encoded (ptx::make_tensor_map on the CPU device, or emu::encode)");
  const TensorMapDesc& d = *desc;
  const bool im2col = in.im2col == 1;
  const bool four_rows = in.im2col == 3;  // .tile::gather4 / .tile::scatter4
  if (four_rows && (d.rank != 2 || d.box[1] != 1 || d.element_strides[0] > 1))
    fail(w, l, fmt::format(".tile::{} needs a 2D tiled tensor map with box[1] = 1 and element stride 1 (rank {}, box[1] = {})",
                           in.sub == 0 ? "gather4" : "scatter4", d.rank, d.box[1]));
  if (im2col != (d.kind == TensorMapKind::Im2col))
    fail(w, l, im2col ? "an .im2col copy with a tiled tensor map (make it with TensorMapSpec::Mode::im2col)"
                      : "a .tile copy with an im2col tensor map");
  if (im2col && d.rank < 3) fail(w, l, fmt::format("an im2col tensor map of rank {} (3 to 5)", d.rank));
  if (d.rank != in.vec) fail(w, l, fmt::format("a {}d tensor copy with a tensor map of rank {}", in.vec, d.rank));
  if (o[2].count != (four_rows ? 5u : d.rank)) fail(w, l, fmt::format("{} coordinates for a tensor map of rank {}", o[2].count, d.rank));
  if (d.interleave != 0) fail(w, l, "interleaved tensor maps are not supported by the emulator");
  if (d.swizzle > 3) fail(w, l, fmt::format("swizzle mode {} is not supported by the emulator", d.swizzle));
  return d;
}

// cp.async.bulk.tensor in tile mode: loads (to this CTA's or, multicast, several CTAs'
// shared memory, then complete_tx on each one's mbarrier), stores and reductions (from
// this CTA's shared memory). The copy happens when issued. The box is dense in shared
// memory, innermost dimension first, its 16-byte chunks swizzled like the hardware's
// CU_TENSOR_MAP_SWIZZLE_32B/64B/128B: address bits [4, 4 + n) XOR bits [7, 7 + n), n = 1, 2, 3.
void Runner::tensor_copy(Warp& w, const DInst& in, uint32_t exec) {
  const Opnd* o = in.ops;
  for (uint32_t m = exec; m; m &= m - 1) {
    const int l = std::countr_zero(m);
    if (in.im2col == 2 || (in.im2col == 1 && in.sub != 0))
      fail(w, l, "cp.async.bulk.tensor in this im2col mode (.im2col::w, .im2col_no_offs, im2col stores) is not supported by the emulator");
    const TensorMapDesc d = copy_tensor_map(w, l, in);
    const bool im2col = in.im2col == 1;
    const bool four_rows = in.im2col == 3;  // .tile::gather4 / .tile::scatter4
    const uint32_t es = tensor_map_element_bytes(d.dtype);
    int64_t coord[5] = {}, rows[4] = {};
    uint64_t ext[5] = {1, 1, 1, 1, 1}, estride[5] = {1, 1, 1, 1, 1};
    uint64_t count = 1;
    for (unsigned i = 0; i < d.rank; ++i)
      if ((!im2col && (d.box[i] < 1 || d.box[i] > 256)) || d.element_strides[i] > 8)
        fail(w, l, fmt::format("the tensor map's box[{}] = {} (1 to 256), element stride {} (1 to 8)", i, d.box[i], d.element_strides[i]));
    if (im2col && (d.channels_per_pixel < 1 || d.channels_per_pixel > 256 || d.pixels_per_column < 1 || d.pixels_per_column > 1024))
      fail(w, l, fmt::format("the im2col tensor map's {} channels per pixel (1 to 256), {} pixels per column (1 to 1024)",
                             d.channels_per_pixel, d.pixels_per_column));
    const uint64_t inner = im2col ? d.channels_per_pixel : d.box[0];
    if (d.swizzle && inner * es > (16u << d.swizzle))
      fail(w, l, fmt::format("the tensor map's inner box of {} bytes exceeds its {}-byte swizzle span", inner * es, 16u << d.swizzle));
    auto coordinate = [&](unsigned i) {
      const uint32_t slot = p_.vec_slots[o[2].slot + i];
      return slot != kNoSlot && (slot & kImmCoord) ? sext(slot, 31) : sext(reg(w, slot, l), 32);
    };
    for (unsigned i = 0; four_rows && i < 4; ++i) rows[i] = coordinate(i + 1);
    for (unsigned i = 0; i < d.rank; ++i) {
      coord[i] = four_rows && i == 1 ? rows[0] : coordinate(i);
      estride[i] = std::max<uint8_t>(d.element_strides[i], 1);
      ext[i] = (d.box[i] + estride[i] - 1) / estride[i];
      if (!im2col) count *= ext[i];
    }
    if (four_rows) count *= 4;  // the box's row, four times
    // im2col: the pixels of the column (their W, H, D, N coordinates, the offsets added), from the
    // start pixel at the copy's coordinates, W fastest, each spatial coordinate wrapping inside
    // the bounding box [lower, dim - 1 + upper] (corners stored {D, H, W}); N steps on.
    std::vector<std::array<int64_t, 5>> pixels;
    if (im2col) {
      const unsigned ns = d.rank - 2u;  // spatial dimensions 1 .. ns; N is dimension rank - 1
      int64_t lo[5] = {}, hi[5] = {}, off[5] = {};
      for (unsigned i = 1; i <= ns; ++i) {
        lo[i] = d.lower[ns - i];
        hi[i] = static_cast<int64_t>(d.dims[i]) - 1 + d.upper[ns - i];
        if (hi[i] < lo[i]) fail(w, l, fmt::format("the im2col tensor map's bounding box is empty along dimension {}", i));
        const uint32_t slot = p_.vec_slots[o[5].slot + i - 1];
        off[i] = slot & kImmCoord ? (slot & 0xFFFFu) : (reg(w, slot, l) & 0xFFFFu);  // unsigned 16-bit offsets
      }
      std::array<int64_t, 5> at{};
      for (unsigned i = 1; i < d.rank; ++i) at[i] = coord[i];
      for (uint32_t p = 0; p < d.pixels_per_column; ++p) {
        std::array<int64_t, 5> px = at;
        for (unsigned i = 1; i <= ns; ++i) px[i] += off[i];
        pixels.push_back(px);
        for (unsigned i = 1; i < d.rank; ++i) {  // the next pixel
          at[i] += static_cast<int64_t>(estride[i]);
          if (i + 1 == d.rank || at[i] <= hi[i]) break;
          at[i] = lo[i];
        }
      }
      count = uint64_t{d.pixels_per_column} * d.channels_per_pixel;
    }
    const uint64_t bytes = count * es;
    if (bytes == 0 || bytes % 16 != 0) fail(w, l, fmt::format("the tensor map's box is {} bytes: not a positive multiple of 16", bytes));
    // the global address of each box element (nullopt: out of the tensor's bounds)
    auto element = [&](uint64_t lin, uint64_t& addr) {
      addr = d.base;
      if (im2col) {
        const int64_t c = coord[0] + static_cast<int64_t>(lin % d.channels_per_pixel);
        const std::array<int64_t, 5>& px = pixels[lin / d.channels_per_pixel];
        if (c < 0 || static_cast<uint64_t>(c) >= d.dims[0]) return false;
        addr += static_cast<uint64_t>(c) * es;
        for (unsigned i = 1; i < d.rank; ++i) {
          if (px[i] < 0 || static_cast<uint64_t>(px[i]) >= d.dims[i]) return false;
          addr += static_cast<uint64_t>(px[i]) * d.strides[i];
        }
        return true;
      }
      if (four_rows) {  // row lin / box[0] of the four, column coord[0] + lin % box[0]
        const int64_t c = coord[0] + static_cast<int64_t>(lin % ext[0]), r = rows[lin / ext[0]];
        if (c < 0 || static_cast<uint64_t>(c) >= d.dims[0] || r < 0 || static_cast<uint64_t>(r) >= d.dims[1]) return false;
        addr += static_cast<uint64_t>(c) * es + static_cast<uint64_t>(r) * d.strides[1];
        return true;
      }
      for (unsigned i = 0; i < d.rank; ++i) {
        const int64_t c = coord[i] + static_cast<int64_t>((lin % ext[i]) * estride[i]);
        lin /= ext[i];
        if (c < 0 || static_cast<uint64_t>(c) >= d.dims[i]) return false;
        addr += static_cast<uint64_t>(c) * (i == 0 ? es : d.strides[i]);
      }
      return true;
    };
    const uint64_t swz_mask = d.swizzle ? (uint64_t{1} << d.swizzle) - 1 : 0;
    auto swizzle = [swz_mask](uint64_t a) { return a ^ (((a >> 7) & swz_mask) << 4); };
    const uint64_t smem = (o[0].slot != kNoSlot ? reg(w, o[0].slot, l) : 0) + o[0].imm;
    if (opt_.check_memory && (smem & kOffsetMask) % 128 != 0)
      fail(w, l, fmt::format("the shared-memory box at shared+{} is not 128-byte aligned", smem & kOffsetMask));
    std::vector<uint8_t> box(bytes);
    auto global = [&](uint64_t addr) {
      uint8_t* g = mem_.find(addr, es);
      if (!g) fail(w, l, fmt::format("tensor element at {}: outside every allocation (the tensor map's base, dimensions or strides)", mem_.describe(addr)));
      return g;
    };
    if (in.sub == 0) {  // load
      uint64_t fill = 0;
      const bool is_float = d.dtype >= 6 && d.dtype != 0;
      if (d.oob_nan && is_float) fill = es == 2 ? kOobNaN16 : es == 4 ? 0x7FFFFFFF : 0x7FFFFFFFFFFFFFFFull;
      for (uint64_t k = 0; k < count; ++k) {
        uint64_t addr;
        if (element(k, addr)) std::memcpy(box.data() + k * es, global(addr), es);
        else std::memcpy(box.data() + k * es, &fill, es);
      }
      const std::vector<uint32_t> ranks = (in.flags & kMulticast) ? mask_ranks(w, l, value(w, o[4], l)) : std::vector<uint32_t>{};
      for (size_t ti = 0; ti < std::max<size_t>(ranks.size(), 1); ++ti) {
        const uint64_t base = ranks.empty() ? smem : with_rank(smem, in.space, ranks[ti]);
        for (uint64_t c = 0; c < bytes; c += 16) std::memcpy(resolve(w, l, in.space, swizzle(base + c), 16, true), box.data() + c, 16);
        sync_access_ = true;
        uint8_t* bar = access(w, l, in, ranks.empty() ? o[3] : rebased(w, l, o[3], in.space, ranks[ti]), 8, true);
        sync_access_ = false;
        mbar_signal(w, l, bar, static_cast<int64_t>(bytes), 0);
      }
      continue;
    }
    // store or reduction: elements outside the tensor are not written
    for (uint64_t c = 0; c < bytes; c += 16) std::memcpy(box.data() + c, resolve(w, l, in.space2, swizzle(smem + c), 16, false), 16);
    const AtomOp op = static_cast<AtomOp>(in.boolop);
    for (uint64_t k = 0; k < count; ++k) {
      uint64_t addr;
      if (!element(k, addr)) continue;
      uint8_t* g = global(addr);
      if (in.sub == 1) {
        std::memcpy(g, box.data() + k * es, es);
        continue;
      }
      uint64_t old = 0, v = 0, r = 0;
      std::memcpy(&old, g, es);
      std::memcpy(&v, box.data() + k * es, es);
      std::lock_guard lock(atomic_lock(g));
      if (!tensor_reduce(d.dtype, op, old, v, r)) fail(w, l, fmt::format("this reduction of elements of tensor-map type {}", d.dtype));
      std::memcpy(g, &r, es);
    }
  }
}

}  // namespace ptx::emu::engine
