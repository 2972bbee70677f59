// The control flow and synchronization of generated kernels: loops with back edges and trip counts
// from data, divergent branches, barriers of the whole CTA or of a subset of its warps, calls of the
// recursive function f, mbarrier phases (with a bulk copy on sm_90), and alloca with stacksave and
// stackrestore. Each takes the generator of a nested block as `body`.
#pragma once

#include <algorithm>  // std::max
#include <string>

#include <fmt/format.h>

#include "address_generator.hpp"
#include "memory_op_generator.hpp"

namespace ptx::fuzz {

// Runs `body` one level deeper; `divergent` when not every thread of the CTA gets there.
template <class Body>
void nested(Context& c, bool divergent, const Body& body) {
  const bool was = c.divergent;
  ++c.depth;
  c.divergent = was || divergent;
  body(c);
  c.divergent = was;
  --c.depth;
}

// do { body } while (++i < trip): the trip count an immediate, the kernel's `n`, or per thread.
template <class Body>
void loop(Context& c, const Body& body) {
  const std::string i = c.w.reg(RegKind::B32), more = c.w.reg(RegKind::Pred), top = c.w.label("loop");
  std::string trip = std::to_string(c.in.ConsumeIntegralInRange<uint32_t>(1, 8));
  bool per_thread = false;
  switch (c.in.ConsumeIntegralInRange<int>(0, 3)) {
    case 0:
      break;
    case 1:
      trip = std::to_string(edge_u32(c.in, 64));
      break;
    case 2:  // the kernel's preamble loads n into %r0
      trip = c.kernel ? "%r0" : trip;
      break;
    default:
      trip = c.w.reg(RegKind::B32);
      c.w.line("and.b32 {}, {}, 3", trip, c.tid);
      per_thread = true;
  }
  c.w.line("mov.u32 {}, 0", i);
  c.w.place(top);
  c.indices.push_back(i);
  nested(c, per_thread, body);
  c.w.line("add.u32 {}, {}, 1", i, i);
  c.w.line("setp.lt.u32 {}, {}, {}", more, i, trip);
  c.w.line("@{} bra {}", more, top);
}

// if (tid <cmp> k) { body }: lanes of one warp part ways and meet again.
template <class Body>
void branch(Context& c, const Body& body) {
  const std::string p = c.w.reg(RegKind::Pred), skip = c.w.label("skip");
  const char* cmp = c.in.PickValueInArray({"lt", "ge", "eq", "ne"});
  const uint32_t k = c.in.PickValueInArray({0u, 1u, 16u, 31u, 32u, c.shape.threads - 1, c.shape.threads});
  c.w.line("setp.{}.u32 {}, {}, {}", cmp, p, c.tid, k);
  c.w.line("@{} bra {}", p, skip);
  nested(c, true, body);
  c.w.place(skip);
}

// The thread count a barrier waits for: whole warps (a warp arrives as 32 threads).
inline uint32_t warps_of(uint32_t threads) { return (threads + 31) / 32; }

// bar.sync of the whole CTA; of the first k warps; or warp 0 arriving while the rest wait.
inline void barrier(Context& c) {
  const uint32_t warps = warps_of(c.shape.threads);
  const unsigned id = c.in.ConsumeIntegralInRange<unsigned>(0, 15);
  switch (c.in.ConsumeIntegralInRange<int>(0, 3)) {
    case 0:
      return c.w.line("bar.sync 0");
    case 1:
      return c.w.line("barrier.sync {}, {}", id, 32 * warps);
    case 2: {
      const uint32_t k = c.in.ConsumeIntegralInRange<uint32_t>(1, warps);
      const std::string p = c.w.reg(RegKind::Pred), skip = c.w.label("subset");
      c.w.line("setp.ge.u32 {}, {}, {}", p, c.tid, 32 * k);
      c.w.line("@{} bra {}", p, skip);
      c.w.line("bar.sync {}, {}", id, 32 * k);
      return c.w.place(skip);
    }
    default: {
      const std::string p = c.w.reg(RegKind::Pred), arrive = c.w.label("arrive"), done = c.w.label("arrived");
      const uint32_t count = 32 * c.in.ConsumeIntegralInRange<uint32_t>(1, warps + 1);
      c.w.line("setp.lt.u32 {}, {}, 32", p, c.tid);
      c.w.line("@{} bra {}", p, arrive);
      c.w.line("bar.sync {}, {}", id, count);
      c.w.line("bra {}", done);
      c.w.place(arrive);
      c.w.line("bar.arrive {}, {}", id, count);
      c.w.place(done);
    }
  }
}

// call (r), f, (depth, pointer): f recurses `depth` times, a .local array in each frame.
inline void call(Context& c) {
  std::string depth = c.in.PickValueInArray({"0", "1", "2", "3", "8", "100", "100000", "%r0"});
  std::string pointer = c.pick(c.pointers).reg;
  if (c.in.ConsumeBool()) pointer = converted(c, ".local", symbol_address(c, c.local_array, c.local_bytes)).reg;
  const std::string result = c.w.reg(RegKind::B32);
  c.w.raw("\t{");
  c.w.raw("\t.param .b32 fa;\n\t.param .b64 fb;\n\t.param .b32 fr;");
  c.w.line("st.param.b32 [fa], {}", depth);
  c.w.line("st.param.b64 [fb], {}", pointer);
  c.w.line("call (fr), f, (fa, fb)");
  c.w.line("ld.param.b32 {}, [fr]", result);
  c.w.raw("\t}");
}

// Thread 0 inits the mbarrier (for every thread, or an edge count), maybe starts a bulk copy that
// completes bytes on it (sm_90), every thread arrives and waits for the phase to complete.
inline void mbarrier_phase(Context& c) {
  const std::string first = c.w.reg(RegKind::Pred), count = c.w.reg(RegKind::B32);
  const std::string bar =
      c.in.ConsumeIntegralInRange<int>(0, 3) > 0 ? "[mbar]" : address_in(c, Space::Shared, 8).operand();
  uint32_t n = c.shape.threads;
  if (c.in.ConsumeIntegralInRange<int>(0, 3) == 0) n = c.in.PickValueInArray({0u, 1u, n + 1, (1u << 20) - 1, 1u << 20});
  c.w.line("setp.eq.u32 {}, {}, 0", first, c.tid);
  c.w.line("mov.u32 {}, {}", count, n);
  c.w.line("@{} mbarrier.init.shared.b64 {}, {}", first, bar, count);
  c.w.line("bar.sync 0");
  if (c.shape.sm >= 90 && c.in.ConsumeBool()) {
    uint32_t bytes = 0;
    const std::string size = bulk_size(c, bytes);
    const Address dst = address_in(c, Space::Shared, std::max(bytes, 16u)),
                  src = address_in(c, Space::Global, std::max(bytes, 16u));
    c.w.line("@{} mbarrier.expect_tx.relaxed.cta.shared.b64 {}, {}", first, bar, size);
    c.w.line("@{} cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes {}, {}, {}, {}", first,
             dst.operand(), src.operand(), size, bar);
  }
  const std::string state = c.w.reg(RegKind::B64), done = c.w.reg(RegKind::Pred), wait = c.w.label("wait");
  c.w.line("mbarrier.arrive.shared.b64 {}, {}", state, bar);
  c.w.place(wait);
  c.w.line("mbarrier.{}.shared.b64 {}, {}, {}", c.shape.sm >= 90 ? "try_wait" : "test_wait", done, bar, state);
  c.w.line("@!{} bra {}", done, wait);
}

// alloca of a size near the stack limit's edges (an immediate or any register value), its region
// addressable by later instructions; maybe inside stacksave/stackrestore (and used after it).
template <class Body>
void stack_allocation(Context& c, const Body& body) {
  std::string saved;
  if (c.in.ConsumeBool()) {
    saved = c.w.reg(RegKind::B64);
    c.w.line("stacksave.u64 {}", saved);
  }
  uint64_t bytes = c.in.PickValueInArray({0u, 8u, 16u, 100u, 4096u});
  if (c.in.ConsumeIntegralInRange<int>(0, 7) == 0) bytes = c.in.PickValueInArray({65536u - 16, 65536u, 65537u});
  std::string size = std::to_string(bytes);
  if (c.in.ConsumeIntegralInRange<int>(0, 3) == 0) {
    bytes = edge_offset(c.in, 4096);
    size = c.w.reg(RegKind::B64);
    c.w.line("mov.u64 {}, {}", size, literal(bytes));
  }
  std::string align;
  if (c.in.ConsumeBool())
    align = fmt::format(
        ", {}", c.in.ConsumeIntegralInRange<int>(0, 7) == 0 ? 1u << 23 : c.in.PickValueInArray({8u, 16u, 4096u}));
  const std::string at = c.w.reg(RegKind::B64);
  c.w.line("alloca.u64 {}, {}{}", at, size, align);
  c.stack.push_back({at, bytes});
  if (saved.empty() || !c.in.ConsumeBool()) return;
  nested(c, false, body);
  if (c.in.ConsumeIntegralInRange<int>(0, 7) == 0)
    c.w.line("mov.u64 {}, {}", saved, literal(edge_offset(c.in, 0)));  // not a saved pointer
  c.w.line("stackrestore.u64 {}", saved);
}

}  // namespace ptx::fuzz
