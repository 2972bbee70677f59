// The launch of a generated kernel, chosen before its code: the target, the sizes of the module's
// variables, the grid, block, cluster and dynamic shared memory, the device buffers and the
// arguments (pointers into the buffers at offsets near their edges, or anywhere).
#pragma once

#include <cstdint>

#include "edge_values.hpp"
#include "emu_case.hpp"
#include "generation_context.hpp"

namespace ptx::fuzz {

inline uint32_t variable_bytes(FuzzedDataProvider& in) {
  return in.PickValueInArray({1u, 4u, 12u, 16u, 64u, 100u, 256u, 256u, 1024u, 4096u, 4096u, 4096u});
}

// A .local array: not of 1 byte, where a 4-byte store at a computed address crashes ptxas 13.0.
inline uint32_t frame_bytes(FuzzedDataProvider& in) {
  return in.PickValueInArray({4u, 12u, 16u, 64u, 100u, 256u, 256u, 1024u, 4096u, 4096u, 4096u});
}

// The target and the module's variables.
inline ModuleShape module_shape(FuzzedDataProvider& in) {
  ModuleShape s;
  s.sm = in.PickValueInArray({80, 90, 100});
  s.target = s.sm == 80 ? "sm_80" : s.sm == 90 ? "sm_90a" : "sm_100a";
  s.global_bytes = variable_bytes(in);
  s.const_bytes = variable_bytes(in);
  s.shared_bytes = variable_bytes(in);
  s.local_bytes = frame_bytes(in);
  // now and then a frame near or past the fuzzer's 64 KiB stack limit
  s.func_local_bytes =
      in.ConsumeIntegralInRange<int>(0, 3) < 3 ? frame_bytes(in) : in.PickValueInArray({32768u, 65536u, 98304u});
  s.func = in.ConsumeBool();
  s.edge_odds = in.PickValueInArray({2, 8, 32});
  return s;
}

inline PointerArg pointer_arg(FuzzedDataProvider& in, int buffer, uint32_t bytes) {
  if (in.ConsumeIntegralInRange<int>(0, 4) == 0) return {-1, edge_offset(in, 0)};
  return {buffer, in.ConsumeBool() ? 0 : edge_offset(in, bytes)};
}

// The launch (grid, block, cluster, dynamic shared memory), the buffers and the arguments; records
// the thread and cluster counts and buffer sizes in `shape` for the code generators.
inline void choose_launch(FuzzedDataProvider& in, ModuleShape& shape, EmuCase& out) {
  emu::LaunchConfig& cfg = out.config;
  cfg.block.x = in.PickValueInArray({1u, 2u, 31u, 32u, 33u, 64u, 96u, 128u});
  cfg.block.y = in.PickValueInArray({1u, 1u, 1u, 2u});
  if (shape.sm >= 90 && in.ConsumeBool()) cfg.cluster.x = in.PickValueInArray({1u, 2u, 3u, 4u});
  cfg.grid.x = cfg.cluster.x * in.ConsumeIntegralInRange<uint32_t>(1, 2);
  if (in.ConsumeIntegralInRange<int>(0, 7) == 0) cfg.grid.x += 1;  // not a whole number of clusters
  cfg.grid.y = in.ConsumeIntegralInRange<int>(0, 3) == 0 ? 2 : 1;
  cfg.dynamic_smem = in.PickValueInArray({0u, 16u, 256u, 4096u});
  if (in.ConsumeIntegralInRange<int>(0, 15) == 0)
    cfg.dynamic_smem = in.PickValueInArray({48u << 10, 99u << 10, 163u << 10, 227u << 10, (227u << 10) + 1});
  shape.threads = cfg.block.x * cfg.block.y;
  shape.cluster_ctas = cfg.cluster.x;
  shape.dynamic_bytes = cfg.dynamic_smem;
  for (int b = 0; b < 2; ++b) {
    Buffer buf{in.PickValueInArray({0u, 1u, 4u, 16u, 60u, 64u, 256u, 4096u}),
               in.ConsumeIntegralInRange<int>(0, 15) == 0};
    shape.buffer_bytes[b] = buf.bytes;
    out.buffers.push_back(buf);
  }
  out.buf0 = pointer_arg(in, 0, shape.buffer_bytes[0]);
  out.buf1 = pointer_arg(in, 1, shape.buffer_bytes[1]);
  out.off = in.ConsumeBool() ? in.ConsumeIntegralInRange<uint64_t>(0, 64) : edge_offset(in, 0);
  out.n = edge_u32(in, 8);
  out.lenient = in.ConsumeBool();
}

}  // namespace ptx::fuzz
