// Shared memory. Allocations are static `.shared` arrays while the kernel's
// total fits in 48 KB; above that the kernel is traced again with one
// `.extern .shared .align 1024 .b8 dyn_smem[]` and offsets into it, and the
// kernel's metadata (Traced::dynamic_smem_bytes) tells the launch how much to ask for.
#pragma once

#include <cstdint>
#include <initializer_list>
#include <span>
#include <string>
#include <vector>
#include "ptxpp/dsl/source_location.hpp"

#include "ptxpp/dsl/operand.hpp"
#include "ptxpp/dsl/reg.hpp"
#include "ptxpp/dsl/types.hpp"

namespace ptx::smem {

// CuTe's Swizzle<B, 4, 3> on byte offsets: 32B (B=1), 64B (B=2), 128B (B=3).
enum class Swizzle : uint8_t { None, B32, B64, B128 };

class Buffer;

// An index of a shared-memory array: a trace-time constant or a 32-bit integer register
// (held as another handle of the caller's register: making or copying an Index emits nothing).
class Index {
 public:
  Index(int64_t v) : value_(v) {}                          // NOLINT: constants are indices
  Index(int v) : value_(v) {}                              // NOLINT
  Index(const Reg& r) : reg_(handle(r)), is_reg_(true) {}  // NOLINT: registers are indices
  Index(const Index& o) : reg_(handle(o.reg_)), value_(o.value_), is_reg_(o.is_reg_) {}
  Index& operator=(const Index&) = delete;
  bool is_reg() const { return is_reg_; }
  const Reg& reg() const { return reg_; }
  int64_t value() const { return value_; }

 private:
  static Reg handle(const Reg& r) { return Reg::adopt(r.id(), r.type(), r.expr(), r.trace()); }
  Reg reg_;
  int64_t value_ = 0;
  bool is_reg_ = false;
};

// Elements of a buffer picked by indices, some of them registers: `partials[warp][0]`.
// Assigning stores, reading loads; each access emits the address arithmetic, then one
// ld/st.shared (docs/dsl.md, "Shared memory"):
//   mov.u32 a, smem;  mad.lo.u32 a, i, stride_bytes, a  (one per register index);
//   st.shared.f32 [a+constant_bytes], v;
// With constant indices only: st.shared.f32 [smem+constant_bytes], v (no arithmetic).
class Element {
 public:
  Element(const Buffer& buf, std::vector<Index> indices, ptx::SourceLocation where);
  // The next dimension's index (buffers of rank > 1).
  Element operator[](int64_t i) const;
  Element operator[](const Reg& i) const;
  // ld.shared into a fresh register (all dimensions indexed).
  Reg load(ptx::SourceLocation where = ptx::SourceLocation::current()) const;
  operator Reg() const { return load(where_); }  // NOLINT: `Reg v = buf[i][j];` loads
  // st.shared of a register or an immediate (all dimensions indexed).
  void store(const Operand& value, ptx::SourceLocation where = ptx::SourceLocation::current()) const;
  const Element& operator=(const Reg& value) const {  // NOLINT: `buf[i][j] = v;` stores
    store(value, where_);
    return *this;
  }
  size_t rank() const { return indices_.size(); }

 private:
  const Buffer* buf_;
  std::vector<Index> indices_;  // register indices are handles of the caller's registers (no mov)
  ptx::SourceLocation where_;
};

class Buffer {
 public:
  Buffer(std::string symbol, uint64_t offset, uint64_t bytes, DType t, Swizzle s, std::vector<int64_t> shape = {})
      : symbol_(std::move(symbol)), offset_(offset), bytes_(bytes), dtype_(t), swizzle_(s), shape_(std::move(shape)) {}
  // [symbol+offset+byte_offset]
  Operand addr(int64_t byte_offset = 0, ptx::SourceLocation where = ptx::SourceLocation::current()) const;
  // mov.u32 r, symbol(+offset): the buffer's 32-bit shared-window address (one instruction).
  Reg base(ptx::SourceLocation where = ptx::SourceLocation::current()) const;
  uint64_t bytes() const { return bytes_; }
  DType dtype() const { return dtype_; }
  Swizzle swizzle() const { return swizzle_; }
  const std::string& symbol() const { return symbol_; }
  uint64_t offset() const { return offset_; }
  // The dimensions it was allocated with ({bytes / element size} when made from a byte count).
  const std::vector<int64_t>& shape() const { return shape_; }
  // An element, or a run of them, by index: buf[i][j] (see Element); the buffer must outlive it.
  Element operator[](int64_t i) const { return Element(*this, {Index(i)}, {}); }
  Element operator[](const Reg& i) const;
  // All indices at once: buf.at({warp, 0}).
  Element at(std::span<const Index> indices, ptx::SourceLocation where = ptx::SourceLocation::current()) const;

 private:
  std::string symbol_;
  uint64_t offset_, bytes_;
  DType dtype_;
  Swizzle swizzle_;
  std::vector<int64_t> shape_;
};

// dtype[shape...], aligned to `align` bytes (a power of two; 1024 for 128B swizzles).
Buffer alloc(DType dtype, std::initializer_list<int64_t> shape, uint32_t align = 16, Swizzle swizzle = Swizzle::None,
             ptx::SourceLocation where = ptx::SourceLocation::current());
Buffer alloc(DType dtype, std::span<const int64_t> shape, uint32_t align = 16, Swizzle swizzle = Swizzle::None,
             ptx::SourceLocation where = ptx::SourceLocation::current());

// The swizzled byte offset, exactly three instructions:
//   shr.u32 t, off, 3;  and.b32 t, t, MASK;  xor.b32 d, off, t;   MASK = 0x10 / 0x30 / 0x70
Reg swizzle(const Reg& byte_offset, Swizzle s, ptx::SourceLocation where = ptx::SourceLocation::current());

}  // namespace ptx::smem
