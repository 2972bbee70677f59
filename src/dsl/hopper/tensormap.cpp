#include "ptxpp/dsl/hopper/tensormap.hpp"

#include <string>
#include <string_view>

#include <fmt/format.h>

#include "../trace.hpp"
#include "ptxpp/dsl/error.hpp"
#include "ptxpp/dsl/inst.hpp"

namespace ptx::hopper {

using dsl::Trace;

namespace {

std::string_view space_name(TensormapSpace s) { return s == TensormapSpace::global ? ".global" : ".shared::cta"; }

void check_map(const Operand& map, const char* what, ptx::SourceLocation where) {
  if (map.kind != OperandKind::Addr) throw Error(fmt::format("{}: the tensor map is an address (ptx::addr(reg) or a buffer's addr)", what), where);
}

// A register of the field's width, or an immediate.
void check_value(const Operand& v, int width, const char* what, ptx::SourceLocation where) {
  if (v.kind == OperandKind::Imm) return;
  if (v.kind != OperandKind::Reg || bits(v.type) != width || is_float(v.type))
    throw Error(fmt::format("{}: the new value is a {}-bit integer register or an immediate", what, width), where);
}

void check_dim(int dim, int lo, int hi, const char* what, ptx::SourceLocation where) {
  if (dim < lo || dim > hi) throw Error(fmt::format("{}: dimension {} (this field has {} to {})", what, dim, lo, hi), where);
}

// tensormap.replace.tile.FIELD.SPACE.b1024.TYPE [map], {ord,} value;
void replace(std::string_view field, int width, TensormapSpace space, const Operand& map, const Operand* ord, const Operand& value,
             ptx::SourceLocation where) {
  const std::string what = fmt::format("tensormap.replace .{}", field);
  check_map(map, what.c_str(), where);
  check_value(value, width, what.c_str(), where);
  dsl::RuntimeChain m(inst::tensormap.replace.tile);
  m.then(fmt::format(".{}{}.b1024.b{}", field, space_name(space), width), where);
  Trace& t = Trace::current(where);
  if (ord) {
    const Operand ops[] = {map, *ord, value};
    t.emit(m, ops, where);
  } else {
    const Operand ops[] = {map, value};
    t.emit(m, ops, where);
  }
}

void replace_indexed(std::string_view field, int width, TensormapSpace space, const Operand& map, int ord, const Operand& value,
                     ptx::SourceLocation where) {
  const Operand o(ord);
  replace(field, width, space, map, &o, value, where);
}

void replace_code(std::string_view field, TensormapSpace space, const Operand& map, unsigned code, unsigned count,
                  ptx::SourceLocation where) {
  if (code >= count) throw Error(fmt::format("tensormap.replace .{}: {} is not one of its {} values", field, code, count), where);
  replace(field, 32, space, map, nullptr, Operand(code), where);
}

}  // namespace

void tensormap_replace_global_address(TensormapSpace space, const Operand& map, const Operand& value, ptx::SourceLocation where) {
  replace("global_address", 64, space, map, nullptr, value, where);
}

void tensormap_replace_rank(TensormapSpace space, const Operand& map, int rank, ptx::SourceLocation where) {
  if (rank < 1 || rank > 5) throw Error(fmt::format("tensormap.replace .rank: a tensor map has rank 1 to 5, not {}", rank), where);
  replace("rank", 32, space, map, nullptr, Operand(rank - 1), where);
}

void tensormap_replace_box_dim(TensormapSpace space, const Operand& map, int dim, const Operand& value, ptx::SourceLocation where) {
  check_dim(dim, 0, 4, "tensormap.replace .box_dim", where);
  replace_indexed("box_dim", 32, space, map, dim, value, where);
}

void tensormap_replace_global_dim(TensormapSpace space, const Operand& map, int dim, const Operand& value, ptx::SourceLocation where) {
  check_dim(dim, 0, 4, "tensormap.replace .global_dim", where);
  replace_indexed("global_dim", 32, space, map, dim, value, where);
}

void tensormap_replace_global_stride(TensormapSpace space, const Operand& map, int dim, const Operand& value,
                                     ptx::SourceLocation where) {
  check_dim(dim, 1, 4, "tensormap.replace .global_stride", where);
  replace_indexed("global_stride", 64, space, map, dim - 1, value, where);
}

void tensormap_replace_element_stride(TensormapSpace space, const Operand& map, int dim, const Operand& value,
                                      ptx::SourceLocation where) {
  check_dim(dim, 0, 4, "tensormap.replace .element_stride", where);
  replace_indexed("element_stride", 32, space, map, dim, value, where);
}

void tensormap_replace(TensormapSpace space, const Operand& map, TensormapElemtype v, ptx::SourceLocation where) {
  replace_code("elemtype", space, map, static_cast<unsigned>(v), 16, where);
}
void tensormap_replace(TensormapSpace space, const Operand& map, TensormapInterleave v, ptx::SourceLocation where) {
  replace_code("interleave_layout", space, map, static_cast<unsigned>(v), 3, where);
}
void tensormap_replace(TensormapSpace space, const Operand& map, TensormapSwizzle v, ptx::SourceLocation where) {
  replace_code("swizzle_mode", space, map, static_cast<unsigned>(v), 5, where);
}
void tensormap_replace(TensormapSpace space, const Operand& map, TensormapSwizzleAtomicity v, ptx::SourceLocation where) {
  replace_code("swizzle_atomicity", space, map, static_cast<unsigned>(v), 4, where);
}
void tensormap_replace(TensormapSpace space, const Operand& map, TensormapFill v, ptx::SourceLocation where) {
  replace_code("fill_mode", space, map, static_cast<unsigned>(v), 2, where);
}

void tensormap_publish(const Operand& global_map, const Operand& shared_map, ptx::SourceLocation where) {
  check_map(global_map, "tensormap_publish", where);
  check_map(shared_map, "tensormap_publish", where);
  const Operand ops[] = {global_map, shared_map, Operand(128)};
  Trace::current(where).emit(inst::tensormap.cp_fenceproxy.global.shared_cta.tensormap_generic.release.gpu.sync.aligned, ops, where);
}

void tensormap_acquire(const Reg& map, ptx::SourceLocation where) {
  Trace& t = Trace::current(where);
  t.check_reg(map, where);
  if (bits(map.type()) != 64) throw Error("tensormap_acquire: the map's generic address is a 64-bit register", where);
  const Operand ops[] = {ptx::addr(map), Operand(128)};
  t.emit(inst::fence.proxy.tensormap_generic.acquire.gpu, ops, where);
}

}  // namespace ptx::hopper
