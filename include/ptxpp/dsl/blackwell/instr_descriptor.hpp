// The 32-bit instruction descriptor of tcgen05.mma for .kind::f16, .kind::tf32,
// .kind::f8f6f4 and .kind::i8 (PTX ISA, "Instruction descriptor"), built and checked on the host.
#pragma once

#include <cstdint>
#include <string_view>

#include "ptxpp/dsl/blackwell/cta_group.hpp"
#include "ptxpp/dsl/source_location.hpp"

namespace ptx::blackwell {

enum class MmaKind : uint8_t { F16, TF32, F8F6F4, I8 };
// "kind::f16", "kind::tf32", "kind::f8f6f4", "kind::i8"
std::string_view kind_name(MmaKind k);
// The K of one instruction: 16 for f16, 8 for tf32, 32 for f8f6f4 and i8; twice that sparse
// (tcgen05.mma.sp: A holds K/2 stored elements per row).
int mma_k(MmaKind k, bool sparse = false);

// Element types of A and B, with their descriptor encodings per kind:
//   kind::f16: f16 0, bf16 1;  kind::tf32: tf32 2;
//   kind::f8f6f4: e4m3 0, e5m2 1, e2m3 3, e3m2 4, e2m1 5;  kind::i8: u8 0, s8 1.
enum class MmaType : uint8_t { f16, bf16, tf32, e4m3, e5m2, e2m3, e3m2, e2m1, u8, s8 };
// The accumulator (D) type: f16 0, f32 1, s32 2.
enum class AccType : uint8_t { f16 = 0, f32 = 1, s32 = 2 };
std::string_view type_name(MmaType t);

// .ws only: how far B may shift while the tensor core tries to reuse it (bits 30-31).
enum class WsMaxShift : uint8_t { None = 0, By8 = 1, By16 = 2, By32 = 3 };

// The fields of the descriptor. bits() encodes them:
//   bits  0-1  sparsity selector           bit  2  sparsity (1: tcgen05.mma.sp)
//   bit   3    saturate (kind::i8 only)    bits 4-5  D type
//   bits  7-9  A type                      bits 10-12  B type
//   bit  13    negate A                    bit 14  negate B   (not kind::i8)
//   bit  15    transpose A (1: MN-major)   bit 16  transpose B (1: MN-major)
//   bits 17-22 N >> 3                      bits 24-28  M >> 4
//   bits 30-31 maximum B shift (.ws only)
// and checks at trace time (ptx::Error): the types belong to the kind (A and B the same
// kind::f16 / tf32 type; any two f8f6f4 types; u8/s8 mixed), D is legal for the kind (f16:
// f16/f32; tf32: f32; f8f6f4: f16/f32; i8: s32), and (M, N) is a dense shape of the ISA's
// table ("Various combinations of .kind and shapes") for the CTA group:
//   CtaGroup::One: M = 64 or 128, N in 8..256 step 8 (A in tensor memory with M = 128: step
//     16, checked by mma_tmem_a)
//   CtaGroup::Two: M = 128 or 256, N in 16..256 step 16
//   kind::i8: N = 8, 16, 24 or 32..256 step 16 (One); 32..256 step 32 (Two)
//   ws (tcgen05.mma.ws, CtaGroup::One only): M = 32, 64 or 128, N = 64, 128 or 256 (sparse:
//   64 or 128)
// Sparse (the manual's "Sparse Matrices"): the same shapes, K doubled; the sparsity selector
// (0-3, picking the metadata's sub-columns) only with sparse, and 0 for kind::f8f6f4 and i8.
struct InstrDescriptor {
  MmaKind kind = MmaKind::F16;
  MmaType a = MmaType::bf16, b = MmaType::bf16;
  AccType d = AccType::f32;
  int m = 128, n = 256;
  CtaGroup group = CtaGroup::One;
  bool transpose_a = false, transpose_b = false;
  bool negate_a = false, negate_b = false;
  bool saturate = false;
  bool sparse = false;
  int sparsity_selector = 0;
  bool ws = false;  // for tcgen05.mma.ws (mma_ws sets it); not in the bits, it decides the shapes
  WsMaxShift max_shift = WsMaxShift::None;

  uint32_t bits(ptx::SourceLocation where = ptx::SourceLocation::current()) const;
  // The fields back from bits (the kind, CTA group and .ws are not in the descriptor: given).
  static InstrDescriptor decode(uint32_t bits, MmaKind kind, CtaGroup group = CtaGroup::One, bool ws = false);
  friend bool operator==(const InstrDescriptor&, const InstrDescriptor&) = default;
};

// The common one: bf16 (or f16) A and B, f32 D, both K-major.
InstrDescriptor bf16_f32(int m, int n, CtaGroup group = CtaGroup::One);

}  // namespace ptx::blackwell
