// Atomics and reductions (sync.isa): atom, red, their .b128 and vector forms.
#include <cstring>
#include <mutex>

#include "runner.hpp"

namespace ptx::emu::engine {

void Runner::atom_red(Warp& w, const DInst& in, uint32_t exec, uint32_t active) {
  const Ty t = in.type;
  const Opnd* o = in.ops;
  const bool sgn = t.k == 's';
  auto lanes = [&](auto&& f) { for_lanes(exec, f); };
  const bool atom = in.op == Opc::Atom;
  const Opnd& a = atom ? o[1] : o[0];
  const unsigned es = t.bits / 8;
  const AtomOp aop = static_cast<AtomOp>(in.sub);
  if (es == 16) return atom_b128(w, in, exec, exec ? exec : active);
  if (in.vec > 1) return red_vector(w, in, exec, exec ? exec : active);
  lanes([&](int l) {  // lanes one after another; CTAs on other host threads take the address's lock
    sync_access_ = true;  // atomics do not race
    uint8_t* p = access(w, l, in, a, es, true);
    sync_access_ = false;
    std::lock_guard lock(atomic_lock(p));
    uint64_t old = 0;
    std::memcpy(&old, p, es);
    const uint64_t b = value(w, atom ? o[2] : o[1], l);
    uint64_t r = old;
    switch (aop) {
      case AtomOp::Add:
        r = reduce_arith(t, old, b, [](float x, float y) { return x + y; }, [](double x, double y) { return x + y; },
                  [](uint64_t x, uint64_t y) { return x + y; });
        break;
      case AtomOp::Min:
      case AtomOp::Max: {
        const bool mx = aop == AtomOp::Max;
        bool less;
        if (t.k == 'f') less = t.bits == 32 ? f32(old) < f32(b) : f64(old) < f64(b);
        else less = sgn ? sext(old, t.bits) < sext(b, t.bits) : mask_bits(old, t.bits) < mask_bits(b, t.bits);
        r = (less != mx) ? old : b;
        break;
      }
      case AtomOp::Exch: r = b; break;
      case AtomOp::Cas: r = mask_bits(old, t.bits) == mask_bits(b, t.bits) ? value(w, o[3], l) : old; break;
      case AtomOp::And: r = old & b; break;
      case AtomOp::Or: r = old | b; break;
      case AtomOp::Xor: r = old ^ b; break;
      case AtomOp::Inc: r = mask_bits(old, 32) >= mask_bits(b, 32) ? 0 : old + 1; break;
      case AtomOp::Dec: r = (mask_bits(old, 32) == 0 || mask_bits(old, 32) > mask_bits(b, 32)) ? b : old - 1; break;
    }
    std::memcpy(p, &r, es);
    if (atom) write(w, o[0], l, old, t);
  });
  if (in.async_tx) async_tx(w, exec, o[2], es);  // red.async: complete_tx on the (remote) mbarrier
  return;
}

// red.vN (sm_90: .v2/.v4 .f32, .f16x2, .bf16x2 ...; and multimem.red's vectors): each element as
// its own reduction, under one lock.
void Runner::red_vector(Warp& w, const DInst& in, uint32_t exec, uint32_t lanes) {
  const Opnd* o = in.ops;
  const AtomOp aop = static_cast<AtomOp>(in.sub);
  if (in.op != Opc::Red) fail(w, std::countr_zero(lanes), fmt::format("atom.v{} (vector atomics) is not supported by the emulator yet", in.vec));
  if (o[1].kind != Opnd::Vec || o[1].count != in.vec)
    fail(w, std::countr_zero(lanes), fmt::format("red.v{} needs a vector of {} values", in.vec, in.vec));
  if (aop != AtomOp::Add && aop != AtomOp::Min && aop != AtomOp::Max)
    fail(w, std::countr_zero(lanes), "vector reductions are .add, .min and .max");
  const Ty t = in.type;
  const unsigned es = t.bits / 8;
  for (uint32_t m = exec; m; m &= m - 1) {
    const int l = std::countr_zero(m);
    sync_access_ = true;
    uint8_t* p = access(w, l, in, o[0], es * in.vec, true);
    sync_access_ = false;
    std::lock_guard lock(atomic_lock(p));
    for (unsigned i = 0; i < in.vec; ++i) {
      uint64_t old = 0;
      std::memcpy(&old, p + i * es, es);
      const uint32_t slot = p_.vec_slots[o[1].slot + i];
      const uint64_t b = slot == kNoSlot ? 0 : reg(w, slot, l);
      uint64_t r;
      if (aop == AtomOp::Add)
        r = reduce_arith(t, old, b, [](float x, float y) { return x + y; }, [](double x, double y) { return x + y; },
                  [](uint64_t x, uint64_t y) { return x + y; });
      else
        r = reduce_arith(t, old, b, [aop](float x, float y) { return aop == AtomOp::Max ? std::fmax(x, y) : std::fmin(x, y); },
                  [aop](double x, double y) { return aop == AtomOp::Max ? std::fmax(x, y) : std::fmin(x, y); },
                  [aop, t](uint64_t x, uint64_t y) {
                    const bool less = t.k == 's' ? sext(x, t.bits) < sext(y, t.bits) : mask_bits(x, t.bits) < mask_bits(y, t.bits);
                    return (less == (aop == AtomOp::Max)) ? y : x;
                  });
      std::memcpy(p + i * es, &r, es);
    }
  }
}

// atom.exch.b128 / atom.cas.b128 (sm_90): whole 16 bytes, atomically.
void Runner::atom_b128(Warp& w, const DInst& in, uint32_t exec, uint32_t lanes) {
  const AtomOp aop = static_cast<AtomOp>(in.sub);
  const Opnd* o = in.ops;
  if (in.op != Opc::Atom || (aop != AtomOp::Exch && aop != AtomOp::Cas))
    fail(w, std::countr_zero(lanes), "128-bit atomics are atom.exch.b128 and atom.cas.b128 only");
  if (aop == AtomOp::Cas) b128_operands(w, lanes, {&o[0], &o[2], &o[3]}, "atom.cas");
  else b128_operands(w, lanes, {&o[0], &o[2]}, "atom.exch");
  for (uint32_t m = exec; m; m &= m - 1) {
    const int l = std::countr_zero(m);
    sync_access_ = true;
    uint8_t* p = access(w, l, in, o[1], 16, true);
    sync_access_ = false;
    std::lock_guard lock(atomic_lock(p));
    uint64_t old[2], b[2] = {reg(w, o[2].slot, l), reg(w, o[2].slot + 1, l)};
    std::memcpy(old, p, 16);
    if (aop == AtomOp::Exch) std::memcpy(p, b, 16);
    else if (old[0] == b[0] && old[1] == b[1]) {
      const uint64_t c[2] = {reg(w, o[3].slot, l), reg(w, o[3].slot + 1, l)};
      std::memcpy(p, c, 16);
    }
    reg(w, o[0].slot, l) = old[0], reg(w, o[0].slot + 1, l) = old[1];
  }
}

}  // namespace ptx::emu::engine
