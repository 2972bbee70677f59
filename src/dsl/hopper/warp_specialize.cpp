#include "ptxpp/dsl/hopper/warp_specialize.hpp"

#include <fmt/format.h>

#include "../trace.hpp"
#include "ptxpp/dsl/control.hpp"
#include "ptxpp/dsl/error.hpp"
#include "ptxpp/dsl/inst.hpp"

namespace ptx::hopper {

using dsl::Trace;

void warp_specialize(const Reg& tid, const WarpRoles& roles, const std::function<void()>& producer_warp,
                     const std::function<void(const Reg& consumer_tid)>& consumers, ptx::SourceLocation where) {
  Trace& t = Trace::current(where);
  t.check_reg(tid, where);
  if (tid.type() != DType::u32 && tid.type() != DType::b32)
    throw Error(fmt::format("warp_specialize: tid is a 32-bit register (%tid.x), not {}", name(tid.type())), where);
  for (const uint32_t regs : {roles.producer_regs, roles.consumer_regs})
    if (regs < 24 || regs > 256 || regs % 8 != 0)
      throw Error(fmt::format("warp_specialize: setmaxnreg takes 24 to 256 registers, a multiple of 8; got {}", regs), where);
  if (roles.producer_regs > roles.consumer_regs)
    throw Error(fmt::format("warp_specialize: the producer keeps fewer registers than the consumers get ({} > {})",
                            roles.producer_regs, roles.consumer_regs),
                where);
  auto setmaxnreg = [&](const auto& mn, uint32_t regs) {
    const Operand ops[] = {Operand(regs)};
    t.emit(mn, ops, where);
  };
  const RegAt at(tid, where);  // the operators' instructions carry the caller's line (.loc)
  Reg producer_wg = at < 128u;
  if_(producer_wg, [&] { setmaxnreg(inst::setmaxnreg.dec.sync.aligned.u32, roles.producer_regs); }, where);
  Reg producer = at < 32u;
  if_(producer, producer_warp, where);
  Reg consumer = at >= 128u;
  if_(
      consumer,
      [&] {
        setmaxnreg(inst::setmaxnreg.inc.sync.aligned.u32, roles.consumer_regs);
        Reg ct = at - 128u;
        consumers(ct);
      },
      where);
}

}  // namespace ptx::hopper
