// Warp-level instructions: shfl (data-movement.isa), vote, match, redux, elect, activemask,
// bar.warp.sync (sync.isa); the member-mask check of the .sync forms.
#include <bit>
#include <cmath>
#include <vector>

#include "runner.hpp"

namespace ptx::emu::engine {

namespace {

// redux.sync.{min,max}{.abs}{.NaN}.f32 over the members' values: +0.0 > -0.0; NaN inputs are
// left out, unless .NaN (then any NaN makes the result NaN); all NaN: the canonical NaN.
uint32_t redux_f32(const std::vector<uint32_t>& values, bool max, bool abs, bool nan_wins) {
  constexpr uint32_t kCanonicalNaN = 0x7FFFFFFF;
  bool any = false, nan = false;
  float acc = 0;
  for (uint32_t bits : values) {
    float x = std::bit_cast<float>(bits);
    if (abs) x = std::fabs(x);
    if (std::isnan(x)) {
      nan = true;
      continue;
    }
    auto less = [](float p, float q) { return p < q || (p == q && std::signbit(p) && !std::signbit(q)); };  // -0.0 < +0.0
    if (!any || (max ? less(acc, x) : less(x, acc))) acc = x;
    any = true;
  }
  return !any || (nan && nan_wins) ? kCanonicalNaN : std::bit_cast<uint32_t>(acc);
}

}  // namespace

void Runner::warp_op(Warp& w, const DInst& in, uint32_t exec, uint32_t active) {
  const Opnd* o = in.ops;
  auto lanes = [&](auto&& f) { for_lanes(exec, f); };
  const Ty t = in.type;
  const bool sgn = t.k == 's';
  switch (in.op) {
    case Opc::Shfl: return shfl(w, in, exec, active);
    case Opc::Vote: {
      if (in.nops >= 3) sync_members(w, exec, active, o[2]);
      uint32_t ballot = 0;
      for (uint32_t m = exec; m; m &= m - 1) {
        const int l = std::countr_zero(m);
        if (value(w, o[1], l)) ballot |= 1u << l;
      }
      const VoteMode mode = static_cast<VoteMode>(in.sub);
      lanes([&](int l) {
        uint64_t r = 0;
        switch (mode) {
          case VoteMode::All: r = ballot == exec; break;
          case VoteMode::Any: r = ballot != 0; break;
          case VoteMode::Uni: r = ballot == 0 || ballot == exec; break;
          case VoteMode::Ballot: r = ballot; break;
        }
        write(w, o[0], l, r, mode == VoteMode::Ballot ? Ty{'b', 32} : Ty{'p', 1});
      });
      return;
    }
    case Opc::Match: return match(w, in, exec, active);
    case Opc::Activemask: lanes([&](int l) { write(w, o[0], l, active, Ty{'b', 32}); }); return;
    case Opc::Redux: {
      if (in.nops >= 3) sync_members(w, exec, active, o[2]);
      const AtomOp rop = static_cast<AtomOp>(in.sub);
      if (t.k == 'f') {
        std::vector<uint32_t> values;
        for (uint32_t m = exec; m; m &= m - 1) values.push_back(static_cast<uint32_t>(value(w, o[1], std::countr_zero(m))));
        const uint32_t r = redux_f32(values, rop == AtomOp::Max, in.boolop & kReduxAbs, in.flags & kNaN);
        lanes([&](int l) { write(w, o[0], l, r, t); });
        return;
      }
      uint64_t acc = 0;
      bool first = true;
      for (uint32_t m = exec; m; m &= m - 1) {
        const uint64_t v = mask_bits(value(w, o[1], std::countr_zero(m)), 32);
        if (first) acc = v, first = false;
        else if (rop == AtomOp::Add) acc = mask_bits(acc + v, 32);
        else if (rop == AtomOp::And) acc &= v;
        else if (rop == AtomOp::Or) acc |= v;
        else if (rop == AtomOp::Xor) acc ^= v;
        else {
          const bool less = sgn ? sext(v, 32) < sext(acc, 32) : v < acc;
          if (less == (rop == AtomOp::Min)) acc = v;
        }
      }
      lanes([&](int l) { write(w, o[0], l, acc, t); });
      return;
    }
    case Opc::Elect: {
      sync_members(w, exec, active, o[1]);
      const uint32_t members = exec & static_cast<uint32_t>(value(w, o[1], std::countr_zero(exec ? exec : active)));
      const int leader = members ? std::countr_zero(members) : -1;
      lanes([&](int l) {
        if (o[0].kind == Opnd::Pair) {
          if (o[0].slot != kNoSlot) reg(w, o[0].slot, l) = leader < 0 ? 0 : static_cast<uint64_t>(leader);
          if (o[0].slot2 != kNoSlot) reg(w, o[0].slot2, l) = l == leader;
        } else {
          write(w, o[0], l, leader < 0 ? 0 : static_cast<uint64_t>(leader), Ty{'u', 32});
        }
      });
      return;
    }
    case Opc::WarpSync:
      if (in.nops >= 1) sync_members(w, exec, active, o[0]);
      ++w.syncs;
      return;
    default: return;
  }
}

void Runner::shfl(Warp& w, const DInst& in, uint32_t exec, uint32_t active) {
  const Opnd* o = in.ops;
  auto lanes = [&](auto&& f) { for_lanes(exec, f); };
  if (in.nops >= 5) sync_members(w, exec, active, o[4]);
  uint64_t src[kLanes];
  for (int l = 0; l < kLanes; ++l) src[l] = (w.live >> l & 1) ? value(w, o[1], l) : 0;
  const ShflMode mode = static_cast<ShflMode>(in.sub);
  lanes([&](int l) {
    const uint32_t b = static_cast<uint32_t>(value(w, o[2], l)) & 31, c = static_cast<uint32_t>(value(w, o[3], l));
    const int seg = static_cast<int>((c >> 8) & 31), clamp = static_cast<int>(c & 31);
    const int maxl = (l & seg) | (clamp & ~seg), minl = l & seg;
    int j = l;
    bool ok = false;
    switch (mode) {
      case ShflMode::Up: j = l - static_cast<int>(b); ok = j >= maxl; break;
      case ShflMode::Down: j = l + static_cast<int>(b); ok = j <= maxl; break;
      case ShflMode::Bfly: j = l ^ static_cast<int>(b); ok = j <= maxl; break;
      case ShflMode::Idx: j = minl | (static_cast<int>(b) & ~seg); ok = j <= maxl; break;
    }
    if (!ok) j = l;
    if (!(exec >> j & 1)) fail(w, l, fmt::format("shfl reads lane {}, which is not executing it", j));
    write(w, o[0], l, src[j], Ty{'b', 32});
    if (o[0].kind == Opnd::Pair && o[0].slot2 != kNoSlot) reg(w, o[0].slot2, l) = ok;
  });
  return;
}

void Runner::match(Warp& w, const DInst& in, uint32_t exec, uint32_t active) {
  const Ty t = in.type;
  const Opnd* o = in.ops;
  auto lanes = [&](auto&& f) { for_lanes(exec, f); };
  if (in.nops >= 3) sync_members(w, exec, active, o[2]);
  if (in.sub == 1) {  // match.all: the mask if every lane holds the same value, else 0 (and p)
    bool same = true;
    uint64_t first = 0;
    bool have = false;
    for (uint32_t m = exec; m; m &= m - 1) {
      const uint64_t v = mask_bits(value(w, o[1], std::countr_zero(m)), t.bits);
      if (have && v != first) same = false;
      first = v, have = true;
    }
    lanes([&](int l) {
      if (o[0].slot != kNoSlot) reg(w, o[0].slot, l) = same ? exec : 0;
      if (o[0].kind == Opnd::Pair && o[0].slot2 != kNoSlot) reg(w, o[0].slot2, l) = same;
    });
    return;
  }
  lanes([&](int l) {
    const uint64_t v = value(w, o[1], l);
    uint32_t same = 0;
    for (uint32_t m = exec; m; m &= m - 1) {
      const int k = std::countr_zero(m);
      if (mask_bits(value(w, o[1], k), t.bits) == mask_bits(v, t.bits)) same |= 1u << k;
    }
    write(w, o[0], l, same, Ty{'b', 32});
  });
  return;
}

// A *.sync warp collective's member mask (synccheck): each lane executing it is in the mask and
// every live lane of the mask executes it with them; otherwise the result is undefined (the
// GPU may hang), so it is reported.
void Runner::sync_members(Warp& w, uint32_t exec, uint32_t active, const Opnd& mask_op) {
  if (!opt_.check_sync || exec == 0) return;
  const uint32_t mask = static_cast<uint32_t>(value(w, mask_op, std::countr_zero(exec)));
  for (uint32_t m = exec; m; m &= m - 1)
    if (static_cast<uint32_t>(value(w, mask_op, std::countr_zero(m))) != mask)
      fail(w, std::countr_zero(m), fmt::format("the member mask {:#010x} differs from lane {}'s {:#010x}", value(w, mask_op, std::countr_zero(m)),
                                               std::countr_zero(exec), mask));
  if (const uint32_t outside = exec & ~mask)
    fail(w, std::countr_zero(outside), fmt::format("lane {} executes it but is not in the member mask {:#010x}", std::countr_zero(outside), mask));
  if (const uint32_t missing = mask & w.live & ~exec)
    fail(w, std::countr_zero(exec),
         fmt::format("lane {} is in the member mask {:#010x} but does not execute it with lanes {:#010x} ({})", std::countr_zero(missing),
                     mask, exec, (active >> std::countr_zero(missing) & 1) ? "its guard predicate is false" : "it is elsewhere in the code"));
}

}  // namespace ptx::emu::engine
