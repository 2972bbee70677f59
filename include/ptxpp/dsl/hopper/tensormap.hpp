// Editing a TMA descriptor on the device (sm_90a): a kernel that learns shapes or addresses
// only at run time (grouped GEMMs with per-group pointers, paged caches) copies a tensor map
// to shared memory, replaces fields there, publishes it to global memory with a release
// fence of the tensor-map proxy, and the kernels or threads that use it acquire it before
// their first TMA with it:
//
//   tensormap_replace_global_address(TensormapSpace::shared, smap, ptr);   // one thread
//   tensormap_replace_global_dim(TensormapSpace::shared, smap, 1, rows);
//   tensormap_publish(gmap, smap);                                          // one whole warp
//   ... (another thread, later) tensormap_acquire(gmap_generic);  tma_load(..., gmap_generic, ...)
#pragma once

#include <cstdint>

#include "ptxpp/dsl/operand.hpp"
#include "ptxpp/dsl/reg.hpp"
#include "ptxpp/dsl/source_location.hpp"

namespace ptx::hopper {

// Where the map being edited lies: global memory, or this CTA's shared memory.
enum class TensormapSpace : uint8_t { global, shared };

// The enumerated fields, with the values the manual gives them (the instruction takes them
// as immediates).
enum class TensormapElemtype : uint8_t {
  u8, u16, u32, s32, u64, s64, f16, f32, f32_ftz, f64, bf16, tf32, tf32_ftz, b4x16, b4x16_p64, b6x16_p32
};
enum class TensormapInterleave : uint8_t { none, b16, b32 };
enum class TensormapSwizzle : uint8_t { none, b32, b64, b128, b96 };
// The unit the 128-byte swizzle permutes: 16 bytes (the classic modes), 32, 32 with the 8-byte
// flip, 64 (the driver's CU_TENSOR_MAP_SWIZZLE_128B_ATOM_* modes).
enum class TensormapSwizzleAtomicity : uint8_t { b16, b32, b32_flip_8b, b64 };
enum class TensormapFill : uint8_t { zero, nan_request_zero_fma };

// `map` is the map's address in `space` (ptx::addr(reg) or a shared buffer's addr(off));
// `value`, where it is an operand, a register or an immediate of the field's width.
// tensormap.replace.tile.global_address.SPACE.b1024.b64 [map], value;  (16-byte aligned)
void tensormap_replace_global_address(TensormapSpace space, const Operand& map, const Operand& value,
                                      ptx::SourceLocation where = ptx::SourceLocation::current());
// tensormap.replace.tile.rank.SPACE.b1024.b32 [map], rank - 1;  (rank 1 to 5)
void tensormap_replace_rank(TensormapSpace space, const Operand& map, int rank,
                            ptx::SourceLocation where = ptx::SourceLocation::current());
// tensormap.replace.tile.box_dim.SPACE.b1024.b32 [map], dim, value;  (dim 0 to 4 innermost first; 1 to 256)
void tensormap_replace_box_dim(TensormapSpace space, const Operand& map, int dim, const Operand& value,
                               ptx::SourceLocation where = ptx::SourceLocation::current());
// tensormap.replace.tile.global_dim.SPACE.b1024.b32 [map], dim, value;  (elements)
void tensormap_replace_global_dim(TensormapSpace space, const Operand& map, int dim, const Operand& value,
                                  ptx::SourceLocation where = ptx::SourceLocation::current());
// tensormap.replace.tile.global_stride.SPACE.b1024.b64 [map], dim - 1, value;
// the byte stride of dimension `dim` (1 to 4; dimension 0 is contiguous), a multiple of 16.
void tensormap_replace_global_stride(TensormapSpace space, const Operand& map, int dim, const Operand& value,
                                     ptx::SourceLocation where = ptx::SourceLocation::current());
// tensormap.replace.tile.element_stride.SPACE.b1024.b32 [map], dim, value;  (1 to 8)
void tensormap_replace_element_stride(TensormapSpace space, const Operand& map, int dim, const Operand& value,
                                      ptx::SourceLocation where = ptx::SourceLocation::current());
// tensormap.replace.tile.FIELD.SPACE.b1024.b32 [map], CODE;
void tensormap_replace(TensormapSpace space, const Operand& map, TensormapElemtype v,
                       ptx::SourceLocation where = ptx::SourceLocation::current());
void tensormap_replace(TensormapSpace space, const Operand& map, TensormapInterleave v,
                       ptx::SourceLocation where = ptx::SourceLocation::current());
void tensormap_replace(TensormapSpace space, const Operand& map, TensormapSwizzle v,
                       ptx::SourceLocation where = ptx::SourceLocation::current());
void tensormap_replace(TensormapSpace space, const Operand& map, TensormapSwizzleAtomicity v,
                       ptx::SourceLocation where = ptx::SourceLocation::current());
void tensormap_replace(TensormapSpace space, const Operand& map, TensormapFill v,
                       ptx::SourceLocation where = ptx::SourceLocation::current());

// The edited map from shared to global memory, released to the tensor-map proxy at GPU scope
// (every thread of the warp executes it):
//   tensormap.cp_fenceproxy.global.shared::cta.tensormap::generic.release.gpu.sync.aligned [global_map], [shared_map], 128;
void tensormap_publish(const Operand& global_map, const Operand& shared_map,
                       ptx::SourceLocation where = ptx::SourceLocation::current());
// Before a TMA with a map another thread published: fence.proxy.tensormap::generic.acquire.gpu [map], 128;
// (`map` the generic address the TMA instructions take).
void tensormap_acquire(const Reg& map, ptx::SourceLocation where = ptx::SourceLocation::current());

}  // namespace ptx::hopper
