// The 32-bit instruction descriptor of block-scaled tcgen05.mma (.kind::mxf8f6f4, .kind::mxf4,
// .kind::mxf4nvf4 with .block_scale; PTX ISA, "Instruction descriptor", the tables for those
// kinds), built and checked on the host, with the scale vector size the instruction names.
#pragma once

#include <cstdint>
#include <string_view>

#include "ptxpp/dsl/blackwell/cta_group.hpp"
#include "ptxpp/dsl/blackwell/instr_descriptor.hpp"
#include "ptxpp/dsl/source_location.hpp"

namespace ptx::blackwell {

enum class ScaledKind : uint8_t { MXF8F6F4, MXF4, MXF4NVF4 };
// "kind::mxf8f6f4", "kind::mxf4", "kind::mxf4nvf4"
std::string_view kind_name(ScaledKind k);

// The instruction's scale vector size modifier: Default writes none (ptxas then reads .block32;
// kind::mxf4nvf4 must name one), the others .scale_vec::1X, ::2X, ::4X, .block16, .block32.
enum class ScaleVec : uint8_t { Default, X1, X2, X4, Block16, Block32 };
// ".scale_vec::1X", ..., ".block32"; "" for Default.
std::string_view scale_vec_modifier(ScaleVec v);

// The scale factors' type (bit 23, for both A and B): ue8m0 1, ue4m3 0.
enum class ScaleType : uint8_t { ue4m3 = 0, ue8m0 = 1 };

// The fields of the descriptor. bits() encodes them:
//   bits  0-1  0 (reserved)                bit  2  sparsity (1: tcgen05.mma.sp)
//   bit   3    0 (reserved)                bits 4-5  scale factor B ID
//   bits  7-9  A type                      bits 10-12 B type (mxf4 kinds: 10-11, bit 12 0)
//   bit  13    negate A                    bit 14  negate B
//   bit  15    transpose A (1: MN-major)   bit 16  transpose B   (0 for the mxf4 kinds)
//   bits 17-22 N >> 3                      bit 23  scale type (1 ue8m0, 0 ue4m3)
//   bits 27-28 M >> 7                      bits 29-30 scale factor A ID
//   bit  31    K = 96 (mxf4 kinds only; 0: K = 64 dense, 128 sparse)
// Types: kind::mxf8f6f4 e4m3 0, e5m2 1, e2m3 3, e3m2 4, e2m1 5 (any pair); the mxf4 kinds
// e2m1 1 for both. D is always f32. Checked at trace time (ptx::Error):
//   scale vector size: mxf8f6f4 1X or block32 (or Default); mxf4 2X or block32 (or Default);
//     mxf4nvf4 2X, 4X, block16 or block32 (named)
//   scale type: ue8m0, and for mxf4nvf4 with 4X/block16 also ue4m3
//   scale factor IDs (the byte of each tensor-memory word the factors start at): 1X 0-3,
//     2X 0 or 2, 4X 0; with K = 96, block32 0-3 and block16 0 or 2
//   shapes: CtaGroup::One M = 128, N 8..256 step 8; CtaGroup::Two M = 128 or 256 (sparse: 256),
//     N 16..256 step 16; K = 96 needs CtaGroup::Two, M = 256, dense, .block16 or .block32
struct BlockScaledDescriptor {
  ScaledKind kind = ScaledKind::MXF8F6F4;
  MmaType a = MmaType::e4m3, b = MmaType::e4m3;
  ScaleVec vec = ScaleVec::X1;
  ScaleType scale_type = ScaleType::ue8m0;
  int m = 128, n = 256;
  CtaGroup group = CtaGroup::One;
  int scale_a_id = 0, scale_b_id = 0;
  bool transpose_a = false, transpose_b = false;
  bool negate_a = false, negate_b = false;
  bool sparse = false;
  bool k96 = false;

  uint32_t bits(ptx::SourceLocation where = ptx::SourceLocation::current()) const;
  // The fields back from bits (the kind, scale vector size and CTA group are not in them: given).
  static BlockScaledDescriptor decode(uint32_t bits, ScaledKind kind, ScaleVec vec, CtaGroup group = CtaGroup::One);
  friend bool operator==(const BlockScaledDescriptor&, const BlockScaledDescriptor&) = default;
};

// The K of one instruction: 32 for mxf8f6f4, 64 for the mxf4 kinds (96 with k96); sparse twice.
int mma_k(const BlockScaledDescriptor& d);
// Scale factors per row of A (and per column of B): 1X 1, 2X 2, 4X 4; block32 K / 32, block16
// K / 16 (dense K). An error for a size the kind does not take.
int scale_factors_per_row(const BlockScaledDescriptor& d, ptx::SourceLocation where = ptx::SourceLocation::current());

}  // namespace ptx::blackwell
