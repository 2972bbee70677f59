#include "ptxpp/dsl/blackwell/block_scaled_descriptor.hpp"

#include <fmt/format.h>

#include "ptxpp/dsl/error.hpp"

namespace ptx::blackwell {

std::string_view kind_name(ScaledKind k) {
  switch (k) {
    case ScaledKind::MXF8F6F4:
      return "kind::mxf8f6f4";
    case ScaledKind::MXF4:
      return "kind::mxf4";
    case ScaledKind::MXF4NVF4:
      return "kind::mxf4nvf4";
  }
  return "kind::mxf8f6f4";
}

std::string_view scale_vec_modifier(ScaleVec v) {
  switch (v) {
    case ScaleVec::Default:
      return "";
    case ScaleVec::X1:
      return ".scale_vec::1X";
    case ScaleVec::X2:
      return ".scale_vec::2X";
    case ScaleVec::X4:
      return ".scale_vec::4X";
    case ScaleVec::Block16:
      return ".block16";
    case ScaleVec::Block32:
      return ".block32";
  }
  return "";
}

namespace {

bool is_mxf4(ScaledKind k) { return k != ScaledKind::MXF8F6F4; }

// The A/B type field, or -1 when the type is not one of the kind's.
int type_code(ScaledKind k, MmaType t) {
  if (is_mxf4(k)) return t == MmaType::e2m1 ? 1 : -1;
  switch (t) {
    case MmaType::e4m3:
      return 0;
    case MmaType::e5m2:
      return 1;
    case MmaType::e2m3:
      return 3;
    case MmaType::e3m2:
      return 4;
    case MmaType::e2m1:
      return 5;
    default:
      return -1;
  }
}

MmaType type_of(ScaledKind k, uint32_t code) {
  if (is_mxf4(k)) return MmaType::e2m1;
  static constexpr MmaType f8[] = {MmaType::e4m3, MmaType::e5m2, MmaType::e4m3, MmaType::e2m3,
                                   MmaType::e3m2, MmaType::e2m1, MmaType::e4m3, MmaType::e4m3};
  return f8[code & 7];
}

std::string vec_text(ScaleVec v) {
  return v == ScaleVec::Default ? std::string("no scale vector size") : std::string(scale_vec_modifier(v));
}

// Why the kind does not take the scale vector size, or "" when it does (the manual's "Valid
// combinations of scale_vectorsize with types and MMA-Kind").
std::string_view vec_problem(ScaledKind k, ScaleVec v) {
  switch (k) {
    case ScaledKind::MXF8F6F4:
      return v == ScaleVec::Default || v == ScaleVec::X1 || v == ScaleVec::Block32
                 ? ""
                 : "kind::mxf8f6f4 takes .scale_vec::1X or .block32";
    case ScaledKind::MXF4:
      return v == ScaleVec::Default || v == ScaleVec::X2 || v == ScaleVec::Block32
                 ? ""
                 : "kind::mxf4 takes .scale_vec::2X or .block32";
    case ScaledKind::MXF4NVF4:
      if (v == ScaleVec::Default)
        return "kind::mxf4nvf4 must name its scale vector size (.scale_vec::2X, ::4X, .block16, .block32)";
      return v == ScaleVec::X1 ? "kind::mxf4nvf4 takes .scale_vec::2X, ::4X, .block16 or .block32" : "";
  }
  return "";
}

std::string shape_problem(const BlockScaledDescriptor& d) {
  const int n = d.n, m = d.m;
  if (d.k96) {
    if (!is_mxf4(d.kind)) return "K = 96 is for kind::mxf4 and kind::mxf4nvf4 only";
    if (d.group != CtaGroup::Two || m != 256 || d.sparse) return "K = 96 is a dense cta_group::2 shape with M = 256";
    if (d.vec != ScaleVec::Block16 && d.vec != ScaleVec::Block32 && d.vec != ScaleVec::Default)
      return "K = 96 takes its scale vector size as .block16 or .block32";
  }
  if (d.group == CtaGroup::One) {
    if (m != 128) return "cta_group::1 takes M = 128";
    return n >= 8 && n <= 256 && n % 8 == 0 ? "" : "with cta_group::1, N is 8..256 step 8";
  }
  if (d.sparse ? m != 256 : m != 128 && m != 256)
    return d.sparse ? "sparse with cta_group::2 takes M = 256" : "cta_group::2 takes M = 128 or 256";
  return n >= 16 && n <= 256 && n % 16 == 0 ? "" : "with cta_group::2, N is 16..256 step 16";
}

}  // namespace

int mma_k(const BlockScaledDescriptor& d) {
  const int dense = d.kind == ScaledKind::MXF8F6F4 ? 32 : d.k96 ? 96 : 64;
  return d.sparse ? 2 * dense : dense;
}

int scale_factors_per_row(const BlockScaledDescriptor& d, ptx::SourceLocation where) {
  if (const std::string_view p = vec_problem(d.kind, d.vec); !p.empty())
    throw Error(
        fmt::format("tcgen05.mma.{}: {} is not a scale vector size of it ({})", kind_name(d.kind), vec_text(d.vec), p),
        where);
  const int dense_k = d.kind == ScaledKind::MXF8F6F4 ? 32 : d.k96 ? 96 : 64;
  switch (d.vec) {
    case ScaleVec::X1:
      return 1;
    case ScaleVec::X2:
      return 2;
    case ScaleVec::X4:
      return 4;
    case ScaleVec::Block16:
      return dense_k / 16;
    case ScaleVec::Default:
    case ScaleVec::Block32:
      return dense_k / 32;
  }
  return 1;
}

uint32_t BlockScaledDescriptor::bits(ptx::SourceLocation where) const {
  const std::string_view kn = kind_name(kind);
  const int ca = type_code(kind, a), cb = type_code(kind, b);
  if (ca < 0 || cb < 0)
    throw Error(fmt::format("block-scaled instruction descriptor: A {} / B {} are not types of .{} ({})", type_name(a),
                            type_name(b), kn, is_mxf4(kind) ? "e2m1 only" : "e4m3, e5m2, e2m3, e3m2, e2m1"),
                where);
  const int per_row = scale_factors_per_row(*this, where);
  if (scale_type == ScaleType::ue4m3 && !(kind == ScaledKind::MXF4NVF4 && per_row == 4))
    throw Error(fmt::format("block-scaled instruction descriptor: ue4m3 scale factors are only for .kind::mxf4nvf4 "
                            "with .scale_vec::4X or "
                            ".block16 (.{} with {} takes ue8m0)",
                            kn, vec_text(vec)),
                where);
  if (const std::string p = shape_problem(*this); !p.empty())
    throw Error(fmt::format("block-scaled instruction descriptor: M = {}, N = {}{} is not a tcgen05.mma.{} shape ({})",
                            m, n, k96 ? ", K = 96" : "", kn, p),
                where);
  if (is_mxf4(kind) && (transpose_a || transpose_b))
    throw Error(fmt::format("block-scaled instruction descriptor: .{} does not transpose A or B (both K-major)", kn),
                where);
  // the ID is the byte of the tensor-memory word the row's factors start at: they must fit in it,
  // aligned to their size (the manual's layouts; 3 per row (K = 96, block32) sit at any byte)
  const int span = per_row == 3 ? 1 : per_row == 6 ? 2 : per_row;
  for (const auto& [id, name] : {std::pair{scale_a_id, "A"}, std::pair{scale_b_id, "B"}})
    if (id < 0 || id > 3 || id % span != 0 || id + span > 4)
      throw Error(
          fmt::format(
              "block-scaled instruction descriptor: scale factor {} ID {} is not one of {} ({} factors per row)", name,
              id,
              span == 1   ? "0-3"
              : span == 2 ? "0 or 2"
                          : "0 (4 factors fill the word)",
              per_row),
          where);
  return uint32_t{sparse} << 2 | static_cast<uint32_t>(scale_b_id) << 4 | static_cast<uint32_t>(ca) << 7 |
         static_cast<uint32_t>(cb) << 10 | uint32_t{negate_a} << 13 | uint32_t{negate_b} << 14 |
         uint32_t{transpose_a} << 15 | uint32_t{transpose_b} << 16 | static_cast<uint32_t>(n >> 3) << 17 |
         static_cast<uint32_t>(scale_type) << 23 | static_cast<uint32_t>(m >> 7) << 27 |
         static_cast<uint32_t>(scale_a_id) << 29 | uint32_t{k96} << 31;
}

BlockScaledDescriptor BlockScaledDescriptor::decode(uint32_t b, ScaledKind kind, ScaleVec vec, CtaGroup group) {
  BlockScaledDescriptor d;
  d.kind = kind;
  d.vec = vec;
  d.group = group;
  d.sparse = (b >> 2 & 1) != 0;
  d.scale_b_id = static_cast<int>(b >> 4 & 3);
  d.a = type_of(kind, b >> 7 & 7);
  d.b = type_of(kind, b >> 10 & (is_mxf4(kind) ? 3 : 7));
  d.negate_a = (b >> 13 & 1) != 0;
  d.negate_b = (b >> 14 & 1) != 0;
  d.transpose_a = (b >> 15 & 1) != 0;
  d.transpose_b = (b >> 16 & 1) != 0;
  d.n = static_cast<int>(b >> 17 & 0x3F) << 3;
  d.scale_type = static_cast<ScaleType>(b >> 23 & 1);
  d.m = static_cast<int>(b >> 27 & 3) << 7;
  d.scale_a_id = static_cast<int>(b >> 29 & 3);
  d.k96 = is_mxf4(kind) && (b >> 31) != 0;
  return d;
}

}  // namespace ptx::blackwell
