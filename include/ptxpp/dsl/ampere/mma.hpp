// Ampere warp-level matrix multiply: mma.sync forms, fragments and their layouts.
//
//   using namespace ptx::ampere;
//   const MmaForm f = forms::m16n8k16_bf16_f32;
//   Fragment a(f, MmaOperand::A), b(f, MmaOperand::B), acc(f, MmaOperand::C);
//   zero(acc);                        // mov.f32 %acc0, 0f00000000; ... (one mov per register)
//   mma(f, acc, a, b, acc);           // mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32 {d}, {a}, {b}, {c};
//
// The layouts are the PTX ISA manual's "matrix fragments for mma.m16n8kK" figures
// (g = lane / 4, t = lane % 4); docs/dsl.md, "Ampere helpers", lists them.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "ptxpp/dsl/operand.hpp"
#include "ptxpp/dsl/reg.hpp"
#include "ptxpp/dsl/source_location.hpp"
#include "ptxpp/dsl/types.hpp"

namespace ptx::ampere {

enum class Shape : uint8_t { m16n8k8, m16n8k16, m16n8k32 };
enum class MmaOperand : uint8_t { A, B, C, D };

// One mma.sync form: shape, multiplicand types (A, B) and accumulator type (C = D).
// Every form is .row.col (A row-major, B column-major), as the ISA requires for m16n8kK.
struct MmaForm {
  Shape shape = Shape::m16n8k16;
  DType a = DType::bf16, b = DType::bf16, acc = DType::f32;

  int m() const { return 16; }
  int n() const { return 8; }
  int k() const { return shape == Shape::m16n8k8 ? 8 : shape == Shape::m16n8k16 ? 16 : 32; }
  // "mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32"
  std::string mnemonic() const;
  // Bits of one element of the operand (A: a's width, B: b's, C/D: 32).
  int element_bits(MmaOperand op) const;
  // Elements per lane, registers per lane, and elements per 32-bit register.
  int elements(MmaOperand op) const;
  int registers(MmaOperand op) const;
  int elements_per_register(MmaOperand op) const { return 32 / element_bits(op); }
  // The type the fragment's registers are declared with: .b32 for A and B (packed
  // elements; tf32 in a .b32), the accumulator type (.f32 / .s32) for C and D.
  DType register_type(MmaOperand op) const;
  // The target the form needs at least: 80 (sm_80) or 89 (sm_89, e4m3/e5m2).
  int min_sm() const;
  friend bool operator==(const MmaForm&, const MmaForm&) = default;
};

// A checked form: throws ptx::Error for a shape/type combination mma.sync does not have.
//   f16, bf16: m16n8k8, m16n8k16, accumulator f32     tf32: m16n8k8, f32
//   s8, u8 (A and B may differ): m16n8k16, m16n8k32, s32
//   e4m3, e5m2 (A and B may differ): m16n8k16, m16n8k32, f32 (sm_89+; m16n8k16 needs PTX 8.7)
MmaForm mma_form(Shape shape, DType a, DType b, DType acc, ptx::SourceLocation where = ptx::SourceLocation::current());

namespace forms {
inline constexpr MmaForm m16n8k8_f16_f32{Shape::m16n8k8, DType::f16, DType::f16, DType::f32};
inline constexpr MmaForm m16n8k16_f16_f32{Shape::m16n8k16, DType::f16, DType::f16, DType::f32};
inline constexpr MmaForm m16n8k8_bf16_f32{Shape::m16n8k8, DType::bf16, DType::bf16, DType::f32};
inline constexpr MmaForm m16n8k16_bf16_f32{Shape::m16n8k16, DType::bf16, DType::bf16, DType::f32};
inline constexpr MmaForm m16n8k8_tf32_f32{Shape::m16n8k8, DType::tf32, DType::tf32, DType::f32};
inline constexpr MmaForm m16n8k16_s8_s32{Shape::m16n8k16, DType::s8, DType::s8, DType::s32};
inline constexpr MmaForm m16n8k32_s8_s32{Shape::m16n8k32, DType::s8, DType::s8, DType::s32};
inline constexpr MmaForm m16n8k16_u8_s32{Shape::m16n8k16, DType::u8, DType::u8, DType::s32};
inline constexpr MmaForm m16n8k32_u8_s32{Shape::m16n8k32, DType::u8, DType::u8, DType::s32};
inline constexpr MmaForm m16n8k16_e4m3_f32{Shape::m16n8k16, DType::e4m3, DType::e4m3, DType::f32};
inline constexpr MmaForm m16n8k32_e4m3_f32{Shape::m16n8k32, DType::e4m3, DType::e4m3, DType::f32};
inline constexpr MmaForm m16n8k16_e5m2_f32{Shape::m16n8k16, DType::e5m2, DType::e5m2, DType::f32};
inline constexpr MmaForm m16n8k32_e5m2_f32{Shape::m16n8k32, DType::e5m2, DType::e5m2, DType::f32};
}  // namespace forms

struct RowCol {
  int row = 0, col = 0;
  friend bool operator==(const RowCol&, const RowCol&) = default;
};
struct LaneElement {
  int lane = 0, element = 0;  // element e lives in register e / elements_per_register, at bits (e % epr) * width
  friend bool operator==(const LaneElement&, const LaneElement&) = default;
};

// Element `element` (0 .. elements(op)-1) of lane `lane`: its (row, col) in the operand's
// matrix (A: M x K, B: K x N, C/D: M x N). g = lane / 4, t = lane % 4:
//   C/D (all forms):       row g + 8*(e>=2),                col 2t + e%2
//   A, 16-bit, k16:        row g + 8*((e/2)%2),             col 2t + e%2 + 8*(e>=4)
//   A, 16-bit, k8:         row g + 8*(e>=2),                col 2t + e%2
//   B, 16-bit, k16 / k8:   row 2t + e%2 + 8*(e>=2) / 2t+e,  col g
//   A, tf32, k8:           row g + 8*(e%2),                 col t + 4*(e>=2)
//   B, tf32, k8:           row t + 4e,                      col g
//   A, 8-bit, k32:         row g + 8*((e/4)%2),             col 4t + e%4 + 16*(e>=8)
//   A, 8-bit, k16:         row g + 8*(e>=4),                col 4t + e%4
//   B, 8-bit, k32 / k16:   row 4t + e%4 + 16*(e>=4) / 4t+e, col g
RowCol fragment_row_col(const MmaForm& form, MmaOperand op, int lane, int element);
// The inverse: which lane holds (row, col), and as which element.
LaneElement fragment_lane_element(const MmaForm& form, MmaOperand op, int row, int col);

// The registers one lane holds for one operand of a form.
class Fragment {
 public:
  // Declares form.registers(op) registers of form.register_type(op): `.reg .f32 %name<4>;`
  Fragment(const MmaForm& form, MmaOperand op, std::string_view name = {},
           ptx::SourceLocation where = ptx::SourceLocation::current());
  // A view of registers declared elsewhere (regs[first] ...), emitting nothing: many
  // accumulators in one `.reg .f32 %acc<64>;` array.
  static Fragment view(const MmaForm& form, MmaOperand op, const RegArray& regs, size_t first,
                       ptx::SourceLocation where = ptx::SourceLocation::current());

  const MmaForm& form() const { return form_; }
  MmaOperand operand() const { return op_; }
  size_t size() const { return regs_.size(); }
  Reg& operator[](size_t i) { return regs_[i]; }
  const Reg& operator[](size_t i) const { return regs_[i]; }
  // The registers as operands, in order (for ptx::vec and ldmatrix).
  std::vector<Operand> operands() const { return regs_.range(0, regs_.size()); }
  // {r0, r1, ...}: the vector operand mma.sync takes.
  Operand vec() const;

 private:
  Fragment(const MmaForm& form, MmaOperand op, RegArray regs) : form_(form), op_(op), regs_(std::move(regs)) {}
  MmaForm form_;
  MmaOperand op_;
  RegArray regs_;
};

// One instruction: mma.sync.aligned.<shape>.row.col.<acc>.<a>.<b>.<acc> {d...}, {a...}, {b...}, {c...};
// The fragments must belong to `form` as D, A, B, C (C and D may be the same registers).
void mma(const MmaForm& form, const Fragment& d, const Fragment& a, const Fragment& b, const Fragment& c,
         ptx::SourceLocation where = ptx::SourceLocation::current());
// One mov per register: mov.f32 %r, 0f00000000 (f32), mov.b32 %r, 0 (s32 / b32).
void zero(Fragment& f, ptx::SourceLocation where = ptx::SourceLocation::current());

}  // namespace ptx::ampere
