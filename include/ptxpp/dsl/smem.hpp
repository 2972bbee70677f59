// Shared memory. Allocations are static `.shared` arrays while the kernel's
// total fits in 48 KB; above that the kernel is traced again with one
// `.extern .shared .align 1024 .b8 dyn_smem[]` and offsets into it, and the
// kernel's metadata (Traced::dynamic_smem_bytes) tells the launch how much to ask for.
#pragma once

#include <cstdint>
#include <initializer_list>
#include "ptxpp/dsl/source_location.hpp"
#include <string>

#include "ptxpp/dsl/operand.hpp"
#include "ptxpp/dsl/reg.hpp"
#include "ptxpp/dsl/types.hpp"

namespace ptx::smem {

// CuTe's Swizzle<B, 4, 3> on byte offsets: 32B (B=1), 64B (B=2), 128B (B=3).
enum class Swizzle : uint8_t { None, B32, B64, B128 };

class Buffer {
 public:
  Buffer(std::string symbol, uint64_t offset, uint64_t bytes, DType t, Swizzle s)
      : symbol_(std::move(symbol)), offset_(offset), bytes_(bytes), dtype_(t), swizzle_(s) {}
  // [symbol+offset+byte_offset]
  Operand addr(int64_t byte_offset = 0, ptx::SourceLocation where = ptx::SourceLocation::current()) const;
  // mov.u32 r, symbol(+offset): the buffer's 32-bit shared-window address (one instruction).
  Reg base(ptx::SourceLocation where = ptx::SourceLocation::current()) const;
  uint64_t bytes() const { return bytes_; }
  DType dtype() const { return dtype_; }
  Swizzle swizzle() const { return swizzle_; }
  const std::string& symbol() const { return symbol_; }
  uint64_t offset() const { return offset_; }

 private:
  std::string symbol_;
  uint64_t offset_, bytes_;
  DType dtype_;
  Swizzle swizzle_;
};

// dtype[shape...], aligned to `align` bytes (a power of two; 1024 for 128B swizzles).
Buffer alloc(DType dtype, std::initializer_list<int64_t> shape, uint32_t align = 16, Swizzle swizzle = Swizzle::None,
             ptx::SourceLocation where = ptx::SourceLocation::current());

// The swizzled byte offset, exactly three instructions:
//   shr.u32 t, off, 3;  and.b32 t, t, MASK;  xor.b32 d, off, t;   MASK = 0x10 / 0x30 / 0x70
Reg swizzle(const Reg& byte_offset, Swizzle s, ptx::SourceLocation where = ptx::SourceLocation::current());

}  // namespace ptx::smem
