#include "ptxpp/dsl/smem.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "ptxpp/dsl/inst.hpp"
#include "trace.hpp"

namespace ptx::smem {

using dsl::Trace;

Buffer alloc(DType dtype, std::initializer_list<int64_t> shape, uint32_t align, Swizzle swizzle,
             ptx::SourceLocation where) {
  return alloc(dtype, std::span<const int64_t>(shape.begin(), shape.size()), align, swizzle, where);
}

Buffer alloc(DType dtype, std::span<const int64_t> shape, uint32_t align, Swizzle swizzle, ptx::SourceLocation where) {
  Trace& t = Trace::current(where);
  if (align == 0 || (align & (align - 1)) != 0)
    throw Error(fmt::format("shared memory alignment {} is not a power of two", align), where);
  if (swizzle != Swizzle::None) {
    const uint32_t need = swizzle == Swizzle::B128 ? 1024 : swizzle == Swizzle::B64 ? 512 : 256;
    if (align < need) throw Error(fmt::format("a swizzled buffer needs {}-byte alignment, not {}", need, align), where);
  }
  if (dtype == DType::pred || dtype == DType::none) throw Error("shared memory of predicates", where);
  if (shape.empty()) throw Error("shared memory of no dimensions", where);
  uint64_t elems = 1;
  for (int64_t d : shape) {
    if (d <= 0) throw Error(fmt::format("shared memory dimension {} is not positive", d), where);
    if (elems > (uint64_t{1} << 40) / static_cast<uint64_t>(d))
      throw Error("shared memory allocation too large", where);
    elems *= static_cast<uint64_t>(d);
  }
  std::vector<int64_t> dims(shape.begin(), shape.end());
  const uint64_t bytes = elems * bits(dtype) / 8;
  if (bytes == 0) throw Error("an empty shared memory allocation", where);
  const uint64_t offset = (t.smem_bytes + align - 1) / align * align;
  t.smem_bytes = offset + bytes;
  if (t.smem_bytes > dsl::smem_limit(t.options.target))  // named here, where it went over
    throw Error(
        fmt::format("this shared memory allocation ({}[{}], {} bytes) brings the kernel to {} bytes; {} allows {}",
                    name(dtype), fmt::join(shape, "]["), bytes, t.smem_bytes, t.options.target.name(),
                    dsl::smem_limit(t.options.target)),
        where);
  if (t.options.dynamic_smem) {
    if (align > 1024) throw Error("dynamic shared memory is aligned to 1024 bytes at most", where);
    return Buffer("dyn_smem", offset, bytes, dtype, swizzle, std::move(dims));
  }
  const std::string name = t.unique_name("smem");
  ir::Module& m = t.m;
  const uint32_t d = m.add_decl({".shared", ".align", ".b8"}, name, {},
                                std::vector<ir::ExprId>{m.add_list(ir::Delim::Bracket, {m.add_int(bytes)})});
  m.specs[m.decls[d].specs.first + 1].arg = m.add_int(align);
  t.smem_decls.push_back(ir::Stmt{ir::StmtKind::Decl, d});
  return Buffer(name, 0, bytes, dtype, swizzle, std::move(dims));
}

Operand Buffer::addr(int64_t byte_offset, ptx::SourceLocation where) const {
  if (byte_offset < 0 || static_cast<uint64_t>(byte_offset) >= bytes_)
    throw Error(fmt::format("offset {} is outside the {}-byte shared buffer", byte_offset, bytes_), where);
  Trace::current(where);
  return ptx::addr(symbol_, static_cast<int64_t>(offset_) + byte_offset);
}

Reg Buffer::base(ptx::SourceLocation where) const {
  Trace& t = Trace::current(where);
  Reg r = t.new_reg(DType::u32, {}, where);
  ir::ExprId sym = t.m.add_name(symbol_);
  if (offset_) sym = t.m.add_binary(ir::Op::Add, sym, t.m.add_int(offset_));
  const Operand ops[] = {Operand(r), Operand(OperandKind::Symbol, DType::none, sym)};
  t.emit(inst::mov.u32, ops, where);
  return r;
}

Reg swizzle(const Reg& off, Swizzle s, ptx::SourceLocation where) {
  Trace& t = Trace::current(where);
  t.check_reg(off, where);
  if (off.type() != DType::u32 && off.type() != DType::b32 && off.type() != DType::s32)
    throw Error(fmt::format("smem::swizzle takes a 32-bit byte offset, not {}", name(off.type())), where);
  if (s == Swizzle::None) throw Error("smem::swizzle with Swizzle::None", where);
  const uint32_t mask = s == Swizzle::B32 ? 0x10 : s == Swizzle::B64 ? 0x30 : 0x70;
  Reg a = t.new_reg(DType::u32, {}, where), b = t.new_reg(DType::u32, {}, where), d = t.new_reg(DType::u32, {}, where);
  {
    const Operand ops[] = {Operand(a), Operand(off), Operand(3)};
    t.emit(inst::shr.u32, ops, where);
  }
  {
    const Operand ops[] = {Operand(b), Operand(a), Operand(mask)};
    t.emit(inst::and_.b32, ops, where);
  }
  {
    const Operand ops[] = {Operand(d), Operand(off), Operand(b)};
    t.emit(inst::xor_.b32, ops, where);
  }
  return d;
}

}  // namespace ptx::smem
