// The CPU emulator: runs a PTX kernel of a parsed or traced module on the CPU,
// warp by warp (32 lanes, SIMT divergence with per-lane program counters), with
// device memory that checks every access.
//
//   ptx::emu::Emulator emu;
//   uint64_t x = emu.memory().alloc(4096, "x");
//   emu.memory().write(x, host.data(), 4096);
//   const ptx::emu::Arg args[] = {ptx::emu::Arg::pointer(x), ptx::emu::Arg::f32(2.0f)};
//   emu.launch(module, "kernel", {.grid = {4}, .block = {256}}, args);
//
// The emulator is a sandbox: whatever the kernel does, it reports it (Error) within the limits
// of Options (docs/emulator.md, "Limits").
#pragma once

#include <cstdint>
#include <cstring>
#include <atomic>
#include <functional>
#include <map>
#include <ostream>
#include <shared_mutex>
#include <memory>
#include <span>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "ptxpp/core/dim3.hpp"
#include "ptxpp/ir/module.hpp"

namespace ptx::emu {

// A problem found while running: an invalid access, an unsupported instruction,
// a deadlock. Names the kernel, CTA, thread, instruction and source line.
struct TextureDesc;
struct SurfaceDesc;
struct TextureObject;
class TextureObjects;

class Error : public std::runtime_error {
 public:
  explicit Error(const std::string& report) : std::runtime_error(report) {}
};

// An instruction, modifier or operand form the emulator does not run yet (the module may be
// valid PTX; `ptxpp spec --coverage --emulator` lists what the emulator runs).
class Unsupported : public Error {
 public:
  using Error::Error;
};

// A launch refused before it runs: a grid, block, cluster or shared-memory size no GPU of the
// module's target takes, or arguments that do not match the parameters. `field` says which
// part of the launch is wrong (the CLI names its option).
class ConfigError : public Error {
 public:
  enum class Field : uint8_t { Grid, Block, Cluster, SharedMemory, Arguments };
  ConfigError(Field f, const std::string& report) : Error(report), field(f) {}
  Field field;
};

// Device memory: allocations at synthetic addresses (never host pointers), each
// access checked against the allocation it falls in.
class Memory {
 public:
  Memory();
  ~Memory();
  Memory(const Memory&) = delete;
  Memory& operator=(const Memory&) = delete;

  uint64_t alloc(size_t bytes, std::string name = {});
  void free(uint64_t address);
  void write(uint64_t address, const void* src, size_t bytes);
  void read(void* dst, uint64_t address, size_t bytes) const;
  void fill(uint64_t address, uint8_t value, size_t bytes);
  // The allocation `address` falls in: its name and the offset, for reports ("x+16").
  std::string describe(uint64_t address) const;

  struct Allocation {
    uint64_t base;
    std::vector<uint8_t> bytes;
    std::string name;
    bool freed = false;
  };
  // The bytes at [address, address + size) of one live allocation, or nullptr.
  uint8_t* find(uint64_t address, size_t size);
  // The allocation holding `address`, live or freed (nullptr if none).
  const Allocation* owner(uint64_t address) const;

  // Texture and surface objects (ptxpp/emu/texture.hpp, texture.cpp): the handles that
  // cudaCreateTextureObject / cudaCreateSurfaceObject give on a GPU, in a range no address falls
  // in. The descriptor is checked (throws Error); the memory is checked again at each access.
  uint64_t create_texture(const TextureDesc& d);
  uint64_t create_surface(const SurfaceDesc& d);
  void destroy_texture(uint64_t handle);
  void destroy_surface(uint64_t handle);
  // What `handle` names, or nullptr; `why` (when given) says what the value is instead.
  const TextureObject* texture_object(uint64_t handle, std::string* why = nullptr) const;

 private:
  std::map<uint64_t, Allocation> allocs_;  // by base
  uint64_t next_ = 0x0000700000000000ull;
  // Changes with every alloc/free: invalidates the per-thread lookup caches. Kernels
  // may allocate (device malloc) while other threads look up: the map has a lock.
  std::atomic<uint64_t> generation_;
  mutable std::shared_mutex mu_;
  std::shared_ptr<TextureObjects> objects_;  // created with the first texture or surface
};

// The library's one dimension type (ptxpp/core/dim3.hpp), by its old name here too.
using ptx::Dim3;

struct LaunchConfig {
  Dim3 grid, block, cluster;
  uint32_t dynamic_smem = 0;
};

// A kernel argument: its bytes, passed in parameter order.
struct Arg {
  std::vector<uint8_t> bytes;
  static Arg pointer(uint64_t address) { return of(address); }
  static Arg u32(uint32_t v) { return of(v); }
  static Arg s32(int32_t v) { return of(v); }
  static Arg u64(uint64_t v) { return of(v); }
  static Arg f32(float v) { return of(v); }
  static Arg f64(double v) { return of(v); }
  template <class T>
  static Arg of(T v) {
    Arg a;
    a.bytes.resize(sizeof(T));
    std::memcpy(a.bytes.data(), &v, sizeof(T));
    return a;
  }
};

// How far a launch has come; Options::on_progress receives it about once a second.
struct Progress {
  uint64_t ctas_done = 0, ctas = 0;
  uint64_t warp_instructions = 0;            // so far, every host thread together
  double seconds = 0;                        // since the launch started
};

// The resource limits of a launch (docs/emulator.md, "Limits"): each one exceeded is reported
// as an Error naming the limit, never a crash or a host allocation without bound.
struct Options {
  unsigned threads = 0;           // host threads running CTAs (0: one per core)
  bool check_memory = true;       // out-of-bounds, misaligned, freed accesses
  bool check_shared_init = true;  // reads of shared memory never written in this CTA
  bool check_races = true;        // shared-memory accesses of two threads, one a write, between barriers
  bool check_sync = true;         // *.sync warp collectives: every live lane of the member mask executes them together
  // Tensor memory a tcgen05.ld reads written (tcgen05.mma, another warp's tcgen05.st) or freed
  // before the loading warp's tcgen05.wait::ld. (Reading the load's registers before the wait is
  // fine: ptxas makes those reads wait for the load, as CUTLASS 4.2's Blackwell epilogue relies on.)
  bool check_tcgen05_wait = true;
  bool validate = true;           // refuse a module the validator (ptx::spec::check) reports errors in, as ptxas would
  // Warp instructions per CTA (per cluster, with clusters): a kernel that runs longer is reported
  // as hung, or as a livelock when warps wait at a barrier the others never reach.
  uint64_t max_steps = 1ull << 32;
  double timeout_seconds = 0;  // wall-clock limit of a launch, reported like max_steps (0: none)
  uint64_t max_stack_bytes = 512u << 10;  // per thread: call frames (.local, .param) and alloca; a GPU's 512 KiB of local memory
  // Host memory the launch's own state may take, every host thread together: registers, stacks,
  // shared memory and its check shadows (device allocations are Memory's, made before launch).
  uint64_t max_launch_memory = uint64_t{4} << 30;
  std::ostream* printf_output = nullptr;  // where device printf writes (nullptr: standard output)
  uint64_t malloc_heap_bytes = 8u << 20;  // device malloc's heap per launch (CUDA's default 8 MiB); past it malloc returns 0
  std::function<void(const Progress&)> on_progress;  // called from a worker thread while a launch runs (empty: none)
};

// The largest shared memory (static and dynamic) a CTA may have on a GPU of `target`
// ("sm_90a"): the opt-in maximum per block of its compute capability (48 KiB before sm_70).
uint32_t max_shared_memory_per_block(std::string_view target);

struct Stats {
  uint64_t warp_instructions = 0;    // instructions issued per warp
  uint64_t thread_instructions = 0;  // times active lanes
};

class Emulator {
 public:
  explicit Emulator(Options o = {});
  ~Emulator();
  Memory& memory() { return memory_; }
  // Runs `entry` of `m` to completion; throws Error with a report on any problem.
  void launch(const ir::Module& m, std::string_view entry, const LaunchConfig& cfg, std::span<const Arg> args);
  const Stats& stats() const { return stats_; }
  // The byte sizes of `entry`'s parameters, in order (throws Error like launch does).
  static std::vector<uint32_t> parameter_sizes(const ir::Module& m, std::string_view entry);
  // Throws Error listing the validator's errors (file:line:col) when `m` has any: what launch()
  // does first with Options::validate. A caller that launches one module many times checks once.
  static void require_valid(const ir::Module& m, std::string_view entry);

 private:

  Options options_;
  Memory memory_;
  Stats stats_;
};

}  // namespace ptx::emu
