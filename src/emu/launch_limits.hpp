// Internal: what a GPU takes as a launch (grid, block, cluster, shared memory), checked before
// the emulator runs anything, so that a launch no GPU would start is refused the same way here.
#pragma once

#include <cstdint>
#include <string_view>

#include "ptxpp/emu/emulator.hpp"

namespace ptx::emu {

// The grid, block and cluster shape (CUDA's limits: block x, y <= 1024, z <= 64, at most 1024
// threads; grid x < 2^31, y and z <= 65535; at most 16 CTAs a cluster, dividing the grid).
// Throws ConfigError.
void check_launch_shape(std::string_view entry, const LaunchConfig& cfg, const Dim3& cluster);

// The CTA's static and dynamic shared memory against the module's target. Throws ConfigError.
void check_shared_memory(std::string_view entry, std::string_view target, uint64_t static_bytes,
                         uint64_t dynamic_bytes);

}  // namespace ptx::emu
