#include "ptxpp/dsl/blackwell/smem_descriptor.hpp"

#include <fmt/format.h>

#include "../trace.hpp"
#include "emit.hpp"
#include "ptxpp/dsl/error.hpp"
#include "ptxpp/dsl/inst.hpp"

namespace ptx::blackwell {

using dsl::Trace;

uint32_t swizzle_bytes(SmemSwizzle s) {
  switch (s) {
    case SmemSwizzle::None: return 16;
    case SmemSwizzle::B32: return 32;
    case SmemSwizzle::B64: return 64;
    case SmemSwizzle::B128:
    case SmemSwizzle::B128_Base32B: return 128;
  }
  return 16;
}

uint64_t SmemDescriptor::bits(ptx::SourceLocation where) const {
  auto field = [&](uint32_t v, const char* what) -> uint64_t {
    if (v % 16 != 0 || v >= (1u << 18))
      throw Error(fmt::format("shared memory descriptor: {} = {} bytes is not a multiple of 16 below 2^18", what, v), where);
    return v >> 4;
  };
  if (base_offset > 7) throw Error(fmt::format("shared memory descriptor: base offset {} is not in 0..7", base_offset), where);
  return field(start, "start address") | field(lbo, "leading byte offset") << 16 | field(sbo, "stride byte offset") << 32 |
         uint64_t{1} << 46 | uint64_t{base_offset} << 49 | uint64_t{lbo_absolute} << 52 |
         uint64_t{static_cast<uint8_t>(swizzle)} << 61;
}

SmemDescriptor SmemDescriptor::decode(uint64_t b, ptx::SourceLocation where) {
  if ((b >> 46 & 7) != 1)
    throw Error(fmt::format("shared memory descriptor {:#x}: the version field (bits 46-48) is {}, not 1", b, b >> 46 & 7), where);
  const auto sw = static_cast<uint8_t>(b >> 61);
  if (sw != 0 && sw != 1 && sw != 2 && sw != 4 && sw != 6)
    throw Error(fmt::format("shared memory descriptor {:#x}: swizzle mode {} is not 0, 1, 2, 4 or 6", b, sw), where);
  SmemDescriptor d;
  d.start = static_cast<uint32_t>(b & 0x3FFF) << 4;
  d.lbo = static_cast<uint32_t>(b >> 16 & 0x3FFF) << 4;
  d.sbo = static_cast<uint32_t>(b >> 32 & 0x3FFF) << 4;
  d.base_offset = static_cast<uint32_t>(b >> 49 & 7);
  d.lbo_absolute = (b >> 52 & 1) != 0;
  d.swizzle = static_cast<SmemSwizzle>(sw);
  return d;
}

SmemDescriptor k_major(uint32_t start, SmemSwizzle s, uint32_t sbo, uint32_t lbo) {
  return SmemDescriptor{start, lbo, sbo, 0, false, s};
}

SmemDescriptor mn_major(uint32_t start, SmemSwizzle s, uint32_t lbo, uint32_t sbo) {
  return SmemDescriptor{start, lbo, sbo, 0, false, s};
}

Reg make_smem_descriptor(const Reg& smem_addr, const SmemDescriptor& d, ptx::SourceLocation where) {
  Trace& t = Trace::current(where);
  detail::check_int_reg(smem_addr, 32, "make_smem_descriptor: the shared address", where);
  SmemDescriptor hi = d;
  hi.start = 0;
  const uint64_t high = hi.bits(where);
  Reg a(DType::b32, {}, where), b(DType::b32, {}, where), w(DType::u64, {}, where), r(DType::b64, {}, where);
  const Operand shr[] = {a, smem_addr, Operand(4)};
  t.emit(inst::shr.u32, shr, where);
  const Operand and_[] = {b, a, Operand(16383)};
  t.emit(inst::and_.b32, and_, where);
  const Operand cvt[] = {w, b};
  t.emit(inst::cvt.u64.u32, cvt, where);
  const Operand or_[] = {r, w, Operand(high)};
  t.emit(inst::or_.b64, or_, where);
  return r;
}

}  // namespace ptx::blackwell
