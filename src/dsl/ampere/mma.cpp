#include "ptxpp/dsl/ampere/mma.hpp"

#include <fmt/format.h>

#include "../trace.hpp"
#include "ptxpp/dsl/error.hpp"
#include "ptxpp/dsl/inst.hpp"

namespace ptx::ampere {

using dsl::Trace;

namespace {

bool is_16bit(DType t) { return t == DType::f16 || t == DType::bf16; }
bool is_int8(DType t) { return t == DType::s8 || t == DType::u8; }
bool is_fp8(DType t) { return t == DType::e4m3 || t == DType::e5m2; }

std::string_view shape_name(Shape s) {
  switch (s) {
    case Shape::m16n8k8: return "m16n8k8";
    case Shape::m16n8k16: return "m16n8k16";
    case Shape::m16n8k32: return "m16n8k32";
  }
  return {};
}

const char* operand_name(MmaOperand op) {
  switch (op) {
    case MmaOperand::A: return "A";
    case MmaOperand::B: return "B";
    case MmaOperand::C: return "C";
    case MmaOperand::D: return "D";
  }
  return "?";
}

bool valid(const MmaForm& f) {
  if (is_16bit(f.a)) return f.b == f.a && f.acc == DType::f32 && f.shape != Shape::m16n8k32;
  if (f.a == DType::tf32) return f.b == DType::tf32 && f.acc == DType::f32 && f.shape == Shape::m16n8k8;
  if (is_int8(f.a)) return is_int8(f.b) && f.acc == DType::s32 && f.shape != Shape::m16n8k8;
  if (is_fp8(f.a)) return is_fp8(f.b) && f.acc == DType::f32 && f.shape != Shape::m16n8k8;
  return false;
}

void check_form(const MmaForm& f, ptx::SourceLocation where) {
  if (!valid(f))
    throw Error(fmt::format("mma.sync has no form {} with A {}, B {} and accumulator {}", shape_name(f.shape),
                            name(f.a), name(f.b), name(f.acc)),
                where);
}

}  // namespace

std::string MmaForm::mnemonic() const {
  return fmt::format("mma.sync.aligned.{}.row.col{}{}{}{}", shape_name(shape), name(acc), name(a), name(b), name(acc));
}

int MmaForm::element_bits(MmaOperand op) const {
  switch (op) {
    case MmaOperand::A: return bits(a);
    case MmaOperand::B: return bits(b);
    default: return 32;
  }
}

int MmaForm::elements(MmaOperand op) const {
  switch (op) {
    case MmaOperand::A: return m() * k() / 32;
    case MmaOperand::B: return k() * n() / 32;
    default: return m() * n() / 32;
  }
}

int MmaForm::registers(MmaOperand op) const { return elements(op) / elements_per_register(op); }

DType MmaForm::register_type(MmaOperand op) const {
  return op == MmaOperand::A || op == MmaOperand::B ? DType::b32 : acc;
}

int MmaForm::min_sm() const { return is_fp8(a) ? 89 : 80; }

MmaForm mma_form(Shape shape, DType a, DType b, DType acc, ptx::SourceLocation where) {
  const MmaForm f{shape, a, b, acc};
  check_form(f, where);
  return f;
}

RowCol fragment_row_col(const MmaForm& f, MmaOperand op, int lane, int e) {
  if (!valid(f)) throw Error(fmt::format("fragment_row_col: not an mma.sync form ({})", f.mnemonic()), {});
  if (lane < 0 || lane > 31 || e < 0 || e >= f.elements(op))
    throw Error(fmt::format("fragment_row_col: lane {} element {} is outside the {} fragment of {} ({} elements)", lane,
                            e, operand_name(op), f.mnemonic(), f.elements(op)),
                {});
  const int g = lane / 4, t = lane % 4, k = f.k();
  if (op == MmaOperand::C || op == MmaOperand::D) return {g + 8 * (e >= 2), 2 * t + e % 2};
  const int w = f.element_bits(op);
  const bool a = op == MmaOperand::A;
  if (w == 16) {
    if (a) return k == 16 ? RowCol{g + 8 * ((e / 2) % 2), 2 * t + e % 2 + 8 * (e >= 4)} : RowCol{g + 8 * (e >= 2), 2 * t + e % 2};
    return k == 16 ? RowCol{2 * t + e % 2 + 8 * (e >= 2), g} : RowCol{2 * t + e, g};
  }
  if (w == 32) {  // tf32, k8
    if (a) return {g + 8 * (e % 2), t + 4 * (e >= 2)};
    return {t + 4 * e, g};
  }
  // 8-bit
  if (a) return k == 32 ? RowCol{g + 8 * ((e / 4) % 2), 4 * t + e % 4 + 16 * (e >= 8)} : RowCol{g + 8 * (e >= 4), 4 * t + e % 4};
  return k == 32 ? RowCol{4 * t + e % 4 + 16 * (e >= 4), g} : RowCol{4 * t + e, g};
}

LaneElement fragment_lane_element(const MmaForm& f, MmaOperand op, int row, int col) {
  if (!valid(f)) throw Error(fmt::format("fragment_lane_element: not an mma.sync form ({})", f.mnemonic()), {});
  const int rows = op == MmaOperand::B ? f.k() : f.m();
  const int cols = op == MmaOperand::A ? f.k() : f.n();
  if (row < 0 || row >= rows || col < 0 || col >= cols)
    throw Error(fmt::format("fragment_lane_element: ({}, {}) is outside the {}x{} {} matrix of {}", row, col, rows, cols,
                            operand_name(op), f.mnemonic()),
                {});
  const int g = op == MmaOperand::B ? col : row % 8;  // the lane's group: the row of A/C/D, the column of B
  const int w = op == MmaOperand::C || op == MmaOperand::D ? 32 : f.element_bits(op);
  const int inner = op == MmaOperand::B ? row : col;  // the index along K (A, B) or N (C, D)
  const int outer_hi = op == MmaOperand::B ? 0 : row / 8;  // A/C/D: the row's upper half
  int t = 0, e = 0;
  if (op == MmaOperand::C || op == MmaOperand::D) {
    t = inner / 2;
    e = inner % 2 + 2 * outer_hi;
  } else if (w == 16) {
    t = (inner % 8) / 2;
    if (op == MmaOperand::A) e = inner % 2 + 2 * outer_hi + 4 * (inner / 8);
    else e = inner % 2 + 2 * (inner / 8);
  } else if (w == 32) {
    t = inner % 4;
    if (op == MmaOperand::A) e = outer_hi + 2 * (inner / 4);
    else e = inner / 4;
  } else {
    t = (inner % 16) / 4;
    if (op == MmaOperand::A) e = inner % 4 + 4 * outer_hi + 8 * (inner / 16);
    else e = inner % 4 + 4 * (inner / 16);
  }
  return {4 * g + t, e};
}

Fragment::Fragment(const MmaForm& form, MmaOperand op, std::string_view name, ptx::SourceLocation where)
    : form_(form), op_(op), regs_([&] {
        check_form(form, where);
        return RegArray(form.register_type(op), static_cast<uint32_t>(form.registers(op)), name, where);
      }()) {}

Fragment Fragment::view(const MmaForm& form, MmaOperand op, const RegArray& regs, size_t first, ptx::SourceLocation where) {
  check_form(form, where);
  const size_t n = static_cast<size_t>(form.registers(op));
  if (first > regs.size() || n > regs.size() - first)
    throw Error(fmt::format("Fragment::view: registers {}..{} of an array of {}", first, first + n, regs.size()), where);
  std::vector<Reg> out;
  out.reserve(n);
  for (size_t i = 0; i < n; ++i) {
    const Reg& r = regs[first + i];
    if (r.type() != form.register_type(op))
      throw Error(fmt::format("Fragment::view: the {} fragment of {} takes {} registers, not {}", operand_name(op),
                              form.mnemonic(), name(form.register_type(op)), name(r.type())),
                  where);
    out.push_back(Reg::adopt(r.id(), r.type(), r.expr(), r.trace()));
  }
  return Fragment(form, op, RegArray(std::move(out)));
}

Operand Fragment::vec() const { return ptx::vec(operands()); }

void mma(const MmaForm& form, const Fragment& d, const Fragment& a, const Fragment& b, const Fragment& c,
         ptx::SourceLocation where) {
  Trace& t = Trace::current(where);
  check_form(form, where);
  const Fragment* frags[] = {&d, &a, &b, &c};
  const MmaOperand want[] = {MmaOperand::D, MmaOperand::A, MmaOperand::B, MmaOperand::C};
  for (int i = 0; i < 4; ++i) {
    const Fragment& f = *frags[i];
    const bool acc = want[i] == MmaOperand::C || want[i] == MmaOperand::D;
    const bool same_role = f.operand() == want[i] ||
                           (acc && (f.operand() == MmaOperand::C || f.operand() == MmaOperand::D));
    if (!(f.form() == form) || !same_role)
      throw Error(fmt::format("mma: operand {} is the {} fragment of {}, not the {} fragment of {}", i,
                              operand_name(f.operand()), f.form().mnemonic(), operand_name(want[i]), form.mnemonic()),
                  where);
    for (size_t r = 0; r < f.size(); ++r) t.check_reg(f[r], where);
  }
  const Operand ops[] = {d.vec(), a.vec(), b.vec(), c.vec()};
  dsl::RuntimeChain mn(inst::mma.sync.aligned);
  mn.then(fmt::format(".{}.row.col{}{}{}{}", shape_name(form.shape), name(form.acc), name(form.a), name(form.b), name(form.acc)), where);
  t.emit(mn, ops, where);
}

void zero(Fragment& f, ptx::SourceLocation where) {
  Trace& t = Trace::current(where);
  for (size_t i = 0; i < f.size(); ++i) {
    t.check_reg(f[i], where);
    const DType ty = f[i].type();
    const Operand ops[] = {Operand(f[i]), ty == DType::f32 ? Operand(0.0f) : Operand(0)};
    if (ty == DType::f32)
      t.emit(inst::mov.f32, ops, where);
    else if (ty == DType::s32)
      t.emit(inst::mov.s32, ops, where);
    else
      t.emit(inst::mov.b32, ops, where);
  }
}

}  // namespace ptx::ampere
