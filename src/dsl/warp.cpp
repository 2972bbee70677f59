#include "ptxpp/dsl/warp.hpp"

#include <fmt/format.h>

#include "ptxpp/dsl/inst.hpp"
#include "trace.hpp"

namespace ptx::warp {

using dsl::Trace;

namespace {
constexpr uint32_t kFull = 0xffffffffu;

// mn: a chain of ptx::inst, complete or continued at run time (ptxpp/dsl/runtime_chain.hpp)
template <class Mnemonic>
void emit(Trace& t, const Mnemonic& mn, std::initializer_list<Operand> ops, ptx::SourceLocation where) {
  t.emit(mn, std::span<const Operand>(ops.begin(), ops.size()), where);
}

dsl::RuntimeChain combine(Reduce op, DType t, ptx::SourceLocation where) {
  const std::string_view ty = is_float(t) ? name(t) : name(integer_like(t));
  switch (op) {
    case Reduce::Sum: return is_float(t) ? dsl::RuntimeChain(inst::add.rn).then(ty, where) : dsl::RuntimeChain(inst::add).then(ty, where);
    case Reduce::Max: return dsl::RuntimeChain(inst::max).then(ty, where);
    case Reduce::Min: break;
  }
  return dsl::RuntimeChain(inst::min).then(ty, where);
}
}  // namespace

Reg reduce(const Reg& v, Reduce op, ptx::SourceLocation where) {
  Trace& t = Trace::current(where);
  t.check_reg(v, where);
  const DType ty = v.type();
  if (!(bits(ty) == 32 || bits(ty) == 64) || ty == DType::f16x2 || ty == DType::bf16x2 || ty == DType::tf32)
    throw Error(fmt::format("warp::reduce takes a 32- or 64-bit integer or float register, not {}", name(ty)), where);
  const dsl::RuntimeChain mn = combine(op, ty, where);
  Reg cur = Reg::adopt(v.id(), v.type(), v.expr(), v.trace());
  for (int k = 16; k >= 1; k /= 2) {
    Reg other = t.new_reg(ty, {}, where);
    if (bits(ty) == 32) {
      emit(t, inst::shfl.sync.bfly.b32, {Operand(other), Operand(cur), Operand(k), imm(DType::b32, 0x1f), imm(DType::b32, kFull)}, where);
    } else {
      Reg lo = t.new_reg(DType::b32, {}, where), hi = t.new_reg(DType::b32, {}, where);
      emit(t, inst::mov.b64, {vec(Operand(lo), Operand(hi)), Operand(cur)}, where);
      emit(t, inst::shfl.sync.bfly.b32, {Operand(lo), Operand(lo), Operand(k), imm(DType::b32, 0x1f), imm(DType::b32, kFull)}, where);
      emit(t, inst::shfl.sync.bfly.b32, {Operand(hi), Operand(hi), Operand(k), imm(DType::b32, 0x1f), imm(DType::b32, kFull)}, where);
      emit(t, inst::mov.b64, {Operand(other), vec(Operand(lo), Operand(hi))}, where);
    }
    Reg next = t.new_reg(ty, {}, where);
    emit(t, mn, {Operand(next), Operand(cur), Operand(other)}, where);
    cur.rebind(std::move(next));
  }
  return cur;
}

Reg broadcast(const Reg& v, const Operand& lane, ptx::SourceLocation where) {
  Trace& t = Trace::current(where);
  t.check_reg(v, where);
  if (bits(v.type()) != 32) throw Error(fmt::format("warp::broadcast takes a 32-bit register, not {}", name(v.type())), where);
  Reg d = t.new_reg(v.type(), {}, where);
  emit(t, inst::shfl.sync.idx.b32, {Operand(d), Operand(v), lane, imm(DType::b32, 0x1f), imm(DType::b32, kFull)}, where);
  return d;
}

namespace {
// vote.sync.<mode> d, p, 0xffffffff into a fresh register of type `result`
template <class Mnemonic>
Reg vote(const Mnemonic& mnemonic, DType result, const Reg& p, ptx::SourceLocation where) {
  Trace& t = Trace::current(where);
  Reg d = t.new_reg(result, {}, where);
  emit(t, mnemonic, {Operand(d), Operand(p), imm(DType::b32, kFull)}, where);
  return d;
}
}  // namespace

Reg ballot(const Reg& p, ptx::SourceLocation where) { return vote(inst::vote.sync.ballot.b32, DType::u32, p, where); }
Reg all(const Reg& p, ptx::SourceLocation where) { return vote(inst::vote.sync.all.pred, DType::pred, p, where); }
Reg any(const Reg& p, ptx::SourceLocation where) { return vote(inst::vote.sync.any.pred, DType::pred, p, where); }

Reg elect_one(ptx::SourceLocation where) {
  Trace& t = Trace::current(where);
  Reg lane = t.new_reg(DType::b32, {}, where);
  Reg elected = t.new_reg(DType::pred, {}, where);
  emit(t, inst::elect.sync, {pair(lane, elected), imm(DType::b32, kFull)}, where);
  return elected;
}

Reg match_any(const Reg& v, ptx::SourceLocation where) {
  Trace& t = Trace::current(where);
  t.check_reg(v, where);
  if (bits(v.type()) != 32 && bits(v.type()) != 64) throw Error("warp::match_any takes a 32- or 64-bit register", where);
  Reg d = t.new_reg(DType::u32, {}, where);
  if (bits(v.type()) == 32)
    emit(t, inst::match.any.sync.b32, {Operand(d), Operand(v), imm(DType::b32, kFull)}, where);
  else
    emit(t, inst::match.any.sync.b64, {Operand(d), Operand(v), imm(DType::b32, kFull)}, where);
  return d;
}

}  // namespace ptx::warp
