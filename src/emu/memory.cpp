#include <atomic>
#include <mutex>

#include <fmt/format.h>

#include "ptxpp/emu/emulator.hpp"

#include "bounds.hpp"

namespace ptx::emu {

namespace {
// Generations are unique across all Memory objects, so a lookup cache never mistakes
// a new Memory at a dead one's address for it.
std::atomic<uint64_t> g_generation{1};
}  // namespace

Memory::Memory() : generation_(g_generation.fetch_add(1)) {}
Memory::~Memory() = default;

uint64_t Memory::alloc(size_t bytes, std::string name) {
  if (bytes > (uint64_t{1} << 36))  // 64 GiB: more than any device has; never a host allocation attempt
    throw Error(fmt::format("allocation of {} bytes{}: more than the emulated device has", bytes, name.empty() ? "" : " for " + name));
  std::unique_lock lock(mu_);
  // 256-byte aligned, with an unmapped gap after each allocation so that an overrun
  // never lands in the next one.
  const uint64_t base = next_;
  next_ += (static_cast<uint64_t>(bytes) + 4096 + 255) & ~uint64_t{255};
  Allocation a;
  a.base = base;
  a.bytes.assign(bytes, 0);
  a.name = name.empty() ? fmt::format("buffer@{:#x}", base) : std::move(name);
  allocs_.emplace(base, std::move(a));
  generation_ = g_generation.fetch_add(1);
  return base;
}

void Memory::free(uint64_t address) {
  std::unique_lock lock(mu_);
  auto it = allocs_.find(address);
  if (it == allocs_.end() || it->second.freed) throw Error(fmt::format("free of {:#x}: not an allocation", address));
  it->second.freed = true;
  it->second.bytes.clear();
  it->second.bytes.shrink_to_fit();
  generation_ = g_generation.fetch_add(1);
}

const Memory::Allocation* Memory::owner(uint64_t address) const {
  std::shared_lock lock(mu_);
  auto it = allocs_.upper_bound(address);
  if (it == allocs_.begin()) return nullptr;
  --it;
  return &it->second;
}

namespace {
// The allocation the last lookup on this thread found (kernels touch few buffers).
struct LookupCache {
  const Memory* memory = nullptr;
  uint64_t generation = 0;
  const Memory::Allocation* alloc = nullptr;
};
thread_local LookupCache g_cache;
}  // namespace

uint8_t* Memory::find(uint64_t address, size_t size) {
  const Allocation* a = g_cache.memory == this && g_cache.generation == generation_ ? g_cache.alloc : nullptr;
  if (!a || !within(address, size, a->base, a->bytes.size())) {
    a = owner(address);
    if (!a || a->freed || !within(address, size, a->base, a->bytes.size())) return nullptr;
    g_cache = {this, generation_, a};
  }
  return const_cast<uint8_t*>(a->bytes.data()) + (address - a->base);
}

void Memory::write(uint64_t address, const void* src, size_t bytes) {
  uint8_t* p = find(address, bytes);
  if (!p) throw Error(fmt::format("write of {} bytes at {}: outside every allocation", bytes, describe(address)));
  if (bytes) std::memcpy(p, src, bytes);  // an empty source may be a null pointer (an empty initializer)
}

void Memory::read(void* dst, uint64_t address, size_t bytes) const {
  uint8_t* p = const_cast<Memory*>(this)->find(address, bytes);
  if (!p) throw Error(fmt::format("read of {} bytes at {}: outside every allocation", bytes, describe(address)));
  if (bytes) std::memcpy(dst, p, bytes);
}

void Memory::fill(uint64_t address, uint8_t value, size_t bytes) {
  uint8_t* p = find(address, bytes);
  if (!p) throw Error(fmt::format("fill of {} bytes at {}: outside every allocation", bytes, describe(address)));
  if (bytes) std::memset(p, value, bytes);
}

std::string Memory::describe(uint64_t address) const {
  const Allocation* a = owner(address);  // (the Allocation node stays where it is)
  if (!a) return fmt::format("{:#x}", address);
  const uint64_t off = address - a->base;
  constexpr uint64_t kGap = 4096;  // alloc() leaves this much unmapped after each allocation
  if (off >= a->bytes.size() + kGap) return fmt::format("{:#x} (in no allocation)", address);
  if (a->freed) return fmt::format("{}+{} (freed)", a->name, off);
  if (off >= a->bytes.size()) return fmt::format("{}+{} (the buffer has {} bytes)", a->name, off, a->bytes.size());
  return fmt::format("{}+{}", a->name, off);
}

}  // namespace ptx::emu
