// Internal: a kernel's definition, and tracing kernels into a module's trace
// (Kernel::trace for one kernel, ptx::Module for several).
#pragma once

#include <map>
#include <mutex>
#include <optional>
#include <string>
#include <variant>
#include <vector>

#include "ptxpp/dsl/kernel.hpp"
#include "ptxpp/spec/isa.hpp"
#include "trace.hpp"

namespace ptx {

struct Kernel::Impl {
  std::string name;
  ptx::SourceLocation where;
  std::vector<dsl::detail::Param> params;
  std::vector<bool> outputs;
  std::variant<Dim3, std::function<Dim3(const Bindings&)>> grid{Dim3{}}, block{Dim3{}};
  Dim3 cluster{};
  bool has_cluster = false;
  Target target{80, 0};
  std::optional<PtxVersion> version;
  struct Directive {
    std::string name;
    std::vector<uint32_t> args;
  };
  std::vector<Directive> directives;
  bool debug = false, validate = true;
  std::function<void(std::span<const dsl::detail::Param>)> body;

  std::mutex mu;
  std::map<std::string, std::shared_ptr<const Traced>> cache;
};

namespace dsl {

// One kernel traced into t.m: its .entry statement and its metadata.
struct KernelPiece {
  ir::Stmt function;
  bool dynamic_smem = false;
  uint64_t smem_bytes = 0;
  std::vector<ParamInfo> params;
};
KernelPiece trace_kernel_into(Trace& t, Kernel::Impl& k, const Bindings& bindings, Target target);

// The launch metadata of kernel k traced into t (assembled: t.m is the whole module, its PTX).
std::shared_ptr<Traced> traced_of(const Kernel::Impl& k, KernelPiece piece, const Bindings& bindings, const Trace& t,
                                  Target target);

// Kernel::ptx_version / Module::ptx_version's ints as a version (clamped to 0..65535:
// a negative one is then below what any kernel needs, and refused as such).
PtxVersion requested_version(int major, int minor);

// .version (the lowest the target and t need, or `version`), .target, .address_size,
// .file, the dynamic shared memory array when `dynamic_smem`, then `body`.
void assemble_module(Trace& t, std::vector<ir::Stmt> body, Target target,
                     std::optional<PtxVersion> version, bool dynamic_smem, ptx::SourceLocation where);

}  // namespace dsl
}  // namespace ptx
