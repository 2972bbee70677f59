// wgmma (sm_90a): shared-memory matrix descriptors, every dense wgmma.mma_async kind (f16, bf16,
// tf32, e4m3/e5m2, s8/u8, b1 inputs) with A from a descriptor or from registers, its
// fence/commit/wait, and the accumulator and A register fragment maps.
#pragma once

#include <cstdint>
#include <utility>

#include "ptxpp/dsl/reg.hpp"
#include "ptxpp/dsl/source_location.hpp"
#include "ptxpp/dsl/types.hpp"

namespace ptx::hopper {

// The descriptor's swizzle mode field (bits 62-63), with the manual's encoding.
enum class DescSwizzle : uint8_t { None = 0, B128 = 1, B64 = 2, B32 = 3 };
// The swizzle span in bytes: 16 (none: one 16-byte core-matrix row), 32, 64, 128.
uint32_t swizzle_bytes(DescSwizzle s);

// The 64-bit shared-memory matrix descriptor (PTX ISA, "Matrix Descriptor Format"):
//   bits  0-13  start address >> 4
//   bits 16-29  leading dimension byte offset (LBO) >> 4
//   bits 32-45  stride dimension byte offset (SBO) >> 4
//   bits 49-51  matrix base offset (0 when the swizzle pattern starts at a multiple of its
//               repeat: 1024 / 512 / 256 bytes for 128B / 64B / 32B)
//   bits 62-63  swizzle mode (0 none, 1 128B, 2 64B, 3 32B)
// Other bits are 0. Start, LBO and SBO are byte values, multiples of 16 below 2^18.
struct MatrixDescriptor {
  uint32_t start = 0, lbo = 0, sbo = 0;
  uint32_t base_offset = 0;
  DescSwizzle swizzle = DescSwizzle::None;

  uint64_t bits(ptx::SourceLocation where = ptx::SourceLocation::current()) const;  // an error for fields that do not fit
  static MatrixDescriptor decode(uint64_t bits);
  friend bool operator==(const MatrixDescriptor&, const MatrixDescriptor&) = default;
};

// The canonical layouts (what TMA writes with the same swizzle), for one operand tile whose
// rows (M or N for K-major; K for MN-major) are `swizzle_bytes(s)` long:
//  * K-major, swizzled: 8-row x span atoms, atoms along M/N `sbo` bytes apart (8 * span when
//    packed: 1024 for 128B); LBO is unused (the K extent of one wgmma, 32 bytes for 16-bit
//    types, lies inside the span) and written as 16 (1 in the field). Step K by 16 elements
//    by adding 32 bytes to the start.
//  * K-major, no swizzle: 8 x 16-byte core matrices; `lbo` between core matrices along K,
//    `sbo` between core matrices along M/N.
//  * MN-major, swizzled: atoms of 8 K rows x span bytes of M/N; `lbo` between atoms along
//    M/N, `sbo` between groups of 8 K rows (8 * span when packed).
//  * MN-major, no swizzle: core matrices of 8 K rows x 16 bytes; `lbo` between core
//    matrices along K, `sbo` along M/N.
MatrixDescriptor k_major(uint32_t start, DescSwizzle s, uint32_t sbo, uint32_t lbo = 16);
MatrixDescriptor mn_major(uint32_t start, DescSwizzle s, uint32_t lbo, uint32_t sbo);

// A descriptor at run time from a 32-bit shared-window address (Buffer::base() + offset)
// and the other fields of `d` (its start is ignored); four instructions:
//   shr.u32 t, addr, 4;  and.b32 t, t, 16383;  cvt.u64.u32 d, t;  or.b64 d, d, HIGH;
// HIGH = d.bits() with a zero start. Advancing the start by B bytes (another stage or K
// step) is then one `add.s64 d2, d, B/16` (ptx operators: `desc + B / 16`).
Reg make_descriptor(const Reg& smem_addr, const MatrixDescriptor& d,
                    ptx::SourceLocation where = ptx::SourceLocation::current());

// wgmma.fence.sync.aligned;
void wgmma_fence(ptx::SourceLocation where = ptx::SourceLocation::current());
// wgmma.commit_group.sync.aligned;
void wgmma_commit(ptx::SourceLocation where = ptx::SourceLocation::current());
// wgmma.wait_group.sync.aligned n;
void wgmma_wait(int n, ptx::SourceLocation where = ptx::SourceLocation::current());

// One dense wgmma.mma_async kind: the element types of A, B and D, and .satfinite.
// The kinds of the ISA (A and B may differ only where both are 8-bit); wgmma_kind_info knows
// each one's K and operands:
//   A, B          D          K    imm-scale-a/b   imm-trans-a/b   .satfinite   N (8..256)
//   f16           f32, f16   16   1 or -1         0 or 1          -            multiple of 8
//   bf16          f32        16   1 or -1         0 or 1          -            multiple of 8
//   tf32          f32         8   1 or -1         - (K-major)     -            multiple of 8
//   e4m3, e5m2    f32, f16   32   1 or -1         - (K-major)     -            multiple of 8
//   s8, u8        s32        32   -               - (K-major)     optional     8, 16, 24, 32, 48, ... (16s)
//   b1 (.and.popc) s32      256   -               - (K-major)     -            8, 16, 24, 32, 48, ... (16s)
struct WgmmaKind {
  DType a = DType::bf16, b = DType::bf16, d = DType::f32;
  bool satfinite = false;
  friend bool operator==(const WgmmaKind&, const WgmmaKind&) = default;
};

// What a kind's instruction looks like; `problem` is null for a kind of the ISA, otherwise
// why it is not one (then the other fields are meaningless).
struct WgmmaKindInfo {
  const char* problem = nullptr;
  int k = 0;                    // 256 / bits(A): 32 bytes of A's row
  int acc_per_n = 2;            // accumulator registers: N / acc_per_n (4 for packed f16, else 2)
  bool scale = false;           // takes imm-scale-a, imm-scale-b (1 or -1)
  bool trans = false;           // takes imm-trans-a (descriptor form), imm-trans-b
  bool integer = false;         // s8/u8/b1: N is 8, 16, 24 or a multiple of 16
  bool and_popc = false;        // b1: the mnemonic ends in .and.popc
};
constexpr bool wgmma_is_8bit_float(DType t) { return t == DType::e4m3 || t == DType::e5m2; }
constexpr bool wgmma_is_8bit_int(DType t) { return t == DType::s8 || t == DType::u8; }
constexpr WgmmaKindInfo wgmma_kind_info(WgmmaKind k) {
  const bool f32_or_f16 = k.d == DType::f32 || k.d == DType::f16;
  WgmmaKindInfo i;
  i.acc_per_n = k.d == DType::f16 ? 4 : 2;
  if (k.satfinite && !wgmma_is_8bit_int(k.a)) i.problem = ".satfinite is only for s8/u8 inputs";
  else if (k.a == DType::f16 || k.a == DType::bf16) {
    i.k = 16, i.scale = true, i.trans = true;
    if (k.b != k.a) i.problem = "16-bit A and B have the same type";
    else if (!(k.d == DType::f32 || (k.a == DType::f16 && k.d == DType::f16)))
      i.problem = "f16 inputs accumulate in f32 or f16, bf16 inputs in f32";
  } else if (k.a == DType::tf32) {
    i.k = 8, i.scale = true;
    if (k.b != DType::tf32) i.problem = "tf32 A takes tf32 B";
    else if (k.d != DType::f32) i.problem = "tf32 inputs accumulate in f32";
  } else if (wgmma_is_8bit_float(k.a)) {
    i.k = 32, i.scale = true;
    if (!wgmma_is_8bit_float(k.b)) i.problem = "e4m3/e5m2 A takes e4m3 or e5m2 B";
    else if (!f32_or_f16) i.problem = "e4m3/e5m2 inputs accumulate in f32 or f16";
  } else if (wgmma_is_8bit_int(k.a)) {
    i.k = 32, i.integer = true;
    if (!wgmma_is_8bit_int(k.b)) i.problem = "s8/u8 A takes s8 or u8 B";
    else if (k.d != DType::s32) i.problem = "s8/u8 inputs accumulate in s32";
  } else if (k.a == DType::b1) {
    i.k = 256, i.integer = true, i.and_popc = true;
    if (k.b != DType::b1) i.problem = "b1 A takes b1 B";
    else if (k.d != DType::s32) i.problem = "b1 inputs accumulate in s32 (.and.popc)";
  } else {
    i.problem = "A is f16, bf16, tf32, e4m3, e5m2, s8, u8 or b1";
  }
  return i;
}

// A kind checked at compile time: `constexpr auto k = wgmma_kind(e4m3, e5m2, f16);` compiles,
// wgmma_kind(f16, bf16, f32) does not (the throw is not a constant expression).
consteval WgmmaKind wgmma_kind(DType a, DType b, DType d, bool satfinite = false) {
  const WgmmaKind k{a, b, d, satfinite};
  if (wgmma_kind_info(k).problem != nullptr) throw "not a wgmma.mma_async kind of the ISA";
  return k;
}

// The immediates after scale-d, each only where the kind takes it (wgmma_kind_info): an error
// otherwise. scale -1 negates A or B; trans 1 reads the operand MN-major (16-bit types only).
struct WgmmaImmediates {
  int scale_a = 1, scale_b = 1;
  int trans_a = 0, trans_b = 0;
};

// One instruction, A from a descriptor:
//   wgmma.mma_async.sync.aligned.m64nNkK[.satfinite].D.A.B[.and.popc] {acc[first], ...}, desc_a, desc_b, scale_d
//       [, scale_a, scale_b[, trans_a, trans_b]];
// acc: N / info.acc_per_n registers from `first`: .f32 registers for f32 D, 32-bit integer
// registers (.b32/.s32/.u32) for s32 D, 32-bit non-f32 registers (.b32, .f16x2) of two f16 for
// f16 D; desc_a, desc_b: .b64/.u64 descriptors; scale_d: a predicate (false: D = A*B, true:
// D += A*B); the immediates as the kind takes them.
void mma_async(int n, WgmmaKind kind, const RegArray& acc, int first, const Reg& desc_a, const Reg& desc_b, const Reg& scale_d,
               WgmmaImmediates imm = {}, ptx::SourceLocation where = ptx::SourceLocation::current());
// A from registers (the "RS" form): {a[first_a], ..., a[first_a + 3]} in place of desc_a, no
// trans_a (an error if set). a: four 32-bit non-f32 registers holding 32 / bits(A) elements
// each, the low bits the lower column (a_fragment_row_col).
void mma_async(int n, WgmmaKind kind, const RegArray& acc, int first, const RegArray& a, int first_a, const Reg& desc_b,
               const Reg& scale_d, WgmmaImmediates imm = {}, ptx::SourceLocation where = ptx::SourceLocation::current());

// The m64nNk16 f32 forms of before, kept: mma_async(n, {ab, ab, f32}, ..., {1, 1, trans_a, trans_b}).
//   wgmma.mma_async.sync.aligned.m64nNk16.f32.T.T {acc[first], ..., acc[first + N/2 - 1]},
//       desc_a, desc_b, scale_d, 1, 1, trans_a, trans_b;
// T: bf16 or f16 (`ab`); trans_a / trans_b: 0 for K-major, 1 for MN-major.
void mma_async(int n, DType ab, const RegArray& acc, int first, const Reg& desc_a, const Reg& desc_b, const Reg& scale_d,
               int trans_a = 0, int trans_b = 0, ptx::SourceLocation where = ptx::SourceLocation::current());
//   wgmma.mma_async.sync.aligned.m64nNk16.f32.T.T {acc...}, {a[first_a], ..., a[first_a + 3]},
//       desc_b, scale_d, 1, 1, trans_b;
// The 16-bit A fragment is the accumulator fragment of a 64 x 16 tile (registers 2j, 2j + 1),
// so the f32 result of one wgmma, converted pairwise (cvt.rn.bf16x2.f32 a_j, acc[2j + 1],
// acc[2j]), is the A of the next without shared memory.
void mma_async(int n, DType ab, const RegArray& acc, int first, const RegArray& a, int first_a, const Reg& desc_b,
               const Reg& scale_d, int trans_b = 0, ptx::SourceLocation where = ptx::SourceLocation::current());

// The m64nN accumulator fragment (the manual's "WGMMA .m64nNk16 D" figure, the same for every
// K): thread t (0..127) of the warpgroup holds N/2 elements; element i is row
// 16 * (t / 32) + (t % 32) / 4 + 8 * ((i / 2) % 2), column 8 * (i / 4) + 2 * (t % 4) + i % 2.
// f32/s32 D: element i is register i. f16 D: register i / 2 holds elements i (low half, i even)
// and i + 1 (high half).
std::pair<int, int> accumulator_row_col(int n, int thread, int reg);
// The inverse: (thread, register) of (row, col) of the 64 x N tile (f32/s32 D).
std::pair<int, int> accumulator_thread_reg(int n, int row, int col);
// Any D type: `half` is 0 (low 16 bits) or 1 (high) of register `reg` for f16 D, 0 otherwise.
std::pair<int, int> accumulator_row_col(int n, DType d, int thread, int reg, int half = 0);
struct FragmentSlot {
  int thread = 0, reg = 0, element = 0;  // element: the place in the register from the low bits (half for f16 D)
  friend bool operator==(const FragmentSlot&, const FragmentSlot&) = default;
};
FragmentSlot accumulator_slot(int n, DType d, int row, int col);

// The A register fragment (the manual's "WGMMA .m64nNkK register fragment layout for matrix A"):
// register j (0..3) of thread t holds 32 bits of row 16 * (t / 32) + (t % 32) / 4 + 8 * (j % 2)
// of the 64 x K tile, the 4 bytes at byte 16 * (j / 2) + 4 * (t % 4) of its 32-byte row;
// element e (from the low bits) of those is column (16 * (j / 2) + 4 * (t % 4)) * 8 / bits(A) + e:
//   16-bit: 8 * (j / 2) + 2 * (t % 4) + e (e < 2);  tf32: 4 * (j / 2) + t % 4;
//   8-bit:  16 * (j / 2) + 4 * (t % 4) + e (e < 4);  b1: 128 * (j / 2) + 32 * (t % 4) + e (e < 32).
std::pair<int, int> a_fragment_row_col(DType a, int thread, int reg, int element);
FragmentSlot a_fragment_slot(DType a, int row, int col);

}  // namespace ptx::hopper
