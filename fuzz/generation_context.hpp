// What the kernel generator knows while it writes: the module's shape (target, variables and their
// sizes, the launch), the function being written and what is in scope there.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "fuzzed_data.hpp"
#include "ptx_function_writer.hpp"

namespace ptx::fuzz {

// The module-scope declarations and the launch, chosen before any instruction.
struct ModuleShape {
  int sm = 80;  // 80, 90 or 100: which instructions exist
  std::string target;
  uint32_t global_bytes = 0, const_bytes = 0, shared_bytes = 0;  // .global g[], .const c[], .shared s[]
  uint32_t local_bytes = 0, func_local_bytes = 0;                // the kernel's and f's .local arrays
  uint32_t dynamic_bytes = 0;                                    // .extern .shared dyn[]: the launch's size
  uint32_t threads = 1, cluster_ctas = 1;                        // per CTA; CTAs per cluster
  uint32_t buffer_bytes[2] = {0, 0};                             // what buf0 and buf1 point into
  bool func = false;                                             // a recursive .func f
  int edge_odds = 4;  // one address in edge_odds is near an edge (the others inside a region)
};

// A region the code can address: a 64-bit register holding its start, and its size.
struct Region {
  std::string reg;
  uint64_t bytes = 0;
};

struct Context {
  Context(FuzzedDataProvider& input, const ModuleShape& module, PtxFunctionWriter& writer)
      : in(input), shape(module), w(writer) {}

  FuzzedDataProvider& in;
  const ModuleShape& shape;
  PtxFunctionWriter& w;
  bool kernel = true;  // the entry (its parameters, calls to f) or f
  std::string local_array;
  uint32_t local_bytes = 0;
  std::vector<std::string> indices;  // .b32 registers to index with: %tid.x, %ctaid.x, loop counters, loaded values
  std::vector<Region> pointers;      // generic pointers from arguments
  std::vector<Region> stack;         // regions from alloca
  std::string tid, value64, value128;
  int depth = 0;
  bool divergent = false;  // not every thread of the CTA runs here: no CTA-wide barriers

  template <class T>
  const T& pick(const std::vector<T>& v) {
    return v[in.ConsumeIntegralInRange<size_t>(0, v.size() - 1)];
  }
};

}  // namespace ptx::fuzz
