// One generated launch for the emulator fuzzer: a module with one kernel `k`, the launch's shape,
// the device buffers made before it and the kernel's arguments.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "ptxpp/emu/emulator.hpp"

namespace ptx::fuzz {

// A pointer argument: an offset from a buffer's address, or (buffer < 0) an absolute address.
struct PointerArg {
  int buffer = 0;
  uint64_t offset = 0;
};

struct Buffer {
  uint32_t bytes = 0;
  bool freed = false;  // freed before the launch: every access is a use after free
};

struct EmuCase {
  std::string ptx;
  std::string target;  // the module's .target (sm_80, sm_90a, sm_100a): what ptxas assembles it for
  emu::LaunchConfig config;
  std::vector<Buffer> buffers;
  // The kernel's parameters: (.param .u64 buf0, .param .u64 buf1, .param .u64 off, .param .u32 n).
  PointerArg buf0, buf1;
  uint64_t off = 0;
  uint32_t n = 0;
  // Without the checks of shared memory never written and of races, which end most kernels that
  // share memory without barriers: so that the fuzzer reaches what follows.
  bool lenient = false;
};

}  // namespace ptx::fuzz
