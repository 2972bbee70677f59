// The optional parts of a tcgen05.mma: collector-buffer hints, .ashift, the sparse metadata,
// disable-output-lane, scale-input-d (MmaOptions); the weight-stationary form's B collector,
// zero-column mask and metadata (MmaWsOptions); the block-scaled form's (BlockScaledOptions).
// Each form takes only its own options struct, so a field a form has no operand for (a B
// collector on tcgen05.mma, scale-input-d on a block-scaled one, disable-output-lane on .ws)
// does not compile; what depends on the kind or CTA group is checked at trace time.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>

#include "ptxpp/dsl/reg.hpp"

namespace ptx::blackwell {

// What the instruction does with the collector buffer holding A (B for .ws):
// fill (load it there), use (read it from there), lastuse (read it, then drop it), discard.
// Without a hint the ISA assumes discard.
enum class CollectorOp : uint8_t { Fill, Use, LastUse, Discard };
// .ws: one of the four B collector buffers.
enum class CollectorBuffer : uint8_t { B0, B1, B2, B3 };
struct CollectorB {
  CollectorBuffer buffer = CollectorBuffer::B0;
  CollectorOp op = CollectorOp::Discard;
};
// ".collector::a::fill", ... ; ".collector::b2::use", ...
std::string collector_modifier(CollectorOp a);
std::string collector_modifier(CollectorB b);

// tcgen05.mma (kind::f16, tf32, f8f6f4, i8; A from shared or tensor memory):
//   tcgen05.mma{.sp}.cta_group::N.kind::K{.ashift}{.collector::a::OP}
//       [d], a, b, {[sparse_metadata],} idesc, {{disable_output_lane},} p{, scale_input_d};
struct MmaOptions {
  std::optional<CollectorOp> collector_a = std::nullopt;
  // .ashift: the rows of A (in tensor memory) shift down by one; M = 128 or 256, and not with
  // collector fill or use.
  bool ashift = false;
  // tcgen05.mma.sp: the tensor-memory address (.b32) of A's sparsity metadata. Needed exactly
  // when the descriptor is sparse (a run-time descriptor: it makes the instruction .sp).
  const Reg* sparse_metadata = nullptr;
  // Lanes of D left as they are: bit i of register j is lane 32 j + i; 4 .b32 registers for
  // cta_group::1, 8 for cta_group::2. Empty: none.
  std::span<const Reg> disable_output_lane = {};
  // D = A*B + D * 2^-s: an immediate 0..15, kind::f16 and kind::tf32 only.
  std::optional<int> scale_input_d = std::nullopt;
};

// tcgen05.mma.ws (cta_group::1; kind::f16, tf32, f8f6f4, i8):
//   tcgen05.mma.ws{.sp}.cta_group::1.kind::K{.collector::bN::OP}
//       [d], a, b, {[sparse_metadata],} idesc, p{, zero_column_mask};
struct MmaWsOptions {
  std::optional<CollectorB> collector_b = std::nullopt;
  const Reg* sparse_metadata = nullptr;   // as MmaOptions's
  const Reg* zero_column_mask = nullptr;  // a 64-bit zero-column mask descriptor (columns of B read as 0)
};

// Block-scaled tcgen05.mma (kind::mxf8f6f4, mxf4, mxf4nvf4):
//   tcgen05.mma{.sp}.cta_group::N.kind::K.block_scale{.VEC}{.collector::a::OP}
//       [d], a, b, {[sparse_metadata],} idesc, [scale_a], [scale_b], p;
struct BlockScaledOptions {
  std::optional<CollectorOp> collector_a = std::nullopt;
  const Reg* sparse_metadata = nullptr;
};

}  // namespace ptx::blackwell
