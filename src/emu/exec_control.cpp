// Control flow (control.isa): bra, brx.idx, call, ret, exit; calls move arguments and results
// between the caller's registers or .param variables and the callee's.
#include <cstring>

#include "runner.hpp"

namespace ptx::emu::engine {

// The branches, calls and exits: `advance` is what moves to the next instruction.
void Runner::control(Warp& w, const DInst& in, uint32_t exec, uint32_t active, uint32_t& advance) {
  const Opnd* o = in.ops;
  switch (in.op) {
    case Opc::Bra: {
      const uint32_t target = static_cast<uint32_t>(o[0].imm);
      if (o[0].kind != Opnd::Label) fail(w, std::countr_zero(active), "indirect branches are not supported yet");
      for (uint32_t m = exec; m; m &= m - 1) w.pc[std::countr_zero(m)] = target;
      advance = active & ~exec;
      return;
    }
    case Opc::Brx: {  // brx.idx: each lane to the label its index names
      const std::vector<uint32_t>& targets = p_.branch_tables[in.table];
      for (uint32_t m = exec; m; m &= m - 1) {
        const int l = std::countr_zero(m);
        const uint64_t i = value(w, o[0], l) & 0xFFFFFFFFu;
        if (i >= targets.size()) fail(w, l, fmt::format("brx.idx with index {}: the table has {} targets (undefined)", i, targets.size()));
        w.pc[l] = targets[i];
      }
      advance = active & ~exec;
      return;
    }
    case Opc::Ret:
      ret(w, exec);
      advance = active & ~exec;
      return;
    case Opc::Exit:
      w.live &= ~exec;
      advance = active & ~exec;
      return;
    case Opc::Call:
      call(w, in, exec, static_cast<uint32_t>(&in - p_.code.data()));
      advance = active & ~exec;
      return;
    default: return;
  }
}

// Where a call's argument or result is in the caller (an entry of Program::vec_slots): its
// register(s), or a frame offset (a .param variable).
Runner::CallPlace Runner::call_place(uint32_t a) const {
  if (!(a & kRegArg)) return {false, a, 1};
  const uint32_t slot = a & ~(kRegArg | kVectorArg);
  return {true, slot, (a & kVectorArg) ? p_.vector_regs.at(slot) : 1u};
}

// How a value moves between registers (`reg_elems` of them) and formal `fm`: element by element
// when the counts agree, or a scalar register as the formal's first (up to 8) bytes in the frame.
Runner::CallElems Runner::call_elems(Warp& w, int l, const FuncInfo& f, const Formal& fm, uint32_t reg_elems,
                                     const char* what, uint32_t k) {
  if (reg_elems == fm.elems) return {fm.elems, fm.size / fm.elems};
  if (reg_elems == 1 && fm.reg == kNoSlot) return {1, std::min<uint32_t>(fm.size, 8)};
  auto shape = [](uint32_t n) { return n == 1 ? std::string("a scalar") : fmt::format("a .v{} vector", n); };
  fail(w, l,
       fmt::format("call to {}: {} {} is {}; the function's is {}", f.name, what, k + 1, shape(reg_elems),
                   shape(fm.elems)));
}

// n elements of `es` bytes from registers (`at`: the first) or a frame (`at`: the offset from `sp`).
void Runner::load_elems(Warp& w, int l, bool in_regs, uint32_t at, uint32_t sp, CallElems e, uint64_t* out) {
  for (uint32_t i = 0; i < e.n; ++i) {
    out[i] = 0;
    if (in_regs)
      out[i] = reg(w, at + i, l);
    else
      std::memcpy(&out[i], w.local[l].data() + sp + at + i * e.es, std::min<uint32_t>(e.es, 8));
  }
}
void Runner::store_elems(Warp& w, int l, bool in_regs, uint32_t at, uint32_t sp, CallElems e, const uint64_t* in) {
  for (uint32_t i = 0; i < e.n; ++i) {
    if (!in_regs) {
      std::memcpy(w.local[l].data() + sp + at + i * e.es, &in[i], std::min<uint32_t>(e.es, 8));
      continue;
    }
    const Ty t = p_.slot_types[at + i];
    reg(w, at + i, l) = t.k == 'p' ? (in[i] != 0) : mask_bits(in[i], t.bits);
  }
}

void Runner::call(Warp& w, const DInst& in, uint32_t exec, uint32_t pc) {
  for (uint32_t m = exec; m; m &= m - 1) {
    const int l = std::countr_zero(m);
    uint64_t index = in.callee != kNoSlot ? in.callee : value(w, in.ops[1], l) - kFunctionBase;
    if (index >= p_.funcs.size() || index == 0) fail(w, l, fmt::format("indirect call to {:#x}, which is not a function", value(w, in.ops[1], l)));
    const FuncInfo& f = p_.funcs[index];
    if (f.builtin != FuncInfo::Builtin::None) {  // run by the emulator: the lane continues after the call
      builtin(w, l, f, in);
      w.pc[l] = pc + 1;
      continue;
    }
    if (w.calls[l].size() >= 1024) fail(w, l, "call depth over 1024 (unbounded recursion?)");
    const Opnd &params = in.ops[2], &results = in.ops[0];
    const uint32_t nparams = params.kind == Opnd::Vec ? params.count : 0,
                   nresults = results.kind == Opnd::Vec ? results.count : 0;
    if (nparams != f.params.size())
      fail(w, l, fmt::format("call to {} with {} arguments; it has {} parameters", f.name, nparams, f.params.size()));
    if (nresults != 0 && nresults != f.results.size())
      fail(w, l, fmt::format("call to {} with {} results; it returns {}", f.name, nresults, f.results.size()));
    if (nparams > kCallValues / 4 || nresults > kCallValues / 4)
      fail(w, l,
           fmt::format("call to {} with {} arguments and {} results (the emulator takes {} each)", f.name, nparams,
                       nresults, kCallValues / 4));
    const uint64_t new_sp = (uint64_t{w.top[l]} + 15) & ~uint64_t{15};  // above the caller's frame and its alloca'd memory
    grow_stack(w, l, new_sp + f.frame, [&] { return "call to " + f.name; });
    hold_frame(w, l, uint64_t{f.slot_count} * sizeof(uint64_t), f.name);
    // arguments: from the caller's registers or .param variables; into the callee's frame now, its registers later
    uint64_t values[kCallValues];
    uint32_t used = 0;
    for (uint32_t k = 0; k < nparams; ++k) {
      const Formal& fm = f.params[k];
      const CallPlace from = call_place(p_.vec_slots[params.slot + k]);
      const uint32_t callee_sp = static_cast<uint32_t>(new_sp);
      if (!from.reg && fm.reg == kNoSlot) {
        std::memcpy(w.local[l].data() + callee_sp + fm.offset, w.local[l].data() + w.sp[l] + from.at, fm.size);
        continue;
      }
      const CallElems e = call_elems(w, l, f, fm, from.reg ? from.elems : fm.elems, "argument", k);
      load_elems(w, l, from.reg, from.at, w.sp[l], e, values + used);
      if (fm.reg == kNoSlot)
        store_elems(w, l, false, fm.offset, callee_sp, e, values + used);
      else
        used += e.n;
    }
    Warp::CallFrame frame{pc + 1, w.sp[l], w.fn[l], w.top[l], nresults ? results.slot : kNoSlot, nresults, {}};
    frame.saved.resize(f.slot_count);
    for (uint32_t k = 0; k < f.slot_count; ++k) frame.saved[k] = reg(w, f.slot_first + k, l);
    used = 0;
    for (const Formal& fm : f.params)
      if (fm.reg != kNoSlot) {
        store_elems(w, l, true, fm.reg, 0, {fm.elems, fm.size / fm.elems}, values + used);
        used += fm.elems;
      }
    w.calls[l].push_back(std::move(frame));
    w.sp[l] = static_cast<uint32_t>(new_sp);  // (< max_stack(): grow_stack checked)
    w.top[l] = static_cast<uint32_t>(new_sp + f.frame);
    w.fn[l] = static_cast<uint32_t>(index);
    w.pc[l] = f.entry;
  }
}

void Runner::ret(Warp& w, uint32_t exec) {
  for (uint32_t m = exec; m; m &= m - 1) {
    const int l = std::countr_zero(m);
    if (w.calls[l].empty()) {  // ret in the kernel: the thread is done
      w.live &= ~(1u << l);
      continue;
    }
    Warp::CallFrame& frame = w.calls[l].back();
    const FuncInfo& f = p_.funcs[w.fn[l]];
    // results: into the caller's .param variables now, its registers after the callee's are
    // restored (recursion reuses the registers)
    uint64_t values[kCallValues];
    uint32_t used = 0;
    for (uint32_t k = 0; k < frame.nresults; ++k) {
      const Formal& fm = f.results[k];
      const CallPlace to = call_place(p_.vec_slots[frame.results + k]);
      if (!to.reg && fm.reg == kNoSlot) {
        std::memcpy(w.local[l].data() + frame.caller_sp + to.at, w.local[l].data() + w.sp[l] + fm.offset, fm.size);
        continue;
      }
      const CallElems e = call_elems(w, l, f, fm, to.reg ? to.elems : fm.elems, "result", k);
      load_elems(w, l, fm.reg != kNoSlot, fm.reg != kNoSlot ? fm.reg : fm.offset, w.sp[l], e, values + used);
      if (!to.reg)
        store_elems(w, l, false, to.at, frame.caller_sp, e, values + used);
      else
        used += e.n;
    }
    for (uint32_t k = 0; k < f.slot_count; ++k) reg(w, f.slot_first + k, l) = frame.saved[k];
    used = 0;
    for (uint32_t k = 0; k < frame.nresults; ++k)
      if (const CallPlace to = call_place(p_.vec_slots[frame.results + k]); to.reg) {
        store_elems(w, l, true, to.at, 0, {to.elems, 8}, values + used);
        used += to.elems;
      }
    w.sp[l] = frame.caller_sp;
    w.top[l] = frame.caller_top;  // the callee's alloca'd memory goes with its frame
    w.fn[l] = frame.caller_fn;
    w.pc[l] = frame.return_pc;
    give_back(frame.saved.size() * sizeof(uint64_t));
    w.calls[l].pop_back();
  }
}

}  // namespace ptx::emu::engine
