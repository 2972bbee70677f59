#include "ptxpp/dsl/blackwell/instr_descriptor.hpp"

#include <fmt/format.h>

#include "ptxpp/dsl/error.hpp"

namespace ptx::blackwell {

std::string_view kind_name(MmaKind k) {
  switch (k) {
    case MmaKind::F16: return "kind::f16";
    case MmaKind::TF32: return "kind::tf32";
    case MmaKind::F8F6F4: return "kind::f8f6f4";
    case MmaKind::I8: return "kind::i8";
  }
  return "kind::f16";
}

int mma_k(MmaKind k, bool sparse) {
  const int dense = k == MmaKind::F16 ? 16 : k == MmaKind::TF32 ? 8 : 32;
  return sparse ? 2 * dense : dense;
}

std::string_view type_name(MmaType t) {
  static constexpr std::string_view names[] = {"f16", "bf16", "tf32", "e4m3", "e5m2", "e2m3", "e3m2", "e2m1", "u8", "s8"};
  return names[static_cast<int>(t)];
}

namespace {

std::string_view acc_name(AccType d) {
  switch (d) {
    case AccType::f16: return "f16";
    case AccType::f32: return "f32";
    case AccType::s32: return "s32";
  }
  return "?";
}

// The A/B type field for the kind, or -1 when the type is not one of the kind's.
int type_code(MmaKind k, MmaType t) {
  switch (k) {
    case MmaKind::F16: return t == MmaType::f16 ? 0 : t == MmaType::bf16 ? 1 : -1;
    case MmaKind::TF32: return t == MmaType::tf32 ? 2 : -1;
    case MmaKind::F8F6F4:
      switch (t) {
        case MmaType::e4m3: return 0;
        case MmaType::e5m2: return 1;
        case MmaType::e2m3: return 3;
        case MmaType::e3m2: return 4;
        case MmaType::e2m1: return 5;
        default: return -1;
      }
    case MmaKind::I8: return t == MmaType::u8 ? 0 : t == MmaType::s8 ? 1 : -1;
  }
  return -1;
}

MmaType type_of(MmaKind k, uint32_t code) {
  switch (k) {
    case MmaKind::F16: return code == 1 ? MmaType::bf16 : MmaType::f16;
    case MmaKind::TF32: return MmaType::tf32;
    case MmaKind::F8F6F4: {
      static constexpr MmaType f8[] = {MmaType::e4m3, MmaType::e5m2, MmaType::e4m3, MmaType::e2m3,
                                       MmaType::e3m2, MmaType::e2m1, MmaType::e4m3, MmaType::e4m3};
      return f8[code & 7];
    }
    case MmaKind::I8: return code == 1 ? MmaType::s8 : MmaType::u8;
  }
  return MmaType::f16;
}

bool legal_acc(MmaKind k, AccType d) {
  switch (k) {
    case MmaKind::F16:
    case MmaKind::F8F6F4: return d == AccType::f16 || d == AccType::f32;
    case MmaKind::TF32: return d == AccType::f32;
    case MmaKind::I8: return d == AccType::s32;
  }
  return false;
}

// The ISA's shapes (the manual's "Various combinations of .kind and shapes"); an empty
// string when (m, n) is one, else what the legal ones are. Sparsity changes only K, except
// for .ws, whose sparse forms have no N = 256.
std::string shape_problem(MmaKind k, CtaGroup g, int m, int n, bool ws, bool sparse) {
  auto in = [&](int lo, int step) { return n >= lo && n <= 256 && n % step == 0; };
  if (ws) {
    if (g != CtaGroup::One) return "tcgen05.mma.ws is cta_group::1 only";
    if (m != 32 && m != 64 && m != 128) return ".ws takes M = 32, 64 or 128";
    if (sparse) return n == 64 || n == 128 ? "" : "sparse .ws takes N = 64 or 128";
    return n == 64 || n == 128 || n == 256 ? "" : ".ws takes N = 64, 128 or 256";
  }
  // (A in tensor memory with M = 128 takes N in steps of 16 only: mma_tmem_a checks that.)
  if (g == CtaGroup::One) {
    if (m != 64 && m != 128) return "cta_group::1 takes M = 64 or 128";
    if (k == MmaKind::I8)
      return (n == 8 || n == 16 || n == 24 || in(32, 16)) ? "" : "kind::i8 with cta_group::1 takes N = 8, 16, 24 or 32..256 step 16";
    return in(8, 8) ? "" : "with cta_group::1, N is 8..256 step 8";
  }
  if (m != 128 && m != 256) return "cta_group::2 takes M = 128 or 256";
  if (k == MmaKind::I8) return in(32, 32) ? "" : "with cta_group::2, kind::i8 takes N = 32..256 step 32";
  return in(16, 16) ? "" : "with cta_group::2, N is 16..256 step 16";
}

}  // namespace

uint32_t InstrDescriptor::bits(ptx::SourceLocation where) const {
  const int ca = type_code(kind, a), cb = type_code(kind, b);
  if (ca < 0 || cb < 0)
    throw Error(fmt::format("instruction descriptor: A {} / B {} are not types of .{}", type_name(a), type_name(b), kind_name(kind)),
                where);
  if ((kind == MmaKind::F16 || kind == MmaKind::TF32) && a != b)
    throw Error(fmt::format("instruction descriptor: .{} needs A and B of one type, not {} and {}", kind_name(kind), type_name(a),
                            type_name(b)),
                where);
  if (!legal_acc(kind, d))
    throw Error(fmt::format("instruction descriptor: D of type {} is not one .{} accumulates into", acc_name(d), kind_name(kind)),
                where);
  if (const std::string p = shape_problem(kind, group, m, n, ws, sparse); !p.empty())
    throw Error(fmt::format("instruction descriptor: M = {}, N = {} is not a tcgen05.mma shape ({})", m, n, p), where);
  if (kind == MmaKind::I8 && (negate_a || negate_b))
    throw Error("instruction descriptor: .kind::i8 has no negate", where);
  if (kind != MmaKind::I8 && saturate) throw Error("instruction descriptor: saturate is for .kind::i8 only", where);
  if (sparsity_selector < 0 || sparsity_selector > 3)
    throw Error(fmt::format("instruction descriptor: the sparsity selector is 0 to 3, not {}", sparsity_selector), where);
  if (sparsity_selector != 0 && !sparse) throw Error("instruction descriptor: a sparsity selector needs sparse = true", where);
  if (sparsity_selector != 0 && (kind == MmaKind::F8F6F4 || kind == MmaKind::I8))
    throw Error(fmt::format("instruction descriptor: the sparsity selector of .{} must be 0", kind_name(kind)), where);
  if (max_shift != WsMaxShift::None && !ws)
    throw Error("instruction descriptor: the maximum B shift (bits 30-31) is for tcgen05.mma.ws only", where);
  return static_cast<uint32_t>(sparsity_selector) | uint32_t{sparse} << 2 | uint32_t{saturate} << 3 |
         static_cast<uint32_t>(d) << 4 | static_cast<uint32_t>(ca) << 7 | static_cast<uint32_t>(cb) << 10 | uint32_t{negate_a} << 13 | uint32_t{negate_b} << 14 | uint32_t{transpose_a} << 15 |
         uint32_t{transpose_b} << 16 | static_cast<uint32_t>(n >> 3) << 17 | static_cast<uint32_t>(m >> 4) << 24 |
         static_cast<uint32_t>(max_shift) << 30;
}

InstrDescriptor InstrDescriptor::decode(uint32_t b, MmaKind kind, CtaGroup group, bool ws) {
  InstrDescriptor d;
  d.kind = kind;
  d.group = group;
  d.ws = ws;
  d.sparsity_selector = static_cast<int>(b & 3);
  d.sparse = (b >> 2 & 1) != 0;
  d.max_shift = static_cast<WsMaxShift>(b >> 30);
  d.saturate = (b >> 3 & 1) != 0;
  d.d = static_cast<AccType>(b >> 4 & 3);
  d.a = type_of(kind, b >> 7 & 7);
  d.b = type_of(kind, b >> 10 & 7);
  d.negate_a = (b >> 13 & 1) != 0;
  d.negate_b = (b >> 14 & 1) != 0;
  d.transpose_a = (b >> 15 & 1) != 0;
  d.transpose_b = (b >> 16 & 1) != 0;
  d.n = static_cast<int>(b >> 17 & 0x3F) << 3;
  d.m = static_cast<int>(b >> 24 & 0x1F) << 4;
  return d;
}

InstrDescriptor bf16_f32(int m, int n, CtaGroup group) {
  InstrDescriptor d;
  d.m = m;
  d.n = n;
  d.group = group;
  return d;
}

}  // namespace ptx::blackwell
