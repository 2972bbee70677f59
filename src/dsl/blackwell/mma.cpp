#include "ptxpp/dsl/blackwell/mma.hpp"

#include <vector>

#include <fmt/format.h>

#include "../trace.hpp"
#include "emit.hpp"
#include "mma_emit.hpp"
#include "ptxpp/dsl/error.hpp"
#include "ptxpp/dsl/inst.hpp"

namespace ptx::blackwell {

namespace {
constexpr std::string_view kCollectorOps[] = {"fill", "use", "lastuse", "discard"};  // CollectorOp's order
}  // namespace

std::string collector_modifier(CollectorOp a) { return fmt::format(".collector::a::{}", kCollectorOps[static_cast<int>(a)]); }

std::string collector_modifier(CollectorB b) {
  return fmt::format(".collector::b{}::{}", static_cast<int>(b.buffer), kCollectorOps[static_cast<int>(b.op)]);
}

namespace detail {

void check_mma_tmem(const Reg& r, std::string_view what, ptx::SourceLocation where) {
  dsl::Trace::current(where).check_reg(r, where);
  // ptxas takes only registers declared .b32 for the tensor-memory operands of tcgen05.mma
  if (r.type() != DType::b32)
    throw Error(fmt::format("tcgen05.mma: {} is a .b32 register (ptxas refuses {} here)", what, name(r.type())), where);
}

Operand mma_a_operand(const Reg& a, bool a_tmem, ptx::SourceLocation where) {
  if (a_tmem) {
    check_mma_tmem(a, "the A address", where);
    return ptx::addr(a);
  }
  check_int_reg(a, 64, "tcgen05.mma: the A descriptor", where);
  return a;
}

void check_sparse_metadata(bool sparse, const Reg* meta, std::string_view inst, ptx::SourceLocation where) {
  if (sparse && !meta)
    throw Error(
        fmt::format("{}: the descriptor is sparse: {}.sp needs the metadata address (sparse_metadata)", inst, inst),
        where);
  if (!sparse && meta)
    throw Error(fmt::format("{}: sparse metadata given, but the descriptor is dense (set sparse in it)", inst), where);
}

void emit_mma(bool ws, CtaGroup group, std::string_view kind, const std::string& modifiers, const Reg& d_tmem,
              const Operand& a, const Reg& b_desc, const Reg* meta, const Operand& idesc, std::span<const Operand> tail,
              ptx::SourceLocation where) {
  check_mma_tmem(d_tmem, "the D address", where);
  check_int_reg(b_desc, 64, "tcgen05.mma: the B descriptor", where);
  if (meta) check_mma_tmem(*meta, "the sparse metadata address", where);
  std::vector<Operand> ops{ptx::addr(d_tmem), a, b_desc};
  if (meta) ops.push_back(ptx::addr(*meta));
  ops.push_back(idesc);
  ops.insert(ops.end(), tail.begin(), tail.end());
  note_cta_group(group, where);
  dsl::RuntimeChain mn(inst::tcgen05.mma);
  mn.then_if(ws, ".ws", where).then_if(meta != nullptr, ".sp", where).then(cta_group_modifier(group), where);
  mn.then(fmt::format(".{}", kind), where).then(modifiers, where);
  emit(mn, ops, nullptr, where);
}

}  // namespace detail

namespace {

// What a descriptor known at trace time adds to the checks (a run-time one: nothing).
struct KnownDescriptor {
  bool sparse = false;
  int m = 0;
};

// tcgen05.mma (not .ws) with its options: checks them against the kind and CTA group, then emits.
void mma_with_options(CtaGroup group, MmaKind kind, const Reg& d_tmem, const Reg& a, bool a_tmem, const Reg& b_desc,
                      const Operand& idesc, const Reg& enable_input_d, const MmaOptions& opt,
                      const KnownDescriptor* known, ptx::SourceLocation where) {
  const Operand a_op = detail::mma_a_operand(a, a_tmem, where);
  detail::check_pred(enable_input_d, "tcgen05.mma: enable-input-d", where);
  if (known) detail::check_sparse_metadata(known->sparse, opt.sparse_metadata, "tcgen05.mma", where);
  std::string modifiers;
  if (opt.ashift) {
    if (!a_tmem)
      throw Error("tcgen05.mma: .ashift shifts A in tensor memory (mma_tmem_a), not A from a shared-memory descriptor",
                  where);
    if (known && known->m != 128 && known->m != 256)
      throw Error(fmt::format("tcgen05.mma: .ashift needs M = 128 or 256, not {}", known->m), where);
    if (opt.collector_a == CollectorOp::Fill || opt.collector_a == CollectorOp::Use)
      throw Error("tcgen05.mma: .ashift does not take .collector::a::fill or ::use (lastuse or discard only)", where);
    modifiers += ".ashift";
  }
  if (opt.collector_a) modifiers += collector_modifier(*opt.collector_a);
  std::vector<Operand> tail;
  if (!opt.disable_output_lane.empty()) {
    const size_t want = group == CtaGroup::Two ? 8 : 4;
    if (opt.disable_output_lane.size() != want)
      throw Error(fmt::format("tcgen05.mma: disable-output-lane of {} is {} registers, not {}",
                              cta_group_modifier(group).substr(1), want, opt.disable_output_lane.size()),
                  where);
    std::vector<Operand> lanes;
    for (const Reg& r : opt.disable_output_lane) {
      detail::check_int_reg(r, 32, "tcgen05.mma: a disable-output-lane register", where);
      lanes.emplace_back(r);
    }
    tail.push_back(ptx::vec(lanes));
  }
  tail.emplace_back(enable_input_d);
  if (opt.scale_input_d) {
    const int s = *opt.scale_input_d;
    if (kind != MmaKind::F16 && kind != MmaKind::TF32)
      throw Error(
          fmt::format("tcgen05.mma: scale-input-d is for .kind::f16 and .kind::tf32 only, not .{}", kind_name(kind)),
          where);
    if (s < 0 || s > 15)
      throw Error(fmt::format("tcgen05.mma: scale-input-d is an immediate 0 to 15 (D scaled by 2^-s), not {}", s),
                  where);
    tail.emplace_back(static_cast<uint32_t>(s));
  }
  detail::emit_mma(false, group, kind_name(kind), modifiers, d_tmem, a_op, b_desc, opt.sparse_metadata, idesc, tail,
                   where);
}

void mma_known(const InstrDescriptor& id, const Reg& d_tmem, const Reg& a, bool a_tmem, const Reg& b_desc,
               const Reg& enable_input_d, const MmaOptions& opt, ptx::SourceLocation where) {
  if (id.ws) throw Error("tcgen05.mma: the descriptor is for tcgen05.mma.ws (ws set): use mma_ws", where);
  const uint32_t bits = id.bits(where);
  if (a_tmem && id.transpose_a) throw Error("tcgen05.mma: A in tensor memory cannot be transposed (MN-major)", where);
  const KnownDescriptor known{id.sparse, id.m};
  mma_with_options(id.group, id.kind, d_tmem, a, a_tmem, b_desc, Operand(bits), enable_input_d, opt, &known, where);
}

void mma_ws_any(MmaKind kind, const Reg& d_tmem, const Reg& a, bool a_tmem, const Reg& b_desc, const Operand& idesc,
                const Reg& enable_input_d, const MmaWsOptions& opt, const bool* sparse, ptx::SourceLocation where) {
  const Operand a_op = detail::mma_a_operand(a, a_tmem, where);
  detail::check_pred(enable_input_d, "tcgen05.mma.ws: enable-input-d", where);
  if (sparse) detail::check_sparse_metadata(*sparse, opt.sparse_metadata, "tcgen05.mma.ws", where);
  std::vector<Operand> tail{enable_input_d};
  if (opt.zero_column_mask) {
    detail::check_int_reg(*opt.zero_column_mask, 64, "tcgen05.mma.ws: the zero-column mask descriptor", where);
    tail.emplace_back(*opt.zero_column_mask);
  }
  const std::string modifiers = opt.collector_b ? collector_modifier(*opt.collector_b) : std::string();
  detail::emit_mma(true, CtaGroup::One, kind_name(kind), modifiers, d_tmem, a_op, b_desc, opt.sparse_metadata, idesc,
                   tail, where);
}

void mma_ws_known(InstrDescriptor id, const Reg& d_tmem, const Reg& a, bool a_tmem, const Reg& b_desc,
                  const Reg& enable_input_d, const MmaWsOptions& opt, ptx::SourceLocation where) {
  id.ws = true;
  const uint32_t bits = id.bits(where);
  if (a_tmem && id.transpose_a)
    throw Error("tcgen05.mma.ws: A in tensor memory cannot be transposed (MN-major)", where);
  mma_ws_any(id.kind, d_tmem, a, a_tmem, b_desc, Operand(bits), enable_input_d, opt, &id.sparse, where);
}

}  // namespace

void mma(const InstrDescriptor& id, const Reg& d_tmem, const Reg& a_desc, const Reg& b_desc, const Reg& enable_input_d,
         const MmaOptions& opt, ptx::SourceLocation where) {
  mma_known(id, d_tmem, a_desc, false, b_desc, enable_input_d, opt, where);
}

void mma(CtaGroup group, MmaKind kind, const Reg& d_tmem, const Reg& a_desc, const Reg& b_desc, const Reg& idesc,
         const Reg& enable_input_d, const MmaOptions& opt, ptx::SourceLocation where) {
  detail::check_int_reg(idesc, 32, "tcgen05.mma: the instruction descriptor", where);
  mma_with_options(group, kind, d_tmem, a_desc, false, b_desc, idesc, enable_input_d, opt, nullptr, where);
}

void mma_tmem_a(const InstrDescriptor& id, const Reg& d_tmem, const Reg& a_tmem, const Reg& b_desc,
                const Reg& enable_input_d, const MmaOptions& opt, ptx::SourceLocation where) {
  if (id.group == CtaGroup::One && id.m == 128 && id.n % 16 != 0)
    throw Error(fmt::format("tcgen05.mma: with A in tensor memory and M = 128, N is 16..256 step 16, not {}", id.n), where);
  mma_known(id, d_tmem, a_tmem, true, b_desc, enable_input_d, opt, where);
}

void mma_ws(const InstrDescriptor& id, const Reg& d_tmem, const Reg& a_desc, const Reg& b_desc,
            const Reg& enable_input_d, const MmaWsOptions& opt, ptx::SourceLocation where) {
  mma_ws_known(id, d_tmem, a_desc, false, b_desc, enable_input_d, opt, where);
}

void mma_ws_tmem_a(const InstrDescriptor& id, const Reg& d_tmem, const Reg& a_tmem, const Reg& b_desc,
                   const Reg& enable_input_d, const MmaWsOptions& opt, ptx::SourceLocation where) {
  mma_ws_known(id, d_tmem, a_tmem, true, b_desc, enable_input_d, opt, where);
}

void mma_ws(MmaKind kind, const Reg& d_tmem, const Reg& a_desc, const Reg& b_desc, const Reg& idesc,
            const Reg& enable_input_d, const MmaWsOptions& opt, ptx::SourceLocation where) {
  detail::check_int_reg(idesc, 32, "tcgen05.mma.ws: the instruction descriptor", where);
  mma_ws_any(kind, d_tmem, a_desc, false, b_desc, idesc, enable_input_d, opt, nullptr, where);
}

}  // namespace ptx::blackwell
