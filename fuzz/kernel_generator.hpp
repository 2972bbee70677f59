// Turns a fuzz input into an EmuCase: a small, valid PTX module (ptxas assembles it for its target)
// with module-scope .global/.const/.shared variables, a kernel `k` and maybe a recursive function
// `f`, whose instructions compute addresses near the edges of every state space, in loops,
// branches, calls and between barriers; and a launch of it. Every choice is read from the input,
// so libFuzzer's mutations steer the addresses, sizes, counts and shapes.
#pragma once

#include <string>

#include <fmt/format.h>

#include "control_generator.hpp"
#include "emu_case.hpp"
#include "launch_generator.hpp"
#include "memory_op_generator.hpp"

namespace ptx::fuzz {

inline constexpr int kMaxDepth = 2;

inline void statements(Context& c, int most);

inline void statement(Context& c) {
  const auto block = [](Context& inner) { statements(inner, 4); };
  const bool deeper = c.depth < kMaxDepth, cta_wide = !c.divergent;
  switch (c.in.ConsumeIntegralInRange<int>(0, 9)) {
    case 0:
      return deeper ? loop(c, block) : memory_op(c);
    case 1:
      return deeper ? branch(c, block) : memory_op(c);
    case 2:
      return cta_wide ? barrier(c) : memory_op(c);
    case 3:
      return c.kernel && c.shape.func ? call(c) : memory_op(c);
    case 4:
      return cta_wide ? mbarrier_phase(c) : memory_op(c);
    case 5:
      return deeper ? stack_allocation(c, block) : memory_op(c);
    default:
      return memory_op(c);
  }
}

// Up to `most` statements, fewer when the input runs out.
inline void statements(Context& c, int most) {
  const int n = c.in.ConsumeIntegralInRange<int>(1, most);
  for (int i = 0; i < n && c.in.remaining_bytes() > 0; ++i) statement(c);
}

// .func (.param .b32 r) f(.param .b32 depth, .param .b64 ptr): a .local array per frame, some
// statements (at ptr, its array, the module's variables), then f(depth - 1) unless depth is 0.
inline std::string device_function(FuzzedDataProvider& in, const ModuleShape& shape) {
  PtxFunctionWriter w;
  Context c{in, shape, w};
  c.kernel = false;
  c.local_array = "fl";
  c.local_bytes = shape.func_local_bytes;
  const std::string depth = w.reg(RegKind::B32), ptr = w.reg(RegKind::B64);
  c.tid = w.reg(RegKind::B32);
  w.line("ld.param.u32 {}, [depth]", depth);
  w.line("ld.param.u64 {}, [ptr]", ptr);
  w.line("mov.u32 {}, %tid.x", c.tid);
  c.indices = {depth, c.tid};
  c.pointers = {{ptr, 0}};
  c.value64 = ptr;
  c.value128 = w.reg(RegKind::B128);
  w.line("mov.b128 {}, {{{}, {}}}", c.value128, ptr, ptr);
  c.divergent = true;  // called from anywhere: no CTA-wide barriers
  statements(c, 6);
  const std::string last = w.reg(RegKind::Pred), next = w.reg(RegKind::B32), result = w.reg(RegKind::B32),
                    done = w.label("done");
  w.line("setp.eq.u32 {}, {}, 0", last, depth);
  w.line("@{} bra {}", last, done);
  w.line("sub.u32 {}, {}, 1", next, depth);
  w.raw("\t{\n\t.param .b32 ra;\n\t.param .b64 rb;\n\t.param .b32 rr;");
  w.line("st.param.b32 [ra], {}", next);
  w.line("st.param.b64 [rb], {}", ptr);
  w.line("call (rr), f, (ra, rb)");
  w.line("ld.param.b32 {}, [rr]", result);
  w.raw("\t}");
  w.place(done);
  w.line("st.param.b32 [r], {}", depth);
  w.line("ret");
  return fmt::format(
      ".func (.param .b32 r) f(.param .b32 depth, .param .b64 ptr)\n{{\n\t.local .align 16 .b8 fl[{}];\n{}}}\n\n",
      shape.func_local_bytes, w.text());
}

// .entry k(buf0, buf1, off, n): the arguments and %tid.x/%ctaid.x/%laneid in registers, then statements.
inline std::string kernel(FuzzedDataProvider& in, const ModuleShape& shape) {
  PtxFunctionWriter w;
  Context c{in, shape, w};
  c.local_array = "l";
  c.local_bytes = shape.local_bytes;
  const std::string n = w.reg(RegKind::B32), buf0 = w.reg(RegKind::B64), buf1 = w.reg(RegKind::B64);  // %r0: n
  c.value64 = w.reg(RegKind::B64);
  w.line("ld.param.u32 {}, [n]", n);
  w.line("ld.param.u64 {}, [buf0]", buf0);
  w.line("ld.param.u64 {}, [buf1]", buf1);
  w.line("ld.param.u64 {}, [off]", c.value64);
  c.tid = w.reg(RegKind::B32);
  const std::string cta = w.reg(RegKind::B32), lane = w.reg(RegKind::B32);
  w.line("mov.u32 {}, %tid.x", c.tid);
  w.line("mov.u32 {}, %ctaid.x", cta);
  w.line("mov.u32 {}, %laneid", lane);
  c.value128 = w.reg(RegKind::B128);
  w.line("mov.b128 {}, {{{}, {}}}", c.value128, c.value64, buf0);
  c.indices = {n, c.tid, cta, lane};
  c.pointers = {{buf0, shape.buffer_bytes[0]}, {buf1, shape.buffer_bytes[1]}};
  statements(c, 12);
  w.line("ret");
  return fmt::format(
      ".visible .entry k(.param .u64 buf0, .param .u64 buf1, .param .u64 off, .param .u32 n)\n{{\n"
      "\t.local .align 16 .b8 l[{}];\n{}}}\n",
      shape.local_bytes, w.text());
}

inline EmuCase generate_case(FuzzedDataProvider& in) {
  EmuCase out;
  ModuleShape shape = module_shape(in);
  choose_launch(in, shape, out);
  std::string ptx = fmt::format(
      ".version 8.7\n.target {}\n.address_size 64\n\n"
      ".global .align 16 .b8 g[{}];\n.const .align 16 .b8 c[{}];\n.shared .align 16 .b8 s[{}];\n"
      ".shared .align 8 .b64 mbar;\n.extern .shared .align 16 .b8 dyn[];\n\n",
      shape.target, shape.global_bytes, shape.const_bytes, shape.shared_bytes);
  if (shape.func) ptx += device_function(in, shape);
  out.ptx = ptx + kernel(in, shape);
  out.target = shape.target;
  return out;
}

inline EmuCase generate_case(const uint8_t* data, size_t size) {
  FuzzedDataProvider in(data, size);
  return generate_case(in);
}

}  // namespace ptx::fuzz
