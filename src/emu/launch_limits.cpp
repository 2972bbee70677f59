#include "launch_limits.hpp"

#include <fmt/format.h>

#include "ptxpp/core/target.hpp"

namespace ptx::emu {

namespace {

using Field = ConfigError::Field;

[[noreturn]] void refuse(Field f, std::string_view entry, const std::string& what) {
  throw ConfigError(f, fmt::format("launch of {}: {}", entry, what));
}

void check_dims(std::string_view entry, const char* name, Field f, const Dim3& d, const Dim3& max) {
  if (d.x == 0 || d.y == 0 || d.z == 0)
    refuse(f, entry, fmt::format("{} ({},{},{}): every dimension must be positive", name, d.x, d.y, d.z));
  if (d.x > max.x || d.y > max.y || d.z > max.z)
    refuse(f, entry,
           fmt::format("{} ({},{},{}): a GPU takes at most ({},{},{})", name, d.x, d.y, d.z, max.x, max.y, max.z));
}

}  // namespace

uint32_t max_shared_memory_per_block(std::string_view target) {
  // The CUDA programming guide's "maximum amount of shared memory per thread block" (with the
  // opt-in attribute), by compute capability.
  const auto t = Target::parse(target);
  const unsigned sm = t ? t->number : 0;
  constexpr uint32_t kKiB = 1024;
  switch (sm) {
    case 70:
    case 72:
      return 96 * kKiB;
    case 75:
      return 64 * kKiB;
    case 80:
    case 87:
      return 163 * kKiB;
    case 86:
    case 89:
    case 120:
    case 121:
      return 99 * kKiB;
    default:
      break;
  }
  if (sm >= 90 && sm < 120) return 227 * kKiB;  // sm_90, sm_100, sm_103, sm_110
  if (sm > 121) return 99 * kKiB;               // later consumer parts: the smallest known, until the guide says
  return 48 * kKiB;                             // before sm_70, or no target
}

void check_launch_shape(std::string_view entry, const LaunchConfig& cfg, const Dim3& cluster) {
  check_dims(entry, "grid", Field::Grid, cfg.grid, {0x7FFFFFFFu, 65535, 65535});
  check_dims(entry, "block", Field::Block, cfg.block, {1024, 1024, 64});
  const uint64_t threads = uint64_t{cfg.block.x} * cfg.block.y * cfg.block.z;
  if (threads > 1024) refuse(Field::Block, entry, fmt::format("{} threads per block; at most 1024", threads));
  const Dim3& cl = cluster;
  if (cl.x == 0 || cl.y == 0 || cl.z == 0 || uint64_t{cl.x} * cl.y * cl.z > 16)
    refuse(Field::Cluster, entry,
           fmt::format("cluster ({},{},{}): each dimension positive, at most 16 CTAs", cl.x, cl.y, cl.z));
  if (cfg.grid.x % cl.x || cfg.grid.y % cl.y || cfg.grid.z % cl.z)
    refuse(Field::Cluster, entry,
           fmt::format("the grid ({},{},{}) is not a whole number of clusters ({},{},{})", cfg.grid.x, cfg.grid.y,
                       cfg.grid.z, cl.x, cl.y, cl.z));
}

void check_shared_memory(std::string_view entry, std::string_view target, uint64_t static_bytes,
                         uint64_t dynamic_bytes) {
  const uint64_t limit = max_shared_memory_per_block(target);
  if (static_bytes + dynamic_bytes <= limit) return;
  refuse(Field::SharedMemory, entry,
         fmt::format("{} bytes of shared memory per CTA ({} static, {} dynamic): a GPU of target {} takes at most {}",
                     static_bytes + dynamic_bytes, static_bytes, dynamic_bytes, target.empty() ? "(none)" : target,
                     limit));
}

}  // namespace ptx::emu
