// The addresses generated kernels access: a base in one state space (a variable, a kernel argument,
// a stack allocation, an absolute value), plus an index scaled by a stride and offsets near the
// region's edges, so that the emulator's bounds checks see addresses just inside, just outside and
// far outside every region, including values near 2^64 that an index gone below zero gives.
#pragma once

#include <algorithm>
#include <cstdint>
#include <string>

#include <fmt/format.h>

#include "edge_values.hpp"
#include "generation_context.hpp"

namespace ptx::fuzz {

enum class Space : uint8_t { Global, Const, Shared, Local, Param, Generic, SharedCluster };

// The state space as an instruction suffix (generic: none).
inline const char* suffix(Space s) {
  switch (s) {
    case Space::Global:
      return ".global";
    case Space::Const:
      return ".const";
    case Space::Shared:
      return ".shared";
    case Space::Local:
      return ".local";
    case Space::Param:
      return ".param";
    case Space::Generic:
      return "";
    case Space::SharedCluster:
      return ".shared::cluster";
  }
  return "";
}

// An address operand: [reg+imm].
struct Address {
  std::string reg;
  int32_t imm = 0;
  std::string operand() const { return imm == 0 ? fmt::format("[{}]", reg) : fmt::format("[{}+{}]", reg, imm); }
};

inline Region symbol_address(Context& c, std::string_view name, uint64_t bytes) {
  const std::string r = c.w.reg(RegKind::B64);
  c.w.line("mov.u64 {}, {}", r, name);
  return {r, bytes};
}

inline Region absolute_address(Context& c) {
  const std::string r = c.w.reg(RegKind::B64);
  c.w.line("mov.u64 {}, {}", r, literal(edge_offset(c.in, 0)));
  return {r, 0};
}

inline Region converted(Context& c, std::string_view cvta, const Region& from) {
  const std::string r = c.w.reg(RegKind::B64);
  c.w.line("cvta{}.u64 {}, {}", cvta, r, from.reg);
  return {r, from.bytes};
}

// The bases of each space: variables and arguments, and (when `anywhere`) absolute addresses.
inline Region shared_base(Context& c, bool anywhere) {
  switch (c.in.ConsumeIntegralInRange<int>(0, anywhere ? 4 : 2)) {
    case 0:
      return symbol_address(c, "s", c.shape.shared_bytes);
    case 1:
      return symbol_address(c, "dyn", c.shape.dynamic_bytes);
    case 2:
      return symbol_address(c, "mbar", 8);
    case 3:
      return converted(c, ".to.shared", c.pick(c.pointers));  // a generic address outside the shared window
    default:
      return absolute_address(c);
  }
}

inline Region global_base(Context& c, bool anywhere) {
  switch (c.in.ConsumeIntegralInRange<int>(0, anywhere ? 2 : 1)) {
    case 0:
      return symbol_address(c, "g", c.shape.global_bytes);
    case 1:
      return converted(c, ".to.global", c.pick(c.pointers));
    default:
      return absolute_address(c);
  }
}

inline Region local_base(Context& c, bool anywhere) {
  switch (c.in.ConsumeIntegralInRange<int>(0, anywhere ? 3 : 1)) {
    case 0:
      return symbol_address(c, c.local_array, c.local_bytes);
    case 1:
      if (!c.stack.empty()) return c.pick(c.stack);
      return symbol_address(c, c.local_array, c.local_bytes);
    case 2:
      return converted(c, ".to.local", c.pick(c.pointers));  // a generic address outside the local window
    default:
      return absolute_address(c);
  }
}

// A kernel parameter's address (the parameters are buf0, buf1, off: 8 bytes each; n: 4).
inline Region param_base(Context& c, bool anywhere) {
  switch (c.in.ConsumeIntegralInRange<int>(0, anywhere ? 2 : 1)) {
    case 0:
      return symbol_address(c, c.in.PickValueInArray({"buf0", "buf1", "off"}), 8);
    case 1:
      return symbol_address(c, "n", 4);
    default:
      return absolute_address(c);
  }
}

inline Region const_base(Context& c, bool anywhere) {
  if (anywhere && c.in.ConsumeBool()) return absolute_address(c);
  return symbol_address(c, "c", c.shape.const_bytes);
}

inline Region generic_base(Context& c, bool anywhere) {
  switch (c.in.ConsumeIntegralInRange<int>(0, anywhere ? 5 : 4)) {
    case 0:
      return c.pick(c.pointers);
    case 1:
      return converted(c, ".global", symbol_address(c, "g", c.shape.global_bytes));
    case 2:
      return converted(c, ".shared", shared_base(c, anywhere));
    case 3:
      return converted(c, ".local", local_base(c, anywhere));
    case 4:
      return converted(c, ".const", const_base(c, anywhere));
    default:
      return absolute_address(c);
  }
}

// A shared address of this CTA, or (mapa) of the CTA of some rank in the cluster: one that exists
// unless `anywhere`.
inline Region cluster_base(Context& c, bool anywhere) {
  const Region own = shared_base(c, anywhere);
  if (c.in.ConsumeBool()) return own;
  const uint32_t rank = anywhere ? edge_u32(c.in, c.shape.cluster_ctas)
                                 : c.in.ConsumeIntegralInRange<uint32_t>(0, c.shape.cluster_ctas - 1);
  const std::string r = c.w.reg(RegKind::B64);
  c.w.line("mapa.shared::cluster.u64 {}, {}, {}", r, own.reg, rank);
  return {r, own.bytes};
}

inline Region base_in(Context& c, Space s, bool anywhere) {
  switch (s) {
    case Space::Global:
      return global_base(c, anywhere);
    case Space::Const:
      return const_base(c, anywhere);
    case Space::Shared:
      return shared_base(c, anywhere);
    case Space::Local:
      return local_base(c, anywhere);
    case Space::Param:
      return param_base(c, anywhere);
    case Space::Generic:
      return generic_base(c, anywhere);
    case Space::SharedCluster:
      return cluster_base(c, anywhere);
  }
  return absolute_address(c);
}

// base + index * stride, the index maybe lowered below zero first.
inline Region indexed(Context& c, const Region& base) {
  std::string index = c.pick(c.indices);
  if (c.in.ConsumeBool()) {
    const std::string lowered = c.w.reg(RegKind::B32);
    c.w.line("sub.s32 {}, {}, {}", lowered, index, c.in.PickValueInArray({1u, 4u, 32u, c.shape.threads}));
    index = lowered;
  }
  const int32_t stride = c.in.PickValueInArray({1, 2, 4, 8, 16, 128, 4096, 1 << 20, 0x7fffffff, -4, -1});
  const std::string wide = c.w.reg(RegKind::B64), sum = c.w.reg(RegKind::B64);
  if (c.in.ConsumeBool())
    c.w.line("mul.wide.s32 {}, {}, {}", wide, index, stride);
  else
    c.w.line("mul.wide.u32 {}, {}, {}", wide, index, static_cast<uint32_t>(stride));
  c.w.line("add.s64 {}, {}, {}", sum, base.reg, wide);
  return {sum, base.bytes};
}

// base + an offset near the region's edges (or the kernel's `off` argument).
inline Region offset(Context& c, const Region& base) {
  std::string by;
  if (c.kernel && c.in.ConsumeBool()) {
    by = c.value64;
  } else {
    by = c.w.reg(RegKind::B64);
    c.w.line("mov.u64 {}, {}", by, literal(edge_offset(c.in, base.bytes)));
  }
  const std::string sum = c.w.reg(RegKind::B64);
  c.w.line("add.s64 {}, {}, {}", sum, base.reg, by);
  return {sum, base.bytes};
}

// An address near or past the edges of a region, or anywhere.
inline Address edge_address(Context& c, Space s) {
  Region r = base_in(c, s, true);
  if (c.in.ConsumeBool()) r = indexed(c, r);
  if (c.in.ConsumeBool()) r = offset(c, r);
  const int32_t imm = c.in.ConsumeBool() ? edge_immediate(c.in, static_cast<uint32_t>(r.bytes)) : 0;
  return {r.reg, imm};
}

// An aligned address inside a region, so that the kernel runs on to what follows: a slot of
// `width` bytes, the same for every thread or picked by an index (modulo the slots).
inline Address inside_address(Context& c, Space s, uint32_t width) {
  const Region r = base_in(c, s, false);
  const uint64_t slots = std::min<uint64_t>(r.bytes, 0x7fffffff) / width;  // the offsets fit an immediate
  if (slots == 0) return {r.reg, 0};                                       // the region is smaller than the access
  if (c.in.ConsumeBool())
    return {r.reg, static_cast<int32_t>(width * c.in.ConsumeIntegralInRange<uint64_t>(0, slots - 1))};
  const std::string slot = c.w.reg(RegKind::B32), wide = c.w.reg(RegKind::B64), sum = c.w.reg(RegKind::B64);
  c.w.line("rem.u32 {}, {}, {}", slot, c.pick(c.indices), slots);
  c.w.line("mul.wide.u32 {}, {}, {}", wide, slot, width);
  c.w.line("add.s64 {}, {}, {}", sum, r.reg, wide);
  return {sum, 0};
}

// The address of an access of `width` bytes: mostly inside a region, else near its edges.
inline Address address_in(Context& c, Space s, uint32_t width) {
  return c.in.ConsumeIntegralInRange<int>(1, c.shape.edge_odds) == 1 ? edge_address(c, s) : inside_address(c, s, width);
}

}  // namespace ptx::fuzz
