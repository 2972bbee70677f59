// Emulator: the entry points (validation, parameters, launch); a launch runs its clusters on
// Options::threads host threads, each with its own Runner (runner.hpp).
#include <algorithm>
#include <cstring>
#include <exception>
#include <thread>

#include <fmt/format.h>

#include "launch_limits.hpp"
#include "ptxpp/ir/queries.hpp"
#include "ptxpp/spec/validator.hpp"
#include "runner.hpp"

namespace ptx::emu {

using engine::Runner;

Emulator::Emulator(Options o) : options_(o) {}

// What ptxas would refuse is not run: the instruction stream of an invalid module (a missing
// operand, a special register as a destination) has no meaning to emulate.
void Emulator::require_valid(const ir::Module& m, std::string_view entry) {
  const std::vector<Diagnostic> diags = spec::check(m);
  std::string shown;
  size_t errors = 0;
  for (const Diagnostic& d : diags) {
    if (d.severity != Severity::Error) continue;
    if (++errors > 3) continue;
    const ir::LineColumn lc = m.source.size() ? m.source.locate(d.offset) : ir::LineColumn{};
    shown += lc.line ? fmt::format("\n  {}:{}:{}: {}", m.source.name(), lc.line, lc.column, d.message) : "\n  " + d.message;
  }
  if (errors)
    throw Error(fmt::format("launch of {}: the module is not valid PTX ({} error{}; Options::validate = false runs it anyway):{}{}", entry,
                            errors, errors == 1 ? "" : "s", shown, errors > 3 ? fmt::format("\n  ... and {} more", errors - 3) : ""));
}

std::vector<uint32_t> Emulator::parameter_sizes(const ir::Module& m, std::string_view entry) {
  Memory scratch;
  return decode(m, entry, scratch).param_sizes;
}
Emulator::~Emulator() = default;

void Emulator::launch(const ir::Module& m, std::string_view entry, const LaunchConfig& cfg, std::span<const Arg> args) {
  check_launch_shape(entry, cfg, cfg.cluster);
  if (options_.validate) require_valid(m, entry);
  const Program p = decode(m, entry, memory_);
  if (args.size() != p.param_offsets.size())
    throw ConfigError(ConfigError::Field::Arguments, fmt::format("launch of {}: {} arguments for {} parameters", entry, args.size(), p.param_offsets.size()));
  std::vector<uint8_t> params(p.param_bytes, 0);
  for (size_t i = 0; i < args.size(); ++i) {
    if (args[i].bytes.size() != p.param_sizes[i])
      throw ConfigError(ConfigError::Field::Arguments,
                        fmt::format("launch of {}: argument {} has {} bytes; the parameter has {}", entry, i, args[i].bytes.size(), p.param_sizes[i]));
    std::memcpy(params.data() + p.param_offsets[i], args[i].bytes.data(), args[i].bytes.size());
  }
  const Dim3 cl = Runner::cluster_shape(p, cfg);
  check_launch_shape(entry, cfg, cl);  // with the kernel's .reqnctapercluster
  if (p.req_cluster[0] && static_cast<uint64_t>(cfg.cluster.x) * cfg.cluster.y * cfg.cluster.z > 1 &&
      (cl.x != p.req_cluster[0] || cl.y != p.req_cluster[1] || cl.z != p.req_cluster[2]))
    throw ConfigError(ConfigError::Field::Cluster, fmt::format("launch of {}: cluster ({},{},{}), but the kernel requires .reqnctapercluster {},{},{}",
                                                               entry, cl.x, cl.y, cl.z, p.req_cluster[0], p.req_cluster[1], p.req_cluster[2]));
  const auto target = ir::target_words(m);
  check_shared_memory(entry, target.empty() ? std::string_view{} : target[0], p.static_smem, cfg.dynamic_smem);
  const uint64_t ctas = static_cast<uint64_t>(cfg.grid.x / cl.x) * (cfg.grid.y / cl.y) * (cfg.grid.z / cl.z);  // clusters
  unsigned threads = options_.threads ? options_.threads : std::max(1u, std::thread::hardware_concurrency());
  threads = static_cast<unsigned>(std::min<uint64_t>(threads, ctas));
  std::atomic<uint64_t> next{0};
  LaunchBudget budget(options_.max_launch_memory);
  LaunchWatch watch(options_, ctas, cl.x * cl.y * cl.z);
  std::vector<Stats> stats(threads);
  std::vector<std::exception_ptr> errors(threads);
  auto work = [&](unsigned t) {
    try {
      Runner(p, memory_, options_, cfg, params, stats[t], budget, watch).run(next);
    } catch (...) {
      errors[t] = std::current_exception();
      watch.stop();
    }
  };
  if (threads <= 1) {
    work(0);
  } else {
    std::vector<std::thread> pool;
    for (unsigned t = 0; t < threads; ++t) pool.emplace_back(work, t);
    for (auto& th : pool) th.join();
  }
  for (const Stats& st : stats) {
    stats_.warp_instructions += st.warp_instructions;
    stats_.thread_instructions += st.thread_instructions;
  }
  for (const auto& e : errors)
    if (e) std::rethrow_exception(e);
}

}  // namespace ptx::emu
