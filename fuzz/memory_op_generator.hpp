// The memory instructions of generated kernels: ld, st, atom and red of every width a state space
// takes (8 to 64 bits, v2, v4, .b128), cp.async from global to shared memory and st.bulk, each at
// an address from address_generator.hpp.
#pragma once

#include <algorithm>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "address_generator.hpp"

namespace ptx::fuzz {

enum class Width : uint8_t { B8, B16, B32, B64, V2B32, V4B32, V2B64, B128 };

struct WidthShape {
  const char* type;
  int elements;
  RegKind kind;
  uint32_t bytes;
};

inline WidthShape shape_of(Width w) {
  switch (w) {
    case Width::B8:
      return {".u8", 1, RegKind::B32, 1};
    case Width::B16:
      return {".u16", 1, RegKind::B32, 2};
    case Width::B32:
      return {".u32", 1, RegKind::B32, 4};
    case Width::B64:
      return {".u64", 1, RegKind::B64, 8};
    case Width::V2B32:
      return {".v2.u32", 2, RegKind::B32, 8};
    case Width::V4B32:
      return {".v4.u32", 4, RegKind::B32, 16};
    case Width::V2B64:
      return {".v2.u64", 2, RegKind::B64, 16};
    case Width::B128:
      return {".b128", 1, RegKind::B128, 16};
  }
  return {".u32", 1, RegKind::B32, 4};
}

// One register, or a vector of them: "{%r1, %r2}".
inline std::string vector_text(const std::vector<std::string>& regs) {
  return regs.size() == 1 ? regs[0] : fmt::format("{{{}}}", fmt::join(regs, ", "));
}

inline void load(Context& c, Space s) {
  const WidthShape w = shape_of(static_cast<Width>(c.in.ConsumeIntegralInRange<int>(0, 7)));
  const Address a = address_in(c, s, w.bytes);
  std::vector<std::string> d;
  for (int i = 0; i < w.elements; ++i) d.push_back(c.w.reg(w.kind));
  c.w.line("ld{}{} {}, {}", suffix(s), w.type, vector_text(d), a.operand());
  if (w.elements == 1 && w.kind == RegKind::B32) c.indices.push_back(d[0]);  // a loaded index: computed addresses
}

inline std::string value_of(Context& c, RegKind k) {
  if (k == RegKind::B64) return c.value64;
  if (k == RegKind::B128) return c.value128;
  return c.in.ConsumeBool() ? c.pick(c.indices) : std::to_string(c.in.ConsumeIntegral<uint8_t>());
}

inline void store(Context& c, Space s) {
  const WidthShape w = shape_of(static_cast<Width>(c.in.ConsumeIntegralInRange<int>(0, 7)));
  const Address a = address_in(c, s, w.bytes);
  std::vector<std::string> v;
  for (int i = 0; i < w.elements; ++i) v.push_back(value_of(c, w.kind));
  c.w.line("st{}{} {}, {}", suffix(s), w.type, a.operand(), vector_text(v));
}

// atom or red with an operation of 32, 64 or (sm_90) 128 bits.
inline void atomic(Context& c, Space s) {
  static const char* const kOps32[] = {"add.u32", "exch.b32", "max.s32", "min.u32", "inc.u32",
                                       "dec.u32", "and.b32",  "or.b32",  "xor.b32", "cas.b32"};
  static const char* const kOps64[] = {"add.u64", "exch.b64", "max.u64", "and.b64", "cas.b64"};
  static const char* const kOps128[] = {"exch.b128", "cas.b128"};
  const int bits = c.in.PickValueInArray({32, 64, 128});
  const bool wide = bits == 128 && c.shape.sm >= 90;
  const RegKind kind = wide ? RegKind::B128 : bits == 64 ? RegKind::B64 : RegKind::B32;
  const std::string op = wide                   ? c.in.PickValueInArray(kOps128)
                         : kind == RegKind::B64 ? c.in.PickValueInArray(kOps64)
                                                : c.in.PickValueInArray(kOps32);
  const bool cas = op.starts_with("cas");
  const Address a = address_in(c, s, wide ? 16 : kind == RegKind::B64 ? 8 : 4);
  const std::string b = value_of(c, kind), extra = cas ? ", " + value_of(c, kind) : "";
  if (!cas && !wide && !op.starts_with("exch") && c.in.ConsumeBool()) {
    c.w.line("red{}.{} {}, {}", suffix(s), op, a.operand(), b);
    return;
  }
  const std::string d = c.w.reg(kind);
  c.w.line("atom{}.{} {}, {}, {}{}", suffix(s), op, d, a.operand(), b, extra);
}

// cp.async (sm_80): 4, 8 or 16 bytes from global to shared memory, maybe fewer read (zero fill).
inline void async_copy(Context& c) {
  const bool cg = c.in.ConsumeBool();
  const uint32_t bytes = cg ? 16 : c.in.PickValueInArray({4u, 8u, 16u});
  const Address dst = address_in(c, Space::Shared, bytes), src = address_in(c, Space::Global, bytes);
  const std::string src_size =
      c.in.ConsumeBool() ? fmt::format(", {}", c.in.ConsumeIntegralInRange<uint32_t>(0, bytes)) : "";
  c.w.line("cp.async.{}.shared.global {}, {}, {}{}", cg ? "cg" : "ca", dst.operand(), src.operand(), bytes, src_size);
  c.w.line("cp.async.commit_group");
  c.w.line("cp.async.wait_group 0");
}

// The byte count of a bulk copy: a multiple of 16 (an immediate), or any value in a register.
inline std::string bulk_size(Context& c, uint32_t& bytes) {
  bytes = 16 * c.in.ConsumeIntegralInRange<uint32_t>(0, 64);
  if (c.in.ConsumeIntegralInRange<int>(0, 7) > 0) return std::to_string(bytes);
  const std::string r = c.w.reg(RegKind::B32);
  bytes = edge_u32(c.in, 1 << 20);
  c.w.line("mov.u32 {}, {}", r, bytes);
  return r;
}

// cp.async.bulk (sm_90) from shared to global memory, in a bulk group waited for at once.
inline void bulk_copy_out(Context& c) {
  uint32_t bytes = 0;
  const std::string size = bulk_size(c, bytes);
  const Address dst = address_in(c, Space::Global, std::max(bytes, 16u)),
                src = address_in(c, Space::Shared, std::max(bytes, 16u));
  c.w.line("cp.async.bulk.global.shared::cta.bulk_group {}, {}, {}", dst.operand(), src.operand(), size);
  c.w.line("cp.async.bulk.commit_group");
  c.w.line("cp.async.bulk.wait_group 0");
}

// st.bulk (sm_100): zeros `size` bytes of shared memory; the size an immediate or any register value.
inline void bulk_store(Context& c) {
  const Address dst = address_in(c, Space::Shared, 8);
  std::string size = std::to_string(8 * c.in.ConsumeIntegralInRange<uint32_t>(0, 600));
  if (c.in.ConsumeBool()) {
    size = c.w.reg(RegKind::B64);
    c.w.line("mov.u64 {}, {}", size, literal(edge_offset(c.in, c.shape.shared_bytes)));
  }
  c.w.line("st.bulk.weak.shared::cta {}, {}, 0", dst.operand(), size);
}

// One memory instruction in a state space this function can address.
inline void memory_op(Context& c) {
  std::vector<Space> spaces = {Space::Global, Space::Const, Space::Shared, Space::Local, Space::Generic};
  if (c.kernel) spaces.push_back(Space::Param);
  if (c.shape.sm >= 90) spaces.push_back(Space::SharedCluster);
  const Space s = c.pick(spaces);
  const bool writable = s != Space::Const && s != Space::Param;
  const bool atomics = writable && s != Space::Local;
  switch (c.in.ConsumeIntegralInRange<int>(0, 4)) {
    case 0:
      return load(c, s);
    case 1:
      return writable ? store(c, s) : load(c, s);
    case 2:
      return atomics ? atomic(c, s) : load(c, s);
    case 3:
      if (c.shape.sm >= 100 && c.in.ConsumeBool()) return bulk_store(c);
      return c.shape.sm >= 90 && c.in.ConsumeBool() ? bulk_copy_out(c) : async_copy(c);
    default:
      return writable ? store(c, s) : load(c, s);
  }
}

}  // namespace ptx::fuzz
