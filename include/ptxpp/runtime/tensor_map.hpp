// TMA tensor maps: the 128-byte descriptors cp.async.bulk.tensor reads, made from
// a description of a tensor in device memory. The driver's rules are checked
// first, with errors naming the field; then cuTensorMapEncodeTiled / Im2col on a
// GPU, or the emulator's encoding on the CPU device (ptxpp/emu/tensor_map.hpp).
//
//   ptx::TensorMapSpec s;                        // a 1024 x 512 bf16 matrix, row major
//   s.type = ptx::TmaType::bf16;
//   s.dims = {512, 1024};                        // innermost first
//   s.box = {64, 128};                           // a 128 x 64 tile per copy
//   s.swizzle = ptx::TmaSwizzle::b128;
//   ptx::TensorMap m = ptx::make_tensor_map(dev, a, s);
//   k(m, ...);                                   // a kernel parameter declared with Kernel::tensor_map
#pragma once

#include <array>
#include <cstdint>
#include <map>
#include <mutex>
#include <string>
#include <vector>

#include "ptxpp/runtime/device.hpp"

namespace ptx {

// The driver's enumerations (CUtensorMapDataType, ...), same values.
enum class TmaType : uint8_t { u8 = 0, u16, u32, s32, u64, s64, f16, f32, f64, bf16, f32_ftz, tf32, tf32_ftz };
enum class TmaInterleave : uint8_t { none = 0, b16, b32 };
enum class TmaSwizzle : uint8_t { none = 0, b32, b64, b128, b128_atom_32b, b128_atom_32b_flip_8b, b128_atom_64b };
enum class TmaL2Promotion : uint8_t { none = 0, b64, b128, b256 };
enum class TmaOobFill : uint8_t { zero = 0, nan_request_zero_fma };

struct TensorMapSpec {
  enum class Mode : uint8_t { tiled, im2col };
  Mode mode = Mode::tiled;
  TmaType type = TmaType::f32;
  std::vector<uint64_t> dims;             // elements per dimension, innermost first (1 to 5)
  std::vector<uint64_t> strides;          // bytes, of dimensions 1 .. rank-1; empty: packed rows
  std::vector<uint32_t> box;              // tiled: elements per dimension of one copy
  std::vector<uint32_t> element_strides;  // empty: all 1
  // im2col (rank 3 to 5, dims = {C, W, H, D, N} innermost first): the pixel box corners {D, H, W}
  // (rank - 2 of them), channels per pixel and pixels per column of one copy.
  std::vector<int> lower, upper;
  uint32_t channels_per_pixel = 0, pixels_per_column = 0;
  TmaInterleave interleave = TmaInterleave::none;
  TmaSwizzle swizzle = TmaSwizzle::none;
  TmaL2Promotion l2_promotion = TmaL2Promotion::none;
  TmaOobFill oob_fill = TmaOobFill::zero;

  friend bool operator==(const TensorMapSpec&, const TensorMapSpec&) = default;
};

// A descriptor: pass it by value as a launch argument (a `.param .align 64 .b8 [128]`).
struct alignas(64) TensorMap {
  std::array<uint8_t, 128> bytes{};
};

// "" when `spec` and the base address follow the driver's rules, else what does not.
std::string check_tensor_map(const TensorMapSpec& spec, uint64_t base_address);
// The byte strides of dimensions 1 .. rank-1: spec.strides, or those of packed rows when it is empty.
std::vector<uint64_t> byte_strides(const TensorMapSpec& spec);
// Checks, then encodes; throws runtime::Error (the rule broken, or the driver's error).
TensorMap make_tensor_map(const Device& dev, DevicePtr base, const TensorMapSpec& spec);
// The same descriptor for another base address (cuTensorMapReplaceAddress): no re-encoding.
void replace_address(const Device& dev, TensorMap& map, DevicePtr base);

// Descriptors encoded once per (device, spec), handed out by value with the base
// replaced: no shared mutable descriptor, so launches on several streams do not race.
class TensorMapCache {
 public:
  TensorMap get(const Device& dev, DevicePtr base, const TensorMapSpec& spec);
  size_t size() const;
  size_t encodes() const { return encodes_; }  // how many descriptors were encoded (not replaced)

 private:
  mutable std::mutex mu_;
  std::vector<std::pair<std::pair<const void*, TensorMapSpec>, TensorMap>> entries_;
  size_t encodes_ = 0;
};

}  // namespace ptx
