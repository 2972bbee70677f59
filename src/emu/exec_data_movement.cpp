// Data movement (data-movement.isa): mov (vectors, packing, .b128), ld/st (vectors, .b128,
// st.async), cvta, mapa, getctarank, isspacep, prmt, st.bulk. (cvt: exec_convert.cpp; shfl:
// exec_warp.cpp.)
#include <cstring>

#include "runner.hpp"

namespace ptx::emu::engine {

void Runner::mov(Warp& w, const DInst& in, uint32_t exec, uint32_t active) {
  const Ty t = in.type;
  const Opnd* o = in.ops;
  auto lanes = [&](auto&& f) { for_lanes(exec, f); };
  // mov.v2/.v4: element by element, between vector registers and brace lists (decode checked the counts)
  if (in.vec > 1) {
    lanes([&](int l) {
      uint64_t v[8] = {};
      for (uint32_t i = 0; i < in.vec; ++i) {
        Opnd element = o[1];  // mov.v4 d, %tid: the special register's x, y, z, w
        element.comp = static_cast<uint8_t>(i);
        if (o[1].kind == Opnd::Sreg)
          v[i] = special(w, element, l);
        else if (const uint32_t s = p_.vec_slots[o[1].slot + i]; s != kNoSlot)
          v[i] = reg(w, s, l);
      }
      for (uint32_t i = 0; i < in.vec; ++i)
        if (const uint32_t s = p_.vec_slots[o[0].slot + i]; s != kNoSlot) reg(w, s, l) = mask_bits(v[i], t.bits);
    });
    return;
  }
  if (t.bits == 128) return mov_b128(w, in, exec, exec ? exec : active);
  if ((o[0].kind == Opnd::Vec || o[1].kind == Opnd::Vec) &&
      (t.bits > 64 || t.bits % (o[0].kind == Opnd::Vec ? o[0].count : o[1].count) != 0))
    fail(w, std::countr_zero(exec ? exec : active), fmt::format("mov of a {}-element vector as a {}-bit value",
                                                                o[0].kind == Opnd::Vec ? o[0].count : o[1].count, t.bits));
  if (o[0].kind == Opnd::Vec) {  // mov.b64 {lo, hi}, x: unpack
    const unsigned eb = t.bits / o[0].count;
    lanes([&](int l) {
      const uint64_t v = value(w, o[1], l);
      for (uint32_t i = 0; i < o[0].count; ++i)
        if (p_.vec_slots[o[0].slot + i] != kNoSlot) reg(w, p_.vec_slots[o[0].slot + i], l) = mask_bits(v >> (eb * i), eb);
    });
  } else if (o[1].kind == Opnd::Vec) {  // mov.b64 x, {lo, hi}: pack
    const unsigned eb = t.bits / o[1].count;
    lanes([&](int l) {
      uint64_t v = 0;
      for (uint32_t i = 0; i < o[1].count; ++i)
        v |= mask_bits(reg(w, p_.vec_slots[o[1].slot + i], l), eb) << (eb * i);
      write(w, o[0], l, v, t);
    });
  } else {
    lanes([&](int l) { write(w, o[0], l, value(w, o[1], l), t); });
  }
  return;
}

// mov.b128: a copy, or the pack / unpack of {lo, hi} (two .b64) or four .b32 (lowest first).
void Runner::mov_b128(Warp& w, const DInst& in, uint32_t exec, uint32_t lanes) {
  const Opnd& d = in.ops[0];
  const Opnd& a = in.ops[1];
  const Opnd& whole = d.kind == Opnd::Vec ? a : d;
  b128_operands(w, lanes, {&whole}, "mov");
  const Opnd* parts = d.kind == Opnd::Vec ? &d : a.kind == Opnd::Vec ? &a : nullptr;
  if (parts && parts->count != 2 && parts->count != 4)
    fail(w, std::countr_zero(lanes), fmt::format("mov.b128 with a {}-element vector (2 of .b64 or 4 of .b32)", parts->count));
  if (!parts) b128_operands(w, lanes, {&a}, "mov");
  for (uint32_t m = exec; m; m &= m - 1) {
    const int l = std::countr_zero(m);
    if (!parts) {
      const uint64_t lo = reg(w, a.slot, l), hi = reg(w, a.slot + 1, l);
      reg(w, d.slot, l) = lo, reg(w, d.slot + 1, l) = hi;
      continue;
    }
    const unsigned eb = 128 / parts->count, per_half = parts->count / 2;
    for (uint32_t i = 0; i < parts->count; ++i) {
      const uint32_t slot = p_.vec_slots[parts->slot + i];
      uint64_t& half = reg(w, whole.slot + i / per_half, l);
      const unsigned shift = eb * (i % per_half);
      if (parts == &d) {  // unpack
        if (slot != kNoSlot) reg(w, slot, l) = mask_bits(half >> shift, eb);
      } else {  // pack
        if (i % per_half == 0) half = 0;
        half |= mask_bits(slot == kNoSlot ? 0 : reg(w, slot, l), eb) << shift;
      }
    }
  }
}

// ld / st, scalar or vector, and st.async (its mbarrier completes the bytes).
void Runner::ld_st(Warp& w, const DInst& in, uint32_t exec, uint32_t active) {
  const Ty t = in.type;
  const Opnd* o = in.ops;
  const bool st = in.op == Opc::St;
  const Opnd& a = st ? o[0] : o[1];
  const Opnd& v = st ? o[1] : o[0];
  const unsigned es = t.bits / 8;
  if (!st && v.kind != Opnd::Reg && v.kind != Opnd::Vec)  // `ld.u64 %pm0, [a]`: read-only or no register
    fail(w, std::countr_zero(exec ? exec : active), "the destination is not a register");
  if (es == 16) b128_operands(w, exec ? exec : active, {&v}, st ? "st" : "ld");
  for_lanes(exec, [&](int l) {
    uint8_t bytes[128];
    const bool whole = st && es * in.vec <= sizeof bytes && store_bytes(w, v, in.vec, es, l, bytes);
    uint8_t* p = access(w, l, in, a, es * in.vec, st, 0, whole ? bytes : nullptr);
    if (whole) {
      std::memcpy(p, bytes, es * in.vec);
      return;
    }
    for (unsigned i = 0; i < in.vec; ++i) {
      const Opnd* dst = &v;
      uint32_t slot = v.slot;
      if (v.kind == Opnd::Vec) {
        slot = p_.vec_slots[v.slot + i];
        if (slot == kNoSlot) continue;
      }
      if (es == 16) {  // .b128: a register of two slots
        if (st) {
          const uint64_t x[2] = {reg(w, slot, l), reg(w, slot + 1, l)};
          std::memcpy(p + i * es, x, 16);
        } else {
          std::memcpy(&reg(w, slot, l), p + i * es, 8);
          std::memcpy(&reg(w, slot + 1, l), p + i * es + 8, 8);
        }
      } else if (st) {
        const uint64_t x = v.kind == Opnd::Vec ? reg(w, slot, l) : value(w, *dst, l);
        std::memcpy(p + i * es, &x, es);
      } else {
        uint64_t x = 0;
        std::memcpy(&x, p + i * es, es);
        if (t.k == 's') x = static_cast<uint64_t>(sext(x, t.bits));
        reg(w, slot, l) = x;
      }
    }
  });
  if (in.async_tx) async_tx(w, exec, o[2], es * in.vec);  // st.async: complete_tx on the (remote) mbarrier
  return;
}

// The bytes `st` stores for lane l (element i at i * es); false when an element is a sink (`_`),
// whose bytes the store leaves alone.
bool Runner::store_bytes(Warp& w, const Opnd& v, unsigned vec, unsigned es, int l, uint8_t* out) {
  for (unsigned i = 0; i < vec; ++i) {
    uint32_t slot = v.slot;
    if (v.kind == Opnd::Vec && (slot = p_.vec_slots[v.slot + i]) == kNoSlot) return false;
    if (es == 16) {  // .b128: a register of two slots
      const uint64_t x[2] = {reg(w, slot, l), reg(w, slot + 1, l)};
      std::memcpy(out + i * es, x, 16);
    } else {
      const uint64_t x = v.kind == Opnd::Vec ? reg(w, slot, l) : value(w, v, l);
      std::memcpy(out + i * es, &x, es);
    }
  }
  return true;
}

// .b128 values live in registers declared .b128 (two slots); vectors of them are not in the ISA.
void Runner::b128_operands(Warp& w, uint32_t lanes, std::initializer_list<const Opnd*> ops, const char* what) {
  for (const Opnd* op : ops)
    if (op->kind != Opnd::Reg || p_.slot_types[op->slot].bits != 128)
      fail(w, std::countr_zero(lanes), fmt::format("{}.b128 needs a .b128 register for its 128-bit value", what));
}

// cvta, mapa, isspacep, getctarank.
void Runner::addresses(Warp& w, const DInst& in, uint32_t exec) {
  const Ty t = in.type;
  const Opnd* o = in.ops;
  auto lanes = [&](auto&& f) { for_lanes(exec, f); };
  switch (in.op) {
    case Opc::Cvta:
      lanes([&](int l) {
        uint64_t v = value(w, o[1], l);
        if (in.sub == kCvtaFromParam) v += kParamWindow;  // (no flags then)
        if (in.sub == kCvtaToParam) v -= kParamWindow;
        if (in.flags & kToShared) v -= kSharedWindow;
        else if (in.flags & kToLocal) v -= kLocalWindow;
        else if (in.flags & kFromShared) v += kSharedWindow;
        else if (in.flags & kFromLocal) v += kLocalWindow;
        write(w, o[0], l, v, t);
      });
      return;
    case Opc::Mapa:  // the same shared offset in CTA `rank` of the cluster
      lanes([&](int l) {
        const uint64_t a = value(w, o[1], l), rank = mask_bits(value(w, o[2], l), 32);
        if (in.space == Space::Generic && (a < kSharedWindow || a >= kSharedWindow + kWindowSize))
          fail(w, l, fmt::format("mapa of {:#x}, which is not a shared-memory address", a));
        if (rank >= ctas_.size())
          fail(w, l, fmt::format("mapa to CTA rank {}: out of range (the cluster has {} CTA{})", rank, ctas_.size(), ctas_.size() == 1 ? "" : "s"));
        write(w, o[0], l, with_rank(a, in.space, rank), t);
      });
      return;
    case Opc::Isspacep:
      lanes([&](int l) {
        const uint64_t a = value(w, o[1], l);
        const bool shared = a >= kSharedWindow && a < kSharedWindow + kWindowSize, local = a >= kLocalWindow && a < kLocalWindow + kWindowSize;
        bool r = false;
        switch (in.space) {
          case Space::Shared: r = shared && ((a - kSharedWindow) >> kRankShift) == 0; break;
          case Space::SharedCluster: r = shared; break;
          case Space::Local: r = local; break;
          case Space::Param:
            r = in_param_window(a);
            break;
          case Space::Global: r = !shared && !local && a >= 0x0000700000000000ull; break;
          default: r = false;
        }
        write(w, o[0], l, r, Ty{'p', 1});
      });
      return;
    case Opc::Getctarank:
      lanes([&](int l) {
        const uint64_t a = value(w, o[1], l);
        const uint64_t field = ((in.space == Space::Generic ? a - kSharedWindow : a) & 0xFFFFFFFFu) >> kRankShift;
        write(w, o[0], l, field == 0 ? c_->rank : field - 1, Ty{'u', 32});
      });
      return;
    default: return;
  }
}

void Runner::prmt(Warp& w, const DInst& in, uint32_t exec) {
  const Ty t = in.type;
  const Opnd* o = in.ops;
  for_lanes(exec, [&](int l) {
    const uint64_t a = value(w, o[1], l), b = value(w, o[2], l), c = value(w, o[3], l);
    const uint64_t bytes = (mask_bits(b, 32) << 32) | mask_bits(a, 32);
    uint64_t r = 0;
    // the modes (9.7.8.7): for c[1:0], the source byte of each result byte, d.b0 first
    static constexpr uint8_t kModeBytes[6][4][4] = {
        {{0, 1, 2, 3}, {1, 2, 3, 4}, {2, 3, 4, 5}, {3, 4, 5, 6}},  // .f4e
        {{0, 7, 6, 5}, {1, 0, 7, 6}, {2, 1, 0, 7}, {3, 2, 1, 0}},  // .b4e
        {{0, 0, 0, 0}, {1, 1, 1, 1}, {2, 2, 2, 2}, {3, 3, 3, 3}},  // .rc8
        {{0, 1, 2, 3}, {1, 1, 2, 3}, {2, 2, 2, 3}, {3, 3, 3, 3}},  // .ecl
        {{0, 0, 0, 0}, {0, 1, 1, 1}, {0, 1, 2, 2}, {0, 1, 2, 3}},  // .ecr
        {{0, 1, 0, 1}, {2, 3, 2, 3}, {0, 1, 0, 1}, {2, 3, 2, 3}},  // .rc16
    };
    if (in.sub != 0) {
      for (unsigned i = 0; i < 4; ++i) r |= ((bytes >> (8 * kModeBytes[in.sub - 1][c & 3][i])) & 0xFF) << (8 * i);
      write(w, o[0], l, r, t);
      return;
    }
    for (unsigned i = 0; i < 4; ++i) {
      const unsigned sel = static_cast<unsigned>(c >> (4 * i)) & 7;
      const bool sign = (c >> (4 * i + 3)) & 1;
      uint64_t byte = (bytes >> (8 * sel)) & 0xFF;
      if (sign) byte = (byte & 0x80) ? 0xFF : 0;
      r |= byte << (8 * i);
    }
    write(w, o[0], l, r, t);
  });
}

// st.bulk{.weak}{.shared::cta} [a], size, 0
void Runner::st_bulk(Warp& w, const DInst& in, uint32_t exec) {
  const Opnd* o = in.ops;
  for_lanes(exec, [&](int l) {
    const uint64_t size = value(w, o[1], l);
    if (size % 8 != 0 || size > (1u << 24)) fail(w, l, fmt::format("st.bulk of {} bytes: a multiple of 8, at most 16777216", size));
    if (value(w, o[2], l) != 0) fail(w, l, "st.bulk's initval must be 0");
    for (uint64_t done = 0; done < size; done += 8) {
      Opnd at = o[0];
      at.imm += done;
      std::memset(access(w, l, in, at, 8, true), 0, 8);
    }
    bulk_steps_ += size / 64;  // its checked accesses count against max_steps: it bounds time
  });
}

}  // namespace ptx::emu::engine
